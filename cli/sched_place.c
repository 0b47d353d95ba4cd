// SPDX-License-Identifier: MIT
/*
 * quire sched place: one placement decision from the command line (the task and the nodes
 * as CSV or JSON on stdin, the features of sched/, the model scored through libquire's
 * quire_model_* on any backend); quire sched bench: the decision latency of that API for
 * 32 and 1024 candidates on each backend, the RTL card in card cycles. docs/sched-api.md.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "quire.h"
#include "sched_decide.h"
#include "sched_mlp.h"
#include "sched/sched.h"

#define RTL_CLOCK_MHZ 250.0 /* the card's clock the RTL is built for (docs/rtl-card.md) */

static const char place_help[] =
    "Usage: quire sched place --model-file FILE [--backend URI] [--speed M=F,...] [--verbose]\n"
    "One placement decision: the task and the candidate nodes come on stdin as CSV,\n"
    "one row each, the kind first (docs/sched-api.md):\n"
    "  task,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,waited_s\n"
    "  node,sn,cpu_milli,memory_mib,gpu,model,cpu_free,memory_free,gpu_free\n"
    "  class,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,count   (optional)\n"
    "(gpu_free: each GPU's free milli-GPUs joined by '|'; class rows: the target\n"
    "workload of the fragmentation feature, by default the task alone; '#' lines are\n"
    "comments), or as JSON: {\"task\": {KEY: VALUE, ...}, \"nodes\": [{...}, ...],\n"
    "\"classes\": [...]} with the same keys (gpu_free and gpu_spec may be arrays).\n"
    "The features of docs/sched.md are scored by the model and the feasible\n"
    "candidate with the largest score is printed: the node's name, and the GPUs it\n"
    "takes. Exit 0; 3 when the task fits no node (prints 'none'); 1 on bad input.\n\n"
    "  -m, --model-file FILE  model image (include/quire/mlp.h) with 17 inputs\n"
    "  -b, --backend URI      where the model runs (default cpu; sim, opencl, sim:PATH)\n"
    "      --speed M=F[,...]  GPU model speed factors (override or add a model)\n"
    "  -v, --verbose          every candidate: node, GPUs, feasible, int8 features, score\n"
    "  -h, --help             this text\n";

/* The GPUs of a mask as "g,g,..." ("-" for none). */
static const char *gpus_of(uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int g = 0; g < SCHED_MAX_GPUS; g++)
		if (mask & (1u << g))
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", g);
	if (!n)
		snprintf(buf, len, "-");
	return buf;
}

int cli_sched_place(int argc, char **argv)
{
	static const struct option opts[] = {{"model-file", required_argument, 0, 'm'},
					     {"backend", required_argument, 0, 'b'},
					     {"speed", required_argument, 0, 'S'},
					     {"verbose", no_argument, 0, 'v'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *model_path = NULL, *uri = "cpu", *speed_list = NULL;
	int verbose = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:b:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			model_path = optarg;
			break;
		case 'b':
			uri = optarg;
			break;
		case 'S':
			speed_list = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			fputs(place_help, stdout);
			return 0;
		default:
			return cli_bad_option("sched place", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("sched place", "unexpected argument '%s'", argv[optind]);
	if (!model_path)
		return cli_usage_error("sched place", "--model-file FILE is required");
	char err[SCHED_ERR_LEN];
	struct sched_models models;
	sched_models_default(&models);
	if (speed_list && sched_models_parse(&models, speed_list, err, sizeof(err)))
		return cli_usage_error("sched place", "--speed: %s", err);

	void *image;
	size_t len;
	if (sched_mlp_read(model_path, &image, &len, err, sizeof(err)))
		return cli_fail("%s", err);

	struct sched_place pl;
	if (sched_read_place(stdin, "stdin", &models, &pl, err, sizeof(err))) {
		free(image);
		return cli_fail("%s", err);
	}
	struct cli_decision d;
	struct quire_ctx *ctx = NULL;
	struct quire_model *model = NULL;
	int rc = 1;
	if (cli_decision_build(&d, &pl, &models, 1)) {
		rc = cli_fail("sched place: out of memory");
		goto out;
	}
	if (d.count > QUIRE_MLP_MAX_CANDIDATES) {
		rc =
		    cli_fail("stdin: %zu candidates from %zu nodes; one decision scores at most %u",
			     d.count, pl.count, QUIRE_MLP_MAX_CANDIDATES);
		goto out;
	}

	if (cli_open("sched place", uri, &ctx))
		goto out;
	int st = quire_model_load(ctx, image, len, &model);
	if (st != QUIRE_OK) {
		rc = cli_fail("%s: %s refused the model: %s", model_path, uri, quire_strerror(st));
		goto out;
	}
	uint32_t choice = 0;
	st = quire_model_score(model, (uint32_t)d.count, d.q, SCHED_FEATURES, d.feasible, d.scores,
			       &choice);
	if (st != QUIRE_OK && st != QUIRE_ERR_NO_FEASIBLE) {
		rc = cli_fail("sched place: scoring on %s: %s", uri, quire_strerror(st));
		goto out;
	}
	char gb[32];
	if (verbose) {
		printf("# %zu candidates from %zu nodes on %s (%u card cycles)\n", d.count,
		       pl.count, uri, quire_model_cycles(model));
		printf("# cand node gpus feasible score features\n");
		for (size_t i = 0; i < d.count; i++) {
			printf("%zu %s %s %d %d", i, pl.nodes[d.cand[i].node].name,
			       gpus_of(d.cand[i].gpu_mask, gb, sizeof(gb)), d.feasible[i] != 0,
			       d.scores[i]);
			for (int f = 0; f < SCHED_FEATURES; f++)
				printf("%c%d", f ? ',' : ' ', d.q[i * SCHED_FEATURES + f]);
			printf("\n");
		}
	}
	if (st == QUIRE_ERR_NO_FEASIBLE) {
		printf("none\n");
		fprintf(stderr, "quire: sched place: the task fits none of the %zu nodes\n",
			pl.count);
		rc = 3;
	} else {
		const struct sched_cand *ch = &d.cand[choice];
		printf("%s", pl.nodes[ch->node].name);
		if (ch->gpu_mask)
			printf(" gpus=%s", gpus_of(ch->gpu_mask, gb, sizeof(gb)));
		printf("\n");
		rc = 0;
	}
out:
	quire_model_free(model);
	quire_close(ctx);
	cli_decision_free(&d);
	free(image);
	sched_place_free(&pl);
	return rc;
}

/* ---- quire sched bench ----------------------------------------------------------------- */

static const char bench_help[] =
    "Usage: quire sched bench [--backend URI[,URI...]] [--model rtl] [--widths N,...,1]\n"
    "                         [--repeat N]\n"
    "Decision latency of libquire's scheduler API (quire_model_score, docs/sched-api.md):\n"
    "a decision of 32, 1024, then 1213 candidates (the whole GPU cluster of the trace: two\n"
    "calls, of 1024 and 189) with a random int8 model, microseconds of wall time per\n"
    "decision (median and 99th percentile), and on the RTL card the card cycles of the\n"
    "decision's calls and their time at 250 MHz.\n\n"
    "  -b, --backend LIST  backends (default cpu,sim, and opencl when a platform is found)\n"
    "  -m, --model rtl     also the RTL card: a quire-sim --model rtl process started for\n"
    "                      the run (Verilator; built by make rtl)\n"
    "  -w, --widths LIST   the model's widths n_0,...,1 (default 17,128,1: the shape of\n"
    "                      the shipped model, sched/model/, docs/sched.md)\n"
    "  -r, --repeat N      decisions timed per figure (default 200; 3 on the RTL card)\n"
    "  -h, --help          this text\n";

/* The decisions timed: 32 candidates (the goal's), 1024 (one call's most) and 1213 (every
 * GPU node of the trace, nodes-gpu.csv: two calls). */
#define BENCH_MOST_CANDIDATES 1213u
static const uint32_t bench_sizes[] = {32, QUIRE_MLP_MAX_CANDIDATES, BENCH_MOST_CANDIDATES};

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One decision of `count` candidates: calls of up to QUIRE_MLP_MAX_CANDIDATES, as the
 * replay's scorer makes them (cli/sched_mlp.c), the choice the feasible candidate of the
 * largest score, ties to the lowest index (each call's own choice, then across calls). The
 * card cycles of the calls summed into *cycles. */
static int bench_decide(struct quire_model *m, uint32_t count, const int8_t *feat, uint32_t n0,
			const uint8_t *feas, int32_t *scores, uint32_t *cycles, uint32_t *choice)
{
	int found = 0;
	*cycles = 0;
	for (uint32_t at = 0; at < count; at += QUIRE_MLP_MAX_CANDIDATES) {
		uint32_t c =
		    count - at < QUIRE_MLP_MAX_CANDIDATES ? count - at : QUIRE_MLP_MAX_CANDIDATES;
		uint32_t k;
		int st =
		    quire_model_score(m, c, feat + (size_t)at * n0, n0, feas + at, scores + at, &k);
		*cycles += quire_model_cycles(m);
		if (st == QUIRE_ERR_NO_FEASIBLE)
			continue;
		if (st != QUIRE_OK)
			return st;
		if (!found || scores[at + k] > scores[*choice])
			*choice = at + k;
		found = 1;
	}
	return found ? QUIRE_OK : QUIRE_ERR_NO_FEASIBLE;
}

/* One backend's rows: 32, 1024 and 1213 candidates. */
static int bench_rows(const char *label, const char *uri, const uint8_t *img, size_t len,
		      uint32_t n0, int repeat, const int8_t *feat, const uint8_t *feas)
{
	struct quire_ctx *ctx;
	if (cli_open("sched bench", uri, &ctx))
		return 1;
	quire_set_timeout(ctx, 120000); /* the RTL card is some thousand times slower */
	/* Card cycles mean something on the RTL card (its simulated clock); the emu's cycle
	 * counter is its wall clock times its nominal rate, not a model: not shown. */
	struct quire_info in;
	int rtl = (quire_backend_caps(ctx) & QUIRE_BACKEND_CAP_CARD) &&
		  quire_get_info(ctx, &in) == QUIRE_OK && strstr(in.board, "RTL");
	struct quire_model *m;
	int st = quire_model_load(ctx, img, len, &m);
	if (st != QUIRE_OK) {
		quire_close(ctx);
		return cli_fail("sched bench: %s: model load: %s", uri, quire_strerror(st));
	}
	double *t = malloc((size_t)repeat * sizeof(double));
	int32_t *scores = malloc(sizeof(int32_t) * BENCH_MOST_CANDIDATES);
	int rc = 0;
	for (size_t s = 0; s < sizeof(bench_sizes) / sizeof(bench_sizes[0]) && !rc; s++) {
		uint32_t choice = 0, cycles = 0;
		/* One decision first: buffers warm, the model on the card. */
		st = bench_decide(m, bench_sizes[s], feat, n0, feas, scores, &cycles, &choice);
		for (int r = 0; r < repeat && st == QUIRE_OK; r++) {
			double t0 = now_us();
			st = bench_decide(m, bench_sizes[s], feat, n0, feas, scores, &cycles,
					  &choice);
			t[r] = now_us() - t0;
		}
		if (st != QUIRE_OK) {
			rc = cli_fail("sched bench: %s: %u candidates: %s", uri, bench_sizes[s],
				      quire_strerror(st));
			break;
		}
		qsort(t, (size_t)repeat, sizeof(double), cmp_double);
		double p50 = t[repeat / 2], p99 = t[(size_t)repeat * 99 / 100];
		if (rtl)
			printf("%-22s %6u %10.1f %10.1f %12u %12.2f\n", label, bench_sizes[s], p50,
			       p99, cycles, cycles / RTL_CLOCK_MHZ);
		else
			printf("%-22s %6u %10.1f %10.1f %12s %12s\n", label, bench_sizes[s], p50,
			       p99, "-", "-");
		fflush(stdout);
	}
	free(scores);
	free(t);
	quire_model_free(m);
	quire_close(ctx);
	return rc;
}

/* quire-sim --model rtl, beside this program, serving a socket in dir. Its pid, or -1. */
static pid_t start_rtl_card(const char *dir, char *sock, size_t socklen)
{
	char self[PATH_MAX - 32], bin[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return cli_fail("sched bench: cannot find my own directory"), -1;
	self[n] = 0;
	*strrchr(self, '/') = 0;
	snprintf(bin, sizeof(bin), "%s/quire-sim", self);
	snprintf(sock, socklen, "%s/card.sock", dir);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execl(bin, bin, "--model", "rtl", "--socket", sock, "--quiet", (char *)NULL);
		fprintf(stderr, "quire: sched bench: cannot run %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return cli_fail("sched bench: fork: %s", strerror(errno)), -1;
	struct stat sb;
	for (int i = 0; i < 600; i++) { /* the card boots its firmware: up to a minute */
		if (stat(sock, &sb) == 0)
			return pid;
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return cli_fail(
				   "sched bench --model rtl: quire-sim --model rtl ended "
				   "(make rtl builds the RTL card where verilator is installed)"),
			       -1;
		usleep(100000);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return cli_fail("sched bench --model rtl: no card socket after 60 s"), -1;
}

int cli_sched_bench(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"backend", required_argument, 0, 'b'}, {"model", required_argument, 0, 'm'},
	    {"widths", required_argument, 0, 'w'},  {"repeat", required_argument, 0, 'r'},
	    {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
	const char *list = NULL;
	int rtl = 0, repeat = 200, repeat_set = 0, c;
	uint32_t width[QUIRE_MLP_MAX_LAYERS + 1] = {17, 128, 1}, layers = 2;
	char *end;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:m:w:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			list = optarg;
			break;
		case 'm':
			if (strcmp(optarg, "rtl") != 0)
				return cli_usage_error("sched bench", "--model: rtl, not '%s'",
						       optarg);
			rtl = 1;
			break;
		case 'w': {
			uint32_t n = 0;
			const char *p = optarg;
			for (;;) {
				errno = 0;
				unsigned long v = strtoul(p, &end, 10);
				if (errno || end == p || v < 1 || v > QUIRE_MLP_MAX_WIDTH ||
				    n > QUIRE_MLP_MAX_LAYERS || (*end && *end != ','))
					return cli_usage_error(
					    "sched bench",
					    "--widths: 2 to 5 widths of 1 to 256, the last 1, not "
					    "'%s'",
					    optarg);
				width[n++] = (uint32_t)v;
				if (!*end)
					break;
				p = end + 1;
			}
			if (n < 2 || width[n - 1] != 1)
				return cli_usage_error(
				    "sched bench", "--widths: 2 to 5 widths, the last 1, not '%s'",
				    optarg);
			layers = n - 1;
			break;
		}
		case 'r':
			errno = 0;
			repeat = (int)strtol(optarg, &end, 10);
			if (errno || *end || repeat < 1 || repeat > 100000)
				return cli_usage_error("sched bench", "--repeat: 1 to 100000");
			repeat_set = 1;
			break;
		case 'h':
			fputs(bench_help, stdout);
			return 0;
		default:
			return cli_bad_option("sched bench", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("sched bench", "unexpected argument '%s'", argv[optind]);

	uint8_t *img = malloc(QUIRE_MLP_MAX_IMAGE_BYTES);
	uint64_t rng = 0x5eed5c4edull;
	size_t len = cli_model_image(img, layers, width, &rng);
	uint32_t n0 = width[0];
	int8_t *feat = malloc((size_t)BENCH_MOST_CANDIDATES * n0);
	uint8_t *feas = malloc(BENCH_MOST_CANDIDATES);
	/* Features as the scheduler's are: in 0..127 (docs/mlp.md), a quarter infeasible. */
	for (size_t i = 0; i < (size_t)BENCH_MOST_CANDIDATES * n0; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		feat[i] = (int8_t)(rng % 128);
	}
	for (uint32_t i = 0; i < BENCH_MOST_CANDIDATES; i++)
		feas[i] = i % 4 != 3;

	uint64_t macs = 0;
	for (uint32_t l = 0; l < layers; l++)
		macs += (uint64_t)width[l] * width[l + 1];
	printf("model:");
	for (uint32_t l = 0; l <= layers; l++)
		printf("%s%u", l ? "-" : " ", width[l]);
	printf(" (%zu-byte image, %llu MACs per candidate); one call = one decision\n", len,
	       (unsigned long long)macs);
	printf("%-22s %6s %10s %10s %12s %12s\n", "backend", "cands", "us p50", "us p99",
	       "card cycles", "us @250MHz");
	int rc = 0;
	char buf[512];
	if (!list) {
		struct quire_ctx *ctx;
		int ocl = quire_open("opencl", &ctx) == QUIRE_OK;
		quire_close(ctx);
		snprintf(buf, sizeof(buf), "cpu,sim%s", ocl ? ",opencl" : "");
		if (!ocl)
			printf("%-22s (skipped: no OpenCL platform)\n", "opencl");
	} else if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return cli_usage_error("sched bench", "--backend: list too long");
	char *save = NULL;
	for (char *u = strtok_r(buf, ",", &save); u && !rc; u = strtok_r(NULL, ",", &save))
		rc = bench_rows(u, u, img, len, n0, repeat, feat, feas);
	if (rtl && !rc) {
		char dir[] = "/tmp/quire-sched-bench-XXXXXX", sock[PATH_MAX], uri[PATH_MAX + 8];
		if (!mkdtemp(dir)) {
			rc = cli_fail("sched bench: mkdtemp: %s", strerror(errno));
		} else {
			pid_t pid = start_rtl_card(dir, sock, sizeof(sock));
			if (pid < 0)
				rc = 1;
			else {
				snprintf(uri, sizeof(uri), "sim:%s", sock);
				rc = bench_rows("rtl (quire-sim)", uri, img, len, n0,
						repeat_set ? repeat : 3, feat, feas);
				kill(pid, SIGTERM);
				waitpid(pid, NULL, 0);
			}
			unlink(sock);
			rmdir(dir);
		}
	}
	if (!rc)
		printf(
		    "us p50, p99: wall time of a decision (quire_model_score: copy in, MLP_SCORE, "
		    "copy out;\nper 1024 candidates), median and 99th percentile of the "
		    "decisions; card cycles: the RTL\ncard's own count for the commands, "
		    "descriptor fetch to completion (other backends:\nno cycle model)\n");
	free(img);
	free(feat);
	free(feas);
	return rc;
}
