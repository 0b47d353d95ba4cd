/* SPDX-License-Identifier: MIT */
/*
 * quire bench: its subcommands, and the pieces more than one of them uses (bench.c).
 * Functions returning int print their errors and return non-zero.
 */
#ifndef QUIRE_CLI_BENCH_H
#define QUIRE_CLI_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "quire.h"

/* quire bench codec, card, allreduce, sched-serve and faults (bench_codec.c, bench_card.c,
 * bench_allreduce.c, bench_sched_serve.c, bench_faults.c). */
int bench_codec(int argc, char **argv);
int bench_card(int argc, char **argv);
int bench_allreduce(int argc, char **argv);
int bench_sched_serve(int argc, char **argv);
int bench_faults(int argc, char **argv);

/* Seconds on the monotonic clock. */
double bench_now(void);
/* Gradient-like data: roughly normal, magnitudes varying from block to block; the same
 * seed, the same numbers. */
void bench_fill_gradients(float *x, size_t n, uint64_t seed);
/* The directory of this program, where the programs a bench starts are built and installed
 * beside it, into dir (len bytes); the failure names cmd. 0, or the exit status. */
int bench_self_dir(const char *cmd, char *dir, size_t len);

/* One backend with n elements of data in its buffers, and a bfp8 encode of them and a
 * decode of that encoding ready to run. */
struct bench_backend {
	struct quire_ctx *ctx;
	struct quire_buf *x, *q, *e, *y;
	struct quire_op enc, dec;
};
int bench_backend_open(struct bench_backend *c, const char *uri, size_t n, const float *data);
/* Closes what bench_backend_open opened; a zeroed one is left alone. */
void bench_backend_close(struct bench_backend *c);
/* "encode bfp8" and "decode bfp8": the rows bench_pair_times measures. */
extern const char *const bench_pair_names[2];
/* Best seconds of `repeat` runs of the bfp8 encode, then the decode, on dev (td) and on cpu
 * (tc). */
int bench_pair_times(struct bench_backend *dev, struct bench_backend *cpu, int repeat, double td[2],
		     double tc[2]);

#endif /* QUIRE_CLI_BENCH_H */
