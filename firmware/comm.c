// SPDX-License-Identifier: MIT
/*
 * Communicators: which cards run collectives together, in which ring order,
 * and with what patience. A collective that fails leaves its communicator
 * failed: the members may disagree on where they stopped, so the only way on
 * is to free it and make a new one (as NCCL's abort does).
 */
#include "dma.h"
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/status.h"

uint32_t fw_comm_member_addr(struct quire_fw *fw, uint32_t table, uint32_t r)
{
	uint32_t word = hal_mem_read32(fw, table + (r & ~1u) * 2);
	return (r & 1) ? word >> 16 : word & 0xffffu;
}

struct quire_fw_comm *fw_comm_find(struct quire_fw *fw, uint32_t id)
{
	for (uint32_t i = 0; i < QUIRE_FW_MAX_COMMS; i++)
		if (id && fw->comm[i].id == id)
			return &fw->comm[i];
	return 0;
}

int fw_comm_init(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	*detail = QUIRE_DETAIL_SRC;
	int st = fw_dma(fw, quire_le64_to_cpu(d->src), FW_COMM_DESC, quire_le32_to_cpu(d->count),
			QUIRE_DMA_TO_CARD);
	if (st != QUIRE_OK)
		return st;
	uint32_t w0 = hal_mem_read32(fw, FW_COMM_DESC), w1 = hal_mem_read32(fw, FW_COMM_DESC + 4);
	uint32_t id = w0 & 0xffff, rank = w0 >> 16, size = w1 & 0xffff;
	uint32_t timeout = hal_mem_read32(fw, FW_COMM_DESC + 8), reserved = w1 >> 16;
	for (uint32_t i = 12; i < 32; i += 4)
		reserved |= hal_mem_read32(fw, FW_COMM_DESC + i);
	if (id == 0 || reserved || size == 0 || size > QUIRE_CMD_MAX_WORKERS || rank >= size ||
	    quire_le32_to_cpu(d->count) != QUIRE_COMM_DESC_BYTES(size) ||
	    timeout > QUIRE_COMM_TIMEOUT_MAX_MS)
		return QUIRE_ERR_INVALID;
	if (size > 1 && !fw->net_up) {
		*detail = QUIRE_DETAIL_NET;
		return QUIRE_ERR_NOT_SUPPORTED; /* no network port to reach the others */
	}
	if (size > 1 && fw_comm_member_addr(fw, FW_COMM_DESC + 32, rank) != fw->net_addr)
		return QUIRE_ERR_INVALID; /* the table must name this card at its rank */
	*detail = QUIRE_DETAIL_COMM;
	if (fw_comm_find(fw, id))
		return QUIRE_ERR_BUSY;
	struct quire_fw_comm *c = 0;
	for (uint32_t i = 0; i < QUIRE_FW_MAX_COMMS && !c; i++)
		if (fw->comm[i].id == 0)
			c = &fw->comm[i];
	if (!c)
		return QUIRE_ERR_NOMEM;
	uint32_t slot = (uint32_t)(c - fw->comm);
	c->addrs = FW_COMM_ADDRS + slot * FW_COMM_ADDRS_STEP;
	for (uint32_t i = 0; i < (size + 1) / 2; i++)
		hal_mem_write32(fw, c->addrs + 4 * i,
				hal_mem_read32(fw, FW_COMM_DESC + 32 + 4 * i));
	c->rank = (uint16_t)rank;
	c->size = (uint16_t)size;
	c->prev = (uint16_t)fw_comm_member_addr(fw, c->addrs, (rank + size - 1) % size);
	c->next = (uint16_t)fw_comm_member_addr(fw, c->addrs, (rank + 1) % size);
	c->timeout_ms = timeout ? timeout : QUIRE_COMM_TIMEOUT_DEFAULT_MS;
	/* Frames of an earlier communicator with this id are not this one's. (The members'
	 * hosts make sure no member sends before all have joined.) */
	if (fw->net_up)
		fw_net_drain(fw, id);
	c->coll_seq = c->tx_seq = c->rx_seq = 0;
	c->failed = 0;
	c->id = (uint16_t)id;
	fw_keepalive_start(fw, c);
	*detail = QUIRE_DETAIL_NONE;
	return QUIRE_OK;
}

void fw_comm_reset(struct quire_fw *fw)
{
	for (uint32_t i = 0; i < QUIRE_FW_MAX_COMMS; i++) {
		if (fw->comm[i].id && fw->net_up)
			fw_net_drain(fw, fw->comm[i].id);
		fw->comm[i].id = 0;
	}
}

int fw_comm_free(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	struct quire_fw_comm *c = fw_comm_find(fw, quire_le16_to_cpu(d->workers));
	if (!c) {
		*detail = QUIRE_DETAIL_COMM;
		return QUIRE_ERR_INVALID;
	}
	if (fw->net_up)
		fw_net_drain(fw, c->id); /* what it will never read */
	c->id = 0;
	return QUIRE_OK;
}

struct quire_fw_comm *fw_comm_get(struct quire_fw *fw, uint32_t id, int *status, uint32_t *detail)
{
	struct quire_fw_comm *c = fw_comm_find(fw, id);
	*detail = QUIRE_DETAIL_COMM;
	if (!c) {
		*status = QUIRE_ERR_INVALID;
		return 0;
	}
	if (c->failed) {
		*status = QUIRE_ERR_PEER;
		return 0;
	}
	*detail = QUIRE_DETAIL_NONE;
	*status = QUIRE_OK;
	c->coll_seq++;
	return c;
}

int fw_comm_end(struct quire_fw *fw, struct quire_fw_comm *c, int status, uint32_t *detail)
{
	int sent = fw_net_settle(fw); /* the last frame queued, answered */
	if (status == QUIRE_OK || status == QUIRE_ERR_OVERFLOW)
		status = sent == QUIRE_OK ? status : sent;
	if (status == QUIRE_OK || status == QUIRE_ERR_OVERFLOW)
		return status; /* an overflow is reported on every member alike: the ring is fine */
	c->failed = 1;
	if (!*detail)
		*detail = QUIRE_DETAIL_NET;
	/* The others learn what the network did, or that the members' options differ; a
	 * local failure (this card's host went away, say) is to them a peer lost. */
	if (!fw->stopping)
		fw_net_abort(fw, c,
			     status == QUIRE_ERR_TIMEOUT || status == QUIRE_ERR_LINK ||
				     status == QUIRE_ERR_MISMATCH
				 ? status
				 : QUIRE_ERR_PEER);
	return status;
}
