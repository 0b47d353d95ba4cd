// SPDX-License-Identifier: MIT
/*
 * All-gather and broadcast over the card network: bytes round the ring, no
 * arithmetic. Each chunk goes host -> card memory -> frame, and frame -> card
 * memory -> host, and is passed on as soon as it arrived. The all-gather runs in rounds of
 * FW_RING_WINDOW frames of every member's bytes (layout.h), so that a member's frames sent
 * run at most a round ahead of its frames received.
 */
#include "dma.h"
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/frame.h"
#include "quire/status.h"

#define TXP   (FW_COLL_TX + QUIRE_FRAME_HDR_BYTES)
#define CHUNK QUIRE_FRAME_MAX_PAYLOAD

static int gather(struct quire_fw *fw, struct quire_fw_comm *c, const struct quire_cmd *d)
{
	uint32_t w = c->size, r = c->rank, b = quire_le32_to_cpu(d->count);
	int st = QUIRE_OK;
	/* Round by round, FW_RING_WINDOW frames of every member's bytes a round (layout.h). */
	for (uint32_t at = 0;; at += FW_RING_WINDOW * CHUNK) {
		uint32_t part = min_u32(b - at, FW_RING_WINDOW * CHUNK);
		FW_FOR_CHUNKS(at, part, CHUNK, off, len) /* this member's: its own slot, and on */
		{
			st = fw_dma(fw, quire_le64_to_cpu(d->src) + off, TXP, len,
				    QUIRE_DMA_TO_CARD);
			if (!st)
				st = fw_dma(fw, quire_le64_to_cpu(d->dst) + (uint64_t)r * b + off,
					    TXP, len, QUIRE_DMA_TO_HOST);
			if (!st && w > 1)
				st = fw_net_send(fw, c, QUIRE_FRAME_STEP(QUIRE_PHASE_GATHER, 0), 0,
						 off, len, TXP);
			if (st)
				return st;
		}
		for (uint32_t s = 0; s + 1 < w; s++) { /* step s brings member r-1-s's bytes */
			uint64_t slot =
			    quire_le64_to_cpu(d->dst) + (uint64_t)((r + w - 1 - s) % w) * b;
			FW_FOR_CHUNKS(at, part, CHUNK, off, len)
			{
				uint32_t fl, rx; /* passed on from its receive buffer */
				st = fw_net_recv(fw, c, QUIRE_FRAME_STEP(QUIRE_PHASE_GATHER, s),
						 off, len, &rx, &fl);
				if (!st)
					st = fw_dma(fw, slot + off, rx, len, QUIRE_DMA_TO_HOST);
				if (!st && s + 2 < w)
					st = fw_net_send(
					    fw, c, QUIRE_FRAME_STEP(QUIRE_PHASE_GATHER, s + 1), 0,
					    off, len, rx);
				if (st)
					return st;
			}
		}
		if (b - at <= FW_RING_WINDOW * CHUNK)
			return QUIRE_OK;
	}
}

static int bcast(struct quire_fw *fw, struct quire_fw_comm *c, const struct quire_cmd *d)
{
	uint32_t w = c->size, hop = (c->rank + w - (uint32_t)quire_le64_to_cpu(d->stride)) % w,
		 b = quire_le32_to_cpu(d->count);
	int st = QUIRE_OK;
	FW_FOR_CHUNKS(0, b, CHUNK, off,
		      len) /* hop h receives at step h-1 and passes on at step h */
	{
		uint32_t fl, at = TXP; /* the root's bytes, or a received frame's, passed on */
		if (hop == 0)
			st =
			    fw_dma(fw, quire_le64_to_cpu(d->dst) + off, at, len, QUIRE_DMA_TO_CARD);
		else
			st = fw_net_recv(fw, c, QUIRE_FRAME_STEP(QUIRE_PHASE_BCAST, hop - 1), off,
					 len, &at, &fl);
		if (!st && hop > 0)
			st =
			    fw_dma(fw, quire_le64_to_cpu(d->dst) + off, at, len, QUIRE_DMA_TO_HOST);
		if (!st && hop + 1 < w)
			st = fw_net_send(fw, c, QUIRE_FRAME_STEP(QUIRE_PHASE_BCAST, hop), 0, off,
					 len, at);
		if (st)
			return st;
	}
	return QUIRE_OK;
}

int fw_allgather(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	int st;
	struct quire_fw_comm *c = fw_comm_get(fw, quire_le16_to_cpu(d->workers), &st, detail);
	if (!c)
		return st;
	if (quire_le64_to_cpu(d->stride) != (uint64_t)quire_le32_to_cpu(d->count) * c->size) {
		*detail = QUIRE_DETAIL_STRIDE; /* dst must hold every member's bytes */
		return fw_comm_end(fw, c, QUIRE_ERR_SIZE, detail);
	}
	return fw_comm_end(fw, c, gather(fw, c, d), detail);
}

int fw_broadcast(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	int st;
	struct quire_fw_comm *c = fw_comm_get(fw, quire_le16_to_cpu(d->workers), &st, detail);
	if (!c)
		return st;
	if (quire_le64_to_cpu(d->stride) >= c->size) {
		*detail = QUIRE_DETAIL_STRIDE; /* no such root */
		return fw_comm_end(fw, c, QUIRE_ERR_RANGE, detail);
	}
	return fw_comm_end(fw, c, bcast(fw, c, d), detail);
}
