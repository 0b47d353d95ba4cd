// SPDX-License-Identifier: MIT
/*
 * The gradient codec on the CPU (codec.h): argument checks, the choice of SIMD
 * implementation, and the split of every call into whole blocks (SIMD) and a
 * tail (the hls/ C model). The hls/ model is also the scalar implementation,
 * so there is one scalar codec in the project, not two.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "simd.h"
#include "hls/quant.h"
#include "hls/reduce.h"
#include "quire/cmd.h"
#include "quire/format.h"
#include "quire/status.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define QUIRE_X86 1
#endif

/* The hls/ kernels take 32-bit counts: longer tensors go in chunks of whole blocks. */
#define CHUNK_ELEMS (UINT32_C(1) << 30)

static _Atomic(const struct quire_codec_simd *) g_simd;
static atomic_int g_chosen; /* 0 until the first choice is made */

#ifdef QUIRE_X86
#include <cpuid.h>

/* F16C from CPUID itself: clang's __builtin_cpu_supports does not know "f16c". */
static int cpu_has_f16c(void)
{
	unsigned int eax, ebx, ecx, edx;
	return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
}
#endif

static int cpu_has(enum quire_cpu_codec_impl impl)
{
#ifdef QUIRE_X86
	__builtin_cpu_init();
	if (impl == QUIRE_CPU_CODEC_AVX512)
		return __builtin_cpu_supports("avx512f");
	if (impl == QUIRE_CPU_CODEC_AVX2)
		return __builtin_cpu_supports("avx2") && cpu_has_f16c();
#endif
	return impl == QUIRE_CPU_CODEC_SCALAR;
}

static const struct quire_codec_simd *simd_of(enum quire_cpu_codec_impl impl)
{
#ifdef QUIRE_X86
	if (impl == QUIRE_CPU_CODEC_AVX512)
		return &quire_codec_simd_avx512;
	if (impl == QUIRE_CPU_CODEC_AVX2)
		return &quire_codec_simd_avx2;
#endif
	return NULL;
}

int quire_cpu_codec_impl_parse(const char *name)
{
	static const char *const names[] = {"auto", "scalar", "avx2", "avx512"};
	for (int i = 0; i < 4; i++)
		if (name && strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

int quire_cpu_codec_use(enum quire_cpu_codec_impl impl)
{
	if (impl == QUIRE_CPU_CODEC_AUTO) {
		impl = cpu_has(QUIRE_CPU_CODEC_AVX512) ? QUIRE_CPU_CODEC_AVX512
		       : cpu_has(QUIRE_CPU_CODEC_AVX2) ? QUIRE_CPU_CODEC_AVX2
						       : QUIRE_CPU_CODEC_SCALAR;
	} else if (impl != QUIRE_CPU_CODEC_SCALAR && impl != QUIRE_CPU_CODEC_AVX2 &&
		   impl != QUIRE_CPU_CODEC_AVX512) {
		return QUIRE_ERR_INVALID;
	}
	if (!cpu_has(impl))
		return QUIRE_ERR_NOT_SUPPORTED;
	atomic_store(&g_simd, simd_of(impl));
	atomic_store(&g_chosen, 1);
	return QUIRE_OK;
}

static const struct quire_codec_simd *simd(void)
{
	if (!atomic_load(&g_chosen)) {
		int impl = quire_cpu_codec_impl_parse(getenv("QUIRE_CODEC"));
		if (impl < 0 || quire_cpu_codec_use((enum quire_cpu_codec_impl)impl) != QUIRE_OK)
			quire_cpu_codec_use(QUIRE_CPU_CODEC_AUTO);
	}
	return atomic_load(&g_simd);
}

const char *quire_cpu_codec_impl_name(void)
{
	const struct quire_codec_simd *s = simd();
	return s ? s->name : "scalar";
}

/*
 * The codec's fp32 arithmetic must round to nearest even and keep subnormals,
 * whatever the caller set (trainers often enable flush-to-zero): run every
 * call under the default MXCSR and give the caller's back.
 */
struct fp_env {
	unsigned int csr;
};

static struct fp_env fp_enter(void)
{
	struct fp_env e = {0};
#ifdef QUIRE_X86
	e.csr = _mm_getcsr();
	_mm_setcsr(0x1f80); /* all exceptions masked, round to nearest, no FTZ/DAZ */
#endif
	return e;
}

static void fp_leave(struct fp_env e)
{
#ifdef QUIRE_X86
	_mm_setcsr(e.csr);
#else
	(void)e;
#endif
}

static uint32_t mant_bits_of(enum quire_format fmt)
{
	return fmt == QUIRE_FMT_BFP8 ? QUIRE_BFP8_MANT_BITS : QUIRE_BFP16_MANT_BITS;
}

static int is_bfp(enum quire_format fmt)
{
	return fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16;
}

static int exps_valid(const int8_t *exp, size_t blocks)
{
	for (size_t b = 0; b < blocks; b += CHUNK_ELEMS)
		if (!quire_bfp_exponents_valid(
			exp + b, (uint32_t)(blocks - b < CHUNK_ELEMS ? blocks - b : CHUNK_ELEMS)))
			return 0;
	return 1;
}

int quire_cpu_codec_exponents(enum quire_format fmt, size_t n, const float *x, const float *resid,
			      int8_t *exp)
{
	if (!is_bfp(fmt))
		return QUIRE_ERR_FORMAT;
	if (n && (!x || !exp))
		return QUIRE_ERR_INVALID;
	const struct quire_codec_simd *s = simd();
	struct fp_env env = fp_enter();
	size_t full = s ? n / QUIRE_BFP_BLOCK : 0;
	if (full)
		s->exponents(x, resid, full, exp);
	for (size_t i = full * QUIRE_BFP_BLOCK; i < n; i += CHUNK_ELEMS) {
		uint32_t len = (uint32_t)(n - i < CHUNK_ELEMS ? n - i : CHUNK_ELEMS);
		quire_quant_exponents(len, resid ? QUIRE_QUANT_EF : 0, x + i,
				      resid ? resid + i : NULL, exp + i / QUIRE_BFP_BLOCK);
	}
	fp_leave(env);
	return QUIRE_OK;
}

static void encode_bfp(enum quire_format fmt, size_t n, const float *x, float *resid,
		       const int8_t *shared_exp, int8_t *exp_out, void *q)
{
	const struct quire_codec_simd *s = simd();
	size_t elem = fmt == QUIRE_FMT_BFP8 ? 1 : 2;
	size_t full = s ? n / QUIRE_BFP_BLOCK : 0;
	if (full)
		s->encode_bfp(mant_bits_of(fmt), x, resid, shared_exp, exp_out, full, q);
	for (size_t i = full * QUIRE_BFP_BLOCK; i < n; i += CHUNK_ELEMS) {
		uint32_t len = (uint32_t)(n - i < CHUNK_ELEMS ? n - i : CHUNK_ELEMS);
		const int8_t *e =
		    shared_exp ? shared_exp + i / QUIRE_BFP_BLOCK : exp_out + i / QUIRE_BFP_BLOCK;
		uint32_t flags = resid ? QUIRE_QUANT_EF : 0;
		float *r = resid ? resid + i : NULL;
		if (!shared_exp)
			quire_quant_exponents(len, flags, x + i, r, exp_out + i / QUIRE_BFP_BLOCK);
		quire_quant_encode(fmt, len, flags, x + i, r, e, (uint8_t *)q + i * elem);
	}
}

int quire_cpu_codec_encode(enum quire_format fmt, size_t n, const float *x, float *resid,
			   const int8_t *shared_exp, int8_t *exp_out, void *q)
{
	if (fmt == QUIRE_FMT_FP16) {
		if (resid || shared_exp || exp_out)
			return QUIRE_ERR_INVALID;
		if (n && (!x || !q))
			return QUIRE_ERR_INVALID;
		const struct quire_codec_simd *s = simd();
		struct fp_env env = fp_enter();
		size_t full = s ? n / QUIRE_BFP_BLOCK * QUIRE_BFP_BLOCK : 0;
		if (full)
			s->fp16_encode(x, full, q);
		for (size_t i = full; i < n; i += CHUNK_ELEMS) {
			uint32_t len = (uint32_t)(n - i < CHUNK_ELEMS ? n - i : CHUNK_ELEMS);
			quire_quant_encode(fmt, len, 0, x + i, NULL, NULL, (uint8_t *)q + 2 * i);
		}
		fp_leave(env);
		return QUIRE_OK;
	}
	if (!is_bfp(fmt))
		return QUIRE_ERR_FORMAT;
	if (n && (!x || !q || (!shared_exp && !exp_out)))
		return QUIRE_ERR_INVALID;
	if (shared_exp && !exps_valid(shared_exp, QUIRE_BFP_BLOCKS(n)))
		return QUIRE_ERR_RANGE;
	struct fp_env env = fp_enter();
	encode_bfp(fmt, n, x, resid, shared_exp, exp_out, q);
	fp_leave(env);
	return QUIRE_OK;
}

int quire_cpu_codec_decode(enum quire_format fmt, enum quire_format val_fmt, size_t n,
			   const void *vals, const int8_t *exp, uint32_t mean_w, float *y)
{
	if (n && (!vals || !y))
		return QUIRE_ERR_INVALID;
	const struct quire_codec_simd *s = simd();
	size_t elem, full;
	if (fmt == QUIRE_FMT_FP16) {
		if (val_fmt != QUIRE_FMT_FP16)
			return QUIRE_ERR_FORMAT;
		elem = 2;
		full = s ? n / QUIRE_BFP_BLOCK : 0;
		struct fp_env env = fp_enter();
		if (full)
			s->fp16_decode(vals, full * QUIRE_BFP_BLOCK, mean_w, y);
		fp_leave(env);
	} else {
		if (!is_bfp(fmt))
			return QUIRE_ERR_FORMAT;
		elem = quire_int_format_bytes(val_fmt);
		if (!elem)
			return QUIRE_ERR_FORMAT;
		if (n && !exp)
			return QUIRE_ERR_INVALID;
		if (!exps_valid(exp, QUIRE_BFP_BLOCKS(n)))
			return QUIRE_ERR_RANGE;
		full = s ? n / QUIRE_BFP_BLOCK : 0;
		struct fp_env env = fp_enter();
		if (full)
			s->decode_bfp(mant_bits_of(fmt), (uint32_t)elem, vals, exp, full, mean_w,
				      y);
		fp_leave(env);
	}
	struct fp_env env = fp_enter();
	for (size_t i = full * QUIRE_BFP_BLOCK; i < n; i += CHUNK_ELEMS) {
		uint32_t len = (uint32_t)(n - i < CHUNK_ELEMS ? n - i : CHUNK_ELEMS);
		quire_quant_decode(fmt, val_fmt, len, mean_w, (const uint8_t *)vals + i * elem,
				   exp ? exp + i / QUIRE_BFP_BLOCK : NULL, y + i);
	}
	fp_leave(env);
	return QUIRE_OK;
}

/*
 * The kernel's own path: it sums W inputs of one strided buffer in one pass
 * (exact, overflow judged on the final sum), so stage the caller's W arrays
 * chunk by chunk.
 */
#define STAGE_ELEMS 4096u

static int sum_generic(enum quire_format in_fmt, enum quire_format acc_fmt, uint32_t w, size_t n,
		       const void *const *in, const void *acc_in, void *acc_out)
{
	size_t in_b = quire_reduce_format_bytes(in_fmt), acc_b = quire_reduce_format_bytes(acc_fmt);
	uint8_t *stage = malloc((size_t)w * STAGE_ELEMS * in_b);
	if (!stage)
		return QUIRE_ERR_NOMEM;
	int status = QUIRE_OK;
	for (size_t i = 0; i < n; i += STAGE_ELEMS) {
		uint32_t len = (uint32_t)(n - i < STAGE_ELEMS ? n - i : STAGE_ELEMS);
		for (uint32_t k = 0; k < w; k++)
			memcpy(stage + (size_t)k * STAGE_ELEMS * in_b,
			       (const uint8_t *)in[k] + i * in_b, len * in_b);
		int st = quire_reduce_sum(in_fmt, acc_fmt, w, len, STAGE_ELEMS,
					  acc_in ? QUIRE_REDUCE_ACC_IN : 0, stage,
					  acc_in ? (const uint8_t *)acc_in + i * acc_b : NULL,
					  (uint8_t *)acc_out + i * acc_b);
		if (st != QUIRE_OK && st != QUIRE_ERR_OVERFLOW) {
			status = st;
			break;
		}
		if (st == QUIRE_ERR_OVERFLOW)
			status = st;
	}
	free(stage);
	return status;
}

/* Elements [full, n) of a sum whose first `full` the SIMD code did: the kernel's own path. */
static int sum_tail(enum quire_format in_fmt, enum quire_format acc_fmt, uint32_t w, size_t n,
		    size_t full, const void *const *in, const void *acc_in, void *acc_out)
{
	if (full == n)
		return QUIRE_OK;
	size_t in_b = quire_reduce_format_bytes(in_fmt), acc_b = quire_reduce_format_bytes(acc_fmt);
	const void *tail[QUIRE_CMD_MAX_WORKERS];
	for (uint32_t k = 0; k < w; k++)
		tail[k] = (const uint8_t *)in[k] + full * in_b;
	return sum_generic(in_fmt, acc_fmt, w, n - full, tail,
			   acc_in ? (const uint8_t *)acc_in + full * acc_b : NULL,
			   (uint8_t *)acc_out + full * acc_b);
}

int quire_cpu_codec_sum(enum quire_format in_fmt, enum quire_format acc_fmt, uint32_t w, size_t n,
			const void *const *in, const void *acc_in, void *acc_out)
{
	if (w < 1 || w > QUIRE_CMD_MAX_WORKERS)
		return QUIRE_ERR_SIZE;
	if (n && (!acc_out || !in))
		return QUIRE_ERR_INVALID;
	for (uint32_t k = 0; k < w && n; k++)
		if (!in[k])
			return QUIRE_ERR_INVALID;
	if (!quire_reduce_format_bytes(in_fmt) || !quire_reduce_format_bytes(acc_fmt))
		return QUIRE_ERR_FORMAT;
	const struct quire_codec_simd *s = simd();
	struct fp_env env = fp_enter();
	int status;
	size_t full = n / QUIRE_BFP_BLOCK * QUIRE_BFP_BLOCK;
	uint32_t in_b = quire_reduce_format_bytes(in_fmt),
		 acc_b = quire_reduce_format_bytes(acc_fmt);
	int in_fp = in_fmt == QUIRE_FMT_FP16 || in_fmt == QUIRE_FMT_FP32;
	int acc_fp = acc_fmt == QUIRE_FMT_FP16 || acc_fmt == QUIRE_FMT_FP32;
	int narrow_int = in_fmt == QUIRE_FMT_INT8 || in_fmt == QUIRE_FMT_INT16;
	/* int8/int16 into int32 cannot overflow for W <= 1024: the SIMD path needs no check. */
	if (s && !acc_in && acc_fmt == QUIRE_FMT_INT32 && narrow_int) {
		s->sum_to_i32(in_b, in, w, full, acc_out);
		status = sum_tail(in_fmt, acc_fmt, w, n, full, in, acc_in, acc_out);
	} else if (s && acc_fmt == QUIRE_FMT_INT16 && narrow_int) {
		/* The ring's partial sums (int8 and int16 into int16, saturating). */
		int clipped = s->sum_to_i16(in_b, in, w, acc_in, full, acc_out);
		status = sum_tail(in_fmt, acc_fmt, w, n, full, in, acc_in, acc_out);
		if (clipped && status == QUIRE_OK)
			status = QUIRE_ERR_OVERFLOW;
	} else if (s && in_fp && acc_fp) {
		/* The fp32 and fp16 rings' sums, in the kernel's order. */
		s->sum_fp(in_b, in, w, acc_b, acc_in, full, acc_out);
		status = sum_tail(in_fmt, acc_fmt, w, n, full, in, acc_in, acc_out);
	} else {
		status = sum_generic(in_fmt, acc_fmt, w, n, in, acc_in, acc_out);
	}
	fp_leave(env);
	return status;
}

int quire_cpu_codec_max_exponents(uint32_t w, size_t blocks, const int8_t *const *in, int8_t *out)
{
	if (w < 1 || w > QUIRE_CMD_MAX_WORKERS)
		return QUIRE_ERR_SIZE;
	if (blocks && (!in || !out))
		return QUIRE_ERR_INVALID;
	for (uint32_t k = 0; k < w && blocks; k++)
		if (!in[k])
			return QUIRE_ERR_INVALID;
	for (size_t i = 0; i < blocks; i += CHUNK_ELEMS) {
		uint32_t len = (uint32_t)(blocks - i < CHUNK_ELEMS ? blocks - i : CHUNK_ELEMS);
		quire_reduce_max_exp(1, len, len, 0, in[0] + i, NULL, out + i);
		for (uint32_t k = 1; k < w; k++)
			quire_reduce_max_exp(1, len, len, QUIRE_REDUCE_ACC_IN, in[k] + i, out + i,
					     out + i);
	}
	return QUIRE_OK;
}
