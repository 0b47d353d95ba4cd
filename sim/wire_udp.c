// SPDX-License-Identifier: MIT
/*
 * The simulated network's wire over UDP (wire_udp.h): the address table (from the list in
 * the network's name, or from a rendezvous: wire_udp_rendezvous.c), a socket per channel,
 * datagrams cut into at most two tagged pieces and joined again per sender.
 */
#include "sim/wire_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "quire/status.h"
#include "sim/le.h"
#include "sim/wire_udp_rendezvous.h"

#define TAG_BYTES   8u         /* magic, piece, pieces, 0, seq (u32, little-endian) */
#define TAG_MAGIC   0x71u      /* 'q' */
#define PIECE_BYTES 65000u     /* datagram bytes per piece: under IPv4's 65507 with the tag */
#define MAX_PIECES  2u         /* the link's longest datagram, and one byte more, fit in two */
#define RCVBUF      (32 << 20) /* as root (SO_RCVBUFFORCE); else what net.core.rmem_max allows */
#define SNDBUF      (1 << 20)
#define N_ADDR      (QUIRE_WIRE_UDP_MAX_ADDR + 1u)

struct entry {
	uint32_t ip;      /* network order */
	uint16_t base;    /* a one-host list: address A's ports are base + A and base + 256 + A */
	uint16_t port[2]; /* else this address's own, per channel */
};

#define PARTS 4u /* pieces kept per sender until their partners come */

/* A piece of a sender's two-piece datagram, until its partner comes. */
struct part {
	uint32_t seq, len; /* len 0: none waiting */
	uint8_t piece;     /* 0: the first, 1: the second */
	uint8_t bytes[PIECE_BYTES];
};

struct chan {
	int fd;
	pthread_mutex_t send_lock; /* a number and its pieces go out together */
	uint32_t seq_to[N_ADDR];
	struct part *from[N_ADDR]; /* PARTS each, the receiving thread's, allocated when needed */
};

struct quire_wire_udp {
	uint8_t run[QUIRE_JOB_RUN_BYTES]; /* the run's identity, from the rendezvous */
	int have_run;
	uint32_t n;   /* entries: addresses 0..n-1, or with one_host, every address */
	int one_host; /* "udp:HOST[:BASE]": one entry, every address on it */
	struct entry tab[N_ADDR];
	struct chan ch[2];
};

int quire_wire_udp_is(const char *net)
{
	return net && strncmp(net, "udp:", 4) == 0;
}

static int parse(struct quire_wire_udp *u, const char *net)
{
	char copy[4096];
	if (snprintf(copy, sizeof(copy), "%s", net + 4) >= (int)sizeof(copy))
		return QUIRE_ERR_INVALID;
	u->n = 0;
	for (char *save, *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		if (u->n >= N_ADDR)
			return QUIRE_ERR_INVALID;
		unsigned long base = QUIRE_WIRE_UDP_PORT_BASE;
		char *colon = strchr(e, ':');
		if (colon) {
			char *end;
			*colon = '\0';
			base = strtoul(colon + 1, &end, 10);
			if (*end || colon[1] == '\0' || base < 1 ||
			    base + QUIRE_WIRE_UDP_LINK_OFF + QUIRE_WIRE_UDP_MAX_ADDR > 65535)
				return QUIRE_ERR_INVALID;
		}
		struct in_addr ia;
		if (inet_pton(AF_INET, e, &ia) != 1)
			return QUIRE_ERR_INVALID;
		u->tab[u->n].ip = ia.s_addr;
		u->tab[u->n].base = (uint16_t)base;
		u->tab[u->n].port[0] = (uint16_t)(base + u->n);
		u->tab[u->n].port[1] = (uint16_t)(base + QUIRE_WIRE_UDP_LINK_OFF + u->n);
		u->n++;
	}
	u->one_host = u->n == 1;
	return u->n ? QUIRE_OK : QUIRE_ERR_INVALID;
}

static uint32_t chan_off(enum quire_wire_chan ch)
{
	return ch == QUIRE_WIRE_LINK ? QUIRE_WIRE_UDP_LINK_OFF : 0;
}

static int where(const struct quire_wire_udp *u, uint32_t addr, enum quire_wire_chan ch,
		 struct sockaddr_in *sa)
{
	if (addr > QUIRE_WIRE_UDP_MAX_ADDR || (!u->one_host && addr >= u->n))
		return -1;
	const struct entry *e = &u->tab[u->one_host ? 0 : addr];
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = e->ip;
	sa->sin_port = htons(u->one_host ? (uint16_t)(e->base + chan_off(ch) + addr) : e->port[ch]);
	return 0;
}

/* The address of the port whose channel ch a datagram came from, or -1 when it is none of
 * the table's. */
static int who(const struct quire_wire_udp *u, enum quire_wire_chan ch,
	       const struct sockaddr_in *sa)
{
	uint32_t port = ntohs(sa->sin_port);
	if (u->one_host) {
		const struct entry *e = &u->tab[0];
		uint32_t a = port - e->base - chan_off(ch); /* wraps when below: then too large */
		return e->ip == sa->sin_addr.s_addr && a <= QUIRE_WIRE_UDP_MAX_ADDR ? (int)a : -1;
	}
	for (uint32_t i = 0; i < u->n; i++)
		if (u->tab[i].ip == sa->sin_addr.s_addr && u->tab[i].port[ch] == port)
			return (int)i;
	return -1;
}

/* The table into u, and checks that address addr has an entry. */
static int load(struct quire_wire_udp *u, const char *net, uint16_t addr)
{
	struct sockaddr_in sa;
	if (quire_wire_udp_rdv_is(net)) { /* the table comes from the rendezvous */
		struct quire_wire_udp_rdv_spec spec;
		char why[256];
		if (quire_wire_udp_rdv_parse(net, &spec, why, sizeof(why)) != QUIRE_OK)
			return QUIRE_ERR_INVALID;
		return addr < spec.cards ? QUIRE_OK : QUIRE_ERR_RANGE;
	}
	int st = parse(u, net);
	return st == QUIRE_OK && where(u, addr, QUIRE_WIRE_FRAMES, &sa) != 0 ? QUIRE_ERR_RANGE : st;
}

int quire_wire_udp_check(const char *net, uint16_t addr)
{
	struct quire_wire_udp *u = calloc(1, sizeof(*u));
	if (!u)
		return QUIRE_ERR_NOMEM;
	int st = load(u, net, addr);
	free(u);
	return st;
}

/* Binds channel ch at self. */
static int bind_chan(struct quire_wire_udp *u, enum quire_wire_chan ch, struct sockaddr_in self)
{
	int fd = u->ch[ch].fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return QUIRE_ERR_IO;
	int sz = RCVBUF;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	sz = SNDBUF;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	/* No UDP checksum on what this socket sends (IPv4 allows it), so the receiving kernel
	 * does not check one either: the link's CRCs cover every byte that matters (a damaged
	 * tag only spoils a join, which the frame's CRC then catches), and the checksum cost
	 * a pass over every datagram at each end. */
	sz = 1;
	(void)setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &sz, sizeof(sz));
	if (bind(fd, (struct sockaddr *)&self, sizeof(self)) != 0)
		return errno == EADDRNOTAVAIL ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO;
	return QUIRE_OK;
}

/* The rendezvous' bind: both channels on ip, any free ports, which it is told. */
static int bind_any(void *ctx, uint32_t ip, uint16_t port[2])
{
	struct quire_wire_udp *u = ctx;
	for (int c = 0; c < 2; c++) {
		struct sockaddr_in self = {.sin_family = AF_INET, .sin_addr.s_addr = ip};
		socklen_t sl = sizeof(self);
		int st = bind_chan(u, (enum quire_wire_chan)c, self);
		if (st != QUIRE_OK)
			return st;
		if (getsockname(u->ch[c].fd, (struct sockaddr *)&self, &sl) != 0)
			return QUIRE_ERR_IO;
		port[c] = ntohs(self.sin_port);
	}
	return QUIRE_OK;
}

/* The table from the rendezvous the network's name describes; what failed, on stderr (the
 * card's process says it; the link's caller only sees the status). */
static int join(struct quire_wire_udp *u, const char *net, uint16_t addr,
		const struct quire_job_key *key)
{
	struct quire_wire_udp_rdv_spec spec;
	struct quire_wire_udp_ep tab[QUIRE_WIRE_UDP_RDV_MAX_CARDS];
	char why[QUIRE_WIRE_UDP_RDV_ERR_MAX];
	int st = quire_wire_udp_rdv_parse(net, &spec, why, sizeof(why));
	if (st == QUIRE_OK)
		st = quire_wire_udp_rdv_join(&spec, addr, key, bind_any, u, tab, u->run, why,
					     sizeof(why));
	if (st != QUIRE_OK) {
		fprintf(stderr, "quire card %u: %s\n", addr, why);
		return st;
	}
	u->have_run = 1;
	u->n = spec.cards;
	u->one_host = 0;
	for (uint32_t a = 0; a < u->n; a++) {
		u->tab[a].ip = tab[a].ip;
		u->tab[a].port[0] = tab[a].port[0];
		u->tab[a].port[1] = tab[a].port[1];
	}
	return QUIRE_OK;
}

int quire_wire_udp_open(const char *net, uint16_t addr, const struct quire_job_key *key,
			struct quire_wire_udp **out)
{
	*out = NULL;
	struct quire_wire_udp *u = calloc(1, sizeof(*u));
	if (!u)
		return QUIRE_ERR_NOMEM;
	u->ch[0].fd = u->ch[1].fd = -1;
	for (int c = 0; c < 2; c++)
		pthread_mutex_init(&u->ch[c].send_lock, NULL);
	int st = load(u, net, addr);
	if (st == QUIRE_OK && quire_wire_udp_rdv_is(net)) {
		st = join(u, net, addr, key);
	} else {
		struct sockaddr_in self;
		for (int c = 0; c < 2 && st == QUIRE_OK; c++) {
			(void)where(u, addr, (enum quire_wire_chan)c, &self);
			st = bind_chan(u, (enum quire_wire_chan)c, self);
		}
	}
	if (st != QUIRE_OK) {
		quire_wire_udp_close(u);
		return st;
	}
	*out = u;
	return QUIRE_OK;
}

void quire_wire_udp_close(struct quire_wire_udp *u)
{
	if (!u)
		return;
	for (int c = 0; c < 2; c++) {
		if (u->ch[c].fd >= 0)
			close(u->ch[c].fd);
		pthread_mutex_destroy(&u->ch[c].send_lock);
		for (uint32_t i = 0; i < N_ADDR; i++)
			free(u->ch[c].from[i]);
	}
	free(u);
}

int quire_wire_udp_run(const struct quire_wire_udp *u, uint8_t run[QUIRE_JOB_RUN_BYTES])
{
	if (u->have_run)
		memcpy(run, u->run, QUIRE_JOB_RUN_BYTES);
	return u->have_run;
}

int quire_wire_udp_fd(const struct quire_wire_udp *u, enum quire_wire_chan ch)
{
	return u->ch[ch].fd;
}

/* Bytes [off, off + n) of the iovecs, as iovecs into out (at most n_iov + 1 of them). */
static int slice(const struct iovec *iov, int n_iov, size_t off, size_t n, struct iovec *out)
{
	int k = 0;
	for (int i = 0; i < n_iov && n; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		size_t take = iov[i].iov_len - off < n ? iov[i].iov_len - off : n;
		out[k].iov_base = (uint8_t *)iov[i].iov_base + off;
		out[k++].iov_len = take;
		n -= take;
		off = 0;
	}
	return k;
}

int quire_wire_udp_send(struct quire_wire_udp *u, enum quire_wire_chan ch, uint32_t dst,
			const struct iovec *iov, int n_iov)
{
	struct sockaddr_in sa;
	if (where(u, dst, ch, &sa) != 0 || n_iov < 1 || n_iov > 2)
		return QUIRE_ERR_RANGE;
	size_t len = 0;
	for (int i = 0; i < n_iov; i++)
		len += iov[i].iov_len;
	uint32_t pieces = len > PIECE_BYTES ? 2 : 1;
	if (len > PIECE_BYTES + QUIRE_WIRE_HEADROOM)
		return QUIRE_ERR_RANGE;
	/* Two pieces: the head (what is over PIECE_BYTES, at most the receiver's headroom),
	 * then PIECE_BYTES; the receiver reads the long one where it stays (recv). */
	size_t head = pieces == 2 ? len - PIECE_BYTES : len;
	struct chan *c = &u->ch[ch];
	int st = QUIRE_OK;
	pthread_mutex_lock(&c->send_lock);
	uint32_t seq = c->seq_to[dst];
	for (uint32_t p = 0; p < pieces && st == QUIRE_OK; p++) {
		size_t off = p ? head : 0, n = p ? PIECE_BYTES : head;
		seq++;
		uint8_t tag[TAG_BYTES] = {TAG_MAGIC, (uint8_t)p, (uint8_t)pieces, 0};
		quire_st32(tag + 4, seq);
		struct iovec out[4] = {{tag, TAG_BYTES}};
		int k = 1 + slice(iov, n_iov, off, n, out + 1);
		struct msghdr m = {.msg_name = &sa,
				   .msg_namelen = sizeof(sa),
				   .msg_iov = out,
				   .msg_iovlen = (size_t)k};
		if (sendmsg(c->fd, &m, MSG_DONTWAIT) == (ssize_t)(TAG_BYTES + n))
			continue;
		/* A first piece already gone is harmless: the receiver drops it when the next
		 * datagram from here is not its second. */
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
			st = QUIRE_ERR_BUSY;
		else if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH)
			break; /* nobody there (this one, or an earlier one's ICMP): lost */
		else
			st = QUIRE_ERR_IO;
	}
	c->seq_to[dst] = seq; /* numbers of pieces not sent are skipped: no harm */
	pthread_mutex_unlock(&c->send_lock);
	return st;
}

int quire_wire_udp_recv(struct quire_wire_udp *u, enum quire_wire_chan ch, uint8_t *buf,
			uint32_t cap, uint32_t *off, uint32_t *len, uint32_t *src)
{
	struct chan *c = &u->ch[ch];
	uint8_t t[TAG_BYTES];
	struct sockaddr_in sa;
	const uint32_t room = QUIRE_WIRE_HEADROOM;
	if (cap <= room)
		return 0;
	uint8_t *at = buf + room; /* every datagram lands here; a head goes just before */
	struct iovec iov[2] = {{t, TAG_BYTES}, {at, cap - room}};
	struct msghdr m = {
	    .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = iov, .msg_iovlen = 2};
	ssize_t n = recvmsg(c->fd, &m, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0)
		return -1;
	int from = m.msg_namelen == sizeof(sa) ? who(u, ch, &sa) : -1;
	if (n < (ssize_t)TAG_BYTES || t[0] != TAG_MAGIC || from < 0 || t[2] < 1 ||
	    t[2] > MAX_PIECES || t[1] >= t[2])
		return 0; /* not one of the network's */
	uint32_t got = (uint32_t)n - TAG_BYTES, seq = quire_ld32(t + 4);
	if (got > cap - room)
		got = cap - room;
	*src = (uint32_t)from;
	if (t[2] == 1) { /* the usual case: whole, and straight into buf */
		*off = room;
		*len = got;
		return 1;
	}
	/*
	 * One piece of two: the head (at most `room` bytes), or the long tail. Between network
	 * namespaces the kernel can swap datagrams (and a whole one from the same sender can
	 * come between two pieces), so each piece waits for its partner, the other piece of the
	 * next or previous number, in one of PARTS places per sender; a new piece takes the
	 * place of the oldest when all are taken. In the usual order (head, then tail) only the
	 * short head is copied: it is put just before the tail, which stays where it landed.
	 */
	uint32_t piece = t[1], want = piece == 0 ? seq + 1 : seq - 1;
	if (got > PIECE_BYTES || (piece == 0 && got > room))
		return 0;
	struct part *pp = c->from[from];
	if (!pp && !(pp = c->from[from] = calloc(PARTS, sizeof(*pp))))
		return 0; /* no memory: lost, and sent again */
	struct part *slot = NULL;
	for (uint32_t i = 0; i < PARTS; i++) {
		struct part *q = &pp[i];
		if (q->len && q->piece != piece && q->seq == want) {
			if (piece == 1) { /* the head came first */
				memcpy(at - q->len, q->bytes, q->len);
				*off = room - q->len;
				*len = q->len + got;
			} else { /* the tail came first */
				uint32_t tail =
				    q->len < cap - room - got ? q->len : cap - room - got;
				memcpy(at + got, q->bytes, tail);
				*off = room;
				*len = got + tail;
			}
			q->len = 0;
			return 1;
		}
		if (!q->len) { /* a free place, else the oldest piece's */
			if (!slot || slot->len)
				slot = q;
		} else if (!slot || (slot->len && (int32_t)(q->seq - slot->seq) < 0)) {
			slot = q;
		}
	}
	memcpy(slot->bytes, at, got);
	slot->len = got;
	slot->seq = seq;
	slot->piece = (uint8_t)piece;
	return 0;
}
