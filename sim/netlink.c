// SPDX-License-Identifier: MIT
/*
 * The simulated network's wire (netlink.h): Unix datagram sockets in a
 * directory, one per port, or UDP sockets (netudp.c, a network named "udp:..."),
 * a receive thread per port, and the faults a test injects on the sending side,
 * above either transport.
 */
#include "sim/netlink.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <zlib.h>

#include "quire/status.h"
#include "sim/netudp.h"

struct quire_net_link {
	int fd, stop_pipe[2];
	struct quire_net_udp *udp; /* the UDP transport (fd is its socket), else Unix sockets */
	pthread_t rx_thread;
	int have_thread;
	struct quire_net_rx_ops rx;
	void *ctx;
	struct sockaddr_un self;
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	double drop, corrupt;
	uint64_t rng;
	uint8_t buf[QUIRE_NET_FRAME_MAX + 1];
};

static int port_path(struct sockaddr_un *sa, const char *dir, uint32_t addr)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	int n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/port-%u", dir, addr);
	return n > 0 && (size_t)n < sizeof(sa->sun_path) ? 0 : -1;
}

uint32_t quire_net_frame_crc(const uint8_t *f, uint32_t len)
{
	static const uint8_t zero[4];
	uLong crc = crc32(0, f, QUIRE_FRAME_OFF_CRC);
	crc = crc32(crc, zero, 4);
	return (uint32_t)crc32(crc, f + QUIRE_FRAME_HDR_BYTES, len - QUIRE_FRAME_HDR_BYTES);
}

/* xorshift64*: a fixed generator, so a seeded fault run repeats. */
static double uniform(struct quire_net_link *l)
{
	l->rng ^= l->rng >> 12;
	l->rng ^= l->rng << 25;
	l->rng ^= l->rng >> 27;
	return (double)((l->rng * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

int quire_net_link_send(struct quire_net_link *l, uint32_t dst, uint8_t *f, uint32_t len,
			int *nobody)
{
	*nobody = 0;
	struct sockaddr_un sa;
	if (!l->udp && port_path(&sa, l->dir, dst))
		return QUIRE_ERR_RANGE;
	if (l->drop > 0 && uniform(l) < l->drop)
		return QUIRE_OK; /* sent, and lost on the way */
	if (l->corrupt > 0 && uniform(l) < l->corrupt) {
		uint32_t bit = (uint32_t)(uniform(l) * 8.0 * len);
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	if (l->udp)
		return quire_net_udp_send(l->udp, dst, f, len);
	if (sendto(l->fd, f, len, MSG_DONTWAIT, (struct sockaddr *)&sa, sizeof(sa)) == (ssize_t)len)
		return QUIRE_OK;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return QUIRE_ERR_BUSY; /* the peer's buffer is full: the firmware tries again */
	if (errno == ECONNREFUSED || errno == ENOENT) {
		*nobody = 1; /* no port has that address (any more): the frame is lost */
		return QUIRE_OK;
	}
	return QUIRE_ERR_IO;
}

static void *rx_main(void *arg)
{
	struct quire_net_link *l = arg;
	for (;;) {
		if (!l->rx.room(l->ctx)) /* full: the senders wait (EAGAIN) */
			return NULL;
		struct pollfd fds[2] = {{l->fd, POLLIN, 0}, {l->stop_pipe[0], POLLIN, 0}};
		int wait_ms = l->udp ? quire_net_udp_wait_ms(l->udp) : -1;
		int ready = poll(fds, 2, wait_ms);
		if (ready < 0 && errno != EINTR)
			return NULL;
		if (ready > 0 && fds[1].revents)
			return NULL;
		if (l->udp) { /* a datagram, then those that waited too long behind a late one */
			int in = ready > 0 && (fds[0].revents & POLLIN);
			if ((in &&
			     quire_net_udp_recv(l->udp, &l->rx, l->ctx, sizeof(l->buf)) != 0) ||
			    quire_net_udp_tick(l->udp, &l->rx, l->ctx, sizeof(l->buf)) != 0)
				return NULL;
			continue;
		}
		if (!(fds[0].revents & POLLIN))
			continue;
		ssize_t n = recv(l->fd, l->buf, sizeof(l->buf), MSG_DONTWAIT);
		if (n >= 0)
			l->rx.deliver(l->ctx, l->buf, (uint32_t)n);
	}
}

static int start_rx(struct quire_net_link *l, struct quire_net_link **out)
{
	if (pthread_create(&l->rx_thread, NULL, rx_main, l) != 0) {
		quire_net_link_close(l);
		return QUIRE_ERR_NOMEM;
	}
	l->have_thread = 1;
	*out = l;
	return QUIRE_OK;
}

static int open_udp(struct quire_net_link *l, const struct quire_netport_config *cfg,
		    struct quire_net_link **out)
{
	int st = quire_net_udp_open(cfg->dir, cfg->addr, &l->udp);
	if (st == QUIRE_OK && pipe2(l->stop_pipe, O_CLOEXEC) != 0)
		st = QUIRE_ERR_IO;
	if (st != QUIRE_OK) {
		quire_net_udp_close(l->udp);
		free(l);
		return st;
	}
	l->fd = quire_net_udp_fd(l->udp);
	return start_rx(l, out);
}

int quire_net_link_open(const struct quire_netport_config *cfg, const struct quire_net_rx_ops *rx,
			void *ctx, struct quire_net_link **out)
{
	*out = NULL;
	if (!cfg || !cfg->dir || !rx || cfg->drop < 0 || cfg->drop > 1 || cfg->corrupt < 0 ||
	    cfg->corrupt > 1)
		return QUIRE_ERR_INVALID;
	struct quire_net_link *l = calloc(1, sizeof(*l));
	if (!l)
		return QUIRE_ERR_NOMEM;
	l->rx = *rx;
	l->ctx = ctx;
	l->drop = cfg->drop;
	l->corrupt = cfg->corrupt;
	l->rng = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ull;
	l->stop_pipe[0] = l->stop_pipe[1] = -1;
	if (quire_net_udp_is(cfg->dir))
		return open_udp(l, cfg, out);
	snprintf(l->dir, sizeof(l->dir), "%s", cfg->dir);
	if (port_path(&l->self, cfg->dir, cfg->addr)) {
		free(l);
		return QUIRE_ERR_RANGE; /* the directory's name is too long for a socket */
	}
	l->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (l->fd < 0) {
		free(l);
		return QUIRE_ERR_IO;
	}
	int sndbuf = 1 << 20;
	(void)setsockopt(l->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	unlink(l->self.sun_path); /* a port of an earlier run that did not clean up */
	int bound = bind(l->fd, (struct sockaddr *)&l->self, sizeof(l->self)) == 0;
	if (!bound || pipe2(l->stop_pipe, O_CLOEXEC) != 0) {
		int st = errno == ENOENT || errno == EACCES ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO;
		close(l->fd);
		if (bound)
			unlink(l->self.sun_path);
		free(l);
		return st;
	}
	return start_rx(l, out);
}

void quire_net_link_close(struct quire_net_link *l)
{
	if (!l)
		return;
	if (l->have_thread) {
		(void)!write(l->stop_pipe[1], "x", 1);
		pthread_join(l->rx_thread, NULL);
	}
	close(l->stop_pipe[0]);
	close(l->stop_pipe[1]);
	if (l->udp) {
		quire_net_udp_close(l->udp);
	} else {
		close(l->fd);
		unlink(l->self.sun_path);
	}
	free(l);
}
