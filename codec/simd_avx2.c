// SPDX-License-Identifier: MIT
/* The SIMD codec for AVX2 + F16C (8 lanes). Built with -mavx2 -mf16c; used only where the CPU has
 * them. */
#include <immintrin.h>
#include <stdint.h>

#include "simd.h"
#include "hls/hls_util.h"

#define VF         __m256
#define VI         __m256i
#define VL         8
#define SIMD_NAME  avx2
#define SIMD_LABEL "avx2"

static inline uint32_t avx2_hmaxu32(__m256i v)
{
	__m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
	m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0x4e));
	m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0xb1));
	return (uint32_t)_mm_cvtsi128_si32(m);
}

/* Lanes in order: the 128-bit packs work within halves, so split first. */
static inline __m128i avx2_pack16(__m256i v)
{
	return _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

static inline void avx2_store_i8(int8_t *p, __m256i v)
{
	__m128i w = avx2_pack16(v);
	_mm_storel_epi64((__m128i *)p, _mm_packs_epi16(w, w));
}

#define vf_load(p)         _mm256_loadu_ps(p)
#define vf_store(p, v)     _mm256_storeu_ps((p), (v))
#define vf_add             _mm256_add_ps
#define vf_sub             _mm256_sub_ps
#define vf_mul             _mm256_mul_ps
#define vf_div             _mm256_div_ps
#define vf_min             _mm256_min_ps
#define vf_max             _mm256_max_ps
#define vf_set1            _mm256_set1_ps
#define vf_bits            _mm256_castps_si256
#define vf_from_bits       _mm256_castsi256_ps
#define vi_and             _mm256_and_si256
#define vi_andnot          _mm256_andnot_si256
#define vi_sub             _mm256_sub_epi32
#define vi_srai            _mm256_srai_epi32
#define vi_add             _mm256_add_epi32
#define vi_maxu32          _mm256_max_epu32
#define vi_min_i32         _mm256_min_epi32
#define vi_max_i32         _mm256_max_epi32
#define vi_hmaxu32         avx2_hmaxu32
#define vi_set1            _mm256_set1_epi32
#define vf_rne             _mm256_cvtps_epi32 /* MXCSR: round to nearest even, set by the dispatcher */
#define vi_to_vf           _mm256_cvtepi32_ps
#define vi_load_i8(p)      _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(p)))
#define vi_load_i16(p)     _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(p)))
#define vi_load_i32(p)     _mm256_loadu_si256((const __m256i *)(p))
#define vi_store_i8(p, v)  avx2_store_i8((p), (v))
#define vi_store_i16(p, v) _mm_storeu_si128((__m128i *)(p), avx2_pack16(v))
#define vi_store_i32(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define vf_nan_to(v, nan)  _mm256_blendv_ps((v), (nan), _mm256_cmp_ps((v), (v), _CMP_UNORD_Q))
#define vh_load(p)         _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
#define vh_store(p, v)                                                                             \
	_mm_storeu_si128((__m128i *)(p), _mm256_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT))

#include "simd_template.h"
