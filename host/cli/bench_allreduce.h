/* SPDX-License-Identifier: MIT */
/*
 * The limits of the all-reduce benchmark, shared by `quire bench allreduce`, which checks
 * them before it starts anything, and the ranks (quire-bench-allreduce), run by hand too.
 */
#ifndef QUIRE_BENCH_ALLREDUCE_H
#define QUIRE_BENCH_ALLREDUCE_H

#define BENCH_ALLREDUCE_MIN_BYTES  256u       /* 64 elements: one codec block */
#define BENCH_ALLREDUCE_MAX_BYTES  (1u << 30) /* two such buffers per rank */
#define BENCH_ALLREDUCE_MAX_REPEAT 1000
#define BENCH_ALLREDUCE_MAX_VERIFY 100000 /* all-reduces of --verify */

#endif
