// SPDX-License-Identifier: MIT
/*
 * The QUANT kernel (hls/quant.c, run as C simulation) against every rule of
 * the codec contract (docs/contract-bfp.md), and against the independent reference on random data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <immintrin.h>

#include "test_util.h"
#include "ref/bfp_ref.h"
#include "hls/quant.h"
#include "quire/format.h"
#include "quire/status.h"

static int8_t exponent_of(const float *x, uint32_t n)
{
	int8_t e[1];
	quire_quant_exponents(n, 0, x, NULL, e);
	return e[0];
}

static void test_block_exponent_rules(void **state)
{
	(void)state;
	float x[64] = {0};
	assert_int_equal(exponent_of(x, 64), QUIRE_BFP_EXP_ZERO);
	for (int i = 0; i < 64; i++)
		x[i] = -0.0f;
	assert_int_equal(exponent_of(x, 64), QUIRE_BFP_EXP_ZERO); /* -0.0 counts as zero */
	x[5] = 1.0f;                                              /* ilogb(1) + 1 = 1: 1 < 2^1 */
	assert_int_equal(exponent_of(x, 64), 1);
	x[6] = -1.9999999f;
	assert_int_equal(exponent_of(x, 64), 1);
	x[7] = 2.0f;
	assert_int_equal(exponent_of(x, 64), 2);
	/* Subnormals and the smallest normal clamp to -125. */
	float sub[3] = {f32_of(1), f32_of(0x007fffffu), FLT_MIN};
	for (int k = 0; k < 3; k++)
		assert_int_equal(exponent_of(&sub[k], 1), -125);
	float two_min = 2 * FLT_MIN; /* ilogb = -125, E = -124 */
	assert_int_equal(exponent_of(&two_min, 1), -124);
	/* The top clamp: ilogb(FLT_MAX) + 1 = 128 -> 126; 2^125 -> 126 unclamped. */
	float big[3] = {FLT_MAX, -ldexpf(1, 126), ldexpf(1, 125)};
	for (int k = 0; k < 3; k++)
		assert_int_equal(exponent_of(&big[k], 1), 126);
	/* Any NaN or Inf: NONFINITE, whatever else is there. */
	float special[4] = {NAN, -NAN, INFINITY, -INFINITY};
	for (int k = 0; k < 4; k++) {
		float b[64] = {0};
		b[63] = FLT_MAX;
		b[k * 7] = special[k];
		assert_int_equal(exponent_of(b, 64), QUIRE_BFP_EXP_NONFINITE);
	}
}

static int32_t q8(float x, int eg)
{
	return quire_bfp_quantize(bits_of(x), eg, 7, 127);
}

static void test_quantize_rounding(void **state)
{
	(void)state;
	/* E = 1: q = rne(x * 64). Ties go to even. */
	assert_int_equal(q8(0.5f / 64, 1), 0);
	assert_int_equal(q8(1.5f / 64, 1), 2);
	assert_int_equal(q8(2.5f / 64, 1), 2);
	assert_int_equal(q8(-2.5f / 64, 1), -2);
	assert_int_equal(q8(-3.5f / 64, 1), -4);
	assert_int_equal(q8(126.5f / 64, 1), 126);
	assert_int_equal(q8(nextafterf(0.5f, 1) / 64, 1), 1);
	assert_int_equal(q8(nextafterf(0.5f, 0) / 64, 1), 0);
	/* Saturation at +-127 and +-32767 (only reachable through the top clamp or a smaller E). */
	assert_int_equal(q8(FLT_MAX, 126), 127);
	assert_int_equal(q8(-FLT_MAX, 126), -127);
	assert_int_equal(q8(127.5f / 64, 1), 127);
	assert_int_equal(q8(1.0f, -10), 127);
	assert_int_equal(quire_bfp_quantize(bits_of(-FLT_MAX), 126, 15, 32767), -32767);
	assert_int_equal(quire_bfp_quantize(bits_of(32767.5f), 15, 15, 32767), 32767);
	assert_int_equal(quire_bfp_quantize(bits_of(32766.5f), 15, 15, 32767), 32766);
	/* -0.0 encodes as 0; subnormals at the bottom exponent are exact multiples. */
	assert_int_equal(q8(-0.0f, 1), 0);
	assert_int_equal(q8(f32_of(0x00400000u), -125), 32); /* 2^-127 * 2^132 */
	assert_int_equal(q8(f32_of(1), -125), 0);            /* 2^-149 * 2^132 = 2^-17 */
	/* A value far below the block maximum rounds to 0, never to garbage. */
	assert_int_equal(q8(f32_of(1), 126), 0);
}

static void test_decode_rules(void **state)
{
	(void)state;
	/* bfp8: y = S * 2^(E - 7), one rounding; exact below 2^24. */
	assert_int_equal(quire_bfp_scale(64, 1 - 7), bits_of(1.0f));
	assert_int_equal(quire_bfp_scale(-127, 0), bits_of(-127.0f));
	assert_int_equal(quire_bfp_scale(0, 50), 0);
	/* 2^24 + 1 rounds to even; 2^24 + 3 rounds up. */
	assert_int_equal(quire_bfp_scale((1 << 24) + 1, 0), bits_of(16777216.0f));
	assert_int_equal(quire_bfp_scale((1 << 24) + 3, 0), bits_of(16777220.0f));
	assert_int_equal(quire_bfp_scale(INT32_MIN, 0), bits_of(-2147483648.0f));
	/* Overflow to Inf, subnormal results, and rounding into the smallest normal. */
	assert_int_equal(quire_bfp_scale(1 << 30, 119), 0x7f800000u);
	assert_int_equal(quire_bfp_scale(-(1 << 30), 119), 0xff800000u);
	assert_int_equal(quire_bfp_scale(1, -140), 0x200u);
	assert_int_equal(quire_bfp_scale(3, -150), 0x2u);             /* 1.5 units -> 2 */
	assert_int_equal(quire_bfp_scale(1, -150), 0u);               /* 0.5 units -> 0 (even) */
	assert_int_equal(quire_bfp_scale(0xffffff, -150), 0x800000u); /* carries into FLT_MIN */
	/* Whole blocks: NONFINITE -> NaN 0x7fc00000, ZERO -> +0.0. */
	int8_t exp[3] = {QUIRE_BFP_EXP_NONFINITE, QUIRE_BFP_EXP_ZERO, 3};
	uint8_t vals[192];
	for (int i = 0; i < 192; i++)
		vals[i] = (uint8_t)(i % 3 == 0 ? -5 : 7);
	float y[192];
	assert_int_equal(quire_quant_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 192, 1, vals, exp, y),
			 QUIRE_OK);
	for (int i = 0; i < 64; i++) {
		assert_int_equal(bits_of(y[i]), QUIRE_NAN_BITS);
		assert_int_equal(bits_of(y[64 + i]), 0);
		assert_true(y[128 + i] == ((128 + i) % 3 == 0 ? -5.0f : 7.0f) * 0.0625f);
	}
	/* Mean: the decoded sum, then one fp32 division. */
	assert_int_equal(quire_quant_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 192, 3, vals, exp, y),
			 QUIRE_OK);
	assert_true(y[130] == (7.0f * 0.0625f) / 3.0f);
	assert_int_equal(bits_of(y[0]), QUIRE_NAN_BITS);
	/* Unknown formats are refused. */
	assert_int_equal(quire_quant_decode(QUIRE_FMT_FP32, QUIRE_FMT_INT8, 1, 1, vals, exp, y),
			 QUIRE_ERR_FORMAT);
	assert_int_equal(quire_quant_decode(QUIRE_FMT_BFP8, QUIRE_FMT_FP16, 1, 1, vals, exp, y),
			 QUIRE_ERR_FORMAT);
}

/* Encode then decode n elements with the kernel, compare with the reference. */
static void check_against_ref(const float *x, uint32_t n, int mant_bits, int ef)
{
	uint32_t fmt = mant_bits == 7 ? QUIRE_FMT_BFP8 : QUIRE_FMT_BFP16;
	uint32_t nb = QUIRE_BFP_BLOCKS(n);
	int8_t *exp = malloc(nb), *rexp = malloc(nb);
	uint8_t *q = malloc((size_t)n * 2);
	int32_t *rq = malloc((size_t)n * 4);
	float *r = calloc(n, 4), *rr = calloc(n, 4);
	float *y = malloc((size_t)n * 4);
	struct rng g = {n};
	for (uint32_t i = 0; ef && i < n; i++) /* a residual with history */
		r[i] = rr[i] = x[(i * 7) % n] * 0.25f * (float)rng_below(&g, 3);
	quire_quant_exponents(n, ef ? QUIRE_QUANT_EF : 0, x, r, exp);
	assert_int_equal(quire_quant_encode(fmt, n, ef ? QUIRE_QUANT_EF : 0, x, r, exp, q),
			 QUIRE_OK);
	ref_encode(mant_bits, n, x, ef ? rr : NULL, NULL, rexp, rq);
	assert_memory_equal(exp, rexp, nb);
	for (uint32_t i = 0; i < n; i++) {
		int32_t qi =
		    mant_bits == 7 ? (int8_t)q[i] : (int16_t)(q[2 * i] | q[2 * i + 1] << 8);
		if (qi != rq[i])
			fail_msg("element %u: q %d, reference %d (x = %a)", i, qi, rq[i],
				 (double)x[i]);
		if (ef && bits_of(r[i]) != bits_of(rr[i]))
			fail_msg("element %u: residual %a, reference %a", i, (double)r[i],
				 (double)rr[i]);
	}
	assert_int_equal(quire_quant_decode(fmt, mant_bits == 7 ? QUIRE_FMT_INT8 : QUIRE_FMT_INT16,
					    n, 1, q, exp, y),
			 QUIRE_OK);
	for (uint32_t i = 0; i < n; i++) {
		float ry = ref_decode(rq[i], exp[i / 64], mant_bits);
		if (bits_of(y[i]) != bits_of(ry))
			fail_msg("element %u: decoded %a, reference %a", i, (double)y[i],
				 (double)ry);
	}
	free(exp);
	free(rexp);
	free(q);
	free(rq);
	free(r);
	free(rr);
	free(y);
}

static void test_random_against_reference(void **state)
{
	(void)state;
	static const uint32_t sizes[] = {1, 2, 63, 64, 65, 127, 1000, 4099, 65536 + 17};
	struct rng g = {42};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		float *x = malloc(sizes[s] * sizeof(float));
		fill_edge_gradients(&g, x, sizes[s], 1);
		for (int ef = 0; ef < 2; ef++) {
			check_against_ref(x, sizes[s], 7, ef);
			check_against_ref(x, sizes[s], 15, ef);
		}
		free(x);
	}
}

static void test_short_last_block(void **state)
{
	(void)state;
	/* The missing elements of a short block take no part in the maximum. */
	float x[70];
	for (int i = 0; i < 70; i++)
		x[i] = 0.001f;
	x[66] = 100.0f;
	int8_t exp[2];
	quire_quant_exponents(66, 0, x, NULL, exp); /* x[66] lies past n */
	assert_int_equal(exp[0], exp[1]);
	assert_int_equal(exp[1], -9); /* ilogb(0.001) + 1 */
	uint8_t q[70];
	memset(q, 0xa5, sizeof(q));
	assert_int_equal(quire_quant_encode(QUIRE_FMT_BFP8, 66, 0, x, NULL, exp, q), QUIRE_OK);
	for (int i = 66; i < 70; i++)
		assert_int_equal(q[i], 0xa5); /* nothing written past n */
}

static void test_error_feedback(void **state)
{
	(void)state;
	float x[64], r[64];
	for (int i = 0; i < 64; i++) {
		x[i] = 0.01f * (float)(i - 32);
		r[i] = 0;
	}
	int8_t exp[1];
	uint8_t q[64];
	/* Feeding the same gradient repeatedly, the residual stays below one step and the
	 * running sum of decoded values tracks the running sum of inputs. */
	double sent[64] = {0}, truth[64] = {0};
	for (int step = 0; step < 50; step++) {
		quire_quant_exponents(64, QUIRE_QUANT_EF, x, r, exp);
		quire_quant_encode(QUIRE_FMT_BFP8, 64, QUIRE_QUANT_EF, x, r, exp, q);
		float step_size = ldexpf(1, exp[0] - 7);
		for (int i = 0; i < 64; i++) {
			assert_true(fabsf(r[i]) <= step_size / 2);
			sent[i] += (int8_t)q[i] * (double)step_size;
			truth[i] += x[i];
		}
	}
	for (int i = 0; i < 64; i++)
		assert_true(fabs(sent[i] - truth[i]) < 0.01);
	/* A NONFINITE block keeps its residual; a ZERO block's residual becomes v. */
	float xn[64] = {0}, rn[64];
	for (int i = 0; i < 64; i++)
		rn[i] = 0.5f;
	xn[3] = INFINITY;
	quire_quant_exponents(64, QUIRE_QUANT_EF, xn, rn, exp);
	assert_int_equal(exp[0], QUIRE_BFP_EXP_NONFINITE);
	quire_quant_encode(QUIRE_FMT_BFP8, 64, QUIRE_QUANT_EF, xn, rn, exp, q);
	for (int i = 0; i < 64; i++) {
		assert_true(rn[i] == 0.5f);
		assert_int_equal(q[i], 0);
	}
	int8_t zero_exp[1] = {QUIRE_BFP_EXP_ZERO};
	float xz[64] = {0}, rz[64] = {0};
	rz[0] = -0.0f;
	quire_quant_encode(QUIRE_FMT_BFP8, 64, QUIRE_QUANT_EF, xz, rz, zero_exp, q);
	assert_int_equal(bits_of(rz[0]), 0); /* fp32(0.0 + -0.0) = +0.0 */
	/* Overflow of g + r makes the block NONFINITE, and r stays. */
	float xo[1] = {FLT_MAX}, ro[1] = {FLT_MAX};
	quire_quant_exponents(1, QUIRE_QUANT_EF, xo, ro, exp);
	assert_int_equal(exp[0], QUIRE_BFP_EXP_NONFINITE);
}

__attribute__((target("f16c"))) static uint16_t f16c_convert(float x)
{
	return (uint16_t)_cvtss_sh(x, 0);
}

static void test_fp16(void **state)
{
	(void)state;
	/* Against GCC's software _Float16 on many values, and, where the CPU has F16C,
	 * against the hardware instruction the contract names (including NaN payloads). */
	__builtin_cpu_init();
	int have_f16c = __builtin_cpu_supports("f16c");
	struct rng g = {7};
	for (int i = 0; i < 2000000; i++) {
		uint32_t b = (uint32_t)rng_next(&g);
		if (i < 0x10000) /* all the binades around fp16's range, densely */
			b = (0x33000000u + (uint32_t)i * 0x1400u) | (uint32_t)(i & 1) << 31;
		float x = f32_of(b);
		uint16_t h = quire_fp16_from_fp32(b);
		if (!isnan(x) && h != ref_fp16(x))
			fail_msg("fp16(%a) = %04x, reference %04x", (double)x, h, ref_fp16(x));
		if (have_f16c && h != f16c_convert(x))
			fail_msg("fp16(%08x) = %04x, F16C %04x", b, h, f16c_convert(x));
	}
	/* Decode is exact: every binary16 value round-trips. */
	for (uint32_t h = 0; h < 0x10000; h++) {
		uint32_t f = quire_fp16_to_fp32((uint16_t)h);
		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
			assert_true(isnan(f32_of(f)));
		else
			assert_int_equal(quire_fp16_from_fp32(f), h);
	}
	assert_int_equal(quire_fp16_from_fp32(bits_of(65520.0f)), 0x7c00); /* rounds to Inf */
	assert_int_equal(quire_fp16_from_fp32(bits_of(65519.0f)), 0x7bff);
}

static void test_top_function(void **state)
{
	(void)state;
	float x[100], y[100];
	int8_t exp[2];
	uint8_t q[100];
	for (int i = 0; i < 100; i++)
		x[i] = (float)(i - 50) / 8;
	assert_int_equal(quire_quant_top(QUIRE_QUANT_OP_EXPONENTS, QUIRE_FMT_BFP8, 0, 0, 100, 0, x,
					 NULL, exp, q, y),
			 QUIRE_OK);
	assert_int_equal(quire_quant_top(QUIRE_QUANT_OP_ENCODE, QUIRE_FMT_BFP8, 0, 0, 100, 0, x,
					 NULL, exp, q, y),
			 QUIRE_OK);
	assert_int_equal(quire_quant_top(QUIRE_QUANT_OP_DECODE, QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 0,
					 100, 1, x, NULL, exp, q, y),
			 QUIRE_OK);
	for (int i = 0; i < 100; i++)
		assert_true(y[i] == x[i]); /* multiples of 1/8 below 8: exact in bfp8 */
	assert_int_equal(quire_quant_top(99, QUIRE_FMT_BFP8, 0, 0, 100, 0, x, NULL, exp, q, y),
			 QUIRE_ERR_OPCODE);
	assert_int_equal(quire_quant_top(QUIRE_QUANT_OP_ENCODE, QUIRE_FMT_INT8, 0, 0, 100, 0, x,
					 NULL, exp, q, y),
			 QUIRE_ERR_FORMAT);
}

/* ENCODE with QUIRE_QUANT_F_EXPS is EXPONENTS then ENCODE, byte for byte: exp, q and the
 * residuals, with and without error feedback, bfp8 and bfp16, a short last block. */
static void test_encode_with_exponents(void **state)
{
	(void)state;
	enum { N = 64 * 5 + 37 };
	static float x[N], r1[N], r2[N], y[1];
	static int8_t e1[8], e2[8];
	static uint8_t q1[2 * N], q2[2 * N];
	struct rng g = {11};
	const uint32_t fmts[2] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16};
	for (int k = 0; k < 2; k++) {
		uint32_t fmt = fmts[k];
		for (uint32_t ef = 0; ef <= QUIRE_QUANT_EF; ef += QUIRE_QUANT_EF) {
			for (int i = 0; i < N; i++) {
				x[i] = f32_of((uint32_t)rng_next(&g) & 0xbfffffffu); /* finite */
				if (i / 64 == 2)
					x[i] = 0; /* a ZERO block */
				r1[i] = r2[i] = ldexpf((float)(int)(rng_next(&g) % 201) - 100, -12);
			}
			x[64 * 3 + 5] = INFINITY; /* a NONFINITE block */
			memset(e1, 0x55, sizeof e1);
			memset(e2, 0x33, sizeof e2);
			assert_int_equal(quire_quant_top(QUIRE_QUANT_OP_EXPONENTS, fmt, 0, ef, N, 0,
							 x, r1, e1, q1, y),
					 QUIRE_OK);
			assert_int_equal(quire_quant_top(QUIRE_QUANT_OP_ENCODE, fmt, 0, ef, N, 0, x,
							 r1, e1, q1, y),
					 QUIRE_OK);
			assert_int_equal(quire_quant_top(QUIRE_QUANT_OP_ENCODE, fmt, 0,
							 ef | QUIRE_QUANT_F_EXPS, N, 0, x, r2, e2,
							 q2, y),
					 QUIRE_OK);
			assert_memory_equal(e1, e2, QUIRE_BFP_BLOCKS(N));
			assert_memory_equal(q1, q2, N * (fmt == QUIRE_FMT_BFP16 ? 2 : 1));
			assert_memory_equal(r1, r2, sizeof r1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_block_exponent_rules),
	    cmocka_unit_test(test_quantize_rounding),
	    cmocka_unit_test(test_decode_rules),
	    cmocka_unit_test(test_random_against_reference),
	    cmocka_unit_test(test_short_last_block),
	    cmocka_unit_test(test_error_feedback),
	    cmocka_unit_test(test_fp16),
	    cmocka_unit_test(test_top_function),
	    cmocka_unit_test(test_encode_with_exponents),
	};
	return cmocka_run_group_tests_name("quant kernel", tests, NULL, NULL);
}
