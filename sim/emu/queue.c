// SPDX-License-Identifier: MIT
/*
 * The emu card's queue engine (docs/registers/queue-engine.md): the descriptor fetcher,
 * which copies the command at the command ring's CONSUMER from host memory into DESC, and
 * the completion writer, which writes the record the firmware built in CPL to the
 * completion ring, its phase word last. The RTL card fetches while its core wakes; here
 * the fetch happens when the firmware first looks (DESC_STATE), which it cannot tell
 * apart: both show it the descriptor at CONSUMER, fetched with the same checks.
 */
#include <string.h>

#include "quire/regs.h"
#include "sim/emu/emu_state.h"
#include "sim/le.h"

static uint32_t qe_mask(uint32_t log2)
{
	return (uint32_t)((1ull << (log2 & 31)) - 1);
}

/* DESC is the descriptor at the command queue's CONSUMER, in this queue epoch. */
static int qe_held(struct emu *e)
{
	const struct queue_engine *q = &e->qe;
	return q->held && q->held_index == *reg(e, RB_CMDQ, QUIRE_Q_CONSUMER) &&
	       q->held_epoch == e->epoch;
}

/* A descriptor waits at CONSUMER that DESC does not hold: the engine fetches it. */
static int qe_wants_fetch(struct emu *e)
{
	return (e->qe.ctrl & QUIRE_QE_ARM) && !qe_held(e) &&
	       *reg(e, RB_CMDQ, QUIRE_Q_PRODUCER) != *reg(e, RB_CMDQ, QUIRE_Q_CONSUMER);
}

static void qe_fetch(struct emu *e)
{
	struct queue_engine *q = &e->qe;
	uint32_t cons = *reg(e, RB_CMDQ, QUIRE_Q_CONSUMER);
	uint64_t at = q->cmd_base + (uint64_t)(cons & qe_mask(q->cmd_log2)) * QUIRE_CMD_BYTES;
	const uint8_t *h = quire_emu_host_span(e, q->epoch, at, QUIRE_CMD_BYTES, &q->desc_status);
	if (h) /* the descriptor is little-endian, the DESC registers hold values */
		for (uint32_t i = 0; i < QUIRE_CMD_WORDS; i++)
			q->desc[i] = quire_ld32(h + 4 * i);
	else
		memset(q->desc, 0, sizeof(q->desc));
	q->desc_nonzero = 0;
	for (uint32_t i = 0; i < QUIRE_CMD_WORDS; i++)
		q->desc_nonzero |= (uint32_t)(q->desc[i] != 0) << i;
	q->held = 1;
	q->held_index = cons;
	q->held_epoch = e->epoch;
}

/* DESC_STATE. A fetch is a transfer like the mover's: before_dma sees it first. */
uint32_t quire_emu_qe_desc_state(struct emu *e)
{
	pthread_mutex_lock(&e->lock);
	int fetch = qe_wants_fetch(e);
	pthread_mutex_unlock(&e->lock);
	if (fetch && e->before_dma)
		e->before_dma(e->before_dma_arg, ++e->dma_count);
	pthread_mutex_lock(&e->lock);
	if (qe_wants_fetch(e))
		qe_fetch(e);
	uint32_t v = qe_held(e) ? QUIRE_QE_HELD : QUIRE_QE_IDLE;
	pthread_mutex_unlock(&e->lock);
	return v;
}

/* CPL_POST: the record at ring index `index`, its phase word last. */
static void qe_post(struct emu *e, uint32_t index)
{
	struct queue_engine *q = &e->qe;
	uint64_t at = q->cpl_base + (uint64_t)(index & qe_mask(q->cpl_log2)) * QUIRE_CPL_BYTES;
	uint8_t *h = quire_emu_host_span(e, q->epoch, at, QUIRE_CPL_BYTES, &q->cpl_status);
	if (h) {
		/* The record is little-endian; its phase word goes last. */
		for (uint32_t i = 0; i < QUIRE_CPL_W_FLAGS; i++)
			quire_st32(h + 4 * i, q->cpl[i]);
		quire_st32(h + 4 * QUIRE_CPL_W_FLAGS, ((index >> (q->cpl_log2 & 31)) & 1) ^ 1);
	}
	q->cpl_state = QUIRE_QE_DONE;
}

uint32_t quire_emu_qe_read(struct emu *e, uint32_t r)
{
	const struct queue_engine *q = &e->qe;
	if (r >= QUIRE_QE_CPL0 && r < QUIRE_QE_CPL0 + QUIRE_CPL_BYTES)
		return q->cpl[(r - QUIRE_QE_CPL0) / 4];
	if (r >= QUIRE_QE_DESC0 && r < QUIRE_QE_DESC0 + QUIRE_CMD_BYTES)
		return q->desc[(r - QUIRE_QE_DESC0) / 4];
	switch (r) {
	case QUIRE_RB_TYPE:
		return QUIRE_QE_TYPE;
	case QUIRE_RB_VERSION:
		return QUIRE_QE_VERSION;
	case QUIRE_QE_CTRL:
		return q->ctrl;
	case QUIRE_QE_EPOCH:
		return q->epoch;
	case QUIRE_QE_CMD_BASE_LO:
		return (uint32_t)q->cmd_base;
	case QUIRE_QE_CMD_BASE_HI:
		return (uint32_t)(q->cmd_base >> 32);
	case QUIRE_QE_CMD_LOG2:
		return q->cmd_log2;
	case QUIRE_QE_CPL_BASE_LO:
		return (uint32_t)q->cpl_base;
	case QUIRE_QE_CPL_BASE_HI:
		return (uint32_t)(q->cpl_base >> 32);
	case QUIRE_QE_CPL_LOG2:
		return q->cpl_log2;
	case QUIRE_QE_DESC_STATUS:
		return q->desc_status;
	case QUIRE_QE_DESC_NONZERO:
		return q->desc_nonzero;
	case QUIRE_QE_CPL_POST:
		return q->cpl_state;
	case QUIRE_QE_CPL_STATUS:
		return q->cpl_status;
	default:
		return 0; /* NEXT: the last block; nothing else */
	}
}

void quire_emu_qe_write(struct emu *e, uint32_t r, uint32_t v)
{
	struct queue_engine *q = &e->qe;
	if (r >= QUIRE_QE_CPL0 && r < QUIRE_QE_CPL0 + QUIRE_CPL_BYTES) {
		q->cpl[(r - QUIRE_QE_CPL0) / 4] = v;
		return;
	}
	uint64_t *base = r == QUIRE_QE_CMD_BASE_LO || r == QUIRE_QE_CMD_BASE_HI   ? &q->cmd_base
			 : r == QUIRE_QE_CPL_BASE_LO || r == QUIRE_QE_CPL_BASE_HI ? &q->cpl_base
										  : NULL;
	if (base && (r == QUIRE_QE_CMD_BASE_LO || r == QUIRE_QE_CPL_BASE_LO))
		*base = (*base & ~(uint64_t)0xffffffffu) | v;
	else if (base)
		*base = (*base & 0xffffffffu) | (uint64_t)v << 32;
	else if (r == QUIRE_QE_CTRL)
		q->ctrl = v & QUIRE_QE_ARM;
	else if (r == QUIRE_QE_EPOCH)
		q->epoch = v;
	else if (r == QUIRE_QE_CMD_LOG2)
		q->cmd_log2 = v;
	else if (r == QUIRE_QE_CPL_LOG2)
		q->cpl_log2 = v;
	else if (r == QUIRE_QE_CPL_POST)
		qe_post(e, v);
	else
		return;
	if (r != QUIRE_QE_CPL_POST && r != QUIRE_QE_CPL_LOG2 && r != QUIRE_QE_CPL_BASE_LO &&
	    r != QUIRE_QE_CPL_BASE_HI)
		q->held = 0; /* a new setup of the command ring: fetch again under it */
}
