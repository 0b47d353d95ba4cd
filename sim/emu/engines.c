// SPDX-License-Identifier: MIT
/*
 * The emu's engines on the fast path: each call the CPU codec covers (codec/codec.h, the
 * code libquire's quire_codec_* run too) goes there, every other one (fp32 decode, int32
 * inputs, accumulating int32 sums, exponent max, bad arguments) to the hls/ C, so statuses
 * and bytes stay the golden model's. The card's modelled cycles are counted by emu.c from
 * the arguments alone.
 */
#include "engines.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hls/quant.h"
#include "hls/reduce.h"
#include "codec/codec.h"
#include "quire/card.h"
#include "quire/cmd.h"
#include "quire/status.h"
#include "quire/format.h"

int quire_emu_engines_golden(void)
{
	static atomic_int mode; /* 0: not read yet, 1: fast, 2: golden, 3: bad */
	int m = atomic_load(&mode);
	if (!m) {
		const char *v = getenv("QUIRE_EMU_ENGINES");
		m = !v || !*v || strcmp(v, "fast") == 0 ? 1 : strcmp(v, "golden") == 0 ? 2 : 3;
		if (m == 3)
			fprintf(stderr,
				"quire emu: QUIRE_EMU_ENGINES is '%s', not 'fast' or 'golden'\n",
				v);
		atomic_store(&mode, m);
	}
	return m == 1 ? 0 : m == 2 ? 1 : -1;
}

static int is_bfp(uint32_t fmt)
{
	return fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16;
}

/* The SIMD code reads and writes its integer lanes as whole int16/int32. */
static int aligned(const void *p, uint32_t bytes)
{
	return ((uintptr_t)p & (bytes - 1)) == 0;
}

static int quant_fast(uint32_t op, uint32_t fmt, uint32_t val_fmt, uint32_t flags, uint32_t n,
		      uint32_t mean_w, const float *x, float *resid, int8_t *exp, uint8_t *q,
		      float *y, int *st)
{
	float *r = (flags & QUIRE_QUANT_F_EF) ? resid : NULL;
	if (op == QUIRE_QUANT_OP_EXPONENTS && is_bfp(fmt)) {
		*st = quire_cpu_codec_exponents((enum quire_format)fmt, n, x, r, exp);
		return 1;
	}
	if (op == QUIRE_QUANT_OP_ENCODE && is_bfp(fmt) && (flags & QUIRE_QUANT_F_EXPS) &&
	    aligned(q, fmt == QUIRE_FMT_BFP16 ? 2 : 1)) {
		/* the exponent pass, then the encode pass with them (quire_quant_top) */
		*st = quire_cpu_codec_exponents((enum quire_format)fmt, n, x, r, exp);
		if (*st == QUIRE_OK)
			*st = quire_cpu_codec_encode((enum quire_format)fmt, n, x, r, exp, NULL, q);
		return 1;
	}
	if (op == QUIRE_QUANT_OP_ENCODE && is_bfp(fmt) &&
	    aligned(q, fmt == QUIRE_FMT_BFP16 ? 2 : 1)) {
		*st = quire_cpu_codec_encode((enum quire_format)fmt, n, x, r, exp, NULL, q);
		return 1;
	}
	if (op == QUIRE_QUANT_OP_ENCODE && fmt == QUIRE_FMT_FP16 && aligned(q, 2)) {
		/* the fp16 encoder has no error feedback: the kernel ignores the flag */
		*st = quire_cpu_codec_encode(QUIRE_FMT_FP16, n, x, NULL, NULL, NULL, q);
		return 1;
	}
	uint32_t vb = quire_int_format_bytes(val_fmt);
	if (op == QUIRE_QUANT_OP_DECODE &&
	    ((fmt == QUIRE_FMT_FP16 && val_fmt == QUIRE_FMT_FP16 && aligned(q, 2)) ||
	     (is_bfp(fmt) && vb && aligned(q, vb)))) {
		*st = quire_cpu_codec_decode((enum quire_format)fmt, (enum quire_format)val_fmt, n,
					     q, exp, mean_w, y);
		return 1;
	}
	return 0;
}

int quire_emu_quant(int golden, uint32_t op, uint32_t fmt, uint32_t val_fmt, uint32_t flags,
		    uint32_t n, uint32_t mean_w, const float *x, float *resid, int8_t *exp,
		    uint8_t *q, float *y)
{
	int st;
	if (!golden && quant_fast(op, fmt, val_fmt, flags, n, mean_w, x, resid, exp, q, y, &st))
		return st;
	return quire_quant_top(op, fmt, val_fmt, flags, n, mean_w, x, resid, exp, q, y);
}

static int overlap(const void *a, uint64_t a_len, const void *b, uint64_t b_len)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
	return a_len && b_len && x < y + b_len && y < x + a_len;
}

/*
 * The codec's fast sums: int8/int16 into int32 with no accumulator in, which cannot
 * overflow for W <= QUIRE_CMD_MAX_WORKERS, int8/int16 into int16 with or without one (the
 * ring's partial sums), saturated as the kernel does, and fp16/fp32 into fp16/fp32 with or
 * without one (the fp32 and fp16 rings' sums, in the kernel's order). Inputs apart from
 * the output (the codec reads a vector while it writes another); the accumulator in may be
 * the output.
 */
static int sum_fast(uint32_t in_fmt, uint32_t acc_fmt, uint32_t w, uint32_t n, uint32_t stride,
		    uint32_t flags, const uint8_t *in, const uint8_t *acc_in, uint8_t *acc_out,
		    int *st)
{
	int fp = (in_fmt == QUIRE_FMT_FP16 || in_fmt == QUIRE_FMT_FP32) &&
		 (acc_fmt == QUIRE_FMT_FP16 || acc_fmt == QUIRE_FMT_FP32);
	uint32_t in_b = fp                          ? quire_reduce_format_bytes(in_fmt)
			: in_fmt == QUIRE_FMT_INT8  ? 1
			: in_fmt == QUIRE_FMT_INT16 ? 2
						    : 0;
	uint32_t acc_b = fp                           ? quire_reduce_format_bytes(acc_fmt)
			 : acc_fmt == QUIRE_FMT_INT16 ? 2
			 : acc_fmt == QUIRE_FMT_INT32 ? 4
						      : 0;
	int acc = flags == QUIRE_REDUCE_F_ACC_IN;
	if (!in_b || !acc_b || !(flags == 0 || acc) || (acc && !fp && acc_b != 2) || w < 1 ||
	    w > QUIRE_CMD_MAX_WORKERS || (w > 1 && stride < n) || !aligned(in, in_b) ||
	    !aligned(acc_out, acc_b) || (acc && !aligned(acc_in, acc_b)))
		return 0;
	uint64_t out_len = (uint64_t)n * acc_b;
	if (overlap(in, ((uint64_t)(w - 1) * stride + n) * in_b, acc_out, out_len) ||
	    (acc && acc_in != acc_out && overlap(acc_in, out_len, acc_out, out_len)))
		return 0;
	const void *rows[QUIRE_CMD_MAX_WORKERS];
	for (uint32_t k = 0; k < w; k++)
		rows[k] = in + (uint64_t)k * stride * in_b;
	*st = quire_cpu_codec_sum((enum quire_format)in_fmt, (enum quire_format)acc_fmt, w, n, rows,
				  acc ? acc_in : NULL, acc_out);
	return 1;
}

int quire_emu_reduce(int golden, uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t w,
		     uint32_t n, uint32_t stride, uint32_t flags, const uint8_t *in,
		     const uint8_t *acc_in, uint8_t *acc_out)
{
	int st;
	if (!golden && op == QUIRE_REDUCE_OP_SUM &&
	    sum_fast(in_fmt, acc_fmt, w, n, stride, flags, in, acc_in, acc_out, &st))
		return st;
	return quire_reduce_top(op, in_fmt, acc_fmt, w, n, stride, flags, in, acc_in, acc_out);
}
