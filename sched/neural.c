// SPDX-License-Identifier: MIT
/*
 * The neural placement policy: the candidates' features quantized to the int8 inputs of
 * the scoring network (a fixed scale per feature), scored by a scorer the caller gives
 * (the int8 MLP through libquire: sched/ links no library), the feasible candidate with
 * the largest score chosen (docs/contract-mlp.md). And the fp32 reference of a model
 * (the exporter's float weights), read from its text file and run here, so that the
 * int8 and fp32 choices can be compared decision by decision.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/internal.h"
#include "sched/sched.h"

/* Features are in [0, 1]: 127 puts them on 0..127 at 1/127 steps. The requests are small
 * shares of a node (a pod rarely asks for more than a quarter of it): 508 (127 x 4)
 * spends the int8 range on 0..0.25 and saturates above. */
const float sched_feature_gain[SCHED_FEATURES] = {
    [SCHED_F_CPU_FREE] = 127.0f,      [SCHED_F_MEM_FREE] = 127.0f,
    [SCHED_F_GPU_FREE] = 127.0f,      [SCHED_F_NODE_GPUS] = 127.0f,
    [SCHED_F_SPEED] = 127.0f,         [SCHED_F_REQ_CPU] = 508.0f,
    [SCHED_F_REQ_MEM] = 508.0f,       [SCHED_F_REQ_GPU] = 508.0f,
    [SCHED_F_CPU_AFTER] = 127.0f,     [SCHED_F_MEM_AFTER] = 127.0f,
    [SCHED_F_GPU_AFTER] = 127.0f,     [SCHED_F_TAKEN_FREE_AFTER] = 127.0f,
    [SCHED_F_DFRAG] = 127.0f,         [SCHED_F_QOS_LS] = 127.0f,
    [SCHED_F_QOS_BE] = 127.0f,        [SCHED_F_WAIT] = 127.0f,
    [SCHED_F_CLUSTER_ALLOC] = 127.0f,
};

void sched_quantize_features(const float *features, size_t count, int8_t *q)
{
	for (size_t i = 0; i < count * SCHED_FEATURES; i++) {
		/* rint: round half to even, as numpy's rint in the exporter. */
		float v = rintf(features[i] * sched_feature_gain[i % SCHED_FEATURES]);
		q[i] = (int8_t)(v < -128.0f ? -128 : v > 127.0f ? 127 : (int)v);
	}
}

void sched_fp32_free(struct sched_fp32 *m)
{
	for (int l = 0; l < SCHED_MLP_MAX_LAYERS; l++) {
		free(m->w[l]);
		free(m->b[l]);
		m->w[l] = m->b[l] = NULL;
	}
	m->layers = 0;
}

/* The next line's numbers into v[0..want); errors name FILE:LINE. */
static int read_row(FILE *f, const char *path, int *line, float *v, int want, char *err,
		    size_t errlen)
{
	static char buf[SCHED_MLP_MAX_WIDTH * 24 + 64];
	if (!fgets(buf, sizeof(buf), f))
		return sched_fail(err, errlen, "%s:%d: truncated (%d numbers expected)", path,
				  *line + 1, want);
	(*line)++;
	if (!strchr(buf, '\n') && !feof(f))
		return sched_fail(err, errlen, "%s:%d: line too long", path, *line);
	char *p = buf;
	for (int i = 0; i < want; i++) {
		char *end;
		errno = 0;
		float x = strtof(p, &end);
		if (end == p || errno || !isfinite(x))
			return sched_fail(err, errlen, "%s:%d: number %d of %d missing or bad",
					  path, *line, i + 1, want);
		v[i] = x;
		p = end;
	}
	while (*p == ' ' || *p == '\n' || *p == '\r')
		p++;
	if (*p)
		return sched_fail(err, errlen, "%s:%d: more than %d numbers", path, *line, want);
	return 0;
}

int sched_fp32_read(const char *path, struct sched_fp32 *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	FILE *f = fopen(path, "r");
	if (!f)
		return sched_fail(err, errlen, "%s: %s", path, strerror(errno));
	int line = 1, rc = -1;
	char hdr[256];
	int w[SCHED_MLP_MAX_LAYERS + 2] = {0}, n = 0, layers = 0;
	if (!fgets(hdr, sizeof(hdr), f) || (n = sscanf(hdr, "QSF32 1 %d %d %d %d %d %d", &layers,
						       &w[0], &w[1], &w[2], &w[3], &w[4])) < 1) {
		sched_fail(err, errlen, "%s:1: not an fp32 model (\"QSF32 1 L n0 .. nL\" expected)",
			   path);
		goto out;
	}
	if (layers < 1 || layers > SCHED_MLP_MAX_LAYERS || n != layers + 2) {
		sched_fail(err, errlen, "%s:1: bad layer count or widths", path);
		goto out;
	}
	for (int l = 0; l <= layers; l++)
		if (w[l] < 1 || w[l] > SCHED_MLP_MAX_WIDTH) {
			sched_fail(err, errlen, "%s:1: width %d out of 1..%d", path, w[l],
				   SCHED_MLP_MAX_WIDTH);
			goto out;
		}
	if (w[0] != SCHED_FEATURES || w[layers] != 1) {
		sched_fail(err, errlen, "%s:1: widths must start at %d features and end at 1", path,
			   SCHED_FEATURES);
		goto out;
	}
	m->layers = layers;
	memcpy(m->width, w, sizeof(m->width));
	for (int l = 0; l < layers; l++) {
		m->w[l] = malloc((size_t)w[l] * (size_t)w[l + 1] * sizeof(float));
		m->b[l] = malloc((size_t)w[l + 1] * sizeof(float));
		if (!m->w[l] || !m->b[l]) {
			sched_fail(err, errlen, "out of memory");
			goto out;
		}
		for (int o = 0; o < w[l + 1]; o++)
			if (read_row(f, path, &line, m->w[l] + (size_t)o * w[l], w[l], err, errlen))
				goto out;
		if (read_row(f, path, &line, m->b[l], w[l + 1], err, errlen))
			goto out;
	}
	char extra[8];
	if (fgets(extra, sizeof(extra), f)) {
		sched_fail(err, errlen, "%s:%d: data after the last layer", path, line + 1);
		goto out;
	}
	rc = 0;
out:
	fclose(f);
	if (rc)
		sched_fp32_free(m);
	return rc;
}

float sched_fp32_score(const struct sched_fp32 *m, const float *features)
{
	float a[SCHED_MLP_MAX_WIDTH], b[SCHED_MLP_MAX_WIDTH];
	memcpy(a, features, SCHED_FEATURES * sizeof(float));
	for (int l = 0; l < m->layers; l++) {
		int in = m->width[l], out = m->width[l + 1];
		for (int o = 0; o < out; o++) {
			const float *w = m->w[l] + (size_t)o * in;
			float acc = m->b[l][o];
			for (int i = 0; i < in; i++)
				acc += w[i] * a[i];
			b[o] = l < m->layers - 1 && acc < 0 ? 0 : acc;
		}
		memcpy(a, b, (size_t)out * sizeof(float));
	}
	return a[0];
}

void sched_neural_free(struct sched_neural *n)
{
	free(n->block);
	n->block = NULL;
	n->q = n->uq = NULL;
	n->scores = NULL;
	n->first = n->row_of = n->table = NULL;
	n->fscores = NULL;
	n->mask = NULL;
	n->cap = 0;
}

/* The buffers for decisions of up to cap candidates (a power of two), in one block. */
static int neural_buffers(struct sched_neural *n, size_t cap)
{
	sched_neural_free(n);
	size_t words = cap * 4 + 2 * cap; /* scores, first, row_of, fscores; table */
	char *b = malloc(words * sizeof(uint32_t) + 3 * cap * SCHED_FEATURES);
	if (!b)
		return -1;
	n->scores = (int32_t *)b;
	n->first = (uint32_t *)(b + cap * 4);
	n->row_of = n->first + cap;
	n->fscores = (float *)(n->row_of + cap);
	n->table = (uint32_t *)(n->fscores + cap);
	n->q = (int8_t *)(n->table + 2 * cap);
	n->uq = n->q + cap * SCHED_FEATURES;
	n->mask = (uint8_t *)(n->uq + cap * SCHED_FEATURES);
	n->cap = cap;
	n->block = b;
	return 0;
}

/*
 * The distinct rows among the feasible candidates' rows (size bytes each, at rows + i *
 * size): row_of[i] the distinct row of candidate i (infeasible: unset), first[u] the first
 * candidate with row u. Nodes alike in a large cluster give the same row, hence the same
 * score: each is scored once. Returns how many distinct rows. table: 2 * cap entries.
 */
static size_t distinct_rows(struct sched_neural *n, const void *rows, size_t size,
			    const uint8_t *feasible, size_t count)
{
	const unsigned char *r = rows;
	size_t mask = 2 * n->cap - 1, nu = 0; /* cap is a power of two */
	memset(n->table, 0xff, 2 * n->cap * sizeof(*n->table));
	for (size_t i = 0; i < count; i++) {
		if (!feasible[i])
			continue;
		uint64_t h = 0xcbf29ce484222325ull;
		for (size_t b = 0; b < size; b++)
			h = (h ^ r[i * size + b]) * 0x100000001b3ull;
		for (size_t t = (size_t)(h ^ h >> 32) & mask;; t = (t + 1) & mask) {
			uint32_t u = n->table[t];
			if (u == UINT32_MAX) {
				n->table[t] = (uint32_t)nu;
				n->first[nu] = (uint32_t)i;
				n->row_of[i] = (uint32_t)nu++;
				break;
			}
			if (memcmp(r + (size_t)n->first[u] * size, r + i * size, size) == 0) {
				n->row_of[i] = u;
				break;
			}
		}
	}
	return nu;
}

/* The fp32 network's choice: the feasible candidate with the largest score, ties to the
 * lowest index; on the int8 grid's inputs (grid) or the raw features. */
static int fp32_choice(struct sched_neural *n, const struct sched_decision *d, const uint8_t *mask,
		       int grid)
{
	float *x = n->xf;
	size_t nu =
	    grid ? distinct_rows(n, n->q, SCHED_FEATURES, mask, d->count)
		 : distinct_rows(n, d->features, SCHED_FEATURES * sizeof(float), mask, d->count);
	for (size_t u = 0; u < nu; u++) {
		size_t i = n->first[u];
		for (int f = 0; f < SCHED_FEATURES; f++)
			x[f] = grid ? (float)n->q[i * SCHED_FEATURES + f] / sched_feature_gain[f]
				    : d->features[i * SCHED_FEATURES + f];
		n->fscores[u] = sched_fp32_score(n->fp32, x);
	}
	int best = -1;
	for (size_t i = 0; i < d->count; i++)
		if (mask[i] && (best < 0 || n->fscores[n->row_of[i]] > n->fscores[n->row_of[best]]))
			best = (int)i;
	return best;
}

/*
 * The shortlist the network ranks when more than SCHED_SHORTLIST_MAX nodes can take the
 * pod (a large cluster; never on 64 nodes or fewer): of each node kind (GPU model and count), the
 * SCHED_SHORTLIST_KIND with the smallest FGD change, lowest index first. Nodes of one
 * kind differ there mostly by a little CPU or memory, which the network ranks by near-ties
 * that its int8 rounding orders at random; the kinds (speed) and FGD's order stay for it to
 * weigh (docs/sched-scale.md). mask: the candidates kept.
 */
static void shortlist(const struct sched_decision *d, uint8_t *mask)
{
	size_t nodes = 0; /* with a feasible candidate (a node's come together) */
	for (size_t i = 0; i < d->count; i++) {
		mask[i] = d->feasible[i];
		nodes += mask[i] &&
			 (i == 0 || !d->feasible[i - 1] || d->cand[i - 1].node != d->cand[i].node);
	}
	if (nodes <= SCHED_SHORTLIST_MAX || !d->cl)
		return; /* (a decision without its cluster has no node kinds to go by) */
	struct {
		int model, ngpu;
		size_t n;
		uint32_t pick[SCHED_SHORTLIST_KIND];
	} kind[SCHED_SHORTLIST_MAX];
	size_t nk = 0;
	for (size_t i = 0; i < d->count; i++) {
		if (!mask[i])
			continue;
		const struct sched_node *nd = &d->cl->nodes[d->cand[i].node];
		size_t k = 0;
		while (k < nk && (kind[k].model != nd->model || kind[k].ngpu != nd->ngpu))
			k++;
		if (k == nk) {
			if (nk == SCHED_SHORTLIST_MAX)
				continue; /* kinds beyond the list's room: left out */
			kind[nk].model = nd->model;
			kind[nk].ngpu = nd->ngpu;
			kind[nk++].n = 0;
		}
		/* Insert by (dfrag, index): candidates come in index order, so an equal
		 * dfrag goes after those kept. */
		size_t n = kind[k].n, at = n;
		while (at > 0 && d->cand[kind[k].pick[at - 1]].dfrag > d->cand[i].dfrag)
			at--;
		if (at == SCHED_SHORTLIST_KIND)
			continue;
		if (n < SCHED_SHORTLIST_KIND)
			kind[k].n++;
		for (size_t m = kind[k].n - 1; m > at; m--)
			kind[k].pick[m] = kind[k].pick[m - 1];
		kind[k].pick[at] = (uint32_t)i;
	}
	memset(mask, 0, d->count);
	for (size_t k = 0; k < nk; k++)
		for (size_t m = 0; m < kind[k].n; m++)
			mask[kind[k].pick[m]] = 1;
}

int sched_neural_choose(struct sched_policy *p, const struct sched_decision *d)
{
	struct sched_neural *n = p->state;
	if (!n || !n->score || !d->features) {
		if (n)
			snprintf(n->err, sizeof(n->err), "no scorer or no features");
		return SCHED_CHOOSE_FAILED;
	}
	if (d->count > n->cap) {
		size_t cap = 64;
		while (cap < d->count)
			cap *= 2;
		if (neural_buffers(n, cap)) {
			snprintf(n->err, sizeof(n->err), "out of memory");
			return SCHED_CHOOSE_FAILED;
		}
	}
	sched_quantize_features(d->features, d->count, n->q);
	uint8_t *mask = n->mask;
	shortlist(d, mask);
	/* Each distinct row scored once, all feasible (the mask is applied below). */
	size_t nu = distinct_rows(n, n->q, SCHED_FEATURES, mask, d->count);
	if (nu == 0)
		return -1;
	for (size_t u = 0; u < nu; u++)
		memcpy(n->uq + u * SCHED_FEATURES, n->q + (size_t)n->first[u] * SCHED_FEATURES,
		       SCHED_FEATURES);
	memset(n->ones, 1, sizeof(n->ones));
	for (size_t at = 0; at < nu; at += sizeof(n->ones)) {
		size_t c = nu - at < sizeof(n->ones) ? nu - at : sizeof(n->ones);
		if (n->score(n->arg, n->uq + at * SCHED_FEATURES, n->ones, c, n->scores + at,
			     n->err, sizeof(n->err)))
			return SCHED_CHOOSE_FAILED;
	}
	int best = -1;
	for (size_t i = 0; i < d->count; i++)
		if (mask[i] && (best < 0 || n->scores[n->row_of[i]] > n->scores[n->row_of[best]]))
			best = (int)i;
	if (n->fp32) {
		/* The fp32 network on the same inputs (q / gain: the features on the int8
		 * grid, as it was trained), and on the raw features. */
		int fb = fp32_choice(n, d, mask, 1);
		n->compared++;
		n->agree += d->cand[fb].node == d->cand[best].node;
		/* The raw features rarely repeat: on decisions of many candidates that costs a
		 * float network per candidate; those are left out of this one figure. */
		if (nu <= SCHED_RAW_MAX_ROWS) {
			int rb = fp32_choice(n, d, mask, 0);
			n->compared_raw++;
			n->agree_raw += d->cand[rb].node == d->cand[best].node;
		}
	}
	return best;
}
