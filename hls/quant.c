// SPDX-License-Identifier: MIT
/*
 * QUANT kernel (golden model). Integer datapaths throughout, as the RTL
 * implements them: the only fp32 arithmetic is the error-feedback add and
 * subtract and the mean division, which the contract (docs/contract-bfp.md)
 * defines as IEEE fp32 operations.
 */
#include "quant.h"

#include "hls_util.h"
#include "quire/format.h"
#include "quire/status.h"

int8_t quire_bfp_block_exponent(uint32_t max_abs_bits)
{
	if (max_abs_bits >= 0x7f800000u)
		return QUIRE_BFP_EXP_NONFINITE;
	if (max_abs_bits == 0)
		return QUIRE_BFP_EXP_ZERO;
	/* ilogb(m) + 1 = biased exponent - 126 for normals; subnormals clamp. */
	int e = (int)(max_abs_bits >> 23) - 126;
	if (e < QUIRE_BFP_EXP_MIN)
		e = QUIRE_BFP_EXP_MIN;
	if (e > QUIRE_BFP_EXP_MAX)
		e = QUIRE_BFP_EXP_MAX;
	return (int8_t)e;
}

/* The per-element datapaths, inlined into the loops; the exported names wrap them. */
static inline int32_t bfp_quantize(uint32_t x_bits, int eg, uint32_t mant_bits, int32_t limit)
{
	uint32_t biased = (x_bits >> 23) & 0xffu;
	uint32_t sig = x_bits & 0x7fffffu;
	if (biased)
		sig |= 0x800000u;
	else
		biased = 1; /* subnormal: same scale as the smallest normal */
	if (sig == 0)
		return 0;
	/* |x| = sig * 2^(biased - 150), so |x| * 2^(mant_bits - eg) = sig * 2^-sh. */
	int sh = 150 + eg - (int)mant_bits - (int)biased;
	uint64_t mag;
	if (sh <= 0)
		mag = (uint64_t)sig << (-sh > 32 ? 32 : -sh);
	else
		mag = quire_rne_shift(sig, (uint32_t)sh);
	if (mag > (uint64_t)limit)
		mag = (uint64_t)limit;
	return (x_bits >> 31) ? -(int32_t)mag : (int32_t)mag;
}

int32_t quire_bfp_quantize(uint32_t x_bits, int eg, uint32_t mant_bits, int32_t limit)
{
	return bfp_quantize(x_bits, eg, mant_bits, limit);
}

static inline uint32_t bfp_scale(int32_t s, int k)
{
	if (s == 0)
		return 0;
	uint32_t sign = s < 0 ? 0x80000000u : 0;
	uint32_t a = s < 0 ? 0u - (uint32_t)s : (uint32_t)s;
	int p = quire_msb(a);
	int ex = p + k; /* the value is in [2^ex, 2^(ex+1)) */
	if (ex >= -126) {
		uint64_t m =
		    p > 23 ? quire_rne_shift(a, (uint32_t)(p - 23)) : (uint64_t)a << (23 - p);
		if (m == (UINT64_C(1) << 24)) { /* rounding carried into the next binade */
			m >>= 1;
			ex++;
		}
		if (ex + 127 >= 255)
			return sign | 0x7f800000u;
		return sign | (uint32_t)(ex + 127) << 23 | ((uint32_t)m & 0x7fffffu);
	}
	/* Subnormal result: count units of 2^-149. A carry to 2^23 encodes the
	 * smallest normal, which is the right answer. */
	int sh = -(k + 149);
	uint64_t m = sh <= 0 ? (uint64_t)a << -sh : quire_rne_shift(a, (uint32_t)sh);
	return sign | (uint32_t)m;
}

uint32_t quire_bfp_scale(int32_t s, int k)
{
	return bfp_scale(s, k);
}

uint16_t quire_fp16_from_fp32(uint32_t b)
{
	uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
	uint32_t biased = (b >> 23) & 0xffu;
	uint32_t frac = b & 0x7fffffu;
	if (biased == 0xff) /* Inf stays Inf; NaN becomes quiet, payload's top bits kept (F16C) */
		return sign | 0x7c00u | (frac ? 0x200u | (uint16_t)(frac >> 13) : 0);
	if (biased == 0) /* fp32 subnormals are far below half of fp16's 2^-24 */
		return sign;
	uint32_t sig = frac | 0x800000u;
	int hexp = (int)biased - 127 + 15;
	if (hexp >= 31)
		return sign | 0x7c00u;
	if (hexp >= 1) {
		/* The rounded 11-bit significand may carry into the exponent, even into Inf. */
		uint32_t r = (uint32_t)quire_rne_shift(sig, 13);
		return sign | (uint16_t)(((uint32_t)hexp << 10) + (r - 0x400u));
	}
	/* Subnormal half: units of 2^-24. */
	return sign | (uint16_t)quire_rne_shift(sig, (uint32_t)(126 - (int)biased));
}

uint32_t quire_fp16_to_fp32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1fu;
	uint32_t frac = h & 0x3ffu;
	if (e == 0x1f)
		return sign | 0x7f800000u | frac << 13;
	if (e)
		return sign | (e + 112) << 23 | frac << 13;
	if (frac == 0)
		return sign;
	/* Subnormal half: frac * 2^-24, a normal fp32. */
	int p = quire_msb(frac);
	return sign | (uint32_t)(p - 24 + 127) << 23 | ((frac << (23 - p)) & 0x7fffffu);
}

int quire_bfp_exponents_valid(QUIRE_GMEM const int8_t *exp, uint32_t blocks)
{
check_loop:
	for (uint32_t b = 0; b < QUIRE_HLS_MAX_BLOCKS; b++) {
#pragma HLS PIPELINE II = 1
		if (b >= blocks)
			break;
		if (exp[b] < QUIRE_BFP_EXP_ZERO)
			return 0;
	}
	return 1;
}

static inline float ef_input(uint32_t flags, QUIRE_GMEM const float *x,
			     QUIRE_GMEM const float *resid, uint32_t i)
{
	return (flags & QUIRE_QUANT_EF) ? x[i] + resid[i] : x[i];
}

void quire_quant_exponents(uint32_t n, uint32_t flags, QUIRE_GMEM const float *x,
			   QUIRE_GMEM const float *resid, QUIRE_GMEM int8_t *exp)
{
	uint32_t blocks = QUIRE_BFP_BLOCKS((uint64_t)n);
block_loop:
	for (uint32_t b = 0; b < QUIRE_HLS_MAX_BLOCKS; b++) {
		if (b >= blocks)
			break;
		uint32_t max_abs = 0;
	element_loop:
		for (uint32_t j = 0; j < QUIRE_BFP_BLOCK; j++) {
#pragma HLS PIPELINE II = 1
			uint32_t i = b * QUIRE_BFP_BLOCK + j;
			if (i < n) {
				uint32_t a =
				    quire_f32_bits(ef_input(flags, x, resid, i)) & 0x7fffffffu;
				max_abs = a > max_abs ? a : max_abs;
			}
		}
		exp[b] = quire_bfp_block_exponent(max_abs);
	}
}

static void encode_bfp(uint32_t n, uint32_t flags, uint32_t mant_bits, int32_t limit,
		       uint32_t elem_bytes, QUIRE_GMEM const float *x, QUIRE_GMEM float *resid,
		       QUIRE_GMEM const int8_t *exp, QUIRE_GMEM uint8_t *q)
{
	uint32_t blocks = QUIRE_BFP_BLOCKS((uint64_t)n);
block_loop:
	for (uint32_t b = 0; b < QUIRE_HLS_MAX_BLOCKS; b++) {
		if (b >= blocks)
			break;
		int eg = exp[b];
		int finite = eg >= QUIRE_BFP_EXP_MIN && eg <= QUIRE_BFP_EXP_MAX;
	element_loop:
		for (uint32_t j = 0; j < QUIRE_BFP_BLOCK; j++) {
#pragma HLS PIPELINE II = 1
			uint32_t i = b * QUIRE_BFP_BLOCK + j;
			if (i >= n)
				continue;
			float v = ef_input(flags, x, resid, i);
			int32_t qi =
			    finite ? bfp_quantize(quire_f32_bits(v), eg, mant_bits, limit) : 0;
			if (elem_bytes == 1)
				q[i] = (uint8_t)(int8_t)qi;
			else
				quire_st16(q, i, (uint16_t)(int16_t)qi);
			/* A NONFINITE block keeps its residual (docs/contract-bfp.md). */
			if ((flags & QUIRE_QUANT_EF) && eg != QUIRE_BFP_EXP_NONFINITE) {
				float back =
				    quire_f32_from_bits(bfp_scale(qi, eg - (int)mant_bits));
				resid[i] = v - back;
			}
		}
	}
}

int quire_quant_encode(uint32_t fmt, uint32_t n, uint32_t flags, QUIRE_GMEM const float *x,
		       QUIRE_GMEM float *resid, QUIRE_GMEM const int8_t *exp, QUIRE_GMEM uint8_t *q)
{
	if ((fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16) &&
	    !quire_bfp_exponents_valid(exp, QUIRE_BFP_BLOCKS((uint64_t)n)))
		return QUIRE_ERR_RANGE;
	switch (fmt) {
	case QUIRE_FMT_BFP8:
		encode_bfp(n, flags, QUIRE_BFP8_MANT_BITS, QUIRE_BFP8_LIMIT, 1, x, resid, exp, q);
		return QUIRE_OK;
	case QUIRE_FMT_BFP16:
		encode_bfp(n, flags, QUIRE_BFP16_MANT_BITS, QUIRE_BFP16_LIMIT, 2, x, resid, exp, q);
		return QUIRE_OK;
	case QUIRE_FMT_FP16:
	fp16_loop:
		for (uint32_t i = 0; i < n; i++) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT max = 4194304
			quire_st16(q, i, quire_fp16_from_fp32(quire_f32_bits(x[i])));
		}
		return QUIRE_OK;
	default:
		return QUIRE_ERR_FORMAT;
	}
}

uint32_t quire_int_format_bytes(uint32_t fmt)
{
	switch (fmt) {
	case QUIRE_FMT_INT8:
		return 1;
	case QUIRE_FMT_INT16:
		return 2;
	case QUIRE_FMT_INT32:
		return 4;
	default:
		return 0;
	}
}

static inline float mean_of(float y, uint32_t mean_w)
{
	return mean_w > 1 ? y / (float)mean_w : y;
}

int quire_quant_decode(uint32_t fmt, uint32_t val_fmt, uint32_t n, uint32_t mean_w,
		       QUIRE_GMEM const uint8_t *vals, QUIRE_GMEM const int8_t *exp,
		       QUIRE_GMEM float *y)
{
	if (fmt == QUIRE_FMT_FP16) {
		if (val_fmt != QUIRE_FMT_FP16)
			return QUIRE_ERR_FORMAT;
	fp16_loop:
		for (uint32_t i = 0; i < n; i++) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT max = 4194304
			uint32_t bits = quire_fp16_to_fp32((uint16_t)quire_ld16(vals, i));
			y[i] = mean_of(quire_f32_from_bits(bits), mean_w);
		}
		return QUIRE_OK;
	}
	if (fmt == QUIRE_FMT_FP32) { /* identity, or the mean of an fp32 sum */
		if (val_fmt != QUIRE_FMT_FP32)
			return QUIRE_ERR_FORMAT;
	fp32_loop:
		for (uint32_t i = 0; i < n; i++) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT max = 4194304
			y[i] = mean_of(quire_f32_from_bits((uint32_t)quire_ld32(vals, i)), mean_w);
		}
		return QUIRE_OK;
	}
	uint32_t mant_bits;
	if (fmt == QUIRE_FMT_BFP8)
		mant_bits = QUIRE_BFP8_MANT_BITS;
	else if (fmt == QUIRE_FMT_BFP16)
		mant_bits = QUIRE_BFP16_MANT_BITS;
	else
		return QUIRE_ERR_FORMAT;
	uint32_t elem_bytes = quire_int_format_bytes(val_fmt);
	if (elem_bytes == 0)
		return QUIRE_ERR_FORMAT;
	if (!quire_bfp_exponents_valid(exp, QUIRE_BFP_BLOCKS((uint64_t)n)))
		return QUIRE_ERR_RANGE;

	uint32_t blocks = QUIRE_BFP_BLOCKS((uint64_t)n);
block_loop:
	for (uint32_t b = 0; b < QUIRE_HLS_MAX_BLOCKS; b++) {
		if (b >= blocks)
			break;
		int eg = exp[b];
	element_loop:
		for (uint32_t j = 0; j < QUIRE_BFP_BLOCK; j++) {
#pragma HLS PIPELINE II = 1
			uint32_t i = b * QUIRE_BFP_BLOCK + j;
			if (i >= n)
				continue;
			uint32_t bits;
			if (eg == QUIRE_BFP_EXP_NONFINITE)
				bits = QUIRE_NAN_BITS;
			else if (eg < QUIRE_BFP_EXP_MIN) /* ZERO (values below it are invalid, read
							    as ZERO) */
				bits = 0;
			else
				bits = bfp_scale(quire_ld_int(vals, elem_bytes, i),
						 eg - (int)mant_bits);
			y[i] = mean_of(quire_f32_from_bits(bits), mean_w);
		}
	}
	return QUIRE_OK;
}

int quire_quant_top(uint32_t op, uint32_t fmt, uint32_t val_fmt, uint32_t flags, uint32_t n,
		    uint32_t mean_w, QUIRE_GMEM const float *x, QUIRE_GMEM float *resid,
		    QUIRE_GMEM int8_t *exp, QUIRE_GMEM uint8_t *q, QUIRE_GMEM float *y)
{
#pragma HLS INTERFACE m_axi port = x offset = slave bundle = gmem0 max_read_burst_length = 64
#pragma HLS INTERFACE m_axi port = resid offset = slave bundle = gmem1
#pragma HLS INTERFACE m_axi port = exp offset = slave bundle = gmem2
#pragma HLS INTERFACE m_axi port = q offset = slave bundle = gmem3 max_write_burst_length = 64
#pragma HLS INTERFACE m_axi port = y offset = slave bundle = gmem0
#pragma HLS INTERFACE s_axilite port = op
#pragma HLS INTERFACE s_axilite port = fmt
#pragma HLS INTERFACE s_axilite port = val_fmt
#pragma HLS INTERFACE s_axilite port = flags
#pragma HLS INTERFACE s_axilite port = n
#pragma HLS INTERFACE s_axilite port = mean_w
#pragma HLS INTERFACE s_axilite port = return
	switch (op) {
	case QUIRE_QUANT_OP_EXPONENTS:
		quire_quant_exponents(n, flags, x, resid, exp);
		return QUIRE_OK;
	case QUIRE_QUANT_OP_ENCODE:
		if ((flags & QUIRE_QUANT_F_EXPS) &&
		    (fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16))
			quire_quant_exponents(n, flags, x, resid, exp);
		return quire_quant_encode(fmt, n, flags, x, resid, exp, q);
	case QUIRE_QUANT_OP_DECODE:
		return quire_quant_decode(fmt, val_fmt, n, mean_w, q, exp, y);
	default:
		return QUIRE_ERR_OPCODE;
	}
}
