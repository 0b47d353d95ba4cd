/* SPDX-License-Identifier: MIT */
/*
 * The kernels' portability header: the same kernel sources of hls/ compile as C (gcc, Vitis HLS)
 * and as OpenCL C 1.2 (the opencl backend builds them from source, host/src/backend/opencl.c).
 *
 * In C it is <stdint.h> and an empty QUIRE_GMEM. In OpenCL C it supplies the <stdint.h>
 * names, makes QUIRE_GMEM __global (the address space of every pointer a kernel port
 * reaches, which OpenCL C 1.2 spells out), and, when QUIRE_CL_KERNELS is defined after
 * the kernels' C, adds the thin __kernel wrappers that call the top functions: no
 * arithmetic of their own, only the slice of the vector each work-item takes.
 */
#ifndef QUIRE_HLS_CL_H
#define QUIRE_HLS_CL_H

#ifdef __OPENCL_C_VERSION__
#define QUIRE_HLS_OPENCL 1
#define QUIRE_GMEM       __global
/* Contraction would change the bits of x + resid and v - back (docs/contract-bfp.md). */
#pragma OPENCL FP_CONTRACT OFF
typedef char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef uint uint32_t;
typedef ulong uint64_t;
#define INT8_MIN    (-128)
#define INT16_MIN   (-32767 - 1)
#define INT16_MAX   32767
#define INT32_MIN   (-2147483647 - 1)
#define INT32_MAX   2147483647
#define INT64_MIN   (-9223372036854775807L - 1)
#define INT64_MAX   9223372036854775807L
#define INT64_C(v)  v##L
#define UINT64_C(v) v##UL
#define NULL_GMEM   ((QUIRE_GMEM void *)0)
#else
#include <stdint.h>
#define QUIRE_HLS_OPENCL 0
#define QUIRE_GMEM
#endif

#endif /* QUIRE_HLS_CL_H */

/*
 * The __kernel wrappers, OpenCL C only, once: the generator of the embedded source
 * (hls/gen_opencl.py) includes this header again after the kernels with QUIRE_CL_KERNELS.
 * Their arguments are the top functions' in the same order (QUIRE_*_ARG_* of
 * quire/card.h), then `status`: one int per work-item, the top function's return value.
 * quire_mlp takes one more buffer: the engine's weight memory, which on a card is the
 * top function's static storage and OpenCL C 1.2 has no static storage for.
 */
#if defined(__OPENCL_C_VERSION__) && defined(QUIRE_CL_KERNELS) && !defined(QUIRE_CL_KERNELS_DONE)
#define QUIRE_CL_KERNELS_DONE

/* Work-item get_global_id(0) takes [*first, *first + return) of `units` 64-element blocks. */
static uint quire_cl_slice(uint units, uint *first)
{
	uint gs = (uint)get_global_size(0), g = (uint)get_global_id(0);
	uint per = units / gs + (units % gs != 0);
	uint a = min(g * per, units);
	*first = a;
	return min(a + per, units) - a;
}

/* Elements [i0, i0 + len) of an n-element vector in the work-item's slice of blocks. */
static uint quire_cl_elems(uint n, uint *i0)
{
	uint b0, nb = quire_cl_slice(QUIRE_BFP_BLOCKS(n), &b0);
	*i0 = b0 * QUIRE_BFP_BLOCK;
	return nb ? min(n - *i0, nb * QUIRE_BFP_BLOCK) : 0;
}

#define QUIRE_CL_AT(p, off) ((p) ? (p) + (off) : (p))

__kernel void quire_quant(uint op, uint fmt, uint val_fmt, uint flags, uint n, uint mean_w,
			  __global const float *x, __global float *resid, __global char *exp,
			  __global uchar *q, __global float *y, __global int *status)
{
	uint i0, len = quire_cl_elems(n, &i0);
	/* Bytes of a q element: the encoding's, or on decode the values'. */
	uint qb = op == QUIRE_QUANT_OP_DECODE ? quire_reduce_format_bytes(val_fmt)
		  : fmt == QUIRE_FMT_BFP8     ? 1
					      : 2;
	status[get_global_id(0)] = quire_quant_top(
	    op, fmt, val_fmt, flags, len, mean_w, QUIRE_CL_AT(x, i0), QUIRE_CL_AT(resid, i0),
	    QUIRE_CL_AT(exp, i0 / QUIRE_BFP_BLOCK), QUIRE_CL_AT(q, i0 * qb), QUIRE_CL_AT(y, i0));
}

__kernel void quire_reduce(uint op, uint in_fmt, uint acc_fmt, uint w, uint n, uint stride,
			   uint flags, __global const uchar *in, __global const uchar *acc_in,
			   __global uchar *acc_out, __global int *status)
{
	uint i0, len = quire_cl_elems(n, &i0);
	uint inb = op == QUIRE_REDUCE_OP_SUM ? quire_reduce_format_bytes(in_fmt) : 1;
	uint accb = op == QUIRE_REDUCE_OP_SUM ? quire_reduce_format_bytes(acc_fmt) : 1;
	status[get_global_id(0)] =
	    quire_reduce_top(op, in_fmt, acc_fmt, w, len, stride, flags, QUIRE_CL_AT(in, i0 * inb),
			     QUIRE_CL_AT(acc_in, i0 * accb), QUIRE_CL_AT(acc_out, i0 * accb));
}

/* One work-item: scoring chooses over all candidates. */
__kernel void quire_mlp(uint op, uint len, uint c, __global const uchar *image,
			__global const char *features, __global const uchar *feasible,
			__global int *scores, __global uint *choice, __global int *status,
			__global struct quire_mlp_net *net)
{
	status[0] = quire_mlp_run(net, op, len, c, image, features, feasible, scores, choice);
}
#endif
