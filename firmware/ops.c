// SPDX-License-Identifier: MIT
/*
 * Running a validated descriptor: check every host buffer against the DMA
 * window, then move data in chunks of whole blocks through card memory and
 * the engines. Nothing is written to the host before every check passed.
 */
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/format.h"
#include "quire/mlp.h"
#include "quire/regs.h"
#include "quire/status.h"

/* The host memory window: its base, and its size into *size. */
static uint64_t host_window(struct quire_fw *fw, uint64_t *size)
{
	*size = (uint64_t)hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_SIZE_HI) << 32 |
		hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_SIZE_LO);
	return (uint64_t)hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_BASE_HI) << 32 |
	       hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_BASE_LO);
}

/* Is [addr, addr + bytes) inside the window [base, base + size)? */
static int inside(uint64_t addr, uint64_t bytes, uint64_t base, uint64_t size)
{
	return addr >= base && bytes <= size && addr - base <= size - bytes;
}

/* Is [addr, addr + bytes) inside the host memory window? */
static int in_window(struct quire_fw *fw, uint64_t addr, uint64_t bytes)
{
	uint64_t size, base = host_window(fw, &size);
	return inside(addr, bytes, base, size);
}

/* Every host buffer of the descriptor inside the window, before anything moves. */
static int check_windows(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	const uint64_t addr[4] = {quire_le64_to_cpu(d->src), quire_le64_to_cpu(d->dst),
				  quire_le64_to_cpu(d->exp), quire_le64_to_cpu(d->aux)};
	static const uint32_t details[4] = {QUIRE_DETAIL_SRC, QUIRE_DETAIL_DST, QUIRE_DETAIL_EXP,
					    QUIRE_DETAIL_AUX};
	uint64_t ext[4];
	quire_cmd_extents(d, fw->mlp_width0, ext);
	for (uint32_t i = 0; i < 4; i++) {
		if (ext[i] && !in_window(fw, addr[i], ext[i])) {
			*detail = details[i];
			return QUIRE_ERR_RANGE;
		}
	}
	return QUIRE_OK;
}

/*
 * The pipelined commands: each chunk's transfers in on DMA channel 0, its engine run, and its
 * transfers out on channel 1, each unit going through the chunks in order and all three at
 * once, chunk k in buffer set k % FW_PIPE_SETS (layout.h). A unit waits only for what it
 * needs: the engine for its chunk's transfers in, the transfers out for its engine run, and
 * a set's next chunk (in, or engine) for the set's last chunk to have gone out. What can be
 * done ahead is, so that a unit's start is a single register write when what it waits for
 * is over: the next transfer's registers are loaded while a channel moves the one before
 * (a transfer out while its chunk's engine run works), and the next run's arguments are
 * written while the engine waits for its input. The first failure
 * stops everything of its chunk and after; the chunks before it still go out, as when each
 * chunk went in, through the engine and out before the next.
 */
/* The units: the two channels' transfers, and the engine's runs. */
enum { PIPE_IN, PIPE_OUT, PIPE_CHANNELS, PIPE_RUN = PIPE_CHANNELS, PIPE_MAX_XFERS = 3 };

/* A transfer of each chunk: host + (i << lg >> shift) for its elements [i, i + len),
 * (len << lg) >> shift bytes rounded up, at card + set * set_step (+ r * card_rep for its
 * r-th repeat, host + r * host_rep: REDUCE's W inputs). */
struct pipe_xfer {
	uint64_t host, host_rep;
	uint32_t card, set_step, card_rep, reps, lg, shift, dir;
};

struct pipe {
	uint32_t n, chunk, chunks;
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

/* Where a unit is: the next transfer it will load (its chunk, the chunk's set and first
 * element, the transfer and repeat in the chunk, the repeat's offsets); the transfer running
 * and the one loaded meanwhile (chunk, whether it ends its chunk, bytes); the chunks done. */
struct pipe_unit {
	uint32_t c, set, i, j, r, card_rep;
	uint64_t host_rep;
	uint32_t busy, run_c, run_last, run_len;
	uint32_t loaded, next_c, next_last, next_len;
	uint32_t done;
};

/* A unit at its start: the fields read before they are set (a store each: zeroing the
 * whole struct costs the control core more). */
static __attribute__((noinline)) void pipe_unit_init(struct pipe_unit *u)
{
	u->c = u->set = u->i = u->j = u->r = u->card_rep = 0;
	u->host_rep = 0;
	u->busy = u->loaded = u->done = 0;
}

/* A transfer of each chunk on channel ch: `bytes` bytes an element (a power of 2), or one
 * byte a block of them (shift 6: the exponents). Each field set here: pipe_init leaves the
 * table as it was (zeroing it costs the control core more than the fields). */
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

/* The elements of the chunk that starts at element i: FW_PIPE_TAIL or fewer whole, more
 * halved (rounded up to FW_PIPE_TAIL) once fewer than two whole chunks are left, so that
 * the last engine run and transfers out, which nothing overlaps, are short. */
static uint32_t pipe_len(const struct pipe *p, uint32_t i)
{
	uint32_t left = p->n - i;
	if (left <= FW_PIPE_TAIL)
		return min_u32(p->chunk, left);
	return min_u32(p->chunk, (left / 2 + FW_PIPE_TAIL - 1) & ~(FW_PIPE_TAIL - 1));
}

/* Load the unit's transfer onto its channel; its bytes. Its host offset, (i << lg) >> shift,
 * as (i >> shift) << lg: a chunk starts on a whole number of blocks. */
static uint32_t pipe_load(struct quire_fw *fw, const struct pipe *p, uint32_t ch,
			  const struct pipe_unit *u)
{
	const struct pipe_xfer *x = &p->x[ch][u->j];
	uint32_t len = pipe_len(p, u->i);
	uint32_t bytes = ((len << x->lg) + (1u << x->shift) - 1) >> x->shift;
	uint64_t off = (uint64_t)(u->i >> x->shift) * (1u << x->lg); /* mul, no 64-bit shift */
	fw_dma_load(fw, ch, x->host + u->host_rep + off,
		    x->card + u->set * x->set_step + u->card_rep, bytes, x->dir);
	return bytes;
}

/* The unit on to its next chunk (and set). */
static void pipe_next_chunk(const struct pipe *p, struct pipe_unit *u)
{
	u->c++;
	u->i += pipe_len(p, u->i);
	u->set = u->set + 1 == FW_PIPE_SETS ? 0 : u->set + 1;
}

/* The unit past its transfer: the next repeat, transfer, or chunk (1). */
static int pipe_step(const struct pipe *p, uint32_t ch, struct pipe_unit *u)
{
	const struct pipe_xfer *x = &p->x[ch][u->j];
	if (++u->r < x->reps) {
		u->host_rep += x->host_rep;
		u->card_rep += x->card_rep;
		return 0;
	}
	u->r = u->card_rep = 0;
	u->host_rep = 0;
	if (++u->j < p->nx[ch])
		return 0;
	u->j = 0;
	pipe_next_chunk(p, u);
	return 1;
}

/* May the unit start chunk c's work (the chunks the units have done)? */
static int pipe_may(uint32_t unit, uint32_t c, uint32_t end, const struct pipe_unit *in,
		    const struct pipe_unit *run, const struct pipe_unit *out)
{
	if (c >= end)
		return 0;
	if (unit == PIPE_IN)
		return c < out->done + FW_PIPE_SETS;
	if (unit == PIPE_OUT) /* loaded once the chunk before has run, started once it has */
		return c <= run->done;
	return c < in->done && c < out->done + FW_PIPE_SETS;
}

/* The engine's arguments for the unit's chunk written, while the engine is idle: N and its
 * set's buffers, the others as the first run wrote them. */
static void pipe_arm(struct quire_fw *fw, const struct pipe *p, struct pipe_unit *run)
{
	for (uint32_t k = 0; k < p->nsets; k++)
		fw_engine_arg(fw, p->kind, p->set_arg[k],
			      p->a[p->set_arg[k]] + run->set * p->set_step[k]);
	fw_engine_arg(fw, p->kind, p->arg_n, pipe_len(p, run->i));
	run->loaded = 1;
}

/* The command's chunks through the pipeline: its status (detail ENGINE on a failure). */
static int pipe_run(struct quire_fw *fw, struct pipe *p, uint32_t *detail)
{
	struct pipe_unit u[PIPE_CHANNELS], run;
	pipe_unit_init(&u[PIPE_IN]);
	pipe_unit_init(&u[PIPE_OUT]);
	pipe_unit_init(&run);
	uint32_t end = p->chunks, faults = 0; /* end: the first chunk that failed, or all */
	int st = QUIRE_OK;
	for (;;) {
		uint32_t moving = 0; /* units busy, started or just finished */
		/* Transfers over: the next one loaded goes at once, unless a failure stops it. */
		for (uint32_t ch = 0; ch < PIPE_CHANNELS; ch++) {
			struct pipe_unit *v = &u[ch];
			if (!v->busy)
				continue;
			moving++;
			if (!fw_dma_done(fw, ch))
				continue;
			int r = fw_dma_status(fw, ch);
			v->busy = 0;
			if (r != QUIRE_OK && v->run_c < end) {
				end = v->run_c;
				st = r;
			}
			if (v->loaded && v->next_c < end &&
			    (ch == PIPE_IN || v->next_c < run.done)) {
				fw_dma_go(fw, ch);
				v->busy = 1;
			}
			fw_dma_count(fw, v->run_len, r);
			if (v->run_last)
				v->done = v->run_c + 1;
			if (v->busy) {
				v->loaded = 0;
				v->run_c = v->next_c;
				v->run_last = v->next_last;
				v->run_len = v->next_len;
			}
		}
		/* The engine: its run over, the next chunk's started once its input is in. */
		if (run.busy && fw_engine_done(fw, p->kind)) {
			int r = fw_engine_finish(fw, p->kind, faults);
			run.busy = 0;
			if (r == QUIRE_ERR_OVERFLOW && p->kind == QUIRE_ENGINE_REDUCE) {
				p->overflow = 1; /* saturated, reported, the rest still summed */
				r = QUIRE_OK;
			}
			if (r != QUIRE_OK && run.c < end) {
				end = run.c;
				st = r;
			}
			pipe_next_chunk(p, &run);
			run.done = run.c;
		}
		if (!run.busy && pipe_may(PIPE_RUN, run.c, end, &u[PIPE_IN], &run, &u[PIPE_OUT])) {
			int r = QUIRE_OK;
			if (run.c == 0) { /* set 0's buffers */
				p->a[p->arg_n] = pipe_len(p, 0);
				r = fw_engine_start(fw, p->kind, p->a, p->nargs, &faults);
			} else { /* its arguments written since the run before, or now */
				if (!run.loaded)
					pipe_arm(fw, p, &run);
				fw_engine_go(fw, p->kind, &faults);
			}
			run.loaded = 0;
			if (r != QUIRE_OK) {
				end = run.c;
				st = r;
			} else {
				run.busy = 1;
			}
		}
		moving += run.busy;
		/* The next transfers' registers, loaded while a channel moves, started when idle.
		 */
		int in_over = 0; /* the transfer in over: seen first, before the work below */
		for (uint32_t ch = 0; ch < PIPE_CHANNELS; ch++) {
			struct pipe_unit *v = &u[ch];
			if (ch != PIPE_IN && u[PIPE_IN].busy && fw_dma_done(fw, PIPE_IN)) {
				in_over = 1;
				break;
			}
			if (!v->loaded &&
			    pipe_may(ch, v->c, end, &u[PIPE_IN], &run, &u[PIPE_OUT])) {
				v->next_c = v->c;
				v->next_len = pipe_load(fw, p, ch, v);
				v->next_last = (uint32_t)pipe_step(p, ch, v);
				v->loaded = 1;
			}
			if (v->loaded && v->next_c >= end)
				v->loaded = 0; /* a chunk at or after a failure: not started */
			if (v->busy || !v->loaded || (ch == PIPE_OUT && v->next_c >= run.done))
				continue;
			fw_dma_go(fw, ch);
			v->busy = 1;
			v->loaded = 0;
			v->run_c = v->next_c;
			v->run_last = v->next_last;
			v->run_len = v->next_len;
			moving++;
		}
		/* The next run's arguments written while the engine waits for its input: its
		 * START alone is left for when the input is in. */
		if (!in_over && !run.busy && !run.loaded && run.c && run.c < end)
			pipe_arm(fw, p, &run);
		if (!moving)
			break;
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

/* The pipeline of a descriptor, for n elements in chunks of up to `chunk` (pipe_len). Only
 * what pipe_add and pipe_engine do not set is set here. */
static void pipe_init(struct pipe *p, uint32_t n, uint32_t chunk)
{
	p->n = n;
	p->chunk = chunk;
	p->nx[PIPE_IN] = p->nx[PIPE_OUT] = 0;
	p->overflow = 0;
	/* The chunks: whole ones while more than two are left, then pipe_len's. */
	uint32_t c = n > 2 * chunk ? (n - 2 * chunk) / chunk : 0;
	for (uint32_t i = c * chunk; i < n; i += pipe_len(p, i))
		c++;
	p->chunks = c;
}

static int op_encode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
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

static int op_decode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
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

static int op_reduce(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
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

static int mlp(struct quire_fw *fw, uint32_t op, uint32_t len, uint32_t c)
{
	uint32_t a[QUIRE_MLP_ARGS] = {op, len, c, FW_MODEL, FW_BUF_A, FW_BUF_B, FW_BUF_C, FW_SMALL};
	return fw_engine_run(fw, QUIRE_ENGINE_MLP, a, QUIRE_MLP_ARGS);
}

static int op_mlp_load(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	int st = QUIRE_OK;
	if (st)
		return st;
	fw->mlp_width0 = 0; /* a failed load leaves no model behind */
	st = fw_dma(fw, quire_le64_to_cpu(d->src), FW_MODEL, quire_le32_to_cpu(d->count),
		    QUIRE_DMA_TO_CARD);
	if (!st)
		st = mlp(fw, QUIRE_MLP_OP_LOAD, quire_le32_to_cpu(d->count), 0);
	if (st) {
		*detail = QUIRE_DETAIL_ENGINE;
		fw_qe_serve_update(fw);
		return st;
	}
	fw->mlp_width0 =
	    hal_mem_read32(fw, FW_MODEL + QUIRE_MLP_HDR_WIDTH) & 0xffffu; /* width[0] */
	fw_qe_serve_update(fw);
	return QUIRE_OK;
}

/* c candidates' features at src and feasibility bytes at aux scored, the scores to dst. */
static int mlp_score(struct quire_fw *fw, uint32_t c, uint64_t src, uint64_t aux, uint64_t dst,
		     uint32_t *result, uint32_t *detail)
{
	int st = fw_dma(fw, src, FW_BUF_A, c * fw->mlp_width0, QUIRE_DMA_TO_CARD);
	if (!st)
		st = fw_dma(fw, aux, FW_BUF_B, c, QUIRE_DMA_TO_CARD);
	if (!st) {
		st = mlp(fw, QUIRE_MLP_OP_SCORE, 0, c);
		/* No feasible candidate is an answer, not a failure: the scores go back too. */
		if (st == QUIRE_OK || st == QUIRE_ERR_NO_FEASIBLE) {
			int back = fw_dma(fw, dst, FW_BUF_C, 4 * c, QUIRE_DMA_TO_HOST);
			st = back ? back : st;
		}
		if (st == QUIRE_OK)
			*result = hal_mem_read32(fw, FW_SMALL);
	}
	if (st && !*detail)
		*detail = QUIRE_DETAIL_ENGINE;
	return st;
}

/* A host buffer a valid descriptor may name: present, `align`ed, not wrapping around for
 * its `most` bytes, and its `bytes` inside the window [base, base + size). */
static int quick_buffer(uint64_t addr, uint64_t bytes, uint64_t most, uint32_t align, uint64_t base,
			uint64_t size)
{
	return addr != 0 && (addr & (align - 1)) == 0 && addr + most >= addr &&
	       inside(addr, bytes, base, size);
}

/*
 * MLP_SCORE, a scheduler's decision, without the general path's steps: the descriptor is not
 * unpacked, validated opcode by opcode (quire_cmd_validate), nor its extents computed for any
 * opcode (check_windows). What those steps would refuse is all tested here, at once:
 * - the first word is the opcode alone (flags and format 0), and the other words not
 *   named (formats, workers, exp, stride, reserved) are 0;
 * - 1 to QUIRE_MLP_MAX_CANDIDATES candidates, the card has the engine, a model is loaded;
 * - src, aux and dst (4-byte aligned) present, not wrapping for their most bytes (a
 *   candidate's QUIRE_MLP_MAX_WIDTH features for src), and inside the host window for what
 *   the loaded model moves.
 * A descriptor that fails any of it takes the general path, which refuses it with its
 * status and the field at fault, in its own order; one that passes runs as fw_execute
 * would run it.
 */
int fw_mlp_score_quick(struct quire_fw *fw, uint32_t desc, uint32_t w0, uint32_t nonzero,
		       uint32_t *result, uint32_t *detail)
{
	if (!fw_mlp_score_may_be_quick(fw, w0, nonzero))
		return FW_NOT_QUICK;
	uint32_t count = hal_read32(fw, desc + 4 * QUIRE_CMD_W_COUNT);
	if (count == 0 || count > QUIRE_MLP_MAX_CANDIDATES)
		return FW_NOT_QUICK;
	uint64_t src = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_SRC + 4) << 32 |
		       hal_read32(fw, desc + 4 * QUIRE_CMD_W_SRC);
	uint64_t dst = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_DST + 4) << 32 |
		       hal_read32(fw, desc + 4 * QUIRE_CMD_W_DST);
	uint64_t aux = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_AUX + 4) << 32 |
		       hal_read32(fw, desc + 4 * QUIRE_CMD_W_AUX);
	uint64_t size, base = host_window(fw, &size);
	uint64_t c = count;
	if (!quick_buffer(src, c * fw->mlp_width0, c * QUIRE_MLP_MAX_WIDTH, 1, base, size) ||
	    !quick_buffer(dst, 4 * c, 4 * c, 4, base, size) ||
	    !quick_buffer(aux, c, c, 1, base, size))
		return FW_NOT_QUICK;
	*result = 0;
	*detail = QUIRE_DETAIL_NONE;
	return mlp_score(fw, count, src, aux, dst, result, detail);
}

static int op_info(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *result)
{
	const uint32_t words[16] = {
	    QUIRE_ID_MAGIC_VALUE,
	    QUIRE_INTERFACE_VERSION,
	    QUIRE_FW_BUILD_ID,
	    hal_bar_read(fw, fw->bar.id, QUIRE_ID_CAPS),
	    hal_bar_read(fw, fw->bar.id, QUIRE_ID_MEM_LO),
	    hal_bar_read(fw, fw->bar.id, QUIRE_ID_MEM_HI),
	    hal_bar_read(fw, fw->bar.id, QUIRE_ID_CLOCK_HZ),
	    fw->cmds_ok,
	    fw->cmds_err,
	};
	for (uint32_t i = 0; i < 16; i++)
		hal_mem_write32(fw, FW_INFO + 4 * i, words[i]);
	*result = sizeof(struct quire_card_info);
	return fw_dma(fw, quire_le64_to_cpu(d->dst), FW_INFO, sizeof(struct quire_card_info),
		      QUIRE_DMA_TO_HOST);
}

/* The QUIRE_CAP_* engines an opcode runs on. A collective's sums are REDUCE's; its bfp
 * encoding, and fp32's mean, are QUANT's. */
static uint32_t caps_needed(const struct quire_cmd *d)
{
	switch (d->opcode) {
	case QUIRE_OPC_EXPONENTS:
	case QUIRE_OPC_ENCODE:
	case QUIRE_OPC_DECODE:
		return QUIRE_CAP_CODEC;
	case QUIRE_OPC_REDUCE:
		return QUIRE_CAP_REDUCE;
	case QUIRE_OPC_MLP_LOAD:
	case QUIRE_OPC_MLP_SCORE:
		return QUIRE_CAP_MLP;
	case QUIRE_OPC_ALLREDUCE:
	case QUIRE_OPC_REDUCE_SCATTER:
		return QUIRE_CAP_REDUCE |
		       (quire_le16_to_cpu(d->format) == QUIRE_FMT_INT32 ? 0 : QUIRE_CAP_CODEC);
	default:
		return 0;
	}
}

int fw_execute(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *result, uint32_t *detail)
{
	*result = 0;
	*detail = QUIRE_DETAIL_NONE;
	/* An engine the card does not have is refused before anything moves. */
	if (caps_needed(d) & ~fw->caps) {
		*detail = QUIRE_DETAIL_ENGINE;
		return QUIRE_ERR_NOT_SUPPORTED;
	}
	if (d->opcode == QUIRE_OPC_MLP_SCORE && fw->mlp_width0 == 0) {
		*detail = QUIRE_DETAIL_ENGINE;
		return QUIRE_ERR_SHAPE; /* no model loaded */
	}
	int st = check_windows(fw, d, detail);
	if (st != QUIRE_OK)
		return st;
	switch (d->opcode) {
	case QUIRE_OPC_NOP:
		return QUIRE_OK;
	case QUIRE_OPC_INFO:
		return op_info(fw, d, result);
	case QUIRE_OPC_EXPONENTS:
	case QUIRE_OPC_ENCODE:
		return op_encode(fw, d, detail);
	case QUIRE_OPC_DECODE:
		return op_decode(fw, d, detail);
	case QUIRE_OPC_REDUCE:
		return op_reduce(fw, d, detail);
	case QUIRE_OPC_MLP_LOAD:
		return op_mlp_load(fw, d, detail);
	case QUIRE_OPC_MLP_SCORE:
		return mlp_score(fw, quire_le32_to_cpu(d->count), quire_le64_to_cpu(d->src),
				 quire_le64_to_cpu(d->aux), quire_le64_to_cpu(d->dst), result,
				 detail);
	case QUIRE_OPC_COMM_INIT:
		return fw_comm_init(fw, d, detail);
	case QUIRE_OPC_COMM_FREE:
		return fw_comm_free(fw, d, detail);
	case QUIRE_OPC_ALLREDUCE:
	case QUIRE_OPC_REDUCE_SCATTER:
		return fw_allreduce(fw, d, detail);
	case QUIRE_OPC_ALLGATHER:
		return fw_allgather(fw, d, detail);
	case QUIRE_OPC_BROADCAST:
		return fw_broadcast(fw, d, detail);
	case QUIRE_OPC_BARRIER:
		return fw_barrier(fw, d, detail);
	default:
		*detail = QUIRE_DETAIL_OPCODE;
		return QUIRE_ERR_OPCODE;
	}
}
