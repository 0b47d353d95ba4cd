// SPDX-License-Identifier: MIT
/*
 * Requests: from a quire_op to a checked descriptor, and their lives.
 *
 * How long to wait for a card is a question of progress, not of wall time: a
 * card with work must complete something, or move its heartbeat, within the
 * context's timeout of its own clock (QUIRE_CNT_CYCLES). A slow card (a loaded
 * machine, a collective whose peers are late but alive, a simulated card whose
 * 100 ms of card time take the machine minutes) is waited for; a card that stands
 * still is declared unresponsive after one timeout, and from then on every call on
 * the context fails at once with QUIRE_ERR_UNRESPONSIVE (docs/failures.md). On a
 * card in hardware its clock is wall time. A card that does not answer at all has
 * no clock to read: the read itself is bounded by the timeout in wall time.
 */
#include <stdlib.h>
#include <string.h>

#include "quire/validate.h"
#include "core.h"
#include "quire/mlp.h"
#include "quire/regs.h"

static int ref_addr(struct quire_ctx *ctx, const struct quire_ref *r, __u64 *addr)
{
	*addr = 0;
	if (!r->buf)
		return r->offset == 0 ? QUIRE_OK : QUIRE_ERR_INVALID;
	if (r->buf->ctx != ctx || r->offset > r->buf->size)
		return QUIRE_ERR_INVALID;
	*addr = r->buf->dma + r->offset;
	return QUIRE_OK;
}

/* The descriptor of op, checked as the card checks it and against the buffers. */
static int build_cmd(struct quire_ctx *ctx, const struct quire_op *op, struct quire_cmd *c,
		     uint32_t *detail)
{
	memset(c, 0, sizeof(*c));
	*detail = QUIRE_DETAIL_NONE;
	if ((uint32_t)op->opcode > 0xff || op->flags > 0xff || (uint32_t)op->format > 0xffff ||
	    (uint32_t)op->val_format > 0xffff || op->workers > 0xffff)
		return QUIRE_ERR_INVALID;
	c->opcode = (uint8_t)op->opcode;
	c->flags = (uint8_t)op->flags;
	/* The descriptor is little-endian (quire/cmd.h), whatever the host. */
	c->format = quire_cpu_to_le16(op->format);
	c->val_format = quire_cpu_to_le16(op->val_format);
	c->count = quire_cpu_to_le32(op->count);
	c->workers = quire_cpu_to_le16(op->workers);
	c->stride = quire_cpu_to_le64(op->stride);
	const struct quire_ref *refs[4] = {&op->src, &op->dst, &op->exp, &op->aux};
	__le64 *addrs[4] = {&c->src, &c->dst, &c->exp, &c->aux};
	static const uint32_t details[4] = {QUIRE_DETAIL_SRC, QUIRE_DETAIL_DST, QUIRE_DETAIL_EXP,
					    QUIRE_DETAIL_AUX};
	for (int i = 0; i < 4; i++) {
		__u64 addr;
		if (ref_addr(ctx, refs[i], &addr) != QUIRE_OK) {
			*detail = details[i];
			return QUIRE_ERR_INVALID;
		}
		*addrs[i] = quire_cpu_to_le64(addr);
	}
	int st = quire_cmd_validate(c, detail);
	if (st != QUIRE_OK)
		return st;
	uint64_t ext[4];
	/* Without a model loaded through this context, the card bounds MLP_SCORE's features. */
	quire_cmd_extents(c, ctx->mlp_width0 ? ctx->mlp_width0 : 1, ext);
	for (int i = 0; i < 4; i++) {
		if (ext[i] && refs[i]->buf && ext[i] > refs[i]->buf->size - refs[i]->offset) {
			*detail = details[i];
			return QUIRE_ERR_RANGE;
		}
	}
	return QUIRE_OK;
}

int quire_submit(struct quire_ctx *ctx, const struct quire_op *op, struct quire_req **out)
{
	if (!ctx || !op || !out)
		return QUIRE_ERR_INVALID;
	*out = NULL;
	if (quire_ctx_failed(ctx))
		return quire_ctx_failed(ctx);
	struct quire_req *req = calloc(1, sizeof(*req));
	if (!req)
		return QUIRE_ERR_NOMEM;
	req->ctx = ctx;
	int st = build_cmd(ctx, op, &req->cmd, &req->detail);
	if (st == QUIRE_OK) {
		req->cmd.seq = quire_cpu_to_le32(ctx->next_seq++);
		if (req->cmd.opcode == QUIRE_OPC_MLP_LOAD) { /* width[0] of the image's header */
			const uint8_t *w0 = (const uint8_t *)op->src.buf->ptr + op->src.offset +
					    QUIRE_MLP_HDR_WIDTH;
			ctx->loading_width0 = (uint32_t)w0[0] | (uint32_t)w0[1] << 8;
			ctx->mlp_loads++;
		}
		if (ctx->in_flight++ == 0) /* an idle card's standstill counts from the next read */
			ctx->progress_at = quire_now_ms();
		st = ctx->ops->submit(ctx, req);
		if (st != QUIRE_OK && !req->done)
			ctx->in_flight--;
		if (st == QUIRE_ERR_TIMEOUT || st == QUIRE_ERR_PEER)
			quire_ctx_fail(ctx, st);
	}
	if (st != QUIRE_OK) {
		free(req);
		return st;
	}
	*out = req;
	return QUIRE_OK;
}

void quire_req_complete(struct quire_req *req, int status, uint32_t result, uint32_t cycles,
			uint32_t detail)
{
	req->status = status;
	req->result = result;
	req->cycles = cycles;
	req->detail = detail;
	req->done = 1;
	req->ctx->in_flight--;
	req->ctx->progress_at = quire_now_ms();
	if (req->cmd.opcode == QUIRE_OPC_MLP_LOAD)
		req->ctx->mlp_width0 = status == QUIRE_OK ? req->ctx->loading_width0 : 0;
	if (req->on_done)
		req->on_done(req->done_arg, status);
}

int quire_test(struct quire_req *req)
{
	if (!req)
		return QUIRE_ERR_INVALID;
	int st = req->done ? req->status : quire_wait(req, 0);
	if (req->done)
		return req->status;
	/* Still in flight, unless the card turned out to be unresponsive or gone. */
	return quire_ctx_failed(req->ctx) ? st : QUIRE_ERR_BUSY;
}

/*
 * Has the card shown progress within the context's timeout? QUIRE_OK, or the status of
 * the failure (the context is then failed). The heartbeat and the card's clock are read at
 * most every QUIRE_HEARTBEAT_MS of wall time; the standstill is the card time from the
 * first read after the last progress to the latest read, so a card is judged by the work
 * it had the time to do, however slowly the machine runs it. A read that gets no answer
 * within the timeout (a card process stopped or wedged) fails the context as well.
 */
int quire_ctx_check_progress(struct quire_ctx *ctx)
{
	if (!ctx->ops->heartbeat || ctx->timeout_ms < 0)
		return QUIRE_OK;
	int64_t now = quire_now_ms();
	if (now - ctx->beat_read_at < QUIRE_HEARTBEAT_MS)
		return QUIRE_OK;
	uint32_t beat = 0;
	int64_t card_ms = -1;
	int st = ctx->ops->heartbeat(ctx, &beat, &card_ms, ctx->timeout_ms);
	if (st != QUIRE_OK) {
		quire_ctx_fail(ctx, st);
		return st;
	}
	now = quire_now_ms();
	if (card_ms < 0)
		card_ms = now; /* no card clock to read: wall time stands in for it */
	/* A clock that went back (the counter restarted) starts the count again, too. */
	if (beat != ctx->beat || ctx->progress_at >= ctx->beat_read_at ||
	    card_ms < ctx->still_since) {
		ctx->beat = beat;
		ctx->still_since = card_ms;
	}
	ctx->beat_read_at = now;
	if (card_ms - ctx->still_since >= ctx->timeout_ms) {
		quire_ctx_fail(ctx, QUIRE_ERR_TIMEOUT);
		return QUIRE_ERR_TIMEOUT;
	}
	return QUIRE_OK;
}

int quire_wait(struct quire_req *req, int timeout_ms)
{
	if (!req)
		return QUIRE_ERR_INVALID;
	struct quire_ctx *ctx = req->ctx;
	/* QUIRE_WAIT_DEFAULT: as long as the card makes progress. */
	int64_t end = timeout_ms < 0 ? -1 : quire_now_ms() + timeout_ms;
	while (!req->done) {
		if (quire_ctx_failed(ctx))
			return quire_ctx_failed(ctx);
		int64_t now = quire_now_ms();
		int slice = QUIRE_HEARTBEAT_MS;
		if (end >= 0 && end - now < slice)
			slice = end > now ? (int)(end - now) : 0;
		int st = ctx->ops->wait(ctx, req, slice);
		if (req->done)
			break;
		if (st == QUIRE_ERR_PEER) {
			quire_ctx_fail(ctx, st);
			quire_req_complete(req, st, 0, 0, QUIRE_DETAIL_NONE);
			break;
		}
		st = quire_ctx_check_progress(ctx);
		if (st != QUIRE_OK)
			return st; /* the call that finds it out says TIMEOUT (or PEER) */
		if (end >= 0 && quire_now_ms() >= end)
			return QUIRE_ERR_TIMEOUT; /* the caller's patience, not the card's fault */
	}
	return req->status;
}

uint32_t quire_req_result(const struct quire_req *req)
{
	return req ? req->result : 0;
}

uint32_t quire_req_cycles(const struct quire_req *req)
{
	return req ? req->cycles : 0;
}

uint32_t quire_req_detail(const struct quire_req *req)
{
	return req ? req->detail : 0;
}

void quire_req_free(struct quire_req *req)
{
	if (!req)
		return;
	struct quire_ctx *ctx = req->ctx;
	/* At most one timeout, and none once the card is known to be unresponsive. */
	if (!req->done && !quire_ctx_failed(ctx))
		(void)quire_wait(req, ctx->timeout_ms);
	if (!req->done) {
		ctx->ops->abandon(ctx, req);
		ctx->in_flight--;
	}
	free(req);
}

int quire_run(struct quire_ctx *ctx, const struct quire_op *op, uint32_t *result)
{
	struct quire_req *req;
	int st = quire_submit(ctx, op, &req);
	if (st != QUIRE_OK)
		return st;
	st = quire_wait(req, QUIRE_WAIT_DEFAULT);
	if (result)
		*result = req->result;
	quire_req_free(req);
	return st;
}
