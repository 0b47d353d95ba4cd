// SPDX-License-Identifier: MIT
/*
 * Collectives on simulated cards, all in this process: W sim:inproc cards on
 * one simulated network (a fresh directory), their firmware running the ring
 * all-reduce frame by frame. Checked against references computed here, bit
 * for bit; then timeouts, injected frame loss and corruption (recovered by the
 * link: the same bits), and bad communicator descriptors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "hls/allreduce_golden.h"
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
					s = f32_of(
					    0x7fc00000u); /* any NaN sum is the one quiet NaN */
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
		struct quire_allreduce_args a = {
		    fmt, mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM, n, {src[r], 0}, {dst[r], 0}, NULL};
		assert_int_equal(quire_allreduce(cl->comm[r], &a, &req[r]), QUIRE_OK);
	}
	for (int r = 0; r < cl->w; r++) {
		int st = quire_wait(req[r], QUIRE_WAIT_DEFAULT);
		if (st != QUIRE_OK)
			fail_msg("W=%d fmt %d n %zu rank %d: %s", cl->w, fmt, n, r,
				 quire_strerror(st));
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

/* A communicator of one rank: the all-reduce is the input itself (fp32 sum). */
static void check_one_rank(struct quire_ctx *ctx, struct quire_comm *c)
{
	size_t n = 1000;
	struct quire_buf *x = buf_of(ctx, n * 4), *y = buf_of(ctx, n * 4);
	struct rng g = {9};
	fill(&g, QUIRE_FMT_FP32, quire_buf_ptr(x), n);
	struct quire_allreduce_args a = {QUIRE_FMT_FP32, QUIRE_OP_SUM, n, {x, 0}, {y, 0}, NULL};
	assert_int_equal(quire_allreduce(c, &a, NULL), QUIRE_OK);
	assert_memory_equal(quire_buf_ptr(x), quire_buf_ptr(y), n * 4);
	quire_buf_free(x);
	quire_buf_free(y);
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

/*
 * `steps` requantized all-reduces (QUIRE_COMM_OPT_REQUANT, set here on every rank) with
 * error feedback, each of new data, against the golden model (hls/allreduce_golden.c):
 * every rank's result, worker residual and owner residual, to the bit. From the second
 * step on, the owner residual must matter: the golden model without it differs.
 */
static void check_requant(struct cluster *cl, enum quire_format fmt, int mean, size_t n, int steps,
			  uint64_t seed)
{
	int w = cl->w;
	struct rng g = {seed};
	struct quire_buf *src[MAX_W], *dst[MAX_W];
	struct quire_ef *ef[MAX_W];
	struct quire_req *req[MAX_W];
	float *x[MAX_W], *gr[MAX_W], *go[MAX_W], *gr2[MAX_W], *got = malloc(n * 4);
	float *want = malloc(n * 4), *plain = malloc(n * 4);
	void *scratch =
	    aligned_alloc(8, (size_t)quire_golden_scratch_bytes((uint32_t)w, (uint32_t)n) + 8);
	assert_true(want && plain && got && scratch);
	for (int r = 0; r < w; r++) {
		assert_int_equal(quire_comm_set_options(cl->comm[r], QUIRE_COMM_OPT_REQUANT),
				 QUIRE_OK);
		assert_int_equal(quire_ef_create(cl->ctx[r], n, &ef[r]), QUIRE_OK);
		src[r] = buf_of(cl->ctx[r], n * 4);
		dst[r] = buf_of(cl->ctx[r], n * 4);
		x[r] = quire_buf_ptr(src[r]);
		gr[r] = calloc(n, 4);
		go[r] = calloc(n, 4);
		gr2[r] = calloc(n, 4);
	}
	for (int step = 0; step < steps; step++) {
		for (int r = 0; r < w; r++) {
			fill(&g, fmt, x[r], n);
			memcpy(gr2[r], gr[r], n * 4);
		}
		/* Gradients of the ranks alike, mostly, as in training: sums that need more
		 * bits than one rank's values, which requantization must round. */
		for (int r = 1; r < w; r++)
			for (size_t i = 0; i < n; i++)
				if (rng_below(&g, 4))
					x[r][i] = x[0][i] * (1.0f - 0.0625f * (float)r);
		/* The same step with the owners' residuals at zero: what no owner EF gives. */
		assert_int_equal(quire_golden_allreduce(fmt, mean, (uint32_t)w, (uint32_t)n, 1,
							(const float *const *)x, gr2, NULL, plain,
							scratch),
				 QUIRE_OK);
		assert_int_equal(quire_golden_allreduce(fmt, mean, (uint32_t)w, (uint32_t)n, 1,
							(const float *const *)x, gr, go, want,
							scratch),
				 QUIRE_OK);
		/* (One rank's values requantize exactly: its own sums need no more bits.) */
		if (step > 0 && n > 4096 && w > 1 && memcmp(want, plain, n * 4) == 0)
			fail_msg("W=%d n %zu step %d: the owner residual changed nothing", w, n,
				 step);
		for (int r = 0; r < w; r++) {
			struct quire_allreduce_args a = {
			    fmt,  mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM, n, {src[r], 0}, {dst[r], 0},
			    ef[r]};
			assert_int_equal(quire_allreduce(cl->comm[r], &a, &req[r]), QUIRE_OK);
		}
		for (int r = 0; r < w; r++) {
			int st = quire_wait(req[r], QUIRE_WAIT_DEFAULT);
			quire_req_free(req[r]);
			if (st != QUIRE_OK)
				fail_msg("W=%d n %zu rank %d: %s", w, n, r, quire_strerror(st));
			if (memcmp(quire_buf_ptr(dst[r]), want, n * 4) != 0)
				fail_msg(
				    "W=%d fmt %d mean %d n %zu step %d rank %d: not the golden "
				    "model's bits",
				    w, fmt, mean, n, step, r);
			assert_int_equal(quire_ef_read(ef[r], got, n), QUIRE_OK);
			assert_memory_equal(got, gr[r], n * 4);
			size_t off, len;
			quire_comm_chunk(n, w, r, &off, &len);
			assert_int_equal(quire_ef_owner_len(ef[r]), len);
			assert_int_equal(quire_ef_read_owner(ef[r], got, len), QUIRE_OK);
			assert_memory_equal(got, go[r], len * 4);
		}
	}
	for (int r = 0; r < w; r++) {
		assert_int_equal(quire_comm_set_options(cl->comm[r], 0), QUIRE_OK);
		quire_ef_free(ef[r]);
		quire_buf_free(src[r]);
		quire_buf_free(dst[r]);
		free(gr[r]);
		free(go[r]);
		free(gr2[r]);
	}
	free(want);
	free(plain);
	free(got);
	free(scratch);
}

/* The requantized all-gather on cards, W = 1, 2, 3, 4, 8: the golden model's bits. */
static void test_requant_bits(void **state)
{
	(void)state;
	static const int ws[] = {1, 2, 3, 4, 8};
	static const size_t ns[] = {1, 65, 4099, 70001};
	for (size_t wi = 0; wi < sizeof(ws) / sizeof(ws[0]); wi++) {
		struct cluster cl;
		cluster_up(&cl, ws[wi], 5000, NULL);
		for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
			for (int mean = 0; mean < 2; mean++)
				check_requant(&cl, QUIRE_FMT_BFP8, mean, ns[ni], 2,
					      100 * wi + 10 * ni + (size_t)mean);
		check_requant(&cl, QUIRE_FMT_BFP16, 1, 4099, 2, 7 + wi);
		cluster_down(&cl);
	}
}

/* op on the card: its status, and the field it is about in *detail. */
static int run_detail(struct quire_ctx *ctx, const struct quire_op *op, uint32_t *detail)
{
	struct quire_req *req;
	int st = quire_submit(ctx, op, &req);
	*detail = QUIRE_DETAIL_NONE;
	if (st)
		return st;
	st = quire_wait(req, QUIRE_WAIT_DEFAULT);
	*detail = quire_req_detail(req);
	quire_req_free(req);
	return st;
}

/* Requantized descriptors refused, raw: the flag where it has no meaning (fp32,
 * reduce-scatter), a stride beyond count, and another idea of the member's segment. */
static void test_requant_descriptors_refused(void **state)
{
	(void)state;
	struct cluster cl;
	cluster_up(&cl, 2, 1000, NULL);
	struct quire_buf *x = buf_of(cl.ctx[0], 4096), *y = buf_of(cl.ctx[0], 4096);
	struct quire_op op = {.opcode = QUIRE_OPC_ALLREDUCE,
			      .flags = QUIRE_CMD_F_REQUANT,
			      .format = QUIRE_FMT_FP32,
			      .count = 128,
			      .workers = 7,
			      .src = {x, 0},
			      .dst = {y, 0},
			      .stride = 64};
	assert_int_equal(quire_run(cl.ctx[0], &op, NULL), QUIRE_ERR_INVALID);
	op.format = QUIRE_FMT_BFP8;
	op.opcode = QUIRE_OPC_REDUCE_SCATTER;
	assert_int_equal(quire_run(cl.ctx[0], &op, NULL), QUIRE_ERR_INVALID);
	op.opcode = QUIRE_OPC_ALLREDUCE;
	op.stride = 129; /* more than count */
	assert_int_equal(quire_run(cl.ctx[0], &op, NULL), QUIRE_ERR_SIZE);
	op.stride = 128; /* this member's segment is 64 elements: the card says so */
	uint32_t detail;
	assert_int_equal(run_detail(cl.ctx[0], &op, &detail), QUIRE_ERR_SIZE);
	assert_int_equal(detail, QUIRE_DETAIL_STRIDE);
	quire_buf_free(x);
	quire_buf_free(y);
	cluster_down(&cl);
}

/* One rank without the option: every rank fails QUIRE_ERR_MISMATCH, and none of the
 * residuals moved. */
static void test_requant_mismatch(void **state)
{
	(void)state;
	static const int ws[] = {2, 4};
	size_t n = 5000;
	for (size_t wi = 0; wi < 2; wi++) {
		int w = ws[wi];
		struct cluster cl;
		cluster_up(&cl, w, 2000, NULL);
		struct quire_buf *x[4];
		struct quire_ef *ef[4];
		struct quire_req *req[4];
		struct rng g = {3};
		for (int r = 0; r < w; r++) {
			x[r] = buf_of(cl.ctx[r], n * 4);
			fill(&g, QUIRE_FMT_BFP8, quire_buf_ptr(x[r]), n);
			assert_int_equal(quire_ef_create(cl.ctx[r], n, &ef[r]), QUIRE_OK);
			if (r != 1)
				assert_int_equal(
				    quire_comm_set_options(cl.comm[r], QUIRE_COMM_OPT_REQUANT),
				    QUIRE_OK);
		}
		for (int r = 0; r < w; r++) {
			struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_MEAN, n,
							 {x[r], 0},      {x[r], 0},     ef[r]};
			assert_int_equal(quire_allreduce(cl.comm[r], &a, &req[r]), QUIRE_OK);
		}
		float *res = malloc(n * 4);
		for (int r = 0; r < w; r++) {
			int st = quire_wait(req[r], QUIRE_WAIT_DEFAULT);
			if (st != QUIRE_ERR_MISMATCH)
				fail_msg("W=%d rank %d: %s, not a mismatch", w, r,
					 quire_strerror(st));
			quire_req_free(req[r]);
			assert_int_equal(quire_ef_read(ef[r], res, n), QUIRE_OK);
			for (size_t i = 0; i < n; i++)
				assert_true(res[i] == 0);
			quire_ef_free(ef[r]);
			quire_buf_free(x[r]);
		}
		free(res);
		cluster_down(&cl);
	}
	struct quire_comm *self;
	struct quire_ctx *cpu;
	assert_int_equal(quire_open("cpu", &cpu), QUIRE_OK);
	assert_int_equal(quire_comm_self(cpu, &self), QUIRE_OK);
	assert_int_equal(quire_comm_set_options(self, 0x2), QUIRE_ERR_INVALID);
	assert_int_equal(quire_comm_set_options(NULL, 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_comm_options(self), 0);
	quire_comm_free(self);
	quire_close(cpu);
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Rank `absent` leaves its communicator (its card no longer answers for it): the others
 * fail with a timeout near the limit, inputs intact, and the communicator then refuses
 * work until it is made again. */
static void test_timeout(void **state)
{
	(void)state;
	struct cluster cl;
	const int w = 3, absent = 2, limit = 300;
	size_t n = 5000;
	cluster_up(&cl, w, limit, NULL);
	struct quire_buf *src[3], *dst[3];
	struct quire_req *req[3];
	struct rng g = {5};
	for (int r = 0; r < w; r++) {
		src[r] = buf_of(cl.ctx[r], n * 4);
		dst[r] = buf_of(cl.ctx[r], n * 4);
		fill(&g, QUIRE_FMT_BFP8, quire_buf_ptr(src[r]), n);
	}
	float *copy = malloc(n * 4);
	memcpy(copy, quire_buf_ptr(src[0]), n * 4);
	quire_comm_free(cl.comm[absent]);
	cl.comm[absent] = NULL;
	int64_t t0 = now_ms();
	for (int r = 0; r < w; r++) {
		if (r == absent)
			continue;
		struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_SUM, n,
						 {src[r], 0},    {dst[r], 0},  NULL};
		assert_int_equal(quire_allreduce(cl.comm[r], &a, &req[r]), QUIRE_OK);
	}
	for (int r = 0; r < w; r++) {
		if (r == absent)
			continue;
		assert_int_equal(quire_wait(req[r], QUIRE_WAIT_DEFAULT), QUIRE_ERR_TIMEOUT);
		assert_int_equal(quire_req_detail(req[r]), QUIRE_DETAIL_NET);
		quire_req_free(req[r]);
	}
	int64_t took = now_ms() - t0;
	/* The absent rank's neighbours give up one communicator timeout after they last heard
	 * of it, and tell the others: a few timeouts, and as many again as a margin. */
	assert_true(took >= limit / 2 && took < 8 * limit);
	assert_memory_equal(quire_buf_ptr(src[0]), copy, n * 4);
	/* The failed communicator says so at once. */
	assert_int_equal(quire_barrier(cl.comm[0], NULL), QUIRE_ERR_PEER);
	for (int r = 0; r < w; r++) {
		quire_buf_free(src[r]);
		quire_buf_free(dst[r]);
	}
	free(copy);
	cluster_down(&cl);
}

/* A live rank that comes late, three timeouts after the others, fails nothing: its card's
 * keepalives tell the next one it is there. The same bits on every rank. */
static void test_late_rank(void **state)
{
	(void)state;
	struct cluster cl;
	const int w = 3, late = 1, limit = 200;
	size_t n = 4099;
	cluster_up(&cl, w, limit, NULL);
	struct quire_buf *src[3], *dst[3];
	struct quire_req *req[3];
	struct rng g = {9};
	for (int r = 0; r < w; r++) {
		src[r] = buf_of(cl.ctx[r], n * 4);
		dst[r] = buf_of(cl.ctx[r], n * 4);
		fill(&g, QUIRE_FMT_BFP8, quire_buf_ptr(src[r]), n);
	}
	/* The others first; the late rank's part only three timeouts after theirs are in flight.
	 * Theirs cannot end without it, so all that time they wait on it; still in flight
	 * afterwards (none failed) is what shows the keepalives held them. */
	for (int k = 0; k <= w; k++) {
		int r = k < w ? k : late;
		if (k == late)
			continue;
		if (k == w) {
			nanosleep(&(struct timespec){0, 3 * limit * 1000000L}, NULL);
			for (int o = 0; o < w; o++)
				if (o != late)
					assert_int_equal(quire_test(req[o]), QUIRE_ERR_BUSY);
		}
		struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_SUM, n,
						 {src[r], 0},    {dst[r], 0},  NULL};
		assert_int_equal(quire_allreduce(cl.comm[r], &a, &req[r]), QUIRE_OK);
	}
	for (int r = 0; r < w; r++) {
		assert_int_equal(quire_wait(req[r], QUIRE_WAIT_DEFAULT), QUIRE_OK);
		quire_req_free(req[r]);
	}
	for (int r = 1; r < w; r++)
		assert_memory_equal(quire_buf_ptr(dst[r]), quire_buf_ptr(dst[0]), n * 4);
	for (int r = 0; r < w; r++) {
		quire_buf_free(src[r]);
		quire_buf_free(dst[r]);
	}
	cluster_down(&cl);
}

/*
 * `rounds` all-reduces through a lossy network (faults: a URI tail), each of new data: every
 * one must complete on every rank with exactly the loss-free answer (the link sends what was
 * lost or damaged again), and the cards must have sent something again.
 */
static void lossy_network(const char *faults, int rounds, enum quire_format fmt)
{
	struct cluster cl;
	const int w = 3;
	size_t n = 100000; /* 13 frames per rank and step: enough to be hit */
	cluster_up(&cl, w, 2000, faults);
	struct quire_buf *src[3], *dst[3];
	struct quire_req *req[3];
	float *x[3], *want = malloc(n * 4);
	struct rng g = {11};
	for (int r = 0; r < w; r++) {
		src[r] = buf_of(cl.ctx[r], n * 4);
		dst[r] = buf_of(cl.ctx[r], n * 4);
		x[r] = quire_buf_ptr(src[r]);
	}
	for (int round = 0; round < rounds; round++) {
		for (int r = 0; r < w; r++)
			fill(&g, fmt, x[r], n);
		reference(fmt, 0, w, n, x, want);
		for (int r = 0; r < w; r++) {
			struct quire_allreduce_args a = {fmt,         QUIRE_OP_SUM, n,
							 {src[r], 0}, {dst[r], 0},  NULL};
			assert_int_equal(quire_allreduce(cl.comm[r], &a, &req[r]), QUIRE_OK);
		}
		for (int r = 0; r < w; r++) {
			int st = quire_wait(req[r], QUIRE_WAIT_DEFAULT);
			quire_req_free(req[r]);
			if (st != QUIRE_OK)
				fail_msg("round %d rank %d: %s", round, r, quire_strerror(st));
			assert_memory_equal(quire_buf_ptr(dst[r]), want, n * 4);
		}
	}
	uint64_t again = 0;
	for (int r = 0; r < w; r++) {
		struct quire_info in;
		assert_int_equal(quire_get_info(cl.ctx[r], &in), QUIRE_OK);
		assert_true(in.net.tx_frames > 0 && in.net.tx_bytes > 0);
		assert_int_equal(in.net.rx_errors, 0); /* no damaged frame reached a port */
		again += in.net.retransmits;
	}
	assert_true(again > 0); /* with 1-5% loss over thousands of frames, some went again */
	for (int r = 0; r < w; r++) {
		quire_buf_free(src[r]);
		quire_buf_free(dst[r]);
	}
	free(want);
	cluster_down(&cl);
}

/* 50 bfp8 all-reduces through 1% loss and 1% corruption: the bits of a loss-free run. */
static void test_loss_recovered(void **state)
{
	(void)state;
	lossy_network(",drop=0.01,corrupt=0.01,seed=3", 50, QUIRE_FMT_BFP8);
}

/* Heavier loss, and fp32, whose bits depend on the order of every addition. */
static void test_heavy_loss_recovered(void **state)
{
	(void)state;
	lossy_network(",drop=0.05,corrupt=0.05,seed=4", 6, QUIRE_FMT_FP32);
}

/* Communicator descriptors the card refuses, and one-rank communicators. */
static void test_comm_init_refused(void **state)
{
	(void)state;
	struct cluster cl;
	cluster_up(&cl, 2, 1000, NULL);
	struct quire_comm *c = NULL;
	uint16_t wrong[2] = {cl.addr[1], cl.addr[0]}; /* rank 0 is not card 0 */
	struct quire_comm_config bad = {0, 2, wrong, 9, 1000};
	assert_int_equal(quire_comm_create(cl.ctx[0], &bad, &c), QUIRE_ERR_INVALID);
	assert_null(c);
	struct quire_comm_config dup = {0, 2, cl.addr, 7, 1000}; /* id 7 is in use */
	assert_int_equal(quire_comm_create(cl.ctx[0], &dup, &c), QUIRE_ERR_BUSY);
	struct quire_comm_config nosize = {0, 0, cl.addr, 9, 1000};
	assert_int_equal(quire_comm_create(cl.ctx[0], &nosize, &c), QUIRE_ERR_INVALID);
	struct quire_comm_config noid = {0, 2, cl.addr, 0, 1000};
	assert_int_equal(quire_comm_create(cl.ctx[0], &noid, &c), QUIRE_ERR_INVALID);
	struct quire_ctx *cpu;
	assert_int_equal(quire_open("cpu", &cpu), QUIRE_OK);
	struct quire_comm_config ok = {0, 2, cl.addr, 9, 1000};
	assert_int_equal(quire_comm_create(cpu, &ok, &c), QUIRE_ERR_NOT_SUPPORTED);
	uint16_t a;
	assert_int_equal(quire_card_address(cpu, &a), QUIRE_ERR_NOT_SUPPORTED);
	quire_close(cpu);
	/* Four communicators fit a card; the fifth is refused, freeing one makes room. */
	struct quire_comm *more[4] = {0};
	for (int i = 0; i < 3; i++) {
		struct quire_comm_config one = {0, 1, &cl.addr[0], (uint16_t)(20 + i), 0};
		assert_int_equal(quire_comm_create(cl.ctx[0], &one, &more[i]), QUIRE_OK);
	}
	struct quire_comm_config fifth = {0, 1, &cl.addr[0], 30, 0};
	assert_int_equal(quire_comm_create(cl.ctx[0], &fifth, &more[3]), QUIRE_ERR_NOMEM);
	quire_comm_free(more[0]);
	assert_int_equal(quire_comm_create(cl.ctx[0], &fifth, &more[3]), QUIRE_OK);
	/* A one-rank communicator runs alone: its sum is its input, via the card. */
	check_one_rank(cl.ctx[0], more[3]);
	for (int i = 1; i < 4; i++)
		quire_comm_free(more[i]);
	cluster_down(&cl);
}

/* Error feedback on cards: the residual advances only when the collective succeeds. */
static void test_error_feedback(void **state)
{
	(void)state;
	struct cluster cl;
	const int w = 2;
	size_t n = 4099;
	cluster_up(&cl, w, 2000, NULL);
	struct quire_ef *ef[2];
	struct quire_buf *src[2], *dst[2];
	float *resid[2], *x[2], *want = malloc(n * 4);
	for (int r = 0; r < w; r++) {
		assert_int_equal(quire_ef_create(cl.ctx[r], n, &ef[r]), QUIRE_OK);
		src[r] = buf_of(cl.ctx[r], n * 4);
		dst[r] = buf_of(cl.ctx[r], n * 4);
		x[r] = quire_buf_ptr(src[r]);
		resid[r] = calloc(n, 4);
	}
	struct rng g = {21};
	for (int step = 0; step < 3; step++) {
		struct quire_req *req[2];
		for (int r = 0; r < w; r++)
			fill(&g, QUIRE_FMT_BFP8, x[r], n);
		assert_int_equal(quire_codec_allreduce(QUIRE_FMT_BFP8, QUIRE_OP_MEAN, (uint32_t)w,
						       n, (const float *const *)x, resid, want),
				 QUIRE_OK);
		for (int r = 0; r < w; r++) {
			struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_MEAN, n,
							 {src[r], 0},    {dst[r], 0},   ef[r]};
			assert_int_equal(quire_allreduce(cl.comm[r], &a, &req[r]), QUIRE_OK);
		}
		for (int r = 0; r < w; r++) {
			assert_int_equal(quire_wait(req[r], QUIRE_WAIT_DEFAULT), QUIRE_OK);
			quire_req_free(req[r]);
			assert_memory_equal(quire_buf_ptr(dst[r]), want, n * 4);
		}
	}
	/* A size that is not the state's: refused before anything moves. */
	struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_MEAN, n - 1,
					 {src[0], 0},    {dst[0], 0},   ef[0]};
	assert_int_equal(quire_allreduce(cl.comm[0], &a, NULL), QUIRE_ERR_SIZE);
	for (int r = 0; r < w; r++) {
		quire_ef_free(ef[r]);
		quire_buf_free(src[r]);
		quire_buf_free(dst[r]);
		free(resid[r]);
	}
	free(want);
	cluster_down(&cl);
}

static void test_barrier(void **state)
{
	(void)state;
	struct cluster cl;
	const int w = 3;
	cluster_up(&cl, w, 2000, NULL);
	struct quire_req *req[3];
	for (int r = 0; r < w; r++)
		assert_int_equal(quire_barrier(cl.comm[r], &req[r]), QUIRE_OK);
	for (int r = 0; r < w; r++) {
		assert_int_equal(quire_wait(req[r], QUIRE_WAIT_DEFAULT), QUIRE_OK);
		quire_req_free(req[r]);
	}
	/* A barrier one rank has not reached yet is not done. */
	assert_int_equal(quire_barrier(cl.comm[0], &req[0]), QUIRE_OK);
	assert_int_equal(quire_barrier(cl.comm[1], &req[1]), QUIRE_OK);
	assert_int_equal(quire_wait(req[0], 100), QUIRE_ERR_TIMEOUT);
	assert_int_equal(quire_test(req[1]), QUIRE_ERR_BUSY);
	assert_int_equal(quire_barrier(cl.comm[2], &req[2]), QUIRE_OK);
	for (int r = 0; r < w; r++) {
		assert_int_equal(quire_wait(req[r], QUIRE_WAIT_DEFAULT), QUIRE_OK);
		quire_req_free(req[r]);
	}
	cluster_down(&cl);
}

/* b random bytes a rank, in src[r] and rank by rank in `all`, all-gathered into dst[r]
 * (b x W bytes) on every card at once: every dst must be `all`. */
static void check_allgather(struct cluster *cl, struct rng *g, size_t b, struct quire_buf **src,
			    struct quire_buf **dst, uint8_t *all)
{
	struct quire_req *req[MAX_W];
	assert_non_null(all);
	for (int r = 0; r < cl->w; r++) {
		src[r] = buf_of(cl->ctx[r], b);
		dst[r] = buf_of(cl->ctx[r], b * cl->w);
		for (size_t i = 0; i < b; i++)
			all[r * b + i] = ((uint8_t *)quire_buf_ptr(src[r]))[i] =
			    (uint8_t)rng_next(g);
	}
	for (int r = 0; r < cl->w; r++)
		assert_int_equal(quire_allgather(cl->comm[r], (struct quire_ref){src[r], 0},
						 (struct quire_ref){dst[r], 0}, b, &req[r]),
				 QUIRE_OK);
	for (int r = 0; r < cl->w; r++) {
		int st = quire_wait(req[r], QUIRE_WAIT_DEFAULT);
		if (st != QUIRE_OK)
			fail_msg("W=%d all-gather of %zu bytes a member, rank %d: %s", cl->w, b, r,
				 quire_strerror(st));
		quire_req_free(req[r]);
		assert_memory_equal(quire_buf_ptr(dst[r]), all, b * cl->w);
	}
}

/* All-gather and broadcast of bytes (odd sizes, several frames), reduce-scatter of each format,
 * all in flight at once on every card. */
static void test_gather_broadcast_scatter(void **state)
{
	(void)state;
	static const size_t sizes[] = {1, 4099, 200001};
	struct cluster cl;
	const int w = 4;
	cluster_up(&cl, w, 2000, NULL);
	struct rng g = {31};
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t b = sizes[si];
		struct quire_buf *src[4], *dst[4];
		struct quire_req *req[4];
		uint8_t *all = malloc(b * w);
		check_allgather(&cl, &g, b, src, dst, all);
		for (int root = 0; root < w; root++) { /* dst's first b bytes as the buffer */
			for (int r = 0; r < w; r++)
				memcpy(quire_buf_ptr(dst[r]), r == root ? all + r * b : all, b);
			for (int r = 0; r < w; r++)
				assert_int_equal(quire_broadcast(cl.comm[r],
								 (struct quire_ref){dst[r], 0}, b,
								 root, &req[r]),
						 QUIRE_OK);
			for (int r = 0; r < w; r++) {
				assert_int_equal(quire_wait(req[r], QUIRE_WAIT_DEFAULT), QUIRE_OK);
				quire_req_free(req[r]);
				assert_memory_equal(quire_buf_ptr(dst[r]), all + root * b, b);
			}
		}
		for (int r = 0; r < w; r++) {
			quire_buf_free(src[r]);
			quire_buf_free(dst[r]);
		}
		free(all);
	}
	/* Reduce-scatter: each rank's chunk of the all-reduce's answer. */
	static const enum quire_format fmts[] = {QUIRE_FMT_BFP8, QUIRE_FMT_FP16, QUIRE_FMT_FP32,
						 QUIRE_FMT_INT32};
	size_t n = 70001;
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		struct quire_buf *src[4], *dst[4];
		struct quire_req *req[4];
		float *x[4], *want = malloc(n * 4);
		for (int r = 0; r < w; r++) {
			src[r] = buf_of(cl.ctx[r], n * 4);
			dst[r] = buf_of(cl.ctx[r], n * 4);
			x[r] = quire_buf_ptr(src[r]);
			fill(&g, fmts[f], x[r], n);
		}
		reference(fmts[f], 0, w, n, x, want);
		for (int r = 0; r < w; r++) {
			struct quire_allreduce_args a = {fmts[f],     QUIRE_OP_SUM, n,
							 {src[r], 0}, {dst[r], 0},  NULL};
			assert_int_equal(quire_reduce_scatter(cl.comm[r], &a, &req[r]), QUIRE_OK);
		}
		for (int r = 0; r < w; r++) {
			size_t off, len;
			quire_comm_chunk(n, w, r, &off, &len);
			assert_int_equal(quire_wait(req[r], QUIRE_WAIT_DEFAULT), QUIRE_OK);
			quire_req_free(req[r]);
			assert_memory_equal(quire_buf_ptr(dst[r]), want + off, len * 4);
			quire_buf_free(src[r]);
			quire_buf_free(dst[r]);
		}
		free(want);
	}
	cluster_down(&cl);
}

/*
 * Collectives whose step sends more frames than a card's receive ring holds (32 of 64 KiB):
 * members that all send to one another must still receive while they send, and never stand
 * each other off on full receive rings, whatever the size. fp32 on 2 cards (8 MiB and a
 * a part of a frame: 65 frames a step), on 3 cards with segments of unequal size, bfp8 (the
 * exponent pass first, then int8 and int16 frames), and an all-gather of 3 MiB a member.
 */
static void test_large_collectives(void **state)
{
	(void)state;
	static const struct {
		int w;
		enum quire_format fmt;
		int mean;
		size_t n;
	} runs[] = {
	    {2, QUIRE_FMT_FP32, 0, (8u << 20) / 4 + 4099},
	    {3, QUIRE_FMT_FP32, 1, 3000001},
	    {2, QUIRE_FMT_BFP8, 0, (12u << 20) / 4 + 65},
	};
	struct cluster cl;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		cluster_up(&cl, runs[i].w, 3000, NULL);
		check_allreduce(&cl, runs[i].fmt, runs[i].mean, runs[i].n, 77 + i);
		cluster_down(&cl);
	}
	const int w = 2;
	size_t b = (3u << 20) + 5;
	cluster_up(&cl, w, 3000, NULL);
	struct quire_buf *src[2], *dst[2];
	uint8_t *all = malloc(b * w);
	struct rng g = {41};
	check_allgather(&cl, &g, b, src, dst, all);
	for (int r = 0; r < w; r++) {
		quire_buf_free(src[r]);
		quire_buf_free(dst[r]);
	}
	free(all);
	cluster_down(&cl);
}

/* Descriptors of collectives the card refuses: the host's idea of the segment, the root,
 * the gathered size. Raw descriptors, since libquire would not send them. */
static void test_collective_descriptors_refused(void **state)
{
	(void)state;
	struct cluster cl;
	cluster_up(&cl, 2, 1000, NULL);
	struct quire_buf *x = buf_of(cl.ctx[0], 4096), *y = buf_of(cl.ctx[0], 4096);
	struct quire_buf *x1 = buf_of(cl.ctx[1], 4096), *y1 = buf_of(cl.ctx[1], 4096);
	struct quire_op rs = {.opcode = QUIRE_OPC_REDUCE_SCATTER,
			      .format = QUIRE_FMT_FP32,
			      .count = 128,
			      .workers = 7,
			      .src = {x, 0},
			      .dst = {y, 0},
			      .stride = 128}; /* this member's segment is 64 elements, not 128 */
	assert_int_equal(quire_run(cl.ctx[0], &rs, NULL), QUIRE_ERR_SIZE);
	/* That failed the communicator on card 0 (its members may disagree now). */
	assert_int_equal(quire_barrier(cl.comm[0], NULL), QUIRE_ERR_PEER);
	struct quire_comm_config cfg0 = {0, 2, cl.addr, 8, 1000}, cfg1 = {1, 2, cl.addr, 8, 1000};
	struct quire_comm *c0, *c1;
	assert_int_equal(quire_comm_create(cl.ctx[0], &cfg0, &c0), QUIRE_OK);
	assert_int_equal(quire_comm_create(cl.ctx[1], &cfg1, &c1), QUIRE_OK);
	struct quire_op bc = {.opcode = QUIRE_OPC_BROADCAST,
			      .count = 100,
			      .workers = 8,
			      .dst = {y, 0},
			      .stride = 2}; /* root 2 of 2 members */
	assert_int_equal(quire_run(cl.ctx[0], &bc, NULL), QUIRE_ERR_RANGE);
	struct quire_op ag = {.opcode = QUIRE_OPC_ALLGATHER,
			      .count = 100,
			      .workers = 7,
			      .src = {x, 0},
			      .dst = {y, 0},
			      .stride = 300}; /* 3 members' worth for 2 */
	assert_int_equal(quire_run(cl.ctx[1], &ag, NULL), QUIRE_ERR_INVALID); /* ctx 0's buffers */
	ag.src = (struct quire_ref){x1, 0};
	ag.dst = (struct quire_ref){y1, 0};
	assert_int_equal(quire_run(cl.ctx[1], &ag, NULL), QUIRE_ERR_SIZE);
	ag.stride = 250; /* not a whole number of members */
	assert_int_equal(quire_run(cl.ctx[1], &ag, NULL), QUIRE_ERR_SIZE);
	quire_comm_free(c0);
	quire_comm_free(c1);
	quire_buf_free(x);
	quire_buf_free(y);
	quire_buf_free(x1);
	quire_buf_free(y1);
	cluster_down(&cl);
}

/* Two communicators over the same cards in opposite ring orders, their all-reduces queued
 * back to back on every card: a card done with the first sends frames of the second to one
 * still in the first; the port keeps them apart and both answers are exact. */
static void test_two_communicators(void **state)
{
	(void)state;
	struct cluster cl;
	const int w = 3;
	size_t n = 150000;
	cluster_up(&cl, w, 2000, NULL);
	uint16_t rev[3] = {cl.addr[2], cl.addr[1], cl.addr[0]};
	struct quire_comm *b[3];
	for (int r = 0; r < w; r++) {
		struct quire_comm_config cfg = {w - 1 - r, w, rev, 9, 2000};
		assert_int_equal(quire_comm_create(cl.ctx[r], &cfg, &b[r]), QUIRE_OK);
	}
	struct rng g = {41};
	struct quire_buf *src[3], *da[3], *db[3];
	struct quire_req *ra[3], *rb[3];
	float *x[3], *xr[3], *want_a = malloc(n * 4), *want_b = malloc(n * 4);
	for (int r = 0; r < w; r++) {
		src[r] = buf_of(cl.ctx[r], n * 4);
		da[r] = buf_of(cl.ctx[r], n * 4);
		db[r] = buf_of(cl.ctx[r], n * 4);
		x[r] = quire_buf_ptr(src[r]);
		fill(&g, QUIRE_FMT_FP32, x[r], n);
	}
	for (int r = 0; r < w; r++)
		xr[r] = x[w - 1 - r]; /* communicator b's rank r is card w-1-r */
	reference(QUIRE_FMT_FP32, 0, w, n, x, want_a);
	reference(QUIRE_FMT_FP32, 0, w, n, xr, want_b);
	for (int r = 0; r < w; r++) {
		struct quire_allreduce_args a = {QUIRE_FMT_FP32, QUIRE_OP_SUM, n,
						 {src[r], 0},    {da[r], 0},   NULL};
		assert_int_equal(quire_allreduce(cl.comm[r], &a, &ra[r]), QUIRE_OK);
		a.dst = (struct quire_ref){db[r], 0};
		assert_int_equal(quire_allreduce(b[r], &a, &rb[r]), QUIRE_OK);
	}
	for (int r = 0; r < w; r++) {
		assert_int_equal(quire_wait(ra[r], QUIRE_WAIT_DEFAULT), QUIRE_OK);
		assert_int_equal(quire_wait(rb[r], QUIRE_WAIT_DEFAULT), QUIRE_OK);
		quire_req_free(ra[r]);
		quire_req_free(rb[r]);
		assert_memory_equal(quire_buf_ptr(da[r]), want_a, n * 4);
		assert_memory_equal(quire_buf_ptr(db[r]), want_b, n * 4);
		quire_buf_free(src[r]);
		quire_buf_free(da[r]);
		quire_buf_free(db[r]);
		quire_comm_free(b[r]);
	}
	free(want_a);
	free(want_b);
	cluster_down(&cl);
}

/* Members that disagree (one asks for another length, one for a barrier) fail, never hang. */
static void test_members_disagree(void **state)
{
	(void)state;
	struct cluster cl;
	const int w = 3;
	cluster_up(&cl, w, 500, NULL);
	struct quire_buf *x[3];
	struct quire_req *req[3];
	for (int r = 0; r < w; r++)
		x[r] = buf_of(cl.ctx[r], 40000 * 4);
	for (int r = 0; r < w; r++) {
		size_t n = r == 1 ? 39000 : 40000;
		struct quire_allreduce_args a = {QUIRE_FMT_FP32, QUIRE_OP_SUM, n,
						 {x[r], 0},      {x[r], 0},    NULL};
		assert_int_equal(quire_allreduce(cl.comm[r], &a, &req[r]), QUIRE_OK);
	}
	for (int r = 0; r < w; r++) {
		int st = quire_wait(req[r], QUIRE_WAIT_DEFAULT);
		assert_true(st == QUIRE_ERR_LINK || st == QUIRE_ERR_TIMEOUT);
		quire_req_free(req[r]);
	}
	/* Made again, one rank calls a barrier where the others all-reduce. */
	for (int r = 0; r < w; r++) {
		quire_comm_free(cl.comm[r]);
		struct quire_comm_config cfg = {r, w, cl.addr, 8, 500};
		assert_int_equal(quire_comm_create(cl.ctx[r], &cfg, &cl.comm[r]), QUIRE_OK);
	}
	for (int r = 0; r < w; r++) {
		struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_SUM, 40000,
						 {x[r], 0},      {x[r], 0},    NULL};
		assert_int_equal(r == 2 ? quire_barrier(cl.comm[r], &req[r])
					: quire_allreduce(cl.comm[r], &a, &req[r]),
				 QUIRE_OK);
	}
	for (int r = 0; r < w; r++) {
		int st = quire_wait(req[r], QUIRE_WAIT_DEFAULT);
		assert_true(st == QUIRE_ERR_LINK || st == QUIRE_ERR_TIMEOUT);
		quire_req_free(req[r]);
		quire_buf_free(x[r]);
	}
	cluster_down(&cl);
}

/* The bytes the ports count are the model's (quire_allreduce_wire_bytes), to the byte. */
static void test_wire_bytes_counted(void **state)
{
	(void)state;
	static const enum quire_format fmts[] = {QUIRE_FMT_FP32, QUIRE_FMT_FP16, QUIRE_FMT_BFP8,
						 QUIRE_FMT_BFP16, QUIRE_FMT_INT32};
	static const int ws[] = {2, 4};
	for (size_t wi = 0; wi < 2; wi++) {
		struct cluster cl;
		int w = ws[wi];
		cluster_up(&cl, w, 2000, NULL);
		for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
			size_t n = 100003;
			struct quire_info before[4], after[4];
			for (int r = 0; r < w; r++)
				assert_int_equal(quire_get_info(cl.ctx[r], &before[r]), QUIRE_OK);
			check_allreduce(&cl, fmts[f], 0, n, 500 + f);
			uint64_t payload = 0;
			for (int r = 0; r < w; r++) {
				assert_int_equal(quire_get_info(cl.ctx[r], &after[r]), QUIRE_OK);
				uint64_t frames = after[r].net.tx_frames - before[r].net.tx_frames;
				payload +=
				    after[r].net.tx_bytes - before[r].net.tx_bytes - 32 * frames;
			}
			uint64_t model = quire_allreduce_wire_bytes(fmts[f], w, n) * (uint64_t)w;
			if (payload < model || payload >= model + (uint64_t)w)
				fail_msg("W=%d format %d: %llu payload bytes counted, model %llu",
					 w, fmts[f], (unsigned long long)payload,
					 (unsigned long long)model);
		}
		/* The requantized all-gather: values and an exponent byte per block. */
		for (int f = 0; f < 2; f++) {
			enum quire_format fmt = f ? QUIRE_FMT_BFP16 : QUIRE_FMT_BFP8;
			size_t n = 100003;
			struct quire_info before[4], after[4];
			for (int r = 0; r < w; r++)
				assert_int_equal(quire_get_info(cl.ctx[r], &before[r]), QUIRE_OK);
			check_requant(&cl, fmt, 1, n, 1, 600 + (uint64_t)f);
			uint64_t payload = 0;
			for (int r = 0; r < w; r++) {
				assert_int_equal(quire_get_info(cl.ctx[r], &after[r]), QUIRE_OK);
				uint64_t frames = after[r].net.tx_frames - before[r].net.tx_frames;
				payload +=
				    after[r].net.tx_bytes - before[r].net.tx_bytes - 32 * frames;
			}
			uint64_t model =
			    quire_allreduce_wire_bytes_opt(fmt, w, n, QUIRE_COMM_OPT_REQUANT) *
			    (uint64_t)w;
			if (payload < model || payload >= model + (uint64_t)w)
				fail_msg("W=%d requantized format %d: %llu payload bytes counted, "
					 "model %llu",
					 w, fmt, (unsigned long long)payload,
					 (unsigned long long)model);
		}
		cluster_down(&cl);
	}
	/* bfp8 stays under 0.55x fp32 on the wire wherever its partial sums are int16 (W <= 258).
	 */
	for (int w = 2; w <= 256; w *= 2) {
		uint64_t b8 = quire_allreduce_wire_bytes(QUIRE_FMT_BFP8, w, 1u << 20);
		assert_true(b8 * 100 <=
			    quire_allreduce_wire_bytes(QUIRE_FMT_FP32, w, 1u << 20) * 55);
	}
}

struct meet {
	struct quire_ctx *ctx;
	const char *dir;
	int rank, size, status;
	struct quire_comm *comm;
};

static void *meet_main(void *arg)
{
	struct meet *m = arg;
	m->status = quire_comm_rendezvous(m->ctx, m->dir, m->rank, m->size, 5000, &m->comm);
	return NULL;
}

/* Ranks that meet in a directory (threads here, processes anywhere) get a working
 * communicator; a rank that never comes makes the others time out. */
static void test_rendezvous(void **state)
{
	(void)state;
	struct cluster cl;
	const int w = 3;
	cluster_up(&cl, w, 2000, NULL);
	char meetdir[] = "/tmp/quire-test-meet-XXXXXX";
	assert_non_null(mkdtemp(meetdir));
	struct meet m[3];
	pthread_t t[3];
	for (int r = 0; r < w; r++) {
		m[r] = (struct meet){cl.ctx[r], meetdir, r, w, -1, NULL};
		assert_int_equal(pthread_create(&t[r], NULL, meet_main, &m[r]), 0);
	}
	for (int r = 0; r < w; r++) {
		pthread_join(t[r], NULL);
		assert_int_equal(m[r].status, QUIRE_OK);
		quire_comm_free(cl.comm[r]); /* the rendezvous' communicator stands in */
		cl.comm[r] = m[r].comm;
	}
	check_allreduce(&cl, QUIRE_FMT_BFP8, 1, 5000, 77);
	for (int r = 0; r < w; r++) {
		char p[128];
		snprintf(p, sizeof(p), "%s/addr-%d", meetdir, r);
		unlink(p);
		snprintf(p, sizeof(p), "%s/ready-%d", meetdir, r);
		unlink(p);
	}
	/* Rank 2 never comes: the rendezvous gives up after its timeout (a tenth of the bound). */
	struct quire_comm *c = (void *)1;
	const int rdv_ms = 200;
	int64_t t0 = now_ms();
	assert_int_equal(quire_comm_rendezvous(cl.ctx[0], meetdir, 0, 3, rdv_ms, &c),
			 QUIRE_ERR_TIMEOUT);
	assert_null(c);
	int64_t took = now_ms() - t0;
	assert_true(took >= rdv_ms / 2 && took < 10 * rdv_ms);
	unlink(strcat(strcpy((char[128]){0}, meetdir), "/addr-0"));
	assert_int_equal(rmdir(meetdir), 0);
	assert_int_equal(quire_comm_rendezvous(cl.ctx[0], "/nonexistent/dir", 0, 1, 10, &c),
			 QUIRE_ERR_NO_DEVICE);
	cluster_down(&cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_allreduce_bits),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_late_rank),
	    cmocka_unit_test(test_loss_recovered),
	    cmocka_unit_test(test_heavy_loss_recovered),
	    cmocka_unit_test(test_comm_init_refused),
	    cmocka_unit_test(test_error_feedback),
	    cmocka_unit_test(test_barrier),
	    cmocka_unit_test(test_gather_broadcast_scatter),
	    cmocka_unit_test(test_large_collectives),
	    cmocka_unit_test(test_collective_descriptors_refused),
	    cmocka_unit_test(test_rendezvous),
	    cmocka_unit_test(test_two_communicators),
	    cmocka_unit_test(test_members_disagree),
	    cmocka_unit_test(test_wire_bytes_counted),
	    cmocka_unit_test(test_requant_bits),
	    cmocka_unit_test(test_requant_mismatch),
	    cmocka_unit_test(test_requant_descriptors_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
