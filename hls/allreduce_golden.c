// SPDX-License-Identifier: MIT
/*
 * The golden model of a whole bfp all-reduce over W ranks: every rank's exponents, their
 * max, every rank's encode with the shared exponents, the exact integer sum, its decode;
 * with the requantized all-gather each segment's owner then requantizes its part with its
 * own exponents and residual, and every rank decodes that (docs/contract-bfp.md). Only the
 * kernels' own functions compute: this file orders them and lays out their buffers.
 */
#include "allreduce_golden.h"

#include "quant.h"
#include "reduce.h"
#include "quire/cmd.h"
#include "quire/format.h"
#include "quire/status.h"

static uint64_t up8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/* Scratch: local exponents (w per block), shared ones, the owners' ones, every rank's
 * values, the sums, the decoded sums and the requantized values. */
struct golden_bufs {
	int8_t *local, *eg, *eo;
	uint8_t *q, *rq;
	int32_t *sum;
	float *v;
};

static uint64_t carve(uint32_t w, uint32_t n, uint8_t *base, struct golden_bufs *b)
{
	uint64_t blocks = QUIRE_BFP_BLOCKS((uint64_t)n), at = 0;
	uint64_t sizes[7] = {
	    (uint64_t)w * blocks, blocks, blocks, 2ull * w * n, 2ull * n, 4ull * n, 4ull * n};
	uint64_t offs[7];
	for (int i = 0; i < 7; i++) {
		offs[i] = at;
		at += up8(sizes[i]);
	}
	if (base) {
		b->local = (int8_t *)(base + offs[0]);
		b->eg = (int8_t *)(base + offs[1]);
		b->eo = (int8_t *)(base + offs[2]);
		b->q = base + offs[3];
		b->rq = base + offs[4];
		b->sum = (int32_t *)(void *)(base + offs[5]);
		b->v = (float *)(void *)(base + offs[6]);
	}
	return at;
}

uint64_t quire_golden_scratch_bytes(uint32_t w, uint32_t n)
{
	return carve(w, n, 0, 0);
}

int quire_golden_allreduce(uint32_t fmt, int mean, uint32_t w, uint32_t n, int requant,
			   const float *const *x, float *const *resid, float *const *owner,
			   float *y, void *scratch)
{
	if (fmt != QUIRE_FMT_BFP8 && fmt != QUIRE_FMT_BFP16)
		return QUIRE_ERR_FORMAT;
	if (w == 0 || n == 0)
		return QUIRE_ERR_SIZE;
	struct golden_bufs b;
	carve(w, n, scratch, &b);
	uint32_t blocks = QUIRE_BFP_BLOCKS(n),
		 val = fmt == QUIRE_FMT_BFP8 ? QUIRE_FMT_INT8 : QUIRE_FMT_INT16;
	uint32_t qb = quire_int_format_bytes(val);
	uint32_t ef = resid ? QUIRE_QUANT_EF : 0, mean_w = mean ? w : 0;
	for (uint32_t r = 0; r < w; r++)
		quire_quant_exponents(n, ef, x[r], resid ? resid[r] : 0, b.local + r * blocks);
	quire_reduce_max_exp(w, blocks, blocks, 0, b.local, 0, b.eg);
	for (uint32_t r = 0; r < w; r++) {
		int st = quire_quant_encode(fmt, n, ef, x[r], resid ? resid[r] : 0, b.eg,
					    b.q + (uint64_t)r * n * qb);
		if (st)
			return st;
	}
	int st = quire_reduce_sum(val, QUIRE_FMT_INT32, w, n, n, 0, b.q, 0, (uint8_t *)b.sum);
	if (st)
		return st;
	if (!requant)
		return quire_quant_decode(fmt, QUIRE_FMT_INT32, n, mean_w, (const uint8_t *)b.sum,
					  b.eg, y);
	st = quire_quant_decode(fmt, QUIRE_FMT_INT32, n, mean_w, (const uint8_t *)b.sum, b.eg, b.v);
	/* Each owner's segment: its own exponents of v + r_o, then v requantized with them. */
	for (uint32_t k = 0; !st && k < w; k++) {
		uint32_t first = QUIRE_RING_SEG_FIRST(blocks, w, k);
		uint32_t nb = QUIRE_RING_SEG_BLOCKS(blocks, w, k);
		uint64_t off = (uint64_t)first * QUIRE_BFP_BLOCK,
			 end = (uint64_t)(first + nb) * QUIRE_BFP_BLOCK;
		if (off >= n)
			continue;
		uint32_t len = (uint32_t)((end < n ? end : n) - off);
		uint32_t oef = owner ? QUIRE_QUANT_EF : 0;
		float *ro = owner ? owner[k] : 0;
		quire_quant_exponents(len, oef, b.v + off, ro, b.eo + first);
		st =
		    quire_quant_encode(fmt, len, oef, b.v + off, ro, b.eo + first, b.rq + off * qb);
	}
	return st ? st : quire_quant_decode(fmt, val, n, 0, b.rq, b.eo, y);
}
