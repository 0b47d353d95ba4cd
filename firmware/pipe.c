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
 * The first chunk's first transfer in goes before the rest: it is posted as soon as the
 * descriptor is fetched, before its validation and the checks of its buffers (about a
 * thousand cycles of the core, fw_pipe_prefetch), from its words alone. It writes only the
 * card's own buffer, and the mover keeps it to the host window and to the command's epoch;
 * a pipeline whose first transfer it is takes it as posted, and a command that does not
 * (refused, or not the transfer its pipeline begins with) waits for it to finish.
 *
 * A failure ends the command with its status: an engine run's stops its chunk and the ones
 * after it from running (the chunks before still go out); a transfer's (the host left, so
 * its epoch is over) stops every chunk not yet run. What was posted finishes before the
 * command's completion, so no transfer of a command outlives it.
 */
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/format.h"
#include "quire/status.h"

_Static_assert((FW_PIPE_SETS & (FW_PIPE_SETS - 1)) == 0, "a chunk's set is its index's low bits");

enum { PIPE_IN, PIPE_OUT, PIPE_CHANNELS, PIPE_MAX_XFERS = 3 };

/* A transfer of each chunk: host + (i << lg >> shift) for its elements [i, i + len),
 * (len << lg) >> shift bytes rounded up, at card + set * set_step (+ r * card_rep for its
 * r-th repeat, host + r * host_rep: REDUCE's W inputs). */
struct pipe_xfer {
	uint64_t host, host_rep;
	uint32_t card, set_step, card_rep, reps, lg, shift, dir;
};

struct pipe {
	uint32_t n, chunk;
	uint32_t nx[PIPE_CHANNELS];
	struct pipe_xfer x[PIPE_CHANNELS][PIPE_MAX_XFERS];
	/* The engine run of a chunk: args with N and the card buffers of set 0; the nsets
	 * arguments a chunk's set moves: arg set_arg[k] is a[set_arg[k]] + set * set_step[k]
	 * (FW_PIPE_SET_BYTES, or FW_PIPE_REDUCE_IN_BYTES for REDUCE's inputs). */
	uint32_t kind, nargs, arg_n, nsets;
	uint32_t a[QUIRE_ENGINE_MAX_ARGS];
	uint32_t set_arg[QUIRE_ENGINE_MAX_ARGS], set_step[QUIRE_ENGINE_MAX_ARGS];
	int overflow; /* REDUCE: an engine's saturation, the rest still summed */
};

/* Where a unit (the transfers in, the runs, the transfers out) is: its next chunk and that
 * chunk's first element; for a channel, the chunk's next transfer and repeat. */
struct pipe_unit {
	uint32_t c, i, j, r;
};

/* A transfer of each chunk on channel ch: `bytes` bytes an element (a power of 2), or one
 * byte a block of them (shift 6: the exponents). */
static void pipe_add(struct pipe *p, uint32_t ch, uint64_t host, uint32_t card, uint32_t bytes,
		     uint32_t shift)
{
	struct pipe_xfer *x = &p->x[ch][p->nx[ch]++];
	x->host = host;
	x->host_rep = 0;
	x->card = card;
	x->set_step = FW_PIPE_SET_BYTES;
	x->card_rep = 0;
	x->reps = 1;
	x->lg = (bytes >> 1) - (bytes >> 3); /* 1, 2, 4, 8: 0, 1, 2, 3 */
	x->shift = shift;
	x->dir = ch == PIPE_IN ? QUIRE_DMA_TO_CARD : QUIRE_DMA_TO_HOST;
}

/* The elements of the chunk that starts at element i. The first is short, so the engine
 * (and DECODE's transfers out) start early; then whole chunks; once fewer than two whole
 * ones are left, halves rounded up to FW_PIPE_TAIL, so that the last run and transfers
 * out, which nothing overlaps, are short. */
static uint32_t pipe_len(const struct pipe *p, uint32_t i)
{
	uint32_t left = p->n - i;
	if (i == 0)
		return min_u32(min_u32(p->chunk, FW_PIPE_FIRST), left);
	if (left <= FW_PIPE_TAIL)
		return left;
	return min_u32(p->chunk, (left / 2 + FW_PIPE_TAIL - 1) & ~(FW_PIPE_TAIL - 1));
}

/* The transfers of a chunk on one channel. */
static uint32_t pipe_xfers(const struct pipe *p, uint32_t ch)
{
	uint32_t t = 0;
	for (uint32_t j = 0; j < p->nx[ch]; j++)
		t += p->x[ch][j].reps;
	return t;
}

/* Post the unit's chunk's next transfers to channel ch, `room` at most (what its queue
 * has room for); the unit moves on to the next chunk once a chunk's are all posted. A
 * transfer's host offset, (i << lg) >> shift, as (i >> shift) << lg: a chunk starts on a
 * whole number of blocks. */
static void pipe_post(struct quire_fw *fw, const struct pipe *p, uint32_t ch, struct pipe_unit *u,
		      uint32_t room, int go)
{
	uint32_t len = pipe_len(p, u->i), set = u->c & (FW_PIPE_SETS - 1);
	while (room--) {
		const struct pipe_xfer *x = &p->x[ch][u->j];
		uint32_t bytes = ((len << x->lg) + (1u << x->shift) - 1) >> x->shift;
		if (go) { /* else posted already: the prefetch */
			fw_dma_load(fw, ch,
				    x->host + (uint64_t)(u->i >> x->shift) * (1u << x->lg) +
					u->r * x->host_rep,
				    x->card + set * x->set_step + u->r * x->card_rep, bytes,
				    x->dir);
			fw_dma_go(fw, ch);
		}
		if (++u->r < x->reps)
			continue;
		u->r = 0;
		if (++u->j < p->nx[ch])
			continue;
		u->j = 0;
		u->c++;
		u->i += len;
		return;
	}
}

/* The transfers channel ch's queue has room for, its count of those done being `done`. */
static uint32_t pipe_room(const struct quire_fw *fw, uint32_t ch, uint32_t done)
{
	return QUIRE_DMA_QUEUE_DEPTH - (fw->dma_posted[ch] - done);
}

/* Start the run of chunk u: the first with every argument, the others with N and the
 * set's buffers (the rest as the first wrote them). QUIRE_OK, or why it did not start. */
static int pipe_start(struct quire_fw *fw, struct pipe *p, const struct pipe_unit *u,
		      uint32_t *faults)
{
	uint32_t len = pipe_len(p, u->i), set = u->c & (FW_PIPE_SETS - 1);
	if (u->c == 0) {
		p->a[p->arg_n] = len;
		return fw_engine_start(fw, p->kind, p->a, p->nargs, faults);
	}
	for (uint32_t k = 0; k < p->nsets; k++)
		fw_engine_arg(fw, p->kind, p->set_arg[k],
			      p->a[p->set_arg[k]] + set * p->set_step[k]);
	fw_engine_arg(fw, p->kind, p->arg_n, len);
	fw_engine_go(fw, p->kind, faults);
	return QUIRE_OK;
}

/* Has the channel finished its transfers up to count `mark` (DONE_COUNT, mod 2^32)? */
static int pipe_reached(uint32_t done, uint32_t mark)
{
	return (int32_t)(done - mark) >= 0;
}

/* The bytes channel ch moved since *mark, into the DMA_BYTES counter. Read at least once a
 * chunk, so the difference never wraps. */
static void pipe_bytes(struct quire_fw *fw, uint32_t ch, uint32_t *mark)
{
	uint32_t now = fw_dma_reg(fw, ch, QUIRE_DMA_BYTES_DONE);
	fw->dma_bytes += now - *mark;
	*mark = now;
}

/* The first transfer in of a pipelined opcode's descriptor, before it is validated: the
 * first chunk of src (pipe_len's), from the descriptor's words alone. Garbage in them
 * costs a transfer into the card's own buffer, or one the mover refuses. */
void fw_pipe_prefetch(struct quire_fw *fw, uint32_t desc, uint32_t w0)
{
	uint32_t op = w0 & 0xffu, card = FW_BUF_A, elem = 4;
	if (op == QUIRE_OPC_DECODE || op == QUIRE_OPC_REDUCE)
		elem = quire_format_elem_bytes(hal_read32(fw, desc + 4 * QUIRE_CMD_W_FORMATS) &
					       0xffffu);
	if (op == QUIRE_OPC_REDUCE)
		card = FW_REDUCE_IN;
	else if (op != QUIRE_OPC_ENCODE && op != QUIRE_OPC_EXPONENTS && op != QUIRE_OPC_DECODE)
		return;
	uint32_t bytes =
	    elem * min_u32(hal_read32(fw, desc + 4 * QUIRE_CMD_W_COUNT), FW_PIPE_FIRST);
	if (bytes == 0)
		return;
	uint64_t host = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_SRC + 4) << 32 |
			hal_read32(fw, desc + 4 * QUIRE_CMD_W_SRC);
	fw->prefetch.posted = fw->dma_posted[PIPE_IN];
	fw->prefetch.failed = fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_FAILED_COUNT);
	fw->prefetch.moved = fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_BYTES_DONE);
	fw_dma_load(fw, PIPE_IN, host, card, bytes, QUIRE_DMA_TO_CARD);
	fw_dma_go(fw, PIPE_IN);
	fw->prefetch.host = host;
	fw->prefetch.card = card;
	fw->prefetch.bytes = bytes;
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

/* Is the prefetch the pipeline's first transfer in? */
static int pipe_takes_prefetch(const struct quire_fw *fw, const struct pipe *p)
{
	const struct pipe_xfer *x = &p->x[PIPE_IN][0];
	return p->n && x->host == fw->prefetch.host && x->card == fw->prefetch.card &&
	       (pipe_len(p, 0) << x->lg) == fw->prefetch.bytes && x->shift == 0;
}

/* The command's chunks through the pipeline: its status (detail ENGINE on a failure). */
static int pipe_run(struct quire_fw *fw, struct pipe *p, uint32_t *detail)
{
	struct pipe_unit in = {0, 0, 0, 0}, run = {0, 0, 0, 0}, out = {0, 0, 0, 0};
	const uint32_t per_in = pipe_xfers(p, PIPE_IN), per_out = pipe_xfers(p, PIPE_OUT);
	/* DONE_COUNT of channel 0 once run's chunk is in, of channel 1 once chunk `gone` is
	 * out; the failures each channel had before; its bytes as last read. */
	if (fw->prefetch.pending && !pipe_takes_prefetch(fw, p))
		fw_pipe_prefetch_end(fw); /* its failure, should it fail, is not this pipeline's */
	uint32_t failed[PIPE_CHANNELS], bytes[PIPE_CHANNELS];
	for (uint32_t ch = 0; ch < PIPE_CHANNELS; ch++) {
		failed[ch] = fw_dma_reg(fw, ch, QUIRE_DMA_FAILED_COUNT);
		bytes[ch] = fw_dma_reg(fw, ch, QUIRE_DMA_BYTES_DONE);
	}
	uint32_t in_mark = fw->dma_posted[PIPE_IN] + per_in;
	if (fw->prefetch.pending) { /* the first transfer in, as posted (counts before it) */
		fw->prefetch.pending = 0;
		failed[PIPE_IN] = fw->prefetch.failed;
		bytes[PIPE_IN] = fw->prefetch.moved;
		in_mark = fw->prefetch.posted + per_in;
		pipe_post(fw, p, PIPE_IN, &in, 1, 0);
	}
	uint32_t out_mark = fw->dma_posted[PIPE_OUT] + per_out, gone = 0;
	uint32_t end = ~0u, faults = 0; /* end: the first chunk not to run */
	int st = QUIRE_OK, running = 0;
	for (;;) {
		uint32_t done_in = fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_DONE_COUNT);
		/* Chunks in, as far ahead as their sets and channel 0's queue allow. */
		uint32_t room;
		while (in.i < p->n && in.c < end && in.c < gone + FW_PIPE_SETS &&
		       (room = pipe_room(fw, PIPE_IN, done_in)) != 0)
			pipe_post(fw, p, PIPE_IN, &in, room, 1);
		/* The run over: the chunk goes out, unless it failed. */
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
				run.i += pipe_len(p, run.i);
				run.c++;
			}
		}
		uint32_t done_out = fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_DONE_COUNT);
		while (out.c < run.c && (room = pipe_room(fw, PIPE_OUT, done_out)) != 0)
			pipe_post(fw, p, PIPE_OUT, &out, room, 1);
		/* Chunks gone out free their sets. */
		if (gone < out.c && pipe_reached(done_out, out_mark)) {
			while (gone < out.c && pipe_reached(done_out, out_mark)) {
				gone++;
				out_mark += per_out;
			}
			pipe_bytes(fw, PIPE_OUT, &bytes[PIPE_OUT]);
			if (fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_FAILED_COUNT) != failed[PIPE_OUT]) {
				st = (int)fw_dma_reg(fw, PIPE_OUT, QUIRE_DMA_FAILED_STATUS);
				end = min_u32(end, run.c + running);
			}
		}
		/* The next run, once its chunk is in and its set's outputs have gone. */
		if (!running && run.i < p->n && run.c < end && run.c < in.c &&
		    run.c < gone + FW_PIPE_SETS && pipe_reached(done_in, in_mark)) {
			pipe_bytes(fw, PIPE_IN, &bytes[PIPE_IN]);
			fw_heartbeat(fw);
			int r;
			if (fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_FAILED_COUNT) != failed[PIPE_IN])
				r = (int)fw_dma_reg(fw, PIPE_IN, QUIRE_DMA_FAILED_STATUS);
			else
				r = pipe_start(fw, p, &run, &faults);
			if (r != QUIRE_OK) {
				st = r;
				end = run.c;
			} else {
				running = 1;
				in_mark += per_in;
			}
		}
		/* Over once every chunk run has gone out and no other will run. */
		if (!running && gone == run.c && (run.i >= p->n || run.c >= end))
			break;
	}
	/* Chunks posted in ahead of a failure finish before the completion. */
	for (uint32_t ch = 0; ch < PIPE_CHANNELS; ch++) {
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
	p->kind = kind;
	p->nargs = nargs;
	p->arg_n = arg_n;
	p->nsets = 0;
	if (kind == QUIRE_ENGINE_REDUCE) { /* its inputs' sets are larger */
		p->set_arg[0] = QUIRE_REDUCE_ARG_IN;
		p->set_step[0] = FW_PIPE_REDUCE_IN_BYTES;
		p->nsets = 1;
	}
	for (uint32_t k = 0; k < nargs; k++) {
		p->a[k] = a[k];
		if (set_args >> k & 1) {
			p->set_arg[p->nsets] = k;
			p->set_step[p->nsets++] = FW_PIPE_SET_BYTES;
		}
	}
}

/* The pipeline of a descriptor, for n elements in chunks of up to `chunk` (pipe_len). */
static void pipe_init(struct pipe *p, uint32_t n, uint32_t chunk)
{
	p->n = n;
	p->chunk = chunk;
	p->nx[PIPE_IN] = p->nx[PIPE_OUT] = 0;
	p->overflow = 0;
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
	pipe_init(&p, quire_le32_to_cpu(d->count), FW_PIPE_ELEMS);
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

int fw_op_decode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	uint32_t fmt = quire_le16_to_cpu(d->format), vf = quire_le16_to_cpu(d->val_format);
	struct pipe p;
	pipe_init(&p, quire_le32_to_cpu(d->count), FW_PIPE_ELEMS);
	pipe_add(&p, PIPE_IN, quire_le64_to_cpu(d->src), FW_BUF_A, quire_format_elem_bytes(vf), 0);
	if (fmt != QUIRE_FMT_FP16)
		pipe_add(&p, PIPE_IN, quire_le64_to_cpu(d->exp), FW_BUF_E, 1, 6);
	pipe_add(&p, PIPE_OUT, quire_le64_to_cpu(d->dst), FW_BUF_C, 4, 0);
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
	/* All W inputs of a chunk side by side in a set's input buffer. */
	uint32_t chunk =
	    min_u32(FW_PIPE_ELEMS, FW_PIPE_REDUCE_IN_BYTES / (w * in_b)) & ~(QUIRE_BFP_BLOCK - 1);
	struct pipe p;
	pipe_init(&p, quire_le32_to_cpu(d->count), chunk);
	pipe_add(&p, PIPE_IN, quire_le64_to_cpu(d->src), FW_REDUCE_IN, in_b, 0);
	p.x[PIPE_IN][0].reps = w;
	p.x[PIPE_IN][0].host_rep = quire_le64_to_cpu(d->stride);
	p.x[PIPE_IN][0].card_rep = chunk * in_b;
	p.x[PIPE_IN][0].set_step = FW_PIPE_REDUCE_IN_BYTES;
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
