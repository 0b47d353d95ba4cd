// SPDX-License-Identifier: MIT
/*
 * The network port driver: the port's transmit and receive rings in card memory
 * (docs/registers/net-rings.md), and frames of a communicator to the next ring
 * member and from the previous one, each checked against what the ring schedule
 * says must come next. The port drops a corrupted frame (its CRC) itself, so a
 * lost or corrupted frame shows as a gap in link_seq and ends the collective with
 * QUIRE_ERR_LINK, a silent peer with QUIRE_ERR_TIMEOUT. Nothing of a bad frame is
 * ever summed. Frames of other communicators wait in their buffers (held) until
 * their own collective reads them; the ring gets free buffers in their place.
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

#define TX_MASK  ((1u << FW_NET_TX_LOG2) - 1u)
#define RX_SLOTS (1u << FW_NET_RX_LOG2)
_Static_assert(QUIRE_FW_NET_BUFS >= RX_SLOTS + QUIRE_FW_NET_KEEP,
	       "every receive descriptor posted with the most frames kept");
#define BUF_BYTES (QUIRE_FRAME_HDR_BYTES + QUIRE_FRAME_MAX_PAYLOAD)

static uint32_t buf_at(uint32_t b)
{
	return FW_NET_RX_BUF + b * FW_NET_RX_BUF_STEP;
}

static uint32_t rx_desc(uint32_t i)
{
	return FW_NET_RX_RING + QUIRE_NET_DESC_BYTES * (i & (RX_SLOTS - 1u));
}

/* Free buffers into the receive ring while it has room, and the port told. */
static void post(struct quire_fw *fw)
{
	struct quire_fw_net *n = &fw->net;
	uint32_t prod = n->rx_prod;
	while (n->n_free && prod - n->rx_taken < RX_SLOTS) {
		uint32_t d = rx_desc(prod++);
		hal_mem_write32(fw, d + QUIRE_NET_DESC_CARD, buf_at(n->free[--n->n_free]));
		hal_mem_write32(fw, d + QUIRE_NET_DESC_LEN, BUF_BYTES);
		hal_mem_write32(fw, d + QUIRE_NET_DESC_STATUS, 0);
		hal_mem_write32(fw, d + QUIRE_NET_DESC_PAD, 0);
	}
	if (prod != n->rx_prod) {
		n->rx_prod = prod;
		net_set(fw, QUIRE_NET_RX_PROD, prod);
	}
}

static void give_back(struct quire_fw *fw, uint32_t b)
{
	fw->net.free[fw->net.n_free++] = (uint8_t)b;
}

/* The port's completed receive descriptors: frames become held in arrival order; a buffer
 * the port gave back unused (cut short: QUIRE_ERR_SIZE) is free again, and so is one whose
 * frame no communicator of this card will read (COMM_INIT would drain it: no member sends
 * a collective's frames before all have joined). Then repost. */
static void harvest(struct quire_fw *fw)
{
	struct quire_fw_net *n = &fw->net;
	uint32_t cons = net(fw, QUIRE_NET_RX_CONS);
	while (n->rx_taken != cons) {
		uint32_t d = rx_desc(n->rx_taken++);
		uint32_t b = (hal_mem_read32(fw, d + QUIRE_NET_DESC_CARD) - FW_NET_RX_BUF) /
			     FW_NET_RX_BUF_STEP;
		uint32_t st = hal_mem_read32(fw, d + QUIRE_NET_DESC_STATUS) & 0xffffu;
		if (b >= QUIRE_FW_NET_BUFS)
			continue; /* not one of ours: the ring was overwritten */
		uint32_t comm = hal_mem_read32(fw, buf_at(b) + QUIRE_FRAME_OFF_COMM) & 0xffffu;
		if (st == QUIRE_OK && fw_comm_find(fw, comm))
			n->held[n->n_held++] = (uint8_t)b;
		else
			give_back(fw, b);
	}
	post(fw);
}

static int settle(struct quire_fw *fw);

/* Receive buffer `slot` back to the ring, once the port has sent it on if it is the frame
 * queued (its failure kept for the next fw_net_settle). */
static void give_back_sent(struct quire_fw *fw, uint32_t slot)
{
	struct quire_fw_net *n = &fw->net;
	if (n->pend_comm && n->pend_at == buf_at(slot)) {
		int st = settle(fw);
		if (st != QUIRE_OK && n->pend_err == QUIRE_OK)
			n->pend_err = st;
	}
	give_back(fw, slot);
}

/* The frame lent by the last receive, free again. */
static void release(struct quire_fw *fw)
{
	if (fw->net.lent) {
		give_back_sent(fw, fw->net.lent - 1);
		fw->net.lent = 0;
	}
}

void fw_net_keep(struct quire_fw *fw)
{
	struct quire_fw_net *n = &fw->net;
	if (!n->lent)
		return;
	if (n->n_kept == QUIRE_FW_NET_KEEP)
		fw_net_unkeep(fw); /* the callers never do: they give one back first */
	n->kept[n->n_kept++] = (uint8_t)(n->lent - 1u);
	n->lent = 0;
}

void fw_net_unkeep(struct quire_fw *fw)
{
	struct quire_fw_net *n = &fw->net;
	if (!n->n_kept)
		return;
	give_back_sent(fw, n->kept[0]);
	n->n_kept--;
	for (uint32_t i = 0; i < n->n_kept; i++)
		n->kept[i] = n->kept[i + 1];
}

void fw_net_unkeep_newest(struct quire_fw *fw)
{
	struct quire_fw_net *n = &fw->net;
	if (n->n_kept)
		give_back_sent(fw, n->kept[--n->n_kept]);
}

/* Every kept frame free again. */
static void unkeep_all(struct quire_fw *fw)
{
	while (fw->net.n_kept)
		fw_net_unkeep(fw);
}

/* Held frame k out of the arrival order; returns its buffer. */
static uint32_t unhold(struct quire_fw *fw, uint32_t k)
{
	struct quire_fw_net *n = &fw->net;
	uint32_t b = n->held[k];
	for (uint32_t i = k; i + 1 < n->n_held; i++)
		n->held[i] = n->held[i + 1];
	n->n_held--;
	return b;
}

static uint32_t held_word(struct quire_fw *fw, uint32_t k, uint32_t off)
{
	return hal_mem_read32(fw, buf_at(fw->net.held[k]) + off);
}

/* The first held frame of communicator id from position k on, or n_held. */
static uint32_t find(struct quire_fw *fw, uint32_t id, uint32_t k)
{
	while (k < fw->net.n_held && (held_word(fw, k, QUIRE_FRAME_OFF_COMM) & 0xffffu) != id)
		k++;
	return k;
}

void fw_net_init(struct quire_fw *fw)
{
	struct quire_fw_net *n = &fw->net;
	n->tx_prod = n->rx_prod = n->rx_taken = 0;
	n->n_held = n->lent = n->n_kept = 0;
	n->pend_comm = NULL;
	n->pend_err = QUIRE_OK;
	net_set(fw, QUIRE_NET_TX_BASE, FW_NET_TX_RING);
	net_set(fw, QUIRE_NET_TX_LOG2, FW_NET_TX_LOG2);
	net_set(fw, QUIRE_NET_RX_BASE, FW_NET_RX_RING);
	net_set(fw, QUIRE_NET_RX_LOG2, FW_NET_RX_LOG2);
	for (n->n_free = 0; n->n_free < QUIRE_FW_NET_BUFS; n->n_free++)
		n->free[n->n_free] = (uint8_t)(QUIRE_FW_NET_BUFS - 1u - n->n_free);
	post(fw);
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

/* Queue the frame at `at` (len bytes in all); returns its descriptor. */
static uint32_t queue_desc(struct quire_fw *fw, uint32_t at, uint32_t len)
{
	struct quire_fw_net *n = &fw->net;
	uint32_t d = FW_NET_TX_RING + QUIRE_NET_DESC_BYTES * (n->tx_prod & TX_MASK);
	hal_mem_write32(fw, d + QUIRE_NET_DESC_CARD, at);
	hal_mem_write32(fw, d + QUIRE_NET_DESC_LEN, len);
	hal_mem_write32(fw, d + QUIRE_NET_DESC_STATUS, 0);
	hal_mem_write32(fw, d + QUIRE_NET_DESC_PAD, 0);
	net_set(fw, QUIRE_NET_TX_PROD, ++n->tx_prod);
	return d;
}

/* Wait for the port's answer to everything queued: the last descriptor's (d) STATUS. The
 * port always answers (the MAC says sent, busy or no one). */
static int answer(struct quire_fw *fw, uint32_t d)
{
	while (net(fw, QUIRE_NET_TX_CONS) != fw->net.tx_prod)
		;
	return (int)(hal_mem_read32(fw, d + QUIRE_NET_DESC_STATUS) & 0xffffu);
}

/* The header's first three words and its crc32 field. */
static void frame_words(struct quire_fw *fw, uint32_t at, uint32_t w0, uint32_t dst, uint32_t w2)
{
	hal_mem_write32(fw, at, w0);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_ADDRS, fw->net_addr | dst << 16);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_COMM, w2);
	hal_mem_write32(fw, at + QUIRE_FRAME_OFF_CRC, 0); /* the port's */
}

/* Send the frame at `at`, whose other fields frame_fields wrote, and wait for it; with
 * `busy`, the port has just answered it so once. */
static int transmit(struct quire_fw *fw, uint32_t at, uint32_t w0, uint32_t dst, uint32_t w2,
		    uint32_t len, uint64_t deadline, int busy)
{
	frame_words(fw, at, w0, dst, w2);
	for (;;) {
		int st = busy ? QUIRE_ERR_BUSY
			      : answer(fw, queue_desc(fw, at, QUIRE_FRAME_HDR_BYTES + len));
		busy = 0;
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

/* The port's answer to the frame queued, if any: sent again while its peer is busy. */
static int settle(struct quire_fw *fw)
{
	struct quire_fw_net *n = &fw->net;
	struct quire_fw_comm *c = n->pend_comm;
	if (!c)
		return QUIRE_OK;
	n->pend_comm = NULL; /* a keepalive sent meanwhile follows it, as it should */
	int st = answer(fw, n->pend_desc);
	if (st == QUIRE_ERR_BUSY)
		st = transmit(fw, n->pend_at, n->pend_w0, c->next, n->pend_w2, n->pend_len,
			      deadline_of(fw, c), 1);
	if (st == QUIRE_OK) {
		c->tx_seq++;
		/* A frame is a data transfer: a collective whose frames never keep it waiting
		 * beats as one that waits does, so its host sees it make progress. */
		fw_heartbeat(fw);
	}
	return st;
}

int fw_net_settle(struct quire_fw *fw)
{
	int st = settle(fw);
	if (st == QUIRE_OK) {
		st = fw->net.pend_err;
		fw->net.pend_err = QUIRE_OK;
	}
	return st;
}

int fw_net_post(struct quire_fw *fw, struct quire_fw_comm *c, uint32_t step, uint32_t flags,
		uint32_t offset, uint32_t len, uint32_t payload)
{
	struct quire_fw_net *n = &fw->net;
	int st = fw_net_settle(fw); /* one frame queued at a time: link_seq counts them */
	if (st != QUIRE_OK)
		return st;
	uint32_t at = payload - QUIRE_FRAME_HDR_BYTES;
	frame_fields(fw, at, c->coll_seq, offset, len, c->tx_seq + 1);
	n->pend_w0 = QUIRE_FRAME_VERSION | QUIRE_FRAME_DATA << 8 | flags << 16;
	n->pend_w2 = c->id | step << 16;
	frame_words(fw, at, n->pend_w0, c->next, n->pend_w2);
	n->pend_at = at;
	n->pend_len = len;
	n->pend_desc = queue_desc(fw, at, QUIRE_FRAME_HDR_BYTES + len);
	n->pend_comm = c;
	return QUIRE_OK;
}

int fw_net_send(struct quire_fw *fw, struct quire_fw_comm *c, uint32_t step, uint32_t flags,
		uint32_t offset, uint32_t len, uint32_t payload)
{
	int st = fw_net_post(fw, c, step, flags, offset, len, payload);
	return st == QUIRE_OK ? fw_net_settle(fw) : st;
}

void fw_net_abort(struct quire_fw *fw, struct quire_fw_comm *c, int status)
{
	uint32_t at = FW_ABORT_FRAME;
	(void)fw_net_settle(fw);                    /* failed already */
	frame_fields(fw, at, c->coll_seq, 0, 0, 0); /* not in any link's sequence */
	/* Best effort, a short while per member: they time out anyway if this is lost. */
	for (uint32_t r = 0; r < c->size; r++) {
		if (r == c->rank)
			continue;
		uint32_t dst = fw_comm_member_addr(fw, c->addrs, r);
		(void)transmit(
		    fw, at, QUIRE_FRAME_VERSION | QUIRE_FRAME_ABORT << 8 | (uint32_t)status << 16,
		    dst, c->id, 0, hal_cycles(fw) + 10u * fw->cycles_per_ms, 0);
	}
}

void fw_net_keepalive(struct quire_fw *fw, struct quire_fw_comm *c)
{
	uint32_t at = FW_KEEPALIVE_FRAME;
	/* After the frame queued, counted in link_seq: its failure is the collective's. */
	int st = settle(fw);
	if (st != QUIRE_OK && fw->net.pend_err == QUIRE_OK)
		fw->net.pend_err = st;
	/* link_seq: the DATA frames sent so far, so a receiver still missing one knows it was
	 * lost rather than late (frames from one sender arrive in order). */
	frame_fields(fw, at, c->coll_seq, 0, 0, c->tx_seq);
	/* A peer too full to take it has frames of ours to read anyway. */
	(void)transmit(fw, at, QUIRE_FRAME_VERSION | QUIRE_FRAME_KEEPALIVE << 8, c->next, c->id, 0,
		       hal_cycles(fw) + fw->cycles_per_ms, 0);
}

/* Held frame k discarded: its buffer back in the ring. */
static void drop(struct quire_fw *fw, uint32_t k)
{
	give_back(fw, unhold(fw, k));
	post(fw);
}

void fw_net_drop_keepalives(struct quire_fw *fw, uint32_t id)
{
	release(fw);
	unkeep_all(fw);
	harvest(fw);
	uint32_t k;
	while ((k = find(fw, id, 0)) < fw->net.n_held &&
	       (held_word(fw, k, 0) >> 8 & 0xff) == QUIRE_FRAME_KEEPALIVE)
		drop(fw, k);
}

void fw_net_drain(struct quire_fw *fw, uint32_t id)
{
	release(fw);
	unkeep_all(fw);
	harvest(fw);
	uint32_t k;
	while ((k = find(fw, id, 0)) < fw->net.n_held)
		drop(fw, k);
}

int fw_net_recv(struct quire_fw *fw, struct quire_fw_comm *c, uint32_t step, uint32_t offset,
		uint32_t len, uint32_t *payload, uint32_t *flags)
{
	uint64_t deadline = deadline_of(fw, c);
	release(fw);
	for (;;) {
		/* Only this communicator's frames: another's wait, held, for their own turn. */
		harvest(fw);
		uint32_t k = find(fw, c->id, 0);
		if (k == fw->net.n_held) {
			if (hal_cycles(fw) >= deadline)
				return QUIRE_ERR_TIMEOUT;
			if (fw_wait_until(fw, deadline))
				return QUIRE_ERR_PEER;
			continue;
		}
		uint32_t at = buf_at(fw->net.held[k]);
		uint32_t h[QUIRE_FRAME_HDR_BYTES / 4];
		for (uint32_t i = 0; i < QUIRE_FRAME_HDR_BYTES / 4; i++)
			h[i] = hal_mem_read32(fw, at + 4 * i);
#define HDR(off) h[(off) / 4]
		uint32_t type = h[0] >> 8 & 0xff, src = HDR(QUIRE_FRAME_OFF_ADDRS) & 0xffff;
		uint32_t dst = HDR(QUIRE_FRAME_OFF_ADDRS) >> 16,
			 coll = HDR(QUIRE_FRAME_OFF_COLL_SEQ);
		uint32_t fstep = HDR(QUIRE_FRAME_OFF_COMM) >> 16;
		if ((h[0] & 0xff) != QUIRE_FRAME_VERSION || dst != fw->net_addr) {
			drop(fw, k); /* not ours to read */
			continue;
		}
		if (type == QUIRE_FRAME_KEEPALIVE && src == c->prev) {
			drop(fw, k);
			if (HDR(QUIRE_FRAME_OFF_LINK_SEQ) != c->rx_seq)
				return QUIRE_ERR_LINK; /* it sent a frame this card never got */
			deadline = deadline_of(fw, c); /* alive: wait for it as long again */
			continue;
		}
		if (coll < c->coll_seq) {
			drop(fw, k); /* left over from an earlier collective */
			continue;
		}
		if (type == QUIRE_FRAME_ABORT && coll == c->coll_seq) {
			drop(fw, k);
			int why = (int)(h[0] >> 16);
			return why > 0 && why < QUIRE_STATUS_COUNT ? why : QUIRE_ERR_PEER;
		}
		/* Anything but the next frame of the schedule from the previous member: a frame
		 * was lost (a gap in link_seq) or the members disagree on the collective. */
		if (type != QUIRE_FRAME_DATA || src != c->prev || coll != c->coll_seq ||
		    HDR(QUIRE_FRAME_OFF_LINK_SEQ) != c->rx_seq + 1 || fstep != step ||
		    HDR(QUIRE_FRAME_OFF_OFFSET) != offset || HDR(QUIRE_FRAME_OFF_LEN) != len) {
			drop(fw, k);
			return QUIRE_ERR_LINK;
		}
		fw->net.lent = unhold(fw, k) + 1u;
		c->rx_seq++;
		fw_heartbeat(fw); /* a data transfer, as a sent frame is */
		*payload = at + QUIRE_FRAME_HDR_BYTES;
		*flags = h[0] >> 16;
		return QUIRE_OK;
#undef HDR
	}
}
