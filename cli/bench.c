// SPDX-License-Identifier: MIT
/*
 * quire bench: throughput figures printed side by side with memcpy of the same
 * size in the same run, so a ratio, not a machine-dependent number, is what
 * one compares.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_allreduce.h"
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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

/* Gradient-like data: roughly normal, magnitudes varying from block to block. */
static void fill_gradients(float *x, size_t n, uint64_t seed)
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
	fill_gradients(b->x, n, 1);
	for (int k = 0; k < BENCH_WORKERS; k++) {
		fill_gradients(b->xs[k], n, (uint64_t)k + 2);
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

static int backend_rows(const char *uri, size_t bytes, int repeat);

static int bench_codec(int argc, char **argv)
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
			double t0 = now();
			st = run_op(&b, rows[i].op);
			double t = now() - t0;
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
			double t0 = now();
			st = run_op(&b, OP_ENC_BFP8);
			t = r == 0 ? t : (now() - t0 < t ? now() - t0 : t);
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

static const char bench_card_help[] =
    "Usage: quire bench card [--backend URI] [--size BYTES] [--repeat N] [--nops N]\n"
    "       quire bench card --model rtl [--size BYTES] [--nops N]\n"
    "A backend's command round trip and throughput, with cpu in the same run:\n"
    "the NOP round trip (doorbell to completion, one at a time), and GB/s of fp32\n"
    "input for bfp8 encode and decode on the backend and on cpu, with their ratio.\n"
    "With --model rtl, the RTL card (Verilator) in card cycles instead, run by\n"
    "quire-bench-rtl (beside this program, built by make rtl): the NOP round trip,\n"
    "the firmware's CPI on the command loop, cycles per MiB of encode bfp8 and of\n"
    "reduce int8 (W 4), and simulated cycles per wall second (default --size 1MiB).\n\n"
    "  -b, --backend URI  as for quire info (default: sim)\n"
    "  -m, --model rtl    the RTL card, in card cycles\n"
    "  -s, --size BYTES   fp32 bytes per tensor (default 16MiB)\n"
    "  -r, --repeat N     runs per figure, best kept (default 5)\n"
    "  -n, --nops N       NOPs timed (default 2000)\n"
    "  -h, --help         this text\n";

struct card_bench {
	struct quire_ctx *ctx;
	struct quire_buf *x, *q, *e, *y;
	struct quire_op enc, dec;
};

static int card_bench_setup(struct card_bench *c, const char *uri, size_t n, const float *data)
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

static void card_bench_free(struct card_bench *c)
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
		double t0 = now();
		int st = quire_run(ctx, op, NULL);
		if (st) {
			cli_fail("bench card: %s", quire_strerror(st));
			return -1;
		}
		if (r > 0 && now() - t0 < best)
			best = now() - t0;
	}
	return best;
}

static const char *const pair_names[2] = {"encode bfp8", "decode bfp8"};

/* Best seconds of bfp8 encode, then decode, on dev (td) and on cpu (tc); -1 on error. */
static int pair_times(struct card_bench *dev, struct card_bench *cpu, int repeat, double td[2],
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

/* bfp8 encode and decode through backend `uri` and through cpu, for bench codec --backend. */
static int backend_rows(const char *uri, size_t bytes, int repeat)
{
	size_t n = bytes / 4;
	float *data = malloc(bytes);
	struct card_bench dev = {0}, cpu = {0};
	int rc = CLI_EXIT_FAIL;
	if (!data)
		return cli_fail("bench codec: out of memory");
	fill_gradients(data, n, 7);
	if (card_bench_setup(&dev, uri, n, data) || card_bench_setup(&cpu, "cpu", n, data))
		goto out;
	double td[2], tc[2];
	if (pair_times(&dev, &cpu, repeat, td, tc))
		goto out;
	for (int i = 0; i < 2; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s, backend %s", pair_names[i], uri);
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
	card_bench_free(&dev);
	card_bench_free(&cpu);
	free(data);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* quire bench card --model rtl: quire-bench-rtl beside this program, with --nops and --size
 * (0: its defaults). Returns its exit status. */
static int bench_card_rtl(int nops, uint64_t bytes)
{
	char self[PATH_MAX - 32], bin[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return cli_fail("bench card: cannot find my own directory");
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(bin, sizeof(bin), "%s/quire-bench-rtl", self);
	if (access(bin, X_OK) != 0)
		return cli_fail("bench card --model rtl: %s not found (make rtl builds it where "
				"verilator is installed)",
				bin);
	char nstr[32], sstr[32];
	snprintf(nstr, sizeof(nstr), "%d", nops);
	snprintf(sstr, sizeof(sstr), "%llu", (unsigned long long)bytes);
	const char *argv[8] = {bin};
	int k = 1;
	if (nops) {
		argv[k++] = "--nops";
		argv[k++] = nstr;
	}
	if (bytes) {
		argv[k++] = "--size";
		argv[k++] = sstr;
	}
	argv[k] = NULL;
	fflush(stdout);
	execv(bin, (char *const *)argv);
	return cli_fail("bench card --model rtl: cannot run %s: %s", bin, strerror(errno));
}

static int bench_card(int argc, char **argv)
{
	static const struct option opts[] = {{"backend", required_argument, 0, 'b'},
					     {"size", required_argument, 0, 's'},
					     {"repeat", required_argument, 0, 'r'},
					     {"nops", required_argument, 0, 'n'},
					     {"model", required_argument, 0, 'm'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *uri = "sim", *model = NULL;
	uint64_t bytes = 16u << 20;
	int repeat = 5, nops = 2000, c, size_set = 0, nops_set = 0, backend_set = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:s:r:n:m:h", opts, NULL)) != -1) {
		if (c == 'b') {
			uri = optarg;
			backend_set = 1;
		} else if (c == 'm') {
			model = optarg;
			if (strcmp(model, "rtl") != 0)
				return cli_usage_error("bench card", "--model: rtl, not '%s'",
						       model);
		} else if (c == 's') {
			size_set = 1;
			bytes = cli_parse_size(optarg);
			if (bytes < 256 || bytes % 4 || bytes > (256u << 20))
				return cli_usage_error(
				    "bench card",
				    "--size: a multiple of 4 from 256 bytes to 256MiB");
		} else if (c == 'r') {
			repeat = atoi(optarg);
			if (repeat < 1 || repeat > 100000)
				return cli_usage_error("bench card", "--repeat: 1 to 100000");
		} else if (c == 'n') {
			nops = atoi(optarg);
			nops_set = 1;
			if (nops < 1 || nops > 1000000)
				return cli_usage_error("bench card", "--nops: 1 to 1000000");
		} else if (c == 'h') {
			return fputs(bench_card_help, stdout), 0;
		} else {
			return cli_bad_option("bench card", c, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("bench card", "unexpected argument '%s'", argv[optind]);
	if (model) {
		if (backend_set)
			return cli_usage_error("bench card", "--model rtl runs its own card: no "
							     "--backend");
		if (size_set && (bytes > (16u << 20) || bytes % 256))
			return cli_usage_error("bench card",
					       "--model rtl: --size a multiple of 256 up to 16MiB");
		return bench_card_rtl(nops_set ? (nops > 100000 ? 100000 : nops) : 0,
				      size_set ? bytes : 0);
	}
	size_t n = bytes / 4;
	float *data = malloc(bytes);
	double *rt = malloc((size_t)nops * sizeof(double));
	struct card_bench dev = {0}, cpu = {0};
	int rc = CLI_EXIT_FAIL;
	if (!data || !rt)
		goto out;
	fill_gradients(data, n, 7);
	if (card_bench_setup(&dev, uri, n, data) || card_bench_setup(&cpu, "cpu", n, data))
		goto out;
	/* Each line as soon as it is known (flushed): what is running shows in a log, and a
	 * test can tell the NOPs, then the encodes and decodes, are under way. */
	printf(
	    "quire bench card: backend %s against cpu, %.1f MiB of fp32 per tensor, best of %d\n",
	    uri, (double)bytes / (1 << 20), repeat);
	fflush(stdout);
	struct quire_op nop = {.opcode = QUIRE_OPC_NOP};
	for (int i = 0; i < nops; i++) {
		double t0 = now();
		int nst = quire_run(dev.ctx, &nop, NULL);
		if (nst != QUIRE_OK) {
			cli_fail("bench card: nop: %s", quire_strerror(nst));
			goto out;
		}
		rt[i] = now() - t0;
	}
	qsort(rt, (size_t)nops, sizeof(double), cmp_double);
	double mean = 0;
	for (int i = 0; i < nops; i++)
		mean += rt[i] / nops;
	printf("nop round trip (doorbell to completion): median %.1f us, mean %.1f us, p99 %.1f us "
	       "over %d\n",
	       1e6 * rt[nops / 2], 1e6 * mean, 1e6 * rt[nops * 99 / 100], nops);
	printf("%-22s %12s %12s %10s\n", "operation", "backend GB/s", "cpu GB/s", "ratio");
	fflush(stdout);
	double td[2], tc[2];
	if (pair_times(&dev, &cpu, repeat, td, tc))
		goto out;
	for (int i = 0; i < 2; i++)
		printf("%-22s %12.2f %12.2f %10.3f\n", pair_names[i], (double)bytes / td[i] / 1e9,
		       (double)bytes / tc[i] / 1e9, tc[i] / td[i]);
	if (memcmp(quire_buf_ptr(dev.q), quire_buf_ptr(cpu.q), n) != 0) {
		cli_fail("bench card: the backend's encoding differs from cpu's");
		goto out;
	}
	rc = 0;
out:
	card_bench_free(&dev);
	card_bench_free(&cpu);
	free(data);
	free(rt);
	return rc;
}

static const char bench_allreduce_help[] =
    "Usage: quire bench allreduce [--backend LIST] [--ranks LIST] [--min BYTES] [--max BYTES]\n"
    "                             [--repeat N] [--net-drop P] [--net-corrupt P] [--net-seed S]\n"
    "                             [--verify N] [--card-net udp] [--link RATE[,delay=TIME]]\n"
    "All-reduce bandwidth, W ranks under mpirun, each format of quire beside OpenMPI's\n"
    "MPI_Allreduce of fp32 over TCP on loopback in the same run: algbw and busbw (NCCL's\n"
    "definitions, in fp32-equivalent GB/s), wire bytes per element and the ratio to MPI.\n"
    "Backends: cpu (MPI carries quire's data) and sim (W simulated cards started by\n"
    "quire-cluster; the cards all-reduce over their own network, bytes counted by their ports)\n"
    "and sim-golden (the same cards computing with the hls/ C, QUIRE_EMU_ENGINES=golden: the\n"
    "simulated cards as they were before their fast engines, for the speed-up in one run).\n\n"
    "  -b, --backend LIST comma-separated: cpu, sim, sim-golden (default cpu,sim)\n"
    "  -w, --ranks LIST   comma-separated W (default 2,4)\n"
    "  -s, --min BYTES    smallest fp32 tensor (default 64KiB)\n"
    "  -S, --max BYTES    largest (default 64MiB); sizes go up 4x\n"
    "  -r, --repeat N     runs per figure, best kept (default 5)\n"
    "      --net-drop P   the cards' network loses each frame (and each of its link's\n"
    "                     acknowledgements) with probability P; their link sends it again\n"
    "      --net-corrupt P  and damages each with probability P (sim backends)\n"
    "      --net-seed S   seed of those faults (default: fixed)\n"
    "      --verify N     instead of bandwidth: N bfp8 all-reduces of --min bytes, each of new\n"
    "                     data, first on a loss-free network, then (with --net-drop or\n"
    "                     --net-corrupt) on the lossy one: how many give the loss-free bits\n"
    "                     on every rank, the frames sent again, and the slowdown\n"
    "      --card-net udp the sim cards' network over UDP on loopback (127.0.0.1, ports\n"
    "                     of this run) instead of Unix sockets; the same link above it\n"
    "  -l, --link RATE[,delay=TIME]\n"
    "                     (root) over shaped links instead of loopback: each rank, and its\n"
    "                     host's card, in a network namespace of its own, veth pairs to a\n"
    "                     bridge shaped with tc tbf to RATE each way (e.g. 2gbit; TIME,\n"
    "                     e.g. 1ms, needs netem); Gloo's ring all-reduce in the same run\n"
    "                     (x Gloo). The cards' network is UDP. Namespaces and processes\n"
    "                     are removed however the run ends (docs/bench-link.md)\n"
    "  -h, --help         this text\n";

int bench_mpirun_argv(const char **argv, int k, const char *np, const char *ifaces)
{
	const char *mpi[] = {"mpirun",   "--oversubscribe", "-np",
			     np,         "--mca",           "btl",
			     "self,tcp", "--mca",           "btl_tcp_if_include",
			     ifaces,     "--mca",           "mpi_yield_when_idle",
			     "1"};
	for (size_t i = 0; i < sizeof(mpi) / sizeof(mpi[0]); i++)
		argv[k++] = mpi[i];
	return k;
}

/* What one mpirun of the bench is to do besides its backend and W. */
struct bench_run {
	const char *min, *max, *repeat;
	const char *drop, *corrupt; /* NULL: a loss-free network */
	const char *seed;
	const char *udp;    /* the cards' network over UDP (quire-cluster --net), or NULL */
	const char *verify; /* NULL: bandwidth */
	const char *dig_flag, *dig_file;
};

/* One mpirun of quire-bench-allreduce: W ranks, on a backend; inside quire-cluster for sim. */
static int run_bench_mpi(const char *dir, const char *backend, int w, const struct bench_run *br)
{
	char bench[PATH_MAX], cluster[PATH_MAX], np[16];
	snprintf(bench, sizeof(bench), "%s/quire-bench-allreduce", dir);
	snprintf(cluster, sizeof(cluster), "%s/quire-cluster", dir);
	snprintf(np, sizeof(np), "%d", w);
	int golden = strcmp(backend, "sim-golden") == 0,
	    sim = golden || strcmp(backend, "sim") == 0;
	const char *argv[48];
	int k = 0;
	if (sim) {
		argv[k++] = cluster;
		argv[k++] = "-n";
		argv[k++] = np;
		if (br->drop) {
			argv[k++] = "--net-drop";
			argv[k++] = br->drop;
		}
		if (br->corrupt) {
			argv[k++] = "--net-corrupt";
			argv[k++] = br->corrupt;
		}
		if (br->seed && (br->drop || br->corrupt)) {
			argv[k++] = "--net-seed";
			argv[k++] = br->seed;
		}
		if (br->udp) {
			argv[k++] = "--net";
			argv[k++] = br->udp;
		}
		argv[k++] = "--";
	}
	k = bench_mpirun_argv(argv, k, np, "lo");
	const char *rest[] = {bench,   "--backend", sim ? "sim:cluster" : "cpu",
			      "--min", br->min,     "--max",
			      br->max, "--repeat",  br->repeat};
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		argv[k++] = rest[i];
	if (br->verify) {
		argv[k++] = "--verify";
		argv[k++] = br->verify;
		argv[k++] = br->dig_flag;
		argv[k++] = br->dig_file;
	}
	argv[k] = NULL;
	/* The cards read it when they start (sim/emu/engines.c); so do the ranks, to say so. */
	if (golden)
		setenv("QUIRE_EMU_ENGINES", "golden", 1);
	int stopped_by, rc = cli_run_child(argv, " (apt-get install openmpi-bin)", &stopped_by);
	if (golden)
		unsetenv("QUIRE_EMU_ENGINES");
	if (stopped_by)
		return 128 + stopped_by; /* the user stopped it: nothing more to say */
	if (rc != 0)
		return cli_fail("bench allreduce: the %s W=%d run failed", backend, w);
	return 0;
}

static int bench_allreduce(int argc, char **argv)
{
	static const struct option opts[] = {{"backend", required_argument, 0, 'b'},
					     {"ranks", required_argument, 0, 'w'},
					     {"min", required_argument, 0, 's'},
					     {"max", required_argument, 0, 'S'},
					     {"repeat", required_argument, 0, 'r'},
					     {"net-drop", required_argument, 0, 'D'},
					     {"net-corrupt", required_argument, 0, 'C'},
					     {"net-seed", required_argument, 0, 'E'},
					     {"verify", required_argument, 0, 'V'},
					     {"link", required_argument, 0, 'l'},
					     {"card-net", required_argument, 0, 'U'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *ranks = "2,4", *min = "64KiB", *max = "64MiB", *repeat = "5",
		   *backends = "cpu,sim", *drop = NULL, *corrupt = NULL, *verify = NULL,
		   *seed = NULL, *link = NULL, *card_net = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:w:s:S:r:l:h", opts, NULL)) != -1) {
		if (c == 'l')
			link = optarg;
		else if (c == 'b')
			backends = optarg;
		else if (c == 'w')
			ranks = optarg;
		else if (c == 's')
			min = optarg;
		else if (c == 'S')
			max = optarg;
		else if (c == 'r')
			repeat = optarg;
		else if (c == 'D' || c == 'C')
			*(c == 'D' ? &drop : &corrupt) = optarg;
		else if (c == 'V')
			verify = optarg;
		else if (c == 'E')
			seed = optarg;
		else if (c == 'U')
			card_net = optarg;
		else if (c == 'h')
			return fputs(bench_allreduce_help, stdout), 0;
		else
			return cli_bad_option("bench allreduce", c, argv);
	}
	if (optind != argc)
		return cli_usage_error("bench allreduce", "unexpected argument '%s'", argv[optind]);
	uint64_t lo = cli_parse_size(min), hi = cli_parse_size(max);
	char *end;
	long rep = strtol(repeat, &end, 10);
	if (lo < BENCH_ALLREDUCE_MIN_BYTES || lo > BENCH_ALLREDUCE_MAX_BYTES)
		return cli_usage_error("bench allreduce", "--min: %u bytes to 1GiB, not '%s'",
				       BENCH_ALLREDUCE_MIN_BYTES, min);
	if (hi < lo || hi > BENCH_ALLREDUCE_MAX_BYTES)
		return cli_usage_error("bench allreduce",
				       "--max: from --min (%s) to 1GiB, not '%s'", min, max);
	if (*end || end == repeat || rep < 1 || rep > BENCH_ALLREDUCE_MAX_REPEAT)
		return cli_usage_error("bench allreduce", "--repeat: 1 to %d, not '%s'",
				       BENCH_ALLREDUCE_MAX_REPEAT, repeat);
	for (int i = 0; i < 2; i++) {
		const char *p = i ? corrupt : drop;
		double v = p ? strtod(p, &end) : 0;
		if (p && (*end || end == p || !(v >= 0 && v <= 1)))
			return cli_usage_error("bench allreduce",
					       "--net-%s: a probability, not '%s'",
					       i ? "corrupt" : "drop", p);
	}
	if (seed && (strtoull(seed, &end, 10), *end || end == seed || *seed == '-'))
		return cli_usage_error("bench allreduce", "--net-seed: a number, not '%s'", seed);
	long nv = verify ? strtol(verify, &end, 10) : 0;
	if (verify && (*end || end == verify || nv < 1 || nv > BENCH_ALLREDUCE_MAX_VERIFY))
		return cli_usage_error("bench allreduce", "--verify: 1 to %d all-reduces, not '%s'",
				       BENCH_ALLREDUCE_MAX_VERIFY, verify);
	char list[256], blist[64];
	snprintf(list, sizeof(list), "%s", ranks);
	snprintf(blist, sizeof(blist), "%s", backends);
	for (char *save, *b = strtok_r(blist, ",", &save); b; b = strtok_r(NULL, ",", &save))
		if (strcmp(b, "cpu") != 0 && strcmp(b, "sim") != 0 && strcmp(b, "sim-golden") != 0)
			return cli_usage_error("bench allreduce",
					       "--backend: cpu, sim or sim-golden, not '%s'", b);
	for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long w = strtol(tok, &end, 10);
		if (*end || w < 1 || w > 64)
			return cli_usage_error("bench allreduce", "--ranks: numbers from 1 to 64");
	}
	char self[PATH_MAX - 32], bin[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return cli_fail("bench allreduce: cannot find my own directory");
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(bin, sizeof(bin), "%s/quire-bench-allreduce", self);
	if (access(bin, X_OK) != 0)
		return cli_fail(
		    "bench allreduce: %s not found (it is built where MPI is installed: "
		    "apt-get install libopenmpi-dev openmpi-bin)",
		    bin);
	if (geteuid() == 0) { /* mpirun refuses root unless told */
		setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
		setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	}
	char sizes[2][64];
	snprintf(sizes[0], sizeof(sizes[0]), "%llu", (unsigned long long)lo);
	snprintf(sizes[1], sizeof(sizes[1]), "%llu", (unsigned long long)hi);
	if (card_net && strcmp(card_net, "udp") != 0 && strcmp(card_net, "unix") != 0)
		return cli_usage_error("bench allreduce", "--card-net: udp or unix, not '%s'",
				       card_net);
	if (link && (drop || corrupt || verify || card_net))
		return cli_usage_error("bench allreduce",
				       "--link measures bandwidth on a loss-free network: no "
				       "--net-drop, --net-corrupt, --verify or --card-net with it");
	if (link)
		return bench_link(self, link, backends, ranks, sizes[0], sizes[1], repeat);
	/* UDP ports of this run's cards (netudp.h: BASE + address, BASE + 256 + address): another
	 * run may share the machine. */
	char udp[64];
	snprintf(udp, sizeof(udp), "udp:127.0.0.1:%d", 20000 + (int)(getpid() % 20000));
	snprintf(list, sizeof(list), "%s", ranks);
	for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		snprintf(blist, sizeof(blist), "%s", backends);
		for (char *bsave, *b = strtok_r(blist, ",", &bsave); b;
		     b = strtok_r(NULL, ",", &bsave)) {
			struct bench_run br = {.min = sizes[0],
					       .max = sizes[1],
					       .repeat = repeat,
					       .drop = drop,
					       .corrupt = corrupt,
					       .seed = seed,
					       .udp = card_net && !strcmp(card_net, "udp") ? udp
											   : NULL};
			int rc = 0, lossy = strcmp(b, "cpu") != 0 && (drop || corrupt);
			if (verify) { /* the loss-free run's bits, then the lossy run against them
				       */
				char dig[PATH_MAX];
				const char *tmp = getenv("TMPDIR");
				snprintf(dig, sizeof(dig), "%s/quire-verify-%d.txt",
					 tmp && *tmp ? tmp : "/tmp", (int)getpid());
				br.verify = verify;
				br.dig_file = dig;
				br.dig_flag = "--digests-out";
				br.drop = br.corrupt = NULL;
				printf("--- %s, W=%s: a loss-free network\n", b, tok);
				fflush(stdout);
				rc = run_bench_mpi(self, b, atoi(tok), &br);
				if (!rc && lossy) {
					br.dig_flag = "--digests-in";
					br.drop = drop;
					br.corrupt = corrupt;
					printf("--- %s, W=%s: --net-drop %s --net-corrupt %s\n", b,
					       tok, drop ? drop : "0", corrupt ? corrupt : "0");
					fflush(stdout);
					rc = run_bench_mpi(self, b, atoi(tok), &br);
				}
				unlink(dig);
			} else {
				rc = run_bench_mpi(self, b, atoi(tok), &br);
			}
			if (rc)
				return rc;
		}
	}
	return 0;
}

static const struct cli_command bench_commands[] = {
    {"codec", "codec throughput against memcpy", bench_codec},
    {"card", "command round trip and throughput of a backend against cpu", bench_card},
    {"allreduce", "all-reduce bandwidth over W ranks against OpenMPI", bench_allreduce},
};
int cli_bench(int argc, char **argv)
{
	return cli_dispatch("bench", bench_commands,
			    sizeof(bench_commands) / sizeof(bench_commands[0]), argc, argv);
}
