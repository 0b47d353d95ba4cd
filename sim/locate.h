/* SPDX-License-Identifier: MIT */
/* Where the quire-sim program is, for whoever starts card processes. */
#ifndef QUIRE_SIM_LOCATE_H
#define QUIRE_SIM_LOCATE_H

#include <stddef.h>

/* $QUIRE_SIM, else quire-sim beside the running program, else "quire-sim" (PATH). */
void quire_sim_locate(char *out, size_t len);

#endif
