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
 * The pipelined commands: chunk k's transfers in on DMA channel 0, its engine runs, and its
 * transfers out on channel 1, each unit doing its items in order; in step s the three units
 * work at once on chunks s, s - 1 and s - 2 (buffer sets k % FW_PIPE_SETS, layout.h). The
 * first failure stops everything of its chunk and after; what comes before it still goes
 * out, as when each chunk went in, through the engine and out before the next.
 */
enum { PIPE_IN, PIPE_RUN, PIPE_OUT, PIPE_UNITS };

struct pipe_item {
	uint64_t host; /* a transfer: host address, card offset, bytes, direction */
	uint32_t card, len, dir;
	uint32_t kind; /* an engine run: the engine and its arguments */
	uint32_t a[QUIRE_QUANT_ARGS];
};

struct pipe {
	const struct quire_cmd *d;
	uint32_t n, chunk;
	/* Item j of a unit for chunk k in set `set`, its elements [i, i + len): 0 when none. */
	int (*item)(const struct pipe *p, uint32_t unit, uint32_t i, uint32_t len, uint32_t set,
		    uint32_t j, struct pipe_item *it);
	int overflow; /* REDUCE: an engine's saturation, the rest still summed */
	/* The command's fields the items use. */
	uint32_t fmt, vf, flags, w, in_b, out_b;
	int bfp, ef, shared, exps_only;
};

static int pipe_xfer(struct pipe_item *it, uint64_t host, uint32_t card, uint32_t len, uint32_t dir)
{
	it->host = host;
	it->card = card;
	it->len = len;
	it->dir = dir;
	return 1;
}

static int pipe_quant(struct pipe_item *it, uint32_t op, const struct pipe *p, uint32_t len,
		      uint32_t x, uint32_t resid, uint32_t exp, uint32_t q, uint32_t y)
{
	const uint32_t a[QUIRE_QUANT_ARGS] = {
	    op,       p->fmt, op == QUIRE_QUANT_OP_DECODE ? p->vf : 0,
	    p->flags, len,    op == QUIRE_QUANT_OP_DECODE ? p->w : 0,
	    x,        resid,  exp,
	    q,        y};
	it->kind = QUIRE_ENGINE_QUANT;
	for (uint32_t k = 0; k < QUIRE_QUANT_ARGS; k++)
		it->a[k] = a[k];
	return 1;
}

/* The j-th of `want`'s set bits' positions, or -1. */
static int nth_bit(uint32_t want, uint32_t j)
{
	for (int b = 0; b < 32; b++)
		if (want >> b & 1 && j-- == 0)
			return b;
	return -1;
}

static int encode_item(const struct pipe *p, uint32_t unit, uint32_t i, uint32_t len, uint32_t set,
		       uint32_t j, struct pipe_item *it)
{
	const uint32_t off = set * FW_PIPE_SET_BYTES, x = FW_BUF_A + off, r = FW_BUF_B + off,
		       q = FW_BUF_C + off, e = FW_BUF_E + off;
	const uint32_t nb = QUIRE_BFP_BLOCKS(len), b0 = i / QUIRE_BFP_BLOCK;
	const int own_exps = p->bfp && !p->shared;
	uint32_t want;
	if (unit == PIPE_IN)
		want = 1u | (uint32_t)p->ef << 1 | (uint32_t)(p->bfp && p->shared) << 2;
	else if (unit == PIPE_RUN) /* EXPONENTS alone, or ENCODE (with its exponents) */
		want = 1u;
	else
		want = (uint32_t)!p->exps_only | (uint32_t)own_exps << 1 |
		       (uint32_t)(p->ef && !p->exps_only) << 2;
	int b = nth_bit(want, j);
	if (b < 0)
		return 0;
	uint64_t src = quire_le64_to_cpu(p->d->src), aux = quire_le64_to_cpu(p->d->aux),
		 exp = quire_le64_to_cpu(p->d->exp), dst = quire_le64_to_cpu(p->d->dst);
	if (unit == PIPE_IN)
		return b == 0   ? pipe_xfer(it, src + 4ull * i, x, 4 * len, QUIRE_DMA_TO_CARD)
		       : b == 1 ? pipe_xfer(it, aux + 4ull * i, r, 4 * len, QUIRE_DMA_TO_CARD)
				: pipe_xfer(it, exp + b0, e, nb, QUIRE_DMA_TO_CARD);
	if (unit == PIPE_RUN)
		return pipe_quant(it,
				  p->exps_only ? QUIRE_QUANT_OP_EXPONENTS : QUIRE_QUANT_OP_ENCODE,
				  p, len, x, r, e, q, 0);
	return b == 0   ? pipe_xfer(it, dst + (uint64_t)i * p->out_b, q, len * p->out_b,
				    QUIRE_DMA_TO_HOST)
	       : b == 1 ? pipe_xfer(it, exp + b0, e, nb, QUIRE_DMA_TO_HOST)
			: pipe_xfer(it, aux + 4ull * i, r, 4 * len, QUIRE_DMA_TO_HOST);
}

static int decode_item(const struct pipe *p, uint32_t unit, uint32_t i, uint32_t len, uint32_t set,
		       uint32_t j, struct pipe_item *it)
{
	const uint32_t off = set * FW_PIPE_SET_BYTES, v = FW_BUF_A + off, y = FW_BUF_C + off,
		       e = FW_BUF_E + off;
	if (unit == PIPE_IN && j == 0)
		return pipe_xfer(it, quire_le64_to_cpu(p->d->src) + (uint64_t)i * p->in_b, v,
				 len * p->in_b, QUIRE_DMA_TO_CARD);
	if (unit == PIPE_IN && j == 1 && p->bfp)
		return pipe_xfer(it, quire_le64_to_cpu(p->d->exp) + i / QUIRE_BFP_BLOCK, e,
				 QUIRE_BFP_BLOCKS(len), QUIRE_DMA_TO_CARD);
	if (unit == PIPE_RUN && j == 0)
		return pipe_quant(it, QUIRE_QUANT_OP_DECODE, p, len, 0, 0, e, v, y);
	if (unit == PIPE_OUT && j == 0)
		return pipe_xfer(it, quire_le64_to_cpu(p->d->dst) + 4ull * i, y, 4 * len,
				 QUIRE_DMA_TO_HOST);
	return 0;
}

static int reduce_item(const struct pipe *p, uint32_t unit, uint32_t i, uint32_t len, uint32_t set,
		       uint32_t j, struct pipe_item *it)
{
	const uint32_t in = FW_REDUCE_IN + set * FW_PIPE_REDUCE_IN_BYTES,
		       out = FW_BUF_C + set * FW_PIPE_SET_BYTES;
	if (unit == PIPE_IN && j < p->w) /* all W inputs of a chunk side by side */
		return pipe_xfer(it,
				 quire_le64_to_cpu(p->d->src) +
				     quire_le64_to_cpu(p->d->stride) * j + (uint64_t)i * p->in_b,
				 in + j * p->chunk * p->in_b, len * p->in_b, QUIRE_DMA_TO_CARD);
	if (unit == PIPE_RUN && j == 0) {
		const uint32_t a[QUIRE_REDUCE_ARGS] = {
		    QUIRE_REDUCE_OP_SUM, p->vf, p->fmt, p->w, len, p->chunk, 0, in, 0, out};
		it->kind = QUIRE_ENGINE_REDUCE;
		for (uint32_t k = 0; k < QUIRE_REDUCE_ARGS; k++)
			it->a[k] = a[k];
		return 1;
	}
	if (unit == PIPE_OUT && j == 0)
		return pipe_xfer(it, quire_le64_to_cpu(p->d->dst) + (uint64_t)i * p->out_b, out,
				 len * p->out_b, QUIRE_DMA_TO_HOST);
	return 0;
}

/* A unit of the pipeline in a step: its chunk, its next item, what it has running. */
struct pipe_unit {
	uint32_t chunk, j, live, busy, loaded, len, faults;
	struct pipe_item next;
};

/* The unit's next item of its chunk into u->next; 0 when it has no more. */
static int pipe_next(const struct pipe *p, struct pipe_unit *u, uint32_t unit)
{
	uint32_t i = u->chunk * p->chunk, len = min_u32(p->chunk, p->n - i);
	for (;;) {
		if (!p->item(p, unit, i, len, u->chunk % FW_PIPE_SETS, u->j++, &u->next))
			return 0;
		if (unit == PIPE_RUN || u->next.len) /* a transfer of nothing is done */
			return 1;
	}
}

/* The command's chunks through the pipeline: its status (detail ENGINE on a failure). */
static int pipe_run(struct quire_fw *fw, struct pipe *p, uint32_t *detail)
{
	const uint32_t chunks = (p->n + p->chunk - 1) / p->chunk;
	uint32_t bad = chunks; /* the first chunk that failed: nothing of it or after starts */
	int st = QUIRE_OK;
	for (uint32_t s = 0; s < chunks + 2 && s < bad + 2; s++) {
		struct pipe_unit u[PIPE_UNITS];
		uint32_t running = 0;
		for (uint32_t k = 0; k < PIPE_UNITS; k++) {
			u[k] = (struct pipe_unit){.chunk = s - k};
			u[k].live = s >= k && s - k < chunks && s - k < bad;
			running += u[k].live;
		}
		while (running) {
			running = 0;
			for (uint32_t k = 0; k < PIPE_UNITS; k++) {
				struct pipe_unit *v = &u[k];
				uint32_t ch = k == PIPE_IN ? 0 : 1;
				if (v->busy && k != PIPE_RUN && v->live && !v->loaded &&
				    v->chunk < bad) { /* the next transfer's registers meanwhile */
					v->loaded = pipe_next(p, v, k);
					v->live = v->loaded;
					if (v->loaded)
						fw_dma_load(fw, ch, v->next.host, v->next.card,
							    v->next.len, v->next.dir);
				}
				if (v->busy) {
					int done = k == PIPE_RUN ? fw_engine_done(fw, v->next.kind)
								 : fw_dma_done(fw, ch);
					if (!done) {
						running++;
						continue;
					}
					int r = k == PIPE_RUN
						    ? fw_engine_finish(fw, v->next.kind, v->faults)
						    : fw_dma_finish(fw, ch, v->len);
					v->busy = 0;
					if (k == PIPE_RUN && r == QUIRE_ERR_OVERFLOW &&
					    v->next.kind == QUIRE_ENGINE_REDUCE) {
						p->overflow = 1; /* saturated, reported, and the
								    rest still summed */
						r = QUIRE_OK;
					}
					if (r != QUIRE_OK && v->chunk < bad) {
						bad = v->chunk;
						st = r;
					}
				}
				if (v->chunk >= bad)
					v->live = 0;
				if (!v->live)
					continue;
				if (k == PIPE_RUN) {
					if (!pipe_next(p, v, k)) {
						v->live = 0;
						continue;
					}
					int r = fw_engine_start(fw, v->next.kind, v->next.a,
								v->next.kind == QUIRE_ENGINE_QUANT
								    ? QUIRE_QUANT_ARGS
								    : QUIRE_REDUCE_ARGS,
								&v->faults);
					if (r != QUIRE_OK) {
						v->live = 0;
						if (v->chunk < bad) {
							bad = v->chunk;
							st = r;
						}
						continue;
					}
				} else {
					if (!v->loaded && !pipe_next(p, v, k)) {
						v->live = 0;
						continue;
					}
					if (!v->loaded)
						fw_dma_load(fw, ch, v->next.host, v->next.card,
							    v->next.len, v->next.dir);
					fw_dma_go(fw, ch);
					v->len = v->next.len;
					v->loaded = 0;
				}
				v->busy = 1;
				running++;
			}
		}
	}
	if (st && !*detail)
		*detail = QUIRE_DETAIL_ENGINE;
	return st;
}

/* The pipeline of a descriptor, its items from `item`: chunks of FW_PIPE_ELEMS. */
static void pipe_init(struct pipe *p, const struct quire_cmd *d,
		      int (*item)(const struct pipe *, uint32_t, uint32_t, uint32_t, uint32_t,
				  uint32_t, struct pipe_item *))
{
	*p = (struct pipe){.d = d, .item = item, .chunk = FW_PIPE_ELEMS};
	p->n = quire_le32_to_cpu(d->count);
	p->fmt = quire_le16_to_cpu(d->format);
	p->vf = quire_le16_to_cpu(d->val_format);
	p->w = quire_le16_to_cpu(d->workers);
	p->bfp = p->fmt != QUIRE_FMT_FP16;
	p->in_b = quire_format_elem_bytes(p->vf);
	p->out_b = quire_format_elem_bytes(p->fmt);
}

static int op_encode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	struct pipe p;
	pipe_init(&p, d, encode_item);
	p.ef = (d->flags & QUIRE_CMD_F_EF) != 0;
	p.shared = (d->flags & QUIRE_CMD_F_SHARED_EXP) != 0;
	p.exps_only = d->opcode == QUIRE_OPC_EXPONENTS;
	/* A command's own exponents come from the ENCODE run itself: one pass over x. */
	p.flags = (p.ef ? QUIRE_QUANT_F_EF : 0) |
		  (p.bfp && !p.shared && !p.exps_only ? QUIRE_QUANT_F_EXPS : 0);
	return pipe_run(fw, &p, detail);
}

static int op_decode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	struct pipe p;
	pipe_init(&p, d, decode_item);
	return pipe_run(fw, &p, detail);
}

static int op_reduce(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	struct pipe p;
	pipe_init(&p, d, reduce_item);
	/* All W inputs of a chunk side by side in a set's input buffer. */
	p.chunk = min_u32(FW_PIPE_ELEMS, FW_PIPE_REDUCE_IN_BYTES / (p.w * p.in_b)) &
		  ~(QUIRE_BFP_BLOCK - 1);
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
		return st;
	}
	fw->mlp_width0 =
	    hal_mem_read32(fw, FW_MODEL + QUIRE_MLP_HDR_WIDTH) & 0xffffu; /* width[0] */
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
