// SPDX-License-Identifier: MIT
/* Requests: from a quire_op to a checked descriptor, and their lives. */
#include <stdlib.h>
#include <string.h>

#include "../../../firmware/fw.h"
#include "core.h"

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
	c->format = (uint16_t)op->format;
	c->val_format = (uint16_t)op->val_format;
	c->count = op->count;
	c->workers = (uint16_t)op->workers;
	c->stride = op->stride;
	const struct quire_ref *refs[4] = {&op->src, &op->dst, &op->exp, &op->aux};
	__u64 *addrs[4] = {&c->src, &c->dst, &c->exp, &c->aux};
	static const uint32_t details[4] = {QUIRE_DETAIL_SRC, QUIRE_DETAIL_DST, QUIRE_DETAIL_EXP,
					    QUIRE_DETAIL_AUX};
	for (int i = 0; i < 4; i++) {
		if (ref_addr(ctx, refs[i], addrs[i]) != QUIRE_OK) {
			*detail = details[i];
			return QUIRE_ERR_INVALID;
		}
	}
	int st = quire_fw_validate(c, detail);
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
	struct quire_req *req = calloc(1, sizeof(*req));
	if (!req)
		return QUIRE_ERR_NOMEM;
	req->ctx = ctx;
	int st = build_cmd(ctx, op, &req->cmd, &req->detail);
	if (st == QUIRE_OK) {
		req->cmd.seq = ctx->next_seq++;
		if (req->cmd.opcode == QUIRE_OPC_MLP_LOAD) /* width[0] of the image's header */
			ctx->loading_width0 =
			    (uint32_t)((const uint8_t *)op->src.buf->ptr)[op->src.offset + 8] |
			    (uint32_t)((const uint8_t *)op->src.buf->ptr)[op->src.offset + 9] << 8;
		st = ctx->ops->submit(ctx, req);
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
	if (req->cmd.opcode == QUIRE_OPC_MLP_LOAD)
		req->ctx->mlp_width0 = status == QUIRE_OK ? req->ctx->loading_width0 : 0;
	if (req->on_done)
		req->on_done(req->done_arg, status);
}

/* Collectives wait for peers: the card bounds that wait itself (the communicator's
 * timeout), so the host waits for its answer however long the data takes. */
static int is_collective(const struct quire_req *req)
{
	switch (req->cmd.opcode) {
	case QUIRE_OPC_ALLREDUCE:
	case QUIRE_OPC_REDUCE_SCATTER:
	case QUIRE_OPC_ALLGATHER:
	case QUIRE_OPC_BROADCAST:
	case QUIRE_OPC_BARRIER:
		return 1;
	default:
		return 0;
	}
}

int quire_test(struct quire_req *req)
{
	if (!req)
		return QUIRE_ERR_INVALID;
	if (!req->done)
		req->ctx->ops->wait(req->ctx, req, 0);
	return req->done ? req->status : QUIRE_ERR_BUSY;
}

int quire_wait(struct quire_req *req, int timeout_ms)
{
	if (!req)
		return QUIRE_ERR_INVALID;
	if (timeout_ms == QUIRE_WAIT_DEFAULT)
		timeout_ms = is_collective(req) ? QUIRE_WAIT_FOREVER : req->ctx->timeout_ms;
	if (!req->done) {
		int st = req->ctx->ops->wait(req->ctx, req, timeout_ms);
		if (st == QUIRE_ERR_PEER)
			quire_req_complete(req, st, 0, 0, QUIRE_DETAIL_NONE);
		else if (st != QUIRE_OK)
			return st;
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
	if (!req->done && quire_wait(req, QUIRE_WAIT_DEFAULT) == QUIRE_ERR_TIMEOUT)
		req->ctx->ops->abandon(req->ctx, req);
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
