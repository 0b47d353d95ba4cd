// SPDX-License-Identifier: MIT
/*
 * The golden model of the requantized all-gather (hls/allreduce_golden.c) against the
 * contract's worked example (docs/contract-bfp.md) and against tests/ref/bfp_ref.c, the
 * contract written apart on doubles: W = 1, 2, 3, 4, 8, edge-case data with NaN and Inf,
 * sum and mean, bfp8 and bfp16, error feedback at the workers and the owners over three
 * steps. Also the wire model of the option (quire_allreduce_wire_bytes_opt).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hls/allreduce_golden.h"
#include "quire.h"
#include "test_util.h"
#include "tests/ref/bfp_ref.h"

#define MAX_W 8

static void *scratch_for(uint32_t w, uint32_t n)
{
	void *s = aligned_alloc(8, (size_t)quire_golden_scratch_bytes(w, n) + 8);
	assert_non_null(s);
	return s;
}

/* The contract's example: two workers, one block, rank 0 owns it. */
static void test_worked_example(void **state)
{
	(void)state;
	float x0[3] = {1.0f, 0.3f, -0.2f}, x1[3] = {3.0f, 0.3f, 0.25f}, y[3];
	float r0[3] = {0}, r1[3] = {0}, o0[3] = {0}, o1[1] = {0};
	const float *x[2] = {x0, x1};
	float *resid[2] = {r0, r1}, *owner[2] = {o0, o1};
	void *s = scratch_for(2, 3);
	assert_int_equal(quire_golden_allreduce(QUIRE_FMT_BFP8, 0, 2, 3, 1, x, resid, owner, y, s),
			 QUIRE_OK);
	assert_true(y[0] == 4.0f && y[1] == 0.625f && y[2] == 0.0625f);
	assert_true(o0[0] == 0 && o0[1] == 0 && o0[2] == 0);
	/* 0.3 and 0.33: S = 21, y = 0.65625 = 10.5 / 16, a tie: q' = 10, r_o = 0.03125. */
	x1[1] = 0.33f;
	memset(r0, 0, sizeof(r0));
	memset(r1, 0, sizeof(r1));
	assert_int_equal(quire_golden_allreduce(QUIRE_FMT_BFP8, 0, 2, 3, 1, x, resid, owner, y, s),
			 QUIRE_OK);
	assert_true(y[0] == 4.0f && y[1] == 0.625f && y[2] == 0.0625f);
	assert_true(o0[1] == 0.03125f);
	/* The exact all-reduce of the same block keeps 0.65625. */
	memset(r0, 0, sizeof(r0));
	memset(r1, 0, sizeof(r1));
	assert_int_equal(quire_golden_allreduce(QUIRE_FMT_BFP8, 0, 2, 3, 0, x, resid, NULL, y, s),
			 QUIRE_OK);
	assert_true(y[1] == 0.65625f);
	free(s);
}

/* Three steps of each case, golden model and reference side by side, state carried. */
static void test_against_reference(void **state)
{
	(void)state;
	static const uint32_t ws[] = {1, 2, 3, 4, 8};
	static const uint32_t ns[] = {1, 63, 64, 65, 4099};
	struct rng g = {77};
	size_t differ = 0;
	for (size_t wi = 0; wi < sizeof(ws) / sizeof(ws[0]); wi++)
		for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
			for (int c = 0; c < 8; c++) {
				uint32_t w = ws[wi], n = ns[ni];
				uint32_t fmt = c & 1 ? QUIRE_FMT_BFP16 : QUIRE_FMT_BFP8;
				int mean = c >> 1 & 1, ef = c >> 2 & 1;
				float *x[MAX_W], *rg[MAX_W], *rr[MAX_W], *og[MAX_W], *orr[MAX_W];
				float *yg = malloc(n * 4), *yr = malloc(n * 4), *ye = malloc(n * 4);
				void *s = scratch_for(w, n);
				for (uint32_t r = 0; r < w; r++) {
					x[r] = malloc(n * 4);
					rg[r] = calloc(n, 4);
					rr[r] = calloc(n, 4);
					og[r] = calloc(n, 4);
					orr[r] = calloc(n, 4);
				}
				for (int step = 0; step < 3; step++) {
					for (uint32_t r = 0; r < w; r++)
						fill_edge_gradients(&g, x[r], n, 1);
					const float *const *xc = (const float *const *)x;
					assert_int_equal(quire_golden_allreduce(
							     fmt, mean, w, n, 1, xc, ef ? rg : NULL,
							     ef ? og : NULL, yg, s),
							 QUIRE_OK);
					ref_allreduce_ef(fmt == QUIRE_FMT_BFP8 ? 7 : 15, mean, w, n,
							 1, xc, ef ? rr : NULL, ef ? orr : NULL,
							 yr);
					if (memcmp(yg, yr, n * 4) != 0)
						fail_msg("W=%u n=%u fmt %u mean %d ef %d step %d: "
							 "golden model and reference differ",
							 w, n, fmt, mean, ef, step);
					for (uint32_t r = 0; ef && r < w; r++) {
						assert_memory_equal(rg[r], rr[r], n * 4);
						assert_memory_equal(og[r], orr[r], n * 4);
					}
					/* Requantized, the bits are not the exact all-reduce's. */
					ref_allreduce_ef(fmt == QUIRE_FMT_BFP8 ? 7 : 15, mean, w, n,
							 0, xc, NULL, NULL, ye);
					differ += memcmp(ye, yr, n * 4) != 0;
				}
				for (uint32_t r = 0; r < w; r++) {
					free(x[r]);
					free(rg[r]);
					free(rr[r]);
					free(og[r]);
					free(orr[r]);
				}
				free(yg);
				free(yr);
				free(ye);
				free(s);
			}
	assert_true(differ > 100); /* the two paths are told apart */
}

/* A NONFINITE shared block stays NaN and keeps the owner's residual; a finite block whose
 * sum is beyond the fp32 range becomes NaN as a whole. */
static void test_nonfinite(void **state)
{
	(void)state;
	enum { N = 192 };
	float a[N], b[N], y[N], oa[N], ob[N];
	const float *x[2] = {a, b};
	float *owner[2] = {oa, ob};
	for (int i = 0; i < N; i++) {
		a[i] = b[i] = 1.0f + (float)i / 256.0f;
		oa[i] = ob[i] = 0.125f;
	}
	a[5] = INFINITY; /* block 0: a NONFINITE shared exponent */
	void *s = scratch_for(2, N);
	assert_int_equal(quire_golden_allreduce(QUIRE_FMT_BFP8, 0, 2, N, 1, x, NULL, owner, y, s),
			 QUIRE_OK);
	for (int i = 0; i < 64; i++) { /* rank 0 owns blocks 0 and 1 of 3 */
		assert_int_equal(bits_of(y[i]), 0x7fc00000u);
		assert_true(oa[i] == 0.125f);
	}
	for (int i = 64; i < N; i++)
		assert_true(y[i] == y[i] && y[i] > 2.0f);
	/* Five workers at 3e38 each: saturated to 8.44e37, their sum 4.2e38 is Inf in fp32,
	 * so the block is NaN, the residual kept; the mean too (Inf / 5). */
	float c[64], o5[64] = {0};
	for (int i = 0; i < 64; i++)
		c[i] = 3e38f;
	const float *five[5] = {c, c, c, c, c};
	float *own5[5] = {o5, o5, o5, o5, o5}; /* only rank 0 owns a block */
	void *s5 = scratch_for(5, 64);
	for (int mean = 0; mean < 2; mean++) {
		assert_int_equal(
		    quire_golden_allreduce(QUIRE_FMT_BFP8, mean, 5, 64, 1, five, NULL, own5, y, s5),
		    QUIRE_OK);
		for (int i = 0; i < 64; i++)
			assert_int_equal(bits_of(y[i]), 0x7fc00000u);
		assert_true(o5[0] == 0);
	}
	/* Four stay finite (3.376e38), and requantized saturate as any bfp8 value of 2^126 or
	 * more: 127 x 2^119. */
	assert_int_equal(
	    quire_golden_allreduce(QUIRE_FMT_BFP8, 0, 4, 64, 1, five, NULL, own5, y, s5), QUIRE_OK);
	assert_true(y[0] == ldexpf(127.0f, 119));
	free(s);
	free(s5);
}

/* The wire model of the option: W = 4 at most 2.1 bytes per element. */
static void test_wire_model(void **state)
{
	(void)state;
	size_t n = 1u << 20;
	uint64_t w2 = quire_allreduce_wire_bytes_opt(QUIRE_FMT_BFP8, 2, n, QUIRE_COMM_OPT_REQUANT);
	uint64_t w4 = quire_allreduce_wire_bytes_opt(QUIRE_FMT_BFP8, 4, n, QUIRE_COMM_OPT_REQUANT);
	uint64_t w8 = quire_allreduce_wire_bytes_opt(QUIRE_FMT_BFP8, 8, n, QUIRE_COMM_OPT_REQUANT);
	/* (n (1 + (W-2) 2 + (W-1)) + 3 (W-1) n / 64) / W */
	assert_int_equal(w2, (2 * n + 3 * n / 64) / 2);
	assert_int_equal(w4, (8 * n + 9 * n / 64) / 4);
	assert_int_equal(w8, (20 * n + 21 * n / 64) / 8);
	assert_true(w4 * 10 <= n * 21);
	/* Without the option, and for formats it does not change: the exact ring's figures. */
	assert_int_equal(quire_allreduce_wire_bytes_opt(QUIRE_FMT_BFP8, 4, n, 0),
			 quire_allreduce_wire_bytes(QUIRE_FMT_BFP8, 4, n));
	assert_int_equal(
	    quire_allreduce_wire_bytes_opt(QUIRE_FMT_FP32, 4, n, QUIRE_COMM_OPT_REQUANT),
	    quire_allreduce_wire_bytes(QUIRE_FMT_FP32, 4, n));
	assert_int_equal(
	    quire_allreduce_wire_bytes_opt(QUIRE_FMT_BFP16, 4, n, QUIRE_COMM_OPT_REQUANT),
	    (n * (2 + 2 * 4 + 3 * 2) + 9 * n / 64) / 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_worked_example),
	    cmocka_unit_test(test_against_reference),
	    cmocka_unit_test(test_nonfinite),
	    cmocka_unit_test(test_wire_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
