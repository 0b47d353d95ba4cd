// SPDX-License-Identifier: MIT
/*
 * libquire's card API on the cpu and sim:inproc backends: descriptors refused
 * before they reach a card, buffers checked, asynchronous requests beyond the
 * ring's size, timeouts, and the same answers from both backends; neither shares
 * buffers as dma-bufs, and says so.
 *
 * QUIRE_TEST_CARD=URI puts another card in sim:inproc's place, such as a card
 * process of `quire-sim --model rtl` (sim:/path/card.sock; tests/cli/test_sim_rtl.sh).
 * What needs an engine that card's caps do not name is skipped, and says so; a
 * slow card gets a smaller tensor where the size only has to keep it busy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"
#include "quire.h"
#include "quire/regs.h"

#ifndef QUIRE_TEST_DATA
#define QUIRE_TEST_DATA "tests/data"
#endif

/* The card under test: sim:inproc, or QUIRE_TEST_CARD. */
static const char *card_uri(void)
{
	const char *uri = getenv("QUIRE_TEST_CARD");
	return uri && *uri ? uri : "sim:inproc";
}

static const char *backend(int b)
{
	return b == 0 ? "cpu" : card_uri();
}

/* Does ctx's card have the engines of `caps` (QUIRE_CAP_*)? If not, says so. */
static int has_caps(struct quire_ctx *ctx, uint32_t caps, const char *test)
{
	struct quire_info in;
	if (quire_backend_caps(ctx) & QUIRE_BACKEND_CAP_CARD) {
		assert_int_equal(quire_get_info(ctx, &in), QUIRE_OK);
		if ((in.caps & caps) != caps) {
			print_message("skip: %s on %s: the card's caps 0x%x do not name 0x%x\n",
				      test, card_uri(), in.caps, caps);
			return 0;
		}
	}
	return 1;
}

static struct quire_buf *buf_of(struct quire_ctx *ctx, size_t bytes)
{
	struct quire_buf *b;
	assert_int_equal(quire_buf_alloc(ctx, bytes, &b), QUIRE_OK);
	memset(quire_buf_ptr(b), 0, bytes);
	return b;
}

/* ENCODE to bfp8 of count fp32 at x's start: values at q's, exponents at e's. */
static struct quire_op encode_bfp8(struct quire_buf *x, struct quire_buf *q, struct quire_buf *e,
				   uint32_t count)
{
	return (struct quire_op){.opcode = QUIRE_OPC_ENCODE,
				 .format = QUIRE_FMT_BFP8,
				 .count = count,
				 .src = {x, 0},
				 .dst = {q, 0},
				 .exp = {e, 0}};
}

static void test_open_errors(void **state)
{
	(void)state;
	struct quire_ctx *ctx = (void *)1;
	assert_int_equal(quire_open("tpu", &ctx), QUIRE_ERR_NO_DEVICE);
	assert_null(ctx);
	assert_int_equal(quire_open("sim:/nonexistent/card.sock", &ctx), QUIRE_ERR_NO_DEVICE);
	assert_int_equal(quire_open(NULL, &ctx), QUIRE_ERR_INVALID);
	assert_int_equal(quire_open("cpu", NULL), QUIRE_ERR_INVALID);
	quire_close(NULL); /* harmless */
}

static void test_refused_at_submit(void **state)
{
	(void)state;
	for (int b = 0; b < 2; b++) {
		struct quire_ctx *ctx, *other;
		assert_int_equal(quire_open(backend(b), &ctx), QUIRE_OK);
		assert_int_equal(quire_open("cpu", &other), QUIRE_OK);
		/* x holds 2048 fp32: the 1025 below overrun q alone (an overrun of x as well would
		 * reach the next buffer, and an output over an input is refused first). */
		struct quire_buf *x = buf_of(ctx, 8192), *q = buf_of(ctx, 1024),
				 *e = buf_of(ctx, 64);
		struct quire_buf *foreign = buf_of(other, 4096);
		struct quire_op op = encode_bfp8(x, q, e, 1000);
		struct quire_req *req = (void *)1;
		assert_int_equal(quire_run(ctx, &op, NULL), QUIRE_OK);
		op.count = 1025; /* q holds 1024 */
		assert_int_equal(quire_submit(ctx, &op, &req), QUIRE_ERR_RANGE);
		assert_null(req);
		op.count = 1000;
		op.src.offset = 2; /* misaligned */
		assert_int_equal(quire_run(ctx, &op, NULL), QUIRE_ERR_ALIGN);
		op.src.offset = 8193; /* past the buffer */
		assert_int_equal(quire_run(ctx, &op, NULL), QUIRE_ERR_INVALID);
		op.src = (struct quire_ref){foreign, 0}; /* another context's memory */
		assert_int_equal(quire_run(ctx, &op, NULL), QUIRE_ERR_INVALID);
		op.src = (struct quire_ref){x, 0};
		op.format = QUIRE_FMT_INT16;
		assert_int_equal(quire_run(ctx, &op, NULL), QUIRE_ERR_FORMAT);
		op.format = QUIRE_FMT_BFP8;
		op.opcode = 42;
		assert_int_equal(quire_run(ctx, &op, NULL), QUIRE_ERR_OPCODE);
		op.opcode = QUIRE_OPC_ENCODE;
		op.workers = 70000;
		assert_int_equal(quire_run(ctx, &op, NULL), QUIRE_ERR_INVALID);
		assert_int_equal(quire_buf_alloc(ctx, 0, &x), QUIRE_ERR_INVALID);
		assert_int_equal(quire_test(NULL), QUIRE_ERR_INVALID);
		quire_buf_free(foreign);
		quire_close(other);
		quire_close(ctx);
	}
}

/*
 * ENCODE, DECODE and REDUCE whose output shares a byte with an input are refused by the
 * descriptor rules (QUIRE_ERR_INVALID, nothing written), on the cpu backend and on the card
 * alike; buffers that only touch run, with the bits of separate buffers.
 */
static void test_overlap_refused(void **state)
{
	(void)state;
	enum { N = 1000, BLOCKS = (N + 63) / 64 };
	for (int b = 0; b < 2; b++) {
		struct quire_ctx *ctx;
		assert_int_equal(quire_open(backend(b), &ctx), QUIRE_OK);
		struct quire_buf *m = buf_of(ctx, 64 << 10);
		uint8_t *p = quire_buf_ptr(m);
		float x[N];
		for (int i = 0; i < N; i++)
			x[i] = (float)(i % 97 - 48) * 0.37f;
		int8_t q[N], e[BLOCKS];
		assert_int_equal(quire_codec_encode(QUIRE_FMT_BFP8, N, x, NULL, NULL, e, q),
				 QUIRE_OK);

		/* ENCODE: x at 0 (4000 bytes), values then exponents after it. */
		memcpy(p, x, sizeof(x));
		struct quire_op enc = {.opcode = QUIRE_OPC_ENCODE,
				       .format = QUIRE_FMT_BFP8,
				       .count = N,
				       .src = {m, 0},
				       .dst = {m, 2000},
				       .exp = {m, 8000}};
		memset(p + 4000, 0x5a, 8192);
		assert_int_equal(quire_run(ctx, &enc, NULL), QUIRE_ERR_INVALID); /* dst over x */
		enc.dst.offset = 8000 - N + 1;                                   /* over exp */
		assert_int_equal(quire_run(ctx, &enc, NULL), QUIRE_ERR_INVALID);
		enc.dst.offset = 4000;
		enc.exp.offset = 3990; /* exp over x */
		assert_int_equal(quire_run(ctx, &enc, NULL), QUIRE_ERR_INVALID);
		for (int i = 4000; i < 4000 + 8192; i++) /* nothing written */
			assert_int_equal(p[i], 0x5a);
		enc.exp.offset = 4000 + N; /* x, values, exponents end to end */
		assert_int_equal(quire_run(ctx, &enc, NULL), QUIRE_OK);
		assert_memory_equal(p + 4000, q, N);
		assert_memory_equal(p + 4000 + N, e, BLOCKS);

		/* DECODE: values at 4000, exponents at 5000; fp32 out. */
		struct quire_op dec = {.opcode = QUIRE_OPC_DECODE,
				       .format = QUIRE_FMT_BFP8,
				       .val_format = QUIRE_FMT_INT8,
				       .count = N,
				       .src = {m, 4000},
				       .dst = {m, 1000},
				       .exp = {m, 4000 + N}};
		assert_int_equal(quire_run(ctx, &dec, NULL), QUIRE_ERR_INVALID); /* over values */
		dec.dst.offset = 4000 + N + BLOCKS - 4;                          /* over exp */
		assert_int_equal(quire_run(ctx, &dec, NULL), QUIRE_ERR_INVALID);
		dec.dst.offset = 4000 + N + BLOCKS + 3; /* touching exp, then aligned */
		dec.dst.offset &= ~3u;
		assert_int_equal(quire_run(ctx, &dec, NULL), QUIRE_OK);
		float y[N];
		assert_int_equal(quire_codec_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, N, q, e, 1, y),
				 QUIRE_OK);
		assert_memory_equal(p + dec.dst.offset, y, sizeof(y));

		/* REDUCE: 3 int8 vectors 1024 bytes apart at 16384, int32 sums. */
		if (has_caps(ctx, QUIRE_CAP_REDUCE, "reduce into its inputs")) {
			const size_t at = 16384, stride = 1024, ends = at + 2 * stride + N;
			for (size_t i = 0; i < 3 * stride; i++)
				p[at + i] = (uint8_t)(i * 7 % 251);
			struct quire_op red = {.opcode = QUIRE_OPC_REDUCE,
					       .format = QUIRE_FMT_INT32,
					       .val_format = QUIRE_FMT_INT8,
					       .count = N,
					       .workers = 3,
					       .stride = stride,
					       .src = {m, at},
					       .dst = {m, at + stride - 4}};
			/* over vectors 1 and 2 */
			assert_int_equal(quire_run(ctx, &red, NULL), QUIRE_ERR_INVALID);
			red.dst.offset = ends - 4; /* over the last vector's end */
			assert_int_equal(quire_run(ctx, &red, NULL), QUIRE_ERR_INVALID);
			red.dst.offset = at - 4 * N + 4; /* ends inside vector 0 */
			assert_int_equal(quire_run(ctx, &red, NULL), QUIRE_ERR_INVALID);
			red.dst.offset = ends; /* touching the last vector */
			assert_int_equal(quire_run(ctx, &red, NULL), QUIRE_OK);
			for (size_t i = 0; i < N; i++) {
				int32_t sum = 0, got;
				for (size_t k = 0; k < 3; k++)
					sum += (int8_t)p[at + k * stride + i];
				memcpy(&got, p + ends + 4 * i, 4);
				assert_int_equal(got, sum);
			}
			red.dst.offset = at - 4 * N; /* ending where vector 0 starts */
			assert_int_equal(quire_run(ctx, &red, NULL), QUIRE_OK);
		}
		quire_buf_free(m);
		quire_close(ctx);
	}
}

static void test_async_beyond_ring(void **state)
{
	(void)state;
	for (int b = 0; b < 2; b++) {
		struct quire_ctx *ctx;
		assert_int_equal(quire_open(backend(b), &ctx), QUIRE_OK);
		enum { N = 700 }; /* more than a ring holds: submission waits for room */
		struct quire_req *req[N];
		struct quire_op nop = {.opcode = QUIRE_OPC_NOP};
		for (int i = 0; i < N; i++)
			assert_int_equal(quire_submit(ctx, &nop, &req[i]), QUIRE_OK);
		/* Any order of waiting; as long as the card makes progress (its own clock judges
		 * that: an RTL card on a loaded machine takes many seconds for these NOPs). */
		for (int i = N - 1; i >= 0; i--)
			assert_int_equal(quire_wait(req[i], QUIRE_WAIT_DEFAULT), QUIRE_OK);
		for (int i = 0; i < N; i++) {
			assert_int_equal(quire_test(req[i]), QUIRE_OK);
			quire_req_free(req[i]);
		}
		struct quire_info in;
		assert_int_equal(quire_get_info(ctx, &in), QUIRE_OK);
		if (b == 1) {
			assert_string_equal(in.backend, "sim");
			assert_true(in.cmds_ok >= N);
			assert_int_equal(in.n_blocks, 7);
			assert_string_equal(quire_block_name(in.blocks[1].type), "cmdq");
		}
		quire_close(ctx);
	}
}

/*
 * A full queue behind a long command: a submission that waits for room waits as long as
 * the card makes progress by its own clock, however slowly the machine runs it. On an RTL
 * card the 8 MiB ENCODE takes seconds of wall time (some 250,000 card cycles, 1 ms of
 * card time): longer than the 1 s timeout in wall time, far shorter in card time.
 */
static void test_full_queue_behind_long_command(void **state)
{
	(void)state;
	struct quire_ctx *ctx;
	assert_int_equal(quire_open(card_uri(), &ctx), QUIRE_OK);
	quire_set_timeout(ctx, 1000);
	const size_t n = 2u << 20;
	struct quire_buf *x = buf_of(ctx, 4 * n), *q = buf_of(ctx, n), *e = buf_of(ctx, n / 64);
	struct quire_op enc = encode_bfp8(x, q, e, (uint32_t)n);
	enum { NOPS = 700 }; /* more than a queue holds */
	struct quire_req *req[1 + NOPS];
	assert_int_equal(quire_submit(ctx, &enc, &req[0]), QUIRE_OK);
	for (int i = 1; i <= NOPS; i++)
		assert_int_equal(
		    quire_submit(ctx, &(struct quire_op){.opcode = QUIRE_OPC_NOP}, &req[i]),
		    QUIRE_OK);
	for (int i = 0; i <= NOPS; i++) {
		assert_int_equal(quire_wait(req[i], QUIRE_WAIT_DEFAULT), QUIRE_OK);
		quire_req_free(req[i]);
	}
	quire_close(ctx);
}

static void test_timeout_then_done(void **state)
{
	(void)state;
	struct quire_ctx *ctx;
	assert_int_equal(quire_open(card_uri(), &ctx), QUIRE_OK);
	/* 32 MiB of fp32: several chunks, long enough to catch in flight; 64 KiB keeps an RTL
	 * card (tens of thousands of cycles a second, some 30,000 cycles a MiB) busy long
	 * enough. The wait below lasts as long as the card makes progress, judged by its own
	 * clock: an RTL card on a loaded machine slows to a tenth of its pace or less. */
	size_t n = getenv("QUIRE_TEST_CARD") ? 16u << 10 : 8u << 20;
	struct quire_buf *x = buf_of(ctx, 4 * n), *q = buf_of(ctx, n), *e = buf_of(ctx, n / 64);
	struct quire_op op = encode_bfp8(x, q, e, (uint32_t)n);
	struct quire_req *req;
	assert_int_equal(quire_submit(ctx, &op, &req), QUIRE_OK);
	int st = quire_wait(req, 0);
	assert_true(st == QUIRE_ERR_TIMEOUT || st == QUIRE_OK);
	assert_int_equal(quire_wait(req, QUIRE_WAIT_DEFAULT), QUIRE_OK);
	assert_true(quire_req_cycles(req) > 0);
	quire_req_free(req);
	/* Freeing a request in flight waits for it; the context stays usable. */
	assert_int_equal(quire_submit(ctx, &op, &req), QUIRE_OK);
	quire_req_free(req);
	assert_int_equal(quire_run(ctx, &(struct quire_op){.opcode = QUIRE_OPC_NOP}, NULL),
			 QUIRE_OK);
	quire_close(ctx);
}

/* The card's clock moves on by at least what an operation took on it, in card time; the cpu
 * backend has no card clock to read. */
static void test_card_clock(void **state)
{
	(void)state;
	struct quire_ctx *ctx;
	int64_t t0, t1;
	assert_int_equal(quire_open("cpu", &ctx), QUIRE_OK);
	assert_int_equal(quire_card_clock_ms(ctx, &t0), QUIRE_ERR_NOT_SUPPORTED);
	assert_int_equal(t0, -1);
	assert_int_equal(quire_card_clock_ms(ctx, NULL), QUIRE_ERR_INVALID);
	quire_close(ctx);
	assert_int_equal(quire_card_clock_ms(NULL, &t0), QUIRE_ERR_INVALID);

	assert_int_equal(quire_open(card_uri(), &ctx), QUIRE_OK);
	struct quire_info in;
	assert_int_equal(quire_get_info(ctx, &in), QUIRE_OK);
	assert_true(in.clock_hz >= 1000);
	/* 32 MiB of fp32 on the emu: some 2 ms of card time or more, so that a clock standing
	 * still fails below. 1 MiB on a card of QUIRE_TEST_CARD (an RTL card takes seconds of
	 * wall time for a ms of its own). */
	int emu = getenv("QUIRE_TEST_CARD") == NULL;
	size_t n = emu ? 8u << 20 : 1u << 18;
	struct quire_buf *x = buf_of(ctx, 4 * n), *q = buf_of(ctx, n), *e = buf_of(ctx, n / 64);
	struct quire_op op = encode_bfp8(x, q, e, (uint32_t)n);
	struct quire_req *req;
	assert_int_equal(quire_card_clock_ms(ctx, &t0), QUIRE_OK);
	assert_int_equal(quire_submit(ctx, &op, &req), QUIRE_OK);
	assert_int_equal(quire_wait(req, QUIRE_WAIT_DEFAULT), QUIRE_OK);
	assert_int_equal(quire_card_clock_ms(ctx, &t1), QUIRE_OK);
	uint64_t cycles = quire_req_cycles(req);
	assert_true(cycles > 0 && t0 >= 0 && t1 >= t0);
	if (emu)
		assert_true(cycles >= 2 * (in.clock_hz / 1000));
	/* Whole ms of card time: the op's cycles fit in one more than the clock moved. */
	assert_true((uint64_t)(t1 - t0 + 1) * (in.clock_hz / 1000) >= cycles);
	quire_req_free(req);
	quire_buf_free(x);
	quire_buf_free(q);
	quire_buf_free(e);
	quire_close(ctx);
}

static uint8_t *slurp(const char *name, uint32_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/mlp_golden/%s", QUIRE_TEST_DATA, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static uint8_t buf[2][1 << 18];
	static int which;
	uint8_t *p = buf[which++ & 1];
	*len = (uint32_t)fread(p, 1, sizeof(buf[0]), f);
	fclose(f);
	return p;
}

static void test_mlp_golden_on_backends(void **state)
{
	(void)state;
	uint32_t ilen, vlen;
	uint8_t *img = slurp("l4_256.qmlp", &ilen), *vec = slurp("l4_256.vec", &vlen);
	uint32_t c = (uint32_t)vec[4] | (uint32_t)vec[5] << 8,
		 n0 = (uint32_t)vec[8] | (uint32_t)vec[9] << 8;
	const uint8_t *want = vec + 12 + c * n0 + c;
	for (int b = 0; b < 2; b++) {
		struct quire_ctx *ctx;
		assert_int_equal(quire_open(backend(b), &ctx), QUIRE_OK);
		if (!has_caps(ctx, QUIRE_CAP_MLP, "MLP golden vectors")) {
			quire_close(ctx);
			continue;
		}
		struct quire_buf *m = buf_of(ctx, ilen), *f = buf_of(ctx, c * n0),
				 *fe = buf_of(ctx, c);
		struct quire_buf *s = buf_of(ctx, 4 * c);
		memcpy(quire_buf_ptr(m), img, ilen);
		memcpy(quire_buf_ptr(f), vec + 12, c * n0);
		memcpy(quire_buf_ptr(fe), vec + 12 + c * n0, c);
		struct quire_op load = {.opcode = QUIRE_OPC_MLP_LOAD, .count = ilen, .src = {m, 0}};
		assert_int_equal(quire_run(ctx, &load, NULL), QUIRE_OK);
		struct quire_op score = {.opcode = QUIRE_OPC_MLP_SCORE,
					 .count = c,
					 .src = {f, 0},
					 .dst = {s, 0},
					 .aux = {fe, 0}};
		uint32_t choice;
		assert_int_equal(quire_run(ctx, &score, &choice), QUIRE_OK);
		assert_memory_equal(quire_buf_ptr(s), want, 4 * c);
		assert_int_equal(choice, (uint32_t)want[4 * c] | (uint32_t)want[4 * c + 1] << 8);
		/* The model's input width bounds the features: a buffer too small is refused. */
		score.count = c + 1;
		assert_int_equal(quire_run(ctx, &score, NULL), QUIRE_ERR_RANGE);
		/* A corrupt image is refused and leaves no model loaded. */
		((uint8_t *)quire_buf_ptr(m))[100] ^= 1;
		assert_int_equal(quire_run(ctx, &load, NULL), QUIRE_ERR_CORRUPT);
		score.count = c;
		assert_int_equal(quire_run(ctx, &score, NULL), QUIRE_ERR_SHAPE);
		quire_close(ctx);
	}
}

static void test_collectives_on_one_rank(void **state)
{
	(void)state;
	struct quire_ctx *ctx;
	struct quire_comm *c;
	assert_int_equal(quire_open("cpu", &ctx), QUIRE_OK);
	assert_int_equal(quire_comm_self(ctx, &c), QUIRE_OK);
	assert_int_equal(quire_comm_size(c), 1);
	assert_int_equal(quire_comm_rank(c), 0);
	size_t n = 4099;
	struct quire_buf *x = buf_of(ctx, 4 * n), *y = buf_of(ctx, 4 * n);
	struct rng g = {8};
	fill_edge_gradients(&g, quire_buf_ptr(x), n, 1);
	float *want = malloc(4 * n), *resid = calloc(n, 4);
	const float *xs[1] = {quire_buf_ptr(x)};
	static const enum quire_format fmts[] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16, QUIRE_FMT_FP16,
						 QUIRE_FMT_FP32};
	for (int f = 0; f < 4; f++) {
		struct quire_allreduce_args a = {fmts[f], QUIRE_OP_MEAN, n, {x, 0}, {y, 0}, NULL};
		struct quire_req *req;
		assert_int_equal(quire_allreduce(c, &a, &req), QUIRE_OK);
		assert_int_equal(quire_test(req), QUIRE_OK);
		quire_req_free(req);
		assert_int_equal(
		    quire_codec_allreduce(fmts[f], QUIRE_OP_MEAN, 1, n, xs, NULL, want), QUIRE_OK);
		assert_memory_equal(quire_buf_ptr(y), want, 4 * n);
	}
	/* Error feedback: the residual object carries over, as with local residuals. */
	struct quire_ef *ef;
	assert_int_equal(quire_ef_create(ctx, n, &ef), QUIRE_OK);
	float *rs[1] = {resid};
	for (int step = 0; step < 3; step++) {
		struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_SUM, n,
						 {x, 0},         {y, 0},       ef};
		assert_int_equal(quire_allreduce(c, &a, NULL), QUIRE_OK);
		quire_codec_allreduce(QUIRE_FMT_BFP8, QUIRE_OP_SUM, 1, n, xs, rs, want);
		assert_memory_equal(quire_buf_ptr(y), want, 4 * n);
	}
	/* The residual read out is the codec's; one written in is the one the next step uses. */
	float *got = malloc(4 * n);
	assert_int_equal(quire_ef_read(ef, got, n), QUIRE_OK);
	assert_memory_equal(got, resid, 4 * n);
	for (size_t i = 0; i < n; i++)
		resid[i] = got[i] = (float)(i % 7) * 0x1p-9f;
	assert_int_equal(quire_ef_write(ef, got, n), QUIRE_OK);
	struct quire_allreduce_args a = {QUIRE_FMT_BFP8, QUIRE_OP_SUM, n, {x, 0}, {y, 0}, ef};
	assert_int_equal(quire_allreduce(c, &a, NULL), QUIRE_OK);
	quire_codec_allreduce(QUIRE_FMT_BFP8, QUIRE_OP_SUM, 1, n, xs, rs, want);
	assert_memory_equal(quire_buf_ptr(y), want, 4 * n);
	assert_int_equal(quire_ef_read(ef, got, n), QUIRE_OK);
	assert_memory_equal(got, resid, 4 * n);
	assert_int_equal(quire_ef_read(ef, got, n - 1), QUIRE_ERR_SIZE);
	assert_int_equal(quire_ef_write(ef, got, n + 1), QUIRE_ERR_SIZE);
	assert_int_equal(quire_ef_write(NULL, got, n), QUIRE_ERR_INVALID);
	assert_int_equal(quire_ef_read(ef, NULL, n), QUIRE_ERR_INVALID);
	free(got);
	struct quire_allreduce_args bad = {QUIRE_FMT_FP16, QUIRE_OP_SUM, n, {x, 0}, {y, 0}, ef};
	assert_int_equal(quire_allreduce(c, &bad, NULL), QUIRE_ERR_INVALID); /* EF is for BFP */
	bad = (struct quire_allreduce_args){QUIRE_FMT_BFP8, QUIRE_OP_SUM, n + 1,
					    {x, 0},         {y, 0},       NULL};
	assert_int_equal(quire_allreduce(c, &bad, NULL), QUIRE_ERR_RANGE); /* past the buffers */
	bad.count = 0;
	assert_int_equal(quire_allreduce(c, &bad, NULL), QUIRE_ERR_SIZE);
	assert_int_equal(
	    quire_reduce_scatter(c,
				 &(struct quire_allreduce_args){
				     QUIRE_FMT_BFP8, QUIRE_OP_SUM, n, {x, 0}, {y, 0}, NULL},
				 NULL),
	    QUIRE_OK);
	assert_int_equal(
	    quire_allgather(c, (struct quire_ref){x, 0}, (struct quire_ref){y, 0}, 4 * n, NULL),
	    QUIRE_OK);
	assert_memory_equal(quire_buf_ptr(x), quire_buf_ptr(y), 4 * n);
	assert_int_equal(quire_broadcast(c, (struct quire_ref){x, 0}, 16, 0, NULL), QUIRE_OK);
	assert_int_equal(quire_barrier(c, NULL), QUIRE_OK);
	/* Chunks tile the vector in whole blocks. */
	size_t off, len, next = 0;
	for (int k = 0; k < 5; k++) {
		quire_comm_chunk(4099, 5, k, &off, &len);
		assert_int_equal(off, next);
		assert_true(off % 64 == 0);
		next = off + len;
	}
	assert_int_equal(next, 4099);
	quire_ef_free(ef);
	quire_comm_free(c);
	free(want);
	free(resid);
	quire_close(ctx);
}

struct worker {
	const char *uri;
	uint64_t seed;
	int failures;
	int first_status; /* of the first failing call, for the report */
};

/* One context per thread: each encodes its own data and checks it against the codec. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct quire_ctx *ctx;
	int opened = quire_open(w->uri, &ctx);
	if (opened != QUIRE_OK) {
		w->first_status = opened;
		w->failures++;
		return NULL;
	}
	enum { N = 5000 };
	struct quire_buf *x, *q, *e;
	quire_buf_alloc(ctx, 4 * N, &x);
	quire_buf_alloc(ctx, N, &q);
	quire_buf_alloc(ctx, QUIRE_BFP_BLOCKS(N), &e);
	struct rng g = {w->seed};
	int8_t want_q[N], want_e[QUIRE_BFP_BLOCKS(N)];
	for (int round = 0; round < 40; round++) {
		fill_edge_gradients(&g, quire_buf_ptr(x), N, 1);
		struct quire_op op = encode_bfp8(x, q, e, N);
		quire_codec_encode(QUIRE_FMT_BFP8, N, quire_buf_ptr(x), NULL, NULL, want_e, want_q);
		int st = quire_run(ctx, &op, NULL);
		if (st != QUIRE_OK || memcmp(quire_buf_ptr(q), want_q, N) != 0 ||
		    memcmp(quire_buf_ptr(e), want_e, sizeof(want_e)) != 0) {
			if (!w->failures++)
				w->first_status = st;
		}
	}
	quire_close(ctx);
	return NULL;
}

static void test_one_context_per_thread(void **state)
{
	(void)state;
	struct worker w[4] = {
	    {card_uri(), 1, 0, 0}, {card_uri(), 2, 0, 0}, {"cpu", 3, 0, 0}, {"cpu", 4, 0, 0}};
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		if (w[i].failures)
			print_error("worker %d on %s: %d of 40 rounds failed, the first with %s\n",
				    i, w[i].uri, w[i].failures, quire_strerror(w[i].first_status));
		assert_int_equal(w[i].failures, 0);
	}
}

/*
 * cpu and sim (sim:inproc, or QUIRE_TEST_CARD) have no dma-bufs: their caps say so, export and
 * import answer QUIRE_ERR_NOT_SUPPORTED and touch nothing (the caller's fd stays open and usable,
 * the buffer too); bad arguments are QUIRE_ERR_INVALID first. (kdrv: tests/driver, in QEMU.)
 */
static void test_dmabuf_not_supported(void **state)
{
	(void)state;
	for (int b = 0; b < 2; b++) {
		struct quire_ctx *ctx;
		assert_int_equal(quire_open(backend(b), &ctx), QUIRE_OK);
		assert_int_equal(quire_backend_caps(ctx) & QUIRE_BACKEND_CAP_DMABUF, 0);
		struct quire_buf *x = buf_of(ctx, 4096);
		int fd = 7;
		assert_int_equal(quire_buf_export(x, &fd), QUIRE_ERR_NOT_SUPPORTED);
		assert_int_equal(fd, -1);
		fd = 7;
		assert_int_equal(quire_buf_export(NULL, &fd), QUIRE_ERR_INVALID);
		assert_int_equal(fd, -1);
		assert_int_equal(quire_buf_export(x, NULL), QUIRE_ERR_INVALID);

		int p[2];
		assert_int_equal(pipe(p), 0);
		struct quire_buf *in = (struct quire_buf *)1;
		assert_int_equal(quire_buf_import(ctx, p[0], &in), QUIRE_ERR_NOT_SUPPORTED);
		assert_null(in);
		in = (struct quire_buf *)1;
		assert_int_equal(quire_buf_import(ctx, -1, &in), QUIRE_ERR_INVALID);
		assert_null(in);
		assert_int_equal(quire_buf_import(NULL, p[0], &in), QUIRE_ERR_INVALID);
		assert_int_equal(quire_buf_import(ctx, p[0], NULL), QUIRE_ERR_INVALID);
		/* The fd is still the caller's: open, and the pipe still carries bytes. */
		assert_true(fcntl(p[0], F_GETFD) != -1);
		char c = 'q';
		assert_int_equal(write(p[1], &c, 1), 1);
		c = 0;
		assert_int_equal(read(p[0], &c, 1), 1);
		assert_int_equal(c, 'q');
		close(p[0]);
		close(p[1]);
		/* And the buffer is as it was. */
		assert_int_equal(quire_buf_size(x), 4096);
		memset(quire_buf_ptr(x), 0x5a, 4096);
		quire_buf_free(x);
		quire_close(ctx);
	}
	assert_int_equal(quire_buf_import(NULL, 0, NULL), QUIRE_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_errors),
	    cmocka_unit_test(test_refused_at_submit),
	    cmocka_unit_test(test_overlap_refused),
	    cmocka_unit_test(test_async_beyond_ring),
	    cmocka_unit_test(test_full_queue_behind_long_command),
	    cmocka_unit_test(test_timeout_then_done),
	    cmocka_unit_test(test_card_clock),
	    cmocka_unit_test(test_mlp_golden_on_backends),
	    cmocka_unit_test(test_one_context_per_thread),
	    cmocka_unit_test(test_collectives_on_one_rank),
	    cmocka_unit_test(test_dmabuf_not_supported),
	};
	return cmocka_run_group_tests_name("libquire api", tests, NULL, NULL);
}
