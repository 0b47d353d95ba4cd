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
	uint32_t draw; /* its place in the drawn workload: ties of creation time in draw order */
	int started;
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

/* What the state held between two events adds to the run's integrals, over [lo, hi]; and
 * the time series' samples before t. */
struct acct {
	double lo, hi;
	double alloc, frag, idle; /* integrals of the shares */
	double *series_t, *series_alloc, *series_frag;
	size_t ns, sk;
};

/*
 * Fragmentation memo. F_n(M) depends on the node only through its GPU count, model and
 * free resources, and FGD's change for a pod also on the pod's class and the GPU taken:
 * a table keyed by exactly those (the whole key compared, so a hit is the value the
 * computation would give) spares recomputing them for nodes alike (a cluster of 1,213
 * nodes has a few dozen kinds, and most nodes' state repeats). Cleared when full.
 */
#define FMEMO_BITS 18
#define FMEMO_NODE 0xffffu /* cls of a node's F_n(M) itself */
struct fmemo_key {
	struct sched_nstate st;
	int32_t ngpu, model;
	uint32_t cls, gpu; /* gpu: the GPU a share takes, else 0xff */
};
struct fmemo_slot {
	struct fmemo_key k;
	int64_t v;
	uint8_t used;
};
struct fmemo {
	struct fmemo_slot *slot;
	size_t used;
};

static uint64_t fmemo_hash(const struct fmemo_key *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ull * (1 + k->cls) ^ (uint64_t)k->gpu << 40;
	h ^= (uint64_t)k->ngpu << 48 ^ (uint64_t)(uint32_t)k->model << 52;
	h ^= (uint64_t)(uint32_t)k->st.cpu_free * 0xbf58476d1ce4e5b9ull;
	h ^= (uint64_t)k->st.mem_free * 0x94d049bb133111ebull;
	for (int g = 0; g < SCHED_MAX_GPUS; g++)
		h = (h ^ (uint64_t)(uint32_t)k->st.gpu_free[g]) * 0x100000001b3ull;
	return h ^ h >> 29;
}

/* The slot of k: its value when *hit, else where to store it. */
static struct fmemo_slot *fmemo_find(struct fmemo *m, const struct fmemo_key *k, int *hit)
{
	size_t mask = ((size_t)1 << FMEMO_BITS) - 1;
	if (m->used > mask / 4 * 3) { /* full enough: start again */
		memset(m->slot, 0, ((size_t)1 << FMEMO_BITS) * sizeof(*m->slot));
		m->used = 0;
	}
	for (size_t i = fmemo_hash(k) & mask;; i = (i + 1) & mask) {
		struct fmemo_slot *sl = &m->slot[i];
		if (!sl->used) {
			*hit = 0;
			return sl;
		}
		if (memcmp(&sl->k, k, sizeof(*k)) == 0) {
			*hit = 1;
			return sl;
		}
	}
}

static void fmemo_key_of(struct fmemo_key *k, const struct sched_node *n,
			 const struct sched_nstate *st, uint32_t cls, uint32_t gpu)
{
	memset(k, 0, sizeof(*k)); /* padding too: keys are compared whole */
	k->st = *st;
	k->ngpu = n->ngpu;
	k->model = n->model;
	k->cls = cls;
	k->gpu = gpu;
}

/* The replay's whole state; a rollout works on a copy (sim_copy). */
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
	/* Per class: how long the release log was when its requests last fitted no node, or
	 * (size_t)-1. Placements only take room, so until a node in the log after that point
	 * is checked, the class cannot fit anywhere but there. */
	size_t *failed_at;
	uint32_t *released; /* nodes in the order pods left them */
	size_t nreleased;
	struct fmemo *memo; /* shared with the rollouts' copy */
	size_t decisions;
	struct heap h; /* running pods by finish time */
	uint32_t *queue[SCHED_QOS_COUNT];
	size_t qlen[SCHED_QOS_COUNT];
	size_t next, done; /* the next arrival; pods finished */
	double t_prev;     /* the last event's time */
	int pass_q;        /* the pass under way: queue, position, pods kept so far */
	size_t pass_i, pass_w;
	int rollout; /* a rollout's copy: no progress, no labels */
	/* Labelling (cfg->label): the rollouts' copy and its base policy, per candidate. */
	struct sim *roll;
	struct sched_policy base;
	struct sched_rollout *ro;
	uint8_t *pick;
	uint32_t *horizon;
	uint64_t label_rng;
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
		/* dfrag over the class count is milli-GPUs, within +-(node capacity): r in
		 * [-1, 1], half of it within +-0.02, so a signed log spreads it over the
		 * int8 steps of the network's input (same order: FGD's choice unchanged). */
		double r = (double)c->dfrag / ((double)workload * gcap);
		double lg = log1p(fabs(r) * 1e4) / log1p(1e4);
		f[SCHED_F_DFRAG] = clamp01(0.5 + 0.5 * (r < 0 ? -lg : lg));
		f[SCHED_F_QOS_LS] = p->qos == SCHED_QOS_LS || p->qos == SCHED_QOS_GUARANTEED;
		f[SCHED_F_QOS_BE] = p->qos == SCHED_QOS_BE;
		f[SCHED_F_WAIT] = clamp01(log1p(waited) / log1p(86400.0));
		f[SCHED_F_CLUSTER_ALLOC] = clamp01(
		    cl->gpu_milli_total ? (double)cl->gpu_milli_alloc / (double)cl->gpu_milli_total
					: 0);
	}
}

/* The memo's value of k into *v: 1, or 0 when it holds none. */
static int fmemo_get(struct fmemo *m, const struct fmemo_key *k, int64_t *v)
{
	int hit;
	struct fmemo_slot *sl = fmemo_find(m, k, &hit);
	if (hit)
		*v = sl->v;
	return hit;
}

static void fmemo_put(struct fmemo *m, const struct fmemo_key *k, int64_t v)
{
	int hit;
	struct fmemo_slot *sl = fmemo_find(m, k, &hit);
	sl->k = *k;
	sl->v = v;
	if (!hit) {
		sl->used = 1;
		m->used++;
	}
}

/* sched_frag_node of node i in state st, through the memo. */
static int64_t node_frag(struct sim *s, uint32_t i, const struct sched_nstate *st)
{
	struct fmemo_key k;
	int64_t v;
	fmemo_key_of(&k, &s->nodes[i], st, FMEMO_NODE, 0xff);
	if (!fmemo_get(s->memo, &k, &v)) {
		v = sched_frag_node(&s->nodes[i], st, s->classes, s->nclasses);
		fmemo_put(s->memo, &k, v);
	}
	return v;
}

/* sched_dfrag of pod j's candidates through the memo (the same values). */
static void memo_dfrag(struct sim *s, const struct job *jb, size_t count)
{
	int share = jb->pod->ngpu == 1 && jb->pod->milli < SCHED_MILLI;
	for (size_t i = 0; i < count; i++) {
		if (!s->feasible[i])
			continue;
		struct sched_cand *c = &s->cand[i];
		const struct sched_nstate *st = &s->state[c->node];
		struct fmemo_key k;
		fmemo_key_of(&k, &s->nodes[c->node], st, (uint32_t)jb->cls,
			     share ? (uint32_t)__builtin_ctz(c->gpu_mask) : 0xff);
		if (!fmemo_get(s->memo, &k, &c->dfrag)) {
			struct sched_nstate after = *st;
			apply(&after, jb->pod, c->gpu_mask, 1);
			c->dfrag = node_frag(s, c->node, &after) - s->nfrag[c->node];
			fmemo_put(s->memo, &k, c->dfrag);
		}
	}
}

static void place(struct sim *s, uint32_t j, const struct sched_cand *c, double now)
{
	struct job *jb = &s->jobs[j];
	const struct sched_node *n = &s->nodes[c->node];
	apply(&s->state[c->node], jb->pod, c->gpu_mask, 1);
	s->cl.gpu_milli_alloc += (int64_t)jb->pod->ngpu * jb->pod->milli;
	int64_t f = node_frag(s, c->node, &s->state[c->node]);
	s->frag_sum += f - s->nfrag[c->node];
	s->nfrag[c->node] = f;
	jb->node = c->node;
	jb->gpu_mask = c->gpu_mask;
	jb->start = now;
	jb->started = 1;
	double speed = jb->pod->ngpu ? s->cl.models->speed[n->model] : 1.0;
	jb->finish = now + jb->dref / speed;
	heap_push(&s->h, jb->finish, j);
}

static void release(struct sim *s, uint32_t j)
{
	struct job *jb = &s->jobs[j];
	apply(&s->state[jb->node], jb->pod, jb->gpu_mask, -1);
	s->cl.gpu_milli_alloc -= (int64_t)jb->pod->ngpu * jb->pod->milli;
	int64_t f = node_frag(s, jb->node, &s->state[jb->node]);
	s->frag_sum += f - s->nfrag[jb->node];
	s->nfrag[jb->node] = f;
	s->released[s->nreleased++] = jb->node;
}

/* The fragmented share of the cluster's GPUs now. */
static double frag_share(const struct sim *s)
{
	double gpus = (double)s->cl.gpu_milli_total / SCHED_MILLI;
	return gpus ? (double)s->frag_sum / (double)s->total_count / SCHED_MILLI / gpus : 0;
}

static void account(struct sim *s, struct acct *a, double t)
{
	double alloc = (double)s->cl.gpu_milli_alloc / (double)s->cl.gpu_milli_total;
	double fragg = frag_share(s);
	double lo = s->t_prev > a->lo ? s->t_prev : a->lo;
	double hi = t < a->hi ? t : a->hi;
	if (hi > lo) {
		a->alloc += alloc * (hi - lo);
		a->frag += fragg * (hi - lo);
		a->idle += (1.0 - alloc) * (hi - lo);
	}
	while (a->sk < a->ns && a->series_t[a->sk] < t) {
		a->series_alloc[a->sk] = alloc;
		a->series_frag[a->sk] = fragg;
		a->sk++;
	}
}

static int pass(struct sim *s, double t, char *err, size_t errlen);
static int advance(struct sim *s, double t_stop, struct acct *a, char *err, size_t errlen);

/* s's state copied into d, with pod j out of the queue (it is being placed). */
static void sim_copy(struct sim *d, const struct sim *s, uint32_t j)
{
	size_t nc = s->cl.count;
	memcpy(d->state, s->state, nc * sizeof(*s->state));
	memcpy(d->nfrag, s->nfrag, nc * sizeof(*s->nfrag));
	memcpy(d->jobs, s->jobs, s->njobs * sizeof(*s->jobs));
	/* The copy's release log starts empty: a class that failed after the last release
	 * fails there until a release; one that failed before it is tried afresh. */
	for (size_t c = 0; c < s->nclasses; c++)
		d->failed_at[c] = s->failed_at[c] == s->nreleased ? 0 : (size_t)-1;
	d->nreleased = 0;
	memcpy(d->h.t, s->h.t, s->h.n * sizeof(*s->h.t));
	memcpy(d->h.j, s->h.j, s->h.n * sizeof(*s->h.j));
	d->h.n = s->h.n;
	d->frag_sum = s->frag_sum;
	d->cl.gpu_milli_alloc = s->cl.gpu_milli_alloc;
	d->next = s->next;
	d->done = s->done;
	d->t_prev = s->t_prev;
	/* The queues as they stand mid-pass: before pass_q compacted, pass_q kept so far and
	 * not yet visited, after it untouched. */
	for (int q = 0; q < SCHED_QOS_COUNT; q++) {
		size_t n = 0;
		for (size_t i = 0; i < s->qlen[q]; i++) {
			int in = q != s->pass_q || i < s->pass_w || i >= s->pass_i;
			if (in && s->queue[q][i] != j)
				d->queue[q][n++] = s->queue[q][i];
		}
		d->qlen[q] = n;
	}
}

/* Rolls out candidate c of pod j's decision on s->roll with FGD to t_end; scores the
 * horizon's pods (s->horizon[0..nh)). */
static int rollout(struct sim *s, uint32_t j, const struct sched_cand *c, double now, double t_end,
		   size_t nh, struct sched_rollout *ro, char *err, size_t errlen)
{
	struct sim *d = s->roll;
	sim_copy(d, s, j);
	place(d, j, c, now);
	struct acct a = {now, t_end, 0, 0, 0, NULL, NULL, NULL, 0, 0};
	if (pass(d, now, err, errlen) || advance(d, t_end, &a, err, errlen))
		return -1;
	account(d, &a, t_end);
	memset(ro, 0, sizeof(*ro));
	ro->done = 1;
	ro->frag = a.frag * (double)d->cl.gpu_milli_total / SCHED_MILLI;
	for (size_t k = 0; k < nh; k++) {
		const struct job *jb = &d->jobs[s->horizon[k]];
		if (jb->started) {
			ro->wait += jb->start - jb->arrival;
			ro->run += jb->finish - jb->start;
		} else {
			ro->wait += t_end - jb->arrival;
			ro->run += jb->dref;
			ro->pending++;
		}
	}
	return 0;
}

/* The rollouts of one sampled decision (docs/sched.md), handed to cfg->label->emit. */
static int label(struct sim *s, uint32_t j, double now, const struct sched_decision *dec, int base,
		 char *err, size_t errlen)
{
	const struct sched_label_config *lc = s->cfg->label;
	size_t count = dec->count, hend = s->next + lc->horizon;
	if (s->next >= s->njobs)
		return 0; /* no arrival left: no horizon to look at */
	if (hend > s->njobs)
		hend = s->njobs;
	double t_end = s->jobs[hend - 1].arrival;
	/* The candidates rolled out: the base's choice, the topk by dfrag, the best by dfrag
	 * of each GPU model present (speed is what FGD does not see). */
	memset(s->pick, 0, count);
	s->pick[base] = 1;
	for (size_t r = 0; r < lc->topk; r++) {
		int best = -1;
		for (size_t i = 0; i < count; i++)
			if (s->feasible[i] && !s->pick[i] &&
			    (best < 0 || s->cand[i].dfrag < s->cand[best].dfrag))
				best = (int)i;
		if (best < 0)
			break;
		s->pick[best] = 1;
	}
	for (int m = -1; m < s->cl.models->count; m++) {
		int best = -1;
		for (size_t i = 0; i < count; i++)
			if (s->feasible[i] && s->nodes[s->cand[i].node].model == m &&
			    (best < 0 || s->cand[i].dfrag < s->cand[best].dfrag))
				best = (int)i;
		if (best >= 0)
			s->pick[best] = 1;
	}
	/* The horizon's pods: queued now (j among them), then the arrivals up to hend. */
	size_t nh = 0;
	for (int q = 0; q < SCHED_QOS_COUNT; q++)
		for (size_t i = 0; i < s->qlen[q]; i++)
			if (q != s->pass_q || i < s->pass_w || i >= s->pass_i)
				s->horizon[nh++] = s->queue[q][i];
	for (size_t i = s->next; i < hend; i++)
		s->horizon[nh++] = (uint32_t)i;
	for (size_t i = 0; i < count; i++) {
		memset(&s->ro[i], 0, sizeof(s->ro[i]));
		if (s->pick[i] &&
		    rollout(s, j, &s->cand[i], now, t_end, nh, &s->ro[i], err, errlen))
			return -1;
	}
	return lc->emit(lc->arg, dec, base, s->ro, err, errlen);
}

/* Tries pod j now: 1 placed, 0 left queued, -1 an error (err set). */
static int try_place(struct sim *s, uint32_t j, double now, char *err, size_t errlen)
{
	struct job *jb = &s->jobs[j];
	size_t *fa = &s->failed_at[jb->cls];
	if (*fa != (size_t)-1) {
		/* The same requests fitted no node then: only a node left since can hold them. */
		int maybe = 0;
		for (size_t k = *fa; k < s->nreleased && !maybe; k++) {
			const struct sched_pod *p = jb->pod;
			uint32_t n = s->released[k];
			maybe = sched_fits(&s->nodes[n], &s->state[n], p->cpu, p->mem, p->ngpu,
					   p->milli, p->spec);
		}
		if (!maybe) {
			*fa = s->nreleased;
			return 0;
		}
	}
	size_t count, nfeas;
	if (!(nfeas = sched_candidates(&s->cl, jb->pod, s->cand, s->feasible, &count))) {
		*fa = s->nreleased;
		return 0;
	}
	*fa = (size_t)-1;
	/* A decision is labelled with probability rate when it is a choice at all. */
	int lab = 0;
	if (s->cfg->label && !s->rollout && nfeas >= 2)
		lab = (double)(sched_splitmix(&s->label_rng) >> 11) * 0x1p-53 < s->cfg->label->rate;
	unsigned needs = s->policy->needs | (lab ? SCHED_NEED_FEATURES : 0);
	if (needs & (SCHED_NEED_DFRAG | SCHED_NEED_FEATURES))
		memo_dfrag(s, jb, count);
	if (needs & SCHED_NEED_FEATURES)
		sched_features(&s->cl, jb->pod, now - jb->arrival, s->total_count, s->cand, count,
			       s->features);
	struct sched_decision d = {
	    &s->cl, jb->pod, now,         now - jb->arrival,
	    count,  s->cand, s->feasible, (needs & SCHED_NEED_FEATURES) ? s->features : NULL};
	int k = s->policy->choose(s->policy, &d);
	s->decisions++;
	if (k == SCHED_CHOOSE_FAILED)
		return sched_fail(err, errlen, "policy %s failed", s->policy->name);
	if (k < 0)
		return 0;
	if ((size_t)k >= count || !s->feasible[k])
		return sched_fail(err, errlen, "policy %s chose an infeasible candidate",
				  s->policy->name);
	if (lab && label(s, j, now, &d, k, err, errlen))
		return -1;
	place(s, j, &s->cand[k], now);
	return 1;
}

/* One pass over the queue in order at time t, placing every pod that fits now. */
static int pass(struct sim *s, double t, char *err, size_t errlen)
{
	for (int q = 0; q < SCHED_QOS_COUNT; q++) {
		size_t w = 0;
		for (size_t i = 0; i < s->qlen[q]; i++) {
			s->pass_q = q;
			s->pass_i = i;
			s->pass_w = w;
			int pr = try_place(s, s->queue[q][i], t, err, errlen);
			if (pr < 0)
				return -1;
			if (pr == 0)
				s->queue[q][w++] = s->queue[q][i];
		}
		s->qlen[q] = w;
	}
	s->pass_q = -1;
	return 0;
}

/* Events (completions first, then arrivals, then a pass) up to t_stop, or to the end. */
static int advance(struct sim *s, double t_stop, struct acct *a, char *err, size_t errlen)
{
	const struct sched_config *cfg = s->cfg;
	while (s->done < s->njobs) {
		double t = INFINITY;
		if (s->next < s->njobs)
			t = s->jobs[s->next].arrival;
		if (s->h.n && s->h.t[0] <= t)
			t = s->h.t[0];
		if (t == INFINITY)
			return sched_fail(err, errlen,
					  "%zu pods queued with nothing running: cannot happen",
					  s->njobs - s->done);
		if (t > t_stop)
			break;
		account(s, a, t);
		s->t_prev = t;
		while (s->h.n && s->h.t[0] == t) {
			release(s, s->h.j[0]);
			heap_pop(&s->h);
			s->done++;
			if (cfg->progress && !s->rollout && s->done % 256 == 0)
				cfg->progress(cfg->progress_arg, s->done, s->njobs);
		}
		while (s->next < s->njobs && s->jobs[s->next].arrival == t) {
			int q = cfg->qos_priority ? s->jobs[s->next].pod->qos : 0;
			s->queue[q][s->qlen[q]++] = (uint32_t)s->next;
			s->next++;
		}
		if (pass(s, t, err, errlen))
			return -1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int by_creation(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->pod->creation != y->pod->creation)
		return x->pod->creation < y->pod->creation ? -1 : 1;
	return x->draw < y->draw ? -1 : x->draw > y->draw;
}

static int run(struct sim *s, struct sched_result *r, char *err, size_t errlen)
{
	const struct sched_config *cfg = s->cfg;
	size_t n = s->njobs;
	size_t ns = cfg->series < 2 ? 2 : cfg->series;
	r->series_t = calloc(ns, sizeof(double));
	r->series_alloc = calloc(ns, sizeof(double));
	r->series_frag = calloc(ns, sizeof(double));
	if (!r->series_t || !r->series_alloc || !r->series_frag)
		return sched_fail(err, errlen, "out of memory");
	r->nseries = ns;
	for (size_t k = 0; k < ns; k++)
		r->series_t[k] = r->window * (double)k / (double)(ns - 1);
	struct acct a = {0,  r->window, 0, 0, 0, r->series_t, r->series_alloc, r->series_frag,
			 ns, 0};
	if (advance(s, INFINITY, &a, err, errlen))
		return -1;
	for (; a.sk < ns; a.sk++) { /* samples at the last event's time: the state after it */
		r->series_alloc[a.sk] =
		    (double)s->cl.gpu_milli_alloc / (double)s->cl.gpu_milli_total;
		r->series_frag[a.sk] = frag_share(s);
	}
	r->makespan = s->t_prev;
	r->alloc = a.alloc / r->window;
	r->frag = a.frag / r->window;
	r->frag_idle = a.idle > 0 ? a.frag / a.idle : 0;
	r->decisions = s->decisions;
	/* Per-pod metrics. */
	double *jct = malloc(n * sizeof(double));
	if (!jct)
		return sched_fail(err, errlen, "out of memory");
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
	return 0;
}

/* The arrays of a sim (the replay's, or a rollout's copy). */
static int sim_alloc(struct sim *s, size_t nc, size_t npods)
{
	s->state = calloc(nc, sizeof(*s->state));
	s->nfrag = calloc(nc, sizeof(*s->nfrag));
	s->cand = malloc(nc * SCHED_MAX_GPUS * sizeof(*s->cand));
	s->feasible = malloc(nc * SCHED_MAX_GPUS);
	s->features = malloc(nc * SCHED_MAX_GPUS * SCHED_FEATURES * sizeof(float));
	s->jobs = calloc(npods, sizeof(*s->jobs));
	s->failed_at = calloc(npods, sizeof(size_t));
	s->released = malloc(npods * sizeof(uint32_t));
	s->h.t = malloc(npods * sizeof(double));
	s->h.j = malloc(npods * sizeof(uint32_t));
	int bad = !s->state || !s->nfrag || !s->cand || !s->feasible || !s->features || !s->jobs ||
		  !s->failed_at || !s->released || !s->h.t || !s->h.j;
	for (int q = 0; q < SCHED_QOS_COUNT; q++)
		bad |= !(s->queue[q] = malloc(npods * sizeof(uint32_t)));
	return bad ? -1 : 0;
}

static void sim_free(struct sim *s)
{
	free(s->state);
	free(s->nfrag);
	free(s->cand);
	free(s->feasible);
	free(s->features);
	free(s->jobs);
	free(s->failed_at);
	free(s->released);
	free(s->h.t);
	free(s->h.j);
	for (int q = 0; q < SCHED_QOS_COUNT; q++)
		free(s->queue[q]);
}

/* The rollouts' copy of s (its arrays; the rest shared or set by sim_copy). */
static int label_setup(struct sim *s, size_t npods, char *err, size_t errlen)
{
	const struct sched_label_config *lc = s->cfg->label;
	size_t nc = s->cl.count;
	if (!lc->emit || !(lc->rate >= 0 && lc->rate <= 1) || lc->horizon < 1)
		return sched_fail(err, errlen, "bad label configuration (rate, horizon, emit)");
	s->roll = calloc(1, sizeof(*s->roll));
	s->ro = calloc(nc * SCHED_MAX_GPUS, sizeof(*s->ro));
	s->pick = malloc(nc * SCHED_MAX_GPUS);
	s->horizon = malloc(npods * sizeof(uint32_t));
	if (!s->roll || !s->ro || !s->pick || !s->horizon || sim_alloc(s->roll, nc, npods))
		return sched_fail(err, errlen, "out of memory");
	struct sim *d = s->roll;
	d->cfg = s->cfg;
	sched_policy_get("fgd", &s->base);
	d->policy = &s->base;
	d->cl = s->cl;
	d->cl.state = d->state;
	d->nodes = s->nodes;
	d->classes = s->classes;
	d->nclasses = s->nclasses;
	d->memo = s->memo;
	d->njobs = s->njobs;
	d->total_count = s->total_count;
	d->pass_q = -1;
	d->rollout = 1;
	s->label_rng = lc->seed ^ 0x1abe1ed0dec15100ull;
	return 0;
}

/* What a run's setup needs beyond the sim: the node indices and the capacity. */
struct setup {
	double cap; /* speed-weighted GPU capacity */
};

static void sim_release_all(struct sim *s)
{
	free(s->nodes);
	free(s->classes);
	sim_free(s);
	if (s->memo) {
		free(s->memo->slot);
		free(s->memo);
	}
	if (s->roll) {
		sim_free(s->roll);
		free(s->roll);
	}
	free(s->ro);
	free(s->pick);
	free(s->horizon);
}

/*
 * The cluster sampled with cfg->seed, the pods replayed (scheduled in the trace, able to
 * run on some empty node of it), drawn cfg->inflate times over with replacement when
 * inflate > 1 (docs/sched.md, "Inflation"), in creation order, their classes and the
 * nodes' fragmentation. 0, or -1 with err.
 */
static int sim_setup(struct sim *s, const struct sched_pod *pods, size_t npods,
		     const struct sched_node *nodes, size_t nnodes, const struct sched_models *m,
		     const struct sched_config *cfg, struct sched_result *r, struct setup *su,
		     char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->pass_q = -1;
	size_t k_inflate = cfg->inflate > 1 ? cfg->inflate : 1;
	if (npods > (size_t)UINT32_MAX / k_inflate)
		return sched_fail(err, errlen, "too many pods to inflate %zu times", k_inflate);
	size_t cap_jobs = npods * k_inflate;
	/* The cluster: nodes_count of the list, drawn without replacement, in list order. */
	size_t nc = cfg->nodes_count && cfg->nodes_count < nnodes ? cfg->nodes_count : nnodes;
	size_t *idx = malloc(nnodes * sizeof(size_t));
	const struct sched_pod **base = malloc(npods * sizeof(*base));
	s->nodes = malloc(nc * sizeof(*s->nodes));
	s->classes = calloc(npods, sizeof(*s->classes));
	s->memo = calloc(1, sizeof(*s->memo));
	if (s->memo)
		s->memo->slot = calloc((size_t)1 << FMEMO_BITS, sizeof(*s->memo->slot));
	int rc = -1;
	if (!idx || !base || !s->nodes || !s->classes || !s->memo || !s->memo->slot ||
	    sim_alloc(s, nc, cap_jobs)) {
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
	s->cl.nodes = s->nodes;
	s->cl.state = s->state;
	s->cl.count = nc;
	s->cl.models = m;
	su->cap = 0;
	for (size_t i = 0; i < nc; i++) {
		const struct sched_node *nd = &nodes[idx[i]];
		s->nodes[i] = *nd;
		s->state[i].cpu_free = nd->cpu;
		s->state[i].mem_free = nd->mem;
		for (int g = 0; g < nd->ngpu; g++)
			s->state[i].gpu_free[g] = SCHED_MILLI;
		s->cl.gpu_milli_total += (int64_t)nd->ngpu * SCHED_MILLI;
		if (nd->cpu > s->cl.cpu_max)
			s->cl.cpu_max = nd->cpu;
		if (nd->mem > s->cl.mem_max)
			s->cl.mem_max = nd->mem;
		if (nd->ngpu > s->cl.gpu_max)
			s->cl.gpu_max = nd->ngpu;
		if (nd->ngpu)
			su->cap += nd->ngpu * m->speed[nd->model];
		r->gpus += (size_t)nd->ngpu;
	}
	r->nodes = nc;
	if (su->cap <= 0) {
		sched_fail(err, errlen, "the sampled cluster has no GPU: no GPU load to aim at");
		goto out;
	}
	/* The pods replayed: scheduled in the trace, and able to run on some empty node. */
	size_t nbase = 0;
	for (size_t i = 0; i < npods; i++) {
		const struct sched_pod *pd = &pods[i];
		if (pd->scheduled < 0) {
			r->never_scheduled++;
			continue;
		}
		int ok = 0;
		for (size_t k = 0; k < nc && !ok; k++) {
			struct sched_nstate empty = {s->nodes[k].cpu, s->nodes[k].mem, {0}};
			for (int g = 0; g < s->nodes[k].ngpu; g++)
				empty.gpu_free[g] = SCHED_MILLI;
			ok = sched_fits(&s->nodes[k], &empty, pd->cpu, pd->mem, pd->ngpu, pd->milli,
					pd->spec);
		}
		if (!ok) {
			r->unplaceable++;
			continue;
		}
		base[nbase++] = pd;
	}
	if (nbase < 2) {
		sched_fail(err, errlen, "%zu pods to replay (%zu never scheduled, %zu fit no node)",
			   nbase, r->never_scheduled, r->unplaceable);
		goto out;
	}
	/* Inflated: k_inflate x nbase draws with replacement (a generator of its own, so the
	 * cluster and the random policy draw as without inflation). */
	uint64_t drng = cfg->seed ^ 0x1f1a7ed0d4a3500full;
	size_t nj = k_inflate > 1 ? k_inflate * nbase : nbase;
	for (size_t i = 0; i < nj; i++) {
		const struct sched_pod *pd =
		    k_inflate > 1 ? base[sched_splitmix(&drng) % nbase] : base[i];
		s->jobs[i].pod = pd;
		s->jobs[i].dref = (double)(pd->deletion - pd->scheduled);
		s->jobs[i].draw = (uint32_t)i;
	}
	s->njobs = nj;
	r->pods = nj;
	qsort(s->jobs, s->njobs, sizeof(*s->jobs), by_creation);
	/* The target workload of FGD: the classes of the replayed pods, by count. */
	for (size_t i = 0; i < s->njobs; i++) {
		s->jobs[i].cls = class_of(s, s->jobs[i].pod);
		s->classes[s->jobs[i].cls].count++;
	}
	s->total_count = (int64_t)s->njobs;
	for (size_t i = 0; i < s->njobs; i++)
		s->failed_at[i] = (size_t)-1;
	for (size_t i = 0; i < nc; i++) {
		s->nfrag[i] = sched_frag_node(&s->nodes[i], &s->state[i], s->classes, s->nclasses);
		s->frag_sum += s->nfrag[i];
	}
	rc = 0;
out:
	free(idx);
	free(base);
	return rc;
}

int sched_replay(const struct sched_pod *pods, size_t npods, const struct sched_node *nodes,
		 size_t nnodes, const struct sched_models *m, const struct sched_config *cfg,
		 struct sched_policy *p, struct sched_result *r, char *err, size_t errlen)
{
	struct sim s;
	struct setup su;
	memset(r, 0, sizeof(*r));
	if (!(cfg->load > 0) || !(cfg->tau > 0) || cfg->max_gap < 0 || nnodes == 0 || npods == 0)
		return sched_fail(err, errlen,
				  "bad replay configuration (load, tau, gap, nodes, pods)");
	int rc = sim_setup(&s, pods, npods, nodes, nnodes, m, cfg, r, &su, err, errlen);
	s.policy = p;
	if (rc == 0)
		rc = compress(s.jobs, s.njobs, cfg, su.cap, r, err, errlen);
	if (rc == 0 && cfg->label)
		rc = label_setup(&s, s.njobs, err, errlen);
	if (rc == 0) {
		p->rng = cfg->seed ^ 0x7a11d0c0ffee0001ull;
		rc = run(&s, r, err, errlen);
		if (rc)
			sched_result_free(r);
	}
	sim_release_all(&s);
	return rc;
}

int sched_saturate(const struct sched_pod *pods, size_t npods, const struct sched_node *nodes,
		   size_t nnodes, const struct sched_models *m, const struct sched_config *cfg,
		   double max_demand, size_t points, struct sched_policy *p,
		   struct sched_saturation *out, char *err, size_t errlen)
{
	struct sim s;
	struct setup su;
	struct sched_result r;
	memset(&r, 0, sizeof(r));
	memset(out, 0, sizeof(*out));
	if (!(max_demand > 0 && max_demand <= 10) || points < 1 || nnodes == 0 || npods == 0 ||
	    cfg->label)
		return sched_fail(err, errlen, "bad saturation configuration (demand, points)");
	int rc = sim_setup(&s, pods, npods, nodes, nnodes, m, cfg, &r, &su, err, errlen);
	s.policy = p;
	out->nodes = r.nodes;
	out->gpus = r.gpus;
	out->points = points;
	out->unalloc = calloc(points, sizeof(double));
	out->frag = calloc(points, sizeof(double));
	out->failed = calloc(points, sizeof(double));
	if (rc == 0 && (!out->unalloc || !out->frag || !out->failed))
		rc = sched_fail(err, errlen, "out of memory");
	p->rng = cfg->seed ^ 0x7a11d0c0ffee0001ull;
	double gpus = (double)s.cl.gpu_milli_total / SCHED_MILLI, arrived = 0, failed = 0;
	size_t k = 0;
	for (size_t j = 0; rc == 0 && j < s.njobs && k < points; j++) {
		/* No departures: each pod is placed when it arrives, or fails (not queued). */
		const struct sched_pod *pd = s.jobs[j].pod;
		double g = (double)pd->ngpu * pd->milli / SCHED_MILLI;
		int pr = try_place(&s, (uint32_t)j, 0.0, err, errlen);
		if (pr < 0) {
			rc = -1;
			break;
		}
		out->arrived_pods++;
		if (pr == 0) {
			out->failed_pods++;
			failed += g;
		}
		arrived += g;
		/* Every grid point of arrived demand (point i at max_demand (i+1) / points) this
		 * pod reached gets the state after it. */
		while (k < points &&
		       arrived >= max_demand * (double)(k + 1) / (double)points * gpus) {
			out->unalloc[k] =
			    1.0 - (double)s.cl.gpu_milli_alloc / (double)s.cl.gpu_milli_total;
			out->frag[k] = frag_share(&s);
			out->failed[k] = failed / gpus;
			k++;
		}
	}
	out->reached = k;
	out->decisions = s.decisions;
	if (rc == 0 && k < points)
		rc = sched_fail(
		    err, errlen,
		    "the inflated workload (%zu pods) brought %.3g of the cluster's GPUs, "
		    "not %.3g: inflate it more",
		    s.njobs, arrived / gpus, max_demand);
	if (rc)
		sched_saturation_free(out);
	sim_release_all(&s);
	return rc;
}

void sched_saturation_free(struct sched_saturation *s)
{
	free(s->unalloc);
	free(s->frag);
	free(s->failed);
	s->unalloc = s->frag = s->failed = NULL;
}
