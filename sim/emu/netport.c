// SPDX-License-Identifier: MIT
/*
 * The network port model (netport.h): the transmit ring worked through in the
 * firmware's TX_PROD write, one frame per datagram, and a receive thread that
 * writes each frame into the buffer the receive ring's next descriptor posts.
 */
#include "sim/emu/netport.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "quire/card.h"
#include "quire/frame.h"
#include "quire/status.h"
#include "sim/le.h"
#include "sim/reliable_link.h"

#define FRAME_MAX QUIRE_NET_FRAME_MAX

/* A ring's registers. */
struct ring {
	uint32_t base, log2, prod, cons;
};

struct quire_netport {
	struct quire_reliable_link *link;
	pthread_mutex_t lock;
	pthread_cond_t posted; /* RX_PROD moved, or the port closes */
	int stop;
	uint8_t *mem;
	uint64_t mem_bytes;
	uint16_t addr;
	struct ring tx, rx;
	uint32_t rx_nobuf;
	uint8_t tx_buf[FRAME_MAX];
	struct quire_netport_stats st;
	void (*wake)(void *);
	void *wake_ctx;
};

/* ---- rings ------------------------------------------------------------------ */

/* QUIRE_OK when the ring's descriptors lie whole in card memory. */
static uint32_t ring_state(const struct quire_netport *p, const struct ring *r)
{
	if (r->log2 > QUIRE_NET_RING_LOG2_MAX || (r->base & 15u) ||
	    (uint64_t)r->base + ((uint64_t)QUIRE_NET_DESC_BYTES << r->log2) > p->mem_bytes)
		return QUIRE_ERR_RANGE;
	return QUIRE_OK;
}

/* Descriptor `idx` of ring r (in card memory: ring_state said so). */
static uint8_t *desc(const struct quire_netport *p, const struct ring *r, uint32_t idx)
{
	return p->mem + r->base + QUIRE_NET_DESC_BYTES * (idx & ((1u << r->log2) - 1u));
}

/* A descriptor handed back: LEN, STATUS and DONE with `flags`. */
static void complete(uint8_t *d, uint32_t len, uint32_t status, uint32_t flags)
{
	quire_st32(d + QUIRE_NET_DESC_LEN, len);
	quire_st32(d + QUIRE_NET_DESC_STATUS, (status & 0xffffu) | (QUIRE_NET_DESC_F_DONE | flags)
								       << 16);
}

/* ---- receive ---------------------------------------------------------------- */

/* The port's length check. Its CRC check is the link's: the link hands on only frames whose
 * CRC it has checked (reliable_link.h), so the port does not compute it a second time. */
static int bad_length(const uint8_t *data, uint32_t len)
{
	return len < QUIRE_FRAME_HDR_BYTES || len > FRAME_MAX ||
	       quire_ld32(data + QUIRE_FRAME_OFF_LEN) != len - QUIRE_FRAME_HDR_BYTES;
}

static int rx_has_buffer(const struct quire_netport *p)
{
	return ring_state(p, &p->rx) == QUIRE_OK && p->rx.cons != p->rx.prod;
}

/* Wait (lock held) until a buffer is posted or the port closes: false then. The link reads
 * no frame meanwhile, so its senders wait. */
static int rx_wait_buffer(struct quire_netport *p)
{
	while (!rx_has_buffer(p) && !p->stop)
		pthread_cond_wait(&p->posted, &p->lock);
	return !p->stop;
}

/* The link's receive thread: room for one more frame? (The senders wait while there is not.) */
static int rx_room(void *ctx)
{
	struct quire_netport *p = ctx;
	pthread_mutex_lock(&p->lock);
	int go_on = rx_wait_buffer(p);
	pthread_mutex_unlock(&p->lock);
	return go_on;
}

/* The posted buffers at RX_CONS that no frame can go into, given back (lock held): outside
 * card memory or neither on a line nor half a line in (QUIRE_ERR_RANGE: 32-byte aligned,
 * where a frame's payload starts on a line), shorter than a header (QUIRE_ERR_SIZE).
 * Returns whether any was. */
static int rx_refuse_bad(struct quire_netport *p)
{
	int any = 0;
	while (rx_has_buffer(p)) {
		uint8_t *d = desc(p, &p->rx, p->rx.cons);
		uint32_t card = quire_ld32(d + QUIRE_NET_DESC_CARD);
		uint32_t size = quire_ld32(d + QUIRE_NET_DESC_LEN);
		if ((card & 31u) || card > p->mem_bytes || size > p->mem_bytes - card)
			complete(d, size, QUIRE_ERR_RANGE, 0);
		else if (size < QUIRE_FRAME_HDR_BYTES)
			complete(d, size, QUIRE_ERR_SIZE, 0);
		else
			break;
		p->rx.cons++;
		any = 1;
	}
	return any;
}

/* A frame arrived: checked, written into the next buffer posted, and the firmware woken. A
 * frame that fails the check is counted and no buffer taken. */
static void rx_deliver(void *ctx, const uint8_t *data, uint32_t len)
{
	struct quire_netport *p = ctx;
	int woke = 0;
	pthread_mutex_lock(&p->lock);
	if (bad_length(data, len)) {
		p->st.rx_errors++;
		pthread_mutex_unlock(&p->lock);
		return;
	}
	for (;;) {
		woke |= rx_refuse_bad(p);
		if (rx_has_buffer(p) || !rx_wait_buffer(p))
			break;
	}
	if (rx_has_buffer(p)) {
		uint8_t *d = desc(p, &p->rx, p->rx.cons);
		uint32_t card = quire_ld32(d + QUIRE_NET_DESC_CARD);
		uint32_t size = quire_ld32(d + QUIRE_NET_DESC_LEN);
		memcpy(p->mem + card, data, len < size ? len : size);
		if (len > size)
			complete(d, len, QUIRE_ERR_SIZE, QUIRE_NET_DESC_F_TRUNC);
		else
			complete(d, len, QUIRE_OK, 0);
		p->rx.cons++;
		p->st.rx_frames++;
		p->rx_nobuf += p->rx.cons == p->rx.prod; /* it took the last buffer posted */
		woke = 1;
	}
	pthread_mutex_unlock(&p->lock);
	if (woke)
		p->wake(p->wake_ctx);
}

/* ---- transmit --------------------------------------------------------------- */

/* The frame of transmit descriptor d sent: its STATUS (and NOBODY). Lock not held: the
 * link may wait for room. */
static uint32_t tx_send(struct quire_netport *p, const uint8_t *d, uint32_t *flags)
{
	uint32_t card = quire_ld32(d + QUIRE_NET_DESC_CARD),
		 len = quire_ld32(d + QUIRE_NET_DESC_LEN);
	*flags = 0;
	if (len < QUIRE_FRAME_HDR_BYTES || len > FRAME_MAX)
		return QUIRE_ERR_SIZE;
	if ((card & 3) || card > p->mem_bytes || len > p->mem_bytes - card)
		return QUIRE_ERR_RANGE;
	uint8_t *f = p->tx_buf;
	memcpy(f, p->mem + card, len);
	uint32_t dst = quire_ld32(f + QUIRE_FRAME_OFF_ADDRS) >> 16;
	quire_st32(f + QUIRE_FRAME_OFF_ADDRS,
		   (uint32_t)p->addr | dst << 16); /* the port stamps its own address */
	quire_st32(f + QUIRE_FRAME_OFF_CRC, quire_net_frame_crc(f, len));
	int nobody, st = quire_reliable_link_send(p->link, dst, f, len, &nobody);
	if (st == QUIRE_OK) {
		pthread_mutex_lock(&p->lock);
		p->st.tx_frames++;
		p->st.tx_bytes += len;
		p->st.tx_drops += (uint64_t)(nobody != 0);
		pthread_mutex_unlock(&p->lock);
		*flags = nobody ? QUIRE_NET_DESC_F_NOBODY : 0;
	}
	return (uint32_t)st;
}

/* The transmit ring's descriptors [CONS, PROD) sent in order. Only the firmware's thread
 * writes TX_PROD, so only it sends. */
static void tx_run(struct quire_netport *p)
{
	for (;;) {
		pthread_mutex_lock(&p->lock);
		int more = ring_state(p, &p->tx) == QUIRE_OK && p->tx.cons != p->tx.prod;
		uint8_t *d = more ? desc(p, &p->tx, p->tx.cons) : NULL;
		pthread_mutex_unlock(&p->lock);
		if (!more)
			return;
		uint32_t flags, st = tx_send(p, d, &flags);
		pthread_mutex_lock(&p->lock);
		quire_st32(d + QUIRE_NET_DESC_STATUS,
			   (st & 0xffffu) | (QUIRE_NET_DESC_F_DONE | flags) << 16);
		p->tx.cons++;
		pthread_mutex_unlock(&p->lock);
	}
}

/* ---- registers -------------------------------------------------------------- */

uint32_t quire_netport_read(struct quire_netport *p, uint32_t reg)
{
	uint32_t v = 0;
	pthread_mutex_lock(&p->lock);
	switch (reg) {
	case QUIRE_NET_PORT_ADDR:
		v = p->addr;
		break;
	case QUIRE_NET_PORT_LINK:
		v = 1;
		break;
	case QUIRE_NET_TX_BASE:
		v = p->tx.base;
		break;
	case QUIRE_NET_TX_LOG2:
		v = p->tx.log2;
		break;
	case QUIRE_NET_TX_PROD:
		v = p->tx.prod;
		break;
	case QUIRE_NET_TX_CONS:
		v = p->tx.cons;
		break;
	case QUIRE_NET_TX_STATE:
		v = ring_state(p, &p->tx);
		break;
	case QUIRE_NET_RX_BASE:
		v = p->rx.base;
		break;
	case QUIRE_NET_RX_LOG2:
		v = p->rx.log2;
		break;
	case QUIRE_NET_RX_PROD:
		v = p->rx.prod;
		break;
	case QUIRE_NET_RX_CONS:
		v = p->rx.cons;
		break;
	case QUIRE_NET_RX_STATE:
		v = ring_state(p, &p->rx);
		break;
	case QUIRE_NET_RX_NOBUF:
		v = p->rx_nobuf;
		break;
	case QUIRE_NET_RX_BAD:
		v = (uint32_t)p->st.rx_errors;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&p->lock);
	return v;
}

void quire_netport_write(struct quire_netport *p, uint32_t reg, uint32_t value)
{
	pthread_mutex_lock(&p->lock);
	switch (reg) {
	case QUIRE_NET_TX_BASE:
		p->tx.base = value;
		break;
	case QUIRE_NET_TX_LOG2:
		p->tx = (struct ring){.base = p->tx.base, .log2 = value};
		break;
	case QUIRE_NET_TX_PROD:
		p->tx.prod = value;
		break;
	case QUIRE_NET_RX_BASE:
		p->rx.base = value;
		break;
	case QUIRE_NET_RX_LOG2:
		p->rx = (struct ring){.base = p->rx.base, .log2 = value};
		break;
	case QUIRE_NET_RX_PROD:
		p->rx.prod = value;
		rx_refuse_bad(p); /* at once, as the port reads ahead */
		pthread_cond_broadcast(&p->posted);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&p->lock);
	if (reg == QUIRE_NET_TX_PROD)
		tx_run(p);
}

void quire_netport_stats(struct quire_netport *p, struct quire_netport_stats *st)
{
	pthread_mutex_lock(&p->lock);
	*st = p->st;
	pthread_mutex_unlock(&p->lock);
	struct quire_reliable_link_stats ls;
	quire_reliable_link_stats(p->link, &ls);
	st->retransmits = ls.retransmits;
}

/* ---- life ------------------------------------------------------------------- */

int quire_netport_open(const struct quire_netport_config *cfg, uint8_t *mem, uint64_t mem_bytes,
		       void (*wake)(void *), void *ctx, struct quire_netport **out)
{
	*out = NULL;
	struct quire_netport *p = calloc(1, sizeof(*p));
	if (!p)
		return QUIRE_ERR_NOMEM;
	p->addr = cfg ? cfg->addr : 0;
	p->mem = mem;
	p->mem_bytes = mem_bytes;
	p->wake = wake;
	p->wake_ctx = ctx;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->posted, NULL);
	static const struct quire_reliable_link_rx_ops rx = {rx_room, rx_deliver};
	int st = quire_reliable_link_open(cfg, &rx, p, &p->link);
	if (st != QUIRE_OK) {
		pthread_cond_destroy(&p->posted);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return st;
	}
	*out = p;
	return QUIRE_OK;
}

void quire_netport_close(struct quire_netport *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->posted);
	pthread_mutex_unlock(&p->lock);
	quire_reliable_link_close(p->link);
	pthread_cond_destroy(&p->posted);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
