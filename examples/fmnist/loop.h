/* SPDX-License-Identifier: MIT */
/* What every trainer here shares: the clock, the order of the data, the results directory. */
#ifndef QUIRE_EXAMPLE_LOOP_H
#define QUIRE_EXAMPLE_LOOP_H

#include <stddef.h>
#include <stdint.h>

/* Seconds on a monotonic clock. */
double loop_seconds(void);

/*
 * The next epoch's order of the training samples (Fisher-Yates with a 64-bit
 * LCG): every trainer and every rank with the same state gets the same order,
 * so runs in different formats see the same data.
 */
void loop_shuffle(size_t *idx, size_t n, uint64_t *state);

/* Make directory path and its missing parents (mkdir -p); -1 with errno set if one fails. */
int loop_make_dirs(const char *path);

#endif
