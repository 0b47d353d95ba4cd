/* SPDX-License-Identifier: MIT */
/*
 * This host's clocks as the simulation reads them (not the card's cycle counter, which
 * the emu derives from the monotonic clock): the monotonic clock for timeouts, round
 * trips and rates, the wall clock for times a person reads (when a host attached).
 */
#ifndef QUIRE_SIM_CLOCK_H
#define QUIRE_SIM_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLOCK_MONOTONIC, in nanoseconds and in milliseconds. */
int64_t quire_sim_mono_ns(void);
int64_t quire_sim_mono_ms(void);
/* CLOCK_REALTIME in milliseconds since the epoch. */
uint64_t quire_sim_wall_ms(void);

#ifdef __cplusplus
}
#endif

#endif
