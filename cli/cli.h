/* SPDX-License-Identifier: MIT */
/* The quire command-line tool: shared helpers of its subcommands. */
#ifndef QUIRE_CLI_H
#define QUIRE_CLI_H

#include <stddef.h>
#include <stdint.h>

struct quire_ctx;

/* Exit codes: 0 success, 1 the operation failed, 2 bad usage. */
#define CLI_EXIT_FAIL  1
#define CLI_EXIT_USAGE 2

struct cli_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* Print "quire: <msg>" to stderr; returns CLI_EXIT_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "quire: <msg>" and "Try '<usage>' ..." to stderr; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Report a getopt error (optstrings start with ':'); returns CLI_EXIT_USAGE. */
int cli_bad_option(const char *cmd, int c, char **argv);

/* Run the subcommand argv[0] of a command group, with --help. */
int cli_dispatch(const char *group, const struct cli_command *cmds, size_t count, int argc,
		 char **argv);

/* A raw little-endian fp32 file, read whole. Errors are printed; returns NULL. */
float *cli_read_f32(const char *path, size_t *n);

/*
 * An output file that a failed command leaves as it was: the data goes to a temporary
 * file beside it, renamed over it by cli_output_commit once the whole command succeeded
 * and removed by cli_output_abort otherwise. A path that exists but is not a regular
 * file (a device such as /dev/null, a FIFO, a symbolic link) is written in place.
 * Functions returning int print their errors, naming path, and return non-zero.
 */
struct cli_output {
	const char *path; /* as the user named it; NULL: no output */
	char *tmp;        /* where the data goes until committed; NULL: in place */
};
/* Make way for it before any work: a missing directory is found out here. */
int cli_output_open(struct cli_output *o, const char *path);
/* Where to write the data. */
const char *cli_output_file(const struct cli_output *o);
int cli_output_write(const struct cli_output *o, const void *data, size_t bytes);
int cli_output_commit(struct cli_output *o);
void cli_output_abort(struct cli_output *o);
/* Refuse (print, non-zero) an output that is the same file as one of the n inputs, before
 * anything is read: an encode must not replace the gradients it encodes. */
int cli_output_not_input(const char *out, const char *const *in, int n);

/* "64MiB", "1G", "4096" -> bytes; 0 on a malformed value. */
uint64_t cli_parse_size(const char *s);
/* A whole decimal number in [lo, hi] into *v: 0, or -1 for anything else. */
int cli_parse_long(const char *s, long lo, long hi, long *v);

/*
 * Runs argv[0] (found on PATH) until it ends, and the program ends with the tool: a
 * SIGINT, SIGTERM or SIGHUP to the tool is passed on (SIGHUP as SIGTERM), a second one
 * kills the program, and the program gets SIGTERM if the tool dies. Returns the
 * program's exit status (128+N when a signal N ended it), or -1 if it could not be
 * started; *stopped_by is the signal that stopped the tool meanwhile, else 0. hint
 * follows the error of a program that cannot be run.
 */
int cli_run_child(const char *const *argv, const char *hint, int *stopped_by);

int cli_codec(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_selftest(int argc, char **argv);
/* Open a backend by URI, or print why not (returns non-zero). */
int cli_open(const char *cmd, const char *uri, struct quire_ctx **ctx);
int cli_bench(int argc, char **argv);
/* A random model image of `layers` layers, widths w[0..layers] (w[layers] = 1), valid by
 * construction, drawn from *rng (xorshift64, non-zero); img holds
 * QUIRE_MLP_MAX_IMAGE_BYTES. Returns its length. */
size_t cli_model_image(uint8_t *img, uint32_t layers, const uint32_t *w, uint64_t *rng);
/* quire sched: the scheduler's commands over sched/ (sched.c). */
int cli_sched(int argc, char **argv);
/* quire sched replay (sched_replay.c) and quire sched dataset (sched_dataset.c). */
int cli_sched_replay(int argc, char **argv);
int cli_sched_dataset(int argc, char **argv);
/* quire sched split (sched_split.c). */
int cli_sched_split(int argc, char **argv);
/* quire sched place and quire sched bench (sched_place.c). */
int cli_sched_place(int argc, char **argv);
int cli_sched_bench(int argc, char **argv);
int cli_sched_serve(int argc, char **argv);

#endif /* QUIRE_CLI_H */
