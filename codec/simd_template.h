/* SPDX-License-Identifier: MIT */
/*
 * The SIMD codec, written once over a small vector layer that the including
 * file defines for its instruction set (simd_avx512.c, simd_avx2.c):
 *
 *   VF, VI, VL          float vector, int32 vector, lanes
 *   vf_load/vf_store, vf_add, vf_sub, vf_mul, vf_div, vf_min, vf_max, vf_set1
 *   vf_bits(VF)->VI, vi_and, vi_andnot(a, b) = ~a & b, vi_sub, vi_srai(VI, n),
 *   vi_maxu32, vi_min_i32, vi_max_i32, vi_hmaxu32(VI)->uint32_t, vi_set1
 *   vf_rne(VF)->VI      round to nearest even (MXCSR default, set by the dispatcher)
 *   vi_to_vf(VI)->VF    exact below 2^24, else rounded to nearest even
 *   vi_load_i8/i16/i32(p), vi_store_i8/i16(p, VI), vf_from_bits(VI)
 *   vh_load(p)->VF, vh_store(p, VF)   binary16 <-> fp32 (F16C), RNE
 *   vf_nan_to(VF v, VF nan)->VF        v with its NaN lanes replaced by nan's
 *   SIMD_NAME           suffix of the exported table
 *
 * Why the arithmetic is exact (docs/contract-bfp.md asks for exact products):
 * - encode: x * 2^(P - E) is taken as two multiplications by powers of two of
 *   the same sign. Each is exact unless its result is subnormal, and then
 *   the true value is below 2^-126, which rounds to 0 either way.
 * - decode: int -> fp32 rounds once (only for |S| >= 2^24), then the scaling
 *   is exact, since any such product is a normal number (k >= -140).
 * - error feedback: q * 2^(E - P) is exact (a multiple of 2^-149 below 2^31);
 *   v - that is the one fp32 rounding the contract asks for.
 */
#include "hls/quant.h"
#include "quire/format.h"

#define BLOCK_VECS ((int)(QUIRE_BFP_BLOCK / VL))
#define CAT2(a, b) a##b
#define CAT(a, b)  CAT2(a, b)
#define FN(name)   CAT(name##_, SIMD_NAME)

static inline float pow2f(int k)
{
	/* 2^k for k in [-149, 127], subnormals included. */
	return quire_f32_from_bits(quire_bfp_scale(1, k));
}

static inline uint32_t block_max_abs(const VF *v)
{
	const VI mask = vi_set1(0x7fffffff);
	VI m = vi_and(vf_bits(v[0]), mask);
	for (int j = 1; j < BLOCK_VECS; j++)
		m = vi_maxu32(m, vi_and(vf_bits(v[j]), mask));
	return vi_hmaxu32(m);
}

static inline void load_block(const float *x, const float *resid, VF *v)
{
	for (int j = 0; j < BLOCK_VECS; j++) {
		v[j] = vf_load(x + j * VL);
		if (resid)
			v[j] = vf_add(v[j], vf_load(resid + j * VL));
	}
}

static void FN(exponents)(const float *x, const float *resid, size_t blocks, int8_t *exp)
{
	for (size_t b = 0; b < blocks; b++) {
		VF v[BLOCK_VECS];
		size_t off = b * QUIRE_BFP_BLOCK;
		load_block(x + off, resid ? resid + off : NULL, v);
		exp[b] = quire_bfp_block_exponent(block_max_abs(v));
	}
}

static inline __attribute__((always_inline)) void
encode_bfp_body(const uint32_t mant_bits, const float *x, float *resid, const int8_t *exp_in,
		int8_t *exp_out, size_t blocks, void *q)
{
	const float limit = mant_bits == 7 ? QUIRE_BFP8_LIMIT : QUIRE_BFP16_LIMIT;
	const VF hi = vf_set1(limit), lo = vf_set1(-limit);
	for (size_t b = 0; b < blocks; b++) {
		size_t off = b * QUIRE_BFP_BLOCK;
		VF v[BLOCK_VECS];
		load_block(x + off, resid ? resid + off : NULL, v);
		int eg;
		if (exp_in) {
			eg = exp_in[b];
		} else {
			eg = quire_bfp_block_exponent(block_max_abs(v));
			exp_out[b] = (int8_t)eg;
		}
		int8_t *q8 = (int8_t *)q + off;
		int16_t *q16 = (int16_t *)q + off;
		if (eg < QUIRE_BFP_EXP_MIN || eg > QUIRE_BFP_EXP_MAX) {
			/* ZERO or NONFINITE: q = 0; the residual becomes v, or stays (NONFINITE).
			 */
			for (int j = 0; j < BLOCK_VECS; j++) {
				if (mant_bits == 7)
					vi_store_i8(q8 + j * VL, vi_set1(0));
				else
					vi_store_i16(q16 + j * VL, vi_set1(0));
				if (resid && eg != QUIRE_BFP_EXP_NONFINITE)
					vf_store(resid + off + j * VL, v[j]);
			}
			continue;
		}
		int k = (int)mant_bits - eg; /* in [-119, 140] */
		const VF f1 = vf_set1(pow2f(k - k / 2)), f2 = vf_set1(pow2f(k / 2));
		const VF back = vf_set1(pow2f(eg - (int)mant_bits));
		for (int j = 0; j < BLOCK_VECS; j++) {
			VF s = vf_mul(vf_mul(v[j], f1), f2);
			VI qi = vf_rne(vf_max(vf_min(s, hi), lo));
			if (mant_bits == 7)
				vi_store_i8(q8 + j * VL, qi);
			else
				vi_store_i16(q16 + j * VL, qi);
			if (resid)
				vf_store(resid + off + j * VL,
					 vf_sub(v[j], vf_mul(vi_to_vf(qi), back)));
		}
	}
}

static void FN(encode_bfp)(uint32_t mant_bits, const float *x, float *resid, const int8_t *exp_in,
			   int8_t *exp_out, size_t blocks, void *q)
{
	/* Constant arguments let the compiler drop the format and feedback tests. */
	if (mant_bits == 7) {
		if (resid)
			encode_bfp_body(7, x, resid, exp_in, exp_out, blocks, q);
		else
			encode_bfp_body(7, x, NULL, exp_in, exp_out, blocks, q);
	} else {
		if (resid)
			encode_bfp_body(15, x, resid, exp_in, exp_out, blocks, q);
		else
			encode_bfp_body(15, x, NULL, exp_in, exp_out, blocks, q);
	}
}

static inline VI load_vals(uint32_t val_bytes, const void *vals, size_t i)
{
	if (val_bytes == 1)
		return vi_load_i8((const int8_t *)vals + i);
	if (val_bytes == 2)
		return vi_load_i16((const int16_t *)vals + i);
	return vi_load_i32((const int32_t *)vals + i);
}

static inline __attribute__((always_inline)) void
decode_bfp_body(uint32_t mant_bits, const uint32_t val_bytes, const void *vals, const int8_t *exp,
		size_t blocks, uint32_t mean_w, float *y)
{
	const VF div = vf_set1((float)(mean_w > 1 ? mean_w : 1));
	for (size_t b = 0; b < blocks; b++) {
		size_t off = b * QUIRE_BFP_BLOCK;
		int eg = exp[b];
		VF r[BLOCK_VECS];
		if (eg == QUIRE_BFP_EXP_NONFINITE) {
			for (int j = 0; j < BLOCK_VECS; j++)
				r[j] = vf_from_bits(vi_set1((int32_t)QUIRE_NAN_BITS));
		} else if (eg < QUIRE_BFP_EXP_MIN) {
			for (int j = 0; j < BLOCK_VECS; j++)
				r[j] = vf_set1(0.0f);
		} else {
			const VF scale = vf_set1(pow2f(eg - (int)mant_bits));
			for (int j = 0; j < BLOCK_VECS; j++)
				r[j] = vf_mul(vi_to_vf(load_vals(val_bytes, vals, off + j * VL)),
					      scale);
		}
		for (int j = 0; j < BLOCK_VECS; j++)
			vf_store(y + off + j * VL, mean_w > 1 ? vf_div(r[j], div) : r[j]);
	}
}

static void FN(decode_bfp)(uint32_t mant_bits, uint32_t val_bytes, const void *vals,
			   const int8_t *exp, size_t blocks, uint32_t mean_w, float *y)
{
	if (val_bytes == 1)
		decode_bfp_body(mant_bits, 1, vals, exp, blocks, mean_w, y);
	else if (val_bytes == 2)
		decode_bfp_body(mant_bits, 2, vals, exp, blocks, mean_w, y);
	else
		decode_bfp_body(mant_bits, 4, vals, exp, blocks, mean_w, y);
}

static void FN(fp16_encode)(const float *x, size_t n, uint16_t *h)
{
	for (size_t i = 0; i < n; i += VL)
		vh_store(h + i, vf_load(x + i));
}

/*
 * binary16 -> fp32 widened exactly, as hls/ does (docs/contract-bfp.md): F16C
 * sets the quiet bit of a signalling NaN (0x7c01 -> 0x7fc02000, not 0x7f802000),
 * so it is cleared again in the lanes whose input is one: |h| in
 * [0x7c01, 0x7dff] (exponent all ones, quiet bit 9 clear, payload not 0).
 * Branch-free integer work: u = |h| - 0x7c01 is in [0, 0x1fe] exactly there,
 * where ~u & (u - 0x1ff) has its sign bit set.
 */
static inline VF vh_load_exact(const uint16_t *p)
{
	VI t = vi_and(vi_load_i16((const int16_t *)p), vi_set1(0x7fff));
	VI u = vi_sub(t, vi_set1(0x7c01));
	VI snan = vi_srai(vi_andnot(u, vi_sub(u, vi_set1(0x1ff))), 31);
	return vf_from_bits(vi_andnot(vi_and(snan, vi_set1(0x400000)), vf_bits(vh_load(p))));
}

static void FN(fp16_decode)(const uint16_t *h, size_t n, uint32_t mean_w, float *y)
{
	const VF div = vf_set1((float)(mean_w > 1 ? mean_w : 1));
	for (size_t i = 0; i < n; i += VL) {
		VF v = vh_load_exact(h + i);
		vf_store(y + i, mean_w > 1 ? vf_div(v, div) : v);
	}
}

static void FN(sum_to_i32)(uint32_t in_bytes, const void *const *in, uint32_t w, size_t n,
			   int32_t *out)
{
	for (size_t i = 0; i < n; i += VL) {
		VI s = vi_set1(0);
		for (uint32_t k = 0; k < w; k++)
			s = vi_add(s, load_vals(in_bytes, in[k], i));
		vi_store_i32(out + i, s);
	}
}

/*
 * out = acc_in (if not NULL) + the w int8/int16 vectors, saturated to int16 as the hls/ REDUCE
 * kernel does; nonzero if some sum was. In int32 lanes, which W <= 1024 int16 values and an
 * int16 accumulator cannot leave, so the one clamp at the end is the whole saturation.
 */
static int FN(sum_to_i16)(uint32_t in_bytes, const void *const *in, uint32_t w,
			  const int16_t *acc_in, size_t n, int16_t *out)
{
	const VI hi = vi_set1(INT16_MAX), lo = vi_set1(INT16_MIN);
	VI clipped = vi_set1(0);
	for (size_t i = 0; i < n; i += VL) {
		VI s = acc_in ? vi_load_i16(acc_in + i) : vi_set1(0);
		for (uint32_t k = 0; k < w; k++)
			s = vi_add(s, load_vals(in_bytes, in[k], i));
		VI c = vi_min_i32(vi_max_i32(s, lo), hi);
		clipped = vi_maxu32(clipped, vi_sub(s, c)); /* nonzero where it saturated */
		vi_store_i16(out + i, c);
	}
	return vi_hmaxu32(clipped) != 0;
}

static inline VF load_fp(uint32_t bytes, const void *p, size_t i)
{
	return bytes == 2 ? vh_load_exact((const uint16_t *)p + i) : vf_load((const float *)p + i);
}

/*
 * hls/ REDUCE's fp sum, lane by lane: the same fp32 additions of the same operands in the same
 * order (acc_in or -0.0, then in[0], in[1], ...) round the same under the dispatcher's MXCSR
 * (nearest even, no FTZ/DAZ), and each NaN sum becomes QUIRE_NAN_BITS after every addition as
 * there. An fp16 output is rounded once, by F16C, which tests/test_codec.c proves equal to
 * hls/'s quire_fp16_from_fp32 on every fp32 pattern class.
 */
static inline __attribute__((always_inline)) void
sum_fp_body(const uint32_t in_bytes, const void *const *in, uint32_t w, const uint32_t acc_bytes,
	    const void *acc_in, size_t n, void *out)
{
	const VF nan = vf_from_bits(vi_set1((int32_t)QUIRE_NAN_BITS));
	for (size_t i = 0; i < n; i += VL) {
		VF s = acc_in ? load_fp(acc_bytes, acc_in, i) : vf_set1(-0.0f);
		for (uint32_t k = 0; k < w; k++)
			s = vf_nan_to(vf_add(s, load_fp(in_bytes, in[k], i)), nan);
		if (acc_bytes == 2)
			vh_store((uint16_t *)out + i, s);
		else
			vf_store((float *)out + i, s);
	}
}

static void FN(sum_fp)(uint32_t in_bytes, const void *const *in, uint32_t w, uint32_t acc_bytes,
		       const void *acc_in, size_t n, void *out)
{
	/* Constant sizes let the compiler drop the format tests from the loop. */
	if (in_bytes == 4 && acc_bytes == 4)
		sum_fp_body(4, in, w, 4, acc_in, n, out);
	else if (in_bytes == 4)
		sum_fp_body(4, in, w, 2, acc_in, n, out);
	else if (acc_bytes == 4)
		sum_fp_body(2, in, w, 4, acc_in, n, out);
	else
		sum_fp_body(2, in, w, 2, acc_in, n, out);
}

const struct quire_codec_simd CAT(quire_codec_simd_, SIMD_NAME) = {
    .name = SIMD_LABEL,
    .exponents = FN(exponents),
    .encode_bfp = FN(encode_bfp),
    .decode_bfp = FN(decode_bfp),
    .fp16_encode = FN(fp16_encode),
    .fp16_decode = FN(fp16_decode),
    .sum_to_i32 = FN(sum_to_i32),
    .sum_to_i16 = FN(sum_to_i16),
    .sum_fp = FN(sum_fp),
};
