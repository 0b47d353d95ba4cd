// SPDX-License-Identifier: MIT
/*
 * The goals of `quire bench allreduce --link`, checked in the bench's output (bench_goals.h):
 * a missed goal is printed with the figures that say why, measured in the same run, never a
 * reason written in advance.
 */
#include "bench_goals.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

struct bench_cpu bench_cpu_now(void)
{
	struct bench_cpu c = {0, 0};
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return c;
	/* cpu  user nice system idle iowait irq softirq steal: idle and iowait are not busy. */
	uint64_t v[8] = {0};
	if (fscanf(f,
		   "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64,
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			c.total += v[i];
		c.busy = c.total - v[3] - v[4];
	}
	fclose(f);
	return c;
}

double bench_cpu_busy(struct bench_cpu a, struct bench_cpu b)
{
	if (b.total <= a.total || b.busy < a.busy)
		return -1;
	return (double)(b.busy - a.busy) / (double)(b.total - a.total);
}

/* The share of its link one rank's sending took: row r of n elements per rank. */
static double link_use(const struct bench_row *r, uint64_t n, double link_bps)
{
	return r->wire * (double)n * 8.0 / r->secs / link_bps;
}

static void pct(char *buf, size_t len, double share)
{
	if (share < 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%.0f%%", share * 100.0);
}

/* One goal: met, or missed with the measured reason. */
static void goal(const char *what, double goal_x, const struct bench_row *q,
		 const struct bench_row *mpi, uint64_t n, double link_bps, int w)
{
	double x = mpi->secs / q->secs;
	if (x >= goal_x) {
		printf("  %s >= %.2fx OpenMPI fp32: %.2fx, met\n", what, goal_x, x);
		return;
	}
	double use_q = link_use(q, n, link_bps), use_m = link_use(mpi, n, link_bps);
	char cpu[16];
	pct(cpu, sizeof(cpu), q->cpu);
	printf("  %s >= %.2fx OpenMPI fp32: %.2fx, missed: ", what, goal_x, x);
	if (use_q >= BENCH_LINK_BOUND)
		printf("link-bound (it used %.0f%% of the link, OpenMPI fp32 %.0f%% by the ring's "
		       "bytes: at these wire bytes the ratio can reach %.2fx)\n",
		       use_q * 100, use_m * 100, mpi->wire / q->wire / use_m);
	else if (q->cpu >= BENCH_CPU_BOUND)
		printf("CPU-bound (it used %.0f%% of the link while the CPUs were %s busy: %ld "
		       "CPUs for %d ranks and their cards)\n",
		       use_q * 100, cpu, sysconf(_SC_NPROCESSORS_ONLN), w);
	else
		printf("neither bound (it used %.0f%% of the link, the CPUs %s busy): the time "
		       "went to waiting (round trips, flow control, frames sent again)\n",
		       use_q * 100, cpu);
}

void bench_goals_print(double link_bps, int w, uint64_t n, const struct bench_row *mpi,
		       const struct bench_row *gloo, const struct bench_row *fp32,
		       const struct bench_row *bfp8)
{
	const struct bench_row *rows[] = {mpi, gloo, fp32, bfp8};
	printf("goals over these links (issue 12, stated for W=4 and 16 MiB):\n");
	goal("quire bfp8", BENCH_GOAL_BFP8_X_MPI, bfp8, mpi, n, link_bps, w);
	goal("quire fp32", BENCH_GOAL_FP32_X_MPI, fp32, mpi, n, link_bps, w);
	printf("  link used by each rank's sending (its wire bytes over %.3g Gbit/s):",
	       link_bps / 1e9);
	for (int i = 0; i < 4; i++)
		if (rows[i])
			printf("%s %s %.0f%%", i ? "," : "", rows[i]->label,
			       link_use(rows[i], n, link_bps) * 100);
	printf("\n  CPUs busy during each row's runs (the machine, %ld CPUs):",
	       sysconf(_SC_NPROCESSORS_ONLN));
	for (int i = 0, k = 0; i < 4; i++)
		if (rows[i] && rows[i] != gloo) {
			char c[16];
			pct(c, sizeof(c), rows[i]->cpu);
			printf("%s %s %s", k++ ? "," : "", rows[i]->label, c);
		}
	printf("\n");
}
