// SPDX-License-Identifier: MIT
/*
 * The scheduler's C API (quire_model_*, docs/sched-api.md) on every backend at hand: cpu,
 * the emulated card (sim:inproc), OpenCL (PoCL; a failure without a platform, found apart
 * from the backend by tests/ocl_present.h; skipped under valgrind) and QUIRE_TEST_CARD (the RTL
 * card of `quire-sim --model rtl`, tests/cli/test_sim_rtl.sh). Scores and choices of the golden
 * vectors (tests/data/mlp_golden, an independent Python implementation) bit for bit on each; the
 * argument errors; corrupt and truncated images refused with the offset at fault; a model
 * loaded again after another took the card's engine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "mlp_golden.h"
#include "ocl_present.h"
#include "test_util.h"
#include "hls/crc32.h"
#include "quire.h"

#define MAX_BACKENDS 4

/* The backends to compare; *n of them. */
static int backends(const char **uri)
{
	int n = 0;
	uri[n++] = "cpu";
	uri[n++] = "sim:inproc";
	char why[256];
	if (getenv("QUIRE_VALGRIND"))
		print_message("skip: opencl under valgrind (PoCL's LLVM leaks)\n");
	else if (!ocl_platform_present(why, sizeof(why)))
		/* A listed package missing: a failure, not a backend left out. */
		fail_msg("%s (mk/debian-packages.txt)", why);
	else
		uri[n++] = "opencl"; /* a platform: the backend must open, or the tests fail */
	const char *card = getenv("QUIRE_TEST_CARD");
	if (card && *card)
		uri[n++] = card;
	return n;
}

struct golden {
	uint8_t *img, *vec;
	size_t ilen;
	uint32_t c, n0;
	const int8_t *feat;
	const uint8_t *feas, *scores;
	int32_t choice;
};

static void golden_open(struct golden *g, const char *name)
{
	char file[128];
	size_t vlen;
	snprintf(file, sizeof(file), "%s.qmlp", name);
	g->img = mlp_golden_read(file, &g->ilen);
	snprintf(file, sizeof(file), "%s.vec", name);
	g->vec = mlp_golden_read(file, &vlen);
	g->c = mlp_golden_le32(g->vec + 4);
	g->n0 = mlp_golden_le32(g->vec + 8);
	g->feat = (const int8_t *)g->vec + 12;
	g->feas = g->vec + 12 + (size_t)g->c * g->n0;
	g->scores = g->feas + g->c;
	g->choice = (int32_t)mlp_golden_le32(g->scores + 4 * (size_t)g->c);
	assert_int_equal(vlen, 12 + (size_t)g->c * g->n0 + 5 * (size_t)g->c + 4);
}

static void golden_close(struct golden *g)
{
	free(g->img);
	free(g->vec);
}

static void test_golden_on_every_backend(void **state)
{
	(void)state;
	static const char *const cases[] = {"l1_16",  "l2_32x64",         "l3_extreme",
					    "l4_256", "l2_none_feasible", "l2_wide_c1024"};
	const char *uri[MAX_BACKENDS];
	int nb = backends(uri);
	for (int b = 0; b < nb; b++) {
		struct quire_ctx *ctx;
		assert_int_equal(quire_open(uri[b], &ctx), QUIRE_OK);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct golden g;
			golden_open(&g, cases[i]);
			struct quire_model *m;
			assert_int_equal(quire_model_load(ctx, g.img, g.ilen, &m), QUIRE_OK);
			assert_int_equal(quire_model_inputs(m), g.n0);
			int32_t *scores = malloc(4 * (size_t)g.c);
			memset(scores, 0x5a, 4 * (size_t)g.c);
			uint32_t choice = 777777;
			int st = quire_model_score(m, g.c, g.feat, g.n0, g.feas, scores, &choice);
			if (memcmp(scores, g.scores, 4 * (size_t)g.c) != 0)
				fail_msg("%s on %s: scores differ from the golden vector", cases[i],
					 uri[b]);
			if (g.choice < 0) {
				assert_int_equal(st, QUIRE_ERR_NO_FEASIBLE);
				assert_int_equal(choice, 777777); /* "none": a status, no index */
			} else {
				if (st != QUIRE_OK || choice != (uint32_t)g.choice)
					fail_msg("%s on %s: status %d choice %u, golden %d",
						 cases[i], uri[b], st, choice, g.choice);
			}
			/* Without the scores or the choice: the same status. */
			assert_int_equal(
			    quire_model_score(m, g.c, g.feat, g.n0, g.feas, NULL, NULL), st);
			print_message("%s on %s: %u candidates, %u card cycles\n", cases[i], uri[b],
				      g.c, quire_model_cycles(m));
			free(scores);
			quire_model_free(m);
			golden_close(&g);
		}
		quire_close(ctx);
	}
}

static void test_score_errors(void **state)
{
	(void)state;
	struct golden g;
	golden_open(&g, "l2_wide_c1024"); /* n0 = 12, 1024 candidates */
	const char *uri[MAX_BACKENDS];
	int nb = backends(uri);
	for (int b = 0; b < nb; b++) {
		struct quire_ctx *ctx;
		assert_int_equal(quire_open(uri[b], &ctx), QUIRE_OK);
		struct quire_model *m = (void *)1;
		assert_int_equal(quire_model_load(ctx, g.img, g.ilen, &m), QUIRE_OK);
		int32_t scores[1025];
		uint32_t choice;
		uint8_t feas[1025];
		memset(feas, 1, sizeof(feas));
		int8_t *feat = calloc(1025, g.n0 + 1);
		assert_int_equal(quire_model_score(m, 4, feat, g.n0 + 1, feas, scores, &choice),
				 QUIRE_ERR_SHAPE);
		assert_int_equal(quire_model_score(m, 4, feat, g.n0 - 1, feas, scores, &choice),
				 QUIRE_ERR_SHAPE);
		assert_int_equal(quire_model_score(m, 0, feat, g.n0, feas, scores, &choice),
				 QUIRE_ERR_SIZE);
		assert_int_equal(quire_model_score(m, 1025, feat, g.n0, feas, scores, &choice),
				 QUIRE_ERR_SIZE);
		assert_int_equal(quire_model_score(NULL, 4, feat, g.n0, feas, scores, &choice),
				 QUIRE_ERR_INVALID);
		assert_int_equal(quire_model_score(m, 4, NULL, g.n0, feas, scores, &choice),
				 QUIRE_ERR_INVALID);
		assert_int_equal(quire_model_score(m, 4, feat, g.n0, NULL, scores, &choice),
				 QUIRE_ERR_INVALID);
		/* One candidate, the largest batch, then none feasible. */
		assert_int_equal(quire_model_score(m, 1, feat, g.n0, feas, scores, &choice),
				 QUIRE_OK);
		assert_int_equal(choice, 0);
		assert_int_equal(quire_model_score(m, 1024, g.feat, g.n0, feas, scores, &choice),
				 QUIRE_OK);
		memset(feas, 0, sizeof(feas));
		choice = 99;
		memset(scores, 0, sizeof(scores));
		assert_int_equal(quire_model_score(m, 1024, g.feat, g.n0, feas, scores, &choice),
				 QUIRE_ERR_NO_FEASIBLE);
		assert_int_equal(choice, 99);
		assert_memory_equal(scores, g.scores, 4 * 1024); /* scores still written */
		assert_int_equal(quire_model_inputs(NULL), 0);
		assert_int_equal(quire_model_load(ctx, g.img, g.ilen, NULL), QUIRE_ERR_INVALID);
		struct quire_model *none = (void *)1;
		assert_int_equal(quire_model_load(NULL, g.img, g.ilen, &none), QUIRE_ERR_INVALID);
		assert_null(none);
		free(feat);
		quire_model_free(m);
		quire_close(ctx);
	}
	golden_close(&g);
}

/* A model loaded, another loaded over it (through the API and through a raw MLP_LOAD):
 * the first scores as itself, loaded again. */
static void test_reload_after_another(void **state)
{
	(void)state;
	struct golden a, b;
	golden_open(&a, "l2_32x64");
	golden_open(&b, "l3_extreme");
	const char *uri[MAX_BACKENDS];
	int nb = backends(uri);
	for (int k = 0; k < nb; k++) {
		struct quire_ctx *ctx;
		assert_int_equal(quire_open(uri[k], &ctx), QUIRE_OK);
		struct quire_model *ma, *mb;
		assert_int_equal(quire_model_load(ctx, a.img, a.ilen, &ma), QUIRE_OK);
		assert_int_equal(quire_model_load(ctx, b.img, b.ilen, &mb), QUIRE_OK);
		int32_t s[128];
		uint32_t choice;
		assert_int_equal(quire_model_score(ma, a.c, a.feat, a.n0, a.feas, s, &choice),
				 QUIRE_OK);
		assert_memory_equal(s, a.scores, 4 * a.c);
		assert_int_equal(quire_model_score(mb, b.c, b.feat, b.n0, b.feas, s, &choice),
				 QUIRE_OK);
		assert_memory_equal(s, b.scores, 4 * b.c);
		/* A raw MLP_LOAD of a corrupt image leaves the card with no model. */
		struct quire_buf *img;
		assert_int_equal(quire_buf_alloc(ctx, a.ilen, &img), QUIRE_OK);
		memcpy(quire_buf_ptr(img), a.img, a.ilen);
		((uint8_t *)quire_buf_ptr(img))[40] ^= 1;
		struct quire_op load = {
		    .opcode = QUIRE_OPC_MLP_LOAD, .count = (uint32_t)a.ilen, .src = {img, 0}};
		assert_int_equal(quire_run(ctx, &load, NULL), QUIRE_ERR_CORRUPT);
		assert_int_equal(quire_model_score(mb, b.c, b.feat, b.n0, b.feas, s, &choice),
				 QUIRE_OK);
		assert_memory_equal(s, b.scores, 4 * b.c);
		quire_buf_free(img);
		quire_model_free(ma);
		quire_model_free(mb);
		quire_close(ctx);
	}
	golden_close(&a);
	golden_close(&b);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void recrc(uint8_t *img, size_t len)
{
	put32(img + QUIRE_MLP_HDR_PAYLOAD_CRC,
	      quire_crc32(0, img + QUIRE_MLP_HEADER_BYTES, (uint32_t)len - 32));
}

/* l2_32x64 [32, 64, 1], 2724 bytes: after the 32-byte header, layer 0's weights at 32,
 * biases at 2080, multipliers at 2336, shifts at 2592; the output layer's 64 weights at
 * 2656 and its bias at 2720. */
static void test_corrupt_images(void **state)
{
	(void)state;
	struct golden g;
	golden_open(&g, "l2_32x64");
	assert_int_equal(g.ilen, 2724);
	uint8_t *img = malloc(g.ilen + 8);
	size_t off;
	char why[256];
	struct {
		size_t at;
		uint32_t val;
		int bytes, recrc;
		long len_delta;
		int status;
		size_t offset;
		const char *text;
	} cases[] = {
	    {0, 0, 0, 0, 0, QUIRE_OK, 0, ""},
	    {0, 0x514d4c50, 4, 0, 0, QUIRE_ERR_CORRUPT, 0, "magic"},
	    {4, 2, 2, 0, 0, QUIRE_ERR_VERSION, 4, "version 2"},
	    {6, 5, 2, 0, 0, QUIRE_ERR_SHAPE, 6, "5 layers"},
	    {8, 0, 2, 0, 0, QUIRE_ERR_SHAPE, 8, "width n_0 = 0"},
	    {10, 257, 2, 0, 0, QUIRE_ERR_SHAPE, 10, "width n_1 = 257"},
	    {12, 2, 2, 0, 0, QUIRE_ERR_SHAPE, 12, "output width"},
	    {16, 3, 2, 0, 0, QUIRE_ERR_SHAPE, 16, "past the 2 layers"},
	    {18, 1, 2, 0, 0, QUIRE_ERR_CORRUPT, 18, "flags"},
	    {28, 1, 4, 0, 0, QUIRE_ERR_CORRUPT, 28, "reserved"},
	    {20, 100, 4, 0, 0, QUIRE_ERR_CORRUPT, 20, "payload of 100 bytes"},
	    {0, 0, 0, 0, -1, QUIRE_ERR_CORRUPT, 2723, "truncated"},
	    {0, 0, 0, 0, -2712, QUIRE_ERR_CORRUPT, 12, "header alone"},
	    {0, 0, 0, 0, 4, QUIRE_ERR_CORRUPT, 2724, "4 bytes after the end"},
	    {100, 0x7f, 1, 0, 0, QUIRE_ERR_CORRUPT, 24, "CRC-32"},
	    {2080 + 4 * 5, 1u << 30, 4, 1, 0, QUIRE_ERR_RANGE, 2100, "layer 0 bias[5]"},
	    {2336 + 4 * 9, 0x80000000u, 4, 1, 0, QUIRE_ERR_RANGE, 2372, "multiplier[9]"},
	    {2592 + 63, 63, 1, 1, 0, QUIRE_ERR_RANGE, 2655, "shift[63] = 63"},
	    {2720, (uint32_t) - (1 << 30), 4, 1, 0, QUIRE_ERR_RANGE, 2720, "layer 1 bias[0]"},
	};
	struct quire_ctx *ctx;
	assert_int_equal(quire_open("sim:inproc", &ctx), QUIRE_OK);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(img, g.img, g.ilen);
		memset(img + g.ilen, 0, 8);
		for (int k = 0; k < cases[i].bytes; k++)
			img[cases[i].at + k] = (uint8_t)(cases[i].val >> 8 * k);
		size_t len = (size_t)((long)g.ilen + cases[i].len_delta);
		if (cases[i].recrc)
			recrc(img, len);
		int st = quire_model_check(img, len, &off, why, sizeof(why));
		if (st != cases[i].status || off != cases[i].offset || !strstr(why, cases[i].text))
			fail_msg("case %zu: status %d offset %zu '%s'; wanted %d at %zu with '%s'",
				 i, st, off, why, cases[i].status, cases[i].offset, cases[i].text);
		if (st != QUIRE_OK) {
			char at[32];
			snprintf(at, sizeof(at), "offset %zu: ", off);
			assert_true(strncmp(why, at, strlen(at)) == 0);
		}
		/* The card says the same: refused before or by MLP_LOAD, no model made. */
		struct quire_model *m = (void *)1;
		assert_int_equal(quire_model_load(ctx, img, len, &m), st);
		if (st == QUIRE_OK)
			quire_model_free(m);
		else
			assert_null(m);
	}
	assert_int_equal(
	    quire_model_check(img, QUIRE_MLP_MAX_IMAGE_BYTES + 1, &off, why, sizeof(why)),
	    QUIRE_ERR_SIZE);
	assert_int_equal(quire_model_check(NULL, 4, &off, NULL, 0), QUIRE_ERR_INVALID);
	quire_close(ctx);
	free(img);
	golden_close(&g);
}

static void test_read_file(void **state)
{
	(void)state;
	struct golden g;
	golden_open(&g, "l1_16");
	char path[] = "/tmp/quire-model-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	assert_int_equal(fwrite(g.img, 1, g.ilen - 3, f), g.ilen - 3); /* truncated */
	fclose(f);
	void *img;
	size_t len;
	char why[256];
	assert_int_equal(quire_model_read(path, &img, &len, why, sizeof(why)), QUIRE_ERR_CORRUPT);
	assert_null(img);
	assert_non_null(strstr(why, "truncated"));
	f = fopen(path, "wb");
	assert_int_equal(fwrite(g.img, 1, g.ilen, f), g.ilen);
	fclose(f);
	assert_int_equal(quire_model_read(path, &img, &len, why, sizeof(why)), QUIRE_OK);
	assert_int_equal(len, g.ilen);
	assert_memory_equal(img, g.img, len);
	free(img);
	/* Longer than any image: refused, not cut to size. */
	f = fopen(path, "wb");
	uint8_t *big = calloc(1, QUIRE_MLP_MAX_IMAGE_BYTES + 5);
	assert_int_equal(fwrite(big, 1, QUIRE_MLP_MAX_IMAGE_BYTES + 5, f),
			 QUIRE_MLP_MAX_IMAGE_BYTES + 5);
	fclose(f);
	free(big);
	assert_int_equal(quire_model_read(path, &img, &len, why, sizeof(why)), QUIRE_ERR_SIZE);
	unlink(path);
	assert_int_equal(quire_model_read(path, &img, &len, why, sizeof(why)), QUIRE_ERR_IO);
	assert_non_null(strstr(why, "No such file"));
	golden_close(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden_on_every_backend),
	    cmocka_unit_test(test_score_errors),
	    cmocka_unit_test(test_reload_after_another),
	    cmocka_unit_test(test_corrupt_images),
	    cmocka_unit_test(test_read_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
