// SPDX-License-Identifier: MIT
/*
 * quire bench codec: the CPU codec's throughput printed side by side with memcpy of the
 * same size in the same run, so a ratio, not a machine-dependent number, is what one
 * compares; with --backend, bfp8 encode and decode through that backend beside cpu.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "quire.h"

static const char bench_codec_help[] =
    "Usage: quire bench codec [--size BYTES] [--repeat N] [--impl NAME] [--backend URI]\n"
    "Single-thread codec throughput against memcpy of the same size, in one run.\n"
    "GB/s counts the fp32 bytes of input handled per second (for a reduction, of\n"
    "all W workers). Each figure is the best of N runs.\n\n"
    "  -s, --size BYTES   fp32 bytes per tensor (default 64MiB; suffixes K, M, G, KiB, MiB, GiB)\n"
    "  -r, --repeat N     rounds (default 5)\n"
    "  -i, --impl NAME    auto, scalar, avx2 or avx512 (default auto)\n"
    "  -b, --backend URI  also bfp8 encode and decode through a backend (e.g. opencl) and\n"
    "                     through the cpu backend, same size, same run (up to 256MiB)\n"
    "  -h, --help         this text\n";

#define BENCH_WORKERS 4

struct bench {
	size_t n;
	int repeat;
	float *x, *y, *resid, *xs[BENCH_WORKERS];
	int8_t *q8, *exp, *qs[BENCH_WORKERS], *exps[BENCH_WORKERS];
	int16_t *q16;
	int32_t *sum;
};

enum op {
	OP_MEMCPY,
	OP_ENC_BFP8,
	OP_ENC_BFP8_EF,
	OP_ENC_BFP16,
	OP_ENC_FP16,
	OP_DEC_BFP8,
	OP_DEC_FP16,
	OP_SUM_BFP8,
	OP_ALLREDUCE_BFP8,
};

static int run_op(struct bench *b, enum op op)
{
	switch (op) {
	case OP_MEMCPY:
		memcpy(b->y, b->x, b->n * sizeof(float));
		return 0;
	case OP_ENC_BFP8:
		return quire_codec_encode(QUIRE_FMT_BFP8, b->n, b->x, NULL, NULL, b->exp, b->q8);
	case OP_ENC_BFP8_EF:
		return quire_codec_encode(QUIRE_FMT_BFP8, b->n, b->x, b->resid, NULL, b->exp,
					  b->q8);
	case OP_ENC_BFP16:
		return quire_codec_encode(QUIRE_FMT_BFP16, b->n, b->x, NULL, NULL, b->exp, b->q16);
	case OP_ENC_FP16:
		return quire_codec_encode(QUIRE_FMT_FP16, b->n, b->x, NULL, NULL, NULL, b->q16);
	case OP_DEC_BFP8:
		return quire_codec_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, b->n, b->q8, b->exp, 1,
					  b->y);
	case OP_DEC_FP16: /* of what the fp16 encode row wrote, which runs first each round */
		return quire_codec_decode(QUIRE_FMT_FP16, QUIRE_FMT_FP16, b->n, b->q16, NULL, 1,
					  b->y);
	case OP_SUM_BFP8:
		return quire_codec_sum(QUIRE_FMT_INT8, QUIRE_FMT_INT32, BENCH_WORKERS, b->n,
				       (const void *const *)b->qs, NULL, b->sum);
	case OP_ALLREDUCE_BFP8:
		return quire_codec_allreduce(QUIRE_FMT_BFP8, QUIRE_OP_SUM, BENCH_WORKERS, b->n,
					     (const float *const *)b->xs, NULL, b->y);
	}
	return QUIRE_ERR_INVALID;
}

static int alloc_all(struct bench *b)
{
	size_t n = b->n, nb = QUIRE_BFP_BLOCKS(n);
	int ok = (b->x = malloc(n * 4)) && (b->y = malloc(n * 4)) && (b->resid = calloc(n, 4)) &&
		 (b->q8 = malloc(n)) && (b->q16 = malloc(n * 2)) && (b->exp = malloc(nb)) &&
		 (b->sum = malloc(n * 4));
	for (int k = 0; ok && k < BENCH_WORKERS; k++)
		ok = (b->xs[k] = malloc(n * 4)) && (b->qs[k] = malloc(n)) &&
		     (b->exps[k] = malloc(nb));
	if (!ok)
		return 0;
	bench_fill_gradients(b->x, n, 1);
	for (int k = 0; k < BENCH_WORKERS; k++) {
		bench_fill_gradients(b->xs[k], n, (uint64_t)k + 2);
		quire_codec_encode(QUIRE_FMT_BFP8, n, b->xs[k], NULL, NULL, b->exps[k], b->qs[k]);
	}
	return 1;
}

static void free_all(struct bench *b)
{
	free(b->x);
	free(b->y);
	free(b->resid);
	free(b->q8);
	free(b->q16);
	free(b->exp);
	free(b->sum);
	for (int k = 0; k < BENCH_WORKERS; k++) {
		free(b->xs[k]);
		free(b->qs[k]);
		free(b->exps[k]);
	}
}

/* bfp8 encode and decode through backend `uri` and through cpu, for bench codec --backend. */
static int backend_rows(const char *uri, size_t bytes, int repeat)
{
	size_t n = bytes / 4;
	float *data = malloc(bytes);
	struct bench_backend dev = {0}, cpu = {0};
	int rc = CLI_EXIT_FAIL;
	if (!data)
		return cli_fail("bench codec: out of memory");
	bench_fill_gradients(data, n, 7);
	if (bench_backend_open(&dev, uri, n, data) || bench_backend_open(&cpu, "cpu", n, data))
		goto out;
	double td[2], tc[2];
	if (bench_pair_times(&dev, &cpu, repeat, td, tc))
		goto out;
	for (int i = 0; i < 2; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s, backend %s", bench_pair_names[i], uri);
		printf("%-44s %9.2f %10s  (cpu backend %.2f GB/s)\n", name,
		       (double)bytes / td[i] / 1e9, "", (double)bytes / tc[i] / 1e9);
	}
	if (memcmp(quire_buf_ptr(dev.q), quire_buf_ptr(cpu.q), n) != 0 ||
	    memcmp(quire_buf_ptr(dev.y), quire_buf_ptr(cpu.y), 4 * n) != 0) {
		cli_fail("bench codec: backend %s's bits differ from cpu's", uri);
		goto out;
	}
	rc = 0;
out:
	bench_backend_close(&dev);
	bench_backend_close(&cpu);
	free(data);
	return rc;
}

int bench_codec(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"size", required_argument, 0, 's'}, {"repeat", required_argument, 0, 'r'},
	    {"impl", required_argument, 0, 'i'}, {"backend", required_argument, 0, 'b'},
	    {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
	uint64_t bytes = 64u << 20;
	int repeat = 5, impl = QUIRE_CODEC_AUTO, c;
	const char *uri = NULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:r:i:b:h", opts, NULL)) != -1) {
		if (c == 'b') {
			uri = optarg;
		} else if (c == 's') {
			bytes = cli_parse_size(optarg);
			if (bytes < 4 || bytes % 4 || bytes > (16ull << 30))
				return cli_usage_error(
				    "bench codec", "--size '%s': a multiple of 4 bytes up to 16GiB",
				    optarg);
		} else if (c == 'r') {
			repeat = atoi(optarg);
			if (repeat < 1 || repeat > 1000)
				return cli_usage_error("bench codec", "--repeat: 1 to 1000");
		} else if (c == 'i') {
			impl = quire_codec_impl_parse(optarg);
			if (impl < 0)
				return cli_usage_error("bench codec", "unknown --impl '%s'",
						       optarg);
		} else if (c == 'h') {
			return fputs(bench_codec_help, stdout), 0;
		} else {
			return cli_bad_option("bench codec", c, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("bench codec", "unexpected argument '%s'", argv[optind]);
	if (uri && (bytes < 256 || bytes > (256u << 20)))
		return cli_usage_error("bench codec", "--backend: --size from 256 bytes to 256MiB");
	int st = quire_codec_use((enum quire_codec_impl)impl);
	if (st)
		return cli_fail("--impl %s: %s", argv[optind - 1], quire_strerror(st));

	struct bench b = {.n = bytes / 4, .repeat = repeat};
	if (!alloc_all(&b)) {
		free_all(&b);
		return cli_fail("out of memory for %llu-byte tensors", (unsigned long long)bytes);
	}
	static const struct {
		enum op op;
		const char *name;
		int inputs;
		double target; /* a ratio to memcpy the project aims at, 0 if none */
	} rows[] = {
	    {OP_MEMCPY, "memcpy (fp32 -> fp32)", 1, 0},
	    {OP_ENC_BFP8, "encode bfp8", 1, 0.60},
	    {OP_ENC_BFP8_EF, "encode bfp8 + error feedback", 1, 0.40},
	    {OP_ENC_BFP16, "encode bfp16", 1, 0},
	    {OP_ENC_FP16, "encode fp16", 1, 0},
	    {OP_DEC_BFP8, "decode bfp8", 1, 0},
	    {OP_DEC_FP16, "decode fp16 (a sum, mean_w 1)", 1, 0},
	    {OP_SUM_BFP8, "reduce bfp8, W=4 (exact int32 sum)", BENCH_WORKERS, 0},
	    {OP_ALLREDUCE_BFP8, "all-reduce bfp8, W=4, local (end to end)", BENCH_WORKERS, 0},
	};
	enum { ROWS = sizeof(rows) / sizeof(rows[0]) };
	/*
	 * Rounds: each round runs every operation once, and each keeps its best
	 * round. Interleaving puts memcpy and the codec under the same conditions,
	 * so a noisy moment of the machine cannot favour one of them. Round 0 only
	 * faults every page in.
	 */
	double best[ROWS] = {0};
	int rc = 0;
	for (int r = 0; r <= repeat && !rc; r++) {
		for (size_t i = 0; i < ROWS && !rc; i++) {
			double t0 = bench_now();
			st = run_op(&b, rows[i].op);
			double t = bench_now() - t0;
			if (st)
				rc = cli_fail("%s: %s", rows[i].name, quire_strerror(st));
			if (r == 1 || (r > 1 && t < best[i]))
				best[i] = t;
		}
	}
	if (!rc) {
		printf("quire bench codec: %.1f MiB of fp32 per tensor (%zu elements), codec %s, "
		       "best of %d interleaved rounds, 1 thread\n",
		       (double)bytes / (1 << 20), b.n, quire_codec_impl_name(), repeat);
		printf("%-44s %9s %10s  %s\n", "operation", "GB/s", "x memcpy", "target");
	}
	double memcpy_gbs = (double)bytes / best[0] / 1e9;
	for (size_t i = 0; i < ROWS && !rc; i++) {
		double gbs = (double)rows[i].inputs * (double)bytes / best[i] / 1e9;
		double ratio = gbs / memcpy_gbs;
		printf("%-44s %9.2f %10.2f", rows[i].name, gbs, ratio);
		if (rows[i].target > 0)
			printf("  >= %.2f %s", rows[i].target,
			       ratio >= rows[i].target ? "met" : "NOT MET");
		printf("\n");
	}
	/* The plain C model on the same data, for scale. */
	if (!rc && impl == QUIRE_CODEC_AUTO && quire_codec_use(QUIRE_CODEC_SCALAR) == QUIRE_OK) {
		double t = 1e30;
		for (int r = 0; r <= repeat && !st; r++) {
			double t0 = bench_now();
			st = run_op(&b, OP_ENC_BFP8);
			t = r == 0 ? t : (bench_now() - t0 < t ? bench_now() - t0 : t);
		}
		double gbs = (double)bytes / t / 1e9;
		printf("%-44s %9.2f %10.2f\n", "encode bfp8, scalar (hls/ C model)", gbs,
		       gbs / memcpy_gbs);
		quire_codec_use(QUIRE_CODEC_AUTO);
	}
	free_all(&b);
	if (!rc && uri)
		rc = backend_rows(uri, (size_t)bytes, repeat);
	return rc;
}
