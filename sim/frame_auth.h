/* SPDX-License-Identifier: MIT */
/*
 * The tags of the cards' UDP network (docs/network.md, "The job's key"; the format in
 * docs/wire-format.md): HMAC-SHA256 of OpenSSL's libcrypto, the frames' tags truncated to
 * 128 bits. The link's key is derived from the job key and the run's identity
 * (quire_frame_auth_derive), so that a datagram of another job, or of an earlier run with the
 * same key, fails. The rendezvous proves the job key with the same MAC (quire_frame_auth_mac).
 */
#ifndef QUIRE_SIM_FRAME_AUTH_H
#define QUIRE_SIM_FRAME_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "sim/job_key.h"

#include "quire/frame.h"

/* A frame's tag is the first QUIRE_LINK_TAG_BYTES (the contract's) of its HMAC-SHA256. */
#define QUIRE_FRAME_AUTH_MAC_BYTES 32u /* a whole HMAC-SHA256 (the derived key, the rendezvous) */

/* HMAC-SHA256 under key over the n parts in turn, into mac. QUIRE_OK or QUIRE_ERR_NOMEM. */
int quire_frame_auth_mac(const uint8_t *key, size_t key_len, const struct iovec *parts, int n,
			 uint8_t mac[QUIRE_FRAME_AUTH_MAC_BYTES]);

/* The link's key: HMAC-SHA256(job key, "quire link v2" || run). */
int quire_frame_auth_derive(const struct quire_job_key *k, const uint8_t run[QUIRE_JOB_RUN_BYTES],
			    uint8_t link_key[QUIRE_FRAME_AUTH_MAC_BYTES]);

/* A MAC keyed once, for many tags; one thread at a time. */
struct quire_frame_auth;

int quire_frame_auth_new(const uint8_t link_key[QUIRE_FRAME_AUTH_MAC_BYTES],
			 struct quire_frame_auth **out);
void quire_frame_auth_free(struct quire_frame_auth *a);

/* The tag of head (head_len bytes) then body (body_len, body may be NULL with 0). */
void quire_frame_auth_tag(struct quire_frame_auth *a, const uint8_t *head, size_t head_len,
			  const uint8_t *body, size_t body_len, uint8_t tag[QUIRE_LINK_TAG_BYTES]);
/* 1 when tag is that of head and body (compared in constant time), else 0. */
int quire_frame_auth_check(struct quire_frame_auth *a, const uint8_t *head, size_t head_len,
			   const uint8_t *body, size_t body_len,
			   const uint8_t tag[QUIRE_LINK_TAG_BYTES]);

#endif
