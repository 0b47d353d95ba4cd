/* SPDX-License-Identifier: MIT */
/*
 * The job key of the cards' UDP network (docs/network.md, "The job's key"): the secret every
 * card of one job holds, which the rendezvous makes each card prove and from which the link
 * derives the key of its frames' tags (sim/frame_auth.h). 128 random bits, made by
 * quire-cluster when the job starts, or given by the user:
 *   QUIRE_JOB_KEY=HEX          32 hex digits (or 64: a 256-bit key is taken as well)
 *   QUIRE_JOB_KEY_FILE=PATH    a file holding those digits (a newline may follow), owned by
 *                              this user and readable by nobody else (mode 0600 or 0400)
 * The key travels to the card processes in their environment (/proc/PID/environ is the
 * owner's alone), never on a command line (/proc/PID/cmdline is everyone's). A run's
 * identity (QUIRE_JOB_RUN, 32 hex digits, not secret) tells one run with a key from another.
 */
#ifndef QUIRE_SIM_JOB_KEY_H
#define QUIRE_SIM_JOB_KEY_H

#include <stddef.h>
#include <stdint.h>

#define QUIRE_JOB_KEY_BYTES     16u /* what quire-cluster makes */
#define QUIRE_JOB_KEY_MAX_BYTES 32u /* what a user may give */
#define QUIRE_JOB_RUN_BYTES     16u
#define QUIRE_JOB_KEY_ENV       "QUIRE_JOB_KEY"
#define QUIRE_JOB_KEY_FILE_ENV  "QUIRE_JOB_KEY_FILE"
#define QUIRE_JOB_RUN_ENV       "QUIRE_JOB_RUN"

struct quire_job_key {
	uint8_t bytes[QUIRE_JOB_KEY_MAX_BYTES];
	uint32_t len; /* 16 or 32; 0: no key */
};

/* Hex digits (32 or 64 of them, then at most one newline) into k. QUIRE_OK, or
 * QUIRE_ERR_INVALID with why naming what is wrong (a digit, the length). */
int quire_job_key_parse(const char *hex, size_t n, struct quire_job_key *k, char *why,
			size_t why_len);

/* The key in the file at path, which must be a regular file owned by this user and
 * readable or writable by nobody else. QUIRE_OK; QUIRE_ERR_INVALID (its mode, owner or
 * contents, said in why); QUIRE_ERR_NO_DEVICE when it cannot be opened. */
int quire_job_key_load_file(const char *path, struct quire_job_key *k, char *why, size_t why_len);

/* The key the environment gives (QUIRE_JOB_KEY, else QUIRE_JOB_KEY_FILE): QUIRE_OK with
 * k->len 0 when it gives none; QUIRE_ERR_INVALID when both are set or the one set is bad. */
int quire_job_key_from_env(struct quire_job_key *k, char *why, size_t why_len);

/* n random bytes from the kernel (getrandom). QUIRE_OK or QUIRE_ERR_IO. */
int quire_job_random(uint8_t *out, size_t n);

/* 2n lowercase hex digits of bytes, and a zero, into out. */
void quire_job_hex(const uint8_t *bytes, size_t n, char *out);

/* The run's identity from QUIRE_JOB_RUN into run: 1 when set and well formed, 0 when not
 * set, -1 when malformed. */
int quire_job_run_from_env(uint8_t run[QUIRE_JOB_RUN_BYTES]);

#endif
