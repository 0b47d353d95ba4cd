/* SPDX-License-Identifier: MIT */
/*
 * A refusal with its reason: the simulated network's setup (the job key, the rendezvous)
 * says why it refuses in a caller's buffer, for the card to print once, and returns the
 * QUIRE_ status.
 */
#ifndef QUIRE_SIM_WHY_H
#define QUIRE_SIM_WHY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

__attribute__((format(printf, 4, 5))) static inline int quire_sim_why(char *why, size_t n, int st,
								      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return st;
}

#endif /* QUIRE_SIM_WHY_H */
