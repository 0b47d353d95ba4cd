// SPDX-License-Identifier: MIT
/*
 * quire bench card: a backend's command round trip (NOPs) and its bfp8 encode and decode
 * throughput beside cpu's in the same run; with --model rtl, the RTL card's figures in card
 * cycles from quire-bench-rtl.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "quire.h"

static const char bench_card_help[] =
    "Usage: quire bench card [--backend URI] [--size BYTES] [--repeat N] [--nops N]\n"
    "       quire bench card --model rtl [--size BYTES] [--nops N]\n"
    "       quire bench card --model rtl --ring N [--size BYTES]\n"
    "A backend's command round trip and throughput, with cpu in the same run:\n"
    "the NOP round trip (doorbell to completion, one at a time), and GB/s of fp32\n"
    "input for bfp8 encode and decode on the backend and on cpu, with their ratio.\n"
    "With --model rtl, the RTL card (Verilator) in card cycles instead, run by\n"
    "quire-bench-rtl (beside this program, built by make rtl): the NOP round trip,\n"
    "the firmware's CPI on the command loop, cycles per MiB of encode bfp8, of\n"
    "reduce int8 (W 4) and of decode bfp8 with the mean of 4, the host link it ran\n"
    "with, and simulated cycles per wall second (default --size 1MiB).\n"
    "With --ring N as well: a bfp8 all-reduce of --size bytes of fp32 on N RTL cards\n"
    "in lockstep, their ports on 100 Gb/s links of 1 us: cycles from the doorbell to\n"
    "the last completion, algbw and busbw, every rank's result checked against the\n"
    "golden model.\n\n"
    "  -b, --backend URI  as for quire info (default: sim)\n"
    "  -m, --model rtl    the RTL card, in card cycles\n"
    "  -s, --size BYTES   fp32 bytes per tensor (default 16MiB)\n"
    "  -r, --repeat N     runs per figure, best kept (default 5)\n"
    "  -n, --nops N       NOPs timed (default 2000)\n"
    "      --ring N       with --model rtl: the all-reduce on N cards (2 to 8)\n"
    "  -h, --help         this text\n";

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* quire bench card --model rtl: quire-bench-rtl beside this program, with --nops, --size and
 * --ring (0: its defaults; no ring). Returns its exit status. */
static int bench_card_rtl(int nops, uint64_t bytes, int ring)
{
	char self[PATH_MAX - 32], bin[PATH_MAX];
	int st = bench_self_dir("bench card", self, sizeof(self));
	if (st)
		return st;
	snprintf(bin, sizeof(bin), "%s/quire-bench-rtl", self);
	if (access(bin, X_OK) != 0)
		return cli_fail("bench card --model rtl: %s not found (make rtl builds it where "
				"verilator is installed)",
				bin);
	char nstr[32], sstr[32], rstr[32];
	snprintf(nstr, sizeof(nstr), "%d", nops);
	snprintf(sstr, sizeof(sstr), "%llu", (unsigned long long)bytes);
	snprintf(rstr, sizeof(rstr), "%d", ring);
	const char *argv[8] = {bin};
	int k = 1;
	if (ring) {
		argv[k++] = "--ring";
		argv[k++] = rstr;
	} else if (nops) {
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

int bench_card(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"backend", required_argument, 0, 'b'}, {"size", required_argument, 0, 's'},
	    {"repeat", required_argument, 0, 'r'},  {"nops", required_argument, 0, 'n'},
	    {"model", required_argument, 0, 'm'},   {"ring", required_argument, 0, 'R'},
	    {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
	const char *uri = "sim", *model = NULL;
	uint64_t bytes = 16u << 20;
	int repeat = 5, nops = 2000, c, size_set = 0, nops_set = 0, backend_set = 0, ring = 0;
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
		} else if (c == 'R') {
			ring = atoi(optarg);
			if (ring < 2 || ring > 8)
				return cli_usage_error("bench card", "--ring: 2 to 8 cards");
		} else if (c == 'h') {
			return fputs(bench_card_help, stdout), 0;
		} else {
			return cli_bad_option("bench card", c, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("bench card", "unexpected argument '%s'", argv[optind]);
	if (ring && !model)
		return cli_usage_error("bench card", "--ring needs --model rtl");
	if (model) {
		if (backend_set)
			return cli_usage_error("bench card", "--model rtl runs its own card: no "
							     "--backend");
		if (size_set && (bytes > (16u << 20) || bytes % 256))
			return cli_usage_error("bench card",
					       "--model rtl: --size a multiple of 256 up to 16MiB");
		return bench_card_rtl(nops_set ? (nops > 100000 ? 100000 : nops) : 0,
				      size_set ? bytes : 0, ring);
	}
	size_t n = bytes / 4;
	float *data = malloc(bytes);
	double *rt = malloc((size_t)nops * sizeof(double));
	struct bench_backend dev = {0}, cpu = {0};
	int rc = CLI_EXIT_FAIL;
	if (!data || !rt)
		goto out;
	bench_fill_gradients(data, n, 7);
	if (bench_backend_open(&dev, uri, n, data) || bench_backend_open(&cpu, "cpu", n, data))
		goto out;
	/* Each line as soon as it is known (flushed): what is running shows in a log, and a
	 * test can tell the NOPs, then the encodes and decodes, are under way. */
	printf(
	    "quire bench card: backend %s against cpu, %.1f MiB of fp32 per tensor, best of %d\n",
	    uri, (double)bytes / (1 << 20), repeat);
	fflush(stdout);
	struct quire_op nop = {.opcode = QUIRE_OPC_NOP};
	for (int i = 0; i < nops; i++) {
		double t0 = bench_now();
		int nst = quire_run(dev.ctx, &nop, NULL);
		if (nst != QUIRE_OK) {
			cli_fail("bench card: nop: %s", quire_strerror(nst));
			goto out;
		}
		rt[i] = bench_now() - t0;
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
	if (bench_pair_times(&dev, &cpu, repeat, td, tc))
		goto out;
	for (int i = 0; i < 2; i++)
		printf("%-22s %12.2f %12.2f %10.3f\n", bench_pair_names[i],
		       (double)bytes / td[i] / 1e9, (double)bytes / tc[i] / 1e9, tc[i] / td[i]);
	if (memcmp(quire_buf_ptr(dev.q), quire_buf_ptr(cpu.q), n) != 0) {
		cli_fail("bench card: the backend's encoding differs from cpu's");
		goto out;
	}
	rc = 0;
out:
	bench_backend_close(&dev);
	bench_backend_close(&cpu);
	free(data);
	free(rt);
	return rc;
}
