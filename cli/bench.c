// SPDX-License-Identifier: MIT
/*
 * quire bench: its subcommands (bench_codec.c, bench_card.c, bench_allreduce.c,
 * bench_faults.c), and what
 * more than one of them uses: the clock, gradient-like data, one backend's bfp8 encode and
 * decode timed beside cpu's, and the directory of the programs they start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "quire.h"
#include "sim/locate.h" /* quire_sim_self_dir: the one "directory of this program" */

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Gradient-like data: roughly normal, magnitudes varying from block to block. */
void bench_fill_gradients(float *x, size_t n, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	for (size_t i = 0; i < n; i++) {
		float u = 0;
		for (int k = 0; k < 4; k++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			u += (float)(s >> 40) * (1.0f / 16777216.0f);
		}
		x[i] = (u - 2.0f) * (1.0f / 1024) * (float)(1u << (i / 4096 % 8));
	}
}

int bench_self_dir(const char *cmd, char *dir, size_t len)
{
	quire_sim_self_dir(dir, len);
	return dir[0] ? 0 : cli_fail("%s: cannot find my own directory", cmd);
}

int bench_backend_open(struct bench_backend *c, const char *uri, size_t n, const float *data)
{
	if (cli_open("bench card", uri, &c->ctx))
		return -1;
	if (quire_buf_alloc(c->ctx, 4 * n, &c->x) || quire_buf_alloc(c->ctx, n, &c->q) ||
	    quire_buf_alloc(c->ctx, QUIRE_BFP_BLOCKS(n), &c->e) ||
	    quire_buf_alloc(c->ctx, 4 * n, &c->y))
		return cli_fail("bench card: %s: cannot allocate %zu-element buffers", uri, n), -1;
	memcpy(quire_buf_ptr(c->x), data, 4 * n);
	c->enc = (struct quire_op){.opcode = QUIRE_OPC_ENCODE,
				   .format = QUIRE_FMT_BFP8,
				   .count = (uint32_t)n,
				   .src = {c->x, 0},
				   .dst = {c->q, 0},
				   .exp = {c->e, 0}};
	c->dec = (struct quire_op){.opcode = QUIRE_OPC_DECODE,
				   .format = QUIRE_FMT_BFP8,
				   .val_format = QUIRE_FMT_INT8,
				   .count = (uint32_t)n,
				   .src = {c->q, 0},
				   .dst = {c->y, 0},
				   .exp = {c->e, 0}};
	return 0;
}

void bench_backend_close(struct bench_backend *c)
{
	if (!c->ctx)
		return;
	quire_buf_free(c->x);
	quire_buf_free(c->q);
	quire_buf_free(c->e);
	quire_buf_free(c->y);
	quire_close(c->ctx);
}

/* Best seconds of `repeat` runs of op; negative on error. */
static double best_run(struct quire_ctx *ctx, const struct quire_op *op, int repeat)
{
	double best = 1e30;
	for (int r = 0; r <= repeat; r++) {
		double t0 = bench_now();
		int st = quire_run(ctx, op, NULL);
		if (st) {
			cli_fail("bench card: %s", quire_strerror(st));
			return -1;
		}
		if (r > 0 && bench_now() - t0 < best)
			best = bench_now() - t0;
	}
	return best;
}

const char *const bench_pair_names[2] = {"encode bfp8", "decode bfp8"};

/* Best seconds of bfp8 encode, then decode, on dev (td) and on cpu (tc); -1 on error. */
int bench_pair_times(struct bench_backend *dev, struct bench_backend *cpu, int repeat, double td[2],
		     double tc[2])
{
	struct quire_op *ops[2][2] = {{&dev->enc, &cpu->enc}, {&dev->dec, &cpu->dec}};
	for (int i = 0; i < 2; i++) {
		td[i] = best_run(dev->ctx, ops[i][0], repeat);
		tc[i] = best_run(cpu->ctx, ops[i][1], repeat);
		if (td[i] < 0 || tc[i] < 0)
			return -1;
	}
	return 0;
}

static const struct cli_command bench_commands[] = {
    {"codec", "codec throughput against memcpy", bench_codec},
    {"card", "command round trip and throughput of a backend against cpu", bench_card},
    {"allreduce", "all-reduce bandwidth over W ranks against OpenMPI", bench_allreduce},
    {"sched-serve", "quire sched serve's prioritize: requests/s and latency", bench_sched_serve},
    {"faults", "collectives on 4 cards under mixed faults: exact or an error, never wrong",
     bench_faults},
};
int cli_bench(int argc, char **argv)
{
	return cli_dispatch("bench", bench_commands,
			    sizeof(bench_commands) / sizeof(bench_commands[0]), argc, argv);
}
