/* SPDX-License-Identifier: MIT */
/*
 * The CPU fast path of the gradient codec: one table of entry points per
 * instruction set, chosen at run time. Every entry works on whole 64-element
 * blocks (or whole vectors); the dispatcher hands the remainder to the hls/
 * C model, which is also the scalar fallback. Results are bit-identical to
 * hls/ (tests/test_codec.c checks it, every fp16 pattern included).
 */
#ifndef QUIRE_CODEC_SIMD_H
#define QUIRE_CODEC_SIMD_H

#include <stddef.h>
#include <stdint.h>

struct quire_codec_simd {
	const char *name;
	/* Local block exponents of x (or fp32(x + resid) when resid != NULL). */
	void (*exponents)(const float *x, const float *resid, size_t blocks, int8_t *exp);
	/*
	 * BFP encode, mant_bits 7 (int8 q) or 15 (int16 q). With exp_in the given
	 * shared exponents are used; without (NULL), each block's own exponent is
	 * computed and written to exp_out in the same pass. resid != NULL: error feedback.
	 */
	void (*encode_bfp)(uint32_t mant_bits, const float *x, float *resid, const int8_t *exp_in,
			   int8_t *exp_out, size_t blocks, void *q);
	/* BFP decode from int8/int16/int32 values (val_bytes 1, 2, 4). */
	void (*decode_bfp)(uint32_t mant_bits, uint32_t val_bytes, const void *vals,
			   const int8_t *exp, size_t blocks, uint32_t mean_w, float *y);
	/* fp16 <-> fp32 over n elements, n a multiple of 64. */
	void (*fp16_encode)(const float *x, size_t n, uint16_t *h);
	void (*fp16_decode)(const uint16_t *h, size_t n, uint32_t mean_w, float *y);
	/* out = sum of w int8/int16 vectors (in_bytes 1, 2) in int32, n a multiple of 64. */
	void (*sum_to_i32)(uint32_t in_bytes, const void *const *in, uint32_t w, size_t n,
			   int32_t *out);
	/* out = acc_in (or 0 when NULL) + sum of w int8/int16 vectors, saturated to int16;
	 * nonzero when some sum saturated. n a multiple of 64; acc_in may be out. */
	int (*sum_to_i16)(uint32_t in_bytes, const void *const *in, uint32_t w,
			  const int16_t *acc_in, size_t n, int16_t *out);
	/* out = acc_in (or -0.0 when NULL) + in[0] + ... + in[w-1] in fp32, in that order, each
	 * NaN sum the one quiet NaN; fp16 (bytes 2) or fp32 (4) inputs, accumulator and output
	 * (acc_in and out of acc_bytes), an fp16 output rounded once at the end: hls/ REDUCE's
	 * fp sum. n a multiple of 64; acc_in may be out. */
	void (*sum_fp)(uint32_t in_bytes, const void *const *in, uint32_t w, uint32_t acc_bytes,
		       const void *acc_in, size_t n, void *out);
};

extern const struct quire_codec_simd quire_codec_simd_avx512;
extern const struct quire_codec_simd quire_codec_simd_avx2;

#endif /* QUIRE_CODEC_SIMD_H */
