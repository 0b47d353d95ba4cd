// SPDX-License-Identifier: MIT
/* This host's clocks for the simulation (clock.h). */
#include "sim/clock.h"

#include <time.h>

int64_t quire_sim_mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

int64_t quire_sim_mono_ms(void)
{
	return quire_sim_mono_ns() / 1000000;
}

uint64_t quire_sim_wall_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}
