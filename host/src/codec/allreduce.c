// SPDX-License-Identifier: MIT
/*
 * A W-worker all-reduce computed on one host, step for step what the cards
 * do: agree exponents, quantize with them, sum exactly, decode. It is the
 * reference that `quire codec reduce` runs and that multi-card results are
 * compared with.
 */
#include <stdlib.h>

#include "quire.h"

#define CHUNK (UINT32_C(1) << 20) /* elements per step: bounds the scratch memory */

struct scratch {
	int8_t *exps; /* W local exponent vectors, then the shared one */
	uint8_t *q;   /* W encoded chunks */
	int32_t *sum; /* the exact sum of one chunk */
	const void **qp;
	const int8_t **ep;
};

static void scratch_free(struct scratch *s)
{
	free(s->exps);
	free(s->q);
	free(s->sum);
	free(s->qp);
	free(s->ep);
}

static int scratch_alloc(struct scratch *s, uint32_t w, size_t elem)
{
	size_t blocks = QUIRE_BFP_BLOCKS(CHUNK);
	s->exps = malloc((size_t)(w + 1) * blocks);
	s->q = malloc((size_t)w * CHUNK * elem);
	s->sum = malloc((size_t)CHUNK * sizeof(int32_t));
	s->qp = malloc(w * sizeof(*s->qp));
	s->ep = malloc(w * sizeof(*s->ep));
	if (!s->exps || !s->q || !s->sum || !s->qp || !s->ep) {
		scratch_free(s);
		return QUIRE_ERR_NOMEM;
	}
	for (uint32_t k = 0; k < w; k++) {
		s->qp[k] = s->q + (size_t)k * CHUNK * elem;
		s->ep[k] = s->exps + (size_t)k * blocks;
	}
	return QUIRE_OK;
}

static int reduce_bfp(enum quire_format fmt, uint32_t mean_w, uint32_t w, size_t n,
		      const float *const *x, float *const *resid, float *y, struct scratch *s)
{
	enum quire_format val_fmt = fmt == QUIRE_FMT_BFP8 ? QUIRE_FMT_INT8 : QUIRE_FMT_INT16;
	size_t blocks = QUIRE_BFP_BLOCKS(CHUNK);
	int8_t *shared = s->exps + (size_t)w * blocks;
	for (size_t i = 0; i < n; i += CHUNK) {
		size_t len = n - i < CHUNK ? n - i : CHUNK;
		int st;
		for (uint32_t k = 0; k < w; k++) {
			st = quire_codec_exponents(fmt, len, x[k] + i, resid ? resid[k] + i : NULL,
						   (int8_t *)s->ep[k]);
			if (st)
				return st;
		}
		st = quire_codec_max_exponents(w, QUIRE_BFP_BLOCKS(len), s->ep, shared);
		for (uint32_t k = 0; k < w && !st; k++)
			st = quire_codec_encode(fmt, len, x[k] + i, resid ? resid[k] + i : NULL,
						shared, NULL, (void *)s->qp[k]);
		if (!st)
			st = quire_codec_sum(val_fmt, QUIRE_FMT_INT32, w, len, s->qp, NULL, s->sum);
		if (!st)
			st = quire_codec_decode(fmt, QUIRE_FMT_INT32, len, s->sum, shared, mean_w,
						y + i);
		if (st)
			return st;
	}
	return QUIRE_OK;
}

static int reduce_float(enum quire_format fmt, uint32_t mean_w, uint32_t w, size_t n,
			const float *const *x, float *y, struct scratch *s)
{
	for (size_t i = 0; i < n; i += CHUNK) {
		size_t len = n - i < CHUNK ? n - i : CHUNK;
		const void *xs[QUIRE_MAX_WORKERS];
		int st = QUIRE_OK;
		for (uint32_t k = 0; k < w && !st; k++) {
			if (fmt == QUIRE_FMT_FP16)
				st = quire_codec_encode(fmt, len, x[k] + i, NULL, NULL, NULL,
							(void *)s->qp[k]);
			xs[k] = fmt == QUIRE_FMT_FP16 ? s->qp[k] : (const void *)(x[k] + i);
		}
		if (!st)
			st = quire_codec_sum(fmt, QUIRE_FMT_FP32, w, len, xs, NULL, y + i);
		if (st)
			return st;
		/* The mean: one fp32 division per element, as in decode. */
		for (size_t j = 0; mean_w > 1 && j < len; j++)
			y[i + j] = y[i + j] / (float)mean_w;
	}
	return QUIRE_OK;
}

int quire_codec_allreduce(enum quire_format fmt, enum quire_reduce_op op, uint32_t w, size_t n,
			  const float *const *x, float *const *resid, float *y)
{
	if (op != QUIRE_OP_SUM && op != QUIRE_OP_MEAN)
		return QUIRE_ERR_INVALID;
	if (w < 1 || w > QUIRE_MAX_WORKERS)
		return QUIRE_ERR_SIZE;
	if (n && (!x || !y))
		return QUIRE_ERR_INVALID;
	for (uint32_t k = 0; k < w && n; k++)
		if (!x[k] || (resid && !resid[k]))
			return QUIRE_ERR_INVALID;
	int bfp = fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16;
	if (!bfp && fmt != QUIRE_FMT_FP16 && fmt != QUIRE_FMT_FP32)
		return QUIRE_ERR_FORMAT;
	if (resid && !bfp)
		return QUIRE_ERR_INVALID; /* error feedback is defined for BFP only */
	if (n == 0)
		return QUIRE_OK;
	struct scratch s = {0};
	int st = scratch_alloc(&s, w, fmt == QUIRE_FMT_BFP8 ? 1 : 2);
	if (st)
		return st;
	uint32_t mean_w = op == QUIRE_OP_MEAN ? w : 1;
	if (bfp)
		st = reduce_bfp(fmt, mean_w, w, n, x, resid, y, &s);
	else
		st = reduce_float(fmt, mean_w, w, n, x, y, &s);
	scratch_free(&s);
	return st;
}
