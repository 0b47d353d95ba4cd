// SPDX-License-Identifier: MIT
/*
 * quire-bench-allreduce: all-reduce bandwidth under mpirun, quire's formats
 * against OpenMPI's own MPI_Allreduce of fp32 in the same run. Started by
 * `quire bench allreduce` (which runs mpirun, inside quire-cluster for the
 * sim backend), or by hand:
 *
 *   mpirun -np 4 quire-bench-allreduce [--backend URI] [--min 64KiB] [--max 64MiB]
 *                                      [--gloo FILE]
 *   mpirun -np 4 quire-bench-allreduce --backend URI --min SIZE --verify N
 *                                      [--digests-out FILE | --digests-in FILE]
 *
 * --verify N: N bfp8 all-reduces of SIZE, each of new data, every rank's result
 * summed up as a CRC-32; with --digests-out the digests and the time go to FILE
 * (the loss-free run), with --digests-in each is compared with FILE's (the run
 * through a lossy network): how many are identical, how many frames the cards
 * sent again, and the slowdown.
 *
 * --gloo FILE: Gloo's figures from quire-bench-gloo in the same network ("BYTES SECONDS"
 * lines), printed as a row of their own and as the column "x Gloo".
 * algbw = fp32 bytes / time; busbw = algbw x 2(W-1)/W (NCCL's definitions), so
 * every line is in fp32-equivalent bytes whatever the format moves. Wire bytes
 * per element are counted by the cards' network ports where there are cards,
 * else taken from the ring's model.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bench_allreduce.h"
#include "bench_goals.h"
#include "quire_mpi.h"

/* The machine's CPU counters, read by rank 0 only: it alone prints the goals. */
static struct bench_cpu cpu_now(int rank)
{
	struct bench_cpu none = {0, 0};
	return rank == 0 ? bench_cpu_now() : none;
}

static double best_time(MPI_Comm comm, int repeat, int (*fn)(void *), void *arg)
{
	double best = 1e30;
	for (int r = 0; r <= repeat; r++) {
		MPI_Barrier(comm);
		double t0 = MPI_Wtime();
		if (fn(arg) != 0)
			return -1;
		double t = MPI_Wtime() - t0, slowest;
		MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX,
			      comm); /* a collective ends when its last rank does */
		if (r > 0 && slowest < best)
			best = slowest;
	}
	return best;
}

struct case_arg {
	int status; /* of quire's last all-reduce */
	struct quire_comm *comm;
	struct quire_allreduce_args a;
	float *x, *y;
	size_t n;
};

static int run_quire(void *p)
{
	struct case_arg *c = p;
	return c->status = quire_allreduce(c->comm, &c->a, NULL);
}

static int run_mpi(void *p)
{
	struct case_arg *c = p;
	return MPI_Allreduce(c->x, c->y, (int)c->n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) !=
	       MPI_SUCCESS;
}

#define GLOO_MAX 16
struct gloo_times {
	size_t bytes[GLOO_MAX];
	double secs[GLOO_MAX];
	int n;
};

static int read_gloo(const char *path, struct gloo_times *g)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (g->n < GLOO_MAX && fscanf(f, "%zu %lf", &g->bytes[g->n], &g->secs[g->n]) == 2)
		g->n++;
	fclose(f);
	return g->n ? 0 : -1;
}

static double gloo_secs(const struct gloo_times *g, size_t bytes)
{
	for (int i = 0; i < g->n; i++)
		if (g->bytes[i] == bytes)
			return g->secs[i];
	return 0;
}

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (!strcmp(end, "KiB") || !strcmp(end, "K"))
		v <<= 10;
	else if (!strcmp(end, "MiB") || !strcmp(end, "M"))
		v <<= 20;
	else if (*end)
		return 0;
	return (size_t)v;
}

/* Rank 0's file of a verify run: W, N, bytes, seconds, then W x N digests. */
static int digests_write(const char *path, int w, int runs, size_t bytes, double secs,
			 const uint32_t *d)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "quire-verify 1 %d %d %zu %.9f\n", w, runs, bytes, secs);
	for (long i = 0; i < (long)w * runs; i++)
		fprintf(f, "%08x\n", d[i]);
	return fclose(f);
}

static int digests_read(const char *path, int w, int runs, size_t bytes, double *secs, uint32_t *d)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int fw, fr, v;
	size_t fb;
	int ok = fscanf(f, "quire-verify %d %d %d %zu %lf", &v, &fw, &fr, &fb, secs) == 5 &&
		 v == 1 && fw == w && fr == runs && fb == bytes;
	for (long i = 0; ok && i < (long)w * runs; i++)
		ok = fscanf(f, "%8x", &d[i]) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* N bfp8 all-reduces of new data each, digested; against a loss-free run's digests if given. */
static int verify(struct quire_ctx *ctx, struct quire_comm *comm, int rank, int size, size_t bytes,
		  int runs, const char *out, const char *in)
{
	size_t n = bytes / 4;
	struct quire_buf *xb, *yb;
	int st = quire_buf_alloc(ctx, bytes, &xb);
	if (!st)
		st = quire_buf_alloc(ctx, bytes, &yb);
	if (st) {
		fprintf(stderr, "rank %d: cannot allocate 2 x %zu bytes: %s\n", rank, bytes,
			quire_strerror(st));
		return 1;
	}
	float *x = quire_buf_ptr(xb), *y = quire_buf_ptr(yb);
	uint32_t *mine = calloc((size_t)runs, 4), *all = calloc((size_t)runs * size, 4),
		 *want = calloc((size_t)runs * size, 4);
	if (!mine || !all || !want) {
		fprintf(stderr, "rank %d: out of memory\n", rank);
		return 1;
	}
	struct quire_info info;
	uint64_t again0 = quire_get_info(ctx, &info) == QUIRE_OK ? info.net.retransmits : 0;
	double busy = 0;
	int failed_at = -1, failed_st = 0;
	for (int i = 0; i < runs; i++) {
		uint32_t v = (uint32_t)(i * size + rank) * 2654435761u + 12345u;
		for (size_t j = 0; j < n; j++) {
			v = v * 1664525u + 1013904223u;
			x[j] = (float)(int32_t)(v >> 8 & 0xffffff) / 8388608.0f - 1.0f;
		}
		struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_SUM, n,
						 {xb, 0},        {yb, 0},      NULL};
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		st = quire_allreduce(comm, &a, NULL);
		busy += MPI_Wtime() - t0;
		if (st) {
			failed_at = i;
			failed_st = st;
			break;
		}
		mine[i] = (uint32_t)crc32(0, (const unsigned char *)y, (uInt)bytes);
	}
	/* A failed all-reduce fails the communicator on every rank: all stop at the same one. */
	int worst_at = failed_at < 0 ? runs : failed_at, first_fail;
	MPI_Allreduce(&worst_at, &first_fail, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	uint64_t again = quire_get_info(ctx, &info) == QUIRE_OK ? info.net.retransmits - again0 : 0,
		 again_all = 0;
	MPI_Reduce(&again, &again_all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	double secs;
	MPI_Reduce(&busy, &secs, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Gather(mine, runs, MPI_UINT32_T, all, runs, MPI_UINT32_T, 0, MPI_COMM_WORLD);
	int rc = 0;
	if (rank == 0) {
		printf("verify: %d bfp8 all-reduces of %zu bytes, W=%d, each of new data\n", runs,
		       bytes, size);
		if (first_fail < runs) {
			printf("verify: all-reduce %d failed (rank %d: %s)\n", first_fail, rank,
			       failed_at >= 0 ? quire_strerror(failed_st) : "another rank's");
			rc = 1;
		}
		int agree = 0;
		for (int i = 0; i < first_fail; i++) {
			int same = 1;
			for (int r = 1; r < size; r++)
				same &= all[(size_t)r * runs + i] == all[i];
			agree += same;
		}
		printf("verify: completed %d of %d; every rank the same result in %d\n", first_fail,
		       runs, agree);
		if (agree != first_fail)
			rc = 1;
		printf("verify: %llu frames sent again by the cards' links (all cards); all-reduce "
		       "time %.3f s (%.2f ms each)\n",
		       (unsigned long long)again_all, secs, 1e3 * secs / runs);
		double ref_secs = 0;
		if (out && digests_write(out, size, runs, bytes, secs, all)) {
			printf("verify: cannot write %s\n", out);
			rc = 1;
		}
		if (in && digests_read(in, size, runs, bytes, &ref_secs, want)) {
			printf("verify: cannot read the loss-free run's digests from %s\n", in);
			rc = 1;
		} else if (in) {
			int same = 0;
			for (int i = 0; i < first_fail; i++) {
				int s_ = 1;
				for (int r = 0; r < size; r++)
					s_ &=
					    all[(size_t)r * runs + i] == want[(size_t)r * runs + i];
				same += s_;
			}
			printf(
			    "verify: identical to the loss-free run, bit for bit on every rank: %d "
			    "of %d\n",
			    same, runs);
			printf("verify: slowdown against the loss-free run: %.3f s against %.3f s, "
			       "%.2fx\n",
			       secs, ref_secs, ref_secs > 0 ? secs / ref_secs : 0.0);
			if (same != runs)
				rc = 1;
		}
		fflush(stdout);
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	free(mine);
	free(all);
	free(want);
	quire_buf_free(xb);
	quire_buf_free(yb);
	return rc;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, repeat = 5;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	size_t min = 64u << 10, max = 64u << 20;
	const char *backend = "cpu", *gloo_file = NULL, *out = NULL, *in = NULL;
	struct gloo_times gloo = {.n = 0};
	int runs = 0;
	double link_bps = 0; /* --link-bps: the goals are checked over links of this rate */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gloo") && i + 1 < argc)
			gloo_file = argv[++i];
		else if (!strcmp(argv[i], "--link-bps") && i + 1 < argc)
			link_bps = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
			backend = argv[++i];
		else if (!strcmp(argv[i], "--verify") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--digests-out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--digests-in") && i + 1 < argc)
			in = argv[++i];
		else if (!strcmp(argv[i], "--min") && i + 1 < argc)
			min = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--max") && i + 1 < argc)
			max = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else {
			if (rank == 0)
				fprintf(stderr,
					"usage: mpirun -np W quire-bench-allreduce [--backend URI] "
					"[--min BYTES] [--max BYTES] [--repeat N] [--gloo FILE]\n"
					"       [--link-bps BITS]\n"
					"       [--verify N [--digests-out FILE | --digests-in "
					"FILE]]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (min < BENCH_ALLREDUCE_MIN_BYTES || max < min || max > BENCH_ALLREDUCE_MAX_BYTES ||
	    repeat < 1 || repeat > BENCH_ALLREDUCE_MAX_REPEAT || runs < 0 || link_bps < 0 ||
	    runs > BENCH_ALLREDUCE_MAX_VERIFY || (out && in)) {
		if (rank == 0)
			fprintf(
			    stderr,
			    "quire-bench-allreduce: --min %u bytes or more, --max from --min to "
			    "1GiB, --repeat 1 to %d, --verify 0 to %d, one of --digests-out and "
			    "--digests-in, --link-bps not negative\n",
			    BENCH_ALLREDUCE_MIN_BYTES, BENCH_ALLREDUCE_MAX_REPEAT,
			    BENCH_ALLREDUCE_MAX_VERIFY);
		MPI_Finalize();
		return 2;
	}
	if (gloo_file && read_gloo(gloo_file, &gloo) != 0) {
		if (rank == 0)
			fprintf(stderr, "quire-bench-allreduce: no figures in %s\n", gloo_file);
		MPI_Finalize();
		return 2;
	}
	struct quire_ctx *ctx;
	struct quire_comm *comm;
	int st = quire_open(backend, &ctx);
	/* Saved before anything else opens: why the attach failed (a card silent, or in use). */
	const char *why = st ? quire_open_fault() : NULL;
	if (!st)
		st = quire_comm_from_mpi(ctx, MPI_COMM_WORLD, &comm);
	if (st) {
		fprintf(stderr, "rank %d: cannot open quire on %s: %s%s%s\n", rank, backend,
			quire_strerror(st), why ? ": " : "", why ? why : "");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (runs > 0) {
		int rc = verify(ctx, comm, rank, size, min, runs, out, in);
		quire_comm_free(comm);
		quire_close(ctx);
		MPI_Finalize();
		return rc;
	}
	struct quire_info info;
	int cards = quire_get_info(ctx, &info) == QUIRE_OK && info.net.link == 1;
	uint64_t again0 = cards ? info.net.retransmits : 0;
	const char *engines = getenv("QUIRE_EMU_ENGINES"); /* the cards' (sim/emu/engines.c) */
	int golden = cards && engines && !strcmp(engines, "golden");
	if (rank == 0)
		printf("quire bench allreduce: W=%d ranks, backend %s (%s), best of %d, GB/s of "
		       "fp32-equivalent data\n%-10s %-10s %10s %10s %12s %10s%s\n",
		       size, backend,
		       golden  ? "the cards' network, golden engines: the hls/ C"
		       : cards ? "the cards' network"
			       : "MPI transport",
		       repeat, "size", "format", "algbw", "busbw", "wire B/elem", "x MPI",
		       gloo.n ? "     x Gloo" : "");
	static const struct {
		const char *label, *row;
		enum quire_format fmt;
	} fmts[] = {{"fp32", "quire fp32", QUIRE_FMT_FP32},
		    {"fp16", "quire fp16", QUIRE_FMT_FP16},
		    {"bfp8", "quire bfp8", QUIRE_FMT_BFP8}};
	for (size_t bytes = min; bytes <= max; bytes *= 4) {
		size_t n = bytes / 4;
		struct quire_buf *xb, *yb;
		st = quire_buf_alloc(ctx, bytes, &xb);
		if (!st)
			st = quire_buf_alloc(ctx, bytes, &yb);
		if (st) {
			fprintf(stderr, "rank %d: cannot allocate 2 x %zu bytes on %s: %s\n", rank,
				bytes, backend, quire_strerror(st));
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		float *x = quire_buf_ptr(xb);
		for (size_t i = 0; i < n; i++)
			x[i] = (float)((i * 2654435761u + (size_t)rank) % 2001) / 1000.0f - 1.0f;
		struct case_arg c = {0,
				     comm,
				     {QUIRE_FMT_FP32, QUIRE_OP_SUM, n, {xb, 0}, {yb, 0}, NULL},
				     x,
				     quire_buf_ptr(yb),
				     n};
		struct bench_cpu cpu0 = cpu_now(rank);
		double t_mpi = best_time(MPI_COMM_WORLD, repeat, run_mpi, &c);
		struct bench_row row_mpi = {"OpenMPI fp32", t_mpi, 8.0 * (size - 1) / size,
					    bench_cpu_busy(cpu0, cpu_now(rank))};
		struct bench_row row_q[3];
		double bus = 2.0 * (size - 1) / size;
		char sz[32];
		snprintf(sz, sizeof(sz), bytes >= (1u << 20) ? "%zu MiB" : "%zu KiB",
			 bytes >= (1u << 20) ? bytes >> 20 : bytes >> 10);
		double t_gloo = gloo_secs(&gloo, bytes);
		char xg[32] = "";
		if (gloo.n)
			snprintf(xg, sizeof(xg), " %10.2f", t_gloo > 0 ? t_gloo / t_mpi : 0);
		if (rank == 0)
			printf("%-10s %-10s %10.2f %10.2f %12.3f %10s%s\n", sz, "MPI fp32",
			       bytes / t_mpi / 1e9, bytes / t_mpi / 1e9 * bus,
			       8.0 * (size - 1) / size, "1.00", xg);
		if (rank == 0 && t_gloo > 0)
			printf("%-10s %-10s %10.2f %10.2f %12.3f %10.2f %10s\n", sz, "Gloo fp32",
			       bytes / t_gloo / 1e9, bytes / t_gloo / 1e9 * bus,
			       8.0 * (size - 1) / size, t_mpi / t_gloo, "1.00");
		for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
			c.a.format = fmts[f].fmt;
			uint64_t tx0 = cards && !quire_get_info(ctx, &info) ? info.net.tx_bytes : 0;
			cpu0 = cpu_now(rank);
			double t = best_time(MPI_COMM_WORLD, repeat, run_quire, &c);
			double cpu = bench_cpu_busy(cpu0, cpu_now(rank));
			/* Counted: every rank's port, all runs; the mean per rank, run and element.
			 */
			double wire = (double)quire_allreduce_wire_bytes(fmts[f].fmt, size, n) / n;
			if (cards && !quire_get_info(ctx, &info)) {
				double mine = (double)(info.net.tx_bytes - tx0), all;
				MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
				wire = all / size / (repeat + 1) / (double)n;
			}
			if (t < 0) {
				fprintf(stderr, "rank %d: %s quire %s all-reduce failed: %s\n",
					rank, sz, fmts[f].label, quire_strerror(c.status));
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			if (gloo.n)
				snprintf(xg, sizeof(xg), " %10.2f", t_gloo > 0 ? t_gloo / t : 0);
			if (rank == 0)
				printf("%-10s quire %-4s %10.2f %10.2f %12.3f %10.2f%s\n", sz,
				       fmts[f].label, bytes / t / 1e9, bytes / t / 1e9 * bus, wire,
				       t_mpi / t, xg);
			row_q[f] = (struct bench_row){fmts[f].row, t, wire, cpu};
		}
		if (rank == 0 && link_bps > 0) {
			struct bench_row row_gloo = {"Gloo fp32", t_gloo, row_mpi.wire, -1};
			bench_goals_print(link_bps, size, n, &row_mpi,
					  t_gloo > 0 ? &row_gloo : NULL, &row_q[0], &row_q[2]);
		}
		quire_buf_free(xb);
		quire_buf_free(yb);
	}
	if (rank == 0)
		printf(
		    "wire B/elem: what one rank sends per element, %s; MPI fp32 and Gloo fp32: the "
		    "ring's 8(W-1)/W (their real traffic is their business).\n",
		    cards
			? "counted by the cards' network ports, frame headers included"
			: "modelled for a ring on the cards' network (quire_allreduce_wire_bytes)");
	uint64_t again = cards && !quire_get_info(ctx, &info) ? info.net.retransmits - again0 : 0,
		 again_all = 0;
	MPI_Reduce(&again, &again_all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0 && cards)
		printf(
		    "frames sent again by the cards' links (lost, damaged or acknowledged late), "
		    "all cards, all runs: %llu\n",
		    (unsigned long long)again_all);
	quire_comm_free(comm);
	quire_close(ctx);
	MPI_Finalize();
	return 0;
}
