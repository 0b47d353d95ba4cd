/* SPDX-License-Identifier: MIT */
/*
 * The goals of `quire bench allreduce --link` checked in its own output, each with the
 * measured reason a missed one was missed: how much of the link each row used (its sent
 * bytes over the link's rate) and how busy the machine's CPUs were while it ran. Used by
 * quire-bench-allreduce (rank 0), nothing else.
 */
#ifndef QUIRE_BENCH_GOALS_H
#define QUIRE_BENCH_GOALS_H

#include <stdint.h>

/* The goals of issue 12: quire bfp8 busbw at least this many times OpenMPI's fp32, and
 * quire fp32 at least that many. */
#define BENCH_GOAL_BFP8_X_MPI 1.80
#define BENCH_GOAL_FP32_X_MPI 0.95

/* A row is link-bound above this share of the link, and the machine CPU-bound above this
 * share of its CPUs busy. */
#define BENCH_LINK_BOUND 0.85
#define BENCH_CPU_BOUND  0.90

/* The machine's CPU time so far, all CPUs (/proc/stat's first line): busy and in all, in
 * clock ticks. Zero for both where /proc/stat cannot be read. */
struct bench_cpu {
	uint64_t busy, total;
};
struct bench_cpu bench_cpu_now(void);
/* The share of the CPUs busy from a to b; negative when unknown. */
double bench_cpu_busy(struct bench_cpu a, struct bench_cpu b);

/* One row of a size: its time (best of the repeats), bytes one rank sends per element, and
 * the CPUs' busy share over its runs (negative: unknown). */
struct bench_row {
	const char *label;
	double secs, wire, cpu;
};

/* Prints the goals for one size, n elements of W ranks, over links of link_bps bits per
 * second each way: the two ratios, met or missed, each rank's use of its link per row, the
 * CPUs' busy share per row, and for a miss the reason those figures give. mpi, quire fp32
 * and quire bfp8 must be given; gloo may be NULL. */
void bench_goals_print(double link_bps, int w, uint64_t n, const struct bench_row *mpi,
		       const struct bench_row *gloo, const struct bench_row *fp32,
		       const struct bench_row *bfp8);

#endif
