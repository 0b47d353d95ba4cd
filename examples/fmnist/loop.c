// SPDX-License-Identifier: MIT
#include "loop.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
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

int loop_make_dirs(const char *path)
{
	char dir[4096];
	if ((size_t)snprintf(dir, sizeof(dir), "%s", path) >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = dir + 1;; p++) {
		char c = *p;
		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = c;
		if (c == '\0')
			return 0;
	}
}
