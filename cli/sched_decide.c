// SPDX-License-Identifier: MIT
/*
 * One placement decision's candidates and network inputs from a struct sched_place (the
 * task, the nodes and their free resources): what `quire sched place` scores once from
 * stdin and `quire sched serve` for every request of the Kubernetes scheduler, so that
 * both answer the same input the same way. The features are sched/'s own (docs/sched.md).
 */
#include <stdlib.h>
#include <string.h>

#include "sched_decide.h"

int cli_decision_build(struct cli_decision *d, const struct sched_place *pl,
		       const struct sched_models *models, int inputs)
{
	memset(d, 0, sizeof(*d));
	d->cl = (struct sched_cluster){
	    .nodes = pl->nodes, .state = pl->state, .count = pl->count, .models = models};
	for (size_t i = 0; i < pl->count; i++) {
		d->cl.gpu_milli_total += (int64_t)pl->nodes[i].ngpu * SCHED_MILLI;
		for (int g = 0; g < pl->nodes[i].ngpu; g++)
			d->cl.gpu_milli_alloc += SCHED_MILLI - pl->state[i].gpu_free[g];
	}
	/* Room for every candidate there could be; the rows, once they are counted. */
	size_t max = pl->count * SCHED_MAX_GPUS;
	d->cand = calloc(max ? max : 1, sizeof(*d->cand));
	d->feasible = calloc(max ? max : 1, 1);
	if (!d->cand || !d->feasible) {
		cli_decision_free(d);
		return -1;
	}
	sched_candidates(&d->cl, &pl->pod, d->cand, d->feasible, &d->count);
	size_t n = d->count ? d->count : 1;
	d->features = calloc(n, SCHED_FEATURES * sizeof(float));
	d->q = calloc(n, SCHED_FEATURES);
	d->scores = calloc(n, sizeof(int32_t));
	if (!d->features || !d->q || !d->scores) {
		cli_decision_free(d);
		return -1;
	}
	if (!inputs)
		return 0;
	/* The target workload of the fragmentation feature: the classes, or the task. */
	struct sched_class self = {pl->pod.cpu,   pl->pod.mem,  pl->pod.ngpu,
				   pl->pod.milli, pl->pod.spec, 1};
	const struct sched_class *classes = pl->nclasses ? pl->classes : &self;
	size_t nclasses = pl->nclasses ? pl->nclasses : 1;
	int64_t workload = 0;
	for (size_t i = 0; i < nclasses; i++)
		workload += classes[i].count;
	sched_dfrag(&d->cl, &pl->pod, classes, nclasses, NULL, d->cand, d->feasible, d->count);
	sched_features(&d->cl, &pl->pod, pl->waited, workload, d->cand, d->count, d->features);
	sched_quantize_features(d->features, d->count, d->q);
	return 0;
}

void cli_decision_free(struct cli_decision *d)
{
	free(d->cand);
	free(d->feasible);
	free(d->features);
	free(d->q);
	free(d->scores);
	memset(d, 0, sizeof(*d));
}
