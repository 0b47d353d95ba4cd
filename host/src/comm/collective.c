// SPDX-License-Identifier: MIT
/*
 * Communicators: the public collectives, sent to the cards (card.c) or run on
 * the host's ring over a transport (ring_collective.c: the cpu backend over MPI); the
 * communicator of one rank; error-feedback state; the ring's wire model.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"

int quire_comm_rank(const struct quire_comm *c)
{
	return c ? c->rank : -1;
}

int quire_comm_size(const struct quire_comm *c)
{
	return c ? c->size : 0;
}

void quire_comm_free(struct quire_comm *c)
{
	if (!c)
		return;
	if (c->card_id)
		quire_card_comm_free(c);
	else
		c->ops->free(c);
	if (!c->failed) /* else messages given up on may still land in it: kept */
		free(c->scratch);
	free(c);
}

void quire_comm_chunk(size_t count, int size, int k, size_t *offset, size_t *len)
{
	size_t blocks = QUIRE_BFP_BLOCKS(count), w = (size_t)size, kk = (size_t)k;
	size_t first = QUIRE_RING_SEG_FIRST(blocks, w, kk);
	size_t nb = QUIRE_RING_SEG_BLOCKS(blocks, w, kk);
	size_t off = first * QUIRE_BFP_BLOCK, end = (first + nb) * QUIRE_BFP_BLOCK;
	*offset = off < count ? off : count;
	*len = (end < count ? end : count) - *offset;
}

int quire_ef_create(struct quire_ctx *ctx, size_t count, struct quire_ef **out)
{
	if (!ctx || !out || count == 0)
		return QUIRE_ERR_INVALID;
	struct quire_ef *ef = calloc(1, sizeof(*ef));
	if (!ef)
		return QUIRE_ERR_NOMEM;
	int st = quire_buf_alloc(ctx, count * sizeof(float), &ef->resid);
	if (st) {
		free(ef);
		return st;
	}
	ef->ctx = ctx;
	ef->count = count;
	quire_ef_reset(ef);
	*out = ef;
	return QUIRE_OK;
}

void quire_ef_reset(struct quire_ef *ef)
{
	if (ef)
		memset(quire_buf_ptr(ef->resid), 0,
		       (ef->count + ef->owner) * sizeof(float)); /* +0.0, the owner's too */
}

int quire_ef_read(const struct quire_ef *ef, float *dst, size_t count)
{
	if (!ef || !dst)
		return QUIRE_ERR_INVALID;
	if (count != ef->count)
		return QUIRE_ERR_SIZE;
	memcpy(dst, quire_buf_ptr(ef->resid), count * sizeof(float));
	return QUIRE_OK;
}

int quire_ef_write(struct quire_ef *ef, const float *src, size_t count)
{
	if (!ef || !src)
		return QUIRE_ERR_INVALID;
	if (count != ef->count)
		return QUIRE_ERR_SIZE;
	memcpy(quire_buf_ptr(ef->resid), src, count * sizeof(float));
	return QUIRE_OK;
}

void quire_ef_free(struct quire_ef *ef)
{
	if (!ef)
		return;
	quire_buf_free(ef->resid);
	quire_buf_free(ef->next);
	free(ef);
}

/* A request that finished inside the call. */
static int done_req(struct quire_comm *c, int status, struct quire_req **out)
{
	if (!out)
		return status;
	struct quire_req *req = calloc(1, sizeof(*req));
	if (!req)
		return QUIRE_ERR_NOMEM;
	req->ctx = c->ctx;
	req->done = 1;
	req->status = status;
	*out = req;
	return QUIRE_OK;
}

static void *ref_ptr(const struct quire_ref *r, size_t bytes, int *st)
{
	if (!r->buf || r->offset > r->buf->size || bytes > r->buf->size - r->offset) {
		*st = r->buf ? QUIRE_ERR_RANGE : QUIRE_ERR_INVALID;
		return NULL;
	}
	return (uint8_t *)r->buf->ptr + r->offset;
}

static int check_args(struct quire_comm *c, const struct quire_allreduce_args *a)
{
	if (!c || !a)
		return QUIRE_ERR_INVALID;
	if (a->op != QUIRE_OP_SUM && a->op != QUIRE_OP_MEAN)
		return QUIRE_ERR_INVALID;
	int bfp = a->format == QUIRE_FMT_BFP8 || a->format == QUIRE_FMT_BFP16;
	if (!bfp && a->format != QUIRE_FMT_FP16 && a->format != QUIRE_FMT_FP32 &&
	    a->format != QUIRE_FMT_INT32)
		return QUIRE_ERR_FORMAT;
	if ((a->ef && !bfp) || (a->format == QUIRE_FMT_INT32 && a->op == QUIRE_OP_MEAN))
		return QUIRE_ERR_INVALID;
	if (a->ef && (a->ef->ctx != c->ctx || a->ef->count < a->count))
		return QUIRE_ERR_INVALID;
	if (a->count == 0 || a->count > QUIRE_CMD_MAX_ELEMS)
		return QUIRE_ERR_SIZE;
	return QUIRE_OK;
}

int quire_allreduce(struct quire_comm *c, const struct quire_allreduce_args *a,
		    struct quire_req **req)
{
	int st = check_args(c, a);
	if (st)
		return st;
	float *y = ref_ptr(&a->dst, a->count * 4, &st);
	if (st)
		return st;
	if (c->card_id)
		return quire_card_allreduce(c, a, req);
	const float *x = ref_ptr(&a->src, a->count * 4, &st);
	return st ? st : done_req(c, quire_ring_collective_allreduce(c, a, x, y, 0), req);
}

int quire_reduce_scatter(struct quire_comm *c, const struct quire_allreduce_args *a,
			 struct quire_req **req)
{
	int st = check_args(c, a);
	if (st)
		return st;
	size_t off, len;
	quire_comm_chunk(a->count, c->size, c->rank, &off, &len);
	float *mine = ref_ptr(&a->dst, len * 4, &st);
	if (st)
		return st;
	if (c->card_id)
		return quire_card_reduce_scatter(c, a, req);
	const float *x = ref_ptr(&a->src, a->count * 4, &st);
	return st ? st : done_req(c, quire_ring_collective_allreduce(c, a, x, mine, 1), req);
}

int quire_broadcast(struct quire_comm *c, struct quire_ref buf, size_t bytes, int root,
		    struct quire_req **req)
{
	int st = QUIRE_OK;
	if (!c || root < 0 || root >= c->size)
		return QUIRE_ERR_INVALID;
	void *p = ref_ptr(&buf, bytes, &st);
	if (st)
		return st;
	if (c->card_id)
		return quire_card_broadcast(c, buf, bytes, root, req);
	return done_req(c, quire_ring_collective_broadcast(c, p, bytes, root), req);
}

int quire_allgather(struct quire_comm *c, struct quire_ref src, struct quire_ref dst, size_t bytes,
		    struct quire_req **req)
{
	int st = QUIRE_OK;
	if (!c)
		return QUIRE_ERR_INVALID;
	const void *s = ref_ptr(&src, bytes, &st);
	void *d = st ? NULL : ref_ptr(&dst, bytes * (size_t)c->size, &st);
	if (st)
		return st;
	if (c->card_id)
		return quire_card_allgather(c, src, dst, bytes, req);
	return done_req(c, quire_ring_collective_allgather(c, s, d, bytes), req);
}

int quire_barrier(struct quire_comm *c, struct quire_req **req)
{
	if (!c)
		return QUIRE_ERR_INVALID;
	if (c->card_id)
		return quire_card_barrier(c, req);
	return done_req(c, c->ops->barrier(c), req);
}

/* ---- a communicator of one rank: same code path, nothing to move ---- */

/* Never called: the ring moves nothing on one rank. */
static int self_isend(struct quire_comm *c, const void *buf, size_t bytes, int flag,
		      struct quire_xfer *x)
{
	(void)c, (void)buf, (void)bytes, (void)flag, (void)x;
	return QUIRE_ERR_INVALID;
}

static int self_irecv(struct quire_comm *c, void *buf, size_t bytes, struct quire_xfer *x)
{
	(void)c, (void)buf, (void)bytes, (void)x;
	return QUIRE_ERR_INVALID;
}

static int self_wait(struct quire_comm *c, struct quire_xfer *x, int *flag)
{
	(void)c, (void)x, (void)flag;
	return QUIRE_ERR_INVALID;
}

static void self_abandon(struct quire_comm *c, struct quire_xfer *x)
{
	(void)c, (void)x;
}

static int self_barrier(struct quire_comm *c)
{
	(void)c;
	return QUIRE_OK;
}

static void self_free(struct quire_comm *c)
{
	(void)c;
}

static const struct quire_comm_ops self_ops = {
    .isend = self_isend,
    .irecv = self_irecv,
    .wait = self_wait,
    .abandon = self_abandon,
    .barrier = self_barrier,
    .free = self_free,
};

int quire_comm_self(struct quire_ctx *ctx, struct quire_comm **out)
{
	if (!ctx || !out)
		return QUIRE_ERR_INVALID;
	if (quire_ctx_failed(ctx))
		return quire_ctx_failed(ctx);
	struct quire_comm *c = calloc(1, sizeof(*c));
	if (!c)
		return QUIRE_ERR_NOMEM;
	c->ctx = ctx;
	c->rank = 0;
	c->size = 1;
	c->ops = &self_ops;
	*out = c;
	return QUIRE_OK;
}

uint64_t quire_allreduce_wire_bytes(enum quire_format fmt, int size, size_t count)
{
	if (size <= 1 || count == 0)
		return 0;
	/*
	 * The cards' ring, summed over the W ranks: each of the W-1 reduce-scatter steps and
	 * each of the W-1 all-gather steps moves every segment once, n elements in all. Step 0
	 * carries one contribution in its own type; later steps partial sums in the narrowest
	 * type that cannot overflow; the all-gather the finished sums. BFP adds the exponent
	 * ring: 2(W-1) bytes per block. One rank's share is the total over W.
	 */
	uint64_t w = (uint64_t)size, n = count, blocks = QUIRE_BFP_BLOCKS(n);
	uint64_t first, part, fin, exps = 0;
	switch (fmt) {
	case QUIRE_FMT_FP32:
		first = part = fin = 4;
		break;
	case QUIRE_FMT_FP16:
		first = part = fin = 2;
		break;
	case QUIRE_FMT_BFP8:
		first = 1;
		part = fin = w <= QUIRE_BFP8_INT16_MAX_WORKERS ? 2 : 4;
		exps = 2 * (w - 1) * blocks;
		break;
	case QUIRE_FMT_BFP16:
		first = 2;
		part = fin = 4;
		exps = 2 * (w - 1) * blocks;
		break;
	case QUIRE_FMT_INT32:
		first = 4;
		part = 8;
		fin = 4;
		break;
	default:
		return 0;
	}
	return (n * (first + (w - 2) * part + (w - 1) * fin) + exps) / w;
}
