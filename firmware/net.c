// SPDX-License-Identifier: MIT
/*
 * The network port driver: frames of a communicator to the next ring member
 * and from the previous one, each checked against what the ring schedule says
 * must come next. A lost frame shows as a gap in link_seq, a corrupted one as
 * the port's CRC flag: both end the collective with QUIRE_ERR_LINK, and a
 * silent peer with QUIRE_ERR_TIMEOUT. Nothing of a bad frame is ever summed.
 */
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/frame.h"
#include "quire/status.h"

#define TX_RETRY_CYCLES 5000u /* 20 us at 250 MHz: how soon a busy peer is tried again */

static uint32_t net(struct quire_fw *fw, uint32_t reg)
{
	return hal_read32(fw, QUIRE_CARD_NET + reg);
}

static void net_set(struct quire_fw *fw, uint32_t reg, uint32_t v)
{
	hal_write32(fw, QUIRE_CARD_NET + reg, v);
}

static uint64_t deadline_of(struct quire_fw *fw, const struct quire_fw_comm *c)
{
	return hal_cycles(fw) + (uint64_t)c->timeout_ms * fw->cycles_per_ms;
}

/* The header fields after its first three words. */
static void frame_fields(struct quire_fw *fw, uint32_t at, uint32_t coll_seq, uint32_t offset,
			 uint32_t len, uint32_t link_seq)
{
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_COLL_SEQ, coll_seq);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_OFFSET, offset);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_LEN, len);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_LINK_SEQ, link_seq);
}

/* Send the frame at `at`, whose other fields frame_fields wrote. */
static int transmit(struct quire_fw *fw, uint32_t at, uint32_t w0, uint32_t dst, uint32_t w2,
		    uint32_t len, uint64_t deadline)
{
	hal_mem_write32(fw, at, w0);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_ADDRS, fw->net_addr | dst << 16);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_COMM, w2);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_CRC, 0); /* the port's */
	for (;;) {
		/* Set each time: a keepalive may have been sent while this one waited. */
		net_set(fw, QUIRE_NET_TX_CARD, at);
		net_set(fw, QUIRE_NET_TX_LEN, QUIRE_FRAME_HDR_BYTES + len);
		net_set(fw, QUIRE_NET_TX_CTRL, QUIRE_NET_GO);
		int st = (int)net(fw, QUIRE_NET_TX_STATUS);
		if (st != QUIRE_ERR_BUSY)
			return st;
		/* Flow control: the peer's buffer is full. Wait for it to drain, not forever. */
		uint64_t now = hal_cycles(fw);
		if (now >= deadline)
			return QUIRE_ERR_TIMEOUT;
		uint64_t retry = now + TX_RETRY_CYCLES;
		if (fw_wait_until(fw, retry < deadline ? retry : deadline))
			return QUIRE_ERR_PEER;
	}
}

int fw_net_send(struct quire_fw *fw, struct quire_fw_comm *c, uint32_t step, uint32_t flags,
		uint32_t offset, uint32_t len)
{
	uint32_t at = FW_COLL_TX;
	frame_fields(fw, at, c->coll_seq, offset, len, c->tx_seq + 1);
	int st = transmit(fw, at, QUIRE_FRAME_VERSION | QUIRE_FRAME_DATA << 8 | flags << 16,
			  c->next, c->id | step << 16, len, deadline_of(fw, c));
	if (st == QUIRE_OK)
		c->tx_seq++;
	return st;
}

void fw_net_abort(struct quire_fw *fw, struct quire_fw_comm *c, int status)
{
	uint32_t at = FW_ABORT_FRAME;
	frame_fields(fw, at, c->coll_seq, 0, 0, 0); /* not in any link's sequence */
	/* Best effort, a short while per member: they time out anyway if this is lost. */
	for (uint32_t r = 0; r < c->size; r++) {
		if (r == c->rank)
			continue;
		uint32_t dst = fw_comm_member_addr(fw, c->addrs, r);
		(void)transmit(
		    fw, at, QUIRE_FRAME_VERSION | QUIRE_FRAME_ABORT << 8 | (uint32_t)status << 16,
		    dst, c->id, 0, hal_cycles(fw) + 10u * fw->cycles_per_ms);
	}
}

void fw_net_keepalive(struct quire_fw *fw, struct quire_fw_comm *c)
{
	uint32_t at = FW_KEEPALIVE_FRAME;
	/* link_seq: the DATA frames sent so far, so a receiver still missing one knows it was
	 * lost rather than late (frames from one sender arrive in order). */
	frame_fields(fw, at, c->coll_seq, 0, 0, c->tx_seq);
	/* A peer too full to take it has frames of ours to read anyway. */
	(void)transmit(fw, at, QUIRE_FRAME_VERSION | QUIRE_FRAME_KEEPALIVE << 8, c->next, c->id, 0,
		       hal_cycles(fw) + fw->cycles_per_ms);
}

static void drop(struct quire_fw *fw)
{
	net_set(fw, QUIRE_NET_RX_CTRL, QUIRE_NET_RX_DROP);
}

static uint32_t head_type(struct quire_fw *fw)
{
	return net(fw, QUIRE_NET_RX_HDR(0)) >> 8 & 0xff;
}

void fw_net_drop_keepalives(struct quire_fw *fw, uint32_t id)
{
	net_set(fw, QUIRE_NET_RX_COMM, id);
	while (net(fw, QUIRE_NET_RX_PENDING) && !net(fw, QUIRE_NET_RX_FLAGS) &&
	       head_type(fw) == QUIRE_FRAME_KEEPALIVE)
		drop(fw);
	net_set(fw, QUIRE_NET_RX_COMM, 0);
}

void fw_net_drain(struct quire_fw *fw, uint32_t id)
{
	net_set(fw, QUIRE_NET_RX_COMM, id);
	while (net(fw, QUIRE_NET_RX_PENDING))
		drop(fw);
	net_set(fw, QUIRE_NET_RX_COMM, 0);
}

int fw_net_recv(struct quire_fw *fw, struct quire_fw_comm *c, uint32_t step, uint32_t offset,
		uint32_t len, uint32_t dest, uint32_t *flags)
{
	uint64_t deadline = deadline_of(fw, c);
	/* Only this communicator's frames: another's wait in the port for their own turn. */
	net_set(fw, QUIRE_NET_RX_COMM, c->id);
	for (;;) {
		if (net(fw, QUIRE_NET_RX_PENDING) == 0) {
			if (hal_cycles(fw) >= deadline)
				return QUIRE_ERR_TIMEOUT;
			if (fw_wait_until(fw, deadline))
				return QUIRE_ERR_PEER;
			continue;
		}
		if (net(fw, QUIRE_NET_RX_FLAGS)) { /* failed the CRC: from whom is unknowable */
			drop(fw);
			return QUIRE_ERR_LINK;
		}
		uint32_t h[QUIRE_FRAME_HDR_BYTES / 4];
		for (uint32_t i = 0; i < QUIRE_FRAME_HDR_BYTES / 4; i++)
			h[i] = net(fw, QUIRE_NET_RX_HDR(i));
#define HDR(off) h[(off) / 4]
		uint32_t type = h[0] >> 8 & 0xff, src = HDR(QUIRE_FRAME_OFF_ADDRS) & 0xffff;
		uint32_t dst = HDR(QUIRE_FRAME_OFF_ADDRS) >> 16,
			 coll = HDR(QUIRE_FRAME_OFF_COLL_SEQ);
		uint32_t comm = HDR(QUIRE_FRAME_OFF_COMM) & 0xffff;
		uint32_t fstep = HDR(QUIRE_FRAME_OFF_COMM) >> 16;
		if ((h[0] & 0xff) != QUIRE_FRAME_VERSION || dst != fw->net_addr) {
			drop(fw); /* not ours to read */
			continue;
		}
		if (comm != c->id) {
			drop(fw); /* the filter let it through: the port is broken */
			return QUIRE_ERR_INTERNAL;
		}
		if (type == QUIRE_FRAME_KEEPALIVE && src == c->prev) {
			drop(fw);
			if (HDR(QUIRE_FRAME_OFF_LINK_SEQ) != c->rx_seq)
				return QUIRE_ERR_LINK; /* it sent a frame this card never got */
			deadline = deadline_of(fw, c); /* alive: wait for it as long again */
			continue;
		}
		if (coll < c->coll_seq) {
			drop(fw); /* left over from an earlier collective */
			continue;
		}
		if (type == QUIRE_FRAME_ABORT && coll == c->coll_seq) {
			drop(fw);
			int why = (int)(h[0] >> 16);
			return why > 0 && why < QUIRE_STATUS_COUNT ? why : QUIRE_ERR_PEER;
		}
		/* Anything but the next frame of the schedule from the previous member: a frame
		 * was lost (a gap in link_seq) or the members disagree on the collective. */
		if (type != QUIRE_FRAME_DATA || src != c->prev || coll != c->coll_seq ||
		    HDR(QUIRE_FRAME_OFF_LINK_SEQ) != c->rx_seq + 1 || fstep != step ||
		    HDR(QUIRE_FRAME_OFF_OFFSET) != offset || HDR(QUIRE_FRAME_OFF_LEN) != len) {
			drop(fw);
			return QUIRE_ERR_LINK;
		}
		net_set(fw, QUIRE_NET_RX_DEST, dest);
		net_set(fw, QUIRE_NET_RX_CTRL, QUIRE_NET_RX_POP);
		int st = (int)net(fw, QUIRE_NET_RX_STATUS);
		if (st != QUIRE_OK)
			return st == QUIRE_ERR_CORRUPT ? QUIRE_ERR_LINK : st;
		c->rx_seq++;
		*flags = h[0] >> 16;
		return QUIRE_OK;
#undef HDR
	}
}
