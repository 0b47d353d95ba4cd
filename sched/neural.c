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
	free(n->q);
	free(n->scores);
	n->q = NULL;
	n->scores = NULL;
	n->cap = 0;
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
		int8_t *q = realloc(n->q, d->count * SCHED_FEATURES);
		if (q)
			n->q = q;
		int32_t *s = realloc(n->scores, d->count * sizeof(int32_t));
		if (s)
			n->scores = s;
		if (!q || !s) {
			snprintf(n->err, sizeof(n->err), "out of memory");
			return SCHED_CHOOSE_FAILED;
		}
		n->cap = d->count;
	}
	sched_quantize_features(d->features, d->count, n->q);
	if (n->score(n->arg, n->q, d->feasible, d->count, n->scores, n->err, sizeof(n->err)))
		return SCHED_CHOOSE_FAILED;
	int best = -1;
	for (size_t i = 0; i < d->count; i++)
		if (d->feasible[i] && (best < 0 || n->scores[i] > n->scores[best]))
			best = (int)i;
	if (n->fp32 && best >= 0) {
		/* The fp32 network on the same inputs (q / gain: the features on the int8
		 * grid, as it was trained), and on the raw features. */
		int fb = -1, rb = -1;
		float fs = 0, rs = 0;
		for (size_t i = 0; i < d->count; i++) {
			if (!d->feasible[i])
				continue;
			float x[SCHED_FEATURES];
			for (int f = 0; f < SCHED_FEATURES; f++)
				x[f] = (float)n->q[i * SCHED_FEATURES + f] / sched_feature_gain[f];
			float s = sched_fp32_score(n->fp32, x);
			float r = sched_fp32_score(n->fp32, d->features + i * SCHED_FEATURES);
			if (fb < 0 || s > fs) {
				fb = (int)i;
				fs = s;
			}
			if (rb < 0 || r > rs) {
				rb = (int)i;
				rs = r;
			}
		}
		n->compared++;
		n->agree += d->cand[fb].node == d->cand[best].node;
		n->agree_raw += d->cand[rb].node == d->cand[best].node;
	}
	return best;
}
