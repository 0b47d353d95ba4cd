/* SPDX-License-Identifier: MIT */
/*
 * The gradient codec on the CPU: bfp8, bfp16 and fp16 encode and decode with error feedback,
 * exact integer and fixed-order fp sums, and the shared exponents of a reduction, in AVX-512,
 * AVX2 or the hls/ C itself, bit for bit the hls/ kernels. libquire's public quire_codec_*
 * (host/include/quire.h) hand their calls to these functions, and the emu's fast engines
 * (sim/emu/engines.c) call them directly: every argument check is made here, once.
 *
 * Functions return a quire status code (<quire/status.h>). They are reentrant; the choice of
 * implementation is process-wide and atomic. docs/codec.md describes the whole.
 */
#ifndef QUIRE_CODEC_CODEC_H
#define QUIRE_CODEC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "quire/format.h"

/* The implementations; the values are those of libquire's public enum quire_codec_impl. */
enum quire_cpu_codec_impl {
	QUIRE_CPU_CODEC_AUTO = 0,   /* the best this CPU has (the default) */
	QUIRE_CPU_CODEC_SCALAR = 1, /* the hls/ C model itself */
	QUIRE_CPU_CODEC_AVX2 = 2,   /* AVX2 + F16C */
	QUIRE_CPU_CODEC_AVX512 = 3, /* AVX-512F */
};

/* Choose the implementation for the whole process: QUIRE_ERR_INVALID for an unknown one,
 * QUIRE_ERR_NOT_SUPPORTED if this CPU lacks it. Until the first choice, $QUIRE_CODEC
 * (scalar, avx2, avx512) names it, else the best this CPU has. */
int quire_cpu_codec_use(enum quire_cpu_codec_impl impl);
/* The implementation in use: "scalar", "avx2" or "avx512". */
const char *quire_cpu_codec_impl_name(void);
/* "auto", "scalar", "avx2", "avx512" to its enum value; -1 if unknown. */
int quire_cpu_codec_impl_parse(const char *name);

/* The local block exponents of x, or of fp32(x + resid) when resid != NULL. fmt: BFP8 or
 * BFP16; exp has ceil(n/64) entries. */
int quire_cpu_codec_exponents(enum quire_format fmt, size_t n, const float *x, const float *resid,
			      int8_t *exp);

/* BFP8/BFP16: q (int8_t[n] or int16_t[n]) from x, with the given shared_exp, or with each
 * block's own exponent written to exp_out (shared_exp NULL); resid != NULL: error feedback.
 * FP16: q is uint16_t[n]; shared_exp, exp_out and resid NULL. Exponents outside [-126, 127]:
 * QUIRE_ERR_RANGE, nothing written. */
int quire_cpu_codec_encode(enum quire_format fmt, size_t n, const float *x, float *resid,
			   const int8_t *shared_exp, int8_t *exp_out, void *q);

/* To fp32: fmt BFP8/BFP16 with vals of val_fmt INT8, INT16 or INT32, or fmt FP16 with val_fmt
 * FP16; mean_w > 1 divides by mean_w in fp32. */
int quire_cpu_codec_decode(enum quire_format fmt, enum quire_format val_fmt, size_t n,
			   const void *vals, const int8_t *exp, uint32_t mean_w, float *y);

/* acc_out = acc_in (if not NULL) + in[0] + ... + in[w-1], w in 1 .. QUIRE_CMD_MAX_WORKERS:
 * integers exactly (QUIRE_ERR_OVERFLOW if a sum does not fit acc_fmt), fp16/fp32 in fp32 in
 * that order (hls/ REDUCE's sums). */
int quire_cpu_codec_sum(enum quire_format in_fmt, enum quire_format acc_fmt, uint32_t w, size_t n,
			const void *const *in, const void *acc_in, void *acc_out);

/* out[b] = max over w of in[w][b]: the shared exponents of a reduction. */
int quire_cpu_codec_max_exponents(uint32_t w, size_t blocks, const int8_t *const *in, int8_t *out);

#endif /* QUIRE_CODEC_CODEC_H */
