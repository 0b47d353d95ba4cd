// SPDX-License-Identifier: MIT
/*
 * ring_dump: one rank of a card all-reduce whose results are written to a file, so that
 * two runs (emu cards, RTL cards: tests/cli/test_net_rtl.sh) can be compared byte for
 * byte. Run W of them inside quire-cluster with QUIRE_RANK=0..W-1: each opens its card
 * (sim:cluster), meets the others in $QUIRE_CLUSTER_DIR, and all-reduces ROUNDS vectors
 * of N seeded fp32 values (rank and round make the seed; zeros, -0.0, subnormals, tiny
 * and huge values among them) in format FMT (fp32, or bfp8 with error feedback carried
 * across the rounds; bfp8rq the same with the requantized all-gather, the mean, and the
 * owner residual carried too, each round also checked against the golden model of all
 * ranks, hls/allreduce_golden.c), appending each round's result to OUT.
 * Usage: QUIRE_RANK=R ring_dump W fp32|bfp8|bfp8rq N ROUNDS OUT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hls/allreduce_golden.h"
#include "quire.h"

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Element i of rank r's vector in round k. */
static void fill(float *x, size_t n, int rank, int round)
{
	uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)(rank + 1) << 32 ^ (uint64_t)(round + 1);
	static const uint32_t edges[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu,
					 0x00800000u, 0x7e000000u, 0xfe000000u, 0x3f800000u};
	for (size_t i = 0; i < n; i++) {
		uint64_t r = next(&s);
		uint32_t bits;
		if (r % 16 == 0)
			bits = edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))];
		else /* |x| from 2^-20 to 2^12, any sign */
			bits = (uint32_t)(r >> 32 & 0x80000000u) |
			       (uint32_t)(107 + (r >> 8) % 32) << 23 |
			       (uint32_t)(r >> 40 & 0x7fffffu);
		memcpy(&x[i], &bits, 4);
	}
}

/* The golden model of every rank's round: each rank's input regenerated, its worker and
 * owner residuals kept here from round to round. */
struct golden {
	int size;
	size_t n;
	float **x, **resid, **own, *y;
	void *scratch;
};

static int golden_init(struct golden *g, int size, size_t n)
{
	g->size = size;
	g->n = n;
	g->x = calloc((size_t)size, sizeof(float *));
	g->resid = calloc((size_t)size, sizeof(float *));
	g->own = calloc((size_t)size, sizeof(float *));
	g->y = malloc(n * sizeof(float));
	g->scratch = aligned_alloc(8, quire_golden_scratch_bytes((uint32_t)size, (uint32_t)n) + 8);
	if (!g->x || !g->resid || !g->own || !g->y || !g->scratch)
		return QUIRE_ERR_NOMEM;
	for (int r = 0; r < size; r++) {
		g->x[r] = malloc(n * sizeof(float));
		g->resid[r] = calloc(n, sizeof(float));
		g->own[r] = calloc(n, sizeof(float));
		if (!g->x[r] || !g->resid[r] || !g->own[r])
			return QUIRE_ERR_NOMEM;
	}
	return QUIRE_OK;
}

/* QUIRE_OK when round k's result y is the golden model's, bit for bit. */
static int golden_round(struct golden *g, int k, const float *y)
{
	for (int r = 0; r < g->size; r++)
		fill(g->x[r], g->n, r, k);
	int st =
	    quire_golden_allreduce(QUIRE_FMT_BFP8, 1, (uint32_t)g->size, (uint32_t)g->n, 1,
				   (const float *const *)g->x, g->resid, g->own, g->y, g->scratch);
	if (!st && memcmp(y, g->y, g->n * sizeof(float)) != 0)
		st = QUIRE_ERR_CORRUPT;
	return st;
}

static void golden_free(struct golden *g)
{
	for (int r = 0; g->x && r < g->size; r++) {
		free(g->x[r]);
		free(g->resid[r]);
		free(g->own[r]);
	}
	free(g->x);
	free(g->resid);
	free(g->own);
	free(g->y);
	free(g->scratch);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("QUIRE_CLUSTER_DIR"), *r = getenv("QUIRE_RANK");
	if (argc != 6 || !dir || !r ||
	    (strcmp(argv[2], "fp32") && strcmp(argv[2], "bfp8") && strcmp(argv[2], "bfp8rq"))) {
		fprintf(stderr, "usage: QUIRE_RANK=R ring_dump W fp32|bfp8|bfp8rq N ROUNDS OUT "
				"(inside quire-cluster)\n");
		return 2;
	}
	int size = atoi(argv[1]), rank = atoi(r), rounds = atoi(argv[4]);
	size_t n = strtoul(argv[3], NULL, 10);
	int rq = strcmp(argv[2], "bfp8rq") == 0, bfp = rq || strcmp(argv[2], "bfp8") == 0;
	FILE *out = fopen(argv[5], "wb");
	if (!out || n == 0) {
		fprintf(stderr, "ring_dump: cannot write %s\n", argv[5]);
		return 1;
	}
	struct quire_ctx *ctx = NULL;
	struct quire_comm *comm = NULL;
	struct quire_buf *buf = NULL;
	struct quire_ef *ef = NULL;
	int st = quire_open("sim:cluster", &ctx);
	if (!st)
		st = quire_comm_rendezvous(ctx, dir, rank, size, 60000, &comm);
	if (!st)
		st = quire_buf_alloc(ctx, n * sizeof(float), &buf);
	if (!st && bfp)
		st = quire_ef_create(ctx, n, &ef);
	struct golden gold = {0};
	if (!st && rq)
		st = quire_comm_set_options(comm, QUIRE_COMM_OPT_REQUANT);
	if (!st && rq)
		st = golden_init(&gold, size, n);
	for (int k = 0; !st && k < rounds; k++) {
		float *x = quire_buf_ptr(buf);
		fill(x, n, rank, k);
		struct quire_allreduce_args a = {bfp ? QUIRE_FMT_BFP8 : QUIRE_FMT_FP32,
						 rq ? QUIRE_OP_MEAN : QUIRE_OP_SUM,
						 n,
						 {buf, 0},
						 {buf, 0},
						 ef};
		st = quire_allreduce(comm, &a, NULL);
		if (!st && rq && golden_round(&gold, k, x) != QUIRE_OK) {
			fprintf(stderr,
				"ring_dump: rank %d round %d: not the golden model's bits\n", rank,
				k);
			st = QUIRE_ERR_CORRUPT;
		}
		if (!st && fwrite(x, sizeof(float), n, out) != n)
			st = QUIRE_ERR_IO;
	}
	golden_free(&gold);
	if (st)
		fprintf(stderr, "ring_dump: rank %d: %s\n", rank, quire_strerror(st));
	if (fclose(out) != 0 && !st)
		st = QUIRE_ERR_IO;
	quire_ef_free(ef);
	quire_buf_free(buf);
	quire_comm_free(comm);
	quire_close(ctx);
	return st != 0;
}
