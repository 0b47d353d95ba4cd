// SPDX-License-Identifier: MIT
/*
 * The MLP kernel: golden vectors from an independent implementation
 * (tests/ref/mlp_ref.py), checked bit for bit; model images that break a rule
 * refused; requantization rounding; and a float network, quantized as
 * docs/mlp.md describes, scored within the documented tolerance (docs/mlp.md).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mlp_golden.h"
#include "test_util.h"
#include "hls/crc32.h"
#include "hls/mlp.h"
#include "quire/status.h"

static void check_golden(const char *name)
{
	char file[128];
	size_t ilen, vlen;
	snprintf(file, sizeof(file), "%s.qmlp", name);
	uint8_t *img = mlp_golden_read(file, &ilen);
	snprintf(file, sizeof(file), "%s.vec", name);
	uint8_t *vec = mlp_golden_read(file, &vlen);
	assert_int_equal(mlp_golden_le32(vec), 0x564c4d51u);
	uint32_t c = mlp_golden_le32(vec + 4), n0 = mlp_golden_le32(vec + 8);
	const int8_t *feat = (const int8_t *)vec + 12;
	const uint8_t *feas = vec + 12 + c * n0;
	const uint8_t *exp_scores = feas + c;
	int32_t exp_choice = (int32_t)mlp_golden_le32(exp_scores + 4 * c);
	assert_int_equal(vlen, 12 + c * n0 + c + 4 * c + 4);

	struct quire_mlp_net *net = malloc(sizeof(*net));
	assert_int_equal(quire_mlp_load(img, ilen, net), QUIRE_OK);
	assert_int_equal(net->width[0], n0);
	int32_t *scores = malloc(c * sizeof(int32_t));
	uint32_t choice = 12345;
	int st = quire_mlp_score(net, c, feat, feas, scores, &choice);
	int distinct = 0;
	for (uint32_t k = 0; k < c; k++) {
		if ((uint32_t)scores[k] != mlp_golden_le32(exp_scores + 4 * k))
			fail_msg("%s candidate %u: score %d, golden %d", name, k, scores[k],
				 (int32_t)mlp_golden_le32(exp_scores + 4 * k));
		distinct += k == 0 || scores[k] != scores[k - 1];
	}
	assert_true(c < 4 || distinct > 1); /* the vectors exercise more than the bias */
	if (exp_choice < 0) {
		assert_int_equal(st, QUIRE_ERR_NO_FEASIBLE);
		assert_int_equal(choice, 12345); /* untouched */
	} else {
		assert_int_equal(st, QUIRE_OK);
		assert_int_equal(choice, (uint32_t)exp_choice);
	}
	/* The same through the top function (LOAD, then SCORE). */
	assert_int_equal(quire_mlp_top(QUIRE_MLP_OP_LOAD, ilen, 0, img, NULL, NULL, NULL, NULL),
			 QUIRE_OK);
	uint32_t choice2 = 12345;
	assert_int_equal(
	    quire_mlp_top(QUIRE_MLP_OP_SCORE, 0, c, NULL, feat, feas, scores, &choice2), st);
	if (st == QUIRE_OK)
		assert_int_equal(choice2, choice);
	free(scores);
	free(net);
	free(img);
	free(vec);
}

static void test_golden_vectors(void **state)
{
	(void)state;
	static const char *const cases[] = {"l1_16",  "l2_32x64",         "l3_extreme",
					    "l4_256", "l2_none_feasible", "l2_wide_c1024"};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_golden(cases[i]);
}

static void test_requantize_rounding(void **state)
{
	(void)state;
	/* Round half toward +Inf, then clamp to [0, 127]. */
	assert_int_equal(quire_mlp_requantize(1, 1, 1), 1);  /* 0.5 -> 1 */
	assert_int_equal(quire_mlp_requantize(3, 1, 1), 2);  /* 1.5 -> 2 */
	assert_int_equal(quire_mlp_requantize(5, 1, 1), 3);  /* 2.5 -> 3, not even */
	assert_int_equal(quire_mlp_requantize(-1, 1, 1), 0); /* -0.5 -> 0 */
	assert_int_equal(quire_mlp_requantize(-3, 1, 1), 0); /* -1.5 -> -1 -> ReLU 0 */
	assert_int_equal(quire_mlp_requantize(1000, INT32_MAX, 0), 127);
	assert_int_equal(quire_mlp_requantize(INT32_MAX, INT32_MAX, 62), 1);
	assert_int_equal(quire_mlp_requantize(INT32_MIN, INT32_MAX, 62), 0);
	assert_int_equal(quire_mlp_requantize(200, 1 << 30, 31), 100);
	assert_int_equal(quire_mlp_requantize(201, 1 << 30, 31), 101); /* 100.5 -> 101 */
	assert_int_equal(quire_mlp_requantize(77, 0, 5), 0);
}

/* A valid 2-layer image [4, 3, 1] to break in various ways. */
static uint32_t small_image(uint8_t *img)
{
	uint32_t width[5] = {4, 3, 1, 0, 0};
	uint32_t len = quire_mlp_image_bytes(2, width);
	memset(img, 0, len);
	uint32_t magic = 0x504c4d51u;
	memcpy(img, &magic, 4);
	img[4] = 1;
	img[6] = 2;
	for (int l = 0; l < 3; l++)
		img[8 + 2 * l] = (uint8_t)width[l];
	uint32_t payload = len - 32;
	memcpy(img + 20, &payload, 4);
	for (uint32_t i = 0; i < 12; i++)
		img[32 + i] = (uint8_t)(i * 37);
	int32_t m = 1 << 30;
	for (int o = 0; o < 3; o++)
		memcpy(img + 32 + 12 + 12 + 4 * o, &m, 4);
	for (int o = 0; o < 3; o++)
		img[32 + 36 + o] = 36;
	return len;
}

static void fix_crc(uint8_t *img, uint32_t len)
{
	uint32_t crc = quire_crc32(0, img + 32, len - 32);
	memcpy(img + 24, &crc, 4);
}

static int load_modified(uint32_t at, const void *val, size_t size, int recrc, int32_t len_delta)
{
	static uint8_t img[256];
	static struct quire_mlp_net net;
	uint32_t len = small_image(img);
	memcpy(img + at, val, size);
	if (recrc)
		fix_crc(img, len);
	int st = quire_mlp_load(img, (uint32_t)((int32_t)len + len_delta), &net);
	if (st != QUIRE_OK)
		assert_int_equal(net.layers, 0);
	return st;
}

static void test_invalid_images(void **state)
{
	(void)state;
	uint8_t zero = 0, big = 0xff;
	uint16_t v16;
	int32_t v32;
	assert_int_equal(load_modified(0, &zero, 0, 1, 0), QUIRE_OK);
	assert_int_equal(load_modified(0, &zero, 1, 1, 0), QUIRE_ERR_CORRUPT); /* magic */
	v16 = 2;
	assert_int_equal(load_modified(4, &v16, 2, 1, 0), QUIRE_ERR_VERSION);   /* version */
	assert_int_equal(load_modified(33, &big, 1, 0, 0), QUIRE_ERR_CORRUPT);  /* CRC */
	assert_int_equal(load_modified(0, &zero, 0, 1, -1), QUIRE_ERR_CORRUPT); /* truncated */
	assert_int_equal(load_modified(0, &zero, 0, 1, 4), QUIRE_ERR_CORRUPT);  /* trailing */
	v16 = 0;
	assert_int_equal(load_modified(6, &v16, 2, 1, 0), QUIRE_ERR_SHAPE); /* 0 layers */
	v16 = 5;
	assert_int_equal(load_modified(6, &v16, 2, 1, 0), QUIRE_ERR_SHAPE); /* 5 layers */
	v16 = 0;
	assert_int_equal(load_modified(8, &v16, 2, 1, 0), QUIRE_ERR_SHAPE); /* width 0 */
	v16 = 257;
	assert_int_equal(load_modified(8, &v16, 2, 1, 0), QUIRE_ERR_SHAPE); /* width 257 */
	v16 = 2;
	assert_int_equal(load_modified(12, &v16, 2, 1, 0), QUIRE_ERR_SHAPE); /* n_L != 1 */
	v16 = 3;
	assert_int_equal(load_modified(14, &v16, 2, 1, 0), QUIRE_ERR_SHAPE); /* width past L */
	v16 = 1;
	assert_int_equal(load_modified(18, &v16, 2, 1, 0), QUIRE_ERR_CORRUPT); /* flags */
	v32 = 1 << 30;
	assert_int_equal(load_modified(32 + 12, &v32, 4, 1, 0), QUIRE_ERR_RANGE); /* |bias| */
	v32 = -(1 << 30);
	assert_int_equal(load_modified(32 + 12, &v32, 4, 1, 0), QUIRE_ERR_RANGE);
	v32 = (1 << 30) - 1;
	assert_int_equal(load_modified(32 + 12, &v32, 4, 1, 0), QUIRE_OK);
	v32 = -1;
	assert_int_equal(load_modified(32 + 24, &v32, 4, 1, 0), QUIRE_ERR_RANGE); /* M < 0 */
	uint8_t s = 63;
	assert_int_equal(load_modified(32 + 36, &s, 1, 1, 0), QUIRE_ERR_RANGE);  /* shift */
	assert_int_equal(load_modified(0, &zero, 0, 1, -30), QUIRE_ERR_CORRUPT); /* no header */
}

static void test_score_arguments(void **state)
{
	(void)state;
	static struct quire_mlp_net net;
	uint8_t img[256];
	uint32_t len = small_image(img);
	fix_crc(img, len);
	int8_t feat[4 * 2] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint8_t feas[2] = {1, 1};
	int32_t scores[2];
	uint32_t choice;
	net.layers = 0;
	assert_int_equal(quire_mlp_score(&net, 2, feat, feas, scores, &choice), QUIRE_ERR_SHAPE);
	assert_int_equal(quire_mlp_load(img, len, &net), QUIRE_OK);
	assert_int_equal(quire_mlp_score(&net, 0, feat, feas, scores, &choice), QUIRE_ERR_SIZE);
	assert_int_equal(quire_mlp_score(&net, 1025, feat, feas, scores, &choice), QUIRE_ERR_SIZE);
	assert_int_equal(quire_mlp_score(&net, 2, feat, feas, scores, &choice), QUIRE_OK);
	assert_int_equal(quire_mlp_top(9, 0, 0, NULL, NULL, NULL, NULL, NULL), QUIRE_ERR_OPCODE);
}

/* ---- a float network and its quantization as docs/mlp.md describes ---- */

#define FL_LAYERS 3
static const uint32_t fl_width[FL_LAYERS + 1] = {24, 64, 32, 1};

struct float_net {
	float w[FL_LAYERS][64][64];
	float b[FL_LAYERS][64];
};

static float float_infer(const struct float_net *f, const float *x0, float *act_max)
{
	float x[64], y[64];
	memcpy(x, x0, fl_width[0] * sizeof(float));
	for (int l = 0; l < FL_LAYERS; l++) {
		for (uint32_t o = 0; o < fl_width[l + 1]; o++) {
			float acc = f->b[l][o];
			for (uint32_t i = 0; i < fl_width[l]; i++)
				acc += f->w[l][o][i] * x[i];
			if (l == FL_LAYERS - 1)
				return acc;
			y[o] = acc > 0 ? acc : 0;
			if (act_max && y[o] > act_max[l])
				act_max[l] = y[o];
		}
		memcpy(x, y, fl_width[l + 1] * sizeof(float));
	}
	return 0;
}

static void put32(uint8_t **p, int32_t v)
{
	memcpy(*p, &v, 4);
	*p += 4;
}

/*
 * Per-output-channel symmetric weights; activations scaled by the largest
 * value seen on calibration data; bias in the accumulator's scale; M, s with
 * M in [2^30, 2^31). Returns the scale of the output score.
 */
static double quantize_net(const struct float_net *f, const float *act_max, uint8_t *img,
			   uint32_t *len)
{
	uint32_t w5[5] = {fl_width[0], fl_width[1], fl_width[2], fl_width[3], 0};
	*len = quire_mlp_image_bytes(FL_LAYERS, w5);
	memset(img, 0, *len);
	uint32_t magic = QUIRE_MLP_MAGIC, payload = *len - QUIRE_MLP_HEADER_BYTES;
	memcpy(img + QUIRE_MLP_HDR_MAGIC, &magic, 4);
	img[QUIRE_MLP_HDR_VERSION] = QUIRE_MLP_VERSION;
	img[QUIRE_MLP_HDR_LAYERS] = FL_LAYERS;
	for (int l = 0; l <= FL_LAYERS; l++)
		img[QUIRE_MLP_HDR_WIDTH + 2 * l] = (uint8_t)fl_width[l];
	memcpy(img + QUIRE_MLP_HDR_PAYLOAD_BYTES, &payload, 4);
	uint8_t *p = img + QUIRE_MLP_HEADER_BYTES;
	double s_in = 1.0 / 127; /* features in [0, 1] */
	double out_scale = 0;
	for (int l = 0; l < FL_LAYERS; l++) {
		uint32_t in = fl_width[l], out = fl_width[l + 1];
		double sw[64], s_out = act_max[l] / 127;
		for (uint32_t o = 0; o < out; o++) {
			double m = 0;
			for (uint32_t i = 0; i < in; i++)
				m = fmax(m, fabs(f->w[l][o][i]));
			sw[o] = m / 127;
			for (uint32_t i = 0; i < in; i++)
				p[o * in + i] = (uint8_t)(int8_t)nearbyint(f->w[l][o][i] / sw[o]);
		}
		p += (in * out + 3) & ~3u;
		for (uint32_t o = 0; o < out; o++)
			put32(&p, (int32_t)nearbyint(f->b[l][o] / (s_in * sw[o])));
		if (l == FL_LAYERS - 1) {
			out_scale = s_in * sw[0];
			break;
		}
		uint8_t *mult = p, *shift = p + 4 * out;
		for (uint32_t o = 0; o < out; o++) {
			int e;
			double frac = frexp(s_in * sw[o] / s_out, &e); /* in [0.5, 1) */
			int64_t m = (int64_t)nearbyint(ldexp(frac, 31));
			int sh = 31 - e;
			if (m == INT64_C(1) << 31) {
				m >>= 1;
				sh--;
			}
			int32_t m32 = (int32_t)m;
			memcpy(mult + 4 * o, &m32, 4);
			shift[o] = (uint8_t)sh;
		}
		p += 4 * out + ((out + 3) & ~3u);
		s_in = s_out;
	}
	return out_scale;
}

static void test_float_reference(void **state)
{
	(void)state;
	struct rng g = {5};
	struct float_net *f = calloc(1, sizeof(*f));
	for (int l = 0; l < FL_LAYERS; l++)
		for (uint32_t o = 0; o < fl_width[l + 1]; o++) {
			for (uint32_t i = 0; i < fl_width[l]; i++)
				f->w[l][o][i] = ((float)rng_below(&g, 20001) - 10000) / 10000 /
						sqrtf((float)fl_width[l]);
			f->b[l][o] = ((float)rng_below(&g, 2001) - 1000) / 10000;
		}
	enum { C = 512 };
	static float feat[C][24];
	static int8_t qfeat[C * 24];
	uint8_t feas[C];
	float act_max[FL_LAYERS] = {0};
	for (int k = 0; k < C; k++) {
		for (int i = 0; i < 24; i++) {
			feat[k][i] = (float)rng_below(&g, 1001) / 1000;
			qfeat[k * 24 + i] = (int8_t)nearbyint(feat[k][i] * 127);
		}
		feas[k] = 1;
		float_infer(f, feat[k], act_max);
	}
	static uint8_t img[16384];
	uint32_t len;
	double scale = quantize_net(f, act_max, img, &len);
	fix_crc(img, len);
	struct quire_mlp_net *net = malloc(sizeof(*net));
	assert_int_equal(quire_mlp_load(img, len, net), QUIRE_OK);
	int32_t scores[C];
	uint32_t choice;
	assert_int_equal(quire_mlp_score(net, C, qfeat, feas, scores, &choice), QUIRE_OK);
	double lo = 1e30, hi = -1e30, worst = 0, best_float = -1e30;
	float ref[C];
	for (int k = 0; k < C; k++) {
		ref[k] = float_infer(f, feat[k], NULL);
		lo = fmin(lo, ref[k]);
		hi = fmax(hi, ref[k]);
		best_float = fmax(best_float, ref[k]);
	}
	for (int k = 0; k < C; k++)
		worst = fmax(worst, fabs(scores[k] * scale - ref[k]));
	/* The documented tolerance (docs/mlp.md): every score within 5% of the spread of
	 * the float scores, and the chosen candidate within 5% of the float optimum. */
	print_message("mlp float reference: worst error %.4f of spread %.4f (%.2f%%)\n", worst,
		      hi - lo, 100 * worst / (hi - lo));
	assert_true(hi - lo > 0.1);
	assert_true(worst <= 0.05 * (hi - lo));
	assert_true(best_float - ref[choice] <= 0.05 * (hi - lo));
	free(net);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden_vectors),  cmocka_unit_test(test_requantize_rounding),
	    cmocka_unit_test(test_invalid_images),  cmocka_unit_test(test_score_arguments),
	    cmocka_unit_test(test_float_reference),
	};
	return cmocka_run_group_tests_name("mlp kernel", tests, NULL, NULL);
}
