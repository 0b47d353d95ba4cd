// SPDX-License-Identifier: MIT
#include "loop.h"

#include <time.h>

double loop_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void loop_shuffle(size_t *idx, size_t n, uint64_t *state)
{
	for (size_t i = n - 1; i > 0; i--) {
		*state = *state * 6364136223846793005ull + 1442695040888963407ull;
		size_t j = (size_t)((*state >> 33) % (i + 1));
		size_t t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
}
