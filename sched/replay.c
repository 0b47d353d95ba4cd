// SPDX-License-Identifier: MIT
/*
 * The replay: a sampled cluster, arrivals compressed to a target GPU load, a FIFO queue
 * with skipping (optionally by QoS class first), one placement decision per pod through
 * a policy's choose(), completions after the trace's duration scaled by the GPU model's
 * speed, and the metrics (docs/sched.md has every formula). Deterministic: integer
 * resources and fragmentation, a seeded generator, ties to the lowest index.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/internal.h"
#include "sched/sched.h"

void sched_config_default(struct sched_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nodes_count = 32;
	c->seed = 1;
	c->load = 0.7;
	c->max_gap = 3600.0;
	c->tau = 10.0;
	c->series = 100;
}

void sched_result_free(struct sched_result *r)
{
	free(r->series_t);
	free(r->series_alloc);
	free(r->series_frag);
	r->series_t = r->series_alloc = r->series_frag = NULL;
}

double sched_jain(const double *x, size_t n)
{
	double s = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return n == 0 || s2 == 0 ? 1.0 : s * s / ((double)n * s2);
}

/* One replayed pod. */
struct job {
	const struct sched_pod *pod;
	int cls;
	double dref;    /* trace duration (s), on a speed-1.0 GPU */
	double arrival; /* after compression */
	double start, finish;
	uint32_t node, gpu_mask;
};

struct heap {
	double *t;
	uint32_t *j;
	size_t n;
};

static int heap_less(const struct heap *h, size_t a, size_t b)
{
	return h->t[a] < h->t[b] || (h->t[a] == h->t[b] && h->j[a] < h->j[b]);
}

static void heap_swap(struct heap *h, size_t a, size_t b)
{
	double t = h->t[a];
	uint32_t j = h->j[a];
	h->t[a] = h->t[b];
	h->j[a] = h->j[b];
	h->t[b] = t;
	h->j[b] = j;
}

static void heap_push(struct heap *h, double t, uint32_t j)
{
	size_t i = h->n++;
	h->t[i] = t;
	h->j[i] = j;
	while (i > 0 && heap_less(h, i, (i - 1) / 2)) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct heap *h)
{
	h->n--;
	h->t[0] = h->t[h->n];
	h->j[0] = h->j[h->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && heap_less(h, l, m))
			m = l;
		if (r < h->n && heap_less(h, r, m))
			m = r;
		if (m == i)
			break;
		heap_swap(h, i, m);
		i = m;
	}
}

/* The GPU load offered in the arrival window by compression factor c (docs/sched.md). */
static double offered_load(const struct job *jobs, const double *A, size_t n, double c, double cap)
{
	double alast = A[n - 1], work = 0;
	for (size_t i = 0; i < n; i++) {
		double g = (double)jobs[i].pod->ngpu * jobs[i].pod->milli / SCHED_MILLI;
		double left = c * (alast - A[i]);
		work += g * (jobs[i].dref < left ? jobs[i].dref : left);
	}
	return work / (cap * c * alast);
}

static int compress(struct job *jobs, size_t n, const struct sched_config *cfg, double cap,
		    struct sched_result *r, char *err, size_t errlen)
{
	double *A = malloc(n * sizeof(*A));
	if (!A)
		return sched_fail(err, errlen, "out of memory");
	A[0] = 0;
	for (size_t i = 1; i < n; i++) {
		double gap = (double)(jobs[i].pod->creation - jobs[i - 1].pod->creation);
		if (cfg->max_gap > 0 && gap > cfg->max_gap)
			gap = cfg->max_gap;
		A[i] = A[i - 1] + gap;
	}
	int rc = 0;
	double lmax = 0;
	if (n < 2 || A[n - 1] <= 0) {
		rc = sched_fail(err, errlen,
				"the pods' arrivals span no time: no load to compress to");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		lmax += (double)jobs[i].pod->ngpu * jobs[i].pod->milli / SCHED_MILLI *
			(A[n - 1] - A[i]);
	lmax /= cap * A[n - 1];
	if (!(cfg->load < lmax)) {
		rc = sched_fail(
		    err, errlen,
		    "load %.3g is out of reach: these pods offer at most %.3g on this cluster",
		    cfg->load, lmax);
		goto out;
	}
	/* offered_load falls as c grows: bracket, then bisect in log space. */
	double lo = 1.0, hi = 1.0;
	for (int k = 0; offered_load(jobs, A, n, lo, cap) < cfg->load; k++) {
		if (k == 200) {
			rc = sched_fail(err, errlen, "load %.3g: no compression reaches it",
					cfg->load);
			goto out;
		}
		lo /= 2;
	}
	for (int k = 0; offered_load(jobs, A, n, hi, cap) > cfg->load; k++) {
		if (k == 200) {
			rc = sched_fail(err, errlen, "load %.3g: no stretch reaches it", cfg->load);
			goto out;
		}
		hi *= 2;
	}
	for (int k = 0; k < 100; k++) {
		double mid = sqrt(lo * hi);
		if (offered_load(jobs, A, n, mid, cap) > cfg->load)
			lo = mid;
		else
			hi = mid;
	}
	r->compress = sqrt(lo * hi);
	r->offered = offered_load(jobs, A, n, r->compress, cap);
	r->window = r->compress * A[n - 1];
	for (size_t i = 0; i < n; i++)
		jobs[i].arrival = r->compress * A[i];
out:
	free(A);
	return rc;
}

/* The replay's whole state. */
struct sim {
	const struct sched_config *cfg;
	struct sched_policy *policy;
	struct sched_cluster cl;
	struct sched_node *nodes;
	struct sched_nstate *state;
	int64_t *nfrag; /* sched_frag_node of each node, kept current */
	int64_t frag_sum;
	struct sched_class *classes;
	size_t nclasses;
	struct job *jobs;
	size_t njobs;
	struct sched_cand *cand;
	uint8_t *feasible;
	float *features;
	int64_t total_count; /* pods in the classes */
	size_t *failed_scan; /* per class: the scan it last failed in */
	size_t scan;
	size_t decisions;
};

static int class_of(struct sim *s, const struct sched_pod *p)
{
	for (size_t i = 0; i < s->nclasses; i++) {
		const struct sched_class *c = &s->classes[i];
		if (c->cpu == p->cpu && c->mem == p->mem && c->ngpu == p->ngpu &&
		    c->milli == p->milli && c->spec == p->spec)
			return (int)i;
	}
	struct sched_class *c = &s->classes[s->nclasses];
	memset(c, 0, sizeof(*c));
	c->cpu = p->cpu;
	c->mem = p->mem;
	c->ngpu = p->ngpu;
	c->milli = p->milli;
	c->spec = p->spec;
	return (int)s->nclasses++;
}

/* The GPUs a multi-GPU (or whole-GPU) pod takes on a node: those with the least free
 * that fit, lowest index first among equals. */
static uint32_t pick_gpus(const struct sched_node *n, const struct sched_nstate *st,
			  const struct sched_pod *p)
{
	uint32_t mask = 0;
	for (int k = 0; k < p->ngpu; k++) {
		int best = -1;
		for (int g = 0; g < n->ngpu; g++)
			if (!(mask & (1u << g)) && st->gpu_free[g] >= p->milli &&
			    (best < 0 || st->gpu_free[g] < st->gpu_free[best]))
				best = g;
		mask |= 1u << best;
	}
	return mask;
}

static void apply(struct sched_nstate *st, const struct sched_pod *p, uint32_t mask, int sign)
{
	st->cpu_free -= sign * p->cpu;
	st->mem_free -= sign * p->mem;
	for (int g = 0; g < SCHED_MAX_GPUS; g++)
		if (mask & (1u << g))
			st->gpu_free[g] -= sign * p->milli;
}

size_t sched_candidates(const struct sched_cluster *cl, const struct sched_pod *p,
			struct sched_cand *cand, uint8_t *feasible_out, size_t *count)
{
	size_t n = 0, feasible = 0;
	for (uint32_t i = 0; i < cl->count; i++) {
		const struct sched_node *nd = &cl->nodes[i];
		const struct sched_nstate *st = &cl->state[i];
		if (!sched_fits(nd, st, p->cpu, p->mem, p->ngpu, p->milli, p->spec)) {
			cand[n] = (struct sched_cand){i, 0, 0};
			feasible_out[n++] = 0;
			continue;
		}
		if (p->ngpu == 1 && p->milli < SCHED_MILLI) {
			/* One candidate per distinct free share: equal GPUs are one choice. */
			for (int g = 0; g < nd->ngpu; g++) {
				int dup = st->gpu_free[g] < p->milli;
				for (int h = 0; h < g && !dup; h++)
					dup = st->gpu_free[h] == st->gpu_free[g];
				if (dup)
					continue;
				cand[n] = (struct sched_cand){i, 1u << g, 0};
				feasible_out[n++] = 1;
				feasible++;
			}
		} else {
			cand[n] = (struct sched_cand){i, p->ngpu ? pick_gpus(nd, st, p) : 0, 0};
			feasible_out[n++] = 1;
			feasible++;
		}
	}
	*count = n;
	return feasible;
}

void sched_dfrag(const struct sched_cluster *cl, const struct sched_pod *p,
		 const struct sched_class *classes, size_t nclasses, const int64_t *nfrag,
		 struct sched_cand *cand, const uint8_t *feasible, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (!feasible[i])
			continue;
		struct sched_cand *c = &cand[i];
		const struct sched_node *n = &cl->nodes[c->node];
		struct sched_nstate after = cl->state[c->node];
		apply(&after, p, c->gpu_mask, 1);
		int64_t before = nfrag ? nfrag[c->node]
				       : sched_frag_node(n, &cl->state[c->node], classes, nclasses);
		c->dfrag = sched_frag_node(n, &after, classes, nclasses) - before;
	}
}

static float clamp01(double x)
{
	return (float)(x < 0 ? 0 : x > 1 ? 1 : x);
}

void sched_features(const struct sched_cluster *cl, const struct sched_pod *p, double waited,
		    int64_t workload, const struct sched_cand *cand, size_t count, float *features)
{
	for (size_t i = 0; i < count; i++) {
		const struct sched_cand *c = &cand[i];
		const struct sched_node *n = &cl->nodes[c->node];
		const struct sched_nstate *st = &cl->state[c->node];
		float *f = &features[i * SCHED_FEATURES];
		double gcap = (double)(n->ngpu ? n->ngpu : 1) * SCHED_MILLI;
		int64_t gfree = 0, tfree = 0;
		for (int g = 0; g < n->ngpu; g++) {
			gfree += st->gpu_free[g];
			if (c->gpu_mask & (1u << g))
				tfree += st->gpu_free[g] - p->milli;
		}
		int ntaken = __builtin_popcount(c->gpu_mask);
		f[SCHED_F_CPU_FREE] = clamp01((double)st->cpu_free / n->cpu);
		f[SCHED_F_MEM_FREE] = clamp01((double)st->mem_free / (double)n->mem);
		f[SCHED_F_GPU_FREE] = clamp01((double)gfree / gcap);
		f[SCHED_F_NODE_GPUS] = clamp01((double)n->ngpu / SCHED_MAX_GPUS);
		f[SCHED_F_SPEED] = clamp01(n->ngpu ? cl->models->speed[n->model] / 2.0 : 0);
		f[SCHED_F_REQ_CPU] = clamp01((double)p->cpu / n->cpu);
		f[SCHED_F_REQ_MEM] = clamp01((double)p->mem / (double)n->mem);
		f[SCHED_F_REQ_GPU] = clamp01((double)p->ngpu * p->milli / gcap);
		f[SCHED_F_CPU_AFTER] = clamp01((double)(st->cpu_free - p->cpu) / n->cpu);
		f[SCHED_F_MEM_AFTER] = clamp01((double)(st->mem_free - p->mem) / (double)n->mem);
		f[SCHED_F_GPU_AFTER] =
		    clamp01((double)(gfree - (int64_t)p->ngpu * p->milli) / gcap);
		f[SCHED_F_TAKEN_FREE_AFTER] =
		    clamp01(ntaken ? (double)tfree / ((double)ntaken * SCHED_MILLI) : 0);
		/* dfrag over the class count is milli-GPUs, within +-(node capacity). */
		f[SCHED_F_DFRAG] =
		    clamp01(0.5 + (double)c->dfrag / ((double)workload * 2.0 * gcap));
		f[SCHED_F_QOS_LS] = p->qos == SCHED_QOS_LS || p->qos == SCHED_QOS_GUARANTEED;
		f[SCHED_F_QOS_BE] = p->qos == SCHED_QOS_BE;
		f[SCHED_F_WAIT] = clamp01(log1p(waited) / log1p(86400.0));
		f[SCHED_F_CLUSTER_ALLOC] = clamp01(
		    cl->gpu_milli_total ? (double)cl->gpu_milli_alloc / (double)cl->gpu_milli_total
					: 0);
	}
}

void sched_features_int8(const float *f, size_t n, int8_t *q)
{
	for (size_t i = 0; i < n; i++) {
		/* rint: round half to even in the default rounding mode, as docs/mlp.md's rne. */
		double v = rint((double)f[i] * 127.0);
		q[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
	}
}

static void place(struct sim *s, uint32_t j, const struct sched_cand *c, double now, struct heap *h)
{
	struct job *jb = &s->jobs[j];
	const struct sched_node *n = &s->nodes[c->node];
	apply(&s->state[c->node], jb->pod, c->gpu_mask, 1);
	s->cl.gpu_milli_alloc += (int64_t)jb->pod->ngpu * jb->pod->milli;
	int64_t f = sched_frag_node(n, &s->state[c->node], s->classes, s->nclasses);
	s->frag_sum += f - s->nfrag[c->node];
	s->nfrag[c->node] = f;
	jb->node = c->node;
	jb->gpu_mask = c->gpu_mask;
	jb->start = now;
	double speed = jb->pod->ngpu ? s->cl.models->speed[n->model] : 1.0;
	jb->finish = now + jb->dref / speed;
	heap_push(h, jb->finish, j);
}

static void release(struct sim *s, uint32_t j)
{
	struct job *jb = &s->jobs[j];
	const struct sched_node *n = &s->nodes[jb->node];
	apply(&s->state[jb->node], jb->pod, jb->gpu_mask, -1);
	s->cl.gpu_milli_alloc -= (int64_t)jb->pod->ngpu * jb->pod->milli;
	int64_t f = sched_frag_node(n, &s->state[jb->node], s->classes, s->nclasses);
	s->frag_sum += f - s->nfrag[jb->node];
	s->nfrag[jb->node] = f;
}

/* Tries pod j now: 1 placed, 0 left queued, -1 the policy chose an infeasible one. */
static int try_place(struct sim *s, uint32_t j, double now, struct heap *h)
{
	struct job *jb = &s->jobs[j];
	if (s->failed_scan[jb->cls] == s->scan)
		return 0; /* the same requests found no room in this scan */
	size_t count;
	if (!sched_candidates(&s->cl, jb->pod, s->cand, s->feasible, &count)) {
		s->failed_scan[jb->cls] = s->scan;
		return 0;
	}
	if (s->policy->needs & (SCHED_NEED_DFRAG | SCHED_NEED_FEATURES))
		sched_dfrag(&s->cl, jb->pod, s->classes, s->nclasses, s->nfrag, s->cand,
			    s->feasible, count);
	if (s->policy->needs & SCHED_NEED_FEATURES)
		sched_features(&s->cl, jb->pod, now - jb->arrival, s->total_count, s->cand, count,
			       s->features);
	struct sched_decision d = {
	    &s->cl,      jb->pod,
	    now,         now - jb->arrival,
	    count,       s->cand,
	    s->feasible, (s->policy->needs & SCHED_NEED_FEATURES) ? s->features : NULL};
	int k = s->policy->choose(s->policy, &d);
	s->decisions++;
	if (k < 0)
		return 0;
	if ((size_t)k >= count || !s->feasible[k])
		return -1;
	place(s, j, &s->cand[k], now, h);
	return 1;
}

static int by_creation(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->pod->creation != y->pod->creation)
		return x->pod->creation < y->pod->creation ? -1 : 1;
	return x->pod < y->pod ? -1 : x->pod > y->pod;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int run(struct sim *s, struct sched_result *r, char *err, size_t errlen)
{
	const struct sched_config *cfg = s->cfg;
	size_t n = s->njobs;
	struct heap h = {malloc(n * sizeof(double)), malloc(n * sizeof(uint32_t)), 0};
	uint32_t *queue[SCHED_QOS_COUNT];
	size_t qlen[SCHED_QOS_COUNT] = {0};
	int rc = 0;
	for (int q = 0; q < SCHED_QOS_COUNT; q++)
		queue[q] = malloc(n * sizeof(uint32_t));
	size_t ns = cfg->series < 2 ? 2 : cfg->series;
	r->series_t = calloc(ns, sizeof(double));
	r->series_alloc = calloc(ns, sizeof(double));
	r->series_frag = calloc(ns, sizeof(double));
	if (!h.t || !h.j || !queue[0] || !queue[1] || !queue[2] || !queue[3] || !r->series_t ||
	    !r->series_alloc || !r->series_frag) {
		rc = sched_fail(err, errlen, "out of memory");
		goto out;
	}
	r->nseries = ns;
	for (size_t k = 0; k < ns; k++)
		r->series_t[k] = r->window * (double)k / (double)(ns - 1);
	double gpus = (double)s->cl.gpu_milli_total / SCHED_MILLI;
	double total_count = 0;
	for (size_t i = 0; i < s->nclasses; i++)
		total_count += (double)s->classes[i].count;
	double t_prev = 0, int_alloc = 0, int_frag = 0, int_idle = 0;
	size_t next = 0, done = 0, sk = 0;
	while (done < n) {
		/* The next event: an arrival or a completion, completions first at equal times. */
		double t = INFINITY;
		if (next < n)
			t = s->jobs[next].arrival;
		if (h.n && h.t[0] <= t)
			t = h.t[0];
		if (t == INFINITY) {
			rc = sched_fail(err, errlen,
					"%zu pods queued with nothing running: cannot happen",
					n - done);
			goto out;
		}
		/* Integrate the state held since t_prev over the arrival window, and sample it. */
		double alloc = (double)s->cl.gpu_milli_alloc / (double)s->cl.gpu_milli_total;
		double fragg = gpus ? (double)s->frag_sum / total_count / SCHED_MILLI / gpus : 0;
		double idle = 1.0 - alloc;
		double hi = t < r->window ? t : r->window;
		if (hi > t_prev) {
			int_alloc += alloc * (hi - t_prev);
			int_frag += fragg * (hi - t_prev);
			int_idle += idle * (hi - t_prev);
		}
		while (sk < ns && r->series_t[sk] < t) {
			r->series_alloc[sk] = alloc;
			r->series_frag[sk] = fragg;
			sk++;
		}
		t_prev = t;
		while (h.n && h.t[0] == t) {
			release(s, h.j[0]);
			heap_pop(&h);
			done++;
			if (cfg->progress && done % 256 == 0)
				cfg->progress(cfg->progress_arg, done, n);
		}
		while (next < n && s->jobs[next].arrival == t) {
			int q = cfg->qos_priority ? s->jobs[next].pod->qos : 0;
			queue[q][qlen[q]++] = (uint32_t)next;
			next++;
		}
		/* One pass over the queue in order, placing every pod that fits now. */
		s->scan++;
		for (int q = 0; q < SCHED_QOS_COUNT; q++) {
			size_t w = 0;
			for (size_t i = 0; i < qlen[q]; i++) {
				int pr = try_place(s, queue[q][i], t, &h);
				if (pr < 0) {
					rc = sched_fail(err, errlen,
							"policy %s chose an infeasible candidate",
							s->policy->name);
					goto out;
				}
				if (pr == 0)
					queue[q][w++] = queue[q][i];
			}
			qlen[q] = w;
		}
	}
	for (; sk < ns; sk++) { /* samples at the last event's time: the state after it */
		r->series_alloc[sk] = (double)s->cl.gpu_milli_alloc / (double)s->cl.gpu_milli_total;
		r->series_frag[sk] =
		    gpus ? (double)s->frag_sum / total_count / SCHED_MILLI / gpus : 0;
	}
	r->makespan = t_prev;
	r->alloc = int_alloc / r->window;
	r->frag = int_frag / r->window;
	r->frag_idle = int_idle > 0 ? int_frag / int_idle : 0;
	r->decisions = s->decisions;
	/* Per-pod metrics. */
	double *jct = malloc(n * sizeof(double));
	if (!jct) {
		rc = sched_fail(err, errlen, "out of memory");
		goto out;
	}
	double sj = 0, sw = 0, sb = 0;
	double qb[SCHED_QOS_COUNT] = {0};
	for (size_t i = 0; i < n; i++) {
		const struct job *jb = &s->jobs[i];
		double runt = jb->finish - jb->start;
		jct[i] = jb->finish - jb->arrival;
		double b = jct[i] / (runt > cfg->tau ? runt : cfg->tau);
		if (b < 1)
			b = 1;
		sj += jct[i];
		sw += jb->start - jb->arrival;
		sb += b;
		qb[jb->pod->qos] += b;
		r->qos_pods[jb->pod->qos]++;
	}
	qsort(jct, n, sizeof(double), cmp_double);
	r->avg_jct = sj / (double)n;
	r->p95_jct = jct[(size_t)ceil(0.95 * (double)n) - 1];
	r->avg_wait = sw / (double)n;
	r->avg_bsld = sb / (double)n;
	double x[SCHED_QOS_COUNT];
	size_t nx = 0;
	for (int q = 0; q < SCHED_QOS_COUNT; q++)
		if (r->qos_pods[q]) {
			r->qos_bsld[q] = qb[q] / (double)r->qos_pods[q];
			x[nx++] = r->qos_bsld[q];
		}
	r->jain = sched_jain(x, nx);
	free(jct);
out:
	free(h.t);
	free(h.j);
	for (int q = 0; q < SCHED_QOS_COUNT; q++)
		free(queue[q]);
	return rc;
}

int sched_replay(const struct sched_pod *pods, size_t npods, const struct sched_node *nodes,
		 size_t nnodes, const struct sched_models *m, const struct sched_config *cfg,
		 struct sched_policy *p, struct sched_result *r, char *err, size_t errlen)
{
	struct sim s;
	memset(&s, 0, sizeof(s));
	memset(r, 0, sizeof(*r));
	s.cfg = cfg;
	s.policy = p;
	int rc = -1;
	if (!(cfg->load > 0) || !(cfg->tau > 0) || cfg->max_gap < 0 || nnodes == 0 || npods == 0)
		return sched_fail(err, errlen,
				  "bad replay configuration (load, tau, gap, nodes, pods)");
	/* The cluster: nodes_count of the list, drawn without replacement, in list order. */
	size_t nc = cfg->nodes_count && cfg->nodes_count < nnodes ? cfg->nodes_count : nnodes;
	size_t *idx = malloc(nnodes * sizeof(size_t));
	s.nodes = malloc(nc * sizeof(*s.nodes));
	s.state = calloc(nc, sizeof(*s.state));
	s.nfrag = calloc(nc, sizeof(*s.nfrag));
	s.cand = malloc(nc * SCHED_MAX_GPUS * sizeof(*s.cand));
	s.feasible = malloc(nc * SCHED_MAX_GPUS);
	s.features = malloc(nc * SCHED_MAX_GPUS * SCHED_FEATURES * sizeof(float));
	s.jobs = calloc(npods, sizeof(*s.jobs));
	s.classes = calloc(npods, sizeof(*s.classes));
	s.failed_scan = calloc(npods, sizeof(size_t));
	if (!idx || !s.nodes || !s.state || !s.nfrag || !s.cand || !s.feasible || !s.features ||
	    !s.jobs || !s.classes || !s.failed_scan) {
		sched_fail(err, errlen, "out of memory");
		goto out;
	}
	uint64_t rng = cfg->seed ^ 0x5c4ed5eed0000001ull;
	for (size_t i = 0; i < nnodes; i++)
		idx[i] = i;
	for (size_t i = 0; i < nc; i++) {
		size_t k = i + (size_t)(sched_splitmix(&rng) % (nnodes - i));
		size_t t = idx[i];
		idx[i] = idx[k];
		idx[k] = t;
	}
	/* Back to list order: first-fit's "first" is the file's. */
	for (size_t i = 1; i < nc; i++)
		for (size_t k = i; k > 0 && idx[k - 1] > idx[k]; k--) {
			size_t t = idx[k];
			idx[k] = idx[k - 1];
			idx[k - 1] = t;
		}
	s.cl.nodes = s.nodes;
	s.cl.state = s.state;
	s.cl.count = nc;
	s.cl.models = m;
	double cap = 0;
	for (size_t i = 0; i < nc; i++) {
		const struct sched_node *nd = &nodes[idx[i]];
		s.nodes[i] = *nd;
		s.state[i].cpu_free = nd->cpu;
		s.state[i].mem_free = nd->mem;
		for (int g = 0; g < nd->ngpu; g++)
			s.state[i].gpu_free[g] = SCHED_MILLI;
		s.cl.gpu_milli_total += (int64_t)nd->ngpu * SCHED_MILLI;
		if (nd->cpu > s.cl.cpu_max)
			s.cl.cpu_max = nd->cpu;
		if (nd->mem > s.cl.mem_max)
			s.cl.mem_max = nd->mem;
		if (nd->ngpu > s.cl.gpu_max)
			s.cl.gpu_max = nd->ngpu;
		if (nd->ngpu)
			cap += nd->ngpu * m->speed[nd->model];
		r->gpus += (size_t)nd->ngpu;
	}
	r->nodes = nc;
	if (cap <= 0) {
		sched_fail(err, errlen, "the sampled cluster has no GPU: no GPU load to aim at");
		goto out;
	}
	/* The pods replayed: scheduled in the trace, and able to run on some empty node. */
	for (size_t i = 0; i < npods; i++) {
		const struct sched_pod *pd = &pods[i];
		if (pd->scheduled < 0) {
			r->never_scheduled++;
			continue;
		}
		int ok = 0;
		for (size_t k = 0; k < nc && !ok; k++) {
			struct sched_nstate empty = {s.nodes[k].cpu, s.nodes[k].mem, {0}};
			for (int g = 0; g < s.nodes[k].ngpu; g++)
				empty.gpu_free[g] = SCHED_MILLI;
			ok = sched_fits(&s.nodes[k], &empty, pd->cpu, pd->mem, pd->ngpu, pd->milli,
					pd->spec);
		}
		if (!ok) {
			r->unplaceable++;
			continue;
		}
		s.jobs[s.njobs].pod = pd;
		s.jobs[s.njobs].dref = (double)(pd->deletion - pd->scheduled);
		s.njobs++;
	}
	r->pods = s.njobs;
	if (s.njobs < 2) {
		sched_fail(err, errlen, "%zu pods to replay (%zu never scheduled, %zu fit no node)",
			   s.njobs, r->never_scheduled, r->unplaceable);
		goto out;
	}
	qsort(s.jobs, s.njobs, sizeof(*s.jobs), by_creation);
	/* The target workload of FGD: the classes of the replayed pods, by count. */
	for (size_t i = 0; i < s.njobs; i++) {
		s.jobs[i].cls = class_of(&s, s.jobs[i].pod);
		s.classes[s.jobs[i].cls].count++;
	}
	s.total_count = (int64_t)s.njobs;
	for (size_t i = 0; i < s.njobs; i++)
		s.failed_scan[i] = (size_t)-1;
	for (size_t i = 0; i < nc; i++) {
		s.nfrag[i] = sched_frag_node(&s.nodes[i], &s.state[i], s.classes, s.nclasses);
		s.frag_sum += s.nfrag[i];
	}
	if (compress(s.jobs, s.njobs, cfg, cap, r, err, errlen))
		goto out;
	p->rng = cfg->seed ^ 0x7a11d0c0ffee0001ull;
	rc = run(&s, r, err, errlen);
	if (rc)
		sched_result_free(r);
out:
	free(idx);
	free(s.nodes);
	free(s.state);
	free(s.nfrag);
	free(s.cand);
	free(s.feasible);
	free(s.features);
	free(s.jobs);
	free(s.classes);
	free(s.failed_scan);
	return rc;
}
