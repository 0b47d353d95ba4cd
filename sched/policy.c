// SPDX-License-Identifier: MIT
/*
 * Placement math and the heuristic policies. Feasibility, the fragmentation measure of
 * "Beware of Fragmentation" (Weng et al., USENIX ATC '23) in integer milli-GPUs, and
 * first-fit, best-fit, least-loaded, Tetris, random and FGD as choose() functions over
 * a candidate list with a feasibility mask (sched.h): the interface a network's
 * policy implements too. docs/sched.md gives every score.
 */
#include <string.h>

#include "sched/internal.h"
#include "sched/sched.h"

int sched_fits(const struct sched_node *n, const struct sched_nstate *s, int32_t cpu, int64_t mem,
	       int32_t ngpu, int32_t milli, uint32_t spec)
{
	if (s->cpu_free < cpu || s->mem_free < mem)
		return 0;
	if (ngpu == 0)
		return 1;
	if (n->ngpu < ngpu || (spec && !(spec & (1u << n->model))))
		return 0;
	int ok = 0;
	for (int g = 0; g < n->ngpu; g++)
		ok += s->gpu_free[g] >= milli;
	return ok >= ngpu;
}

/*
 * F_n(m): if m asks for no GPU, or cannot run on n (CPU, memory, GPU model, or fewer than
 * ngpu GPUs with milli free), every free milli-GPU of n is a fragment for m; otherwise the
 * free share of each GPU with less than m's milli free is.
 */
int64_t sched_frag_class(const struct sched_node *n, const struct sched_nstate *s,
			 const struct sched_class *m)
{
	int64_t total = 0;
	for (int g = 0; g < n->ngpu; g++)
		total += s->gpu_free[g];
	if (total == 0 || m->ngpu == 0 ||
	    !sched_fits(n, s, m->cpu, m->mem, m->ngpu, m->milli, m->spec))
		return total;
	int64_t frag = 0;
	for (int g = 0; g < n->ngpu; g++)
		if (s->gpu_free[g] < m->milli)
			frag += s->gpu_free[g];
	return frag;
}

int64_t sched_frag_node(const struct sched_node *n, const struct sched_nstate *s,
			const struct sched_class *classes, size_t nclasses)
{
	int64_t total = 0;
	for (int g = 0; g < n->ngpu; g++)
		total += s->gpu_free[g];
	if (total == 0)
		return 0;
	int64_t sum = 0;
	for (size_t i = 0; i < nclasses; i++)
		sum += classes[i].count * sched_frag_class(n, s, &classes[i]);
	return sum;
}

/* ---- Scores: each policy's key, lower is better; ties go to the lower index --------------- */

static int64_t gpu_free_total(const struct sched_node *n, const struct sched_nstate *s)
{
	int64_t t = 0;
	for (int g = 0; g < n->ngpu; g++)
		t += s->gpu_free[g];
	return t;
}

/* The free milli-GPUs of the GPUs a candidate takes, before placement. */
static int64_t taken_free(const struct sched_nstate *s, uint32_t mask)
{
	int64_t t = 0;
	for (int g = 0; g < SCHED_MAX_GPUS; g++)
		if (mask & (1u << g))
			t += s->gpu_free[g];
	return t;
}

typedef double (*score_fn)(const struct sched_decision *d, const struct sched_cand *c);

static int argmin(const struct sched_decision *d, score_fn f)
{
	int best = -1;
	double bs = 0;
	for (size_t i = 0; i < d->count; i++) {
		if (!d->feasible[i])
			continue;
		double v = f(d, &d->cand[i]);
		if (best < 0 || v < bs) {
			best = (int)i;
			bs = v;
		}
	}
	return best;
}

/* Requests of the pod in milli-GPUs. */
static int64_t pod_gpu(const struct sched_pod *p)
{
	return (int64_t)p->ngpu * p->milli;
}

/* first-fit: the first feasible candidate (nodes in file order, then GPU index). */
static int choose_first_fit(struct sched_policy *self, const struct sched_decision *d)
{
	(void)self;
	for (size_t i = 0; i < d->count; i++)
		if (d->feasible[i])
			return (int)i;
	return -1;
}

/*
 * best-fit: least left over after placement, CPU, memory and GPU each as a share of the
 * largest node of the cluster, weighted 1/3 each; then the least free on the GPUs taken.
 */
static double score_best_fit(const struct sched_decision *d, const struct sched_cand *c)
{
	const struct sched_cluster *cl = d->cl;
	const struct sched_nstate *s = &cl->state[c->node];
	const struct sched_pod *p = d->pod;
	double left = (double)(s->cpu_free - p->cpu) / cl->cpu_max +
		      (double)(s->mem_free - p->mem) / (double)cl->mem_max;
	if (cl->gpu_max)
		left += (double)(gpu_free_total(&cl->nodes[c->node], s) - pod_gpu(p)) /
			((double)cl->gpu_max * SCHED_MILLI);
	return left / 3.0 * 1e6 + (double)taken_free(s, c->gpu_mask) / SCHED_MILLI;
}

static int choose_best_fit(struct sched_policy *self, const struct sched_decision *d)
{
	(void)self;
	return argmin(d, score_best_fit);
}

/*
 * least-loaded: the node whose mean allocated share (CPU, memory and, on GPU nodes, GPU)
 * is lowest before placement; then the most free on the GPUs taken (spreading).
 */
static double score_least_loaded(const struct sched_decision *d, const struct sched_cand *c)
{
	const struct sched_cluster *cl = d->cl;
	const struct sched_node *n = &cl->nodes[c->node];
	const struct sched_nstate *s = &cl->state[c->node];
	double used =
	    1.0 - (double)s->cpu_free / n->cpu + 1.0 - (double)s->mem_free / (double)n->mem;
	int dims = 2;
	if (n->ngpu) {
		used += 1.0 - (double)gpu_free_total(n, s) / ((double)n->ngpu * SCHED_MILLI);
		dims++;
	}
	return used / dims * 1e6 - (double)taken_free(s, c->gpu_mask) / SCHED_MILLI;
}

static int choose_least_loaded(struct sched_policy *self, const struct sched_decision *d)
{
	(void)self;
	return argmin(d, score_least_loaded);
}

/*
 * Tetris (Grandl et al., SIGCOMM '14): the largest alignment, the dot product of the pod's
 * demand and the node's free resources, both as shares of the node's capacity (CPU,
 * memory, GPU); then the least free on the GPUs taken (packing inside the node).
 */
static double score_tetris(const struct sched_decision *d, const struct sched_cand *c)
{
	const struct sched_cluster *cl = d->cl;
	const struct sched_node *n = &cl->nodes[c->node];
	const struct sched_nstate *s = &cl->state[c->node];
	const struct sched_pod *p = d->pod;
	double a = ((double)p->cpu / n->cpu) * ((double)s->cpu_free / n->cpu) +
		   ((double)p->mem / (double)n->mem) * ((double)s->mem_free / (double)n->mem);
	if (n->ngpu) {
		double cap = (double)n->ngpu * SCHED_MILLI;
		a += ((double)pod_gpu(p) / cap) * ((double)gpu_free_total(n, s) / cap);
	}
	return -a * 1e6 + (double)taken_free(s, c->gpu_mask) / SCHED_MILLI;
}

static int choose_tetris(struct sched_policy *self, const struct sched_decision *d)
{
	(void)self;
	return argmin(d, score_tetris);
}

/* random: a feasible node uniformly, then one of its feasible candidates uniformly. */
static int choose_random(struct sched_policy *self, const struct sched_decision *d)
{
	size_t nodes = 0;
	for (size_t i = 0; i < d->count; i++)
		nodes += d->feasible[i] &&
			 (i == 0 || !d->feasible[i - 1] || d->cand[i - 1].node != d->cand[i].node);
	if (!nodes)
		return -1;
	size_t k = (size_t)(sched_splitmix(&self->rng) % nodes);
	size_t first = 0, options = 0;
	for (size_t i = 0; i < d->count; i++) {
		int start = d->feasible[i] && (i == 0 || !d->feasible[i - 1] ||
					       d->cand[i - 1].node != d->cand[i].node);
		if (start && k-- == 0) {
			first = i;
			while (first + options < d->count && d->feasible[first + options] &&
			       d->cand[first + options].node == d->cand[i].node)
				options++;
			break;
		}
	}
	return (int)(first + sched_splitmix(&self->rng) % options);
}

/* FGD: the smallest growth of the node's fragmentation for the target workload. */
static double score_fgd(const struct sched_decision *d, const struct sched_cand *c)
{
	(void)d;
	return (double)c->dfrag;
}

static int choose_fgd(struct sched_policy *self, const struct sched_decision *d)
{
	(void)self;
	return argmin(d, score_fgd);
}

static const struct sched_policy policies[] = {
    {"first-fit", 0, choose_first_fit, 0, NULL},
    {"best-fit", 0, choose_best_fit, 0, NULL},
    {"least-loaded", 0, choose_least_loaded, 0, NULL},
    {"tetris", 0, choose_tetris, 0, NULL},
    {"random", 0, choose_random, 0, NULL},
    {"fgd", SCHED_NEED_DFRAG, choose_fgd, 0, NULL},
};

const char *const sched_policy_names[] = {
    "first-fit", "best-fit", "least-loaded", "tetris", "random", "fgd", NULL};

int sched_policy_get(const char *name, struct sched_policy *p)
{
	if (strcmp(name, "neural") == 0) {
		*p = (struct sched_policy){"neural", SCHED_NEED_FEATURES, sched_neural_choose, 0,
					   NULL};
		return 0;
	}
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (strcmp(policies[i].name, name) == 0) {
			*p = policies[i];
			return 0;
		}
	return -1;
}
