// SPDX-License-Identifier: MIT
/*
 * Collectives on the host (the cpu backend): the cards' arithmetic, step for
 * step, with the transport moving integers and bytes.
 *
 * BFP all-reduce: local exponents -> max over ranks -> encode with the shared
 * exponents -> exact integer sum over ranks (int16 for bfp8 with W <= 258,
 * else int32) -> decode. FP16/FP32: every rank gathers every vector and adds
 * them in the documented ring order (quire_comm_chunk), fp16 partial sums
 * rounded to fp16 at every hop as the cards' ring does, so all ranks and both
 * backends hold the same bits. INT32: summed in int64, a sum out of int32
 * range is reported.
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
	free(c->scratch);
	free(c);
}

/* At least `bytes` of scratch, 64-byte aligned parts carved by the caller; NULL if out of memory.
 */
static void *scratch(struct quire_comm *c, size_t bytes)
{
	if (bytes > c->scratch_bytes) {
		void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
		if (!p)
			return NULL;
		free(c->scratch);
		c->scratch = p;
		c->scratch_bytes = bytes;
	}
	return c->scratch;
}

static size_t up64(size_t v)
{
	return (v + 63) & ~(size_t)63;
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
		memset(quire_buf_ptr(ef->resid), 0, ef->count * sizeof(float)); /* +0.0 */
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

static int allreduce_bfp(struct quire_comm *c, const struct quire_allreduce_args *a, const float *x,
			 float *resid, float *y)
{
	size_t n = a->count, nb = QUIRE_BFP_BLOCKS(n);
	int narrow =
	    a->format == QUIRE_FMT_BFP8 && (uint32_t)c->size <= QUIRE_BFP8_INT16_MAX_WORKERS;
	enum quire_format val = a->format == QUIRE_FMT_BFP8 ? QUIRE_FMT_INT8 : QUIRE_FMT_INT16;
	enum quire_format acc = narrow ? QUIRE_FMT_INT16 : QUIRE_FMT_INT32;
	size_t qb = up64(n * quire_format_bytes(val, 1)), sb = up64(n * quire_format_bytes(acc, 1));
	uint8_t *base = scratch(c, up64(nb) + qb + sb);
	if (!base)
		return QUIRE_ERR_NOMEM;
	int8_t *exp = (int8_t *)base;
	void *q = base + up64(nb), *sum = base + up64(nb) + qb;
	int st = QUIRE_OK;
	if (!st)
		st = quire_codec_exponents(a->format, n, x, resid, exp);
	if (!st)
		st = c->ops->max_i8(c, exp, nb);
	if (!st)
		st = quire_codec_encode(a->format, n, x, resid, exp, NULL, q);
	if (!st) { /* widen, then the exact sum travels in the narrowest integer that holds it */
		const void *in[1] = {q};
		st = quire_codec_sum(val, acc, 1, n, in, NULL, sum);
	}
	if (!st)
		st = c->ops->sum_int(c, sum, n, acc);
	if (!st)
		st = quire_codec_decode(a->format, acc, n, sum, exp,
					a->op == QUIRE_OP_MEAN ? (uint32_t)c->size : 1, y);
	return st;
}

static int allreduce_float(struct quire_comm *c, const struct quire_allreduce_args *a,
			   const float *x, float *y)
{
	size_t n = a->count, w = (size_t)c->size;
	int half = a->format == QUIRE_FMT_FP16;
	size_t eb = half ? 2 : 4;
	uint8_t *base =
	    scratch(c, up64(n * eb) + up64(n * eb * w) + (half ? n * 4 * w + n * 2 : 0));
	if (!base)
		return QUIRE_ERR_NOMEM;
	uint8_t *mine = base, *all = base + up64(n * eb);
	float *wide = half ? (float *)(all + up64(n * eb * w)) : NULL;
	uint16_t *hop = half ? (uint16_t *)(wide + n * w) : NULL;
	int st = QUIRE_OK;
	if (!st && half)
		st = quire_codec_encode(QUIRE_FMT_FP16, n, x, NULL, NULL, NULL, mine);
	else if (!st)
		memcpy(mine, x, n * 4);
	if (!st)
		st = c->ops->allgather(c, mine, all, n * eb);
	/* fp16 widens exactly to fp32, so widening first changes no sum. */
	if (!st && half)
		st = quire_codec_decode(QUIRE_FMT_FP16, QUIRE_FMT_FP16, n * w, all, NULL, 1, wide);
	const float *v = half ? wide : (const float *)all;
	float canonical_nan;
	uint32_t nan_bits = QUIRE_NAN_BITS;
	memcpy(&canonical_nan, &nan_bits, 4);
	/* Chunk k: ranks k+1, k+2, ..., k in turn (the ring order), then the mean's division.
	 * fp16 partial sums are fp16, as on the cards' ring: each hop adds in fp32 and rounds.
	 * Each element is its own chain of additions: the loops vectorize across elements
	 * without reordering any sum. */
	for (int k = 0; k < c->size && !st; k++) {
		size_t off, len;
		quire_comm_chunk(n, c->size, k, &off, &len);
		float *out = y + off;
		const float *first = v + (size_t)(k + 1) % w * n + off;
		memcpy(out, first, len * 4);
		for (size_t j = 1; j < w && !st; j++) {
			const float *in = v + (size_t)(k + 1 + (int)j) % w * n + off;
			for (size_t i = 0; i < len; i++) {
				float t = out[i] + in[i];
				out[i] = t != t ? canonical_nan : t; /* as the REDUCE engine */
			}
			if (half && len) {
				st = quire_codec_encode(QUIRE_FMT_FP16, len, out, NULL, NULL, NULL,
							hop);
				if (!st)
					st = quire_codec_decode(QUIRE_FMT_FP16, QUIRE_FMT_FP16, len,
								hop, NULL, 1, out);
			}
		}
		if (a->op == QUIRE_OP_MEAN) {
			const float div = (float)c->size;
			for (size_t i = 0; i < len; i++)
				out[i] = out[i] / div;
		}
	}
	return st;
}

static int allreduce_int32(struct quire_comm *c, size_t n, const int32_t *x, int32_t *y)
{
	int64_t *s = scratch(c, n * sizeof(int64_t));
	if (!s)
		return QUIRE_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		s[i] = x[i];
	int st = c->ops->sum_i64(c, s, n);
	for (size_t i = 0; !st && i < n; i++) {
		if (s[i] > INT32_MAX || s[i] < INT32_MIN) {
			st = QUIRE_ERR_OVERFLOW; /* saturated, reported: never wrapped */
			s[i] = s[i] > INT32_MAX ? INT32_MAX : INT32_MIN;
		}
	}
	for (size_t i = 0; i < n && (st == QUIRE_OK || st == QUIRE_ERR_OVERFLOW); i++)
		y[i] = (int32_t)s[i];
	return st;
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

static int allreduce_into(struct quire_comm *c, const struct quire_allreduce_args *a, float *y)
{
	int st = QUIRE_OK;
	const float *x = ref_ptr(&a->src, a->count * 4, &st);
	if (st)
		return st;
	float *resid = a->ef ? quire_buf_ptr(a->ef->resid) : NULL;
	if (a->format == QUIRE_FMT_BFP8 || a->format == QUIRE_FMT_BFP16)
		return allreduce_bfp(c, a, x, resid, y);
	if (a->format == QUIRE_FMT_INT32)
		return allreduce_int32(c, a->count, (const int32_t *)x, (int32_t *)y);
	return allreduce_float(c, a, x, y);
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
	return done_req(c, allreduce_into(c, a, y), req);
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
	float *y = malloc(a->count * 4);
	if (!y)
		return QUIRE_ERR_NOMEM;
	st = allreduce_into(c, a, y);
	if (st == QUIRE_OK || st == QUIRE_ERR_OVERFLOW)
		memcpy(mine, y + off, len * 4);
	free(y);
	return done_req(c, st, req);
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
	return done_req(c, c->ops->bcast(c, p, bytes, root), req);
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
	return done_req(c, c->ops->allgather(c, s, d, bytes), req);
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

static int self_max_i8(struct quire_comm *c, int8_t *buf, size_t n)
{
	(void)c, (void)buf, (void)n;
	return QUIRE_OK;
}

static int self_sum_int(struct quire_comm *c, void *buf, size_t n, enum quire_format fmt)
{
	(void)c, (void)buf, (void)n, (void)fmt;
	return QUIRE_OK;
}

static int self_sum_i64(struct quire_comm *c, int64_t *buf, size_t n)
{
	(void)c, (void)buf, (void)n;
	return QUIRE_OK;
}

static int self_allgather(struct quire_comm *c, const void *send, void *recv, size_t bytes)
{
	(void)c;
	memmove(recv, send, bytes);
	return QUIRE_OK;
}

static int self_bcast(struct quire_comm *c, void *buf, size_t bytes, int root)
{
	(void)c, (void)buf, (void)bytes, (void)root;
	return QUIRE_OK;
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
    .max_i8 = self_max_i8,
    .sum_int = self_sum_int,
    .sum_i64 = self_sum_i64,
    .allgather = self_allgather,
    .bcast = self_bcast,
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
