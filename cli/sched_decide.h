/* SPDX-License-Identifier: MIT */
/*
 * One placement decision's candidates and network inputs, as `quire sched place` and
 * `quire sched serve` both build them from a struct sched_place: the replay's candidates,
 * FGD's fragmentation change, the features and their int8 quantization (sched/).
 */
#ifndef QUIRE_CLI_SCHED_DECIDE_H
#define QUIRE_CLI_SCHED_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

struct cli_decision {
	struct sched_cluster cl; /* the nodes given, their GPUs' allocation summed */
	size_t count;            /* candidates */
	struct sched_cand *cand;
	uint8_t *feasible;
	float *features; /* count x SCHED_FEATURES */
	int8_t *q;       /* count x SCHED_FEATURES: the network's inputs */
	int32_t *scores; /* room for count scores, written by the caller's scorer */
};

/* The candidates of pl's task on pl's nodes and their feasibility; with `inputs`, also
 * FGD's change against pl's classes (the task alone without any), the features and q.
 * 0, or -1 when out of memory. */
int cli_decision_build(struct cli_decision *d, const struct sched_place *pl,
		       const struct sched_models *models, int inputs);
void cli_decision_free(struct cli_decision *d);

#endif /* QUIRE_CLI_SCHED_DECIDE_H */
