/* SPDX-License-Identifier: MIT */
/*
 * A deliberately simple reference of the codec contract (docs/contract-bfp.md), written apart
 * from hls/: libm's ilogb, ldexp and nearbyint on doubles, where every
 * product the contract asks for is exact. Slow and obvious on purpose.
 */
#ifndef QUIRE_TEST_BFP_REF_H
#define QUIRE_TEST_BFP_REF_H

#include <stddef.h>
#include <stdint.h>

int ref_block_exponent(const float *v, size_t len);
int32_t ref_quantize(float x, int eg, int mant_bits);
float ref_decode(int32_t s, int eg, int mant_bits);
/* Whole-tensor encode with given exponents (NULL: local ones, written to exp_out). */
void ref_encode(int mant_bits, size_t n, const float *x, float *resid, const int8_t *shared,
		int8_t *exp_out, int32_t *q);
/* A W-worker all-reduce (sum or mean). */
void ref_allreduce(int mant_bits, int mean, size_t w, size_t n, const float *const *x, float *y);
/*
 * The same with error feedback (resid: NULL or each worker's n residuals) and, with requant,
 * the requantized all-gather: segment k (the ring's split of whole blocks, w of them) is
 * requantized by its owner with the owner's residual owner[k] (NULL: none).
 */
void ref_allreduce_ef(int mant_bits, int mean, size_t w, size_t n, int requant,
		      const float *const *x, float *const *resid, float *const *owner, float *y);
uint16_t ref_fp16(float x);

#endif
