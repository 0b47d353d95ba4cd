// SPDX-License-Identifier: MIT
/*
 * libquire's CPU codec: every implementation this CPU has (scalar, AVX2,
 * AVX-512) against the hls/ kernels, bit for bit, on the same vectors (every
 * fp16 pattern among them); the
 * caller's floating-point mode does not change a bit; bad arguments are
 * refused; encoded files round-trip, and damaged ones and headers the writer
 * never writes are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>
#include <immintrin.h>

#include "test_util.h"
#include "hls/quant.h"
#include "hls/reduce.h"
#include "quire.h"

static const enum quire_codec_impl impls[] = {QUIRE_CODEC_SCALAR, QUIRE_CODEC_AVX2,
					      QUIRE_CODEC_AVX512};

/* What the hls/ kernels say for one tensor: the golden answer. */
struct golden {
	int8_t *exp;
	uint8_t *q;
	float *resid, *y;
};

static void golden_encode(enum quire_format fmt, size_t n, const float *x, const float *resid0,
			  struct golden *g)
{
	g->exp = malloc(QUIRE_BFP_BLOCKS(n) + 1);
	g->q = malloc(2 * n + 1);
	g->resid = malloc(4 * n + 4);
	g->y = malloc(4 * n + 4);
	uint32_t flags = resid0 ? QUIRE_QUANT_EF : 0;
	if (resid0)
		memcpy(g->resid, resid0, 4 * n);
	quire_quant_exponents((uint32_t)n, flags, x, g->resid, g->exp);
	quire_quant_encode(fmt, (uint32_t)n, flags, x, g->resid, g->exp, g->q);
	uint32_t vf = fmt == QUIRE_FMT_BFP8    ? QUIRE_FMT_INT8
		      : fmt == QUIRE_FMT_BFP16 ? QUIRE_FMT_INT16
					       : QUIRE_FMT_FP16;
	quire_quant_decode(fmt, vf, (uint32_t)n, 3, g->q, g->exp, g->y);
}

static void golden_free(struct golden *g)
{
	free(g->exp);
	free(g->q);
	free(g->resid);
	free(g->y);
}

static void check_impl_on(enum quire_format fmt, size_t n, const float *x, const float *resid0)
{
	struct golden g;
	golden_encode(fmt, n, x, resid0, &g);
	size_t nb = QUIRE_BFP_BLOCKS(n), qbytes = quire_format_bytes(fmt, n);
	int8_t *exp = malloc(nb + 1), *shared = malloc(nb + 1);
	uint8_t *q = malloc(2 * n + 1);
	float *r = malloc(4 * n + 4), *y = malloc(4 * n + 4);
	int bfp = fmt != QUIRE_FMT_FP16;
	enum quire_format vf = fmt == QUIRE_FMT_BFP8    ? QUIRE_FMT_INT8
			       : fmt == QUIRE_FMT_BFP16 ? QUIRE_FMT_INT16
							: QUIRE_FMT_FP16;
	for (size_t k = 0; k < sizeof(impls) / sizeof(impls[0]); k++) {
		if (quire_codec_use(impls[k]) != QUIRE_OK)
			continue;
		const char *impl = quire_codec_impl_name();
		/* Fused single-worker encode (own exponents). */
		if (resid0)
			memcpy(r, resid0, 4 * n);
		assert_int_equal(
		    quire_codec_encode(fmt, n, x, resid0 ? r : NULL, NULL, bfp ? exp : NULL, q),
		    QUIRE_OK);
		if (bfp && memcmp(exp, g.exp, nb) != 0)
			fail_msg("%s %s n=%zu: exponents differ", impl, quire_format_name(fmt), n);
		if (memcmp(q, g.q, qbytes) != 0)
			fail_msg("%s %s n=%zu ef=%d: values differ", impl, quire_format_name(fmt),
				 n, resid0 != NULL);
		if (resid0 && memcmp(r, g.resid, 4 * n) != 0)
			fail_msg("%s %s n=%zu: residuals differ", impl, quire_format_name(fmt), n);
		if (bfp) {
			/* The two-pass path: exponent pass, then encode with given exponents. */
			if (resid0)
				memcpy(r, resid0, 4 * n);
			assert_int_equal(
			    quire_codec_exponents(fmt, n, x, resid0 ? r : NULL, shared), QUIRE_OK);
			assert_memory_equal(shared, g.exp, nb);
			memset(q, 0, qbytes);
			assert_int_equal(
			    quire_codec_encode(fmt, n, x, resid0 ? r : NULL, shared, NULL, q),
			    QUIRE_OK);
			assert_memory_equal(q, g.q, qbytes);
			if (resid0)
				assert_memory_equal(r, g.resid, 4 * n);
		}
		assert_int_equal(quire_codec_decode(fmt, vf, n, g.q, g.exp, 3, y), QUIRE_OK);
		if (memcmp(y, g.y, 4 * n) != 0)
			fail_msg("%s %s n=%zu: decoded values differ", impl, quire_format_name(fmt),
				 n);
	}
	quire_codec_use(QUIRE_CODEC_AUTO);
	free(exp);
	free(shared);
	free(q);
	free(r);
	free(y);
	golden_free(&g);
}

static void test_fast_path_matches_hls(void **state)
{
	(void)state;
	static const size_t sizes[] = {1, 7, 63, 64, 65, 128, 200, 4099, 100003};
	struct rng g = {1234};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		float *x = malloc(4 * n), *r = malloc(4 * n);
		fill_edge_gradients(&g, x, n, 1);
		fill_edge_gradients(&g, r, n, 0);
		for (size_t i = 0; i < n; i++)
			r[i] *= 0.01f;
		static const enum quire_format fmts[] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16,
							 QUIRE_FMT_FP16};
		for (int f = 0; f < 3; f++) {
			check_impl_on(fmts[f], n, x, NULL);
			if (fmts[f] != QUIRE_FMT_FP16)
				check_impl_on(fmts[f], n, x, r);
		}
		free(x);
		free(r);
	}
}

/*
 * fp16 decode, sum and mean, of every binary16 pattern, and fp16 encode of
 * fp32 patterns covering every sign, exponent (NaN, Inf, subnormals) and the
 * top 12 fraction bits, plus each fp16 value and its fp32 neighbours (the
 * rounding ties): each implementation against the hls/ kernel, bit for bit.
 */
static void test_fp16_every_pattern(void **state)
{
	(void)state;
	enum { NH = 65536, NE = (1 << 20) + 3 * NH };
	uint16_t *h = malloc(NH * 2), *gq = malloc(NE * 2), *q = malloc(NE * 2);
	float *gold = malloc(NH * 4), *y = malloc(NH * 4);
	uint32_t *xb = malloc(NE * 4);
	for (uint32_t i = 0; i < NH; i++)
		h[i] = (uint16_t)i;
	for (uint32_t i = 0; i < (1u << 20); i++)
		xb[i] = i << 12 | ((i * 0x9e3779b9u) >> 20);
	for (uint32_t i = 0; i < NH; i++) {
		uint32_t w = quire_fp16_to_fp32((uint16_t)i);
		xb[(1 << 20) + 3 * i] = w;
		xb[(1 << 20) + 3 * i + 1] = w + 1;
		xb[(1 << 20) + 3 * i + 2] = w + 0x1000; /* half an fp16 ulp above, for normals */
	}
	/* Widening is exact: a signalling NaN keeps its payload and stays signalling. */
	assert_int_equal(quire_fp16_to_fp32(0x7c01), 0x7f802000u);
	assert_int_equal(
	    quire_quant_encode(QUIRE_FMT_FP16, NE, 0, (const float *)xb, NULL, NULL, (uint8_t *)gq),
	    QUIRE_OK);
	static const uint32_t means[] = {0, 1, 3, 1000003};
	for (size_t k = 0; k < sizeof(impls) / sizeof(impls[0]); k++) {
		if (quire_codec_use(impls[k]) != QUIRE_OK)
			continue;
		const char *impl = quire_codec_impl_name();
		for (size_t m = 0; m < sizeof(means) / sizeof(means[0]); m++) {
			assert_int_equal(quire_quant_decode(QUIRE_FMT_FP16, QUIRE_FMT_FP16, NH,
							    means[m], (const uint8_t *)h, NULL,
							    gold),
					 QUIRE_OK);
			memset(y, 0xa5, NH * 4);
			assert_int_equal(quire_codec_decode(QUIRE_FMT_FP16, QUIRE_FMT_FP16, NH, h,
							    NULL, means[m], y),
					 QUIRE_OK);
			for (uint32_t i = 0; i < NH; i++) {
				uint32_t a, b;
				memcpy(&a, &y[i], 4);
				memcpy(&b, &gold[i], 4);
				if (a != b)
					fail_msg(
					    "%s fp16 decode mean_w %u of %04x: %08x, hls/ %08x",
					    impl, means[m], i, a, b);
			}
		}
		memset(q, 0xa5, NE * 2);
		assert_int_equal(
		    quire_codec_encode(QUIRE_FMT_FP16, NE, (const float *)xb, NULL, NULL, NULL, q),
		    QUIRE_OK);
		for (uint32_t i = 0; i < NE; i++)
			if (q[i] != gq[i])
				fail_msg("%s fp16 encode of %08x: %04x, hls/ %04x", impl, xb[i],
					 q[i], gq[i]);
	}
	quire_codec_use(QUIRE_CODEC_AUTO);
	free(h);
	free(gq);
	free(q);
	free(gold);
	free(y);
	free(xb);
}

static void test_decode_sums_and_reduce(void **state)
{
	(void)state;
	/* int32 sums near the limits and every exponent, decoded by each implementation. */
	enum { N = 64 * 260 + 5 };
	int32_t *s = malloc(N * 4);
	int8_t exp[QUIRE_BFP_BLOCKS(N)];
	struct rng g = {77};
	for (size_t i = 0; i < N; i++)
		s[i] = (int32_t)rng_next(&g) >> rng_below(&g, 32);
	for (size_t b = 0; b < QUIRE_BFP_BLOCKS(N); b++)
		exp[b] = (int8_t)((int)(b % 254) - 126); /* -126 ... 127: every exponent */
	float *gold = malloc(N * 4), *y = malloc(N * 4);
	for (int mant = 7; mant <= 15; mant += 8) {
		enum quire_format fmt = mant == 7 ? QUIRE_FMT_BFP8 : QUIRE_FMT_BFP16;
		quire_quant_decode(fmt, QUIRE_FMT_INT32, N, 5, (const uint8_t *)s, exp, gold);
		for (size_t k = 0; k < 3; k++) {
			if (quire_codec_use(impls[k]) != QUIRE_OK)
				continue;
			assert_int_equal(quire_codec_decode(fmt, QUIRE_FMT_INT32, N, s, exp, 5, y),
					 QUIRE_OK);
			assert_memory_equal(y, gold, N * 4);
		}
	}
	/* Sums of W int8 / int16 vectors into int32. */
	int8_t *in8[6];
	int16_t *in16[6];
	int32_t *want = malloc(N * 4), *got = malloc(N * 4);
	for (int w = 0; w < 6; w++) {
		in8[w] = malloc(N);
		in16[w] = malloc(N * 2);
		for (size_t i = 0; i < N; i++) {
			in8[w][i] = (int8_t)rng_next(&g);
			in16[w][i] = (int16_t)rng_next(&g);
		}
	}
	for (uint32_t w = 1; w <= 6; w++) {
		for (size_t i = 0; i < N; i++) {
			int32_t a = 0;
			for (uint32_t k = 0; k < w; k++)
				a += in8[k][i];
			want[i] = a;
		}
		for (size_t k = 0; k < 3; k++) {
			if (quire_codec_use(impls[k]) != QUIRE_OK)
				continue;
			assert_int_equal(quire_codec_sum(QUIRE_FMT_INT8, QUIRE_FMT_INT32, w, N,
							 (const void *const *)in8, NULL, got),
					 QUIRE_OK);
			assert_memory_equal(got, want, N * 4);
			assert_int_equal(quire_codec_sum(QUIRE_FMT_INT16, QUIRE_FMT_INT32, w, N,
							 (const void *const *)in16, NULL, got),
					 QUIRE_OK);
			for (size_t i = 0; i < N; i++) {
				int32_t a = 0;
				for (uint32_t j = 0; j < w; j++)
					a += in16[j][i];
				assert_int_equal(got[i], a);
			}
		}
	}
	quire_codec_use(QUIRE_CODEC_AUTO);
	for (int w = 0; w < 6; w++) {
		free(in8[w]);
		free(in16[w]);
	}
	free(want);
	free(got);
	free(s);
	free(gold);
	free(y);
}

/* A random int8/int16 value, at either limit one time in four (so sums saturate). */
static int16_t edge_int(struct rng *g, int bytes)
{
	int16_t hi = bytes == 1 ? INT8_MAX : INT16_MAX, lo = bytes == 1 ? INT8_MIN : INT16_MIN;
	switch (rng_below(g, 8)) {
	case 0:
		return hi;
	case 1:
		return lo;
	default:
		return bytes == 1 ? (int8_t)rng_next(g) : (int16_t)rng_next(g);
	}
}

/*
 * One implementation's quire_codec_sum of the w rows packed in `in` (n elements of ib bytes
 * each) into out, with the accumulator acc (ab bytes an element) as mode says: 0 none, 1 an
 * input, 2 in place (copied into out first, which is then both).
 */
static int sum_rows(uint32_t fi, uint32_t fa, uint32_t w, uint32_t n, const uint8_t *in,
		    uint32_t ib, const uint8_t *acc, uint32_t ab, int mode, void *out)
{
	const void *rows[8];
	assert_true(w <= 8);
	for (uint32_t k = 0; k < w; k++)
		rows[k] = in + (size_t)k * n * ib;
	if (mode == 2)
		memcpy(out, acc, (size_t)n * ab);
	return quire_codec_sum((enum quire_format)fi, (enum quire_format)fa, w, n, rows,
			       mode == 1   ? (const void *)acc
			       : mode == 2 ? out
					   : NULL,
			       out);
}

/*
 * The ring's partial sums: W int8 or int16 vectors into int16, saturating, with and without an
 * accumulator in (also in place), each implementation against the hls/ REDUCE kernel: every
 * byte and the status, on random vectors, vectors near the limits, and ones whose sums fit.
 */
static void test_saturating_int16_sums(void **state)
{
	(void)state;
	enum { N = 1000 + 37, WMAX = 6 };
	struct rng g = {.s = 77};
	uint8_t *in = malloc((size_t)WMAX * N * 2), *acc = malloc(N * 2);
	int16_t *want = malloc(N * 2), *got = malloc(N * 2);
	for (int kind = 0; kind < 3; kind++) /* random, near the limits, small */
		for (uint32_t ib = 1; ib <= 2; ib++)
			for (uint32_t w = 1; w <= WMAX; w++)
				for (int mode = 0; mode < 3; mode++) { /* no acc, acc, in place */
					for (size_t i = 0; i < (size_t)w * N; i++) {
						int16_t v =
						    kind == 1 ? edge_int(&g, (int)ib)
						    : kind == 2
							? (int16_t)((int)rng_below(&g, 9) - 4)
							: (ib == 1 ? (int8_t)rng_next(&g)
								   : (int16_t)rng_next(&g));
						if (ib == 1)
							in[i] = (uint8_t)v;
						else
							memcpy(in + 2 * i, &v, 2);
					}
					for (size_t i = 0; i < N; i++) {
						int16_t a =
						    kind == 1 ? edge_int(&g, 2)
							      : (int16_t)((int)rng_below(&g, 2001) -
									  1000);
						memcpy(acc + 2 * i, &a, 2);
					}
					uint32_t fmt = ib == 1 ? QUIRE_FMT_INT8 : QUIRE_FMT_INT16;
					int st_want =
					    quire_reduce_sum(fmt, QUIRE_FMT_INT16, w, N, N,
							     mode ? QUIRE_REDUCE_ACC_IN : 0, in,
							     mode ? acc : NULL, (uint8_t *)want);
					for (size_t k = 0; k < 3; k++) {
						if (quire_codec_use(impls[k]) != QUIRE_OK)
							continue;
						int st = sum_rows(fmt, QUIRE_FMT_INT16, w, N, in,
								  ib, acc, 2, mode, got);
						if (st != st_want || memcmp(got, want, N * 2))
							fail_msg(
							    "%s int%u x %u into int16, kind %d "
							    "mode %d: "
							    "status %d (hls/ %d) or values differ",
							    quire_codec_impl_name(), 8 * ib, w,
							    kind, mode, st, st_want);
					}
				}
	quire_codec_use(QUIRE_CODEC_AUTO);
	free(in);
	free(acc);
	free(want);
	free(got);
}

/*
 * The fp32 and fp16 rings' sums: W fp16 or fp32 vectors into an fp16 or fp32 accumulator, with
 * and without one in (also in place), each implementation against the hls/ REDUCE kernel, every
 * byte: every fp16 pattern in every fp16 row (NaNs with payloads, signalling ones, Infs,
 * subnormals, both zeros) against other patterns; fp32 rows of edge gradients with NaNs and
 * Infs, fp32 values an fp16 ulp and half an ulp apart (the output's rounding ties), and random
 * bits.
 */
static void test_fp_sums(void **state)
{
	(void)state;
	enum { N = 65536 + 37, WMAX = 5 };
	struct rng g = {.s = 91};
	uint8_t *in = malloc((size_t)WMAX * N * 4), *acc = malloc(N * 4);
	uint8_t *want = malloc(N * 4), *got = malloc(N * 4);
	static const uint32_t ws[] = {1, 2, 3, WMAX};
	for (uint32_t ib = 2; ib <= 4; ib += 2)
		for (uint32_t ab = 2; ab <= 4; ab += 2)
			for (size_t wi = 0; wi < 4; wi++)
				for (int mode = 0; mode < 3; mode++) { /* no acc, acc, in place */
					uint32_t w = ws[wi];
					for (uint32_t k = 0; k < w; k++) {
						uint8_t *row = in + (size_t)k * N * ib;
						if (ib == 2) {
							for (uint32_t i = 0; i < N; i++) {
								uint16_t h =
								    (uint16_t)(i * (2 * k + 1) +
									       k * 12345u);
								memcpy(row + 2 * i, &h, 2);
							}
							continue;
						}
						fill_edge_gradients(&g, (float *)row, N, 1);
						for (uint32_t i = 0; i < N;
						     i += 1 + rng_below(&g, 5)) {
							uint32_t b = (uint32_t)rng_next(&g);
							uint32_t t = rng_below(&g, 3);
							uint32_t v =
							    t == 0
								? b
								: quire_fp16_to_fp32((uint16_t)b) +
								      (t == 1 ? 0x1000u : 0x2000u);
							memcpy(row + 4 * i, &v, 4);
						}
					}
					if (ab == 2)
						for (uint32_t i = 0; i < N; i++) {
							uint16_t h = (uint16_t)rng_next(&g);
							memcpy(acc + 2 * i, &h, 2);
						}
					else
						fill_edge_gradients(&g, (float *)acc, N, 1);
					uint32_t fi = ib == 2 ? QUIRE_FMT_FP16 : QUIRE_FMT_FP32;
					uint32_t fa = ab == 2 ? QUIRE_FMT_FP16 : QUIRE_FMT_FP32;
					assert_int_equal(
					    quire_reduce_sum(fi, fa, w, N, N,
							     mode ? QUIRE_REDUCE_ACC_IN : 0, in,
							     mode ? acc : NULL, want),
					    QUIRE_OK);
					for (size_t k = 0; k < 3; k++) {
						if (quire_codec_use(impls[k]) != QUIRE_OK)
							continue;
						memset(got, 0xa5, N * 4);
						int st = sum_rows(fi, fa, w, N, in, ib, acc, ab,
								  mode, got);
						assert_int_equal(st, QUIRE_OK);
						for (uint32_t i = 0; i < N; i++)
							if (memcmp(got + (size_t)i * ab,
								   want + (size_t)i * ab, ab))
								fail_msg(
								    "%s fp%u x %u into fp%u, mode "
								    "%d: element %u differs",
								    quire_codec_impl_name(), 8 * ib,
								    w, 8 * ab, mode, i);
					}
				}
	quire_codec_use(QUIRE_CODEC_AUTO);
	free(in);
	free(acc);
	free(want);
	free(got);
}

static void test_caller_fp_mode_ignored(void **state)
{
	(void)state;
	/* Trainers often turn on flush-to-zero: the codec must not care. */
	enum { N = 4096 };
	unsigned int csr = _mm_getcsr();
	_mm_setcsr(csr | 0x8040 | 0x6000); /* FTZ, DAZ, round toward zero */
	unsigned int took = _mm_getcsr();
	_mm_setcsr(csr);
	if ((took & 0xffc0) != ((csr | 0x8040 | 0x6000) & 0xffc0)) {
		print_message("skipped: this environment cannot set the FP mode (valgrind?)\n");
		skip();
	}
	float *x = malloc(N * 4);
	struct rng g = {3};
	fill_edge_gradients(&g, x, N, 0);
	for (size_t i = 0; i < N; i += 3)
		x[i] = f32_of((uint32_t)rng_below(&g, 0x800000)); /* subnormals */
	int8_t e1[N / 64], e2[N / 64];
	int8_t q1[N], q2[N];
	float y1[N], y2[N];
	assert_int_equal(quire_codec_encode(QUIRE_FMT_BFP8, N, x, NULL, NULL, e1, q1), QUIRE_OK);
	quire_codec_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, N, q1, e1, 1, y1);
	_mm_setcsr(csr | 0x8040 | 0x6000); /* FTZ, DAZ, round toward zero */
	assert_int_equal(quire_codec_encode(QUIRE_FMT_BFP8, N, x, NULL, NULL, e2, q2), QUIRE_OK);
	quire_codec_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, N, q2, e2, 1, y2);
	unsigned int after = _mm_getcsr();
	_mm_setcsr(csr);
	assert_int_equal(after & 0xffc0, (csr | 0x8040 | 0x6000) & 0xffc0); /* caller's mode kept */
	assert_memory_equal(e1, e2, sizeof(e1));
	assert_memory_equal(q1, q2, sizeof(q1));
	assert_memory_equal(y1, y2, sizeof(y1));
	free(x);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	float x[128] = {0}, r[128] = {0};
	int8_t exp[2] = {0, 0}, q[128];
	assert_int_equal(quire_codec_encode(QUIRE_FMT_FP32, 128, x, NULL, NULL, exp, q),
			 QUIRE_ERR_FORMAT);
	assert_int_equal(quire_codec_encode(QUIRE_FMT_INT8, 128, x, NULL, NULL, exp, q),
			 QUIRE_ERR_FORMAT);
	assert_int_equal(quire_codec_encode(QUIRE_FMT_BFP8, 128, NULL, NULL, NULL, exp, q),
			 QUIRE_ERR_INVALID);
	assert_int_equal(quire_codec_encode(QUIRE_FMT_BFP8, 128, x, NULL, NULL, NULL, q),
			 QUIRE_ERR_INVALID);
	assert_int_equal(quire_codec_encode(QUIRE_FMT_FP16, 128, x, r, NULL, NULL, q),
			 QUIRE_ERR_INVALID);
	/* Exponents below ZERO are refused and nothing is written. */
	int8_t bad[2] = {5, -127};
	memset(q, 0x5a, sizeof(q));
	assert_int_equal(quire_codec_encode(QUIRE_FMT_BFP8, 128, x, NULL, bad, NULL, q),
			 QUIRE_ERR_RANGE);
	for (int i = 0; i < 128; i++)
		assert_int_equal((uint8_t)q[i], 0x5a);
	assert_int_equal(quire_codec_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 128, q, bad, 1, x),
			 QUIRE_ERR_RANGE);
	assert_int_equal(quire_codec_decode(QUIRE_FMT_BFP8, QUIRE_FMT_FP32, 128, q, exp, 1, x),
			 QUIRE_ERR_FORMAT);
	assert_int_equal(quire_codec_exponents(QUIRE_FMT_FP16, 128, x, NULL, exp),
			 QUIRE_ERR_FORMAT);
	const float *xs[2] = {x, x};
	assert_int_equal(quire_codec_allreduce(QUIRE_FMT_BFP8, QUIRE_OP_MAX, 2, 128, xs, NULL, r),
			 QUIRE_ERR_INVALID);
	assert_int_equal(quire_codec_allreduce(QUIRE_FMT_BFP8, QUIRE_OP_SUM, 0, 128, xs, NULL, r),
			 QUIRE_ERR_SIZE);
	assert_int_equal(quire_codec_allreduce(QUIRE_FMT_INT8, QUIRE_OP_SUM, 2, 128, xs, NULL, r),
			 QUIRE_ERR_FORMAT);
	float *rs[2] = {r, r};
	assert_int_equal(quire_codec_allreduce(QUIRE_FMT_FP16, QUIRE_OP_SUM, 2, 128, xs, rs, r),
			 QUIRE_ERR_INVALID);
	assert_int_equal(quire_codec_use((enum quire_codec_impl)9), QUIRE_ERR_INVALID);
	assert_int_equal(quire_codec_impl_parse("avx9000"), -1);
	/* Zero elements: nothing to do, and nothing is touched. */
	assert_int_equal(quire_codec_encode(QUIRE_FMT_BFP8, 0, NULL, NULL, NULL, NULL, NULL),
			 QUIRE_OK);
	/* Every status has a message; unknown ones too. */
	for (int st = 0; st < QUIRE_STATUS_COUNT; st++)
		assert_true(strlen(quire_strerror(st)) > 3);
	assert_string_equal(quire_strerror(-5), "unknown status code");
	assert_string_equal(quire_strerror(QUIRE_ERR_TIMEOUT), "timed out");
}

static void test_encoded_files(void **state)
{
	(void)state;
	char path[] = "/tmp/quire-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	enum { N = 1000 };
	float x[N];
	int8_t exp[QUIRE_BFP_BLOCKS(N)], q[N];
	struct rng g = {11};
	fill_edge_gradients(&g, x, N, 1);
	assert_int_equal(quire_codec_encode(QUIRE_FMT_BFP8, N, x, NULL, NULL, exp, q), QUIRE_OK);
	struct quire_encoded e = {QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 1, N, exp, q}, back;
	assert_int_equal(quire_encoded_write(path, &e), QUIRE_OK);
	assert_int_equal(quire_encoded_read(path, &back), QUIRE_OK);
	assert_int_equal(back.format, QUIRE_FMT_BFP8);
	assert_int_equal(back.n, N);
	assert_memory_equal(back.exp, exp, sizeof(exp));
	assert_memory_equal(back.vals, q, N);
	quire_encoded_free(&back);
	/* Each kind of damage is refused, and nothing is left allocated. */
	FILE *f = fopen(path, "rb");
	uint8_t buf[32 + sizeof(exp) + N];
	assert_int_equal(fread(buf, 1, sizeof(buf), f), sizeof(buf));
	fclose(f);
	static const struct {
		size_t at;
		uint8_t xor_;
		long len_delta;
		int status;
	} damage[] = {
	    {0, 0x01, 0, QUIRE_ERR_CORRUPT},                    /* magic */
	    {8, 0x02, 0, QUIRE_ERR_VERSION},                    /* version */
	    {10, 0x07, 0, QUIRE_ERR_CORRUPT},                   /* format */
	    {14, 0x01, 0, QUIRE_ERR_CORRUPT},                   /* block size */
	    {16, 0x01, 0, QUIRE_ERR_CORRUPT},                   /* n disagrees with the size */
	    {24, 0xff, 0, QUIRE_ERR_CORRUPT},                   /* workers (covered by the CRC) */
	    {40, 0x10, 0, QUIRE_ERR_CORRUPT},                   /* payload: CRC */
	    {500, 0x80, 0, QUIRE_ERR_CORRUPT},                  /* payload: CRC */
	    {0, 0, -1, QUIRE_ERR_CORRUPT},                      /* truncated */
	    {0, 0, 3, QUIRE_ERR_CORRUPT},                       /* trailing bytes */
	    {0, 0, -(long)sizeof(buf) + 10, QUIRE_ERR_CORRUPT}, /* no header */
	};
	for (size_t k = 0; k < sizeof(damage) / sizeof(damage[0]); k++) {
		uint8_t copy[sizeof(buf) + 3] = {0};
		memcpy(copy, buf, sizeof(buf));
		copy[damage[k].at] ^= damage[k].xor_;
		f = fopen(path, "wb");
		fwrite(copy, 1, (size_t)((long)sizeof(buf) + damage[k].len_delta), f);
		fclose(f);
		int st = quire_encoded_read(path, &back);
		if (st != damage[k].status)
			fail_msg("damage %zu: status %d (%s), expected %d", k, st,
				 quire_strerror(st), damage[k].status);
		if (st == QUIRE_OK)
			quire_encoded_free(&back);
		else
			assert_null(back.vals);
	}
	unlink(path);
	assert_int_equal(quire_encoded_read(path, &back), QUIRE_ERR_IO);
	assert_int_equal(quire_encoded_write("/nonexistent-dir/x", &e), QUIRE_ERR_IO);
	e.format = QUIRE_FMT_FP32;
	assert_int_equal(quire_encoded_write(path, &e), QUIRE_ERR_INVALID);
}

/* An encoded file with this header (a correct CRC, a size that matches it, zero payload):
 * its fields alone decide whether the reader takes it. */
static void write_encoded_file(const char *path, uint16_t format, uint16_t val_format, uint64_t n,
			       uint32_t workers)
{
	size_t vbytes = quire_format_bytes(val_format, n);
	size_t eb = format == QUIRE_FMT_FP16 ? 0 : QUIRE_BFP_BLOCKS(n);
	size_t bytes = 32 + eb + vbytes;
	uint8_t *file = calloc(1, bytes);
	assert_non_null(file);
	uint32_t words[] = {(uint32_t)(1 | format << 16),
			    (uint32_t)(val_format | (format == QUIRE_FMT_FP16 ? 0 : 64) << 16),
			    (uint32_t)n, (uint32_t)(n >> 32), workers};
	memcpy(file, "QUIRETNS", 8);
	for (int i = 0; i < 5; i++)
		for (int b = 0; b < 4; b++)
			file[8 + 4 * i + b] = (uint8_t)(words[i] >> 8 * b);
	uLong crc = crc32(crc32(0L, Z_NULL, 0), file, 28);
	crc = crc32(crc, file + 32, (uInt)(eb + vbytes));
	for (int b = 0; b < 4; b++)
		file[28 + b] = (uint8_t)(crc >> 8 * b);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(file, 1, bytes, f), bytes);
	fclose(f);
	free(file);
}

/* The reader takes exactly the headers the writer writes; each other one is refused,
 * naming the field at fault, and the writer refuses to write it. */
static void test_encoded_headers(void **state)
{
	(void)state;
	char path[] = "/tmp/quire-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	static const struct {
		uint16_t format, val_format;
		uint64_t n;
		uint32_t workers;
		const char *fault; /* the start of quire_encoded_fault's answer; NULL: valid */
	} headers[] = {
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 100, 1, NULL},
	    {QUIRE_FMT_BFP16, QUIRE_FMT_INT16, 100, 1, NULL},
	    {QUIRE_FMT_FP16, QUIRE_FMT_FP16, 100, 1, NULL},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT16, 100, 4, NULL},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT16, 100, QUIRE_BFP8_INT16_MAX_WORKERS, NULL},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 100, QUIRE_BFP8_INT16_MAX_WORKERS + 1, NULL},
	    {QUIRE_FMT_BFP16, QUIRE_FMT_INT32, 100, QUIRE_MAX_WORKERS, NULL},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 100, 5000, "workers"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 100, 4294967295u, "workers"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 100, QUIRE_MAX_WORKERS + 1, "workers"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 100, 0, "workers"},
	    {QUIRE_FMT_FP16, QUIRE_FMT_FP16, 100, 2, "workers"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 0, 1, "n"},
	    {QUIRE_FMT_FP16, QUIRE_FMT_FP16, 0, 1, "n"},
	    {QUIRE_FMT_FP32, QUIRE_FMT_FP32, 100, 1, "format"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT16, 100, 1, "value format"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 100, 1, "value format"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 100, 2, "value format"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 100, 4, "value format"},
	    {QUIRE_FMT_BFP8, QUIRE_FMT_INT16, 100, QUIRE_BFP8_INT16_MAX_WORKERS + 1,
	     "value format"},
	    {QUIRE_FMT_BFP16, QUIRE_FMT_INT8, 100, 1, "value format"},
	    {QUIRE_FMT_BFP16, QUIRE_FMT_INT16, 100, 2, "value format"},
	    {QUIRE_FMT_FP16, QUIRE_FMT_INT16, 100, 1, "value format"},
	};
	for (size_t k = 0; k < sizeof(headers) / sizeof(headers[0]); k++) {
		write_encoded_file(path, headers[k].format, headers[k].val_format, headers[k].n,
				   headers[k].workers);
		struct quire_encoded e;
		int st = quire_encoded_read(path, &e);
		const char *fault = quire_encoded_fault(path);
		if (!headers[k].fault) {
			if (st != QUIRE_OK || fault)
				fail_msg("header %zu: refused (%s: %s)", k, quire_strerror(st),
					 fault ? fault : "no fault given");
			assert_int_equal(e.workers, headers[k].workers);
			/* What the reader takes, the writer writes again. */
			assert_int_equal(quire_encoded_write(path, &e), QUIRE_OK);
			quire_encoded_free(&e);
			continue;
		}
		if (st != QUIRE_ERR_CORRUPT)
			fail_msg("header %zu (%s): status %d (%s), expected QUIRE_ERR_CORRUPT", k,
				 headers[k].fault, st, quire_strerror(st));
		assert_null(e.vals);
		if (!fault || strncmp(fault, headers[k].fault, strlen(headers[k].fault)) != 0 ||
		    fault[strlen(headers[k].fault)] != ':')
			fail_msg("header %zu: fault '%s', expected '%s: ...'", k,
				 fault ? fault : "(none)", headers[k].fault);
		/* The writer refuses it too. */
		uint8_t payload[4 * 100] = {0};
		int8_t exps[QUIRE_BFP_BLOCKS(100)] = {0};
		struct quire_encoded bad = {headers[k].format,
					    headers[k].val_format,
					    headers[k].workers,
					    headers[k].n,
					    exps,
					    payload};
		assert_int_equal(quire_encoded_write(path, &bad), QUIRE_ERR_INVALID);
	}
	unlink(path);
	assert_null(quire_encoded_fault(path)); /* not there: an I/O error, no fault */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_path_matches_hls),
	    cmocka_unit_test(test_fp16_every_pattern),
	    cmocka_unit_test(test_decode_sums_and_reduce),
	    cmocka_unit_test(test_saturating_int16_sums),
	    cmocka_unit_test(test_fp_sums),
	    cmocka_unit_test(test_caller_fp_mode_ignored),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_encoded_files),
	    cmocka_unit_test(test_encoded_headers),
	};
	return cmocka_run_group_tests_name("cpu codec", tests, NULL, NULL);
}
