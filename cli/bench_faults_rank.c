// SPDX-License-Identifier: MIT
/*
 * quire bench faults: one rank, a host process with its own card, and the reference every
 * result is checked against. The rank runs the collectives the campaign sends it, waits for
 * each within a bound, and compares what its card returned with the result computed here on
 * the CPU from every rank's inputs (the golden model's all-reduce for bfp, the documented
 * ring order for fp32 and fp16, exact sums for int32, the bytes themselves for broadcast
 * and all-gather): bit for bit, or a clear error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_faults.h"
#include "quire.h"

uint64_t faults_digest(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static size_t elem_bytes(const struct faults_op *op)
{
	return op->coll == COLL_ALLREDUCE || op->coll == COLL_REDUCE_SCATTER ? 4 : 1;
}

void faults_inputs(const struct faults_op *op, int rank, void *x)
{
	uint64_t seed = op->data_seed * 8 + (uint64_t)rank + 1;
	if ((op->coll == COLL_ALLREDUCE || op->coll == COLL_REDUCE_SCATTER) &&
	    op->format != QUIRE_FMT_INT32) {
		bench_fill_gradients(x, op->count, seed);
		return;
	}
	uint64_t s = seed * 0x9e3779b97f4a7c15ull | 1;
	size_t total = op->count * elem_bytes(op);
	/* int32 sums' inputs within +-2^20: four of them never overflow */
	int small = op->format == QUIRE_FMT_INT32 && elem_bytes(op) == 4;
	for (size_t i = 0; i < total; i += 4) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		uint32_t v =
		    small ? (uint32_t)((int32_t)(s >> 43) - (1 << 20)) : (uint32_t)(s >> 32);
		memcpy((uint8_t *)x + i, &v, total - i < 4 ? total - i : 4);
	}
}

/* fp32 values through binary16 and back, as the card's fp16 format rounds them. */
static int round_half(float *v, size_t n)
{
	uint16_t *h = malloc(n * 2 + 2);
	int st =
	    h ? quire_codec_encode(QUIRE_FMT_FP16, n, v, NULL, NULL, NULL, h) : QUIRE_ERR_NOMEM;
	if (!st)
		st = quire_codec_decode(QUIRE_FMT_FP16, QUIRE_FMT_FP16, n, h, NULL, 1, v);
	free(h);
	return st;
}

/* The documented ring order of fp32 and fp16 sums: chunk k adds ranks k+1, ..., k, an fp16
 * sum rounded at every hop. */
static int ring_sum(const struct faults_op *op, float *const *x, float *y)
{
	int half = op->format == QUIRE_FMT_FP16, st = QUIRE_OK;
	for (int r = 0; half && r < FAULTS_CARDS && !st; r++)
		st = round_half(x[r], op->count);
	for (int k = 0; k < FAULTS_CARDS && !st; k++) {
		size_t off, len;
		quire_comm_chunk(op->count, FAULTS_CARDS, k, &off, &len);
		memcpy(y + off, x[(k + 1) % FAULTS_CARDS] + off, len * 4);
		for (int j = 1; j < FAULTS_CARDS && !st; j++) {
			const float *v = x[(k + 1 + j) % FAULTS_CARDS] + off;
			for (size_t i = 0; i < len; i++)
				y[off + i] += v[i];
			if (half)
				st = round_half(y + off, len);
		}
	}
	for (size_t i = 0; op->mean && i < op->count; i++)
		y[i] /= (float)FAULTS_CARDS;
	return st;
}

static int sum_reference(const struct faults_op *op, void *const *x, void *y)
{
	if (op->format == QUIRE_FMT_INT32) {
		for (size_t i = 0; i < op->count; i++) {
			int64_t s = 0;
			for (int r = 0; r < FAULTS_CARDS; r++)
				s += ((const int32_t *)x[r])[i];
			((int32_t *)y)[i] = (int32_t)s;
		}
		return QUIRE_OK;
	}
	if (op->format == QUIRE_FMT_BFP8 || op->format == QUIRE_FMT_BFP16)
		return quire_codec_allreduce(op->format, op->mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM,
					     FAULTS_CARDS, op->count, (const float *const *)x, NULL,
					     y);
	return ring_sum(op, (float *const *)x, y);
}

int faults_reference(const struct faults_op *op, int rank, void *y, size_t *bytes)
{
	size_t in_bytes = (size_t)op->count * elem_bytes(op);
	void *x[FAULTS_CARDS] = {0};
	int st = QUIRE_OK;
	*bytes = 0;
	for (int r = 0; r < FAULTS_CARDS && !st; r++)
		if (!(x[r] = malloc(in_bytes + 4)))
			st = QUIRE_ERR_NOMEM;
	for (int r = 0; r < FAULTS_CARDS && !st; r++)
		faults_inputs(op, r, x[r]);
	if (!st && op->coll == COLL_ALLREDUCE) {
		st = sum_reference(op, x, y);
		*bytes = in_bytes;
	} else if (!st && op->coll == COLL_REDUCE_SCATTER) {
		size_t off, len;
		quire_comm_chunk(op->count, FAULTS_CARDS, rank, &off, &len);
		void *full = malloc(in_bytes + 4);
		st = full ? sum_reference(op, x, full) : QUIRE_ERR_NOMEM;
		if (!st)
			memcpy(y, (uint8_t *)full + off * 4, len * 4);
		free(full);
		*bytes = len * 4;
	} else if (!st && op->coll == COLL_BROADCAST) {
		memcpy(y, x[op->root], in_bytes);
		*bytes = in_bytes;
	} else if (!st && op->coll == COLL_ALLGATHER) {
		for (int r = 0; r < FAULTS_CARDS; r++)
			memcpy((uint8_t *)y + (size_t)r * in_bytes, x[r], in_bytes);
		*bytes = in_bytes * FAULTS_CARDS;
	}
	for (int r = 0; r < FAULTS_CARDS; r++)
		free(x[r]);
	return st;
}

struct rank {
	int rank, timeout_ms;
	const char *sock;
	char uri[160];
	struct quire_ctx *ctx;
	struct quire_comm *comm;
};

static int attach(struct rank *r)
{
	int st = quire_open(r->uri, &r->ctx);
	if (st) {
		r->ctx = NULL;
		return st;
	}
	quire_set_timeout(r->ctx, r->timeout_ms);
	return QUIRE_OK;
}

static void make_comm(struct rank *r, const struct faults_cmd *c, struct faults_reply *rep)
{
	if (r->comm)
		quire_comm_free(r->comm);
	r->comm = NULL;
	if (c->reopen && r->ctx) {
		quire_close(r->ctx);
		r->ctx = NULL;
	}
	int st = r->ctx ? QUIRE_OK : attach(r);
	uint16_t addrs[FAULTS_CARDS];
	for (int i = 0; i < FAULTS_CARDS; i++)
		addrs[i] = (uint16_t)i; /* card i at address i: the campaign starts them so */
	struct quire_comm_config cfg = {r->rank, FAULTS_CARDS, addrs, (uint16_t)c->comm_id,
					r->timeout_ms};
	if (!st)
		st = quire_comm_create(r->ctx, &cfg, &r->comm);
	rep->status = st;
	rep->verdict = st ? VERDICT_ERROR : VERDICT_EXACT;
	if (st)
		snprintf(rep->what, sizeof(rep->what), "communicator: %s", quire_strerror(st));
}

/* Submits op; in *in the input (and in-place output) buffer, *out the result's. */
static int submit(struct rank *r, const struct faults_op *op, struct quire_buf *in,
		  struct quire_buf *out, struct quire_req **req)
{
	struct quire_allreduce_args a = {(enum quire_format)op->format,
					 op->mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM,
					 op->count,
					 {in, 0},
					 {out, 0},
					 NULL};
	switch (op->coll) {
	case COLL_ALLREDUCE:
		return quire_allreduce(r->comm, &a, req);
	case COLL_REDUCE_SCATTER:
		return quire_reduce_scatter(r->comm, &a, req);
	case COLL_BROADCAST:
		return quire_broadcast(r->comm, (struct quire_ref){in, 0}, op->count, (int)op->root,
				       req);
	case COLL_ALLGATHER:
		return quire_allgather(r->comm, (struct quire_ref){in, 0},
				       (struct quire_ref){out, 0}, op->count, req);
	default:
		return quire_barrier(r->comm, req);
	}
}

/* The first element where got and want differ, said in rep. */
static void say_difference(const struct faults_op *op, const uint8_t *got, const uint8_t *want,
			   size_t bytes, struct faults_reply *rep)
{
	size_t i = 0;
	while (i < bytes && got[i] == want[i])
		i++;
	size_t e = elem_bytes(op);
	i -= i % e;
	uint32_t g = 0, w = 0;
	memcpy(&g, got + i, e);
	memcpy(&w, want + i, e);
	snprintf(rep->what, sizeof(rep->what), "element %zu is 0x%08x, not 0x%08x", i / e, g, w);
}

/*
 * The rank's patience: four timeouts, on the card's own clock (an RTL card under Verilator
 * runs it slower than the wall clock, so a bound in wall time would give up on a card
 * still within its timeouts). The card's silence ends the wait within one timeout either
 * way; a collective its card still works on (a peer's card alive, its host gone) within
 * four. Wall time stands in where the clock cannot be read.
 */
static int wait_op(struct rank *r, struct quire_req *req, int64_t card0)
{
	const int slice_ms = 100;
	double wall_end = bench_now() + 4.0 * r->timeout_ms / 1000;
	for (;;) {
		int st = quire_wait(req, slice_ms);
		if (st != QUIRE_ERR_TIMEOUT)
			return st;
		/* The slice's end, or the collective's own TIMEOUT (card's or context's)? */
		st = quire_test(req);
		if (st != QUIRE_ERR_BUSY)
			return st;
		int64_t now;
		int cst = quire_card_clock_ms(r->ctx, &now);
		if (cst == QUIRE_OK && card0 >= 0) {
			if (now - card0 >= 4 * (int64_t)r->timeout_ms)
				return QUIRE_ERR_TIMEOUT;
		} else if (cst != QUIRE_ERR_NOT_SUPPORTED) {
			/* The card stopped answering: the context failed. */
			return QUIRE_ERR_TIMEOUT;
		} else if (bench_now() >= wall_end) {
			return QUIRE_ERR_TIMEOUT;
		}
	}
}

static void run_op(struct rank *r, const struct faults_cmd *c, struct faults_reply *rep)
{
	const struct faults_op *op = &c->op;
	size_t in_bytes = (size_t)op->count * elem_bytes(op), want_bytes = 0;
	size_t out_bytes = op->coll == COLL_ALLGATHER ? in_bytes * FAULTS_CARDS : in_bytes;
	struct quire_buf *in = NULL, *out = NULL;
	struct quire_req *req = NULL;
	uint8_t *want = malloc(out_bytes + 4);
	int st = !r->comm ? QUIRE_ERR_PEER : !want ? QUIRE_ERR_NOMEM : QUIRE_OK;
	if (!st)
		st = quire_buf_alloc(r->ctx, in_bytes + 4, &in);
	if (!st)
		st = quire_buf_alloc(r->ctx, out_bytes + 4, &out);
	int64_t card0 = -1, card1 = -1;
	if (!st) {
		faults_inputs(op, r->rank, quire_buf_ptr(in));
		memset(quire_buf_ptr(out), 0xa5, out_bytes);
		(void)quire_card_clock_ms(r->ctx, &card0);
		st = submit(r, op, in, out, &req);
	}
	if (!st)
		st = wait_op(r, req, card0);
	/* Read at once: freeing a request still in flight waits for it. */
	if (r->ctx && card0 >= 0 && quire_card_clock_ms(r->ctx, &card1) == QUIRE_OK)
		rep->card_ms = card1 - card0;
	else
		rep->card_ms = -1;
	if (req)
		quire_req_free(req);
	if (!st)
		st = faults_reference(op, r->rank, want, &want_bytes);
	rep->status = st;
	rep->verdict = st ? VERDICT_ERROR : VERDICT_EXACT;
	if (st) {
		snprintf(rep->what, sizeof(rep->what), "%s", quire_strerror(st));
	} else if (op->coll != COLL_BARRIER) {
		uint8_t *got = quire_buf_ptr(op->coll == COLL_BROADCAST ? in : out);
		if (c->plant_flip)
			got[want_bytes / 2] ^= 0x10;
		rep->digest = faults_digest(got, want_bytes);
		if (memcmp(got, want, want_bytes) != 0) {
			rep->verdict = VERDICT_WRONG;
			say_difference(op, got, want, want_bytes, rep);
		}
	}
	quire_buf_free(in);
	quire_buf_free(out);
	free(want);
}

int faults_rank_run(int rank, const char *sock, int timeout_ms, int fd)
{
	struct rank r = {.rank = rank, .timeout_ms = timeout_ms, .sock = sock};
	snprintf(r.uri, sizeof(r.uri), "sim:%s", sock);
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		struct faults_cmd c;
		ssize_t n = read(fd, &c, sizeof(c));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(c) || c.type == CMD_QUIT)
			break;
		struct faults_reply rep = {0};
		if (c.type == CMD_COMM)
			make_comm(&r, &c, &rep);
		else
			run_op(&r, &c, &rep);
		if (write(fd, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
			break;
	}
	if (r.comm)
		quire_comm_free(r.comm);
	if (r.ctx)
		quire_close(r.ctx);
	return 0;
}
