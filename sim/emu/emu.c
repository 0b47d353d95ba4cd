// SPDX-License-Identifier: MIT
/*
 * emu: the functional card model.
 *
 * One mutex guards the whole card: the host side (MMIO) and the firmware
 * thread (HAL accesses, DMA, engine runs) take turns; events that wake the
 * firmware (doorbells, frames) have a lock of their own. Engines run to
 * completion when started, so the firmware always finds them done; their
 * cycle counts are modelled (one 512-bit beat per cycle), the card clock
 * itself follows real time. The queue engine is queue.c's; the card's state,
 * which both reach, is emu_state.h.
 */
#include "sim/emu/emu.h"
#include "sim/emu/emu_state.h"
#include "sim/emu/engines.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "firmware/fw.h"
#include "hls/mlp.h"
#include "hls/quant.h"
#include "hls/reduce.h"
#include "quire/boards.h"
#include "quire/card.h"
#include "quire/format.h"
#include "quire/regs.h"
#include "quire/static_assert.h"
#include "quire/status.h"
#include "sim/clock.h"

/* This model is the sim board of boards/sim.toml: its register window, memory, clock and
 * port count come from there (<quire/boards.h>). */
QUIRE_STATIC_ASSERT(QUIRE_BOARD_SIM_REGS_BAR_BYTES == QUIRE_BAR0_BYTES,
		    "boards/sim.toml: the register BAR is QUIRE_BAR0_BYTES long");
QUIRE_STATIC_ASSERT(QUIRE_BOARD_SIM_NET_PORTS == 1, "the emu has one network port");

#ifndef QUIRE_HW_BUILD_ID
#define QUIRE_HW_BUILD_ID 0u
#endif

static struct emu *emu_of(struct quire_device *dev)
{
	return (struct emu *)dev;
}

static void bar_init(struct emu *e)
{
	static const struct {
		uint32_t at, type, version, next;
	} blocks[] = {
	    {RB_ID, QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION, RB_CMDQ},
	    {RB_CMDQ, QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, RB_CPLQ},
	    {RB_CPLQ, QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, RB_IRQ},
	    {RB_IRQ, QUIRE_RB_TYPE_IRQ, QUIRE_RB_IRQ_VERSION, RB_ENGINES},
	    {RB_ENGINES, QUIRE_RB_TYPE_ENGINES, QUIRE_RB_ENGINES_VERSION, RB_NETPORT},
	    {RB_NETPORT, QUIRE_RB_TYPE_NETPORT, QUIRE_RB_NETPORT_VERSION_RETX, RB_COUNTERS},
	    {RB_COUNTERS, QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION, 0},
	};
	for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		*reg(e, blocks[i].at, QUIRE_RB_TYPE) = blocks[i].type;
		*reg(e, blocks[i].at, QUIRE_RB_VERSION) = blocks[i].version;
		*reg(e, blocks[i].at, QUIRE_RB_NEXT) = blocks[i].next;
	}
	*reg(e, RB_ID, QUIRE_ID_MAGIC) = QUIRE_ID_MAGIC_VALUE;
	*reg(e, RB_ID, QUIRE_ID_IF_VERSION) = QUIRE_INTERFACE_VERSION;
	*reg(e, RB_ID, QUIRE_ID_BOARD) = QUIRE_BOARD_SIM;
	*reg(e, RB_ID, QUIRE_ID_CAPS) = QUIRE_CAP_CODEC | QUIRE_CAP_REDUCE | QUIRE_CAP_MLP;
	*reg(e, RB_ID, QUIRE_ID_BUILD_LO) = QUIRE_HW_BUILD_ID;
	*reg(e, RB_ID, QUIRE_ID_FW_STATE) = QUIRE_FW_STATE_BOOTING;
	*reg(e, RB_ID, QUIRE_ID_MEM_LO) = (uint32_t)e->mem_bytes;
	*reg(e, RB_ID, QUIRE_ID_MEM_HI) = (uint32_t)(e->mem_bytes >> 32);
	*reg(e, RB_ID, QUIRE_ID_CLOCK_HZ) = e->clock_hz;
	*reg(e, RB_ENGINES, QUIRE_ENG_COUNT) = N_ENGINES;
	for (uint32_t i = 0; i < N_ENGINES; i++)
		*reg(e, RB_ENGINES, QUIRE_ENG_RECORD(i) + QUIRE_ENG_KIND) = i + 1;
	*reg(e, RB_NETPORT, QUIRE_NET_COUNT) = QUIRE_BOARD_SIM_NET_PORTS;
	if (e->net) {
		*reg(e, RB_ID, QUIRE_ID_CAPS) |= QUIRE_CAP_NET;
		*reg(e, RB_NETPORT, QUIRE_NET_RECORD(0) + QUIRE_NET_LINK) = 1;
		*reg(e, RB_NETPORT, QUIRE_NET_RECORD(0) + QUIRE_NET_ADDR) =
		    quire_netport_read(e->net, QUIRE_NET_PORT_ADDR);
	}
}

/* The port's counters, as its BAR record shows them. */
static void net_counters(struct emu *e)
{
	if (!e->net)
		return;
	struct quire_netport_stats st;
	quire_netport_stats(e->net, &st);
	uint32_t r = RB_NETPORT + QUIRE_NET_RECORD(0);
	*reg(e, r, QUIRE_NET_TX_FRAMES) = (uint32_t)st.tx_frames;
	*reg(e, r, QUIRE_NET_RX_FRAMES) = (uint32_t)st.rx_frames;
	*reg(e, r, QUIRE_NET_RX_ERRORS) = (uint32_t)st.rx_errors;
	*reg(e, r, QUIRE_NET_TX_BYTES_LO) = (uint32_t)st.tx_bytes;
	*reg(e, r, QUIRE_NET_TX_BYTES_HI) = (uint32_t)(st.tx_bytes >> 32);
	*reg(e, r, QUIRE_NET_TX_DROPS) = (uint32_t)st.tx_drops;
	*reg(e, RB_NETPORT, QUIRE_NET_RETRANSMITS) = (uint32_t)st.retransmits;
}

static uint64_t cycles_now(struct emu *e)
{
	double s = 1e-9 * (double)(quire_sim_mono_ns() - e->t0_ns);
	return (uint64_t)(s * e->clock_hz);
}

/* ---- host side ------------------------------------------------------------ */

static void queue_ctrl(struct emu *e, uint32_t block, uint32_t value)
{
	uint64_t base =
	    (uint64_t)*reg(e, block, QUIRE_Q_BASE_HI) << 32 | *reg(e, block, QUIRE_Q_BASE_LO);
	uint32_t log2 = *reg(e, block, QUIRE_Q_SIZE_LOG2);
	*reg(e, block, QUIRE_Q_CTRL) = value & QUIRE_Q_CTRL_ENABLE;
	*reg(e, block, QUIRE_Q_PRODUCER) = 0;
	*reg(e, block, QUIRE_Q_CONSUMER) = 0;
	if (!(value & QUIRE_Q_CTRL_ENABLE))
		*reg(e, block, QUIRE_Q_STATUS) = 0;
	else if (base == 0 || (base & 63) || log2 < QUIRE_Q_MIN_LOG2 || log2 > QUIRE_Q_MAX_LOG2)
		*reg(e, block, QUIRE_Q_STATUS) = QUIRE_Q_STATUS_BAD_RING;
	else
		*reg(e, block, QUIRE_Q_STATUS) = QUIRE_Q_STATUS_ENABLED;
	e->epoch++;
}

/* Something the firmware may want to look at happened. */
static void notify(struct emu *e)
{
	pthread_mutex_lock(&e->ev_lock);
	e->event_pending = 1;
	pthread_cond_signal(&e->event);
	pthread_mutex_unlock(&e->ev_lock);
}

static void emu_mmio_write(struct quire_device *dev, uint32_t off, uint32_t v)
{
	struct emu *e = emu_of(dev);
	if ((off & 3) || off >= QUIRE_BAR0_BYTES)
		return; /* a write outside the registers goes nowhere */
	pthread_mutex_lock(&e->lock);
	uint32_t block = off & ~0xffu, r = off & 0xffu;
	if (block == RB_CMDQ || block == RB_CPLQ) {
		if (r == QUIRE_Q_BASE_LO || r == QUIRE_Q_BASE_HI || r == QUIRE_Q_SIZE_LOG2)
			*reg(e, block, r) = v;
		else if (r == QUIRE_Q_CTRL)
			queue_ctrl(e, block, v);
		else if ((block == RB_CMDQ && r == QUIRE_Q_PRODUCER) ||
			 (block == RB_CPLQ && r == QUIRE_Q_CONSUMER))
			*reg(e, block, r) = v;
	} else if (block == RB_IRQ) {
		if (r == QUIRE_IRQ_STATUS)
			*reg(e, block, r) &= ~v;
		else if (r == QUIRE_IRQ_MASK)
			*reg(e, block, r) = v;
	}
	pthread_mutex_unlock(&e->lock);
	notify(e);
}

static uint32_t emu_mmio_read(struct quire_device *dev, uint32_t off)
{
	struct emu *e = emu_of(dev);
	if ((off & 3) || off >= QUIRE_BAR0_BYTES)
		return 0xffffffffu; /* as a PCIe read of nothing */
	pthread_mutex_lock(&e->lock);
	if (off >= RB_NETPORT && off < RB_COUNTERS)
		net_counters(e);
	uint32_t v = e->bar[off / 4];
	if (off == RB_COUNTERS + QUIRE_CNT_CYCLES_LO || off == RB_COUNTERS + QUIRE_CNT_CYCLES_HI) {
		uint64_t c = cycles_now(e);
		v = off == RB_COUNTERS + QUIRE_CNT_CYCLES_LO ? (uint32_t)c : (uint32_t)(c >> 32);
	}
	pthread_mutex_unlock(&e->lock);
	return v;
}

static int emu_attach_host(struct quire_device *dev, void *mem, uint64_t iova, uint64_t size)
{
	struct emu *e = emu_of(dev);
	if (!mem || size == 0 || iova + size < iova)
		return QUIRE_ERR_INVALID;
	pthread_mutex_lock(&e->lock);
	e->host = mem;
	e->host_iova = iova;
	e->host_size = size;
	pthread_mutex_unlock(&e->lock);
	return QUIRE_OK;
}

static void emu_detach_host(struct quire_device *dev)
{
	struct emu *e = emu_of(dev);
	pthread_mutex_lock(&e->lock);
	e->host = NULL;
	e->host_iova = e->host_size = 0;
	queue_ctrl(e, RB_CMDQ, 0);
	queue_ctrl(e, RB_CPLQ, 0);
	*reg(e, RB_IRQ, QUIRE_IRQ_MASK) = 0;
	*reg(e, RB_IRQ, QUIRE_IRQ_STATUS) = 0;
	pthread_mutex_unlock(&e->lock);
	notify(e);
}

static void emu_set_irq(struct quire_device *dev, quire_irq_fn fn, void *ctx)
{
	struct emu *e = emu_of(dev);
	pthread_mutex_lock(&e->lock);
	e->irq_fn = fn;
	e->irq_ctx = ctx;
	pthread_mutex_unlock(&e->lock);
}

/* ---- card side: what the firmware's HAL reaches ---------------------------- */

static void *card_ptr(struct emu *e, uint64_t off, uint64_t bytes, uint32_t align)
{
	if (off > e->mem_bytes || bytes > e->mem_bytes - off || (off & (align - 1)))
		return NULL;
	return e->mem + off;
}

uint8_t *quire_emu_host_span(struct emu *e, uint32_t epoch, uint64_t host, uint64_t len,
			     uint32_t *status)
{
	*status = QUIRE_OK;
	if (epoch != e->epoch) {
		*status = QUIRE_ERR_PEER; /* the host of its command has gone or reset the queues */
		return NULL;
	}
	if (!e->host || host < e->host_iova || host - e->host_iova > e->host_size ||
	    len > e->host_size - (host - e->host_iova)) {
		*status = QUIRE_ERR_RANGE;
		return NULL;
	}
	return e->host + (host - e->host_iova);
}

/* A transfer to the card with its block exponents at card offset exp (docs/registers/dma.md):
 * its status. */
static uint32_t dma_exps(struct emu *e, uint32_t exp, uint64_t host, uint32_t card, uint32_t len,
			 uint8_t *c, const uint8_t *h)
{
	uint32_t n = len / 4;
	if ((host | card) % 64 || len % 4)
		return QUIRE_ERR_INVALID;
	int8_t *out = card_ptr(e, exp, QUIRE_BFP_BLOCKS(n), 1);
	if (!out)
		return QUIRE_ERR_RANGE;
	memcpy(c, h, len);
	quire_emu_quant(quire_emu_engines_golden(), QUIRE_QUANT_OP_EXPONENTS, QUIRE_FMT_BFP8, 0, 0,
			n, 0, (float *)(void *)c, NULL, out, NULL, NULL);
	return QUIRE_OK;
}

/* The bytes of one value of a format QUIRE_DMA_TO_HOST_DECODE decodes with `fmt`: 0 for a
 * pair it does not (docs/registers/dma.md). */
static uint32_t dma_decode_value_bytes(uint32_t fmt, uint32_t vf)
{
	if (fmt == QUIRE_FMT_FP16)
		return vf == QUIRE_FMT_FP16 ? 2 : 0;
	if (fmt != QUIRE_FMT_BFP8 && fmt != QUIRE_FMT_BFP16)
		return 0;
	return vf == QUIRE_FMT_INT8 ? 1 : vf == QUIRE_FMT_INT16 ? 2 : vf == QUIRE_FMT_INT32 ? 4 : 0;
}

/* A transfer to the host decoded on the way, its values at card offset `card`: its status.
 * Decoded whole before a byte goes to the host, so a refused one moves nothing. */
static uint32_t dma_decode(struct emu *e, const uint32_t *r, uint64_t host, uint32_t card,
			   uint32_t len, uint8_t *h)
{
	uint32_t word = r[QUIRE_DMA_DECODE / 4], n = len / 4;
	uint32_t fmt = QUIRE_DMA_DECODE_FORMAT(word), vf = QUIRE_DMA_DECODE_VAL_FORMAT(word);
	if ((host | card) % 64 || len % 4 || !dma_decode_value_bytes(fmt, vf))
		return QUIRE_ERR_INVALID;
	int8_t *exp = NULL;
	if (fmt != QUIRE_FMT_FP16 &&
	    !(exp = card_ptr(e, r[QUIRE_DMA_EXP / 4], QUIRE_BFP_BLOCKS(n), 1)))
		return QUIRE_ERR_RANGE;
	float *y = malloc(len ? len : 1);
	if (!y)
		return QUIRE_ERR_NOMEM;
	int st = quire_emu_quant(quire_emu_engines_golden(), QUIRE_QUANT_OP_DECODE, fmt, vf, 0, n,
				 QUIRE_DMA_DECODE_MEAN(word), NULL, NULL, exp, e->mem + card, y);
	if (st == QUIRE_OK)
		memcpy(h, y, len);
	free(y);
	return (uint32_t)st;
}

/* A START of DMA channel `ch` (docs/registers/dma.md): its checks in their order, then the
 * copy, at once: the channel's queue is never more than the transfer just posted, so
 * QUEUED reads 0 and the counts move at the START. */
static void dma_run(struct emu *e, uint32_t ch)
{
	uint32_t *r = e->dma[ch];
	uint64_t host = (uint64_t)r[QUIRE_DMA_HOST_HI / 4] << 32 | r[QUIRE_DMA_HOST_LO / 4];
	uint32_t card = r[QUIRE_DMA_CARD / 4], len = r[QUIRE_DMA_LEN / 4];
	uint32_t status, dir = r[QUIRE_DMA_DIR / 4];
	int decodes = dir == QUIRE_DMA_TO_HOST_DECODE && ch == QUIRE_DMA_DECODE_CHANNEL;
	uint32_t card_len = len; /* a decoding transfer's: its values' */
	if (decodes) {
		uint32_t word = r[QUIRE_DMA_DECODE / 4];
		card_len = len / 4 *
			   dma_decode_value_bytes(QUIRE_DMA_DECODE_FORMAT(word),
						  QUIRE_DMA_DECODE_VAL_FORMAT(word));
	}
	uint8_t *c = card_ptr(e, card, card_len, 1);
	uint8_t *h = quire_emu_host_span(e, r[QUIRE_DMA_EPOCH / 4], host, len, &status);
	if (h && !c) {
		status = QUIRE_ERR_RANGE;
	} else if (h && decodes) {
		status = dma_decode(e, r, host, card, len, h);
	} else if (h) {
		if (r[QUIRE_DMA_DIR / 4] == QUIRE_DMA_TO_CARD)
			memcpy(c, h, len);
		else if (r[QUIRE_DMA_DIR / 4] == QUIRE_DMA_TO_HOST)
			memcpy(h, c, len);
		else if (r[QUIRE_DMA_DIR / 4] == QUIRE_DMA_TO_CARD_EXPS)
			status = dma_exps(e, r[QUIRE_DMA_EXP / 4], host, card, len, c, h);
		else
			status = QUIRE_ERR_INVALID;
	}
	r[QUIRE_DMA_STATUS / 4] = status;
	r[QUIRE_DMA_CTRL / 4] = QUIRE_DMA_DONE;
	r[QUIRE_DMA_DONE_COUNT / 4]++;
	if (status == QUIRE_OK) {
		r[QUIRE_DMA_BYTES_DONE / 4] += len;
	} else {
		r[QUIRE_DMA_FAILED_COUNT / 4]++;
		r[QUIRE_DMA_FAILED_STATUS / 4] = status;
	}
}

static int run_quant(struct emu *e, const uint64_t *a, uint64_t *cycles)
{
	uint32_t op = (uint32_t)a[QUIRE_QUANT_ARG_OP], fmt = (uint32_t)a[QUIRE_QUANT_ARG_FMT];
	uint32_t vf = (uint32_t)a[QUIRE_QUANT_ARG_VAL_FMT],
		 flags = (uint32_t)a[QUIRE_QUANT_ARG_FLAGS];
	uint64_t n = (uint32_t)a[QUIRE_QUANT_ARG_N], blocks = QUIRE_BFP_BLOCKS(n);
	int bfp = fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16, ef = flags & QUIRE_QUANT_EF;
	int encode = op == QUIRE_QUANT_OP_ENCODE, decode = op == QUIRE_QUANT_OP_DECODE;
	float *x = NULL, *resid = NULL, *y = NULL;
	int8_t *exp = NULL;
	uint8_t *q = NULL;
	if (!decode && !(x = card_ptr(e, a[QUIRE_QUANT_ARG_X], 4 * n, 4)))
		return QUIRE_ERR_RANGE;
	if (!decode && ef && !(resid = card_ptr(e, a[QUIRE_QUANT_ARG_RESID], 4 * n, 4)))
		return QUIRE_ERR_RANGE;
	if (op == QUIRE_QUANT_OP_EXPONENTS && !bfp)
		return QUIRE_ERR_FORMAT; /* only block formats have exponents to write */
	if (bfp && !(exp = card_ptr(e, a[QUIRE_QUANT_ARG_EXP], blocks, 1)))
		return QUIRE_ERR_RANGE;
	if (encode && !(q = card_ptr(e, a[QUIRE_QUANT_ARG_Q], n * quire_format_elem_bytes(fmt), 1)))
		return QUIRE_ERR_RANGE;
	if (decode &&
	    (!(q = card_ptr(e, a[QUIRE_QUANT_ARG_Q], n * quire_format_elem_bytes(vf), 1)) ||
	     !(y = card_ptr(e, a[QUIRE_QUANT_ARG_Y], 4 * n, 4))))
		return QUIRE_ERR_RANGE;
	*cycles = n / 16 + 64;
	return quire_emu_quant(quire_emu_engines_golden(), op, fmt, vf, flags, (uint32_t)n,
			       (uint32_t)a[QUIRE_QUANT_ARG_MEAN_W], x, resid, exp, q, y);
}

static int run_reduce(struct emu *e, const uint64_t *a, uint64_t *cycles)
{
	uint32_t op = (uint32_t)a[QUIRE_REDUCE_ARG_OP], flags = (uint32_t)a[QUIRE_REDUCE_ARG_FLAGS];
	uint64_t w = (uint32_t)a[QUIRE_REDUCE_ARG_W], n = (uint32_t)a[QUIRE_REDUCE_ARG_N];
	uint64_t stride = (uint32_t)a[QUIRE_REDUCE_ARG_STRIDE];
	uint64_t in_b = op == QUIRE_REDUCE_OP_SUM
			    ? quire_format_elem_bytes((uint32_t)a[QUIRE_REDUCE_ARG_IN_FMT])
			    : 1;
	uint64_t acc_b = op == QUIRE_REDUCE_OP_SUM
			     ? quire_format_elem_bytes((uint32_t)a[QUIRE_REDUCE_ARG_ACC_FMT])
			     : 1;
	if (!in_b || !acc_b || w < 1 || w > QUIRE_CMD_MAX_WORKERS)
		return QUIRE_ERR_FORMAT;
	uint8_t *in = card_ptr(e, a[QUIRE_REDUCE_ARG_IN], ((w - 1) * stride + n) * in_b, 1);
	uint8_t *acc_in = (flags & QUIRE_REDUCE_ACC_IN)
			      ? card_ptr(e, a[QUIRE_REDUCE_ARG_ACC_IN], n * acc_b, 1)
			      : NULL;
	uint8_t *out = card_ptr(e, a[QUIRE_REDUCE_ARG_ACC_OUT], n * acc_b, 1);
	if (!in || !out || ((flags & QUIRE_REDUCE_ACC_IN) && !acc_in))
		return QUIRE_ERR_RANGE;
	*cycles = n * w * in_b / 64 + 64;
	return quire_emu_reduce(quire_emu_engines_golden(), op,
				(uint32_t)a[QUIRE_REDUCE_ARG_IN_FMT],
				(uint32_t)a[QUIRE_REDUCE_ARG_ACC_FMT], (uint32_t)w, (uint32_t)n,
				(uint32_t)stride, flags, in, acc_in, out);
}

static int run_mlp(struct emu *e, const uint64_t *a, uint64_t *cycles)
{
	uint32_t op = (uint32_t)a[QUIRE_MLP_ARG_OP], c = (uint32_t)a[QUIRE_MLP_ARG_C];
	if (op == QUIRE_MLP_OP_LOAD) {
		uint32_t len = (uint32_t)a[QUIRE_MLP_ARG_LEN];
		uint8_t *img = card_ptr(e, a[QUIRE_MLP_ARG_IMAGE], len, 4);
		*cycles = len / 64 + 64;
		return img ? quire_mlp_load(img, len, e->mlp) : QUIRE_ERR_RANGE;
	}
	if (op != QUIRE_MLP_OP_SCORE)
		return QUIRE_ERR_OPCODE;
	if (e->mlp->layers == 0)
		return QUIRE_ERR_SHAPE;
	uint64_t macs = 0;
	for (uint32_t l = 0; l < e->mlp->layers; l++)
		macs += (uint64_t)e->mlp->width[l] * e->mlp->width[l + 1];
	int8_t *feat = card_ptr(e, a[QUIRE_MLP_ARG_FEATURES], (uint64_t)c * e->mlp->width[0], 1);
	uint8_t *feas = card_ptr(e, a[QUIRE_MLP_ARG_FEASIBLE], c, 1);
	int32_t *scores = card_ptr(e, a[QUIRE_MLP_ARG_SCORES], 4ull * c, 4);
	uint32_t *choice = card_ptr(e, a[QUIRE_MLP_ARG_CHOICE], 4, 4);
	if (!feat || !feas || !scores || !choice)
		return QUIRE_ERR_RANGE;
	*cycles = c * macs / 64 + 64; /* 64 multiply-accumulates a cycle */
	return quire_mlp_score(e->mlp, c, feat, feas, scores, choice);
}

static void engine_start(struct emu *e, uint32_t idx)
{
	struct engine *g = &e->eng[idx];
	uint64_t cycles = 0;
	int st = idx == 0   ? run_quant(e, g->args, &cycles)
		 : idx == 1 ? run_reduce(e, g->args, &cycles)
			    : run_mlp(e, g->args, &cycles);
	g->ret = (uint32_t)st;
	g->ctrl = QUIRE_ENGINE_DONE | QUIRE_ENGINE_IDLE;
	g->ops++;
	g->cycles += cycles;
	*reg(e, RB_ENGINES, QUIRE_ENG_RECORD(idx) + QUIRE_ENG_OPS) = g->ops;
	*reg(e, RB_ENGINES, QUIRE_ENG_RECORD(idx) + QUIRE_ENG_CYCLES) = (uint32_t)g->cycles;
}

/* The firmware's reads and writes of the card's blocks (docs/registers.md: the BAR blocks
 * and the card-private ones, control, DMA mover, engine windows, network port, queue engine). */
static uint32_t hal_read(void *ctx, uint32_t addr)
{
	struct emu *e = ctx;
	uint32_t v = 0xffffffffu;
	if (addr == QUIRE_CARD_QUEUE + QUIRE_QE_DESC_STATE)
		return quire_emu_qe_desc_state(e);
	pthread_mutex_lock(&e->lock);
	if (addr >= QUIRE_CARD_MEM) {
		uint32_t *p = card_ptr(e, addr - QUIRE_CARD_MEM, 4, 4);
		if (p)
			v = *p;
	} else if (addr >= QUIRE_CARD_BAR && addr < QUIRE_CARD_BAR + QUIRE_BAR0_BYTES) {
		v = e->bar[(addr - QUIRE_CARD_BAR) / 4];
	} else if (addr >= QUIRE_CARD_CTL && addr < QUIRE_CARD_CTL + 0x100) {
		uint32_t r = addr - QUIRE_CARD_CTL;
		uint64_t c;
		switch (r) {
		case QUIRE_CTL_QUEUE_EPOCH:
			v = e->epoch;
			break;
		case QUIRE_CTL_CYCLES_LO:
			c = cycles_now(e);
			e->cycles_hi_latch = (uint32_t)(c >> 32);
			v = (uint32_t)c;
			break;
		case QUIRE_CTL_CYCLES_HI:
			v = e->cycles_hi_latch;
			break;
		case QUIRE_CTL_HOST_WIN_BASE_LO:
			v = (uint32_t)e->host_iova;
			break;
		case QUIRE_CTL_HOST_WIN_BASE_HI:
			v = (uint32_t)(e->host_iova >> 32);
			break;
		case QUIRE_CTL_HOST_WIN_SIZE_LO:
			v = (uint32_t)e->host_size;
			break;
		case QUIRE_CTL_HOST_WIN_SIZE_HI:
			v = (uint32_t)(e->host_size >> 32);
			break;
		case QUIRE_CTL_WAKE_AT_LO:
			v = (uint32_t)e->wake_at;
			break;
		case QUIRE_CTL_WAKE_AT_HI:
			v = (uint32_t)(e->wake_at >> 32);
			break;
		default:
			v = 0;
		}
	} else if (addr >= QUIRE_CARD_NET && addr < QUIRE_CARD_NET + 0x100) {
		v = e->net ? quire_netport_read(e->net, addr - QUIRE_CARD_NET) : 0;
	} else if (addr >= QUIRE_CARD_DMA &&
		   addr < QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(QUIRE_DMA_CHANNELS)) {
		uint32_t r = addr - QUIRE_CARD_DMA;
		v = e->dma[r / QUIRE_DMA_CHANNEL_BYTES][r % QUIRE_DMA_CHANNEL_BYTES / 4];
	} else if (addr >= QUIRE_CARD_QUEUE && addr < QUIRE_CARD_QUEUE + QUIRE_QE_BYTES) {
		v = quire_emu_qe_read(e, addr - QUIRE_CARD_QUEUE);
	} else if (addr >= QUIRE_CARD_ENGINE(1) && addr < QUIRE_CARD_ENGINE(N_ENGINES + 1)) {
		struct engine *g = &e->eng[(addr - QUIRE_CARD_ENGINE(1)) / 0x1000];
		uint32_t r = (addr - QUIRE_CARD_ENGINE(1)) % 0x1000;
		if (r == QUIRE_ENGINE_CTRL)
			v = g->ctrl;
		else if (r == QUIRE_ENGINE_RETURN)
			v = g->ret;
		else if (r >= QUIRE_ENGINE_ARG(0) && r < QUIRE_ENGINE_ARG(QUIRE_ENGINE_MAX_ARGS))
			v = (uint32_t)(g->args[(r - QUIRE_ENGINE_ARG(0)) / 8] >>
				       ((r & 4) ? 32 : 0));
	}
	pthread_mutex_unlock(&e->lock);
	return v;
}

static void hal_write(void *ctx, uint32_t addr, uint32_t v)
{
	struct emu *e = ctx;
	uint32_t raise = 0;
	uint32_t dma_reg = (addr - QUIRE_CARD_DMA) % QUIRE_DMA_CHANNEL_BYTES;
	int dma_start = addr >= QUIRE_CARD_DMA &&
			addr < QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(QUIRE_DMA_CHANNELS) &&
			dma_reg == QUIRE_DMA_CTRL && (v & QUIRE_DMA_START);
	if (e->before_dma && (dma_start || addr == QUIRE_CARD_QUEUE + QUIRE_QE_CPL_POST))
		e->before_dma(e->before_dma_arg, ++e->dma_count);
	pthread_mutex_lock(&e->lock);
	if (addr >= QUIRE_CARD_MEM) {
		uint32_t *p = card_ptr(e, addr - QUIRE_CARD_MEM, 4, 4);
		if (p)
			*p = v;
	} else if (addr >= QUIRE_CARD_BAR && addr < QUIRE_CARD_BAR + QUIRE_BAR0_BYTES) {
		e->bar[(addr - QUIRE_CARD_BAR) / 4] = v;
	} else if (addr == QUIRE_CARD_CTL + QUIRE_CTL_WAKE_AT_LO) {
		e->wake_at = (e->wake_at & ~(uint64_t)0xffffffffu) | v;
	} else if (addr == QUIRE_CARD_CTL + QUIRE_CTL_WAKE_AT_HI) {
		e->wake_at = (e->wake_at & 0xffffffffu) | (uint64_t)v << 32;
	} else if (addr >= QUIRE_CARD_NET && addr < QUIRE_CARD_NET + 0x100) {
		if (e->net)
			quire_netport_write(e->net, addr - QUIRE_CARD_NET, v);
	} else if (addr == QUIRE_CARD_CTL + QUIRE_CTL_IRQ_RAISE) {
		*reg(e, RB_IRQ, QUIRE_IRQ_STATUS) |= v;
		*reg(e, RB_IRQ, QUIRE_IRQ_COUNT) += 1;
		raise = v & *reg(e, RB_IRQ, QUIRE_IRQ_MASK);
	} else if (addr >= QUIRE_CARD_DMA &&
		   addr < QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(QUIRE_DMA_CHANNELS)) {
		uint32_t ch = (addr - QUIRE_CARD_DMA) / QUIRE_DMA_CHANNEL_BYTES;
		if (dma_start)
			dma_run(e, ch);
		else if (dma_reg < QUIRE_DMA_CTRL || dma_reg == QUIRE_DMA_EPOCH ||
			 dma_reg == QUIRE_DMA_EXP || dma_reg == QUIRE_DMA_DECODE)
			e->dma[ch][dma_reg / 4] = v; /* the others read only */
	} else if (addr >= QUIRE_CARD_QUEUE && addr < QUIRE_CARD_QUEUE + QUIRE_QE_BYTES) {
		quire_emu_qe_write(e, addr - QUIRE_CARD_QUEUE, v);
	} else if (addr >= QUIRE_CARD_ENGINE(1) && addr < QUIRE_CARD_ENGINE(N_ENGINES + 1)) {
		uint32_t idx = (addr - QUIRE_CARD_ENGINE(1)) / 0x1000;
		uint32_t r = (addr - QUIRE_CARD_ENGINE(1)) % 0x1000;
		struct engine *g = &e->eng[idx];
		if (r == QUIRE_ENGINE_CTRL && (v & QUIRE_ENGINE_START)) {
			g->ctrl = 0;
			engine_start(e, idx);
		} else if (r >= QUIRE_ENGINE_ARG(0) &&
			   r < QUIRE_ENGINE_ARG(QUIRE_ENGINE_MAX_ARGS)) {
			uint64_t *arg = &g->args[(r - QUIRE_ENGINE_ARG(0)) / 8];
			*arg = (r & 4) ? (*arg & 0xffffffffu) | (uint64_t)v << 32
				       : (*arg & ~(uint64_t)0xffffffffu) | v;
		}
	}
	quire_irq_fn fn = e->irq_fn;
	void *fctx = e->irq_ctx;
	pthread_mutex_unlock(&e->lock);
	if (raise && fn)
		fn(fctx, raise);
}

/* The monotonic time at which the cycle counter reaches `cycles`. */
static struct timespec time_of(struct emu *e, uint64_t cycles)
{
	uint64_t ns = (uint64_t)((double)cycles * 1e9 / e->clock_hz);
	int64_t at = e->t0_ns + (int64_t)ns;
	return (struct timespec){.tv_sec = (time_t)(at / 1000000000),
				 .tv_nsec = (long)(at % 1000000000)};
}

static int hal_wait(void *ctx)
{
	struct emu *e = ctx;
	/* wake_at is the firmware's own register: this thread alone writes it. */
	struct timespec until = time_of(e, e->wake_at);
	pthread_mutex_lock(&e->ev_lock);
	while (!e->event_pending && !e->stop) {
		if (!e->wake_at) {
			pthread_cond_wait(&e->event, &e->ev_lock);
			continue;
		}
		if (pthread_cond_timedwait(&e->event, &e->ev_lock, &until) == ETIMEDOUT)
			break; /* the timer: the firmware looks at the clock itself */
	}
	e->event_pending = 0;
	int stop = e->stop;
	pthread_mutex_unlock(&e->ev_lock);
	return stop;
}

static const struct quire_fw_hal emu_hal = {hal_read, hal_write, hal_wait};

uint32_t quire_emu_card_read(struct quire_device *dev, uint32_t addr)
{
	return hal_read(emu_of(dev), addr);
}

void quire_emu_card_write(struct quire_device *dev, uint32_t addr, uint32_t value)
{
	hal_write(emu_of(dev), addr, value);
}

/* The port received a frame. */
static void net_wake(void *ctx)
{
	notify(ctx);
}

static void *fw_thread(void *arg)
{
	struct emu *e = arg;
	quire_fw_run(&e->fw);
	return NULL;
}

/* Everything quire_emu_create made, once no thread uses it any more. */
static void emu_free(struct emu *e)
{
	quire_netport_close(e->net);
	pthread_cond_destroy(&e->event);
	pthread_mutex_destroy(&e->ev_lock);
	pthread_mutex_destroy(&e->lock);
	free(e->mem);
	free(e->mlp);
	free(e);
}

static void emu_destroy(struct quire_device *dev)
{
	struct emu *e = emu_of(dev);
	pthread_mutex_lock(&e->ev_lock);
	e->stop = 1;
	pthread_cond_signal(&e->event);
	pthread_mutex_unlock(&e->ev_lock);
	pthread_join(e->fw_thread, NULL);
	emu_free(e);
}

static const struct quire_device_ops emu_ops = {
    .mmio_read = emu_mmio_read,
    .mmio_write = emu_mmio_write,
    .attach_host = emu_attach_host,
    .detach_host = emu_detach_host,
    .set_irq = emu_set_irq,
    .destroy = emu_destroy,
};

struct quire_device *quire_emu_create(const struct quire_emu_config *cfg)
{
	if (quire_emu_engines_golden() < 0)
		return NULL; /* a bad QUIRE_EMU_ENGINES, said on stderr */
	struct emu *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->dev.ops = &emu_ops;
	e->mem_bytes = cfg && cfg->mem_bytes ? cfg->mem_bytes : QUIRE_BOARD_SIM_MEM_BYTES;
	e->clock_hz = cfg && cfg->clock_hz ? cfg->clock_hz : QUIRE_BOARD_SIM_CLOCK_HZ;
	if (cfg) {
		e->before_dma = cfg->before_dma;
		e->before_dma_arg = cfg->before_dma_arg;
	}
	e->mem = calloc(1, e->mem_bytes);
	e->mlp = calloc(1, sizeof(*e->mlp));
	if (!e->mem || !e->mlp) {
		free(e->mem);
		free(e->mlp);
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	e->t0_ns = quire_sim_mono_ns();
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->ev_lock, NULL);
	pthread_condattr_t ca; /* the firmware's timer counts on the monotonic clock */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->event, &ca);
	pthread_condattr_destroy(&ca);
	if (cfg && cfg->net) {
		int st = quire_netport_open(cfg->net, e->mem, e->mem_bytes, net_wake, e, &e->net);
		if (st != QUIRE_OK) {
			emu_free(e);
			errno = st == QUIRE_ERR_NOMEM       ? ENOMEM
				: st == QUIRE_ERR_NO_DEVICE ? ENOENT
				: st == QUIRE_ERR_TIMEOUT   ? ETIMEDOUT /* a UDP rendezvous */
				: st == QUIRE_ERR_INVALID   ? EINVAL
							    : EIO;
			return NULL;
		}
	}
	bar_init(e);
	if (cfg) /* a card without those engines: its firmware refuses their commands */
		*reg(e, RB_ID, QUIRE_ID_CAPS) &= ~cfg->caps_off;
	e->fw.hal = &emu_hal;
	e->fw.hal_ctx = e;
	if (pthread_create(&e->fw_thread, NULL, fw_thread, e) != 0) {
		emu_free(e);
		errno = EAGAIN;
		return NULL;
	}
	return &e->dev;
}
