// SPDX-License-Identifier: MIT
/*
 * All-reduce, reduce-scatter and barrier over the card network: a ring reduce-scatter, then a
 * ring all-gather, frame by frame, so every card works on one chunk while its
 * neighbours work on others (docs/collectives.md).
 *
 * Member r owns segment r (quire_comm_chunk's split, whole 64-element blocks).
 * Reduce-scatter step s: r sends segment r-s-1, having added its own part to
 * what r-1 sent at step s-1; segment k therefore adds the members in the order
 * k+1, k+2, ..., k, which fixes the fp16/fp32 result. After W-1 steps r holds
 * segment r whole; the all-gather passes the finished segments round the ring.
 *
 * All of it runs in rounds of FW_RING_WINDOW frames of every segment (layout.h): round j is
 * that schedule over frames [j * FW_RING_WINDOW, (j + 1) * FW_RING_WINDOW) of each segment.
 * A member's frames sent then run at most a round ahead of its frames received, which the
 * next member's receive ring has room for, so members that all send before they receive
 * never wait on each other's full rings. The frames are the same; only their order differs.
 *
 * BFP first agrees on block exponents: the same ring over the exponent vector,
 * with max instead of sum. Partial sums travel in the narrowest integer that
 * cannot overflow: step 0 carries one contribution in its own type (int8 for
 * bfp8, int16 for bfp16, int32), later steps int16 for bfp8 up to 258 members,
 * else int32, and int64 for int32 inputs, narrowed (saturated and reported)
 * once, at the owner.
 *
 * With QUIRE_CMD_F_REQUANT (bfp), the owner requantizes its finished segment before the
 * all-gather (docs/contract-bfp.md): QUANT DECODE with the mean, then EXPONENTS and ENCODE
 * with error feedback on the owner's residual and its own exponents; the all-gather frames
 * carry the values and, after them, one exponent byte per block, and every member decodes
 * those. Every frame of such an all-reduce is marked, and a member that meets a frame marked
 * otherwise than its own fails the collective for all with QUIRE_ERR_MISMATCH.
 */
#include "dma.h"
#include "engines.h"
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/format.h"
#include "quire/frame.h"
#include "quire/regs.h"
#include "quire/status.h"

#define NONE 0xffffffffu /* no received partial sum: this member alone */
#define TXP  (FW_COLL_TX + QUIRE_FRAME_HDR_BYTES)
/* The whole fp32 input, kept in card memory from the exponent pass to the value pass when it
 * fits (and without error feedback, whose residual would need a copy too), so that the
 * host link carries it once: the staging buffers and REDUCE's inputs, idle in a collective. */
#define X_KEPT       FW_BUF_A
#define X_KEPT_BYTES (FW_COLL_EXP - FW_BUF_A)

struct pass {
	struct quire_fw *fw;
	struct quire_fw_comm *c;
	const struct quire_cmd *d;
	uint32_t n;       /* elements of the vector (0: a barrier) */
	int exps;         /* the exponent pass: units are blocks */
	uint32_t chunk;   /* units per frame */
	uint32_t val;     /* format of this member's contribution */
	uint32_t part;    /* of partial sums (reduce-scatter) */
	uint32_t fin;     /* of finished sums (all-gather) */
	uint32_t mean_w;  /* decode divides by this (0: a sum) */
	int overflow;     /* some int32 sum saturated */
	int scatter;      /* reduce-scatter: only this member's segment, to dst from its start */
	uint32_t out0;    /* the element dst starts with */
	uint32_t rq;      /* QUIRE_FRAME_F_REQUANT on every frame (requantized all-gather), or 0 */
	uint32_t own0;    /* requantized: the first element of this member's segment */
	uint32_t kept;    /* the input's element 0 in card memory (X_KEPT), or 0: from the host */
	uint32_t out_len; /* bytes of a result still going to the host from FW_COLL_Y (0: none) */
};

/* The results go to the host on DMA channel OUT_CH while the core goes on; every other
 * transfer of the collective is on channel 0, so the two overlap. */
#define OUT_CH 1u

/* The result's transfer to the host still under way, waited for: FW_COLL_Y is written
 * again only after. */
static int out_wait(struct pass *p)
{
	uint32_t len = p->out_len;
	p->out_len = 0;
	return len ? fw_dma_finish(p->fw, OUT_CH, len) : QUIRE_OK;
}

/* FW_COLL_Y's len fp32 to the host at `out`, the core going on meanwhile (out_wait). */
static void out_start(struct pass *p, uint64_t out, uint32_t len)
{
	fw_dma_load(p->fw, OUT_CH, out, FW_COLL_Y, 4 * len, QUIRE_DMA_TO_HOST);
	fw_dma_go(p->fw, OUT_CH);
	p->out_len = 4 * len;
}

/* Member k's segment, in units, from unit `skip` of it on: 0 when it ends before (a segment
 * is there from unit 0 even when empty). */
static int segment(const struct pass *p, uint32_t k, uint32_t skip, uint32_t *off, uint32_t *len)
{
	uint32_t size = p->c->size, blocks = QUIRE_BFP_BLOCKS(p->n);
	uint32_t first = QUIRE_RING_SEG_FIRST(blocks, size, k);
	uint32_t nb = QUIRE_RING_SEG_BLOCKS(blocks, size, k);
	if (!p->exps) {
		uint64_t o = (uint64_t)first * QUIRE_BFP_BLOCK,
			 e = (uint64_t)(first + nb) * QUIRE_BFP_BLOCK;
		first = (uint32_t)(o < p->n ? o : p->n);
		nb = (uint32_t)(e < p->n ? e : p->n) - first;
	}
	if (skip && skip >= nb)
		return 0;
	*off = first + skip;
	*len = nb - skip;
	return 1;
}

/* The REDUCE engine over w inputs `stride` elements apart at `in`, plus acc_in unless NONE. */
static int reduce_w(struct quire_fw *fw, uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t w,
		    uint32_t stride, uint32_t n, uint32_t in, uint32_t acc_in, uint32_t out)
{
	uint32_t a[QUIRE_REDUCE_ARGS] = {op,
					 in_fmt,
					 acc_fmt,
					 w,
					 n,
					 stride,
					 acc_in == NONE ? 0 : QUIRE_REDUCE_F_ACC_IN,
					 in,
					 acc_in == NONE ? 0 : acc_in,
					 out};
	return fw_engine_run(fw, QUIRE_ENGINE_REDUCE, a, QUIRE_REDUCE_ARGS);
}

static int reduce(struct quire_fw *fw, uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t n,
		  uint32_t in, uint32_t acc_in, uint32_t out)
{
	return reduce_w(fw, op, in_fmt, acc_fmt, 1, 0, n, in, acc_in, out);
}

/* Step 0 of the reduce-scatter carries one member's contribution, which fits the
 * contribution's own integer type: the narrowest on the wire (int8 for bfp8). */
static int narrow_first_step(const struct pass *p)
{
	return !p->exps && p->val != p->part;
}

static int quant(struct quire_fw *fw, uint32_t op, uint32_t fmt, uint32_t val_fmt, uint32_t flags,
		 uint32_t n, uint32_t mean_w, uint32_t x, uint32_t resid, uint32_t exp, uint32_t q,
		 uint32_t y)
{
	uint32_t a[QUIRE_QUANT_ARGS] = {op, fmt, val_fmt, flags, n, mean_w, x, resid, exp, q, y};
	return fw_engine_run(fw, QUIRE_ENGINE_QUANT, a, QUIRE_QUANT_ARGS);
}

/* This member's contribution to elements [off, off + len), in p->val, at `at`. */
static int local(struct pass *p, uint32_t off, uint32_t len, uint32_t at)
{
	struct quire_fw *fw = p->fw;
	const struct quire_cmd *d = p->d;
	int ef = d->flags & QUIRE_CMD_F_EF;
	if (quire_le16_to_cpu(d->format) == QUIRE_FMT_FP32 ||
	    quire_le16_to_cpu(d->format) == QUIRE_FMT_INT32)
		return fw_dma(fw, quire_le64_to_cpu(d->src) + 4ull * off, at, 4 * len,
			      QUIRE_DMA_TO_CARD);
	if (p->kept) /* read once already, by the exponent pass */
		return quant(fw, QUIRE_QUANT_OP_ENCODE, quire_le16_to_cpu(d->format), 0, 0, len, 0,
			     p->kept + 4 * off, 0, FW_COLL_EXP + off / QUIRE_BFP_BLOCK, at, 0);
	int st = fw_dma(fw, quire_le64_to_cpu(d->src) + 4ull * off, FW_COLL_X, 4 * len,
			QUIRE_DMA_TO_CARD);
	if (!st && ef)
		st = fw_dma(fw, quire_le64_to_cpu(d->aux) + 4ull * off, FW_COLL_R, 4 * len,
			    QUIRE_DMA_TO_CARD);
	if (!st)
		st = quant(fw, QUIRE_QUANT_OP_ENCODE, quire_le16_to_cpu(d->format), 0,
			   ef ? QUIRE_QUANT_F_EF : 0, len, 0, FW_COLL_X, FW_COLL_R,
			   FW_COLL_EXP + off / QUIRE_BFP_BLOCK, at, 0);
	/* Each element is encoded once per all-reduce, so its new residual is final here. */
	if (!st && ef)
		st = fw_dma(fw, quire_le64_to_cpu(d->exp) + 4ull * off, FW_COLL_R, 4 * len,
			    QUIRE_DMA_TO_HOST);
	return st;
}

/* The first partial sum of a segment: this member's part alone, at `out`. */
static int first(struct pass *p, uint32_t off, uint32_t len, uint32_t out)
{
	if (len == 0)
		return QUIRE_OK;
	if (p->exps)
		return reduce(p->fw, QUIRE_REDUCE_OP_MAX_EXP, 0, 0, len, FW_COLL_EXP + off, NONE,
			      out);
	if (p->val == p->part)
		return local(p, off, len, out);
	int st = local(p, off, len, FW_COLL_L);
	return st ? st
		  : reduce(p->fw, QUIRE_REDUCE_OP_SUM, p->val, p->part, len, FW_COLL_L, NONE, out);
}

/* out <- the partial sum at `in` (one member's contribution alone when `narrow`) plus this
 * member's part. */
static int combine(struct pass *p, uint32_t off, uint32_t len, uint32_t in, int narrow,
		   uint32_t out)
{
	if (len == 0)
		return QUIRE_OK;
	if (in == NONE)
		return first(p, off, len, out);
	if (p->exps)
		return reduce(p->fw, QUIRE_REDUCE_OP_MAX_EXP, 0, 0, len, FW_COLL_EXP + off, in,
			      out);
	int st = local(p, off, len, FW_COLL_L);
	if (st)
		return st;
	/* Two contributions in card memory, in then L above it (an integer sum, or one fp32
	 * addition: the same in either order); their span holds no other buffer (layout.h). */
	if (narrow)
		return reduce_w(p->fw, QUIRE_REDUCE_OP_SUM, p->val, p->part, 2,
				(FW_COLL_L - in) / quire_format_elem_bytes(p->val), len, in, NONE,
				out);
	return reduce(p->fw, QUIRE_REDUCE_OP_SUM, p->val, p->part, len, FW_COLL_L, in, out);
}

/* The owner's last addition: the finished sum, in p->fin, at `out`. */
static int finish(struct pass *p, uint32_t off, uint32_t len, uint32_t in, int narrow, uint32_t out,
		  uint32_t *flags)
{
	*flags = 0;
	if (p->part == p->fin || len == 0)
		return combine(p, off, len, in, narrow, out);
	int st = combine(p, off, len, in, narrow, FW_COLL_T);
	if (!st)
		st = reduce(p->fw, QUIRE_REDUCE_OP_SUM, p->part, p->fin, len, FW_COLL_T, NONE, out);
	if (st == QUIRE_ERR_OVERFLOW) { /* saturated, and every member will say so */
		*flags = QUIRE_FRAME_F_OVERFLOW;
		st = QUIRE_OK;
	}
	return st;
}

/* A finished chunk at `at`: into the exponents, or decoded into the caller's dst. */
static int deliver(struct pass *p, uint32_t off, uint32_t len, uint32_t at, uint32_t flags)
{
	struct quire_fw *fw = p->fw;
	const struct quire_cmd *d = p->d;
	if (flags & QUIRE_FRAME_F_OVERFLOW)
		p->overflow = 1;
	if (len == 0)
		return QUIRE_OK;
	if (p->exps)
		return reduce(fw, QUIRE_REDUCE_OP_MAX_EXP, 0, 0, len, at, NONE, FW_COLL_EXP + off);
	uint64_t out = quire_le64_to_cpu(d->dst) + 4ull * (off - p->out0);
	int st = out_wait(p); /* FW_COLL_Y free again */
	if (st)
		return st;
	if (p->rq) { /* values, then the owner's exponents; the mean is in them */
		uint32_t vb = quire_format_elem_bytes(p->val);
		st = quant(fw, QUIRE_QUANT_OP_DECODE, quire_le16_to_cpu(d->format), p->val, 0, len,
			   0, 0, 0, at + len * vb, at, FW_COLL_Y);
		if (!st)
			out_start(p, out, len);
		return st;
	}
	if (quire_le16_to_cpu(d->format) == QUIRE_FMT_INT32 ||
	    (quire_le16_to_cpu(d->format) == QUIRE_FMT_FP32 && !p->mean_w))
		return fw_dma(fw, out, at, 4 * len, QUIRE_DMA_TO_HOST);
	int bfp = quire_le16_to_cpu(d->format) == QUIRE_FMT_BFP8 ||
		  quire_le16_to_cpu(d->format) == QUIRE_FMT_BFP16;
	st = quant(fw, QUIRE_QUANT_OP_DECODE, quire_le16_to_cpu(d->format), p->fin, 0, len,
		   p->mean_w, 0, 0, bfp ? FW_COLL_EXP + off / QUIRE_BFP_BLOCK : 0, at, FW_COLL_Y);
	if (!st)
		out_start(p, out, len);
	return st;
}

static uint32_t unit_bytes(const struct pass *p, uint32_t fmt)
{
	return p->exps ? 1 : quire_format_elem_bytes(fmt);
}

/*
 * The owner's finished sums of [off, off + len) at `at` become the all-gather's payload
 * there: the values requantized with the owner's own exponents and residual, then those
 * exponents (docs/contract-bfp.md, "Requantized all-gather").
 */
static int requantize(struct pass *p, uint32_t off, uint32_t len, uint32_t at)
{
	struct quire_fw *fw = p->fw;
	const struct quire_cmd *d = p->d;
	int ef = d->flags & QUIRE_CMD_F_EF;
	uint32_t fmt = quire_le16_to_cpu(d->format), flags = ef ? QUIRE_QUANT_F_EF : 0,
		 exps = at + len * quire_format_elem_bytes(p->val);
	/* The owner's residual lies after the worker's count elements. */
	uint64_t res = 4ull * quire_le32_to_cpu(d->count) + 4ull * (off - p->own0);
	int st = out_wait(p); /* FW_COLL_Y free again */
	if (!st)
		st = quant(fw, QUIRE_QUANT_OP_DECODE, fmt, p->fin, 0, len, p->mean_w, 0, 0,
			   FW_COLL_EXP + off / QUIRE_BFP_BLOCK, at, FW_COLL_Y);
	if (!st && ef)
		st = fw_dma(fw, quire_le64_to_cpu(d->aux) + res, FW_COLL_R, 4 * len,
			    QUIRE_DMA_TO_CARD);
	if (!st)
		st = quant(fw, QUIRE_QUANT_OP_EXPONENTS, fmt, 0, flags, len, 0, FW_COLL_Y,
			   FW_COLL_R, exps, 0, 0);
	if (!st)
		st = quant(fw, QUIRE_QUANT_OP_ENCODE, fmt, 0, flags, len, 0, FW_COLL_Y, FW_COLL_R,
			   exps, at, 0);
	if (!st && ef)
		st = fw_dma(fw, quire_le64_to_cpu(d->exp) + res, FW_COLL_R, 4 * len,
			    QUIRE_DMA_TO_HOST);
	return st;
}

/* Payload bytes of an all-gather frame of len units. */
static uint32_t gathered_bytes(const struct pass *p, uint32_t len)
{
	if (p->rq && !p->exps)
		return len * quire_format_elem_bytes(p->val) + QUIRE_BFP_BLOCKS(len);
	return len * unit_bytes(p, p->fin);
}

/* A received frame of the same kind of all-reduce as this member's. */
static int agreed(const struct pass *p, uint32_t flags)
{
	return (flags & QUIRE_FRAME_F_REQUANT) == p->rq ? QUIRE_OK : QUIRE_ERR_MISMATCH;
}

static int ring(struct pass *p)
{
	struct quire_fw_comm *c = p->c;
	struct quire_fw *fw = p->fw;
	uint32_t w = c->size, r = c->rank, pb = unit_bytes(p, p->part);
	int rqv = p->rq && !p->exps; /* the owner requantizes what it finishes */
	int narrow = narrow_first_step(p);
	uint32_t b0 = narrow ? unit_bytes(p, p->val) : pb; /* bytes per unit at step 0 */
	uint32_t rs = p->exps ? QUIRE_PHASE_EXP_RS : QUIRE_PHASE_RS;
	uint32_t ag = p->exps ? QUIRE_PHASE_EXP_AG : QUIRE_PHASE_AG;
	uint32_t so, sl, fl, rx; /* rx: a received frame's payload, in its receive buffer */
	int st = QUIRE_OK;
	/* Round by round, FW_RING_WINDOW frames of every segment a round (layout.h); segment 0
	 * is the longest: the split gives the first ones the spare blocks. */
	uint32_t span = FW_RING_WINDOW * p->chunk;
	for (uint32_t skip = 0; segment(p, 0, skip, &so, &sl); skip += span) {
		for (uint32_t s = 0; s + 1 < w; s++) { /* reduce-scatter */
			if (!segment(p, (r + w - 1 - s) % w, skip, &so, &sl))
				continue;
			FW_FOR_CHUNKS(so, min_u32(sl, span), p->chunk, off, len)
			{
				if (s == 0 && narrow) {
					st = len ? local(p, off, len, TXP) : QUIRE_OK;
				} else if (s == 0) {
					st = first(p, off, len, TXP);
				} else {
					st = fw_net_recv(fw, c, QUIRE_FRAME_STEP(rs, s - 1), off,
							 len * (s == 1 ? b0 : pb), &rx, &fl);
					if (!st)
						st = agreed(p, fl);
					if (!st)
						st =
						    combine(p, off, len, rx, narrow && s == 1, TXP);
				}
				if (!st)
					st = fw_net_send(fw, c, QUIRE_FRAME_STEP(rs, s), p->rq, off,
							 len * (s == 0 ? b0 : pb), TXP);
				if (st)
					return st;
			}
		}
		/* this member's segment: finished here (alone, the input is the sum) */
		if (segment(p, r, skip, &so, &sl))
			FW_FOR_CHUNKS(so, min_u32(sl, span), p->chunk, off, len)
			{
				rx = NONE;
				fl = p->rq;
				if (w > 1)
					st = fw_net_recv(fw, c, QUIRE_FRAME_STEP(rs, w - 2), off,
							 len * (w == 2 ? b0 : pb), &rx, &fl);
				if (!st)
					st = agreed(p, fl);
				if (!st)
					st = finish(p, off, len, rx, narrow && w == 2, TXP, &fl);
				if (!st && rqv)
					st = requantize(p, off, len, TXP);
				if (!st)
					st = deliver(p, off, len, TXP, fl);
				if (!st && !p->scatter && w > 1)
					st = fw_net_send(fw, c, QUIRE_FRAME_STEP(ag, 0), fl | p->rq,
							 off, gathered_bytes(p, len), TXP);
				if (st)
					return st;
			}
		/* all-gather: passed on from where it came */
		for (uint32_t s = 0; !p->scatter && s + 1 < w; s++) {
			if (!segment(p, (r + w - 1 - s) % w, skip, &so, &sl))
				continue;
			FW_FOR_CHUNKS(so, min_u32(sl, span), p->chunk, off, len)
			{
				st = fw_net_recv(fw, c, QUIRE_FRAME_STEP(ag, s), off,
						 gathered_bytes(p, len), &rx, &fl);
				if (!st)
					st = agreed(p, fl);
				if (!st)
					st = deliver(p, off, len, rx, fl);
				if (!st && s + 2 < w)
					st = fw_net_send(fw, c, QUIRE_FRAME_STEP(ag, s + 1), fl,
							 off, gathered_bytes(p, len), rx);
				if (st)
					return st;
			}
		}
	}
	return QUIRE_OK;
}

/* Where the input stays from the exponent pass on (X_KEPT), or 0 where it cannot. */
static uint32_t kept_input(const struct quire_cmd *d)
{
	return !(d->flags & QUIRE_CMD_F_EF) && 4ull * quire_le32_to_cpu(d->count) <= X_KEPT_BYTES
		   ? X_KEPT
		   : 0;
}

/* Local block exponents of the whole vector into FW_COLL_EXP, a staging buffer at a time. */
static int exponents(struct quire_fw *fw, const struct quire_cmd *d)
{
	int ef = d->flags & QUIRE_CMD_F_EF;
	for (uint32_t i = 0; i < quire_le32_to_cpu(d->count); i += FW_CHUNK_ELEMS) {
		uint32_t len = min_u32(FW_CHUNK_ELEMS, quire_le32_to_cpu(d->count) - i);
		int st = fw_dma(fw, quire_le64_to_cpu(d->src) + 4ull * i, FW_BUF_A, 4 * len,
				QUIRE_DMA_TO_CARD);
		if (!st && ef)
			st = fw_dma(fw, quire_le64_to_cpu(d->aux) + 4ull * i, FW_BUF_B, 4 * len,
				    QUIRE_DMA_TO_CARD);
		if (!st)
			st = quant(fw, QUIRE_QUANT_OP_EXPONENTS, quire_le16_to_cpu(d->format), 0,
				   ef ? QUIRE_QUANT_F_EF : 0, len, 0, FW_BUF_A, FW_BUF_B,
				   FW_COLL_EXP + i / QUIRE_BFP_BLOCK, 0, 0);
		if (st)
			return st;
	}
	return QUIRE_OK;
}

/* The same, the input (no error feedback) brought whole to X_KEPT and left there: a piece
 * of KEPT_STEP elements comes over the host link while the engine reads the one before. */
#define KEPT_STEP 32768u
static int exponents_kept(struct quire_fw *fw, const struct quire_cmd *d)
{
	uint32_t n = quire_le32_to_cpu(d->count);
	uint64_t src = quire_le64_to_cpu(d->src);
	if (n) {
		fw_dma_load(fw, 0, src, X_KEPT, 4 * min_u32(KEPT_STEP, n), QUIRE_DMA_TO_CARD);
		fw_dma_go(fw, 0);
	}
	for (uint32_t i = 0; i < n; i += KEPT_STEP) {
		uint32_t len = min_u32(KEPT_STEP, n - i), next = i + len;
		int st = fw_dma_finish(fw, 0, 4 * len);
		if (st)
			return st; /* nothing under way */
		if (next < n) {
			fw_dma_load(fw, 0, src + 4ull * next, X_KEPT + 4 * next,
				    4 * min_u32(KEPT_STEP, n - next), QUIRE_DMA_TO_CARD);
			fw_dma_go(fw, 0);
		}
		st = quant(fw, QUIRE_QUANT_OP_EXPONENTS, quire_le16_to_cpu(d->format), 0, 0, len, 0,
			   X_KEPT + 4 * i, 0, FW_COLL_EXP + i / QUIRE_BFP_BLOCK, 0, 0);
		if (st) {
			if (next < n) /* the mover left free */
				(void)fw_dma_finish(fw, 0, 4 * min_u32(KEPT_STEP, n - next));
			return st;
		}
	}
	return QUIRE_OK;
}

int fw_allreduce(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	int st;
	struct quire_fw_comm *c = fw_comm_get(fw, quire_le16_to_cpu(d->workers), &st, detail);
	if (!c)
		return st;
	uint32_t w = c->size;
	struct pass p = {.fw = fw,
			 .c = c,
			 .d = d,
			 .n = quire_le32_to_cpu(d->count),
			 .mean_w = d->flags & QUIRE_CMD_F_MEAN ? w : 0};
	if (d->flags & QUIRE_CMD_F_REQUANT)
		p.rq = QUIRE_FRAME_F_REQUANT;
	if (d->opcode == QUIRE_OPC_REDUCE_SCATTER || p.rq) {
		uint32_t len;
		p.scatter = !p.rq;
		segment(&p, c->rank, 0, p.rq ? &p.own0 : &p.out0, &len);
		/* the host's idea of this member's segment differs */
		if (len != quire_le64_to_cpu(d->stride)) {
			*detail = QUIRE_DETAIL_STRIDE;
			return fw_comm_end(fw, c, QUIRE_ERR_SIZE, detail);
		}
	}
	p.val =
	    QUIRE_RING_VAL(quire_le16_to_cpu(d->format)); /* FP16 and FP32 travel as themselves */
	p.part = QUIRE_RING_PART(quire_le16_to_cpu(d->format), w);
	p.fin = QUIRE_RING_FIN(quire_le16_to_cpu(d->format), w);
	/* As many elements per frame as the wider of the two wire formats allows. */
	uint32_t wide = quire_format_elem_bytes(p.part) > quire_format_elem_bytes(p.fin)
			    ? quire_format_elem_bytes(p.part)
			    : quire_format_elem_bytes(p.fin);
	p.chunk = QUIRE_FRAME_MAX_PAYLOAD / wide;
	if (quire_le16_to_cpu(d->format) == QUIRE_FMT_BFP8 ||
	    quire_le16_to_cpu(d->format) == QUIRE_FMT_BFP16) {
		struct pass e = p;
		e.exps = 1;
		e.scatter = 0; /* every member encodes every segment: all need every exponent */
		e.chunk = FW_FRAME_BLOCKS;
		p.kept = kept_input(d);
		st = p.kept ? exponents_kept(fw, d) : exponents(fw, d);
		if (!st)
			st = ring(&e);
	}
	if (!st)
		st = ring(&p);
	int sent = out_wait(&p); /* the last result's transfer, even after a failure */
	if (!st)
		st = sent;
	if (st == QUIRE_OK && p.overflow)
		st = QUIRE_ERR_OVERFLOW;
	if (st != QUIRE_OK && !*detail)
		*detail = st == QUIRE_ERR_OVERFLOW ? QUIRE_DETAIL_ENGINE : QUIRE_DETAIL_NET;
	return fw_comm_end(fw, c, st, detail);
}

int fw_barrier(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	int st;
	struct quire_fw_comm *c = fw_comm_get(fw, quire_le16_to_cpu(d->workers), &st, detail);
	if (!c)
		return st;
	/* An exponent pass over nothing: one empty frame per step, W-1 there and W-1 back, so
	 * no member leaves before every member has arrived. */
	struct pass p = {.fw = fw, .c = c, .d = d, .exps = 1, .chunk = FW_FRAME_BLOCKS};
	return fw_comm_end(fw, c, ring(&p), detail);
}
