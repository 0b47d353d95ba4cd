// SPDX-License-Identifier: MIT
/*
 * DMA mover driver. The mover checks host addresses against the window it may reach,
 * and each transfer carries the queue epoch of its command: once the host has gone or
 * reset its queues, what is left of its command is refused (QUIRE_ERR_PEER).
 *
 * The mover has QUIRE_DMA_CHANNELS channels that run at once, each with a queue of posted
 * transfers (a START takes the registers as they are), which it counts as they finish:
 * fw->dma_posted[ch] is the count a channel's DONE_COUNT reaches once all that was posted
 * is over, so the pipelined commands (pipe.c) post ahead and only count.
 */
#include "dma.h"
#include "hal.h"
#include "internal.h"
#include "quire/status.h"

/* Inlined into fw_dma too: a NOP's and an MLP decision's transfers pay no calls. */
static inline __attribute__((always_inline)) void
dma_load(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card, uint32_t len, uint32_t dir)
{
	uint32_t base = QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch);
	fw_dma_where(fw, ch, host, card);
	hal_write32(fw, base + QUIRE_DMA_LEN, len);
	hal_write32(fw, base + QUIRE_DMA_DIR, dir);
	hal_write32(fw, base + QUIRE_DMA_EPOCH, fw->epoch);
}

static inline __attribute__((always_inline)) int dma_done(struct quire_fw *fw, uint32_t ch)
{
	return (hal_read32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + QUIRE_DMA_CTRL) &
		QUIRE_DMA_DONE) != 0;
}

static inline __attribute__((always_inline)) int dma_status(struct quire_fw *fw, uint32_t ch)
{
	return (int)hal_read32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + QUIRE_DMA_STATUS);
}

static inline __attribute__((always_inline)) void dma_count(struct quire_fw *fw, uint32_t len,
							    int status)
{
	if (status == QUIRE_OK)
		fw->dma_bytes += len;
	/* A data transfer beats; a descriptor's or a completion's belongs to its command,
	 * which beat when it was fetched (the NOP's path stays short). */
	if (len > QUIRE_CMD_BYTES)
		fw_heartbeat(fw);
}

void fw_dma_load(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card, uint32_t len,
		 uint32_t dir)
{
	dma_load(fw, ch, host, card, len, dir);
}

void fw_dma_load_exps(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card, uint32_t len,
		      uint32_t exp)
{
	dma_load(fw, ch, host, card, len, QUIRE_DMA_TO_CARD_EXPS);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + QUIRE_DMA_EXP, exp);
}

void fw_dma_load_decode(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card,
			uint32_t len, uint32_t exp, uint32_t decode)
{
	dma_load(fw, ch, host, card, len, QUIRE_DMA_TO_HOST_DECODE);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + QUIRE_DMA_EXP, exp);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + QUIRE_DMA_DECODE, decode);
}

void fw_dma_go(struct quire_fw *fw, uint32_t ch)
{
	fw_dma_start(fw, ch);
}

void fw_dma_init(struct quire_fw *fw)
{
	for (uint32_t ch = 0; ch < QUIRE_DMA_CHANNELS; ch++)
		fw->dma_posted[ch] =
		    fw_dma_reg(fw, ch, QUIRE_DMA_DONE_COUNT) + fw_dma_reg(fw, ch, QUIRE_DMA_QUEUED);
}

int fw_dma_finish(struct quire_fw *fw, uint32_t ch, uint32_t len)
{
	while (!dma_done(fw, ch))
		;
	int status = dma_status(fw, ch);
	dma_count(fw, len, status);
	return status;
}

int fw_dma(struct quire_fw *fw, uint64_t host, uint32_t card, uint32_t len, uint32_t dir)
{
	if (len == 0)
		return QUIRE_OK;
	dma_load(fw, 0, host, card, len, dir);
	fw_dma_start(fw, 0);
	return fw_dma_finish(fw, 0, len);
}
