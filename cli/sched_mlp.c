// SPDX-License-Identifier: MIT
/*
 * The neural placement policy's scorer through libquire's scheduler API (quire_model_*):
 * the model image read and checked, loaded once onto the context's card (cpu by default in
 * `quire sched`), each decision's candidates scored in calls of up to 1,024. The policy
 * itself (sched/neural.c) quantizes the features and picks the best feasible score.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sched_mlp.h"
#include "sched/sched.h"

int sched_mlp_read(const char *path, void **image, size_t *len, char *err, size_t errlen)
{
	char why[160];
	int st = quire_model_read(path, image, len, why, sizeof(why));
	if (st != QUIRE_OK) {
		snprintf(err, errlen, "%s: %s (%s)", path, *why ? why : quire_strerror(st),
			 quire_strerror(st));
		return -1;
	}
	/* The width first: a model for other features would load and score nonsense. */
	const uint8_t *b = *image;
	unsigned n0 = b[QUIRE_MLP_HDR_WIDTH] | b[QUIRE_MLP_HDR_WIDTH + 1] << 8;
	if (n0 != SCHED_FEATURES) {
		snprintf(
		    err, errlen,
		    "%s: offset %d: input width %u (the model takes %u inputs; a candidate has "
		    "%d features, docs/sched.md)",
		    path, QUIRE_MLP_HDR_WIDTH, n0, n0, SCHED_FEATURES);
		free(*image);
		*image = NULL;
		return -1;
	}
	return 0;
}

int sched_mlp_load(struct sched_mlp *m, struct quire_ctx *ctx, const char *path, char *err,
		   size_t errlen)
{
	m->model = NULL;
	m->calls = 0;
	void *img;
	size_t len;
	if (sched_mlp_read(path, &img, &len, err, errlen))
		return -1;
	int st = quire_model_load(ctx, img, len, &m->model);
	free(img);
	if (st != QUIRE_OK) {
		snprintf(err, errlen, "%s: the card refused the model: %s", path,
			 quire_strerror(st));
		return -1;
	}
	return 0;
}

int sched_mlp_score(void *arg, const int8_t *q, const uint8_t *feasible, size_t count,
		    int32_t *scores, char *err, size_t errlen)
{
	struct sched_mlp *m = arg;
	for (size_t at = 0; at < count; at += QUIRE_MLP_MAX_CANDIDATES) {
		size_t c =
		    count - at < QUIRE_MLP_MAX_CANDIDATES ? count - at : QUIRE_MLP_MAX_CANDIDATES;
		int st = quire_model_score(m->model, (uint32_t)c, q + at * SCHED_FEATURES,
					   SCHED_FEATURES, feasible + at, scores + at, NULL);
		m->calls++;
		/* No feasible candidate in this call: the scores are written all the same. */
		if (st != QUIRE_OK && st != QUIRE_ERR_NO_FEASIBLE) {
			snprintf(err, errlen, "MLP_SCORE: %s", quire_strerror(st));
			return -1;
		}
	}
	return 0;
}

void sched_mlp_close(struct sched_mlp *m)
{
	quire_model_free(m->model);
	m->model = NULL;
}
