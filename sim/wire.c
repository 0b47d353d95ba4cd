// SPDX-License-Identifier: MIT
/*
 * The simulated network's wire (wire.h): a port's two channels as Unix datagram sockets
 * in the network's directory, <dir>/port-A for frames and <dir>/link-A for the link's
 * ACKs and NACKs, or, for a network named "udp:...", the UDP wire of wire_udp.c; and the
 * faults a test injects into every datagram on the way out. The faults are drawn from a
 * hash of (seed, ports, kind, number, attempt), not from a shared generator, so a seeded
 * run loses the same datagrams whatever the threads do.
 */
#include "sim/wire.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "quire/status.h"
#include "sim/wire_udp.h"

struct quire_wire {
	int fd[2];                  /* the channels' sockets (the UDP wire's, if udp) */
	struct quire_wire_udp *udp; /* the UDP wire, else Unix sockets in dir */
	struct sockaddr_un self[2];
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint16_t addr;
	double drop, corrupt;
	uint64_t seed;
	uint8_t damaged[QUIRE_WIRE_DATAGRAM_MAX]; /* a damaged copy on its way out */
};

static const char *const chan_name[2] = {"port", "link"};

static int port_path(struct sockaddr_un *sa, const char *dir, const char *kind, uint32_t addr)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	int n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s-%u", dir, kind, addr);
	return n > 0 && (size_t)n < sizeof(sa->sun_path) ? 0 : -1;
}

/* The source of a Unix datagram, from its socket's name (dir/port-N): known even when its
 * header is damaged. */
static int rx_source(const struct sockaddr_un *from, socklen_t len, uint32_t *src)
{
	if (len <= (socklen_t)offsetof(struct sockaddr_un, sun_path))
		return -1;
	const char *slash = strrchr(from->sun_path, '/');
	unsigned v;
	char tail;
	if (!slash || sscanf(slash + 1, "port-%u%c", &v, &tail) != 1 || v > 0xffffu)
		return -1;
	*src = v;
	return 0;
}

static int bind_at(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int sndbuf = 1 << 20;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	unlink(sa->sun_path); /* a port of an earlier run that did not clean up */
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Binds the port's two channels: UDP sockets for a network named "udp:...", else Unix
 * sockets in the directory. */
static int bind_channels(struct quire_wire *w, const struct quire_netport_config *cfg,
			 const struct quire_job_key *key)
{
	if (quire_wire_udp_is(cfg->dir)) {
		int st = quire_wire_udp_open(cfg->dir, cfg->addr, key, &w->udp);
		if (st == QUIRE_OK)
			for (int c = 0; c < 2; c++)
				w->fd[c] = quire_wire_udp_fd(w->udp, (enum quire_wire_chan)c);
		return st;
	}
	snprintf(w->dir, sizeof(w->dir), "%s", cfg->dir);
	for (int c = 0; c < 2; c++)
		if (port_path(&w->self[c], cfg->dir, chan_name[c], cfg->addr))
			return QUIRE_ERR_RANGE; /* the directory's name is too long for a socket */
	w->fd[QUIRE_WIRE_FRAMES] = bind_at(&w->self[QUIRE_WIRE_FRAMES]);
	if (w->fd[QUIRE_WIRE_FRAMES] < 0)
		return errno == ENOENT || errno == EACCES ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO;
	w->fd[QUIRE_WIRE_LINK] = bind_at(&w->self[QUIRE_WIRE_LINK]);
	return w->fd[QUIRE_WIRE_LINK] < 0 ? QUIRE_ERR_IO : QUIRE_OK;
}

int quire_wire_open(const struct quire_netport_config *cfg, const struct quire_job_key *key,
		    struct quire_wire **out)
{
	*out = NULL;
	struct quire_wire *w = calloc(1, sizeof(*w));
	if (!w)
		return QUIRE_ERR_NOMEM;
	w->fd[0] = w->fd[1] = -1;
	w->addr = cfg->addr;
	w->drop = cfg->drop;
	w->corrupt = cfg->corrupt;
	w->seed = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ull;
	int st = bind_channels(w, cfg, key);
	if (st != QUIRE_OK) {
		quire_wire_close(w);
		return st;
	}
	*out = w;
	return QUIRE_OK;
}

void quire_wire_close(struct quire_wire *w)
{
	if (!w)
		return;
	if (w->udp) {
		quire_wire_udp_close(w->udp);
	} else {
		for (int c = 0; c < 2; c++)
			if (w->fd[c] >= 0) {
				close(w->fd[c]);
				unlink(w->self[c].sun_path);
			}
	}
	free(w);
}

int quire_wire_run(const struct quire_wire *w, uint8_t run[QUIRE_JOB_RUN_BYTES])
{
	return w->udp ? quire_wire_udp_run(w->udp, run) : 0;
}

int quire_wire_fd(const struct quire_wire *w, enum quire_wire_chan ch)
{
	return w->fd[ch];
}

uint64_t quire_wire_hash(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double unit(uint64_t h)
{
	return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* What the faults do to one datagram of len bytes to peer: lose it, flip bit *bit of it, or
 * nothing. A hash of everything that names this transmission, so the same one meets the
 * same fate in every run. */
static enum quire_wire_fate fault(const struct quire_wire *w, uint32_t peer,
				  const struct quire_wire_name *n, uint32_t len, uint32_t *bit)
{
	if (w->drop <= 0 && w->corrupt <= 0)
		return QUIRE_WIRE_SENT;
	uint64_t h = quire_wire_hash(
	    w->seed ^
	    quire_wire_hash((uint64_t)w->addr | (uint64_t)peer << 16 | (uint64_t)n->kind << 32) ^
	    quire_wire_hash((uint64_t)n->seq | (uint64_t)n->attempt << 32));
	if (w->drop > 0 && unit(h) < w->drop)
		return QUIRE_WIRE_LOST;
	h = quire_wire_hash(h);
	if (w->corrupt > 0 && unit(h) < w->corrupt) {
		*bit = (uint32_t)(quire_wire_hash(h) % (8ull * len));
		return QUIRE_WIRE_DAMAGED;
	}
	return QUIRE_WIRE_SENT;
}

/* One datagram, the iovecs' bytes, to channel ch of address dst, as it goes. */
static int carry(struct quire_wire *w, enum quire_wire_chan ch, uint32_t dst, struct iovec *iov,
		 int n_iov)
{
	if (w->udp)
		return quire_wire_udp_send(w->udp, ch, dst, iov, n_iov);
	struct sockaddr_un to;
	if (port_path(&to, w->dir, chan_name[ch], dst))
		return QUIRE_ERR_RANGE;
	size_t len = 0;
	for (int i = 0; i < n_iov; i++)
		len += iov[i].iov_len;
	struct msghdr m = {.msg_name = &to,
			   .msg_namelen = sizeof(to),
			   .msg_iov = iov,
			   .msg_iovlen = (size_t)n_iov};
	if (sendmsg(w->fd[ch], &m, MSG_DONTWAIT) == (ssize_t)len)
		return QUIRE_OK;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return QUIRE_ERR_BUSY;
	if (errno == ECONNREFUSED || errno == ENOENT)
		return QUIRE_ERR_NO_DEVICE;
	return QUIRE_ERR_IO;
}

int quire_wire_send(struct quire_wire *w, enum quire_wire_chan ch, uint32_t dst, const uint8_t *hdr,
		    uint32_t hdr_len, const uint8_t *body, uint32_t body_len,
		    const struct quire_wire_name *name, enum quire_wire_fate *fate)
{
	uint32_t len = hdr_len + body_len, bit = 0;
	if (len > QUIRE_WIRE_DATAGRAM_MAX)
		return QUIRE_ERR_RANGE;
	*fate = fault(w, dst, name, len, &bit);
	if (*fate == QUIRE_WIRE_LOST)
		return QUIRE_OK;
	uint8_t small[64];
	struct iovec iov[2] = {{(void *)hdr, hdr_len}, {(void *)body, body_len}};
	int n_iov = body_len ? 2 : 1;
	if (*fate == QUIRE_WIRE_DAMAGED) { /* damage a copy: what the caller keeps stays whole */
		uint8_t *c = len <= sizeof(small) ? small : w->damaged;
		memcpy(c, hdr, hdr_len);
		if (body_len)
			memcpy(c + hdr_len, body, body_len);
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		iov[0].iov_base = c;
		iov[0].iov_len = len;
		n_iov = 1;
	}
	return carry(w, ch, dst, iov, n_iov);
}

int quire_wire_recv(struct quire_wire *w, enum quire_wire_chan ch, uint8_t *buf, uint32_t cap,
		    const uint8_t **data, uint32_t *len, int64_t *src)
{
	*src = -1;
	if (w->udp) {
		uint32_t s, off;
		int r = quire_wire_udp_recv(w->udp, ch, buf, cap, &off, len, &s);
		if (r == 1) {
			*src = s;
			*data = buf + off;
		}
		return r;
	}
	struct sockaddr_un from;
	socklen_t from_len = sizeof(from);
	buf += QUIRE_WIRE_HEADROOM;
	ssize_t n = recvfrom(w->fd[ch], buf, cap - QUIRE_WIRE_HEADROOM, MSG_DONTWAIT,
			     (struct sockaddr *)&from, &from_len);
	if (n < 0)
		return -1;
	uint32_t s;
	if (!rx_source(&from, from_len, &s))
		*src = s;
	*data = buf;
	*len = (uint32_t)n;
	return 1;
}
