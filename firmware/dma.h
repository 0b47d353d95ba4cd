/* SPDX-License-Identifier: MIT */
/*
 * The DMA mover's driver (dma.c, docs/registers/dma.md). Its register accesses that the
 * pipelined commands make in their loop are inline here: a posted transfer is five
 * register writes and a count, and a call would cost about as much again.
 */
#ifndef QUIRE_FW_DMA_H
#define QUIRE_FW_DMA_H

#include <stdint.h>

#include "fw.h"
#include "hal.h"

/* Move len bytes between host address `host` and card memory `card` (channel 0, waited
 * for). The parts, for a channel `ch` of QUIRE_DMA_CHANNELS: load a transfer's registers,
 * post it, and wait until the channel's queue is empty (the last transfer's status; len
 * as loaded, for the counters). */
int fw_dma(struct quire_fw *fw, uint64_t host, uint32_t card, uint32_t len, uint32_t dir);
void fw_dma_load(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card, uint32_t len,
		 uint32_t dir);
/* A transfer to the card of fp32 (host and card on a line) with the exponent of each block
 * of it written at card offset exp on the way (QUIRE_DMA_TO_CARD_EXPS), loaded. */
void fw_dma_load_exps(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card, uint32_t len,
		      uint32_t exp);
/* A transfer to the host of len bytes of fp32 decoded on the way (QUIRE_DMA_TO_HOST_DECODE,
 * channel QUIRE_DMA_DECODE_CHANNEL): from the values at card, the exponents at exp, as
 * decode (QUIRE_DMA_DECODE_WORD) says; loaded. */
void fw_dma_load_decode(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card,
			uint32_t len, uint32_t exp, uint32_t decode);
void fw_dma_go(struct quire_fw *fw, uint32_t ch);
int fw_dma_finish(struct quire_fw *fw, uint32_t ch, uint32_t len);
/* fw->dma_posted from the channels' counts, at the firmware's start. */
void fw_dma_init(struct quire_fw *fw);

/* A channel's register (QUIRE_DMA_DONE_COUNT and the other counts). */
static inline uint32_t fw_dma_reg(struct quire_fw *fw, uint32_t ch, uint32_t reg)
{
	return hal_read32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + reg);
}

/* Has a channel's count (DONE_COUNT, mod 2^32) reached `mark`, a value fw->dma_posted had? */
static inline int fw_dma_reached(uint32_t done, uint32_t mark)
{
	return (int32_t)(done - mark) >= 0;
}

/* A transfer's addresses into channel ch's registers. */
static inline void fw_dma_where(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card)
{
	uint32_t base = QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch);
	hal_write32(fw, base + QUIRE_DMA_HOST_LO, (uint32_t)host);
	hal_write32(fw, base + QUIRE_DMA_HOST_HI, (uint32_t)(host >> 32));
	hal_write32(fw, base + QUIRE_DMA_CARD, card);
}

/* Post what channel ch's registers hold to its queue. */
static inline void fw_dma_start(struct quire_fw *fw, uint32_t ch)
{
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + QUIRE_DMA_CTRL, QUIRE_DMA_START);
	fw->dma_posted[ch]++;
}

/* Post a transfer to channel ch's queue with the direction and epoch its registers hold
 * (a pipeline writes those once for all its transfers). */
static inline void fw_dma_post(struct quire_fw *fw, uint32_t ch, uint64_t host, uint32_t card,
			       uint32_t len)
{
	fw_dma_where(fw, ch, host, card);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + QUIRE_DMA_LEN, len);
	fw_dma_start(fw, ch);
}

#endif /* QUIRE_FW_DMA_H */
