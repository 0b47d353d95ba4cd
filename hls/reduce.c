// SPDX-License-Identifier: MIT
/* REDUCE kernel (golden model). */
#include "reduce.h"

#include "hls_util.h"
#include "quant.h"
#include "quire/format.h"
#include "quire/status.h"

/* Up to 1024 workers per call; a ring step uses W = 1 plus the accumulator. */
#define REDUCE_MAX_WORKERS  1024u
#define REDUCE_MAX_ELEMENTS 0xffffffffu

uint32_t quire_reduce_format_bytes(uint32_t fmt)
{
	switch (fmt) {
	case QUIRE_FMT_INT8:
		return 1;
	case QUIRE_FMT_INT16:
	case QUIRE_FMT_FP16:
		return 2;
	case QUIRE_FMT_INT32:
	case QUIRE_FMT_FP32:
		return 4;
	case QUIRE_FMT_INT64:
		return 8;
	default:
		return 0;
	}
}

static int sum_int(uint32_t in_bytes, uint32_t acc_bytes, uint32_t w, uint32_t n, uint32_t stride,
		   uint32_t flags, QUIRE_GMEM const uint8_t *in, QUIRE_GMEM const uint8_t *acc_in,
		   QUIRE_GMEM uint8_t *acc_out)
{
	const int64_t hi = acc_bytes == 2 ? INT16_MAX : acc_bytes == 4 ? INT32_MAX : INT64_MAX;
	const int64_t lo = acc_bytes == 2 ? INT16_MIN : acc_bytes == 4 ? INT32_MIN : INT64_MIN;
	int status = QUIRE_OK;
element_loop:
	for (uint32_t i = 0; i < REDUCE_MAX_ELEMENTS; i++) {
#pragma HLS PIPELINE II = 1
		if (i >= n)
			break;
		int64_t s = (flags & QUIRE_REDUCE_ACC_IN) ? quire_ld_int(acc_in, acc_bytes, i) : 0;
		int wrapped = 0; /* only int64 sums of int64 inputs can leave int64 */
	worker_loop:
		for (uint32_t k = 0; k < REDUCE_MAX_WORKERS; k++) {
			if (k >= w)
				break;
			int64_t v =
			    quire_ld_int(in, in_bytes, (uint32_t)((uint64_t)k * stride + i));
			if ((v > 0 && s > INT64_MAX - v) || (v < 0 && s < INT64_MIN - v)) {
				wrapped = 1;
				s = v > 0 ? INT64_MAX : INT64_MIN;
			} else if (!wrapped) {
				s += v;
			}
		}
		if (wrapped || s > hi || s < lo) {
			status = QUIRE_ERR_OVERFLOW;
			s = s > hi ? hi : s < lo ? lo : s;
		}
		if (acc_bytes == 2)
			quire_st16(acc_out, i, (uint16_t)(int16_t)s);
		else if (acc_bytes == 4)
			quire_st32(acc_out, i, (uint32_t)(int32_t)s);
		else
			quire_st64(acc_out, i, (uint64_t)s);
	}
	return status;
}

static float load_fp(QUIRE_GMEM const uint8_t *p, uint32_t bytes, uint32_t i)
{
	uint32_t bits = bytes == 2 ? quire_fp16_to_fp32((uint16_t)quire_ld16(p, i))
				   : (uint32_t)quire_ld32(p, i);
	return quire_f32_from_bits(bits);
}

static void sum_fp(uint32_t in_bytes, uint32_t acc_bytes, uint32_t w, uint32_t n, uint32_t stride,
		   uint32_t flags, QUIRE_GMEM const uint8_t *in, QUIRE_GMEM const uint8_t *acc_in,
		   QUIRE_GMEM uint8_t *acc_out)
{
element_loop:
	for (uint32_t i = 0; i < REDUCE_MAX_ELEMENTS; i++) {
#pragma HLS PIPELINE II = 1
		if (i >= n)
			break;
		/* Starting from -0.0 keeps an all -0.0 sum -0.0, as a plain fp32 sum of them is. */
		float s = (flags & QUIRE_REDUCE_ACC_IN) ? load_fp(acc_in, acc_bytes, i) : -0.0f;
	worker_loop:
		for (uint32_t k = 0; k < REDUCE_MAX_WORKERS; k++) {
			if (k >= w)
				break;
			s += load_fp(in, in_bytes, (uint32_t)((uint64_t)k * stride + i));
			/* Which NaN an addition of two NaNs returns is up to the hardware (and
			 * the compiler's operand order): every NaN sum is the one quiet NaN. */
			if (s != s)
				s = quire_f32_from_bits(QUIRE_NAN_BITS);
		}
		if (acc_bytes == 2) /* fp16 partial sums: each addition in fp32, then rounded */
			quire_st16(acc_out, i, quire_fp16_from_fp32(quire_f32_bits(s)));
		else
			quire_st32(acc_out, i, quire_f32_bits(s));
	}
}

int quire_reduce_sum(uint32_t in_fmt, uint32_t acc_fmt, uint32_t w, uint32_t n, uint32_t stride,
		     uint32_t flags, QUIRE_GMEM const uint8_t *in, QUIRE_GMEM const uint8_t *acc_in,
		     QUIRE_GMEM uint8_t *acc_out)
{
	uint32_t in_bytes = quire_reduce_format_bytes(in_fmt);
	uint32_t acc_bytes = quire_reduce_format_bytes(acc_fmt);
	if (in_bytes == 0 || acc_bytes == 0)
		return QUIRE_ERR_FORMAT;
	if (w > REDUCE_MAX_WORKERS || (w > 1 && stride < n))
		return QUIRE_ERR_SIZE;
	int in_is_fp = in_fmt == QUIRE_FMT_FP16 || in_fmt == QUIRE_FMT_FP32;
	if (in_is_fp) {
		if (acc_fmt != QUIRE_FMT_FP32 && acc_fmt != QUIRE_FMT_FP16)
			return QUIRE_ERR_FORMAT;
		sum_fp(in_bytes, acc_bytes, w, n, stride, flags, in, acc_in, acc_out);
		return QUIRE_OK;
	}
	if (acc_fmt != QUIRE_FMT_INT16 && acc_fmt != QUIRE_FMT_INT32 && acc_fmt != QUIRE_FMT_INT64)
		return QUIRE_ERR_FORMAT;
	return sum_int(in_bytes, acc_bytes, w, n, stride, flags, in, acc_in, acc_out);
}

void quire_reduce_max_exp(uint32_t w, uint32_t blocks, uint32_t stride, uint32_t flags,
			  QUIRE_GMEM const int8_t *in, QUIRE_GMEM const int8_t *acc_in,
			  QUIRE_GMEM int8_t *out)
{
block_loop:
	for (uint32_t b = 0; b < QUIRE_HLS_MAX_BLOCKS; b++) {
#pragma HLS PIPELINE II = 1
		if (b >= blocks)
			break;
		int8_t m = (flags & QUIRE_REDUCE_ACC_IN) ? acc_in[b] : INT8_MIN;
	worker_loop:
		for (uint32_t k = 0; k < REDUCE_MAX_WORKERS; k++) {
			if (k >= w)
				break;
			int8_t e = in[(uint64_t)k * stride + b];
			m = e > m ? e : m;
		}
		out[b] = m;
	}
}

int quire_reduce_top(uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t w, uint32_t n,
		     uint32_t stride, uint32_t flags, QUIRE_GMEM const uint8_t *in,
		     QUIRE_GMEM const uint8_t *acc_in, QUIRE_GMEM uint8_t *acc_out)
{
#pragma HLS INTERFACE m_axi port = in offset = slave bundle = gmem0 max_read_burst_length = 64
#pragma HLS INTERFACE m_axi port = acc_in offset = slave bundle = gmem1
#pragma HLS INTERFACE m_axi port = acc_out offset = slave bundle = gmem2 max_write_burst_length = 64
#pragma HLS INTERFACE s_axilite port = op
#pragma HLS INTERFACE s_axilite port = in_fmt
#pragma HLS INTERFACE s_axilite port = acc_fmt
#pragma HLS INTERFACE s_axilite port = w
#pragma HLS INTERFACE s_axilite port = n
#pragma HLS INTERFACE s_axilite port = stride
#pragma HLS INTERFACE s_axilite port = flags
#pragma HLS INTERFACE s_axilite port = return
	switch (op) {
	case QUIRE_REDUCE_OP_SUM:
		return quire_reduce_sum(in_fmt, acc_fmt, w, n, stride, flags, in, acc_in, acc_out);
	case QUIRE_REDUCE_OP_MAX_EXP:
		if (w > REDUCE_MAX_WORKERS || (w > 1 && stride < n))
			return QUIRE_ERR_SIZE;
		quire_reduce_max_exp(w, n, stride, flags, (QUIRE_GMEM const int8_t *)in,
				     (QUIRE_GMEM const int8_t *)acc_in,
				     (QUIRE_GMEM int8_t *)acc_out);
		return QUIRE_OK;
	default:
		return QUIRE_ERR_OPCODE;
	}
}
