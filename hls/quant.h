/* SPDX-License-Identifier: MIT */
/*
 * QUANT kernel: fp32 <-> block floating point (bfp8, bfp16) and fp16.
 *
 * The golden model of the gradient codec (docs/contract-bfp.md). A reduction runs the two
 * encode passes apart: every worker computes its local block exponents, the
 * workers agree on the shared exponents (an integer max), then every worker
 * encodes with the shared ones.
 */
#ifndef QUIRE_HLS_QUANT_H
#define QUIRE_HLS_QUANT_H

#include "hls_cl.h" /* <stdint.h>, or its OpenCL C stand-in */

#include "quire/card.h" /* the OP values of the top function */

/* flags */
#define QUIRE_QUANT_EF                                                                             \
	QUIRE_QUANT_F_EF /* error feedback: encode v = fp32(x + resid), update resid */

/* Exponent of one block from the largest |x| bit pattern (sign cleared). */
int8_t quire_bfp_block_exponent(uint32_t max_abs_bits);

/* One element: sat(rne(|x| * 2^(mant_bits - eg)), limit) with the sign of x;
 * eg must be a finite block exponent in [-125, 126]. */
int32_t quire_bfp_quantize(uint32_t x_bits, int eg, uint32_t mant_bits, int32_t limit);

/* Bits of fp32(s * 2^k), rounded once, to nearest, ties to even. */
uint32_t quire_bfp_scale(int32_t s, int k);

/* Bytes of an INT8/INT16/INT32 element; 0 for any other format. */
uint32_t quire_int_format_bytes(uint32_t fmt);

uint16_t quire_fp16_from_fp32(uint32_t f32_bits);
uint32_t quire_fp16_to_fp32(uint16_t h);

/*
 * Exponent pass: exp[b] for every block of x (or of fp32(x + resid) with
 * QUIRE_QUANT_EF).
 */
void quire_quant_exponents(uint32_t n, uint32_t flags, QUIRE_GMEM const float *x,
			   QUIRE_GMEM const float *resid, QUIRE_GMEM int8_t *exp);

/* 1 if every exponent is a valid one (>= -126), else 0. */
int quire_bfp_exponents_valid(QUIRE_GMEM const int8_t *exp, uint32_t blocks);

/*
 * Encode pass. fmt BFP8 or BFP16: q (int8 or int16, little-endian) from x with
 * the given (shared) exponents; with QUIRE_QUANT_EF, resid is read and updated.
 * fmt FP16: q (binary16) from x; flags, resid and exp are not used.
 * Returns QUIRE_OK, QUIRE_ERR_FORMAT, or QUIRE_ERR_RANGE (an exponent below
 * -126) with nothing written.
 */
int quire_quant_encode(uint32_t fmt, uint32_t n, uint32_t flags, QUIRE_GMEM const float *x,
		       QUIRE_GMEM float *resid, QUIRE_GMEM const int8_t *exp,
		       QUIRE_GMEM uint8_t *q);

/*
 * Decode. fmt BFP8 or BFP16 with values of val_fmt INT8, INT16 or INT32 (a
 * single encoding or an exact sum); fmt FP16 with val_fmt FP16. mean_w > 1
 * divides each decoded value by mean_w in fp32 (the mean of a W-worker sum).
 * Returns QUIRE_OK, QUIRE_ERR_FORMAT, or QUIRE_ERR_RANGE (an exponent below
 * -126) with nothing written. fmt FP32 with val_fmt FP32: the values
 * themselves, or their mean; how the card finishes an fp32 all-reduce.
 */
int quire_quant_decode(uint32_t fmt, uint32_t val_fmt, uint32_t n, uint32_t mean_w,
		       QUIRE_GMEM const uint8_t *vals, QUIRE_GMEM const int8_t *exp,
		       QUIRE_GMEM float *y);

/* The kernel's top function, as Vitis HLS synthesizes it (see hls/vitis/). ENCODE of bfp
 * with QUIRE_QUANT_F_EXPS in flags is the exponent pass and then the encode pass: exp
 * written from x (and resid), then q (and resid) from x with it. */
int quire_quant_top(uint32_t op, uint32_t fmt, uint32_t val_fmt, uint32_t flags, uint32_t n,
		    uint32_t mean_w, QUIRE_GMEM const float *x, QUIRE_GMEM float *resid,
		    QUIRE_GMEM int8_t *exp, QUIRE_GMEM uint8_t *q, QUIRE_GMEM float *y);

#endif /* QUIRE_HLS_QUANT_H */
