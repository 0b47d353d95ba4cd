// SPDX-License-Identifier: MIT
/*
 * The neural placement policy's scorer through libquire: the model image loaded with
 * MLP_LOAD, each decision's candidates scored with MLP_SCORE (up to 1,024 per command),
 * on the context's backend (cpu by default in `quire sched`). The policy itself
 * (sched/neural.c) quantizes the features and picks the best feasible score.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_mlp.h"
#include "sched/sched.h"

#define MODEL_MAX (1u << 20) /* far above the largest image (4 layers of 256) */

static int fail(char *err, size_t errlen, const char *fmt, const char *path, const char *what)
{
	snprintf(err, errlen, fmt, path, what);
	return -1;
}

int sched_mlp_load(struct sched_mlp *m, struct quire_ctx *ctx, const char *path, char *err,
		   size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->ctx = ctx;
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	uint8_t *img = malloc(MODEL_MAX + 1);
	size_t len = img ? fread(img, 1, MODEL_MAX + 1, f) : 0;
	int rerr = ferror(f);
	fclose(f);
	if (!img || rerr) {
		free(img);
		return fail(err, errlen, "%s: %s", path, img ? "read error" : "out of memory");
	}
	int rc = -1;
	if (len > MODEL_MAX) {
		fail(err, errlen, "%s: %s", path, "larger than any model image (1 MiB)");
		goto out;
	}
	if (len < QUIRE_MLP_HEADER_BYTES) {
		snprintf(err, errlen, "%s: offset %zu: truncated in the %u-byte header", path, len,
			 QUIRE_MLP_HEADER_BYTES);
		goto out;
	}
	uint16_t n0 = (uint16_t)(img[QUIRE_MLP_HDR_WIDTH] | img[QUIRE_MLP_HDR_WIDTH + 1] << 8);
	if (n0 != SCHED_FEATURES) {
		snprintf(err, errlen,
			 "%s: offset %d: input width %u, the scheduler has %d features", path,
			 QUIRE_MLP_HDR_WIDTH, n0, SCHED_FEATURES);
		goto out;
	}
	struct quire_buf *buf = NULL;
	int st = quire_buf_alloc(ctx, len, &buf);
	if (st == QUIRE_OK) {
		memcpy(quire_buf_ptr(buf), img, len);
		struct quire_op op = {.opcode = QUIRE_OPC_MLP_LOAD, .count = (uint32_t)len};
		op.src = (struct quire_ref){buf, 0};
		st = quire_run(ctx, &op, NULL);
		quire_buf_free(buf);
	}
	if (st != QUIRE_OK) {
		snprintf(err, errlen, "%s: MLP_LOAD refused the model: %s", path,
			 quire_strerror(st));
		goto out;
	}
	size_t c = QUIRE_MLP_MAX_CANDIDATES;
	if ((st = quire_buf_alloc(ctx, c * SCHED_FEATURES, &m->feat)) ||
	    (st = quire_buf_alloc(ctx, c * sizeof(int32_t), &m->scores)) ||
	    (st = quire_buf_alloc(ctx, c, &m->feas))) {
		snprintf(err, errlen, "%s: buffers: %s", path, quire_strerror(st));
		sched_mlp_close(m);
		goto out;
	}
	rc = 0;
out:
	free(img);
	return rc;
}

int sched_mlp_score(void *arg, const int8_t *q, const uint8_t *feasible, size_t count,
		    int32_t *scores, char *err, size_t errlen)
{
	struct sched_mlp *m = arg;
	for (size_t at = 0; at < count; at += QUIRE_MLP_MAX_CANDIDATES) {
		size_t c =
		    count - at < QUIRE_MLP_MAX_CANDIDATES ? count - at : QUIRE_MLP_MAX_CANDIDATES;
		memcpy(quire_buf_ptr(m->feat), q + at * SCHED_FEATURES, c * SCHED_FEATURES);
		memcpy(quire_buf_ptr(m->feas), feasible + at, c);
		struct quire_op op = {.opcode = QUIRE_OPC_MLP_SCORE, .count = (uint32_t)c};
		op.src = (struct quire_ref){m->feat, 0};
		op.dst = (struct quire_ref){m->scores, 0};
		op.aux = (struct quire_ref){m->feas, 0};
		int st = quire_run(m->ctx, &op, NULL);
		m->calls++;
		/* No feasible candidate in this call: the scores are written all the same. */
		if (st != QUIRE_OK && st != QUIRE_ERR_NO_FEASIBLE) {
			snprintf(err, errlen, "MLP_SCORE: %s", quire_strerror(st));
			return -1;
		}
		memcpy(scores + at, quire_buf_ptr(m->scores), c * sizeof(int32_t));
	}
	return 0;
}

void sched_mlp_close(struct sched_mlp *m)
{
	quire_buf_free(m->feat);
	quire_buf_free(m->scores);
	quire_buf_free(m->feas);
	m->feat = m->scores = m->feas = NULL;
}
