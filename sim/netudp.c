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
#include <sys/socket.h>
#include <unistd.h>

#include "quire/status.h"

#define TAG_BYTES   4u
#define TAG_MAGIC   0x71u      /* 'q' */
#define PIECE_BYTES 65000u     /* frame bytes per datagram: under IPv4's 65507 with the tag */
#define MAX_PIECES  2u         /* QUIRE_NET_FRAME_MAX + 1 fits in two */
#define RCVBUF      (32 << 20) /* as root (SO_RCVBUFFORCE); else what net.core.rmem_max allows */
#define SNDBUF      (1 << 20)

struct entry {
	uint32_t ip; /* network order */
	uint16_t base;
};

struct partial { /* a frame whose first piece came */
	uint32_t len, have;
	uint8_t next, pieces;
	uint8_t data[MAX_PIECES * PIECE_BYTES];
};

struct quire_net_udp {
	int fd;
	uint32_t n; /* entries; 1: every address on that one */
	struct entry tab[QUIRE_NET_UDP_MAX_ADDR + 1];
	struct partial *part[QUIRE_NET_UDP_MAX_ADDR + 1];
	uint8_t dgram[TAG_BYTES + PIECE_BYTES + 1];
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
	*out = u;
	return QUIRE_OK;
}

void quire_net_udp_close(struct quire_net_udp *u)
{
	if (!u)
		return;
	close(u->fd);
	for (uint32_t i = 0; i <= QUIRE_NET_UDP_MAX_ADDR; i++)
		free(u->part[i]);
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
	for (uint32_t p = 0; p < pieces; p++) {
		uint32_t off = p * PIECE_BYTES,
			 n = len - off < PIECE_BYTES ? len - off : PIECE_BYTES;
		uint8_t tag[TAG_BYTES] = {TAG_MAGIC, (uint8_t)p, (uint8_t)pieces, 0};
		struct iovec iov[2] = {{tag, TAG_BYTES}, {(void *)(f + off), n}};
		struct msghdr m = {
		    .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = iov, .msg_iovlen = 2};
		if (sendmsg(u->fd, &m, MSG_DONTWAIT) == (ssize_t)(TAG_BYTES + n))
			continue;
		/* A first piece already gone is harmless: the receiver starts the frame again
		 * when the next first piece comes. */
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
			return QUIRE_ERR_BUSY;
		if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH)
			return QUIRE_OK; /* nobody there: lost, as on a dead link */
		return QUIRE_ERR_IO;
	}
	return QUIRE_OK;
}

uint32_t quire_net_udp_recv(struct quire_net_udp *u, uint8_t *buf, uint32_t cap)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	ssize_t n =
	    recvfrom(u->fd, u->dgram, sizeof(u->dgram), MSG_DONTWAIT, (struct sockaddr *)&sa, &sl);
	if (n < (ssize_t)TAG_BYTES || u->dgram[0] != TAG_MAGIC)
		return 0;
	int src = who(u, &sa);
	uint8_t piece = u->dgram[1], pieces = u->dgram[2];
	uint32_t len = (uint32_t)n - TAG_BYTES;
	if (src < 0 || pieces < 1 || pieces > MAX_PIECES || piece >= pieces)
		return 0;
	if (pieces == 1) { /* the usual case: no copy through a partial */
		uint32_t k = len < cap ? len : cap;
		memcpy(buf, u->dgram + TAG_BYTES, k);
		return k;
	}
	struct partial *p = u->part[src];
	if (!p && !(p = u->part[src] = malloc(sizeof(*p))))
		return 0; /* no memory: the frame is lost */
	if (piece == 0) {
		p->have = 0;
		p->next = 0;
		p->pieces = pieces;
	}
	if (piece != p->next || pieces != p->pieces || p->have + len > sizeof(p->data)) {
		p->next = 0xff; /* out of order: a piece was lost, so is the frame */
		return 0;
	}
	memcpy(p->data + p->have, u->dgram + TAG_BYTES, len);
	p->have += len;
	if (++p->next < pieces)
		return 0;
	p->next = 0xff;
	uint32_t k = p->have < cap ? p->have : cap;
	memcpy(buf, p->data, k);
	return k;
}
