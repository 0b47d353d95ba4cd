// SPDX-License-Identifier: MIT
/* The SIMD codec for AVX-512F (16 lanes). Built with -mavx512f; used only where the CPU has it. */
#include <immintrin.h>
#include <stdint.h>

#include "simd.h"
#include "hls/hls_util.h"

#define VF                 __m512
#define VI                 __m512i
#define VL                 16
#define SIMD_NAME          avx512
#define SIMD_LABEL         "avx512"

#define vf_load(p)         _mm512_loadu_ps(p)
#define vf_store(p, v)     _mm512_storeu_ps((p), (v))
#define vf_add             _mm512_add_ps
#define vf_sub             _mm512_sub_ps
#define vf_mul             _mm512_mul_ps
#define vf_div             _mm512_div_ps
#define vf_min             _mm512_min_ps
#define vf_max             _mm512_max_ps
#define vf_set1            _mm512_set1_ps
#define vf_bits            _mm512_castps_si512
#define vf_from_bits       _mm512_castsi512_ps
#define vi_and             _mm512_and_si512
#define vi_andnot          _mm512_andnot_si512
#define vi_sub             _mm512_sub_epi32
#define vi_srai            _mm512_srai_epi32
#define vi_add             _mm512_add_epi32
#define vi_maxu32          _mm512_max_epu32
#define vi_min_i32         _mm512_min_epi32
#define vi_max_i32         _mm512_max_epi32
#define vi_hmaxu32(v)      ((uint32_t)_mm512_reduce_max_epu32(v))
#define vi_set1            _mm512_set1_epi32
#define vf_rne(v)          _mm512_cvt_roundps_epi32((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define vi_to_vf           _mm512_cvtepi32_ps
#define vi_load_i8(p)      _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p)))
#define vi_load_i16(p)     _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(p)))
#define vi_load_i32(p)     _mm512_loadu_si512((const void *)(p))
#define vi_store_i8(p, v)  _mm_storeu_si128((__m128i *)(p), _mm512_cvtepi32_epi8(v))
#define vi_store_i16(p, v) _mm256_storeu_si256((__m256i *)(p), _mm512_cvtepi32_epi16(v))
#define vi_store_i32(p, v) _mm512_storeu_si512((void *)(p), (v))
#define vf_nan_to(v, nan)  _mm512_mask_mov_ps((v), _mm512_cmp_ps_mask((v), (v), _CMP_UNORD_Q), (nan))
#define vh_load(p)         _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define vh_store(p, v)                                                                             \
	_mm256_storeu_si256((__m256i *)(p),                                                        \
			    _mm512_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))

#include "simd_template.h"
