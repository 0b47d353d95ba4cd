// SPDX-License-Identifier: MIT
/*
 * quire bench faults: the wire between the campaign's cards, a process that passes every
 * datagram of the simulated network on and puts the campaign's faults on one collective's
 * frames. Each card has a network directory of its own (<net>/n<i>); in it the wire binds
 * the sockets the card takes for its peers (port-<j> and link-<j>, the frames and the
 * link's ACKs and NACKs, sim/wire.h's names), and passes what arrives there on to card j's
 * own sockets in <net>/n<j>, from sockets named after card i there, so that card j sees it
 * come from i as on a shared directory. The faults are chosen by what the frames say (the
 * communicator, the collective's number, the sender), never by time: a seeded campaign
 * loses, damages, doubles, swaps, holds or forges the same frames whatever the machine's
 * speed. It also says when a collective is first on a card's wire: the campaign's cue to
 * freeze or kill something with that collective in flight.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_faults.h"
#include "quire/frame.h"

#define DGRAM_MAX                                                                                  \
	(QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES + QUIRE_FRAME_HDR_BYTES +                     \
	 QUIRE_FRAME_MAX_PAYLOAD)
#define QUEUE_MAX  4096 /* datagrams held (delayed, swapped, or waiting for room) */
#define REORDER_MS 50   /* a swapped frame with no frame after it goes on after this */

/* A datagram on its way: from socket fd to address to, not before `at`. */
struct held {
	int fd;
	struct sockaddr_un to;
	double at;
	int after; /* REORDER: goes once another datagram of fd went (or at `at`) */
	uint8_t *data;
	size_t len;
};

struct wire {
	const char *net;
	int cards, ctl;
	int port[FAULTS_CARDS][FAULTS_CARDS][2]; /* [seen by i][named j][chan]: bound in n<i> */
	int foreign[FAULTS_CARDS][2];            /* the forger's port in each n<j> */
	struct faults_wire_msg arm;
	int armed, noticed, forged;
	uint32_t done;
	struct held q[QUEUE_MAX];
	int nq;
	struct faults_wire_stats st;
	uint8_t buf[DGRAM_MAX], forged_buf[DGRAM_MAX];
};

static const char *const chan_name[2] = {"port", "link"};

static int sock_path(struct sockaddr_un *sa, const char *net, int dir, int chan, unsigned addr)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	int n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/n%d/%s-%u", net, dir,
			 chan_name[chan], addr);
	return n > 0 && (size_t)n < sizeof(sa->sun_path) ? 0 : -1;
}

static int bind_sock(const char *net, int dir, int chan, unsigned addr)
{
	struct sockaddr_un sa;
	if (sock_path(&sa, net, dir, chan, addr))
		return -1;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int big = 4 << 20;
	if (fd >= 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (fd >= 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "quire: bench faults: wire: cannot bind %s: %s\n", sa.sun_path,
			strerror(errno));
		close(fd);
		fd = -1;
	}
	return fd;
}

static void unbind(const char *net, int dir, int chan, unsigned addr, int fd)
{
	struct sockaddr_un sa;
	if (fd < 0)
		return;
	close(fd);
	if (!sock_path(&sa, net, dir, chan, addr))
		unlink(sa.sun_path);
}

static int hold(struct wire *w, int fd, const struct sockaddr_un *to, const uint8_t *d, size_t len,
		double at, int after)
{
	if (w->nq == QUEUE_MAX || !(w->q[w->nq].data = malloc(len))) {
		w->st.overflow++;
		return -1;
	}
	struct held *h = &w->q[w->nq++];
	memcpy(h->data, d, len);
	h->fd = fd;
	h->to = *to;
	h->len = len;
	h->at = at;
	h->after = after;
	return 0;
}

/* Sends now, or holds it until there is room (a full receiver pushes back). A card that is
 * not there (killed, not yet started) loses it, as a network does. */
static void send_or_hold(struct wire *w, int fd, const struct sockaddr_un *to, const uint8_t *d,
			 size_t len)
{
	if (sendto(fd, d, len, 0, (const struct sockaddr *)to, sizeof(*to)) >= 0) {
		w->st.forwarded++;
		for (int i = 0; i < w->nq; i++) /* a swapped frame goes after this one */
			if (w->q[i].after && w->q[i].fd == fd)
				w->q[i].at = 0;
		return;
	}
	if (errno == EAGAIN || errno == ENOBUFS)
		hold(w, fd, to, d, len, bench_now() + 0.001, 0);
}

/* Sends what is due; the seconds until the next is, or -1. */
static double release(struct wire *w)
{
	double now = bench_now(), next = -1;
	for (int i = 0; i < w->nq;) {
		struct held h = w->q[i];
		if (h.at > now) {
			next = next < 0 || h.at - now < next ? h.at - now : next;
			i++;
			continue;
		}
		w->q[i] = w->q[--w->nq];
		send_or_hold(w, h.fd, &h.to, h.data, h.len);
		free(h.data);
	}
	return next;
}

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Is d a DATA frame of the armed collective? */
static int of_armed(const struct wire *w, const uint8_t *d, size_t len)
{
	if (!w->armed || len < faults_link_bytes(d, len) + QUIRE_FRAME_HDR_BYTES ||
	    d[1] != QUIRE_LINK_DATA)
		return 0;
	const uint8_t *f = d + faults_link_bytes(d, len);
	return f[1] == QUIRE_FRAME_DATA &&
	       ld32(f + QUIRE_FRAME_OFF_COMM) % 65536 == w->arm.comm_id &&
	       ld32(f + QUIRE_FRAME_OFF_COLL_SEQ) == w->arm.coll_seq;
}

static void note(struct wire *w, uint32_t type, uint32_t card)
{
	struct faults_wire_note_msg m = {type, card, w->arm.coll_seq, w->done};
	if (write(w->ctl, &m, sizeof(m)) != (ssize_t)sizeof(m))
		w->armed = 0;
}

/* A datagram from card src to card dst on channel chan: the fault, then on its way. */
static void pass(struct wire *w, int src, int dst, int chan, uint8_t *d, size_t len)
{
	struct sockaddr_un to;
	int fd = w->port[dst][src][chan];
	if (sock_path(&to, w->net, dst, chan, (unsigned)dst))
		return;
	if (chan != 0 || !of_armed(w, d, len)) {
		send_or_hold(w, fd, &to, d, len);
		return;
	}
	if (!w->noticed && ((uint32_t)src == w->arm.card || (uint32_t)dst == w->arm.card)) {
		w->noticed = 1;
		note(w, NOTE_IN_FLIGHT, w->arm.card);
	}
	if ((uint32_t)src != w->arm.card || w->done >= w->arm.frames) {
		send_or_hold(w, fd, &to, d, len);
		return;
	}
	uint64_t draw = w->arm.seed ^ (uint64_t)w->done * 0x9e3779b97f4a7c15ull;
	w->done++;
	switch (w->arm.kind) {
	case FAULT_LOST:
		w->st.lost++;
		return;
	case FAULT_CORRUPT: /* one bit, past the link header and tag: the frame's CRC fails */
		d[faults_link_bytes(d, len) + draw % (len - faults_link_bytes(d, len))] ^=
		    (uint8_t)(1u << (draw >> 32) % 8);
		w->st.corrupted++;
		send_or_hold(w, fd, &to, d, len);
		return;
	case FAULT_DUPLICATE:
		w->st.duplicated++;
		send_or_hold(w, fd, &to, d, len);
		send_or_hold(w, fd, &to, d, len);
		return;
	case FAULT_REORDER:
		w->st.reordered++;
		hold(w, fd, &to, d, len, bench_now() + REORDER_MS / 1000.0, 1);
		return;
	case FAULT_DELAY:
		w->st.delayed++;
		hold(w, fd, &to, d, len, bench_now() + w->arm.delay_ms / 1000.0, 0);
		return;
	case FAULT_FORGED: { /* the forger's copy first, from its own port, then the real one */
		size_t n = faults_forge(d, len, draw, w->forged_buf, sizeof(w->forged_buf));
		if (n) {
			w->st.forged++;
			send_or_hold(w, w->foreign[dst][0], &to, w->forged_buf, n);
			note(w, NOTE_FORGED_SENT, (uint32_t)dst);
		}
		send_or_hold(w, fd, &to, d, len);
		return;
	}
	default:
		send_or_hold(w, fd, &to, d, len);
	}
}

static void drain(struct wire *w, int src, int dst, int chan)
{
	for (int k = 0; k < 64; k++) {
		ssize_t n = recv(w->port[src][dst][chan], w->buf, sizeof(w->buf), MSG_DONTWAIT);
		if (n < 0)
			return;
		pass(w, src, dst, chan, w->buf, (size_t)n);
	}
}

/* A message of the campaign: 0, or -1 to end. */
static int command(struct wire *w)
{
	struct faults_wire_msg m;
	ssize_t n = read(w->ctl, &m, sizeof(m));
	if (n < 0 && errno == EINTR)
		return 0;
	if (n != (ssize_t)sizeof(m) || m.type == WIRE_QUIT)
		return -1;
	if (m.type == WIRE_CARD_DOWN || m.type == WIRE_CARD_UP) {
		for (int i = 0; i < w->cards && m.card < (uint32_t)w->cards; i++)
			for (int c = 0; c < 2 && i != (int)m.card; c++) {
				int *fd = &w->port[i][m.card][c];
				for (int k = 0; k < w->nq; k++) /* held from the socket that goes */
					if (w->q[k].fd == *fd)
						w->q[k].fd = -1;
				unbind(w->net, i, c, m.card, *fd);
				*fd = m.type == WIRE_CARD_UP ? bind_sock(w->net, i, c, m.card) : -1;
			}
		if (m.type == WIRE_CARD_UP)
			note(w, NOTE_CARD_UP, m.card); /* its peers may send to it from now on */
	} else if (m.type == WIRE_ARM) {
		w->arm = m;
		w->armed = 1;
		w->noticed = 0;
		w->done = 0;
	} else {
		note(w, NOTE_DISARMED, w->arm.card); /* the frames the fault was put on */
		w->armed = 0;
	}
	return 0;
}

static int open_all(struct wire *w)
{
	for (int i = 0; i < w->cards; i++) {
		for (int c = 0; c < 2; c++) {
			w->foreign[i][c] = bind_sock(w->net, i, c, FAULTS_FOREIGN_ADDR);
			if (w->foreign[i][c] < 0)
				return -1;
			for (int j = 0; j < w->cards; j++)
				if (j != i &&
				    (w->port[i][j][c] = bind_sock(w->net, i, c, (unsigned)j)) < 0)
					return -1;
		}
	}
	return 0;
}

int faults_wire_run(const char *net, int cards, int ctl)
{
	static struct wire w0;
	struct wire *w = &w0;
	w->net = net;
	w->cards = cards;
	w->ctl = ctl;
	memset(w->port, -1, sizeof(w->port));
	memset(w->foreign, -1, sizeof(w->foreign));
	int rc = open_all(w) ? 1 : 0;
	char ready = rc ? 'x' : 'r';
	if (write(ctl, &ready, 1) != 1)
		rc = 1;
	struct pollfd pf[1 + FAULTS_CARDS * FAULTS_CARDS * 2 + FAULTS_CARDS];
	int who[sizeof(pf) / sizeof(pf[0])][3];
	while (!rc) {
		int n = 0;
		pf[n++] = (struct pollfd){ctl, POLLIN, 0};
		for (int i = 0; i < cards; i++)
			for (int j = 0; j < cards; j++)
				for (int c = 0; j != i && c < 2; c++) {
					who[n][0] = i, who[n][1] = j, who[n][2] = c;
					pf[n++] = (struct pollfd){w->port[i][j][c], POLLIN, 0};
				}
		int first_foreign = n;
		for (int i = 0; i < cards; i++) /* the link's answers to the forger */
			pf[n++] = (struct pollfd){w->foreign[i][1], POLLIN, 0};
		double next = release(w);
		int ms = next < 0 ? 100 : (int)(next * 1000) + 1;
		if (poll(pf, (nfds_t)n, ms) < 0 && errno != EINTR)
			break;
		if (pf[0].revents && command(w))
			break;
		for (int k = 1; k < first_foreign; k++)
			if (pf[k].revents & POLLIN)
				drain(w, who[k][0], who[k][1], who[k][2]);
		for (int k = first_foreign; k < n; k++)
			if (pf[k].revents & POLLIN)
				while (recv(pf[k].fd, w->buf, sizeof(w->buf), MSG_DONTWAIT) >= 0)
					w->st.forged_answered++;
	}
	for (int i = 0; i < w->nq; i++)
		free(w->q[i].data);
	if (write(ctl, &w->st, sizeof(w->st)) != (ssize_t)sizeof(w->st))
		rc = 1;
	for (int i = 0; i < cards; i++)
		for (int c = 0; c < 2; c++) {
			unbind(net, i, c, FAULTS_FOREIGN_ADDR, w->foreign[i][c]);
			for (int j = 0; j < cards; j++)
				if (j != i)
					unbind(net, i, c, (unsigned)j, w->port[i][j][c]);
		}
	return rc;
}
