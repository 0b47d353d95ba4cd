// SPDX-License-Identifier: MIT
/*
 * DMA mover driver. The mover checks host addresses against the window it may reach,
 * and each transfer carries the queue epoch of its command: once the host has gone or
 * reset its queues, what is left of its command is refused (QUIRE_ERR_PEER).
 */
#include "hal.h"
#include "internal.h"
#include "quire/status.h"

int fw_dma(struct quire_fw *fw, uint64_t host, uint32_t card, uint32_t len, uint32_t dir)
{
	if (len == 0)
		return QUIRE_OK;
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_HOST_LO, (uint32_t)host);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_HOST_HI, (uint32_t)(host >> 32));
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CARD, card);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_LEN, len);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_DIR, dir);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_EPOCH, fw->epoch);
	hal_write32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CTRL, QUIRE_DMA_START);
	while (!(hal_read32(fw, QUIRE_CARD_DMA + QUIRE_DMA_CTRL) & QUIRE_DMA_DONE))
		;
	int status = (int)hal_read32(fw, QUIRE_CARD_DMA + QUIRE_DMA_STATUS);
	if (status == QUIRE_OK)
		fw->dma_bytes += len;
	/* A data transfer beats; a descriptor's or a completion's belongs to its command,
	 * which beat when it was fetched (the NOP's path stays short). */
	if (len > QUIRE_CMD_BYTES)
		fw_heartbeat(fw);
	return status;
}
