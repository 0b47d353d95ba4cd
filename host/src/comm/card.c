// SPDX-License-Identifier: MIT
/*
 * Card communicators: every collective is one descriptor, and the cards run
 * it among themselves over their network ports (firmware/allreduce.c). The
 * host only submits, and its request completes when the card's does.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "quire/regs.h"

int quire_card_address(struct quire_ctx *ctx, uint16_t *addr)
{
	if (!ctx || !addr)
		return QUIRE_ERR_INVALID;
	struct quire_info in;
	int st = quire_get_info(ctx, &in);
	if (st != QUIRE_OK)
		return st;
	if (!(in.caps & QUIRE_CAP_NET) || in.net.link != 1)
		return QUIRE_ERR_NOT_SUPPORTED; /* no card, or a card without a network */
	*addr = (uint16_t)in.net.addr;
	return QUIRE_OK;
}

int quire_comm_create(struct quire_ctx *ctx, const struct quire_comm_config *cfg,
		      struct quire_comm **out)
{
	if (!ctx || !cfg || !out || !cfg->addrs || cfg->size < 1 ||
	    (uint32_t)cfg->size > QUIRE_CMD_MAX_WORKERS || cfg->rank < 0 ||
	    cfg->rank >= cfg->size || cfg->id == 0 || cfg->timeout_ms < 0 ||
	    (uint32_t)cfg->timeout_ms > QUIRE_COMM_TIMEOUT_MAX_MS)
		return QUIRE_ERR_INVALID;
	*out = NULL;
	if (!(ctx->ops->caps & QUIRE_BACKEND_CAP_CARD_NET))
		return QUIRE_ERR_NOT_SUPPORTED; /* no card network: use a host transport (MPI) */
	struct quire_comm *c = calloc(1, sizeof(*c));
	if (!c)
		return QUIRE_ERR_NOMEM;
	struct quire_buf *desc;
	uint32_t bytes = QUIRE_COMM_DESC_BYTES((uint32_t)cfg->size);
	int st = quire_buf_alloc(ctx, bytes, &desc);
	if (st != QUIRE_OK) {
		free(c);
		return st;
	}
	struct quire_comm_desc *d = quire_buf_ptr(desc);
	memset(d, 0, bytes);
	/* What the card reads is little-endian (quire/cmd.h). */
	d->comm = quire_cpu_to_le16(cfg->id);
	d->rank = quire_cpu_to_le16(cfg->rank);
	d->size = quire_cpu_to_le16(cfg->size);
	d->timeout_ms =
	    quire_cpu_to_le32(cfg->timeout_ms ? cfg->timeout_ms : quire_env_timeout_ms());
	for (int i = 0; i < cfg->size; i++)
		d->addr[i] = quire_cpu_to_le16(cfg->addrs[i]);
	struct quire_op op = {.opcode = QUIRE_OPC_COMM_INIT, .count = bytes, .src = {desc, 0}};
	st = quire_run(ctx, &op, NULL);
	quire_buf_free(desc);
	if (st != QUIRE_OK) {
		free(c);
		return st;
	}
	c->ctx = ctx;
	c->rank = cfg->rank;
	c->size = cfg->size;
	c->card_id = cfg->id;
	*out = c;
	return QUIRE_OK;
}

void quire_card_comm_free(struct quire_comm *c)
{
	struct quire_op op = {.opcode = QUIRE_OPC_COMM_FREE, .workers = c->card_id};
	(void)quire_run(c->ctx, &op, NULL);
}

/* The request's collective succeeded: the new residual becomes the state. */
static void ef_commit(void *arg, int status)
{
	struct quire_ef *ef = arg;
	if (status != QUIRE_OK && status != QUIRE_ERR_OVERFLOW)
		return;
	struct quire_buf *t = ef->resid;
	ef->resid = ef->next;
	ef->next = t;
}

/* Submit op; with req NULL, wait for it here and return its status. */
static int submit(struct quire_comm *c, const struct quire_op *op, struct quire_ef *ef,
		  struct quire_req **out)
{
	struct quire_req *req;
	int st = quire_submit(c->ctx, op, &req);
	if (st != QUIRE_OK)
		return st;
	if (ef) {
		req->on_done = ef_commit;
		req->done_arg = ef;
	}
	if (out) {
		*out = req;
		return QUIRE_OK;
	}
	st = quire_wait(req, QUIRE_WAIT_DEFAULT);
	quire_req_free(req);
	return st;
}

/* ALLREDUCE or REDUCE_SCATTER (stride: this rank's chunk) of a. */
static int reduction(struct quire_comm *c, const struct quire_allreduce_args *a,
		     enum quire_opcode opcode, uint64_t stride, struct quire_req **req)
{
	struct quire_ef *ef = a->ef;
	if (ef && ef->count != a->count)
		return QUIRE_ERR_SIZE; /* the state would be half swapped: one per tensor */
	/* Requantized: stride is this member's segment, whose owner residual ef holds. */
	int rq = opcode == QUIRE_OPC_ALLREDUCE && quire_comm_requant(c, a->format);
	size_t off, len = 0;
	if (rq) {
		quire_comm_chunk(a->count, c->size, c->rank, &off, &len);
		stride = len;
	}
	int st = ef ? quire_ef_hold_owner(ef, len) : QUIRE_OK;
	if (!st && ef && !ef->next)
		st = quire_buf_alloc(c->ctx, (ef->count + ef->owner) * sizeof(float), &ef->next);
	if (st != QUIRE_OK)
		return st;
	struct quire_op op = {
	    .opcode = opcode,
	    .flags = (ef ? QUIRE_CMD_F_EF : 0u) | (a->op == QUIRE_OP_MEAN ? QUIRE_CMD_F_MEAN : 0u) |
		     (rq ? QUIRE_CMD_F_REQUANT : 0u),
	    .format = a->format,
	    .count = (uint32_t)a->count,
	    .workers = c->card_id,
	    .src = a->src,
	    .dst = a->dst,
	    .stride = stride,
	};
	if (ef) {
		op.aux = (struct quire_ref){ef->resid, 0};
		op.exp = (struct quire_ref){ef->next, 0};
	}
	return submit(c, &op, ef, req);
}

int quire_card_allreduce(struct quire_comm *c, const struct quire_allreduce_args *a,
			 struct quire_req **req)
{
	return reduction(c, a, QUIRE_OPC_ALLREDUCE, 0, req);
}

int quire_card_barrier(struct quire_comm *c, struct quire_req **req)
{
	struct quire_op op = {.opcode = QUIRE_OPC_BARRIER, .workers = c->card_id};
	return submit(c, &op, NULL, req);
}

int quire_card_reduce_scatter(struct quire_comm *c, const struct quire_allreduce_args *a,
			      struct quire_req **req)
{
	size_t off, len;
	quire_comm_chunk(a->count, c->size, c->rank, &off, &len);
	/* The card checks that it computes the same chunk. */
	return reduction(c, a, QUIRE_OPC_REDUCE_SCATTER, len, req);
}

int quire_card_broadcast(struct quire_comm *c, struct quire_ref buf, size_t bytes, int root,
			 struct quire_req **req)
{
	if (bytes == 0 || bytes > QUIRE_CMD_MAX_ELEMS)
		return QUIRE_ERR_SIZE;
	struct quire_op op = {.opcode = QUIRE_OPC_BROADCAST,
			      .count = (uint32_t)bytes,
			      .workers = c->card_id,
			      .dst = buf,
			      .stride = (uint64_t)root};
	return submit(c, &op, NULL, req);
}

int quire_card_allgather(struct quire_comm *c, struct quire_ref src, struct quire_ref dst,
			 size_t bytes, struct quire_req **req)
{
	if (bytes == 0 || bytes > QUIRE_CMD_MAX_ELEMS)
		return QUIRE_ERR_SIZE;
	struct quire_op op = {.opcode = QUIRE_OPC_ALLGATHER,
			      .count = (uint32_t)bytes,
			      .workers = c->card_id,
			      .src = src,
			      .dst = dst,
			      .stride = (uint64_t)bytes * (uint64_t)c->size};
	return submit(c, &op, NULL, req);
}
