// SPDX-License-Identifier: MIT
/*
 * Collectives on simulated cards, all in this process: W sim:inproc cards on
 * one simulated network (a fresh directory), their firmware running the ring
 * all-reduce frame by frame. Checked against references computed here, bit
 * for bit; then timeouts, injected frame loss and corruption, and bad
 * communicator descriptors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"
#include "quire.h"

#define MAX_W 8

struct cluster {
	char dir[64];
	int w;
	struct quire_ctx *ctx[MAX_W];
	struct quire_comm *comm[MAX_W];
	uint16_t addr[MAX_W];
};

/* W cards; faults: "" or ",drop=P" etc., applied to every card. */
static void cluster_up(struct cluster *cl, int w, int timeout_ms, const char *faults)
{
	memset(cl, 0, sizeof(*cl));
	cl->w = w;
	snprintf(cl->dir, sizeof(cl->dir), "/tmp/quire-test-net-XXXXXX");
	assert_non_null(mkdtemp(cl->dir));
	for (int r = 0; r < w; r++) {
		char uri[256];
		snprintf(uri, sizeof(uri), "sim:inproc,net=%s,addr=%d%s", cl->dir, 100 + r,
			 faults ? faults : "");
		assert_int_equal(quire_open(uri, &cl->ctx[r]), QUIRE_OK);
		assert_int_equal(quire_card_address(cl->ctx[r], &cl->addr[r]), QUIRE_OK);
		assert_int_equal(cl->addr[r], 100 + r);
	}
	for (int r = 0; r < w; r++) {
		struct quire_comm_config cfg = {r, w, cl->addr, 7, timeout_ms};
		assert_int_equal(quire_comm_create(cl->ctx[r], &cfg, &cl->comm[r]), QUIRE_OK);
		assert_int_equal(quire_comm_rank(cl->comm[r]), r);
		assert_int_equal(quire_comm_size(cl->comm[r]), w);
	}
}

static void cluster_down(struct cluster *cl)
{
	for (int r = 0; r < cl->w; r++) {
		quire_comm_free(cl->comm[r]);
		quire_close(cl->ctx[r]);
	}
	assert_int_equal(rmdir(cl->dir), 0); /* every port removed its socket */
}

static struct quire_buf *buf_of(struct quire_ctx *ctx, size_t bytes)
{
	struct quire_buf *b;
	assert_int_equal(quire_buf_alloc(ctx, bytes, &b), QUIRE_OK);
	memset(quire_buf_ptr(b), 0, bytes);
	return b;
}

static uint16_t to_half(float f)
{
	uint16_t h;
	assert_int_equal(quire_codec_encode(QUIRE_FMT_FP16, 1, &f, NULL, NULL, NULL, &h), QUIRE_OK);
	return h;
}

static float from_half(uint16_t h)
{
	float f;
	assert_int_equal(quire_codec_decode(QUIRE_FMT_FP16, QUIRE_FMT_FP16, 1, &h, NULL, 1, &f),
			 QUIRE_OK);
	return f;
}

/* The documented ring order: chunk k adds ranks k+1, ..., k; fp16 rounds every hop. */
static void ring_reference(enum quire_format fmt, int mean, int w, size_t n, float *const *x,
			   float *y)
{
	for (int k = 0; k < w; k++) {
		size_t off, len;
		quire_comm_chunk(n, w, k, &off, &len);
		for (size_t i = off; i < off + len; i++) {
			int r0 = (k + 1) % w;
			float s = fmt == QUIRE_FMT_FP16 ? from_half(to_half(x[r0][i])) : x[r0][i];
			for (int j = 1; j < w; j++) {
				float v = x[(k + 1 + j) % w][i];
				if (fmt == QUIRE_FMT_FP16)
					v = from_half(to_half(v));
				s = s + v;
				if (s != s)
					s = f32_of(0x7fc00000u); /* any NaN sum is the one quiet NaN */
				if (fmt == QUIRE_FMT_FP16)
					s = from_half(to_half(s));
			}
			y[i] = mean ? s / (float)w : s;
		}
	}
}

static void reference(enum quire_format fmt, int mean, int w, size_t n, float *const *x, float *y)
{
	if (fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16) {
		const float *in[MAX_W];
		for (int r = 0; r < w; r++)
			in[r] = x[r];
		assert_int_equal(quire_codec_allreduce(fmt, mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM,
						       (uint32_t)w, n, in, NULL, y),
				 QUIRE_OK);
	} else if (fmt == QUIRE_FMT_INT32) {
		for (size_t i = 0; i < n; i++) {
			int64_t s = 0;
			for (int r = 0; r < w; r++)
				s += ((const int32_t *)x[r])[i];
			((int32_t *)y)[i] = (int32_t)s;
		}
	} else {
		ring_reference(fmt, mean, w, n, x, y);
	}
}

static void fill(struct rng *g, enum quire_format fmt, float *x, size_t n)
{
	if (fmt == QUIRE_FMT_INT32) {
		for (size_t i = 0; i < n; i++)
			((int32_t *)x)[i] = (int32_t)(rng_next(g) >> 34) - (1 << 29);
	} else {
		fill_edge_gradients(g, x, n, 1);
	}
}

/* One all-reduce on every card at once; every rank's dst must equal the reference. */
static void check_allreduce(struct cluster *cl, enum quire_format fmt, int mean, size_t n,
			    uint64_t seed)
{
	struct rng g = {seed};
	struct quire_buf *src[MAX_W], *dst[MAX_W];
	struct quire_req *req[MAX_W];
	float *x[MAX_W], *want = malloc(n * 4);
	assert_non_null(want);
	for (int r = 0; r < cl->w; r++) {
		src[r] = buf_of(cl->ctx[r], n * 4);
		dst[r] = buf_of(cl->ctx[r], n * 4);
		x[r] = quire_buf_ptr(src[r]);
		fill(&g, fmt, x[r], n);
	}
	reference(fmt, mean, cl->w, n, x, want);
	for (int r = 0; r < cl->w; r++) {
		struct quire_allreduce_args a = {fmt, mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM, n,
						 {src[r], 0}, {dst[r], 0}, NULL};
		assert_int_equal(quire_allreduce(cl->comm[r], &a, &req[r]), QUIRE_OK);
	}
	for (int r = 0; r < cl->w; r++) {
		int st = quire_wait(req[r], QUIRE_WAIT_DEFAULT);
		if (st != QUIRE_OK)
			fail_msg("W=%d fmt %d n %zu rank %d: %s", cl->w, fmt, n, r, quire_strerror(st));
		quire_req_free(req[r]);
		if (memcmp(quire_buf_ptr(dst[r]), want, n * 4) != 0) {
			const uint32_t *got = quire_buf_ptr(dst[r]), *exp = (const uint32_t *)want;
			size_t i = 0;
			while (got[i] == exp[i])
				i++;
			fail_msg("W=%d fmt %d mean %d n %zu rank %d: element %zu is %08x, not %08x",
				 cl->w, fmt, mean, n, r, i, got[i], exp[i]);
		}
	}
	for (int r = 0; r < cl->w; r++) {
		quire_buf_free(src[r]);
		quire_buf_free(dst[r]);
	}
	free(want);
}

static void test_allreduce_bits(void **state)
{
	(void)state;
	static const int ws[] = {1, 2, 3, 4};
	static const size_t ns[] = {1, 63, 64, 65, 4099, 20000};
	static const enum quire_format fmts[] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16, QUIRE_FMT_FP16,
						 QUIRE_FMT_FP32, QUIRE_FMT_INT32};
	for (size_t wi = 0; wi < sizeof(ws) / sizeof(ws[0]); wi++) {
		struct cluster cl;
		cluster_up(&cl, ws[wi], 5000, NULL);
		for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
			for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
				for (int mean = 0; mean < 2; mean++)
					if (!(mean && fmts[f] == QUIRE_FMT_INT32))
						check_allreduce(&cl, fmts[f], mean, ns[ni],
								1000 * wi + 10 * f + ni);
		cluster_down(&cl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_allreduce_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
