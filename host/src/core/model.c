// SPDX-License-Identifier: MIT
/*
 * The scoring network as a scheduler links it (quire_model_*, docs/sched-api.md): a model
 * image checked on the host, loaded once onto a context's card with MLP_LOAD, then batches
 * of up to 1024 candidates scored with MLP_SCORE. Thin over the command path: every
 * backend runs the same two descriptors, so the scores are the card's, bit for bit. The
 * image's check is model_check.c.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

struct quire_model {
	struct quire_ctx *ctx;
	uint32_t len, n0;
	uint32_t loaded_at; /* ctx->mlp_loads right after this model's MLP_LOAD */
	uint32_t cycles;
	struct quire_buf *image, *features, *feasible, *scores;
};

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

void quire_model_free(struct quire_model *m)
{
	if (!m)
		return;
	quire_buf_free(m->image);
	quire_buf_free(m->features);
	quire_buf_free(m->feasible);
	quire_buf_free(m->scores);
	free(m);
}

/* MLP_LOAD of m's image, through the context's queue as any operation. */
static int load_on_card(struct quire_model *m)
{
	struct quire_op op = {.opcode = QUIRE_OPC_MLP_LOAD, .count = m->len, .src = {m->image, 0}};
	int st = quire_run(m->ctx, &op, NULL);
	/* A load that failed is tried again by the next score. */
	m->loaded_at = m->ctx->mlp_loads - (st != QUIRE_OK);
	return st;
}

int quire_model_load(struct quire_ctx *ctx, const void *image, size_t len, struct quire_model **out)
{
	if (!out)
		return QUIRE_ERR_INVALID;
	*out = NULL;
	if (!ctx || !image)
		return QUIRE_ERR_INVALID;
	int st = quire_model_check(image, len, NULL, NULL, 0);
	if (st != QUIRE_OK)
		return st;
	struct quire_model *m = calloc(1, sizeof(*m));
	if (!m)
		return QUIRE_ERR_NOMEM;
	m->ctx = ctx;
	m->len = (uint32_t)len;
	m->n0 = rd16((const uint8_t *)image + QUIRE_MLP_HDR_WIDTH);
	/* Buffers for the largest batch, allocated once: a call only copies and rings. */
	st = quire_buf_alloc(ctx, len, &m->image);
	if (st == QUIRE_OK)
		st = quire_buf_alloc(ctx, (size_t)QUIRE_MLP_MAX_CANDIDATES * m->n0, &m->features);
	if (st == QUIRE_OK)
		st = quire_buf_alloc(ctx, QUIRE_MLP_MAX_CANDIDATES, &m->feasible);
	if (st == QUIRE_OK)
		st = quire_buf_alloc(ctx, 4 * QUIRE_MLP_MAX_CANDIDATES, &m->scores);
	if (st == QUIRE_OK) {
		memcpy(quire_buf_ptr(m->image), image, len);
		st = load_on_card(m);
	}
	if (st != QUIRE_OK) {
		quire_model_free(m);
		return st;
	}
	*out = m;
	return QUIRE_OK;
}

uint32_t quire_model_inputs(const struct quire_model *m)
{
	return m ? m->n0 : 0;
}

uint32_t quire_model_cycles(const struct quire_model *m)
{
	return m ? m->cycles : 0;
}

int quire_model_score(struct quire_model *m, uint32_t count, const int8_t *features, uint32_t width,
		      const uint8_t *feasible, int32_t *scores, uint32_t *choice)
{
	if (!m || !features || !feasible)
		return QUIRE_ERR_INVALID;
	if (width != m->n0)
		return QUIRE_ERR_SHAPE;
	if (count == 0 || count > QUIRE_MLP_MAX_CANDIDATES)
		return QUIRE_ERR_SIZE;
	/* Another MLP_LOAD on this context (or a reset) since ours: the engine holds another
	 * model, or none. Load ours again first. */
	if (m->loaded_at != m->ctx->mlp_loads) {
		int st = load_on_card(m);
		if (st != QUIRE_OK)
			return st;
	}
	memcpy(quire_buf_ptr(m->features), features, (size_t)count * width);
	memcpy(quire_buf_ptr(m->feasible), feasible, count);
	struct quire_op op = {.opcode = QUIRE_OPC_MLP_SCORE,
			      .count = count,
			      .src = {m->features, 0},
			      .dst = {m->scores, 0},
			      .aux = {m->feasible, 0}};
	struct quire_req *req;
	int st = quire_submit(m->ctx, &op, &req);
	if (st != QUIRE_OK)
		return st;
	st = quire_wait(req, QUIRE_WAIT_DEFAULT);
	uint32_t result = quire_req_result(req);
	m->cycles = quire_req_cycles(req);
	quire_req_free(req);
	if (st == QUIRE_OK || st == QUIRE_ERR_NO_FEASIBLE) {
		if (scores)
			memcpy(scores, quire_buf_ptr(m->scores), 4 * (size_t)count);
		if (st == QUIRE_OK && choice)
			*choice = result;
	}
	return st;
}
