// SPDX-License-Identifier: MIT
/*
 * The pipelined commands, ENCODE (and EXPONENTS), DECODE and REDUCE: each chunk of the
 * vector in on DMA channel 0, through its engine run, and out on channel 1, chunk k in
 * buffer set k % FW_PIPE_SETS (layout.h). The three go on at once: the transfers of the
 * chunks ahead are posted to channel 0's queue as soon as their set is free (the set's
 * chunk before has gone out), a chunk's run starts once channel 0 counts its transfers
 * done, and its transfers out are posted to channel 1's queue as the run ends. The mover
 * goes from one queued transfer to the next by itself, so the host link does not wait for
 * the control core (docs/registers/dma.md); the core counts transfers done, never waits on
 * one.
 *
 * The first chunk's transfers in of src (REDUCE's: every input's; DECODE's exponents too)
 * go before the rest: they
 * are posted as soon as the descriptor is fetched, before its validation and the checks of
 * its buffers (about a thousand cycles of the core, fw_pipe_prefetch), from its words
 * alone. They write only the card's own buffer, and the mover keeps them to the host window
 * and to the command's epoch; a pipeline that begins with them takes them as posted, and a
 * command that does not (refused, or not the transfers its pipeline begins with) waits for
 * them to finish.
 *
 * DECODE with dst on a 64-byte line runs no engine: each chunk goes out as it came in, the
 * mover decoding it on the way (QUIRE_DMA_TO_HOST_DECODE, on channel 1), so the host link
 * out, which bounds DECODE, starts as soon as the first chunk is in. A chunk whose exponents
 * the mover refuses ends the command with QUIRE_ERR_RANGE; chunks posted after it may still
 * go out (dst is not defined after a failed command).
 *
 * A failure ends the command with its status: an engine run's stops its chunk and the ones
 * after it from running (the chunks before still go out); a transfer's (the host left, so
 * its epoch is over) stops every chunk not yet run. What was posted finishes before the
 * command's completion, so no transfer of a command outlives it.
 */
#include "dma.h"
#include "engines.h"
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/format.h"
#include "quire/status.h"

_Static_assert((FW_PIPE_SETS & (FW_PIPE_SETS - 1)) == 0, "a chunk's set is its index's low bits");

enum { PIPE_IN, PIPE_OUT, PIPE_CHANNELS, PIPE_MAX_XFERS = 3 };
#define PIPE_NO_RUN 0u /* a pipeline whose chunks go out as they came in: no engine kind */

/* A transfer of each chunk: host + (i << lg >> shift) for its elements [i, i + len),
 * (len << lg) >> shift bytes rounded up, at card + (set << set_lg) (+ r * card_rep for its
 * r-th repeat, host + r * host_rep: REDUCE's W inputs). */
struct pipe_xfer {
	uint64_t host, host_rep;
	uint32_t card, set_lg, card_rep, reps, lg, shift;
};

struct pipe {
	uint32_t n, chunk, first; /* elements; chunks of up to chunk, the first of first */
	/* A chunk's transfers on each channel, and those with their repeats. */
	uint32_t nx[PIPE_CHANNELS], per[PIPE_CHANNELS];
	struct pipe_xfer x[PIPE_CHANNELS][PIPE_MAX_XFERS];
	/* Transfers out decoded on the way (QUIRE_DMA_TO_HOST_DECODE): the DECODE word (0:
	 * plain transfers out), and the exponents of set 0, each chunk's those of its set. */
	uint32_t out_decode, out_exp;
	/* The engine run of a chunk: args with N and the card buffers of set 0; what a chunk's
	 * run writes: N to register n_reg, and the nsets buffers of its set, register
	 * set_reg[k] taking set_val[k] + (set << set_lg[k]). */
	uint32_t kind, nargs, arg_n, nsets, n_reg;
	uint32_t a[QUIRE_ENGINE_MAX_ARGS];
	uint32_t set_reg[QUIRE_ENGINE_MAX_ARGS], set_val[QUIRE_ENGINE_MAX_ARGS],
	    set_lg[QUIRE_ENGINE_MAX_ARGS];
	int overflow; /* REDUCE: an engine's saturation, the rest still summed */
};

/* Where a unit (the transfers in, the runs, the transfers out) is: its next chunk, that
 * chunk's first element and its elements; for a channel, the chunk's next transfer and
 * repeat, and that transfer's host address, card address and length (pipe_aim). */
struct pipe_unit {
	uint32_t c, i, len, j, r;
	uint64_t host;
	uint32_t card, bytes;
};

/* A transfer of each chunk on channel ch: `bytes` bytes an element (a power of 2), or one
 * byte a block of them (shift 6: the exponents). */
static inline __attribute__((always_inline)) void
pipe_add(struct pipe *p, uint32_t ch, uint64_t host, uint32_t card, uint32_t bytes, uint32_t shift)
{
	struct pipe_xfer *x = &p->x[ch][p->nx[ch]++];
	p->per[ch]++;
	x->host = host;
	x->host_rep = 0;
	x->card = card;
	x->set_lg = __builtin_ctz(FW_PIPE_SET_BYTES);
	x->card_rep = 0;
	x->reps = 1;
	x->lg = (bytes >> 1) - (bytes >> 3); /* 1, 2, 4, 8: 0, 1, 2, 3 */
	x->shift = shift;
}

/* The elements of the chunk that starts at element i:
 * - the first, p->first; while that is shorter than a whole chunk (DECODE's), about 5/16 of
 *   what came before, at least p->first, so that each run ends before the transfers out of
 *   the chunks before it do (the engine writes 4/3 as fast as the host link takes);
 * - whole chunks;
 * - once fewer than four are left, a quarter of what is left, rounded up to FW_PIPE_STEP
 *   and at least FW_PIPE_TAIL: each chunk about three quarters of the one before, so the
 *   engine, 4/3 as fast as the host link, finishes a chunk about as the next one is in;
 * - the last FW_PIPE_TAIL in two, the last chunk FW_PIPE_STEP or less: the last run and
 *   its transfers out, which nothing overlaps, are short.
 * Every chunk but the last is a whole number of FW_PIPE_STEP elements. */
static uint32_t pipe_len(const struct pipe *p, uint32_t i)
{
	uint32_t ramp = (i / 4 + i / 16) & ~(FW_PIPE_STEP - 1);
	uint32_t left = p->n - i, len = min_u32(p->chunk, ramp < p->first ? p->first : ramp);
	if (i == 0)
		return min_u32(p->first, left);
	if (left <= FW_PIPE_TAIL) /* the last FW_PIPE_STEP or less apart */
		return left > FW_PIPE_STEP ? (left - 1) & ~(FW_PIPE_STEP - 1) : left;
	uint32_t quarter = (left / 4 + FW_PIPE_STEP - 1) & ~(FW_PIPE_STEP - 1);
	return min_u32(len, quarter < FW_PIPE_TAIL ? FW_PIPE_TAIL : quarter);
}

/* The unit on to its next chunk (inline: the loop's rounds are the pipeline's overhead). */
static inline __attribute__((always_inline)) void pipe_next(const struct pipe *p,
							    struct pipe_unit *u)
{
	u->c++;
	u->i += u->len;
	u->len = pipe_len(p, u->i);
}

/* The unit's transfer on channel ch: transfer j of its chunk, its first repeat. The host
 * offset, (i << lg) >> shift, as (i >> shift) << lg: a chunk starts on a whole number of
 * blocks. */
static void pipe_aim(const struct pipe *p, uint32_t ch, struct pipe_unit *u)
{
	const struct pipe_xfer *x = &p->x[ch][u->j];
	u->host = x->host + (uint64_t)(u->i >> x->shift) * (1u << x->lg); /* no 64-bit shift call */
	u->card = x->card + ((u->c & (FW_PIPE_SETS - 1)) << x->set_lg);
	u->bytes = ((u->len << x->lg) + (1u << x->shift) - 1) >> x->shift;
}

/* Post the unit's transfer to channel ch (or, without `go`, count it as posted: the
 * prefetch), and aim at the next: the next repeat, the chunk's next transfer, or the next
 * chunk's first. The transfer's direction and epoch are the channel's, as pipe_run wrote
 * them. Every pipeline has transfers both ways. */
static void pipe_post(struct quire_fw *fw, const struct pipe *p, uint32_t ch, struct pipe_unit *u,
		      int go)
{
	const struct pipe_xfer *x = &p->x[ch][u->j];
	if (go && ch == PIPE_OUT && p->out_decode)
		hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + QUIRE_DMA_EXP,
			    p->out_exp + ((u->c & (FW_PIPE_SETS - 1)) << x->set_lg));
	if (go)
		fw_dma_post(fw, ch, u->host, u->card, u->bytes);
	if (++u->r < x->reps) {
		u->host += x->host_rep;
		u->card += x->card_rep;
		return;
	}
	u->r = 0;
	if (++u->j == p->nx[ch]) {
		u->j = 0;
		pipe_next(p, u);
	}
	if (u->i < p->n) /* none after the last */
		pipe_aim(p, ch, u);
}

/* A channel's unit at the first transfer of the first chunk, of len elements. */
static void pipe_unit_start(const struct pipe *p, uint32_t ch, struct pipe_unit *u, uint32_t len)
{
	const struct pipe_xfer *x = &p->x[ch][0];
	u->c = u->i = u->j = u->r = 0;
	u->len = len;
	u->host = x->host; /* pipe_aim's, at element 0 of set 0 */
	u->card = x->card;
	u->bytes = ((len << x->lg) + (1u << x->shift) - 1) >> x->shift;
}

/* Post the transfer in of unit u, and its repeats after it (REDUCE's W inputs) while the
 * queue has room: one round of pipe_run's loop for all, the length as it was. */
static void pipe_post_in(struct quire_fw *fw, const struct pipe *p, struct pipe_unit *u,
			 uint32_t room)
{
	pipe_post(fw, p, PIPE_IN, u, 1);
	while (u->r != 0 && --room != 0) {
		fw_dma_where(fw, PIPE_IN, u->host, u->card); /* the length as it was */
		fw_dma_start(fw, PIPE_IN);
		pipe_post(fw, p, PIPE_IN, u, 0);
	}
}

/* The transfers channel ch's queue has room for, its count of those done being `done`. */
static uint32_t pipe_room(const struct quire_fw *fw, uint32_t ch, uint32_t done)
{
	return QUIRE_DMA_QUEUE_DEPTH - (fw->dma_posted[ch] - done);
}

/* The arguments of the run of chunk c of len elements written, while the run before it works (a run
 * takes them at its START): N and the set's buffers, the others as the first run wrote them. */
static void pipe_arm(struct quire_fw *fw, const struct pipe *p, uint32_t c, uint32_t len)
{
	uint32_t set = c & (FW_PIPE_SETS - 1);
	for (uint32_t k = 0; k < p->nsets; k++)
		hal_write32(fw, p->set_reg[k], p->set_val[k] + (set << p->set_lg[k]));
	hal_write32(fw, p->n_reg, len);
}

/* Start the run of chunk u, its arguments written (the first run's all of them here, the
 * others' by pipe_arm), and write the next run's. QUIRE_OK, or why it did not start. */
static int pipe_start(struct quire_fw *fw, struct pipe *p, const struct pipe_unit *u,
		      uint32_t *faults)
{
	if (u->c == 0) {
		p->a[p->arg_n] = u->len;
		int st = fw_engine_start(fw, p->kind, p->a, p->nargs, faults);
		if (st != QUIRE_OK)
			return st;
	} else {
		fw_engine_go(fw, p->kind, faults);
	}
	uint32_t i = u->i + u->len;
	if (i < p->n)
		pipe_arm(fw, p, u->c + 1, pipe_len(p, i));
	return QUIRE_OK;
}

/* The bytes channel ch moved since *mark, into the DMA_BYTES counter. Read at least once a
 * chunk, so the difference never wraps. */
static void pipe_bytes(struct quire_fw *fw, uint32_t ch, uint32_t *mark)
{
	uint32_t now = fw_dma_reg(fw, ch, QUIRE_DMA_BYTES_DONE);
	fw->dma_bytes += now - *mark;
	*mark = now;
}

/* REDUCE's chunk: all W inputs of a chunk side by side in a set's input buffer. */
static uint32_t pipe_reduce_chunk(uint32_t w, uint32_t in_b)
{
	return min_u32(FW_PIPE_ELEMS, FW_PIPE_REDUCE_IN_BYTES / (w * in_b)) &
	       ~(QUIRE_BFP_BLOCK - 1);
}

/* The first transfer in of a pipelined opcode's descriptor, before it is validated: the
 * first chunk of src (pipe_len's), from the descriptor's words alone. Garbage in them
 * costs a transfer into the card's own buffer, or one the mover refuses. */
void fw_pipe_prefetch(struct quire_fw *fw, uint32_t desc, uint32_t w0)
{
	uint32_t op = w0 & 0xffu, card = FW_BUF_A, elem = 4, first = FW_PIPE_ELEMS, reps = 1,
		 exps = 0;
	if (op == QUIRE_OPC_DECODE || op == QUIRE_OPC_REDUCE) {
		uint32_t formats = hal_read32(fw, desc + 4 * QUIRE_CMD_W_FORMATS);
		elem = quire_format_elem_bytes(formats & 0xffffu);
		if (op == QUIRE_OPC_DECODE) {
			first = FW_PIPE_FIRST;
			exps = w0 >> 16 != QUIRE_FMT_FP16; /* and the first chunk's exponents */
		} else {
			if (elem == 0 || formats >> 16 == 0)
				return; /* no chunk: the descriptor is refused */
			card = FW_REDUCE_IN;
			first = pipe_reduce_chunk(formats >> 16, elem);
			if (formats >> 16 <= QUIRE_DMA_QUEUE_DEPTH)
				reps = formats >> 16; /* every worker's first chunk */
		}
	} else if (op != QUIRE_OPC_ENCODE && op != QUIRE_OPC_EXPONENTS) {
		return;
	}
	uint32_t n = min_u32(hal_read32(fw, desc + 4 * QUIRE_CMD_W_COUNT), first), bytes = elem * n;
	if (bytes == 0)
		return;
	uint64_t host = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_SRC + 4) << 32 |
			hal_read32(fw, desc + 4 * QUIRE_CMD_W_SRC);
	fw->prefetch.posted = fw->dma_posted[PIPE_IN];
	fw->prefetch.failed = fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_FAILED_COUNT);
	fw->prefetch.moved = fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_BYTES_DONE);
	/* The first transfer goes before the rest is noted: the host link starts sooner. */
	fw_dma_load(fw, PIPE_IN, host, card, bytes, QUIRE_DMA_TO_CARD);
	fw_dma_go(fw, PIPE_IN);
	fw->prefetch.host = host;
	fw->prefetch.card = card;
	fw->prefetch.bytes = bytes;
	fw->prefetch.reps = reps;
	fw->prefetch.stride = 0;
	if (reps > 1)
		fw->prefetch.stride = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_STRIDE + 4)
					  << 32 |
				      hal_read32(fw, desc + 4 * QUIRE_CMD_W_STRIDE);
	for (uint32_t r = 1; r < reps; r++) {
		host += fw->prefetch.stride;
		card += first * elem;
		fw_dma_load(fw, PIPE_IN, host, card, bytes, QUIRE_DMA_TO_CARD);
		fw_dma_go(fw, PIPE_IN);
	}
	fw->prefetch.exp_bytes = 0;
	if (exps) {
		fw->prefetch.exp_host = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_EXP + 4)
					    << 32 |
					hal_read32(fw, desc + 4 * QUIRE_CMD_W_EXP);
		fw->prefetch.exp_bytes = QUIRE_BFP_BLOCKS(n);
		fw_dma_load(fw, PIPE_IN, fw->prefetch.exp_host, FW_BUF_E, fw->prefetch.exp_bytes,
			    QUIRE_DMA_TO_CARD);
		fw_dma_go(fw, PIPE_IN);
	}
	fw->prefetch.pending = 1;
}

void fw_pipe_prefetch_end(struct quire_fw *fw)
{
	if (!fw->prefetch.pending)
		return;
	fw->prefetch.pending = 0;
	while (fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_DONE_COUNT) != fw->dma_posted[PIPE_IN])
		;
	pipe_bytes(fw, PIPE_IN, &fw->prefetch.moved);
}

/* Is the prefetch the pipeline's first transfers in (the first chunk's of src)? */
static int pipe_takes_prefetch(const struct quire_fw *fw, const struct pipe *p, uint32_t len)
{
	const struct pipe_xfer *x = &p->x[PIPE_IN][0];
	const struct pipe_xfer *e = &p->x[PIPE_IN][1]; /* DECODE's exponents */
	return p->n && x->host == fw->prefetch.host && x->card == fw->prefetch.card &&
	       x->shift == 0 && (len << x->lg) == fw->prefetch.bytes &&
	       (fw->prefetch.reps == 1 ||
		(x->reps == fw->prefetch.reps && x->host_rep == fw->prefetch.stride &&
		 x->card_rep == (p->first << x->lg))) &&
	       (fw->prefetch.exp_bytes == 0 ||
		(p->nx[PIPE_IN] == 2 && e->host == fw->prefetch.exp_host && e->card == FW_BUF_E &&
		 e->shift == 6 && e->lg == 0 && QUIRE_BFP_BLOCKS(len) == fw->prefetch.exp_bytes));
}

/* Channel ch's direction and epoch (and DECODE word), the same for every transfer of the
 * pipeline on it. */
static inline __attribute__((always_inline)) void pipe_channel(struct quire_fw *fw,
							       const struct pipe *p, uint32_t ch)
{
	uint32_t regs = QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch);
	uint32_t dir = ch == PIPE_IN   ? QUIRE_DMA_TO_CARD
		       : p->out_decode ? QUIRE_DMA_TO_HOST_DECODE
				       : QUIRE_DMA_TO_HOST;
	hal_write32(fw, regs + QUIRE_DMA_DIR, dir);
	hal_write32(fw, regs + QUIRE_DMA_EPOCH, fw->epoch);
	if (ch == PIPE_OUT && p->out_decode)
		hal_write32(fw, regs + QUIRE_DMA_DECODE, p->out_decode);
}

/* With no engine to run, a first chunk prefetched whole goes out as soon as it is in,
 * before the rest of the pipeline is set up: the host link out bounds such a pipeline.
 * Whether it went (its transfers out posted, unit out on to the next chunk). */
static __attribute__((noinline)) int pipe_head(struct quire_fw *fw, const struct pipe *p,
					       uint32_t per_in, uint32_t per_out,
					       struct pipe_unit *out)
{
	if (!fw->prefetch.pending || fw->prefetch.reps + (fw->prefetch.exp_bytes != 0) != per_in)
		return 0;
	while (!fw_dma_reached(fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_DONE_COUNT),
			       fw->prefetch.posted + per_in))
		;
	if (fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_FAILED_COUNT) != fw->prefetch.failed)
		return 0; /* the pipeline's loop reports it */
	for (uint32_t t = 0; t < per_out; t++)
		pipe_post(fw, p, PIPE_OUT, out, 1);
	return 1;
}

/* The command's chunks through the pipeline: its status (detail ENGINE on a failure). */
static int pipe_run(struct quire_fw *fw, struct pipe *p, uint32_t *detail)
{
	const uint32_t len0 = pipe_len(p, 0);
	struct pipe_unit in, run, out;
	pipe_unit_start(p, PIPE_OUT, &out, len0);
	run.c = run.i = 0;
	run.len = len0;
	const uint32_t per_in = p->per[PIPE_IN], per_out = p->per[PIPE_OUT];
	if (fw->prefetch.pending && !pipe_takes_prefetch(fw, p, len0))
		fw_pipe_prefetch_end(fw); /* its failure, should it fail, is not this pipeline's */
	/* DONE_COUNT of channel 0 once run's chunk is in, of channel 1 once chunk `gone` is
	 * out; the failures each channel had before; its bytes as last read. */
	uint32_t failed[PIPE_CHANNELS], bytes[PIPE_CHANNELS];
	uint32_t out_mark = fw->dma_posted[PIPE_OUT] + per_out, gone = 0;
	failed[PIPE_OUT] = fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_FAILED_COUNT);
	bytes[PIPE_OUT] = fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_BYTES_DONE);
	pipe_channel(fw, p, PIPE_OUT);
	int head = p->kind == PIPE_NO_RUN && pipe_head(fw, p, per_in, per_out, &out);
	if (head)
		pipe_next(p, &run);
	pipe_unit_start(p, PIPE_IN, &in, len0);
	pipe_channel(fw, p, PIPE_IN);
	uint32_t in_mark = fw->dma_posted[PIPE_IN] + per_in;
	if (!fw->prefetch.pending) {
		failed[PIPE_IN] = fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_FAILED_COUNT);
		bytes[PIPE_IN] = fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_BYTES_DONE);
	} else { /* the first transfer in, as posted (counts before it) */
		fw->prefetch.pending = 0;
		failed[PIPE_IN] = fw->prefetch.failed;
		bytes[PIPE_IN] = fw->prefetch.moved;
		in_mark = fw->prefetch.posted + per_in * (1 + (uint32_t)head);
		if (fw->prefetch.reps + (fw->prefetch.exp_bytes != 0) == per_in) {
			in.c = 1; /* the whole first chunk: on to the next */
			in.i = len0;
			in.len = pipe_len(p, len0);
			if (in.i < p->n)
				pipe_aim(p, PIPE_IN, &in);
		} else {
			in.r =
			    fw->prefetch.reps - 1; /* its last repeat, which pipe_post moves past */
			pipe_post(fw, p, PIPE_IN, &in, 0);
			if (fw->prefetch.exp_bytes)
				pipe_post(fw, p, PIPE_IN, &in, 0);
		}
		if (head) /* its chunk in and gone on, counted as a run's start counts it */
			pipe_bytes(fw, PIPE_IN, &bytes[PIPE_IN]);
	}
	uint32_t end = ~0u, faults = 0; /* end: the first chunk not to run */
	int st = QUIRE_OK, running = 0;
	/* Each round does one thing (posts one transfer, or a transfer's repeats), in this
	 * order: the next run, since the engine is the pipeline's critical path; the transfers
	 * out of a run over; a transfer in while channel 0 has less than two left, so that the
	 * host link does not idle; the sets of chunks gone out freed; transfers in ahead. */
	for (;;) {
		if (running && fw_engine_done(fw, p->kind)) {
			int r = fw_engine_finish(fw, p->kind, faults);
			running = 0;
			if (r == QUIRE_ERR_OVERFLOW && p->kind == QUIRE_ENGINE_REDUCE) {
				p->overflow = 1; /* saturated, reported, the rest still summed */
				r = QUIRE_OK;
			}
			if (r != QUIRE_OK) {
				st = r;
				end = run.c;
			} else {
				pipe_next(p, &run);
			}
		}
		uint32_t done_in = fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_DONE_COUNT);
		/* The next run, once its chunk is in and its set's outputs have gone. */
		if (!running && run.i < p->n && run.c < end && run.c < in.c &&
		    run.c < gone + FW_PIPE_SETS && fw_dma_reached(done_in, in_mark)) {
			int r;
			if (fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_FAILED_COUNT) != failed[PIPE_IN])
				r = (int)fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_FAILED_STATUS);
			else if (p->kind == PIPE_NO_RUN)
				r = QUIRE_OK;
			else
				r = pipe_start(fw, p, &run, &faults);
			if (r != QUIRE_OK) {
				st = r;
				end = run.c;
			} else if (p->kind == PIPE_NO_RUN) {
				in_mark += per_in;
				pipe_next(p, &run); /* in, so ready to go out */
			} else {
				running = 1;
				in_mark += per_in;
			}
			pipe_bytes(fw, PIPE_IN, &bytes[PIPE_IN]);
			fw_heartbeat(fw);
			continue;
		}
		/* The chunks run go out. */
		uint32_t done_out = fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_DONE_COUNT);
		if (out.c < run.c && pipe_room(fw, PIPE_OUT, done_out) != 0) {
			pipe_post(fw, p, PIPE_OUT, &out, 1);
			continue;
		}
		/* Chunks in, next, while channel 0 has less than two transfers left: its link
		 * must not idle. */
		int may_in = in.i < p->n && in.c < end && in.c < gone + FW_PIPE_SETS;
		if (may_in && fw->dma_posted[PIPE_IN] - done_in < 2) {
			pipe_post_in(fw, p, &in, pipe_room(fw, PIPE_IN, done_in));
			continue;
		}
		/* Chunks gone out free their sets. */
		if (gone < out.c && fw_dma_reached(done_out, out_mark)) {
			while (gone < out.c && fw_dma_reached(done_out, out_mark)) {
				gone++;
				out_mark += per_out;
			}
			pipe_bytes(fw, PIPE_OUT, &bytes[PIPE_OUT]);
			if (fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_FAILED_COUNT) != failed[PIPE_OUT]) {
				st = (int)fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_FAILED_STATUS);
				end = min_u32(end, run.c + running);
			}
			continue;
		}
		/* Chunks in, as far ahead as their sets and channel 0's queue allow. */
		uint32_t room_in = pipe_room(fw, PIPE_IN, done_in);
		if (may_in && room_in != 0) {
			pipe_post_in(fw, p, &in, room_in);
			continue;
		}
		/* Over once every chunk run has gone out and no other will run. */
		if (!running && gone == run.c && (run.i >= p->n || run.c >= end))
			break;
		/* Nothing to do but wait: for the run or a transfer to end, seen at once. */
		while (running && !fw_engine_done(fw, p->kind) &&
		       fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_DONE_COUNT) == done_in &&
		       fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_DONE_COUNT) == done_out)
			;
	}
	/* Chunks posted in ahead of a failure finish before the completion. Without one, every
	 * transfer is over and counted: each chunk's in before its run, out before the end. */
	for (uint32_t ch = 0; st != QUIRE_OK && ch < PIPE_CHANNELS; ch++) {
		while (fw_dma_reg(fw, ch, QUIRE_DMA_DONE_COUNT) != fw->dma_posted[ch])
			;
		pipe_bytes(fw, ch, &bytes[ch]);
	}
	if (st && !*detail)
		*detail = QUIRE_DETAIL_ENGINE;
	return st;
}

/* The chunks' engine run: `kind` with the nargs arguments a (N at arg_n, the buffers of
 * set 0 at the set_args bits, and REDUCE's inputs). */
static void pipe_engine(struct pipe *p, uint32_t kind, const uint32_t *a, uint32_t nargs,
			uint32_t arg_n, uint32_t set_args)
{
	uint32_t regs = QUIRE_CARD_ENGINE(kind), k = 0;
	p->kind = kind;
	p->nargs = nargs;
	p->arg_n = arg_n;
	p->n_reg = regs + QUIRE_ENGINE_ARG(arg_n);
	if (kind == QUIRE_ENGINE_REDUCE) { /* its inputs' sets are larger */
		p->set_reg[k] = regs + QUIRE_ENGINE_ARG(QUIRE_REDUCE_ARG_IN);
		p->set_val[k] = a[QUIRE_REDUCE_ARG_IN];
		p->set_lg[k++] = __builtin_ctz(FW_PIPE_REDUCE_IN_BYTES);
	}
	for (uint32_t i = 0; i < nargs; i++) {
		p->a[i] = a[i];
		if (set_args >> i & 1) {
			p->set_reg[k] = regs + QUIRE_ENGINE_ARG(i);
			p->set_val[k] = a[i];
			p->set_lg[k++] = __builtin_ctz(FW_PIPE_SET_BYTES);
		}
	}
	p->nsets = k;
}

/* The pipeline of a descriptor, for n elements in chunks of up to `chunk` (pipe_len). */
static void pipe_init(struct pipe *p, uint32_t n, uint32_t chunk, uint32_t first)
{
	p->n = n;
	p->chunk = chunk;
	p->first = first;
	p->nx[PIPE_IN] = p->nx[PIPE_OUT] = p->per[PIPE_IN] = p->per[PIPE_OUT] = 0;
	p->overflow = 0;
	p->out_decode = 0;
}

int fw_op_encode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	uint32_t fmt = quire_le16_to_cpu(d->format);
	int bfp = fmt != QUIRE_FMT_FP16, ef = (d->flags & QUIRE_CMD_F_EF) != 0,
	    shared = (d->flags & QUIRE_CMD_F_SHARED_EXP) != 0,
	    exps_only = d->opcode == QUIRE_OPC_EXPONENTS;
	uint64_t src = quire_le64_to_cpu(d->src), aux = quire_le64_to_cpu(d->aux),
		 exp = quire_le64_to_cpu(d->exp), dst = quire_le64_to_cpu(d->dst);
	uint32_t elem = quire_format_elem_bytes(fmt);
	struct pipe p;
	pipe_init(&p, quire_le32_to_cpu(d->count), FW_PIPE_ELEMS, FW_PIPE_ELEMS);
	pipe_add(&p, PIPE_IN, src, FW_BUF_A, 4, 0);
	if (ef)
		pipe_add(&p, PIPE_IN, aux, FW_BUF_B, 4, 0);
	if (bfp && shared)
		pipe_add(&p, PIPE_IN, exp, FW_BUF_E, 1, 6);
	if (!exps_only)
		pipe_add(&p, PIPE_OUT, dst, FW_BUF_C, elem, 0);
	if (bfp && !shared)
		pipe_add(&p, PIPE_OUT, exp, FW_BUF_E, 1, 6);
	if (ef && !exps_only)
		pipe_add(&p, PIPE_OUT, aux, FW_BUF_B, 4, 0);
	/* EXPONENTS alone, or ENCODE; a command's own exponents come from the ENCODE run
	 * itself (one pass over x). */
	const uint32_t a[QUIRE_QUANT_ARGS] = {
	    exps_only ? QUIRE_QUANT_OP_EXPONENTS : QUIRE_QUANT_OP_ENCODE,
	    fmt,
	    0,
	    (ef ? QUIRE_QUANT_F_EF : 0) | (bfp && !shared && !exps_only ? QUIRE_QUANT_F_EXPS : 0),
	    0,
	    0,
	    FW_BUF_A,
	    FW_BUF_B,
	    FW_BUF_E,
	    FW_BUF_C,
	    0};
	pipe_engine(&p, QUIRE_ENGINE_QUANT, a, QUIRE_QUANT_ARGS, QUIRE_QUANT_ARG_N,
		    1u << QUIRE_QUANT_ARG_X | 1u << QUIRE_QUANT_ARG_RESID |
			1u << QUIRE_QUANT_ARG_EXP | 1u << QUIRE_QUANT_ARG_Q);
	return pipe_run(fw, &p, detail);
}

/* DECODE: where dst is on a 64-byte line, each chunk's values go out decoded by the DMA
 * mover on the way (QUIRE_DMA_TO_HOST_DECODE), and no engine runs; otherwise the QUANT
 * engine decodes each chunk into the set's output buffer, which goes out as it is. */
int fw_op_decode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	uint32_t fmt = quire_le16_to_cpu(d->format), vf = quire_le16_to_cpu(d->val_format);
	uint64_t dst = quire_le64_to_cpu(d->dst);
	struct pipe p;
	pipe_init(&p, quire_le32_to_cpu(d->count), FW_PIPE_ELEMS, FW_PIPE_FIRST);
	pipe_add(&p, PIPE_IN, quire_le64_to_cpu(d->src), FW_BUF_A, quire_format_elem_bytes(vf), 0);
	if (fmt != QUIRE_FMT_FP16)
		pipe_add(&p, PIPE_IN, quire_le64_to_cpu(d->exp), FW_BUF_E, 1, 6);
	if (dst % 64 == 0) {
		pipe_add(&p, PIPE_OUT, dst, FW_BUF_A, 4, 0); /* LEN: the fp32 out */
		p.out_decode = QUIRE_DMA_DECODE_WORD(fmt, vf, quire_le16_to_cpu(d->workers));
		p.out_exp = FW_BUF_E;
		p.kind = PIPE_NO_RUN;
		return pipe_run(fw, &p, detail);
	}
	pipe_add(&p, PIPE_OUT, dst, FW_BUF_C, 4, 0);
	const uint32_t a[QUIRE_QUANT_ARGS] = {QUIRE_QUANT_OP_DECODE,
					      fmt,
					      vf,
					      0,
					      0,
					      quire_le16_to_cpu(d->workers),
					      0,
					      0,
					      FW_BUF_E,
					      FW_BUF_A,
					      FW_BUF_C};
	pipe_engine(&p, QUIRE_ENGINE_QUANT, a, QUIRE_QUANT_ARGS, QUIRE_QUANT_ARG_N,
		    1u << QUIRE_QUANT_ARG_EXP | 1u << QUIRE_QUANT_ARG_Q | 1u << QUIRE_QUANT_ARG_Y);
	return pipe_run(fw, &p, detail);
}

int fw_op_reduce(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	uint32_t w = quire_le16_to_cpu(d->workers), fmt = quire_le16_to_cpu(d->format),
		 vf = quire_le16_to_cpu(d->val_format);
	uint32_t in_b = quire_format_elem_bytes(vf);
	uint32_t chunk = pipe_reduce_chunk(w, in_b);
	struct pipe p;
	pipe_init(&p, quire_le32_to_cpu(d->count), chunk, chunk);
	pipe_add(&p, PIPE_IN, quire_le64_to_cpu(d->src), FW_REDUCE_IN, in_b, 0);
	p.x[PIPE_IN][0].reps = w;
	p.per[PIPE_IN] += w - 1;
	p.x[PIPE_IN][0].host_rep = quire_le64_to_cpu(d->stride);
	p.x[PIPE_IN][0].card_rep = chunk * in_b;
	p.x[PIPE_IN][0].set_lg = __builtin_ctz(FW_PIPE_REDUCE_IN_BYTES);
	pipe_add(&p, PIPE_OUT, quire_le64_to_cpu(d->dst), FW_BUF_C, quire_format_elem_bytes(fmt),
		 0);
	const uint32_t a[QUIRE_REDUCE_ARGS] = {QUIRE_REDUCE_OP_SUM, vf, fmt,     w, 0, chunk, 0,
					       FW_REDUCE_IN,        0,  FW_BUF_C};
	pipe_engine(&p, QUIRE_ENGINE_REDUCE, a, QUIRE_REDUCE_ARGS, QUIRE_REDUCE_ARG_N,
		    1u << QUIRE_REDUCE_ARG_ACC_OUT);
	int st = pipe_run(fw, &p, detail);
	if (st == QUIRE_OK && p.overflow) {
		*detail = QUIRE_DETAIL_ENGINE;
		return QUIRE_ERR_OVERFLOW;
	}
	return st;
}
