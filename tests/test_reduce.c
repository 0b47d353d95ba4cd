// SPDX-License-Identifier: MIT
/*
 * The REDUCE kernel and the whole reduction: exact sums, overflow reported,
 * fixed-order fp sums, exponent max, and order independence: every
 * permutation of 2..5 workers gives the same bits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "test_util.h"
#include "ref/bfp_ref.h"
#include "hls/reduce.h"
#include "quire.h"

static void test_exact_int_sums(void **state)
{
	(void)state;
	/* W = 258 bfp8 workers at +-127 fit an int16 partial sum exactly. */
	enum { W = 258, N = 70 };
	int8_t *in = malloc(W * N);
	for (int k = 0; k < W; k++)
		for (int i = 0; i < N; i++)
			in[k * N + i] = (int8_t)(i % 2 ? 127 : -127);
	int16_t out16[N];
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_INT8, QUIRE_FMT_INT16, W, N, N, 0,
					  (const uint8_t *)in, NULL, (uint8_t *)out16),
			 QUIRE_OK);
	for (int i = 0; i < N; i++)
		assert_int_equal(out16[i], i % 2 ? 32766 : -32766);
	/* One more worker's +127 with the accumulator input: overflow is reported, saturated. */
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_INT8, QUIRE_FMT_INT16, 1, N, N,
					  QUIRE_REDUCE_ACC_IN, (const uint8_t *)in + N * 1,
					  (const uint8_t *)out16, (uint8_t *)out16),
			 QUIRE_ERR_OVERFLOW);
	assert_int_equal(out16[1], 32767);
	assert_int_equal(out16[0], INT16_MIN); /* -32766 - 127 saturates */
	free(in);
}

static void test_int32_overflow_is_reported(void **state)
{
	(void)state;
	int32_t in[2] = {INT32_MAX, 1}, out[1];
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_INT32, QUIRE_FMT_INT32, 2, 1, 1, 0,
					  (const uint8_t *)in, NULL, (uint8_t *)out),
			 QUIRE_ERR_OVERFLOW);
	/* Only the final sum counts: +MAX, +1, -1 is exact. */
	int32_t in3[3] = {INT32_MAX, 1, -1};
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_INT32, QUIRE_FMT_INT32, 3, 1, 1, 0,
					  (const uint8_t *)in3, NULL, (uint8_t *)out),
			 QUIRE_OK);
	assert_int_equal(out[0], INT32_MAX);
	/* Through the API, from separate arrays. */
	const void *ptrs[3] = {&in3[0], &in3[1], &in3[2]};
	assert_int_equal(quire_codec_sum(QUIRE_FMT_INT32, QUIRE_FMT_INT32, 3, 1, ptrs, NULL, out),
			 QUIRE_OK);
	assert_int_equal(out[0], INT32_MAX);
	assert_int_equal(quire_codec_sum(QUIRE_FMT_INT32, QUIRE_FMT_INT32, 2, 1, ptrs, NULL, out),
			 QUIRE_ERR_OVERFLOW);
	/* Bad arguments. */
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 1, 1, 1, 0,
					  (const uint8_t *)in, NULL, (uint8_t *)out),
			 QUIRE_ERR_FORMAT);
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_INT8, QUIRE_FMT_FP32, 1, 1, 1, 0,
					  (const uint8_t *)in, NULL, (uint8_t *)out),
			 QUIRE_ERR_FORMAT);
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_INT8, QUIRE_FMT_INT32, 2, 8, 4, 0,
					  (const uint8_t *)in, NULL, (uint8_t *)out),
			 QUIRE_ERR_SIZE); /* overlapping workers */
	assert_int_equal(quire_codec_sum(QUIRE_FMT_INT8, QUIRE_FMT_INT32, 0, 1, ptrs, NULL, out),
			 QUIRE_ERR_SIZE);
}

static void test_fp_sum_order(void **state)
{
	(void)state;
	/* fp32 sums in the documented order: acc_in, in[0], in[1], ... */
	float in[3] = {1e8f, 1.0f, -1e8f}, out[1], acc[1] = {0.5f};
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_FP32, QUIRE_FMT_FP32, 3, 1, 1, 0,
					  (const uint8_t *)in, NULL, (uint8_t *)out),
			 QUIRE_OK);
	assert_true(out[0] == (1e8f + 1.0f) + -1e8f);
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_FP32, QUIRE_FMT_FP32, 3, 1, 1,
					  QUIRE_REDUCE_ACC_IN, (const uint8_t *)in,
					  (const uint8_t *)acc, (uint8_t *)out),
			 QUIRE_OK);
	assert_true(out[0] == ((0.5f + 1e8f) + 1.0f) + -1e8f);
	float negz[2] = {-0.0f, -0.0f};
	assert_int_equal(quire_reduce_sum(QUIRE_FMT_FP32, QUIRE_FMT_FP32, 2, 1, 1, 0,
					  (const uint8_t *)negz, NULL, (uint8_t *)out),
			 QUIRE_OK);
	assert_int_equal(bits_of(out[0]), 0x80000000u);
}

static void test_max_exponents(void **state)
{
	(void)state;
	int8_t in[3][4] = {{-126, 5, 127, -125}, {-126, -7, 3, -124}, {-126, 6, 0, -125}};
	int8_t out[4];
	const int8_t *ptrs[3] = {in[0], in[1], in[2]};
	assert_int_equal(quire_codec_max_exponents(3, 4, ptrs, out), QUIRE_OK);
	assert_int_equal(out[0], -126);
	assert_int_equal(out[1], 6);
	assert_int_equal(out[2], 127);
	assert_int_equal(out[3], -124);
	assert_int_equal(quire_reduce_top(QUIRE_REDUCE_OP_MAX_EXP, 0, 0, 3, 4, 4, 0,
					  (const uint8_t *)in, NULL, (uint8_t *)out),
			 QUIRE_OK);
	assert_int_equal(out[1], 6);
	assert_int_equal(
	    quire_reduce_top(7, 0, 0, 3, 4, 4, 0, (const uint8_t *)in, NULL, (uint8_t *)out),
	    QUIRE_ERR_OPCODE);
}

/* Heap's algorithm: call fn for every permutation of p[0..k). */
static void permute(int *p, int k, int n, void (*fn)(const int *, int, void *), void *ctx)
{
	if (k == 1) {
		fn(p, n, ctx);
		return;
	}
	for (int i = 0; i < k; i++) {
		permute(p, k - 1, n, fn, ctx);
		int j = k % 2 ? 0 : i;
		int t = p[j];
		p[j] = p[k - 1];
		p[k - 1] = t;
	}
}

struct perm_ctx {
	enum quire_format fmt;
	size_t n;
	float **x;
	float **resid0; /* the residuals each worker starts from */
	float *y0;      /* result of the identity order */
	float **r0;     /* residuals after the identity order, per worker */
	int count;
};

static void check_order(const int *p, int w, void *vctx)
{
	struct perm_ctx *c = vctx;
	const float *xs[5] = {0};
	float *rs[5] = {0};
	for (int k = 0; k < w; k++) {
		xs[k] = c->x[p[k]];
		rs[k] = malloc(c->n * sizeof(float));
		memcpy(rs[k], c->resid0[p[k]], c->n * sizeof(float));
	}
	float *y = malloc(c->n * sizeof(float));
	assert_int_equal(quire_codec_allreduce(c->fmt, QUIRE_OP_SUM, (uint32_t)w, c->n, xs, rs, y),
			 QUIRE_OK);
	if (!c->y0) {
		c->y0 = y;
		for (int k = 0; k < w; k++)
			c->r0[p[k]] = rs[k];
	} else {
		assert_memory_equal(y, c->y0, c->n * sizeof(float));
		for (int k = 0; k < w; k++) {
			assert_memory_equal(rs[k], c->r0[p[k]], c->n * sizeof(float));
			free(rs[k]);
		}
		free(y);
	}
	c->count++;
}

static void test_every_order_same_bits(void **state)
{
	(void)state;
	struct rng g = {2024};
	static const enum quire_format fmts[] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16};
	for (int w = 2; w <= 5; w++) {
		for (int f = 0; f < 2; f++) {
			size_t n = 64 * 9 + 13;
			float *x[5], *r[5], *r0[5] = {0};
			for (int k = 0; k < w; k++) {
				x[k] = malloc(n * sizeof(float));
				r[k] = malloc(n * sizeof(float));
				fill_edge_gradients(&g, x[k], n, 1);
				for (size_t i = 0; i < n; i++)
					r[k][i] = x[k][(i + 1) % n] * 0.125f;
			}
			int p[5] = {0, 1, 2, 3, 4};
			struct perm_ctx c = {fmts[f], n, x, r, NULL, r0, 0};
			permute(p, w, w, check_order, &c);
			int expect = 1;
			for (int k = 2; k <= w; k++)
				expect *= k;
			assert_int_equal(c.count, expect);
			for (int k = 0; k < w; k++) {
				free(x[k]);
				free(r[k]);
				free(r0[k]);
			}
			free(c.y0);
		}
	}
}

static void test_allreduce_against_reference(void **state)
{
	(void)state;
	struct rng g = {99};
	for (uint32_t w = 1; w <= 8; w++) {
		size_t n = 64 * 20 + w * 3;
		float *x[8], *y = malloc(n * 4), *ry = malloc(n * 4);
		for (uint32_t k = 0; k < w; k++) {
			x[k] = malloc(n * 4);
			fill_edge_gradients(&g, x[k], n, 1);
		}
		for (int mant = 7; mant <= 15; mant += 8)
			for (int mean = 0; mean < 2; mean++) {
				enum quire_format fmt =
				    mant == 7 ? QUIRE_FMT_BFP8 : QUIRE_FMT_BFP16;
				assert_int_equal(
				    quire_codec_allreduce(fmt, mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM,
							  w, n, (const float *const *)x, NULL, y),
				    QUIRE_OK);
				ref_allreduce(mant, mean, w, n, (const float *const *)x, ry);
				for (size_t i = 0; i < n; i++)
					if (bits_of(y[i]) != bits_of(ry[i]))
						fail_msg(
						    "W=%u %s mean=%d element %zu: %a, reference %a",
						    w, quire_format_name(fmt), mean, i,
						    (double)y[i], (double)ry[i]);
			}
		for (uint32_t k = 0; k < w; k++)
			free(x[k]);
		free(y);
		free(ry);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact_int_sums),
	    cmocka_unit_test(test_int32_overflow_is_reported),
	    cmocka_unit_test(test_fp_sum_order),
	    cmocka_unit_test(test_max_exponents),
	    cmocka_unit_test(test_every_order_same_bits),
	    cmocka_unit_test(test_allreduce_against_reference),
	};
	return cmocka_run_group_tests_name("reduce", tests, NULL, NULL);
}
