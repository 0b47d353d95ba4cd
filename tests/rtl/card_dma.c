// SPDX-License-Identifier: MIT
/*
 * A bare-metal program for the RTL card (linked like the firmware: firmware/crt0.S and
 * firmware/link.ld) that drives the DMA mover directly, past the firmware's own window
 * checks: the order and the edges of the mover's checks (sim/emu/emu.c dma_run: epoch,
 * then host window and card memory bounds, then direction) and unaligned moves both ways.
 * The harness fills host memory with byte i = (i * 7 + 3) & 0xff before the run. Ends
 * through sim-exit with 0, or the number of the first failed check.
 * Last, the firmware's trap handler (crt0.S), which this program shares: an access to an
 * address nothing answers (the window of an engine kind no card has) is skipped and
 * counted, and a faulting load reads all ones.
 */
#include <stdint.h>

#include "quire/card.h"
#include "quire/regs.h"
#include "quire/status.h"
#include "tests/rtl/card_bare.h"

#include "card_bare.h"

int main(void);
extern volatile uint32_t fw_access_faults; /* crt0.S */

static uint32_t dma(uint64_t host, uint32_t card, uint32_t len, uint32_t dir, uint32_t epoch)
{
	wr(QUIRE_CARD_DMA + QUIRE_DMA_HOST_LO, (uint32_t)host);
	wr(QUIRE_CARD_DMA + QUIRE_DMA_HOST_HI, (uint32_t)(host >> 32));
	wr(QUIRE_CARD_DMA + QUIRE_DMA_CARD, card);
	wr(QUIRE_CARD_DMA + QUIRE_DMA_LEN, len);
	wr(QUIRE_CARD_DMA + QUIRE_DMA_DIR, dir);
	wr(QUIRE_CARD_DMA + QUIRE_DMA_EPOCH, epoch);
	wr(QUIRE_CARD_DMA + QUIRE_DMA_CTRL, QUIRE_DMA_START);
	while (!(rd(QUIRE_CARD_DMA + QUIRE_DMA_CTRL) & QUIRE_DMA_DONE))
		;
	return rd(QUIRE_CARD_DMA + QUIRE_DMA_STATUS);
}

static uint8_t pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + 3);
}

int main(void)
{
	const uint32_t to_card = QUIRE_DMA_TO_CARD, to_host = QUIRE_DMA_TO_HOST;
	uint64_t base = (uint64_t)rd(QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_BASE_HI) << 32 |
			rd(QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_BASE_LO);
	uint64_t size = (uint64_t)rd(QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_SIZE_HI) << 32 |
			rd(QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_SIZE_LO);
	uint32_t epoch = rd(QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	uint32_t mem = rd(QUIRE_CARD_BAR + QUIRE_ID_MEM_LO); /* the ID block is at BAR offset 0 */

	/* The order of the checks: epoch first, then the bounds, then the direction. */
	check(dma(base, 0, 16, to_card, epoch + 1) == QUIRE_ERR_PEER);
	check(dma(base - 1, 0, 1, 7, epoch + 1) == QUIRE_ERR_PEER);
	check(dma(base - 1, 0, 1, 7, epoch) == QUIRE_ERR_RANGE);
	check(dma(base, 0, 1, 7, epoch) == QUIRE_ERR_INVALID);
	/* The host window's edges. */
	check(dma(base + size - 4, 0, 4, to_card, epoch) == QUIRE_OK);
	check(dma(base + size - 3, 0, 4, to_card, epoch) == QUIRE_ERR_RANGE);
	check(dma(base + size, 0, 0, to_card, epoch) == QUIRE_OK);
	check(dma(base + size + 1, 0, 0, to_card, epoch) == QUIRE_ERR_RANGE);
	check(dma(base, 0, 0xffffffffu, to_card, epoch) == QUIRE_ERR_RANGE);
	/* Card memory's edges. */
	check(dma(base, mem - 4, 4, to_card, epoch) == QUIRE_OK);
	check(dma(base, mem - 3, 4, to_card, epoch) == QUIRE_ERR_RANGE);
	check(dma(base, mem + 1, 0, to_card, epoch) == QUIRE_ERR_RANGE);
	/* Unaligned both ways: host +1 -> card 0x103, back to host +0x1002, then to card 0x2000. */
	const uint32_t n = 37;
	check(dma(base + 1, 0x103, n, to_card, epoch) == QUIRE_OK);
	for (uint32_t i = 0; i < n; i++)
		check(card_byte(0x103 + i) == pattern(1 + i));
	check(dma(base + 0x1002, 0x103, n, to_host, epoch) == QUIRE_OK);
	check(dma(base + 0x1002, 0x2000, n, to_card, epoch) == QUIRE_OK);
	for (uint32_t i = 0; i < n; i++)
		check(card_byte(0x2000 + i) == pattern(1 + i));
	/* A refused transfer moves nothing: card 0x3000 keeps what was written there. */
	wr(QUIRE_CARD_MEM + 0x3000, 0x11223344u);
	wr(QUIRE_CARD_MEM + 0x3004, 0x55667788u);
	check(dma(base - 4, 0x3000, 8, to_card, epoch) == QUIRE_ERR_RANGE);
	check(rd(QUIRE_CARD_MEM + 0x3000) == 0x11223344u &&
	      rd(QUIRE_CARD_MEM + 0x3004) == 0x55667788u);
	/* Access faults: skipped, counted, loads all ones; the program goes on. */
	const uint32_t nowhere = QUIRE_CARD_ENGINE(16) + QUIRE_ENGINE_CTRL;
	check(fw_access_faults == 0);
	check(rd(nowhere) == 0xffffffffu);
	check(fw_access_faults == 1);
	wr(nowhere, QUIRE_ENGINE_START);
	check(fw_access_faults == 2);
	check(rd(QUIRE_CARD_MEM + 0x3000) == 0x11223344u);
	finish(0);
	return 0;
}
