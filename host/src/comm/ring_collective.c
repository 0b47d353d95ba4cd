// SPDX-License-Identifier: MIT
/*
 * The ring collective on a host transport (the cpu backend over MPI): the
 * ranks in a ring, as the cards are (not a command ring: those are the
 * driver's, driver/quire_ring.c), with the schedule of firmware/allreduce.c
 * and firmware/gather.c and the host's codec doing the engines' work, so every
 * rank and both backends hold the same bits.
 *
 * All-reduce: rank r owns segment r (quire_comm_chunk's split, whole blocks).
 * Reduce-scatter step s sends segment r-s-1 to r+1, having added this rank's
 * part to what r-1 sent at step s-1, so segment k adds the ranks in the order
 * k+1, k+2, ..., k; after W-1 steps r finishes segment r, decodes it, and the
 * all-gather passes the finished segments on. BFP first agrees on exponents
 * with the same ring, max instead of sum. Step 0 carries one contribution in
 * its own type (int8 for bfp8, fp16, int32), later steps the narrowest partial
 * sum that cannot overflow (docs/collectives.md has the table).
 *
 * With the requantized all-gather (requant.c) the owner requantizes what it finishes and
 * the all-gather moves values and exponents; every message of such an all-reduce is
 * marked, and the mark of a rank whose options differ travels on with the exponents'
 * ring, so every rank knows by the end of it and fails with QUIRE_ERR_MISMATCH.
 *
 * Each step is cut into messages of about CHUNK_BYTES; every receive of a pass
 * is posted before the first computation, and each chunk is encoded, added and
 * sent as soon as its input arrived, so coding overlaps the transfer of the
 * chunks before and after it. Buffers are indexed by element: no two messages
 * of a pass share bytes, so nothing waits for a send before the pass ends.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"

#define CHUNK_BYTES ((size_t)256 << 10) /* per message: large enough for TCP, small to overlap */

struct pass {
	struct quire_comm *c;
	const struct quire_allreduce_args *a;
	const float *x;
	float *resid;
	int8_t *exp; /* local exponents, then the shared ones (delivered in place) */
	float *y;    /* the caller's dst: the whole vector, or this rank's segment */
	size_t n;    /* elements */
	int exps;    /* the exponent pass: units are blocks */
	size_t chunk;
	enum quire_format val, part, fin; /* contribution, partial sums, finished sums */
	size_t b0, pb, fb;                /* bytes per unit at step 0, of partials, of finished */
	int narrow;                       /* step 0 travels in val, narrower than part */
	int scatter;                      /* reduce-scatter: only this rank's segment, to y */
	size_t out0;                      /* first element of y */
	int overflow;
	uint8_t *rx, *tx, *done; /* received, sent (partials), finished: each unit-indexed */
	uint8_t *loc;            /* one chunk of this rank's contribution */
	float *fa, *fb32;        /* one chunk each of fp32 for the fp16 hop */
	int rq;                  /* requantized all-gather: done holds values and exponents */
	float *own;              /* the owner residual of this rank's segment, or NULL */
	size_t own0;             /* its first element */
	int tag;                 /* QUIRE_XFER_F_REQUANT on every message, or 0 */
	int mismatch;            /* some rank's options differ from this one's */
};

/* Where the finished chunk at unit off lies in done; requantized, its values and its
 * exponents (chunks are whole blocks but the last). */
static uint8_t *done_at(const struct pass *p, size_t off)
{
	if (p->rq && !p->exps)
		return p->done + quire_ring_requant_bytes(p->a->format, off);
	return p->done + off * p->fb;
}

/* Bytes of an all-gather message of len units. */
static size_t gathered_bytes(const struct pass *p, size_t len)
{
	return p->rq && !p->exps ? quire_ring_requant_bytes(p->a->format, len) : len * p->fb;
}

/* A message's flags: its options against this rank's; the flags to send from now on. */
static void heard(struct pass *p, int fl)
{
	if ((fl & QUIRE_XFER_F_REQUANT) != p->tag || (fl & QUIRE_XFER_F_MISMATCH))
		p->mismatch = 1;
}

static int tags(const struct pass *p, int fl)
{
	return (fl & QUIRE_XFER_F_OVERFLOW) | p->tag | (p->mismatch ? QUIRE_XFER_F_MISMATCH : 0);
}

static size_t up64(size_t v)
{
	return (v + 63) & ~(size_t)63;
}

static size_t fmt_bytes(enum quire_format f)
{
	return f == QUIRE_FMT_INT64 ? 8 : quire_format_bytes(f, 1);
}

/* Rank k's segment, in units. */
static void segment(const struct pass *p, int k, size_t *off, size_t *len)
{
	if (!p->exps) {
		quire_comm_chunk(p->n, p->c->size, k, off, len);
		return;
	}
	size_t blocks = QUIRE_BFP_BLOCKS(p->n), w = (size_t)p->c->size, kk = (size_t)k;
	*off = QUIRE_RING_SEG_FIRST(blocks, w, kk);
	*len = QUIRE_RING_SEG_BLOCKS(blocks, w, kk);
}

/* This rank's contribution to units [off, off + len), in p->val, at out. */
static int local(struct pass *p, size_t off, size_t len, void *out)
{
	enum quire_format f = p->a->format;
	if (p->exps) {
		memcpy(out, p->exp + off, len);
		return QUIRE_OK;
	}
	if (f == QUIRE_FMT_FP32 || f == QUIRE_FMT_INT32) {
		memcpy(out, p->x + off, 4 * len);
		return QUIRE_OK;
	}
	if (f == QUIRE_FMT_FP16)
		return quire_codec_encode(f, len, p->x + off, NULL, NULL, NULL, out);
	/* Each element is encoded once per collective, so its residual is final here. */
	return quire_codec_encode(f, len, p->x + off, p->resid ? p->resid + off : NULL,
				  p->exp + off / QUIRE_BFP_BLOCK, NULL, out);
}

/* o = s + l in fp32, element by element (each element its own chain: vectorizes without
 * reordering any sum); a NaN is the one quiet NaN, as the REDUCE engine gives. o may be s. */
static void add_floats(size_t n, const float *s, const float *restrict l, float *o)
{
	float nan;
	uint32_t b = QUIRE_NAN_BITS;
	memcpy(&nan, &b, 4);
	for (size_t i = 0; i < n; i++) {
		float t = s[i] + l[i];
		o[i] = t != t ? nan : t;
	}
}

/* out (TO) = loc (L) + in (IN, or none); exact: the ring picks TO so no sum overflows. */
#define ADD_INTS(L, IN, TO)                                                                        \
	do {                                                                                       \
		const L *restrict l_ = loc;                                                        \
		const IN *restrict s_ = in;                                                        \
		TO *restrict o_ = out;                                                             \
		if (!s_)                                                                           \
			for (size_t i = 0; i < n; i++)                                             \
				o_[i] = (TO)l_[i];                                                 \
		else                                                                               \
			for (size_t i = 0; i < n; i++)                                             \
				o_[i] = (TO)((TO)l_[i] + (TO)s_[i]);                               \
	} while (0)

/* Integer partial sums: this rank's contribution (val) plus what came in: one contribution
 * (val) when narrow, else a partial sum (part). Integer sums are exact, so the same in any
 * order; plain loops the compiler vectorizes, where the codec's generic sum is scalar. */
static void add_ints(enum quire_format val, enum quire_format part, size_t n, const void *loc,
		     const void *in, int narrow, void *out)
{
	if (val == QUIRE_FMT_INT8 && part == QUIRE_FMT_INT16) {
		if (narrow)
			ADD_INTS(int8_t, int8_t, int16_t);
		else
			ADD_INTS(int8_t, int16_t, int16_t);
	} else if (val == QUIRE_FMT_INT8) { /* int32 partials: bfp8 over more than 258 ranks */
		if (narrow)
			ADD_INTS(int8_t, int8_t, int32_t);
		else
			ADD_INTS(int8_t, int32_t, int32_t);
	} else if (val == QUIRE_FMT_INT16) {
		if (narrow)
			ADD_INTS(int16_t, int16_t, int32_t);
		else
			ADD_INTS(int16_t, int32_t, int32_t);
	} else { /* int32 into int64 */
		if (narrow)
			ADD_INTS(int32_t, int32_t, int64_t);
		else
			ADD_INTS(int32_t, int64_t, int64_t);
	}
}

/* out <- in (a partial sum, or one contribution when narrow; NULL: none) plus this rank's
 * part, in p->part. */
static int combine(struct pass *p, size_t off, size_t len, const void *in, int narrow, void *out)
{
	enum quire_format f = p->a->format;
	if (len == 0)
		return QUIRE_OK;
	if (p->exps) {
		const int8_t *e = in;
		int8_t *o = out;
		for (size_t i = 0; i < len; i++)
			o[i] = in && e[i] > p->exp[off + i] ? e[i] : p->exp[off + i];
		return QUIRE_OK;
	}
	if (!in && p->val == p->part)
		return local(p, off, len, out);
	if (f == QUIRE_FMT_FP32) { /* the contribution is the caller's own fp32 */
		add_floats(len, in, p->x + off, out);
		return QUIRE_OK;
	}
	int st = local(p, off, len, p->loc);
	if (st)
		return st;
	if (f == QUIRE_FMT_INT32 || f == QUIRE_FMT_BFP8 || f == QUIRE_FMT_BFP16) {
		add_ints(p->val, p->part, len, p->loc, in, narrow, out);
		return QUIRE_OK;
	}
	if (f == QUIRE_FMT_FP16) { /* fp16 widens exactly; add in fp32, round to fp16 */
		st = quire_codec_decode(f, f, len, in, NULL, 1, p->fa);
		if (!st)
			st = quire_codec_decode(f, f, len, p->loc, NULL, 1, p->fb32);
		if (!st)
			add_floats(len, p->fa, p->fb32, p->fa);
		return st ? st : quire_codec_encode(f, len, p->fa, NULL, NULL, NULL, out);
	}
	return QUIRE_ERR_FORMAT;
}

/* The owner's last addition: the finished sum in p->fin at out; *flag set on overflow. */
static int finish(struct pass *p, size_t off, size_t len, const void *in, int narrow, void *out,
		  int *flag)
{
	*flag = 0;
	if (p->part == p->fin)
		return combine(p, off, len, in, narrow, out);
	/* int32 from int64: saturated and reported, never wrapped. */
	int64_t *t = (int64_t *)p->tx + off; /* this rank's own segment is never sent from tx */
	int st = combine(p, off, len, in, narrow, t);
	int32_t *o = out;
	for (size_t i = 0; !st && i < len; i++) {
		int64_t v = t[i];
		if (v > INT32_MAX || v < INT32_MIN) {
			*flag = QUIRE_XFER_F_OVERFLOW;
			v = v > INT32_MAX ? INT32_MAX : INT32_MIN;
		}
		o[i] = (int32_t)v;
	}
	return st;
}

/* A finished chunk: into the shared exponents, or decoded into the caller's dst. */
static int deliver(struct pass *p, size_t off, size_t len, const void *fin, int flag)
{
	enum quire_format f = p->a->format;
	p->overflow |= flag & QUIRE_XFER_F_OVERFLOW;
	if (len == 0)
		return QUIRE_OK;
	if (p->exps) {
		memcpy(p->exp + off, fin, len);
		return QUIRE_OK;
	}
	float *y = p->y + (off - p->out0);
	if (p->rq)
		return quire_ring_requant_decode(f, len, fin, y);
	uint32_t mean_w = p->a->op == QUIRE_OP_MEAN ? (uint32_t)p->c->size : 1;
	if (f == QUIRE_FMT_INT32 || (f == QUIRE_FMT_FP32 && mean_w == 1)) {
		memcpy(y, fin, 4 * len);
		return QUIRE_OK;
	}
	if (f == QUIRE_FMT_FP32) {
		const float *s = fin, div = (float)mean_w;
		for (size_t i = 0; i < len; i++)
			y[i] = s[i] / div;
		return QUIRE_OK;
	}
	if (f == QUIRE_FMT_FP16)
		return quire_codec_decode(f, f, len, fin, NULL, mean_w, y);
	return quire_codec_decode(f, p->fin, len, fin, p->exp + off / QUIRE_BFP_BLOCK, mean_w, y);
}

/* Messages of a pass, in the order rank r-1 sends them. */
struct plan {
	struct quire_xfer *x;
	size_t count, next;
};

static size_t chunks(size_t len, size_t chunk)
{
	return len ? (len + chunk - 1) / chunk : 1; /* an empty segment still sends one message */
}

/* Walks the chunks of [so, so + sl): an empty segment is one empty chunk, so every step
 * moves at least one message and no rank runs ahead of a step it was not told about. */
#define FOR_CHUNKS(so, sl, chunk, off, len)                                                        \
	for (size_t off = (so), end_ = (so) + (sl),                                                \
		    len = end_ - off < (chunk) ? end_ - off : (chunk), once_ = 1;                  \
	     once_ || off < end_;                                                                  \
	     once_ = 0, off += len, len = end_ - off < (chunk) ? end_ - off : (chunk))

static int post(struct pass *p, struct plan *in)
{
	struct quire_comm *c = p->c;
	int w = c->size, r = c->rank;
	size_t so, sl, k = 0;
	in->count = 0;
	for (int s = 0; s + 1 < w; s++) {
		segment(p, QUIRE_RING_STEP_SEG(r + w - 1, w, s), &so, &sl); /* what r-1 sends */
		in->count += chunks(sl, p->chunk);
	}
	for (int s = 0; !p->scatter && s + 1 < w; s++) {
		segment(p, QUIRE_RING_STEP_SEG(r, w, s), &so, &sl);
		in->count += chunks(sl, p->chunk);
	}
	in->x = calloc(in->count, sizeof(*in->x));
	if (!in->x)
		return QUIRE_ERR_NOMEM;
	int st = QUIRE_OK;
	for (int s = 0; s + 1 < w && !st; s++) { /* r-1's reduce-scatter step s */
		segment(p, QUIRE_RING_STEP_SEG(r + w - 1, w, s), &so, &sl); /* what r-1 sends */
		size_t b = s == 0 ? p->b0 : p->pb;
		FOR_CHUNKS(so, sl, p->chunk, off, len)
		if (!st)
			st = c->ops->irecv(c, p->rx + off * p->pb, len * b, &in->x[k++]);
	}
	for (int s = 0; !p->scatter && s + 1 < w && !st; s++) { /* r-1's all-gather step s */
		segment(p, QUIRE_RING_STEP_SEG(r, w, s), &so, &sl);
		FOR_CHUNKS(so, sl, p->chunk, off, len)
		if (!st)
			st = c->ops->irecv(c, done_at(p, off), gathered_bytes(p, len), &in->x[k++]);
	}
	in->next = k; /* on failure: only these were posted */
	if (!st)
		in->next = 0;
	return st;
}

/*
 * The end of a collective: every send completed, or on a failure every message still
 * posted given up on (in[k..posted), all of out) and the communicator marked failed,
 * since what was posted may still land. Frees both lists.
 */
static int settle(struct quire_comm *c, int st, struct quire_xfer *in, size_t k, size_t posted,
		  struct quire_xfer *out, size_t m)
{
	for (size_t i = 0; i < m && !st; i++)
		st = c->ops->wait(c, &out[i], NULL);
	if (st) {
		for (size_t i = k; i < posted; i++)
			c->ops->abandon(c, &in[i]);
		for (size_t i = 0; i < m; i++)
			c->ops->abandon(c, &out[i]);
		c->failed = 1;
	}
	free(in);
	free(out);
	return st;
}

/* The owner finishes a chunk of its segment into d, requantized when the pass is. */
static int finish_owned(struct pass *p, size_t off, size_t len, const void *in, int narrow, void *d,
			int *fl)
{
	if (!p->rq || p->exps)
		return finish(p, off, len, in, narrow, d, fl);
	void *sums = p->tx + off * p->pb; /* this rank's own segment is never sent from tx */
	int st = finish(p, off, len, in, narrow, sums, fl);
	if (st || len == 0)
		return st;
	uint32_t mean_w = p->a->op == QUIRE_OP_MEAN ? (uint32_t)p->c->size : 1;
	return quire_ring_requantize(p->a->format, p->fin, mean_w, len, sums,
				     p->exp + off / QUIRE_BFP_BLOCK,
				     p->own ? p->own + (off - p->own0) : NULL, p->fa, d);
}

static int ring(struct pass *p)
{
	struct quire_comm *c = p->c;
	int w = c->size, r = c->rank, st = QUIRE_OK, fl = 0;
	size_t so, sl;
	if (w == 1) {
		segment(p, 0, &so, &sl);
		FOR_CHUNKS(so, sl, p->chunk, off, len)
		if (!st) {
			st = finish_owned(p, off, len, NULL, 0, done_at(p, off), &fl);
			if (!st)
				st = deliver(p, off, len, done_at(p, off), fl);
		}
		return st;
	}
	struct plan in = {0}, out = {0};
	st = post(p, &in);
	size_t posted = st ? in.next : in.count;
	out.x = st ? NULL : calloc(in.count + chunks(p->n, p->chunk) + (size_t)w, sizeof(*out.x));
	if (!st && !out.x)
		st = QUIRE_ERR_NOMEM;
	for (int s = 0; s + 1 < w && !st; s++) { /* reduce-scatter */
		segment(p, QUIRE_RING_STEP_SEG(r, w, s), &so, &sl);
		size_t b = s == 0 ? p->b0 : p->pb;
		FOR_CHUNKS(so, sl, p->chunk, off, len)
		{
			void *t = p->tx + off * p->pb;
			if (!st && s == 0)
				st = p->narrow ? local(p, off, len, t)
					       : combine(p, off, len, NULL, 0, t);
			else if (!st) {
				st = c->ops->wait(c, &in.x[in.next++], &fl);
				if (!st)
					heard(p, fl);
				if (!st)
					st = combine(p, off, len, p->rx + off * p->pb,
						     p->narrow && s == 1, t);
			}
			if (!st)
				st = c->ops->isend(c, t, len * b, tags(p, 0), &out.x[out.count++]);
		}
	}
	segment(p, r, &so, &sl); /* this rank's segment: finished here */
	FOR_CHUNKS(so, sl, p->chunk, off, len)
	{
		void *d = done_at(p, off);
		if (!st)
			st = c->ops->wait(c, &in.x[in.next++], &fl);
		if (!st)
			heard(p, fl);
		if (!st)
			st = finish_owned(p, off, len, p->rx + off * p->pb, p->narrow && w == 2, d,
					  &fl);
		if (!st)
			st = deliver(p, off, len, d, fl);
		if (!st && !p->scatter)
			st = c->ops->isend(c, d, gathered_bytes(p, len), tags(p, fl),
					   &out.x[out.count++]);
	}
	for (int s = 0; !p->scatter && s + 1 < w && !st; s++) { /* all-gather */
		segment(p, QUIRE_RING_STEP_SEG(r, w, s), &so, &sl);
		FOR_CHUNKS(so, sl, p->chunk, off, len)
		{
			void *d = done_at(p, off);
			if (!st)
				st = c->ops->wait(c, &in.x[in.next++], &fl);
			if (!st)
				heard(p, fl);
			if (!st)
				st = deliver(p, off, len, d, fl);
			if (!st && s + 2 < w)
				st = c->ops->isend(c, d, gathered_bytes(p, len), tags(p, fl),
						   &out.x[out.count++]);
		}
	}
	return settle(c, st, in.x, in.next, posted, out.x, out.count);
}

/* At least `bytes` of scratch, kept for the next call; NULL if out of memory. */
static void *scratch(struct quire_comm *c, size_t bytes)
{
	if (bytes > c->scratch_bytes) {
		void *p = aligned_alloc(64, up64(bytes));
		if (!p)
			return NULL;
		free(c->scratch);
		c->scratch = p;
		c->scratch_bytes = bytes;
	}
	return c->scratch;
}

/* The pass's buffers in scratch: rx, tx (partials), done (finished), one chunk of
 * contribution and two of fp32; then, for BFP, the exponents and the exponent pass's own
 * rx, tx and done (blocks). */
static int carve(struct pass *p, size_t units, int8_t **exps)
{
	size_t part = up64(units * p->pb), fin = up64(units * p->fb), ch = up64(p->chunk * 8);
	size_t nb = QUIRE_BFP_BLOCKS(p->n), eb = exps ? 4 * up64(nb) : 0;
	uint8_t *b = scratch(p->c, 2 * part + fin + 3 * ch + eb);
	if (!b)
		return QUIRE_ERR_NOMEM;
	p->rx = b;
	p->tx = b + part;
	p->done = b + 2 * part;
	p->loc = b + 2 * part + fin;
	p->fa = (float *)(p->loc + ch);
	p->fb32 = (float *)(p->loc + 2 * ch);
	if (exps)
		*exps = (int8_t *)(p->loc + 3 * ch);
	return QUIRE_OK;
}

int quire_ring_collective_allreduce(struct quire_comm *c, const struct quire_allreduce_args *a,
				    const float *x, float *y, int scatter)
{
	if (c->failed)
		return QUIRE_ERR_PEER;
	size_t w = (size_t)c->size;
	struct pass p = {.c = c,
			 .a = a,
			 .x = x,
			 .resid = a->ef ? quire_buf_ptr(a->ef->resid) : NULL,
			 .y = y,
			 .n = a->count,
			 .val = QUIRE_RING_VAL(a->format),
			 .part = QUIRE_RING_PART(a->format, w),
			 .fin = QUIRE_RING_FIN(a->format, w),
			 .scatter = scatter};
	int bfp = a->format == QUIRE_FMT_BFP8 || a->format == QUIRE_FMT_BFP16;
	p.narrow = p.val != p.part;
	p.b0 = fmt_bytes(p.val);
	p.pb = fmt_bytes(p.part);
	p.fb = fmt_bytes(p.fin);
	size_t wide = p.pb > p.fb ? p.pb : p.fb;
	p.chunk = CHUNK_BYTES / wide / QUIRE_BFP_BLOCK * QUIRE_BFP_BLOCK;
	if (scatter) {
		size_t len;
		quire_comm_chunk(p.n, c->size, c->rank, &p.out0, &len);
	}
	/* Requantized: the owner residual of this rank's segment lies after the tensor's. */
	p.rq = !scatter && quire_comm_requant(c, a->format);
	p.tag = p.rq ? QUIRE_XFER_F_REQUANT : 0;
	size_t own_len = 0;
	if (p.rq)
		quire_comm_chunk(p.n, c->size, c->rank, &p.own0, &own_len);
	int st = a->ef ? quire_ef_hold_owner(a->ef, own_len) : QUIRE_OK;
	if (st)
		return st;
	p.resid = a->ef ? quire_buf_ptr(a->ef->resid) : NULL; /* the buffer may have grown */
	p.own = p.rq && p.resid ? p.resid + p.n : NULL;
	int8_t *exps = NULL;
	st = carve(&p, p.n, bfp ? &exps : NULL);
	if (!st && !bfp)
		st = ring(&p);
	if (st || !bfp)
		return st == QUIRE_OK && p.overflow ? QUIRE_ERR_OVERFLOW : st;
	/* BFP: local exponents, then their max round the same ring; every rank needs them all. */
	p.exp = exps;
	struct pass e = p;
	e.exps = 1;
	e.scatter = 0;
	e.val = e.part = e.fin = QUIRE_FMT_INT8;
	e.narrow = 0;
	e.b0 = e.pb = e.fb = 1;
	e.chunk = CHUNK_BYTES;
	size_t nb = QUIRE_BFP_BLOCKS(p.n);
	e.rx = (uint8_t *)exps + up64(nb);
	e.tx = e.rx + up64(nb);
	e.done = e.tx + up64(nb);
	st = quire_codec_exponents(a->format, p.n, x, p.resid, exps);
	if (!st)
		st = ring(&e);
	if (!st && e.mismatch) /* every rank knows by now: none goes on */
		st = QUIRE_ERR_MISMATCH;
	if (!st)
		st = ring(&p);
	return st == QUIRE_OK && p.overflow ? QUIRE_ERR_OVERFLOW : st;
}

/* ---- all-gather and broadcast: bytes round the ring ---- */

int quire_ring_collective_allgather(struct quire_comm *c, const void *src, void *dst, size_t bytes)
{
	if (c->failed)
		return QUIRE_ERR_PEER;
	int w = c->size, r = c->rank, st = QUIRE_OK;
	uint8_t *d = dst;
	memmove(d + (size_t)r * bytes, src, bytes);
	if (w == 1)
		return QUIRE_OK;
	size_t per = chunks(bytes, CHUNK_BYTES), k = 0, m = 0, posted;
	struct quire_xfer *in = calloc(per * (size_t)(w - 1), sizeof(*in));
	struct quire_xfer *out = calloc(per * (size_t)(w - 1), sizeof(*out));
	if (!in || !out) {
		free(in);
		free(out);
		return QUIRE_ERR_NOMEM;
	}
	for (int s = 0; s + 1 < w && !st; s++) { /* step s brings rank r-1-s's bytes */
		uint8_t *slot = d + (size_t)QUIRE_RING_STEP_SEG(r, w, s) * bytes;
		FOR_CHUNKS(0, bytes, CHUNK_BYTES, off, len)
		if (!st)
			st = c->ops->irecv(c, slot + off, len, &in[k++]);
	}
	posted = k;
	k = 0;
	FOR_CHUNKS(0, bytes, CHUNK_BYTES, off, len)
	if (!st)
		st = c->ops->isend(c, d + (size_t)r * bytes + off, len, 0, &out[m++]);
	for (int s = 0; s + 1 < w && !st; s++) {
		uint8_t *slot = d + (size_t)QUIRE_RING_STEP_SEG(r, w, s) * bytes;
		FOR_CHUNKS(0, bytes, CHUNK_BYTES, off, len)
		{
			if (!st)
				st = c->ops->wait(c, &in[k++], NULL);
			if (!st && s + 2 < w)
				st = c->ops->isend(c, slot + off, len, 0, &out[m++]);
		}
	}
	return settle(c, st, in, k, posted, out, m);
}

int quire_ring_collective_broadcast(struct quire_comm *c, void *buf, size_t bytes, int root)
{
	if (c->failed)
		return QUIRE_ERR_PEER;
	int w = c->size, hop = (c->rank + w - root) % w, st = QUIRE_OK;
	if (w == 1)
		return QUIRE_OK;
	size_t per = chunks(bytes, CHUNK_BYTES), k = 0, m = 0, posted;
	struct quire_xfer *in = calloc(per, sizeof(*in)), *out = calloc(per, sizeof(*out));
	if (!in || !out) {
		free(in);
		free(out);
		return QUIRE_ERR_NOMEM;
	}
	uint8_t *b = buf;
	/* Hop h receives each chunk from hop h-1 and passes it on at once. */
	FOR_CHUNKS(0, bytes, CHUNK_BYTES, off, len)
	if (!st && hop > 0)
		st = c->ops->irecv(c, b + off, len, &in[k++]);
	posted = k;
	k = 0;
	FOR_CHUNKS(0, bytes, CHUNK_BYTES, off, len)
	{
		if (!st && hop > 0)
			st = c->ops->wait(c, &in[k++], NULL);
		if (!st && hop + 1 < w)
			st = c->ops->isend(c, b + off, len, 0, &out[m++]);
	}
	return settle(c, st, in, k, posted, out, m);
}
