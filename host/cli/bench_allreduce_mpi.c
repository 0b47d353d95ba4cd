// SPDX-License-Identifier: MIT
/*
 * quire-bench-allreduce: all-reduce bandwidth under mpirun, quire's formats
 * against OpenMPI's own MPI_Allreduce of fp32 in the same run. Started by
 * `quire bench allreduce` (which runs mpirun, inside quire-cluster for the
 * sim backend), or by hand:
 *
 *   mpirun -np 4 quire-bench-allreduce [--backend URI] [--min 64KiB] [--max 64MiB]
 *                                      [--gloo FILE]
 *
 * --gloo FILE: Gloo's figures from quire-bench-gloo in the same network ("BYTES SECONDS"
 * lines), printed as a row of their own and as the column "x Gloo".
 * algbw = fp32 bytes / time; busbw = algbw x 2(W-1)/W (NCCL's definitions), so
 * every line is in fp32-equivalent bytes whatever the format moves. Wire bytes
 * per element are counted by the cards' network ports where there are cards,
 * else taken from the ring's model.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_allreduce.h"
#include "quire_mpi.h"

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

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, repeat = 5;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	size_t min = 64u << 10, max = 64u << 20;
	const char *backend = "cpu", *gloo_file = NULL;
	struct gloo_times gloo = {.n = 0};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gloo") && i + 1 < argc)
			gloo_file = argv[++i];
		else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
			backend = argv[++i];
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
					"[--min BYTES] [--max BYTES] [--repeat N] [--gloo FILE]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (min < BENCH_ALLREDUCE_MIN_BYTES || max < min || max > BENCH_ALLREDUCE_MAX_BYTES ||
	    repeat < 1 || repeat > BENCH_ALLREDUCE_MAX_REPEAT) {
		if (rank == 0)
			fprintf(
			    stderr,
			    "quire-bench-allreduce: --min %u bytes or more, --max from --min to "
			    "1GiB, --repeat 1 to %d\n",
			    BENCH_ALLREDUCE_MIN_BYTES, BENCH_ALLREDUCE_MAX_REPEAT);
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
	if (!st)
		st = quire_comm_from_mpi(ctx, MPI_COMM_WORLD, &comm);
	if (st) {
		fprintf(stderr, "rank %d: cannot open quire on %s: %s\n", rank, backend,
			quire_strerror(st));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	struct quire_info info;
	int cards = quire_get_info(ctx, &info) == QUIRE_OK && info.net.link == 1;
	if (rank == 0)
		printf("quire bench allreduce: W=%d ranks, backend %s (%s), best of %d, GB/s of "
		       "fp32-equivalent data\n%-10s %-10s %10s %10s %12s %10s%s\n",
		       size, backend, cards ? "the cards' network" : "MPI transport", repeat,
		       "size", "format", "algbw", "busbw", "wire B/elem", "x MPI",
		       gloo.n ? "     x Gloo" : "");
	static const struct {
		const char *label;
		enum quire_format fmt;
	} fmts[] = {{"fp32", QUIRE_FMT_FP32}, {"fp16", QUIRE_FMT_FP16}, {"bfp8", QUIRE_FMT_BFP8}};
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
		double t_mpi = best_time(MPI_COMM_WORLD, repeat, run_mpi, &c);
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
			double t = best_time(MPI_COMM_WORLD, repeat, run_quire, &c);
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
	quire_comm_free(comm);
	quire_close(ctx);
	MPI_Finalize();
	return 0;
}
