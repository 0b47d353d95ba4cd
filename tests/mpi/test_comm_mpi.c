// SPDX-License-Identifier: MIT
/*
 * Collectives across ranks, run under mpirun with W ranks, on one backend:
 * "cpu" (MPI carries the collectives) or "sim" (each rank has a simulated card
 * in its process, the cards run the collectives over a simulated network and
 * MPI only introduces them). Every rank can regenerate every rank's input, so
 * every rank checks its own result bit for bit against the same references on
 * both backends: BFP against quire_codec_allreduce of all inputs, in every rank
 * order (all permutations up to W = 4, some beyond); fp16/fp32 against a
 * separate implementation of the documented ring order. On cpu it also opens a
 * simulated card per rank and compares the two backends directly, bit for bit,
 * in every format (bfp8 with error feedback, int32 too). Rank 0 prints the
 * checks and "mpi <backend> W=..: N passed, N failed"; the exit status is
 * non-zero on any failure on any rank.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hls/allreduce_golden.h"
#include "tests/test_util.h"
#include "quire_mpi.h"

static int world_rank, world_size, passed, failed;

static void report(int ok_here, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(int ok_here, const char *fmt, ...)
{
	int ok_all;
	MPI_Allreduce(&ok_here, &ok_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	ok_all ? passed++ : failed++;
	if (world_rank == 0) {
		va_list ap;
		va_start(ap, fmt);
		printf("%s ", ok_all ? "ok  " : "FAIL");
		vprintf(fmt, ap);
		printf("\n");
		fflush(stdout);
		va_end(ap);
	}
}

/* Rank r's gradient for a case: the same on every rank that asks. */
static void input(int owner, int tag, size_t n, float *x)
{
	struct rng g = {(uint64_t)tag * 7919 + (uint64_t)owner};
	fill_edge_gradients(&g, x, n, 1);
}

/* fp16/fp32 reference: chunk k adds ranks k+1, ..., k (mod W) in fp32; fp16 partial sums are
 * rounded to fp16 at every hop (the compiler's own _Float16 conversions). */
/* fp32 -> fp16 -> fp32 by the compiler's conversions; NaNs as F16C converts them (sign and
 * the payload's top bits kept, quieted), where the compiler's software conversion differs. */
static float via_fp16(float v)
{
	if (v != v) {
		uint32_t b;
		memcpy(&b, &v, 4);
		b = (b & 0xffffe000u) | 0x00400000u;
		memcpy(&v, &b, 4);
		return v;
	}
	return (float)(_Float16)v;
}

static void ref_float(int fp16, int mean, int w, size_t n, float *const *x, float *y)
{
	for (int k = 0; k < w; k++) {
		size_t off, len;
		quire_comm_chunk(n, w, k, &off, &len);
		for (size_t i = off; i < off + len; i++) {
			float acc = 0;
			for (int j = 0; j < w; j++) {
				float v = x[(k + 1 + j) % w][i];
				if (fp16)
					v = via_fp16(v);
				if (j > 0) { /* any NaN sum is the one quiet NaN */
					acc = acc + v;
					acc = acc != acc ? f32_of(0x7fc00000u) : acc;
				}
				acc = j == 0 ? v : fp16 ? via_fp16(acc) : acc;
			}
			y[i] = mean ? acc / (float)w : acc;
		}
	}
}

struct bufs {
	struct quire_buf *x, *y;
	float *all[QUIRE_MAX_WORKERS];
	float *want;
};

/* One all-reduce on comm (whose ranks may be any order of the world's). */
static int run_allreduce(struct quire_comm *comm, struct bufs *b, enum quire_format fmt,
			 enum quire_reduce_op op, size_t n, struct quire_ef *ef)
{
	struct quire_allreduce_args a = {fmt, op, n, {b->x, 0}, {b->y, 0}, ef};
	struct quire_req *req;
	int st = quire_allreduce(comm, &a, &req);
	if (st)
		return st;
	st = quire_wait(req, QUIRE_WAIT_DEFAULT);
	quire_req_free(req);
	return st;
}

static void bfp_and_float_checks(struct quire_ctx *ctx, struct quire_comm *world)
{
	static const size_t sizes[] = {1, 63, 64, 65, 4099, (1u << 20) + 7};
	static const enum quire_format fmts[] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16, QUIRE_FMT_FP16,
						 QUIRE_FMT_FP32};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		struct bufs b = {0};
		quire_buf_alloc(ctx, 4 * n, &b.x);
		quire_buf_alloc(ctx, 4 * n, &b.y);
		b.want = malloc(4 * n);
		for (int r = 0; r < world_size; r++) {
			b.all[r] = malloc(4 * n);
			input(r, (int)s, n, b.all[r]);
		}
		memcpy(quire_buf_ptr(b.x), b.all[world_rank], 4 * n);
		for (int f = 0; f < 4; f++) {
			int bfp = fmts[f] == QUIRE_FMT_BFP8 || fmts[f] == QUIRE_FMT_BFP16;
			for (int mean = 0; mean < 2; mean++) {
				enum quire_reduce_op op = mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM;
				if (bfp)
					quire_codec_allreduce(fmts[f], op, (uint32_t)world_size, n,
							      (const float *const *)b.all, NULL,
							      b.want);
				else
					ref_float(fmts[f] == QUIRE_FMT_FP16, mean, world_size, n,
						  b.all, b.want);
				/* Rank orders: all permutations for small W and n, else a few. */
				int orders = 0, ok = 1;
				int exhaustive = world_size <= 4 && n <= 4099 && bfp;
				int count = exhaustive ? (world_size == 4   ? 24
							  : world_size == 3 ? 6
									    : 2)
						       : (bfp ? 3 : 1);
				for (int p = 0; p < count; p++) {
					/* The p-th order: rank r of the new communicator is world
					 * rank perm[r]. */
					int perm[QUIRE_MAX_WORKERS], used[QUIRE_MAX_WORKERS] = {0},
								     rem = p;
					for (int i = 0; i < world_size; i++) {
						if (exhaustive) {
							int fact = 1;
							for (int j = 2; j < world_size - i; j++)
								fact *= j;
							int pick = rem / fact;
							rem %= fact;
							for (int j = 0; j < world_size; j++)
								if (!used[j] && pick-- == 0) {
									perm[i] = j;
									used[j] = 1;
									break;
								}
						} else {
							perm[i] = p == 0   ? i
								  : p == 1 ? world_size - 1 - i
									   : (i + 1) % world_size;
						}
					}
					int key = 0;
					for (int i = 0; i < world_size; i++)
						if (perm[i] == world_rank)
							key = i;
					MPI_Comm split;
					MPI_Comm_split(MPI_COMM_WORLD, 0, key, &split);
					struct quire_comm *comm;
					quire_comm_from_mpi(ctx, split, &comm);
					/* fp16/fp32 add in the order of the communicator's ranks:
					 * world only. */
					int st = run_allreduce(bfp ? comm : world, &b, fmts[f], op,
							       n, NULL);
					ok &= st == QUIRE_OK &&
					      memcmp(quire_buf_ptr(b.y), b.want, 4 * n) == 0;
					if (getenv("QUIRE_TEST_DEBUG") && world_rank == 0)
						for (size_t i = 0; i < n; i++) {
							uint32_t g, e;
							memcpy(&g, (float *)quire_buf_ptr(b.y) + i,
							       4);
							memcpy(&e, b.want + i, 4);
							if (g != e) {
								printf(
								    "  [%zu] got %08x want %08x\n",
								    i, g, e);
								break;
							}
						}
					quire_comm_free(comm);
					MPI_Comm_free(&split);
					orders++;
				}
				report(ok,
				       "allreduce %s %s W=%d n=%zu: same bits on every rank%s (%d "
				       "order%s)",
				       quire_format_name(fmts[f]), mean ? "mean" : "sum",
				       world_size, n,
				       bfp ? ", every order, as quire_codec_allreduce"
					   : ", documented order",
				       orders, orders > 1 ? "s" : "");
			}
		}
		for (int r = 0; r < world_size; r++)
			free(b.all[r]);
		free(b.want);
		quire_buf_free(b.x);
		quire_buf_free(b.y);
	}
}

static void ef_check(struct quire_ctx *ctx, struct quire_comm *world)
{
	size_t n = 4099;
	struct quire_ef *ef;
	quire_ef_create(ctx, n, &ef);
	struct bufs b = {0};
	quire_buf_alloc(ctx, 4 * n, &b.x);
	quire_buf_alloc(ctx, 4 * n, &b.y);
	float *resid[QUIRE_MAX_WORKERS], *want = malloc(4 * n);
	for (int r = 0; r < world_size; r++) {
		b.all[r] = malloc(4 * n);
		resid[r] = calloc(n, 4);
	}
	int ok = 1;
	for (int step = 0; step < 4; step++) {
		for (int r = 0; r < world_size; r++)
			input(r, 100 + step, n, b.all[r]);
		memcpy(quire_buf_ptr(b.x), b.all[world_rank], 4 * n);
		quire_codec_allreduce(QUIRE_FMT_BFP8, QUIRE_OP_MEAN, (uint32_t)world_size, n,
				      (const float *const *)b.all, resid, want);
		ok &= run_allreduce(world, &b, QUIRE_FMT_BFP8, QUIRE_OP_MEAN, n, ef) == QUIRE_OK;
		ok &= memcmp(quire_buf_ptr(b.y), want, 4 * n) == 0;
	}
	report(ok, "allreduce bfp8 + error feedback, 4 steps: as W local workers with residuals");
	for (int r = 0; r < world_size; r++) {
		free(b.all[r]);
		free(resid[r]);
	}
	free(want);
	quire_ef_free(ef);
	quire_buf_free(b.x);
	quire_buf_free(b.y);
}

/* Every rank's input of a requantized case: mostly alike across ranks, as gradients are. */
static void alike_inputs(int tag, size_t n, float *const *all)
{
	struct rng g = {(uint64_t)tag * 104729u};
	for (int r = 0; r < world_size; r++)
		input(r, tag, n, all[r]);
	for (int r = 1; r < world_size; r++)
		for (size_t i = 0; i < n; i++)
			if (rng_below(&g, 4))
				all[r][i] = all[0][i] * (1.0f - 0.0625f * (float)r);
}

/*
 * The requantized all-gather (QUIRE_COMM_OPT_REQUANT) against the golden model
 * (hls/allreduce_golden.c) on this backend: two steps with error feedback, this rank's
 * result, its worker residual and its owner residual, bit for bit. Then ranks that set
 * the option differently: QUIRE_ERR_MISMATCH on every rank, the residual unchanged.
 */
static void requant_checks(struct quire_ctx *ctx, struct quire_comm *world)
{
	static const size_t sizes[] = {1, 65, 4099, 100003};
	uint32_t w = (uint32_t)world_size;
	quire_comm_set_options(world, QUIRE_COMM_OPT_REQUANT);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int c = 0; c < 3; c++) {
			size_t n = sizes[s], off, len;
			enum quire_format fmt = c == 2 ? QUIRE_FMT_BFP16 : QUIRE_FMT_BFP8;
			int mean = c != 0;
			quire_comm_chunk(n, world_size, world_rank, &off, &len);
			struct quire_ef *ef;
			quire_ef_create(ctx, n, &ef);
			struct bufs b = {0};
			quire_buf_alloc(ctx, 4 * n, &b.x);
			quire_buf_alloc(ctx, 4 * n, &b.y);
			float *resid[QUIRE_MAX_WORKERS], *own[QUIRE_MAX_WORKERS];
			float *want = malloc(4 * n), *got = malloc(4 * n);
			void *scratch =
			    aligned_alloc(8, quire_golden_scratch_bytes(w, (uint32_t)n) + 8);
			for (int r = 0; r < world_size; r++) {
				b.all[r] = malloc(4 * n);
				resid[r] = calloc(n, 4);
				own[r] = calloc(n, 4);
			}
			int ok = 1;
			for (int step = 0; step < 2; step++) {
				alike_inputs(400 + 10 * (int)s + c + 100 * step, n, b.all);
				memcpy(quire_buf_ptr(b.x), b.all[world_rank], 4 * n);
				ok &= quire_golden_allreduce(fmt, mean, w, (uint32_t)n, 1,
							     (const float *const *)b.all, resid,
							     own, want, scratch) == QUIRE_OK;
				ok &= run_allreduce(world, &b, fmt,
						    mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM, n,
						    ef) == QUIRE_OK;
				ok &= memcmp(quire_buf_ptr(b.y), want, 4 * n) == 0;
				ok &= quire_ef_read(ef, got, n) == QUIRE_OK &&
				      memcmp(got, resid[world_rank], 4 * n) == 0;
				ok &= quire_ef_owner_len(ef) == len &&
				      quire_ef_read_owner(ef, got, len) == QUIRE_OK &&
				      memcmp(got, own[world_rank], 4 * len) == 0;
			}
			report(ok,
			       "allreduce %s %s requantized + error feedback W=%d n=%zu, 2 steps: "
			       "the golden model's bits and residuals",
			       quire_format_name(fmt), mean ? "mean" : "sum", world_size, n);
			for (int r = 0; r < world_size; r++) {
				free(b.all[r]);
				free(resid[r]);
				free(own[r]);
			}
			free(want);
			free(got);
			free(scratch);
			quire_ef_free(ef);
			quire_buf_free(b.x);
			quire_buf_free(b.y);
		}
	quire_comm_set_options(world, 0);
	if (world_size < 2)
		return;
	/* Rank 1 without the option, on a communicator of its own (cards fail theirs), with a
	 * timeout: a rank that never learns of the mismatch fails the check, not the job. */
	struct quire_comm *c;
	size_t n = 5000;
	quire_comm_from_mpi_timeout(ctx, MPI_COMM_WORLD, 5000, &c);
	if (world_rank != 1)
		quire_comm_set_options(c, QUIRE_COMM_OPT_REQUANT);
	struct quire_ef *ef;
	quire_ef_create(ctx, n, &ef);
	struct bufs b = {0};
	quire_buf_alloc(ctx, 4 * n, &b.x);
	quire_buf_alloc(ctx, 4 * n, &b.y);
	input(world_rank, 500, n, quire_buf_ptr(b.x));
	float *got = malloc(4 * n);
	int ok = run_allreduce(c, &b, QUIRE_FMT_BFP8, QUIRE_OP_MEAN, n, ef) == QUIRE_ERR_MISMATCH;
	ok &= quire_ef_read(ef, got, n) == QUIRE_OK;
	for (size_t i = 0; i < n; i++)
		ok &= got[i] == 0;
	report(ok, "options set differently: QUIRE_ERR_MISMATCH on every rank, residuals kept");
	free(got);
	quire_ef_free(ef);
	quire_buf_free(b.x);
	quire_buf_free(b.y);
	quire_comm_free(c);
}

static void other_collectives(struct quire_ctx *ctx, struct quire_comm *world)
{
	struct quire_buf *a, *g;
	quire_buf_alloc(ctx, 4096, &a);
	quire_buf_alloc(ctx, 4096 * (size_t)world_size, &g);
	int32_t *v = quire_buf_ptr(a);
	for (int i = 0; i < 1024; i++)
		v[i] = world_rank == 1 % world_size ? i * 3 : -1;
	int ok = quire_broadcast(world, (struct quire_ref){a, 0}, 4096, 1 % world_size, NULL) ==
		 QUIRE_OK;
	for (int i = 0; i < 1024; i++)
		ok &= v[i] == i * 3;
	report(ok, "broadcast from rank %d", 1 % world_size);
	for (int i = 0; i < 1024; i++)
		v[i] = world_rank * 10000 + i;
	ok = quire_allgather(world, (struct quire_ref){a, 0}, (struct quire_ref){g, 0}, 4096,
			     NULL) == QUIRE_OK;
	for (int r = 0; r < world_size; r++)
		for (int i = 0; i < 1024; i++)
			ok &= ((int32_t *)quire_buf_ptr(g))[r * 1024 + i] == r * 10000 + i;
	report(ok, "allgather, rank order");
	/* int32: exact, and an overflow reported on every rank rather than wrapped. */
	for (int i = 0; i < 1024; i++)
		v[i] = i == 7 ? INT32_MAX / world_size + 1 : i - world_rank;
	struct quire_allreduce_args ia = {QUIRE_FMT_INT32, QUIRE_OP_SUM, 1024,
					  {a, 0},          {a, 0},       NULL};
	int st = quire_allreduce(world, &ia, NULL);
	ok = (world_size > 1 ? st == QUIRE_ERR_OVERFLOW : st == QUIRE_OK) &&
	     v[8] == 8 * world_size - world_size * (world_size - 1) / 2;
	report(ok, "allreduce int32: exact sums, overflow reported");
	/* reduce-scatter: this rank's chunk of the all-reduce. */
	size_t n = 10000, off, len;
	struct quire_buf *x, *y, *full;
	quire_buf_alloc(ctx, 4 * n, &x);
	quire_buf_alloc(ctx, 4 * n, &y);
	quire_buf_alloc(ctx, 4 * n, &full);
	input(world_rank, 77, n, quire_buf_ptr(x));
	struct quire_allreduce_args ra = {QUIRE_FMT_BFP8, QUIRE_OP_SUM, n, {x, 0}, {full, 0}, NULL};
	ok = quire_allreduce(world, &ra, NULL) == QUIRE_OK;
	ra.dst = (struct quire_ref){y, 0};
	ok &= quire_reduce_scatter(world, &ra, NULL) == QUIRE_OK;
	quire_comm_chunk(n, world_size, world_rank, &off, &len);
	ok &= memcmp(quire_buf_ptr(y), (float *)quire_buf_ptr(full) + off, 4 * len) == 0;
	report(ok, "reduce-scatter: this rank's chunk of the all-reduce");
	report(quire_barrier(world, NULL) == QUIRE_OK, "barrier");
	/* Bad arguments are refused before anything moves. */
	ra.format = QUIRE_FMT_INT8;
	ok = quire_allreduce(world, &ra, NULL) == QUIRE_ERR_FORMAT;
	ra.format = QUIRE_FMT_FP32;
	ra.src = (struct quire_ref){x, 4}; /* src one element past its buffer */
	ok &= quire_allreduce(world, &ra, NULL) == QUIRE_ERR_RANGE;
	ok &= quire_reduce_scatter(world, &ra, NULL) == QUIRE_ERR_RANGE;
	ra.src = (struct quire_ref){x, 0};
	ra.format = QUIRE_FMT_FP16;
	ra.ef = (struct quire_ef *)1;
	ok &= quire_allreduce(world, &ra, NULL) == QUIRE_ERR_INVALID;
	ok &= quire_broadcast(world, (struct quire_ref){a, 0}, 4096, world_size, NULL) ==
	      QUIRE_ERR_INVALID;
	ok &= quire_allgather(world, (struct quire_ref){a, 0}, (struct quire_ref){a, 0}, 4096,
			      NULL) == (world_size > 1 ? QUIRE_ERR_RANGE : QUIRE_OK);
	report(ok, "bad arguments refused");
	quire_buf_free(a);
	quire_buf_free(g);
	quire_buf_free(x);
	quire_buf_free(y);
	quire_buf_free(full);
}

/* A network directory for this job's simulated cards (rank 0 makes it), and one card's URI. */
static void sim_uri(char *net, size_t net_size, char *uri, size_t uri_size)
{
	if (world_rank == 0 && !mkdtemp(strcpy(net, "/tmp/quire-mpi-net-XXXXXX")))
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Bcast(net, (int)net_size, MPI_CHAR, 0, MPI_COMM_WORLD);
	snprintf(uri, uri_size, "sim:inproc,net=%s,addr=%d", net, 10 + world_rank);
}

/* One collective on each backend from the same inputs: the same status and bits. */
static int same_on_both(struct quire_ctx *ctx[2], struct quire_comm *comm[2], enum quire_format fmt,
			enum quire_reduce_op op, size_t n, struct quire_ef *ef[2], int scatter,
			const float *x)
{
	float *y[2];
	int st[2];
	size_t off = 0, len = n;
	if (scatter)
		quire_comm_chunk(n, world_size, world_rank, &off, &len);
	for (int b = 0; b < 2; b++) {
		struct quire_buf *xb, *yb;
		quire_buf_alloc(ctx[b], 4 * n, &xb);
		quire_buf_alloc(ctx[b], 4 * n, &yb);
		memcpy(quire_buf_ptr(xb), x, 4 * n);
		memset(quire_buf_ptr(yb), 0x5a, 4 * n);
		struct quire_allreduce_args a = {fmt, op, n, {xb, 0}, {yb, 0}, ef ? ef[b] : NULL};
		struct quire_req *req;
		st[b] = scatter ? quire_reduce_scatter(comm[b], &a, &req)
				: quire_allreduce(comm[b], &a, &req);
		if (!st[b]) {
			st[b] = quire_wait(req, QUIRE_WAIT_DEFAULT);
			quire_req_free(req);
		}
		y[b] = malloc(4 * n);
		memcpy(y[b], quire_buf_ptr(yb), 4 * n);
		quire_buf_free(xb);
		quire_buf_free(yb);
	}
	int ok = st[0] == st[1] && (st[0] == QUIRE_OK || st[0] == QUIRE_ERR_OVERFLOW) &&
		 memcmp(y[0], y[1], 4 * len) == 0;
	free(y[0]);
	free(y[1]);
	return ok;
}

/* cpu over MPI against simulated cards, directly: every format, sizes that end mid-block. */
static void cross_checks(struct quire_ctx *cpu, struct quire_comm *world)
{
	char net[64] = "", uri[128];
	sim_uri(net, sizeof(net), uri, sizeof(uri));
	struct quire_ctx *card;
	struct quire_comm *cards;
	if (quire_open(uri, &card) || quire_comm_from_mpi(card, MPI_COMM_WORLD, &cards)) {
		fprintf(stderr, "rank %d: cannot open a communicator on %s\n", world_rank, uri);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	struct quire_ctx *ctx[2] = {cpu, card};
	struct quire_comm *comm[2] = {world, cards};
	static const size_t sizes[] = {1, 65, 4099, 100003};
	static const enum quire_format fmts[] = {QUIRE_FMT_FP32, QUIRE_FMT_FP16, QUIRE_FMT_BFP8,
						 QUIRE_FMT_BFP16};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		float *x = malloc(4 * n);
		input(world_rank, 200 + (int)s, n, x);
		for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
			for (int mean = 0; mean < 2; mean++)
				for (int scatter = 0; scatter < 2; scatter++)
					report(same_on_both(ctx, comm, fmts[f],
							    mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM, n,
							    NULL, scatter, x),
					       "cpu = sim: %s %s %s W=%d n=%zu",
					       scatter ? "reduce-scatter" : "allreduce",
					       quire_format_name(fmts[f]), mean ? "mean" : "sum",
					       world_size, n);
		/* int32: exact sums of wide values, then one that leaves int32 on some elements. */
		int32_t *v = (int32_t *)x;
		for (size_t i = 0; i < n; i++)
			v[i] =
			    (int32_t)((uint32_t)(i * 2654435761u) ^ (uint32_t)world_rank * 40503u) /
			    (world_size + 1);
		report(same_on_both(ctx, comm, QUIRE_FMT_INT32, QUIRE_OP_SUM, n, NULL, 0, x),
		       "cpu = sim: allreduce int32 W=%d n=%zu", world_size, n);
		for (size_t i = 0; i < n; i += 7)
			v[i] = i % 2 ? INT32_MAX : INT32_MIN;
		report(same_on_both(ctx, comm, QUIRE_FMT_INT32, QUIRE_OP_SUM, n, NULL, 0, x),
		       "cpu = sim: allreduce int32 W=%d n=%zu, overflow saturated and reported",
		       world_size, n);
		/* bfp8 with error feedback: each step's result depends on the residuals the steps
		 * before left, so equal results step after step show equal residuals too. */
		struct quire_ef *ef[2];
		quire_ef_create(cpu, n, &ef[0]);
		quire_ef_create(card, n, &ef[1]);
		int ok = 1;
		for (int step = 0; step < 3; step++) {
			input(world_rank, 300 + step, n, x);
			ok &= same_on_both(ctx, comm, QUIRE_FMT_BFP8, QUIRE_OP_MEAN, n, ef, 0, x);
		}
		report(ok, "cpu = sim: allreduce bfp8 + error feedback W=%d n=%zu, 3 steps",
		       world_size, n);
		quire_ef_free(ef[0]);
		quire_ef_free(ef[1]);
		/* The same, requantized at the owners (their residuals carried too). */
		quire_ef_create(cpu, n, &ef[0]);
		quire_ef_create(card, n, &ef[1]);
		for (int b = 0; b < 2; b++)
			quire_comm_set_options(comm[b], QUIRE_COMM_OPT_REQUANT);
		ok = 1;
		for (int step = 0; step < 3; step++) {
			input(world_rank, 350 + step, n, x);
			ok &= same_on_both(ctx, comm, QUIRE_FMT_BFP8,
					   step ? QUIRE_OP_MEAN : QUIRE_OP_SUM, n, ef, 0, x);
		}
		for (int b = 0; b < 2; b++)
			quire_comm_set_options(comm[b], 0);
		report(ok,
		       "cpu = sim: allreduce bfp8 requantized + error feedback W=%d n=%zu, 3 steps",
		       world_size, n);
		quire_ef_free(ef[0]);
		quire_ef_free(ef[1]);
		free(x);
	}
	quire_comm_free(cards);
	quire_close(card);
	MPI_Barrier(MPI_COMM_WORLD);
	if (world_rank == 0 && rmdir(net) != 0)
		report(0, "the network directory %s is empty", net);
}

/* cpu: a rank that stays silent fails the others' collective with QUIRE_ERR_TIMEOUT
 * within the communicator's limit, never a hang; the communicator then refuses more. */
static void silent_rank(struct quire_ctx *ctx)
{
	if (world_size < 2)
		return;
	struct quire_comm *comm;
	int limit = 300, silent = world_rank == world_size - 1, ok = 1;
	ok &= quire_comm_from_mpi_timeout(ctx, MPI_COMM_WORLD, limit, &comm) == QUIRE_OK;
	struct quire_buf *x;
	quire_buf_alloc(ctx, 4 * 100, &x);
	memset(quire_buf_ptr(x), 0, 4 * 100);
	if (!silent) {
		struct quire_allreduce_args a = {QUIRE_FMT_FP32, QUIRE_OP_SUM, 100,
						 {x, 0},         {x, 0},       NULL};
		double t0 = MPI_Wtime();
		ok &= quire_allreduce(comm, &a, NULL) == QUIRE_ERR_TIMEOUT;
		double t = MPI_Wtime() - t0;
		ok &= t >= 0.25 &&
		      t < 0.25 + 2.0 * world_size; /* each rank waits once for its left */
		ok &= quire_allreduce(comm, &a, NULL) == QUIRE_ERR_PEER;
	}
	report(ok, "a silent rank: QUIRE_ERR_TIMEOUT on the others after %d ms, then refused",
	       limit);
	quire_comm_free(comm);
	quire_buf_free(x);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &world_size);
	const char *backend = argc > 1 ? argv[1] : "cpu";
	/* sim: one card per rank in this process, on a network in a directory rank 0 makes. */
	char net[64] = "", uri[128] = "cpu";
	if (strcmp(backend, "sim") == 0) {
		sim_uri(net, sizeof(net), uri, sizeof(uri));
	} else if (strcmp(backend, "cpu") != 0) {
		fprintf(stderr, "usage: test_comm_mpi [cpu|sim]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	struct quire_ctx *ctx;
	struct quire_comm *world;
	if (quire_open(uri, &ctx) || quire_comm_from_mpi(ctx, MPI_COMM_WORLD, &world)) {
		fprintf(stderr, "rank %d: cannot open a communicator on %s\n", world_rank, uri);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	struct quire_ctx *lone;
	struct quire_comm *nope = NULL;
	if (quire_open("sim:inproc", &lone) == QUIRE_OK) {
		report(quire_comm_from_mpi(lone, MPI_COMM_WORLD, &nope) ==
			       QUIRE_ERR_NOT_SUPPORTED &&
			   !nope,
		       "a card without a network port: no communicator, a clear error");
		quire_close(lone);
	}
	bfp_and_float_checks(ctx, world);
	ef_check(ctx, world);
	requant_checks(ctx, world);
	other_collectives(ctx, world);
	if (strcmp(backend, "cpu") == 0) {
		cross_checks(ctx, world);
		silent_rank(ctx);
	}
	if (world_rank == 0)
		printf("mpi %s W=%d: %d passed, %d failed\n", backend, world_size, passed, failed);
	quire_comm_free(world);
	quire_close(ctx);
	MPI_Barrier(MPI_COMM_WORLD);
	if (world_rank == 0 && *net && rmdir(net) != 0) {
		printf("FAIL the network directory %s is not empty\n", net);
		failed++;
	}
	MPI_Finalize();
	return failed ? 1 : 0;
}
