/* SPDX-License-Identifier: MIT */
/* Helpers shared by sched/'s files, not part of its interface (sched.h). */
#ifndef QUIRE_SCHED_INTERNAL_H
#define QUIRE_SCHED_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Formats an error into err; returns -1. */
int sched_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* splitmix64: the replay's one generator (node sampling, the random policy). */
static inline uint64_t sched_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct sched_policy;
struct sched_decision;
/* The neural policy's choose() (sched/neural.c): p->state is a struct sched_neural. */
int sched_neural_choose(struct sched_policy *p, const struct sched_decision *d);

#endif /* QUIRE_SCHED_INTERNAL_H */
