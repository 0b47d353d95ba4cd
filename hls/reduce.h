/* SPDX-License-Identifier: MIT */
/*
 * REDUCE kernel: exact integer sums of quantized vectors, the fixed-order fp32
 * sum of fp16/fp32 vectors, and the element-wise max of block exponents.
 *
 * Inputs are W vectors of n elements, vector w at element offset w * stride
 * of one buffer. An optional accumulator input (a partial sum arriving from
 * the ring) is added first. Integers are summed exactly in 64 bits and stored
 * in the accumulator format; a value that does not fit is reported, never
 * wrapped silently.
 */
#ifndef QUIRE_HLS_REDUCE_H
#define QUIRE_HLS_REDUCE_H

#include "hls_cl.h" /* <stdint.h>, or its OpenCL C stand-in */

#include "quire/card.h" /* the OP values of the top function */

#define QUIRE_REDUCE_ACC_IN QUIRE_REDUCE_F_ACC_IN /* acc_in holds a partial sum to add first */

/*
 * acc_out[i] = acc_in[i] (with QUIRE_REDUCE_ACC_IN) + sum over w < W of in[w * stride + i].
 * in_fmt INT8, INT16, INT32 or INT64 with acc_fmt INT16, INT32 or INT64: exact;
 *   returns QUIRE_ERR_OVERFLOW if some sum does not fit acc_fmt (that element
 *   saturates). INT64 partial sums carry int32 sums across the card network.
 * in_fmt FP16 or FP32 with acc_fmt FP32 or FP16: fp32 additions in the fixed
 *   order acc_in, in[0], in[1], ... in[W-1]; an FP16 accumulator is read widened
 *   and the sum rounded to fp16 (RNE) once at the end: an fp16 ring hop. A NaN
 *   after any addition becomes QUIRE_NAN_BITS, so NaN sums are the same bits on
 *   every path.
 * acc_in may be the same buffer as acc_out.
 */
int quire_reduce_sum(uint32_t in_fmt, uint32_t acc_fmt, uint32_t w, uint32_t n, uint32_t stride,
		     uint32_t flags, QUIRE_GMEM const uint8_t *in, QUIRE_GMEM const uint8_t *acc_in,
		     QUIRE_GMEM uint8_t *acc_out);

/* out[b] = max(acc_in[b] (with QUIRE_REDUCE_ACC_IN), in[w * stride + b] for w < W). */
void quire_reduce_max_exp(uint32_t w, uint32_t blocks, uint32_t stride, uint32_t flags,
			  QUIRE_GMEM const int8_t *in, QUIRE_GMEM const int8_t *acc_in,
			  QUIRE_GMEM int8_t *out);

/* Bytes per element of a format this kernel handles, 0 if it handles none. */
uint32_t quire_reduce_format_bytes(uint32_t fmt);

/* The kernel's top function, as Vitis HLS synthesizes it (see hls/vitis/). */
int quire_reduce_top(uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t w, uint32_t n,
		     uint32_t stride, uint32_t flags, QUIRE_GMEM const uint8_t *in,
		     QUIRE_GMEM const uint8_t *acc_in, QUIRE_GMEM uint8_t *acc_out);

#endif /* QUIRE_HLS_REDUCE_H */
