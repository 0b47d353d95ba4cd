// SPDX-License-Identifier: MIT
/*
 * The simulated network over UDP (netudp.h): the address table, the socket, frames
 * cut into at most two tagged datagrams and joined again per sender.
 */
#include "sim/netudp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "quire/status.h"

#define TAG_BYTES   8u         /* magic, piece, pieces, 0, seq (u32, little-endian) */
#define TAG_MAGIC   0x71u      /* 'q' */
#define PIECE_BYTES 65000u     /* frame bytes per datagram: under IPv4's 65507 with the tag */
#define MAX_PIECES  2u         /* QUIRE_NET_FRAME_MAX + 1 fits in two */
#define HOLD        64u        /* datagrams of a sender held while an earlier one is missing */
#define GAP_MS      20         /* how long a missing datagram may be late before it is lost */
#define RCVBUF      (32 << 20) /* as root (SO_RCVBUFFORCE); else what net.core.rmem_max allows */
#define SNDBUF      (1 << 20)

struct entry {
	uint32_t ip; /* network order */
	uint16_t base;
};

struct dgram {
	uint32_t len; /* tag and piece; 0: the slot is free */
	uint8_t bytes[TAG_BYTES + PIECE_BYTES];
};

/* What this port knows of one sender: the next datagram due, those that came early, and
 * the frame whose first piece came. */
struct peer {
	uint32_t next_seq, held;
	int seen;
	struct timespec gap_since;  /* when the first held datagram came */
	struct dgram *hold[HOLD];   /* by seq % HOLD, allocated when first needed */
	uint32_t have;              /* bytes of the frame so far */
	uint8_t next_piece, pieces; /* next_piece 0xff: no frame under way */
	uint8_t frame[MAX_PIECES * PIECE_BYTES];
};

struct quire_net_udp {
	int fd;
	uint32_t n; /* entries; 1: every address on that one */
	struct entry tab[QUIRE_NET_UDP_MAX_ADDR + 1];
	pthread_mutex_t send_lock; /* a sequence number and its datagram go out together */
	uint32_t seq_to[QUIRE_NET_UDP_MAX_ADDR + 1];
	struct peer *from[QUIRE_NET_UDP_MAX_ADDR + 1];
	struct dgram in;
};

int quire_net_udp_is(const char *net)
{
	return net && strncmp(net, "udp:", 4) == 0;
}

static int parse(struct quire_net_udp *u, const char *net)
{
	char copy[4096];
	if (snprintf(copy, sizeof(copy), "%s", net + 4) >= (int)sizeof(copy))
		return QUIRE_ERR_INVALID;
	u->n = 0;
	for (char *save, *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		if (u->n > QUIRE_NET_UDP_MAX_ADDR)
			return QUIRE_ERR_INVALID;
		unsigned long base = QUIRE_NET_UDP_PORT_BASE;
		char *colon = strchr(e, ':');
		if (colon) {
			char *end;
			*colon = '\0';
			base = strtoul(colon + 1, &end, 10);
			if (*end || colon[1] == '\0' || base < 1 ||
			    base + QUIRE_NET_UDP_MAX_ADDR > 65535)
				return QUIRE_ERR_INVALID;
		}
		struct in_addr ia;
		if (inet_pton(AF_INET, e, &ia) != 1)
			return QUIRE_ERR_INVALID;
		u->tab[u->n].ip = ia.s_addr;
		u->tab[u->n].base = (uint16_t)base;
		u->n++;
	}
	return u->n ? QUIRE_OK : QUIRE_ERR_INVALID;
}

static int where(const struct quire_net_udp *u, uint32_t addr, struct sockaddr_in *sa)
{
	if (addr > QUIRE_NET_UDP_MAX_ADDR || (u->n > 1 && addr >= u->n))
		return -1;
	const struct entry *e = &u->tab[u->n > 1 ? addr : 0];
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = e->ip;
	sa->sin_port = htons((uint16_t)(e->base + addr));
	return 0;
}

/* The address of the port a datagram came from, or -1 when it is none of the table's. */
static int who(const struct quire_net_udp *u, const struct sockaddr_in *sa)
{
	uint32_t port = ntohs(sa->sin_port);
	for (uint32_t i = 0; i < u->n; i++) {
		const struct entry *e = &u->tab[i];
		if (e->ip != sa->sin_addr.s_addr || port < e->base)
			continue;
		uint32_t a = port - e->base;
		if (u->n == 1 ? a <= QUIRE_NET_UDP_MAX_ADDR : a == i)
			return (int)a;
	}
	return -1;
}

/* The table into u, and where address addr binds. */
static int load(struct quire_net_udp *u, const char *net, uint16_t addr, struct sockaddr_in *self)
{
	int st = parse(u, net);
	return st == QUIRE_OK && where(u, addr, self) != 0 ? QUIRE_ERR_RANGE : st;
}

int quire_net_udp_check(const char *net, uint16_t addr)
{
	struct quire_net_udp *u = calloc(1, sizeof(*u));
	if (!u)
		return QUIRE_ERR_NOMEM;
	struct sockaddr_in sa;
	int st = load(u, net, addr, &sa);
	free(u);
	return st;
}

int quire_net_udp_open(const char *net, uint16_t addr, struct quire_net_udp **out)
{
	*out = NULL;
	struct quire_net_udp *u = calloc(1, sizeof(*u));
	if (!u)
		return QUIRE_ERR_NOMEM;
	struct sockaddr_in self;
	int st = load(u, net, addr, &self);
	if (st != QUIRE_OK) {
		free(u);
		return st;
	}
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		free(u);
		return QUIRE_ERR_IO;
	}
	int sz = RCVBUF;
	if (setsockopt(u->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) != 0)
		(void)setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	sz = SNDBUF;
	(void)setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (bind(u->fd, (struct sockaddr *)&self, sizeof(self)) != 0) {
		st = errno == EADDRNOTAVAIL ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO;
		close(u->fd);
		free(u);
		return st;
	}
	pthread_mutex_init(&u->send_lock, NULL);
	*out = u;
	return QUIRE_OK;
}

void quire_net_udp_close(struct quire_net_udp *u)
{
	if (!u)
		return;
	close(u->fd);
	pthread_mutex_destroy(&u->send_lock);
	for (uint32_t i = 0; i <= QUIRE_NET_UDP_MAX_ADDR; i++) {
		for (uint32_t h = 0; u->from[i] && h < HOLD; h++)
			free(u->from[i]->hold[h]);
		free(u->from[i]);
	}
	free(u);
}

int quire_net_udp_fd(const struct quire_net_udp *u)
{
	return u->fd;
}

int quire_net_udp_send(struct quire_net_udp *u, uint32_t dst, const uint8_t *f, uint32_t len)
{
	struct sockaddr_in sa;
	if (where(u, dst, &sa) != 0)
		return QUIRE_ERR_RANGE;
	uint32_t pieces = len ? (len + PIECE_BYTES - 1) / PIECE_BYTES : 1;
	if (pieces > MAX_PIECES)
		return QUIRE_ERR_RANGE;
	int st = QUIRE_OK;
	pthread_mutex_lock(&u->send_lock);
	for (uint32_t p = 0; p < pieces && st == QUIRE_OK; p++) {
		uint32_t off = p * PIECE_BYTES,
			 n = len - off < PIECE_BYTES ? len - off : PIECE_BYTES;
		uint32_t seq = u->seq_to[dst] + 1;
		uint8_t tag[TAG_BYTES] = {
		    TAG_MAGIC,    (uint8_t)p,          (uint8_t)pieces,      0,
		    (uint8_t)seq, (uint8_t)(seq >> 8), (uint8_t)(seq >> 16), (uint8_t)(seq >> 24)};
		struct iovec iov[2] = {{tag, TAG_BYTES}, {(void *)(f + off), n}};
		struct msghdr m = {
		    .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = iov, .msg_iovlen = 2};
		if (sendmsg(u->fd, &m, MSG_DONTWAIT) == (ssize_t)(TAG_BYTES + n)) {
			u->seq_to[dst] = seq;
			continue;
		}
		/* A first piece already gone is harmless: the receiver starts the frame again
		 * when the next first piece comes. */
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
			st = QUIRE_ERR_BUSY;
		else if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH)
			break; /* nobody there: lost, as on a dead link */
		else
			st = QUIRE_ERR_IO;
	}
	pthread_mutex_unlock(&u->send_lock);
	return st;
}

/* One datagram of a sender, in its order: a frame, whole or joined from its pieces, goes
 * to rx. -1 when rx said to stop. */
static int take(struct peer *p, const uint8_t *d, uint32_t len, const struct quire_net_rx_ops *rx,
		void *ctx, uint32_t cap)
{
	uint8_t piece = d[1], pieces = d[2];
	len -= TAG_BYTES;
	d += TAG_BYTES;
	if (pieces == 1) { /* the usual case: no copy through the frame buffer */
		if (!rx->room(ctx))
			return -1;
		rx->deliver(ctx, d, len < cap ? len : cap);
		return 0;
	}
	if (piece == 0) {
		p->have = 0;
		p->next_piece = 0;
		p->pieces = pieces;
	}
	if (piece != p->next_piece || pieces != p->pieces || p->have + len > sizeof(p->frame)) {
		p->next_piece = 0xff; /* a piece went missing: so did its frame */
		return 0;
	}
	memcpy(p->frame + p->have, d, len);
	p->have += len;
	if (++p->next_piece < pieces)
		return 0;
	p->next_piece = 0xff;
	if (!rx->room(ctx))
		return -1;
	rx->deliver(ctx, p->frame, p->have < cap ? p->have : cap);
	return 0;
}

/* The held datagrams that are now due, in order. */
static int drain(struct peer *p, const struct quire_net_rx_ops *rx, void *ctx, uint32_t cap)
{
	for (;;) {
		struct dgram *h = p->hold[p->next_seq % HOLD];
		if (!p->held || !h || !h->len)
			return 0;
		uint32_t len = h->len;
		h->len = 0;
		p->held--;
		p->next_seq++;
		clock_gettime(CLOCK_MONOTONIC, &p->gap_since); /* the next gap starts now */
		if (take(p, h->bytes, len, rx, ctx, cap) != 0)
			return -1;
	}
}

/* The missing datagram at the head is taken as lost: on to the first one held. */
static int skip_gap(struct peer *p, const struct quire_net_rx_ops *rx, void *ctx, uint32_t cap)
{
	uint32_t k = 0;
	while (k < HOLD &&
	       !(p->hold[(p->next_seq + k) % HOLD] && p->hold[(p->next_seq + k) % HOLD]->len))
		k++;
	p->next_seq += k;
	p->next_piece = 0xff; /* a frame under way lost a piece */
	return drain(p, rx, ctx, cap);
}

static double ms_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) * 1e3 + (double)(now.tv_nsec - t->tv_nsec) / 1e6;
}

int quire_net_udp_recv(struct quire_net_udp *u, const struct quire_net_rx_ops *rx, void *ctx,
		       uint32_t cap)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	ssize_t n = recvfrom(u->fd, u->in.bytes, sizeof(u->in.bytes), MSG_DONTWAIT,
			     (struct sockaddr *)&sa, &sl);
	if (n < (ssize_t)TAG_BYTES || u->in.bytes[0] != TAG_MAGIC)
		return 0;
	const uint8_t *t = u->in.bytes;
	int src = who(u, &sa);
	uint32_t seq = t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
	if (src < 0 || t[2] < 1 || t[2] > MAX_PIECES || t[1] >= t[2])
		return 0;
	struct peer *p = u->from[src];
	if (!p) {
		if (!(p = u->from[src] = calloc(1, sizeof(*p))))
			return 0; /* no memory: the datagram is lost */
		p->next_piece = 0xff;
	}
	/* The first datagram heard, or one from a sender that started again (a card
	 * restarted at that address), sets the count. */
	if (!p->seen || seq + 4096u < p->next_seq) {
		for (uint32_t h = 0; h < HOLD; h++)
			if (p->hold[h])
				p->hold[h]->len = 0;
		p->held = 0;
		p->next_seq = seq;
		p->next_piece = 0xff;
		p->seen = 1;
	}
	if (seq < p->next_seq)
		return 0; /* given up on already: too late */
	if (seq == p->next_seq) {
		p->next_seq++;
		if (take(p, t, (uint32_t)n, rx, ctx, cap) != 0)
			return -1;
		return drain(p, rx, ctx, cap);
	}
	while (seq - p->next_seq >= HOLD) /* too far ahead to wait for what is missing */
		if (skip_gap(p, rx, ctx, cap) != 0)
			return -1;
	if (seq == p->next_seq) { /* the skipping reached it */
		p->next_seq++;
		if (take(p, t, (uint32_t)n, rx, ctx, cap) != 0)
			return -1;
		return drain(p, rx, ctx, cap);
	}
	struct dgram **h = &p->hold[seq % HOLD];
	if (!*h && !(*h = calloc(1, sizeof(**h))))
		return 0;
	if ((*h)->len)
		return 0; /* a copy of one held */
	memcpy((*h)->bytes, t, (size_t)n);
	(*h)->len = (uint32_t)n;
	if (p->held++ == 0)
		clock_gettime(CLOCK_MONOTONIC, &p->gap_since);
	return 0;
}

int quire_net_udp_tick(struct quire_net_udp *u, const struct quire_net_rx_ops *rx, void *ctx,
		       uint32_t cap)
{
	for (uint32_t i = 0; i <= QUIRE_NET_UDP_MAX_ADDR; i++) {
		struct peer *p = u->from[i];
		while (p && p->held && ms_since(&p->gap_since) >= GAP_MS)
			if (skip_gap(p, rx, ctx, cap) != 0)
				return -1;
	}
	return 0;
}

int quire_net_udp_wait_ms(const struct quire_net_udp *u)
{
	for (uint32_t i = 0; i <= QUIRE_NET_UDP_MAX_ADDR; i++)
		if (u->from[i] && u->from[i]->held)
			return 1;
	return -1;
}
