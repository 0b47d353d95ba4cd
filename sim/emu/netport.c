// SPDX-License-Identifier: MIT
/*
 * The network port model (netport.h): a transmit path that sends one frame
 * per datagram and a receive thread that fills a bounded buffer of frames.
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
#define RX_CAP    (64u << 20) /* bytes of frames the receive buffer holds */
#define RX_SPARE  64u         /* emptied frame buffers kept for the next frames */

struct rx_frame {
	struct rx_frame *next;
	uint32_t len, flags;
	uint8_t data[];
};

struct quire_netport {
	struct quire_reliable_link *link;
	pthread_mutex_t lock;
	pthread_cond_t space;
	int stop;
	struct rx_frame *head, *tail;
	/* Buffers of FRAME_MAX bytes that held a frame, for the next ones: one malloc and free
	 * of 64 KiB a frame, in two threads, had glibc hand pages back to the kernel and fault
	 * them in again (a tenth of the card's time). */
	struct rx_frame *spare;
	uint32_t n_spare;
	uint64_t queued;
	uint16_t addr;
	uint32_t tx_card, tx_len, tx_status, rx_dest, rx_status, rx_comm;
	uint8_t tx_buf[FRAME_MAX];
	struct quire_netport_stats st;
	void (*wake)(void *);
	void *wake_ctx;
};

/* ---- receive ---------------------------------------------------------------- */

/* The port's length check. Its CRC check is the link's: the link hands on only frames whose
 * CRC it has checked (reliable_link.h), so the port does not compute it a second time. */
static void classify(struct rx_frame *f)
{
	if (f->len < QUIRE_FRAME_HDR_BYTES || f->len > FRAME_MAX ||
	    quire_ld32(f->data + QUIRE_FRAME_OFF_LEN) != f->len - QUIRE_FRAME_HDR_BYTES)
		f->flags |= QUIRE_NET_RX_F_BAD_LEN;
}

/* The link's receive thread: room for one more frame? (The senders wait while there is not.) */
static int rx_room(void *ctx)
{
	struct quire_netport *p = ctx;
	pthread_mutex_lock(&p->lock);
	while (p->queued >= RX_CAP && !p->stop)
		pthread_cond_wait(&p->space, &p->lock);
	int go_on = !p->stop;
	pthread_mutex_unlock(&p->lock);
	return go_on;
}

/* A frame arrived: checked, queued, and the firmware woken. */
static void rx_deliver(void *ctx, const uint8_t *data, uint32_t len)
{
	struct quire_netport *p = ctx;
	if (len > FRAME_MAX)
		return; /* the link hands on none */
	pthread_mutex_lock(&p->lock);
	struct rx_frame *f = p->spare;
	if (f) {
		p->spare = f->next;
		p->n_spare--;
	}
	pthread_mutex_unlock(&p->lock);
	if (!f && !(f = malloc(sizeof(*f) + FRAME_MAX)))
		return; /* lost, as a port out of buffers loses it */
	f->next = NULL;
	f->len = len;
	f->flags = 0;
	memcpy(f->data, data, len);
	classify(f);
	pthread_mutex_lock(&p->lock);
	if (f->flags)
		p->st.rx_errors++;
	else
		p->st.rx_frames++;
	if (p->tail)
		p->tail->next = f;
	else
		p->head = f;
	p->tail = f;
	p->queued += f->len;
	pthread_mutex_unlock(&p->lock);
	p->wake(p->wake_ctx);
}

/* Does frame f pass the receive filter? Bad frames always do: their header is not to be
 * trusted, and whoever waits must hear of them. */
static int selected(const struct quire_netport *p, const struct rx_frame *f)
{
	if (!p->rx_comm || f->flags)
		return 1;
	return (quire_ld32(f->data + QUIRE_FRAME_OFF_COMM) & 0xffffu) == p->rx_comm;
}

/* The link that points at the first frame the filter passes, or NULL. */
static struct rx_frame **rx_first(struct quire_netport *p)
{
	for (struct rx_frame **l = &p->head; *l; l = &(*l)->next)
		if (selected(p, *l))
			return l;
	return NULL;
}

static uint32_t rx_count(const struct quire_netport *p)
{
	uint32_t n = 0;
	for (const struct rx_frame *f = p->head; f; f = f->next)
		n += (uint32_t)selected(p, f);
	return n;
}

static void rx_remove(struct quire_netport *p, struct rx_frame **link)
{
	struct rx_frame *f = *link, *prev = NULL;
	*link = f->next;
	if (p->tail == f) { /* the new tail is the frame whose next was f */
		for (struct rx_frame *g = p->head; g; g = g->next)
			prev = g;
		p->tail = prev;
	}
	p->queued -= f->len;
	if (p->n_spare < RX_SPARE && !p->stop) {
		f->next = p->spare;
		p->spare = f;
		p->n_spare++;
	} else {
		free(f);
	}
	pthread_cond_signal(&p->space);
}

static void rx_pop(struct quire_netport *p, uint32_t how, uint8_t *mem, uint64_t mem_bytes)
{
	pthread_mutex_lock(&p->lock);
	struct rx_frame **link = rx_first(p), *f = link ? *link : NULL;
	if (!f) {
		p->rx_status = QUIRE_ERR_INVALID;
	} else if (how == QUIRE_NET_RX_DROP) {
		rx_remove(p, link);
		p->rx_status = QUIRE_OK;
	} else if (f->flags) {
		rx_remove(p, link); /* nothing of a bad frame reaches card memory */
		p->rx_status = QUIRE_ERR_CORRUPT;
	} else {
		uint64_t payload = f->len - QUIRE_FRAME_HDR_BYTES;
		if (p->rx_dest > mem_bytes || payload > mem_bytes - p->rx_dest) {
			p->rx_status = QUIRE_ERR_RANGE; /* the frame stays for another try */
		} else {
			memcpy(mem + p->rx_dest, f->data + QUIRE_FRAME_HDR_BYTES, payload);
			rx_remove(p, link);
			p->rx_status = QUIRE_OK;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

/* ---- transmit --------------------------------------------------------------- */

static void count_tx(struct quire_netport *p, uint32_t len, int dropped)
{
	pthread_mutex_lock(&p->lock);
	p->st.tx_frames++;
	p->st.tx_bytes += len;
	p->st.tx_drops += (uint64_t)dropped;
	pthread_mutex_unlock(&p->lock);
}

static uint32_t tx_send(struct quire_netport *p, const uint8_t *mem, uint64_t mem_bytes)
{
	uint32_t len = p->tx_len;
	if (len < QUIRE_FRAME_HDR_BYTES || len > FRAME_MAX)
		return QUIRE_ERR_SIZE;
	if ((p->tx_card & 3) || p->tx_card > mem_bytes || len > mem_bytes - p->tx_card)
		return QUIRE_ERR_RANGE;
	uint8_t *f = p->tx_buf;
	memcpy(f, mem + p->tx_card, len);
	uint32_t dst = quire_ld32(f + QUIRE_FRAME_OFF_ADDRS) >> 16;
	quire_st32(f + QUIRE_FRAME_OFF_ADDRS,
		   (uint32_t)p->addr | dst << 16); /* the port stamps its own address */
	quire_st32(f + QUIRE_FRAME_OFF_CRC, quire_net_frame_crc(f, len));
	int nobody, st = quire_reliable_link_send(p->link, dst, f, len, &nobody);
	if (st == QUIRE_OK)
		count_tx(p, len, nobody);
	return st;
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
	case QUIRE_NET_TX_CARD:
		v = p->tx_card;
		break;
	case QUIRE_NET_TX_LEN:
		v = p->tx_len;
		break;
	case QUIRE_NET_TX_STATUS:
		v = p->tx_status;
		break;
	case QUIRE_NET_RX_PENDING:
		v = rx_count(p);
		break;
	case QUIRE_NET_RX_FLAGS: {
		struct rx_frame **l = rx_first(p);
		v = l ? (*l)->flags : 0;
		break;
	}
	case QUIRE_NET_RX_COMM:
		v = p->rx_comm;
		break;
	case QUIRE_NET_RX_DEST:
		v = p->rx_dest;
		break;
	case QUIRE_NET_RX_STATUS:
		v = p->rx_status;
		break;
	default:
		if (reg >= QUIRE_NET_RX_HDR(0) && reg < QUIRE_NET_RX_HDR(8)) {
			struct rx_frame **l = rx_first(p);
			if (l && (*l)->len >= QUIRE_FRAME_HDR_BYTES)
				v = quire_ld32((*l)->data + (reg - QUIRE_NET_RX_HDR(0)));
		}
	}
	pthread_mutex_unlock(&p->lock);
	return v;
}

void quire_netport_write(struct quire_netport *p, uint32_t reg, uint32_t value, uint8_t *mem,
			 uint64_t mem_bytes)
{
	switch (reg) {
	case QUIRE_NET_TX_CARD:
		p->tx_card = value;
		break;
	case QUIRE_NET_TX_LEN:
		p->tx_len = value;
		break;
	case QUIRE_NET_TX_CTRL:
		if (value & QUIRE_NET_GO) {
			uint32_t st = tx_send(p, mem, mem_bytes);
			pthread_mutex_lock(&p->lock);
			p->tx_status = st;
			pthread_mutex_unlock(&p->lock);
		}
		break;
	case QUIRE_NET_RX_DEST:
		p->rx_dest = value;
		break;
	case QUIRE_NET_RX_CTRL:
		if (value == QUIRE_NET_RX_POP || value == QUIRE_NET_RX_DROP)
			rx_pop(p, value, mem, mem_bytes);
		break;
	case QUIRE_NET_RX_COMM:
		pthread_mutex_lock(&p->lock);
		p->rx_comm = value & 0xffffu;
		pthread_mutex_unlock(&p->lock);
		break;
	default:
		break;
	}
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

int quire_netport_open(const struct quire_netport_config *cfg, void (*wake)(void *), void *ctx,
		       struct quire_netport **out)
{
	*out = NULL;
	struct quire_netport *p = calloc(1, sizeof(*p));
	if (!p)
		return QUIRE_ERR_NOMEM;
	p->addr = cfg ? cfg->addr : 0;
	p->wake = wake;
	p->wake_ctx = ctx;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->space, NULL);
	static const struct quire_reliable_link_rx_ops rx = {rx_room, rx_deliver};
	int st = quire_reliable_link_open(cfg, &rx, p, &p->link);
	if (st != QUIRE_OK) {
		pthread_cond_destroy(&p->space);
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
	pthread_cond_broadcast(&p->space);
	pthread_mutex_unlock(&p->lock);
	quire_reliable_link_close(p->link);
	while (p->head)
		rx_remove(p, &p->head);
	while (p->spare) {
		struct rx_frame *f = p->spare;
		p->spare = f->next;
		free(f);
	}
	pthread_cond_destroy(&p->space);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
