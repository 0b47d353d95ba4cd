/* SPDX-License-Identifier: MIT */
/*
 * The limits of the all-reduce benchmark, shared by `quire bench allreduce`, which checks
 * them before it starts anything, and the ranks (quire-bench-allreduce), run by hand too.
 */
#ifndef QUIRE_BENCH_ALLREDUCE_H
#define QUIRE_BENCH_ALLREDUCE_H

#include <stddef.h>

#define BENCH_ALLREDUCE_MIN_BYTES  256u       /* 64 elements: one codec block */
#define BENCH_ALLREDUCE_MAX_BYTES  (1u << 30) /* two such buffers per rank */
#define BENCH_ALLREDUCE_MAX_REPEAT 1000
#define BENCH_ALLREDUCE_MAX_VERIFY 100000 /* all-reduces of --verify */

/* quire bench allreduce --link (bench_link.c): the runs over shaped links between network
 * namespaces (link.h), programs found in directory self; an exit status. */
int bench_link(const char *self, const char *link, const char *backends, const char *ranks,
	       const char *min, const char *max, const char *repeat);
/* Appends mpirun and its options for W=np ranks over TCP on interfaces `ifaces` (names
 * or a subnet) to argv from index k; the new k. */
int bench_mpirun_argv(const char **argv, int k, const char *np, const char *ifaces);

#endif
