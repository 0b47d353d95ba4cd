// SPDX-License-Identifier: MIT
/*
 * quire-bench-emu: the simulated card's engines alone, golden (the hls/ C) beside
 * fast (libquire's CPU codec), on the same data in one run, with their ratio. The
 * figures are host compute per engine call; the card cycles the emu models for a
 * call do not depend on the engines (docs/card.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quire/card.h"
#include "quire/format.h"
#include "quire/status.h"
#include "sim/clock.h"
#include "sim/emu/engines.h"

struct bufs {
	float *x, *resid, *y;
	int8_t *exp;
	uint8_t *q, *in, *acc;
	uint32_t n;
};

enum op_id {
	EXPS,
	ENC8,
	ENC8_EF,
	DEC8,
	ENC16H,
	DEC16H,
	RED_I8_I32,
	RED_RING,
	RED_FP32,
	RED_FP32_RING,
	RED_FP16_RING,
	OPS
};
static const char *const op_names[OPS] = {
    "exponents bfp8",
    "encode bfp8",
    "encode bfp8 + EF",
    "decode bfp8 (int16 sums, mean)",
    "encode fp16",
    "decode fp16",
    "reduce 4 x int8 > int32",
    "reduce int8 + int16 > int16",
    "reduce 4 x fp32 > fp32",
    "reduce fp32 + fp32 > fp32",
    "reduce fp16 + fp16 > fp16",
};

static int run(enum op_id op, int golden, struct bufs *b)
{
	uint32_t n = b->n;
	switch (op) {
	case EXPS:
		return quire_emu_quant(golden, QUIRE_QUANT_OP_EXPONENTS, QUIRE_FMT_BFP8, 0, 0, n, 0,
				       b->x, NULL, b->exp, NULL, NULL);
	case ENC8:
		return quire_emu_quant(golden, QUIRE_QUANT_OP_ENCODE, QUIRE_FMT_BFP8, 0, 0, n, 0,
				       b->x, NULL, b->exp, b->q, NULL);
	case ENC8_EF:
		return quire_emu_quant(golden, QUIRE_QUANT_OP_ENCODE, QUIRE_FMT_BFP8, 0,
				       QUIRE_QUANT_F_EF, n, 0, b->x, b->resid, b->exp, b->q, NULL);
	case DEC8:
		return quire_emu_quant(golden, QUIRE_QUANT_OP_DECODE, QUIRE_FMT_BFP8,
				       QUIRE_FMT_INT16, 0, n, 4, NULL, NULL, b->exp, b->in, b->y);
	case ENC16H:
		return quire_emu_quant(golden, QUIRE_QUANT_OP_ENCODE, QUIRE_FMT_FP16, 0, 0, n, 0,
				       b->x, NULL, NULL, b->q, NULL);
	case DEC16H:
		return quire_emu_quant(golden, QUIRE_QUANT_OP_DECODE, QUIRE_FMT_FP16,
				       QUIRE_FMT_FP16, 0, n, 0, NULL, NULL, NULL, b->q, b->y);
	case RED_I8_I32:
		return quire_emu_reduce(golden, QUIRE_REDUCE_OP_SUM, QUIRE_FMT_INT8,
					QUIRE_FMT_INT32, 4, n / 4, n / 4, 0, b->in, NULL, b->acc);
	case RED_RING:
		return quire_emu_reduce(golden, QUIRE_REDUCE_OP_SUM, QUIRE_FMT_INT8,
					QUIRE_FMT_INT16, 1, n, 0, QUIRE_REDUCE_F_ACC_IN, b->in,
					b->acc, b->acc);
	case RED_FP32:
		return quire_emu_reduce(golden, QUIRE_REDUCE_OP_SUM, QUIRE_FMT_FP32, QUIRE_FMT_FP32,
					4, n / 4, n / 4, 0, (const uint8_t *)b->x, NULL, b->acc);
	case RED_FP32_RING: /* a ring step: the partial sum that came in plus this card's part */
		return quire_emu_reduce(golden, QUIRE_REDUCE_OP_SUM, QUIRE_FMT_FP32, QUIRE_FMT_FP32,
					1, n, 0, QUIRE_REDUCE_F_ACC_IN, (const uint8_t *)b->x,
					b->acc, b->acc);
	case RED_FP16_RING:
		return quire_emu_reduce(golden, QUIRE_REDUCE_OP_SUM, QUIRE_FMT_FP16, QUIRE_FMT_FP16,
					1, n, 0, QUIRE_REDUCE_F_ACC_IN, b->q, b->acc, b->acc);
	default:
		return QUIRE_ERR_OPCODE;
	}
}

/* Best of `repeat` runs, in GB/s of fp32 (4 bytes an element of the result's length). */
static double gbps(enum op_id op, int golden, struct bufs *b, int repeat)
{
	double best = 1e30;
	uint32_t elems = op == RED_I8_I32 || op == RED_FP32 ? b->n / 4 : b->n;
	for (int r = 0; r < repeat; r++) {
		int64_t t0 = quire_sim_mono_ns();
		int st = run(op, golden, b);
		double t = 1e-9 * (double)(quire_sim_mono_ns() - t0);
		if (st != QUIRE_OK && st != QUIRE_ERR_OVERFLOW) {
			fprintf(stderr, "quire-bench-emu: %s failed (%d)\n", op_names[op], st);
			exit(1);
		}
		best = t < best ? t : best;
	}
	return 4.0 * elems / best / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: quire-bench-emu [--size BYTES] [--repeat N]\n"
		   "The simulated card's engines, golden (hls/ C) and fast (CPU codec), on the\n"
		   "same data: GB/s of fp32 (4 bytes an element) and fast/golden.\n"
		   "  --size BYTES  fp32 bytes per tensor, a multiple of 256 (default 16777216)\n"
		   "  --repeat N    runs per figure, best kept (default 3)\n");
}

int main(int argc, char **argv)
{
	unsigned long long bytes = 16ull << 20;
	int repeat = 3;
	for (int i = 1; i < argc; i++) {
		char *end = NULL;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
			bytes = strtoull(argv[++i], &end, 0);
			if (*end || bytes == 0 || bytes % 256 || bytes > (1ull << 32)) {
				fprintf(stderr,
					"quire-bench-emu: --size wants a multiple of 256 "
					"up to 4 GiB, not '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 1000) {
				fprintf(stderr,
					"quire-bench-emu: --repeat wants 1..1000, not '%s'\n",
					argv[i]);
				return 2;
			}
			repeat = (int)v;
		} else {
			usage(stderr);
			return 2;
		}
	}
	struct bufs b = {.n = (uint32_t)(bytes / 4)};
	size_t n = b.n;
	b.x = malloc(4 * n);
	b.resid = calloc(n, 4);
	b.y = malloc(4 * n);
	b.exp = malloc(QUIRE_BFP_BLOCKS(n));
	b.q = malloc(2 * n);
	b.in = malloc(2 * n);
	b.acc = calloc(n, 4);
	if (!b.x || !b.resid || !b.y || !b.exp || !b.q || !b.in || !b.acc) {
		fprintf(stderr, "quire-bench-emu: out of memory\n");
		return 1;
	}
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		b.x[i] = (float)((int32_t)(s >> 32)) * 1e-9f;
	}
	for (size_t i = 0; i < 2 * n; i++)
		b.in[i] = (uint8_t)(i * 37 + (i >> 7));
	/* The decode needs valid exponents: the exponent pass's. */
	run(EXPS, 1, &b);
	printf("quire-bench-emu: %llu bytes of fp32 per tensor, best of %d, GB/s of fp32\n", bytes,
	       repeat);
	printf("%-34s %10s %10s %8s\n", "engine call", "golden", "fast", "ratio");
	for (int op = 0; op < OPS; op++) {
		run((enum op_id)op, 1, &b); /* every page touched before the clock runs */
		double g = gbps((enum op_id)op, 1, &b, repeat);
		double f = gbps((enum op_id)op, 0, &b, repeat);
		printf("%-34s %10.2f %10.2f %8.1f\n", op_names[op], g, f, f / g);
	}
	free(b.x);
	free(b.resid);
	free(b.y);
	free(b.exp);
	free(b.q);
	free(b.in);
	free(b.acc);
	return 0;
}
