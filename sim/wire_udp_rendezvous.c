// SPDX-License-Identifier: MIT
/*
 * The simulated cards' UDP wire addresses from a rendezvous (wire_udp_rendezvous.h): the TCP
 * form, served by the card of address 0, and the directory form. Every wait is bounded by the
 * timeout the network's name gives. (Not libquire's host/src/comm/rendezvous.c, where the
 * ranks of a job meet: this is the cards' ports meeting before any rank runs.)
 */
#include "sim/wire_udp_rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quire/status.h"
#include "sim/clock.h"
#include "sim/le.h"

#define RETRY_MS       50u   /* between attempts to reach the rendezvous, or to read PATH */
#define REPLY_GRACE_MS 2000u /* a connected card waits this much past the timeout */
/* The longest message: a TABLE of every address. */
#define MAX_MSG                                                                                    \
	(QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_TAB_OFF_EP +                            \
	 QUIRE_WIRE_UDP_RDV_MAX_CARDS * QUIRE_WIRE_UDP_RDV_EP_BYTES)

static int fail(char *why, size_t n, int st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return st;
}

static int left_ms(int64_t deadline)
{
	int64_t t = quire_sim_mono_ms();
	return t >= deadline ? 0 : (int)(deadline - t);
}

static const char *ip_str(uint32_t ip, char buf[INET_ADDRSTRLEN])
{
	struct in_addr ia = {.s_addr = ip};
	return inet_ntop(AF_INET, &ia, buf, INET_ADDRSTRLEN) ? buf : "?";
}

/* ---- the network's name ---------------------------------------------------------------- */

int quire_wire_udp_rdv_is(const char *net)
{
	return net && (strncmp(net, "udp:rdv=", 8) == 0 || strncmp(net, "udp:dir=", 8) == 0);
}

static int number(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && !errno && *v >= lo && *v <= hi ? 0 : -1;
}

int quire_wire_udp_rdv_parse(const char *net, struct quire_wire_udp_rdv_spec *s, char *why,
			     size_t n)
{
	memset(s, 0, sizeof(*s));
	s->timeout_ms = QUIRE_WIRE_UDP_RDV_TIMEOUT_S * 1000u;
	char copy[512];
	if (!quire_wire_udp_rdv_is(net) ||
	    snprintf(copy, sizeof(copy), "%s", net + 4) >= (int)sizeof(copy))
		return fail(why, n, QUIRE_ERR_INVALID,
			    "%s is not udp:rdv=HOST:PORT,... or udp:dir=PATH,...",
			    net ? net : "(none)");
	int have_host = 0, have_timeout = 0;
	unsigned long v;
	for (char *save, *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char *val = strchr(e, '=');
		if (!val)
			return fail(why, n, QUIRE_ERR_INVALID, "%s: '%s' is not KEY=VALUE", net, e);
		*val++ = '\0';
		if (!strcmp(e, "rdv") && !s->kind) {
			char *colon = strrchr(val, ':');
			struct in_addr ia;
			if (!colon)
				return fail(why, n, QUIRE_ERR_INVALID, "%s: rdv= wants HOST:PORT",
					    net);
			*colon = '\0';
			if (inet_pton(AF_INET, val, &ia) != 1 || number(colon + 1, 1, 65535, &v))
				return fail(why, n, QUIRE_ERR_INVALID,
					    "%s: rdv= wants an IPv4 address and a TCP port 1-65535",
					    net);
			s->kind = QUIRE_WIRE_UDP_RDV_TCP;
			s->ip = ia.s_addr;
			s->port = (uint16_t)v;
		} else if (!strcmp(e, "dir") && !s->kind) {
			if (!*val ||
			    snprintf(s->dir, sizeof(s->dir), "%s", val) >= (int)sizeof(s->dir))
				return fail(why, n, QUIRE_ERR_INVALID,
					    "%s: dir= wants a path under %zu bytes", net,
					    sizeof(s->dir) - 16);
			s->kind = QUIRE_WIRE_UDP_RDV_DIR;
		} else if (!strcmp(e, "cards") && !s->cards) {
			if (number(val, 1, QUIRE_WIRE_UDP_RDV_MAX_CARDS, &v))
				return fail(why, n, QUIRE_ERR_INVALID, "%s: cards= wants 1-%u", net,
					    QUIRE_WIRE_UDP_RDV_MAX_CARDS);
			s->cards = (uint32_t)v;
		} else if (!strcmp(e, "timeout") && !have_timeout++) {
			if (number(val, 1, QUIRE_WIRE_UDP_RDV_MAX_TIMEOUT_S, &v))
				return fail(why, n, QUIRE_ERR_INVALID, "%s: timeout= wants 1-%u s",
					    net, QUIRE_WIRE_UDP_RDV_MAX_TIMEOUT_S);
			s->timeout_ms = (uint32_t)v * 1000u;
		} else if (!strcmp(e, "host") && !have_host) {
			struct in_addr ia;
			if (inet_pton(AF_INET, val, &ia) != 1)
				return fail(why, n, QUIRE_ERR_INVALID,
					    "%s: host= wants an IPv4 address", net);
			s->ip = ia.s_addr;
			have_host = 1;
		} else {
			return fail(why, n, QUIRE_ERR_INVALID, "%s: unknown or repeated '%s='", net,
				    e);
		}
	}
	if (have_host && s->kind != QUIRE_WIRE_UDP_RDV_DIR)
		return fail(why, n, QUIRE_ERR_INVALID,
			    "%s: host= is for dir= (over rdv= a card binds where its route to the "
			    "rendezvous leaves)",
			    net);
	if (s->kind == QUIRE_WIRE_UDP_RDV_DIR && !have_host)
		s->ip = htonl(INADDR_LOOPBACK);
	if (s->ip == htonl(INADDR_ANY) || s->ip == htonl(INADDR_BROADCAST))
		return fail(why, n, QUIRE_ERR_INVALID,
			    "%s: a card's address, not 0.0.0.0 or 255.255.255.255: the others send "
			    "to it",
			    net);
	if (!s->cards)
		return fail(why, n, QUIRE_ERR_INVALID, "%s: no cards=W (how many cards meet)", net);
	return QUIRE_OK;
}

/* ---- messages ---------------------------------------------------------------- */

static uint32_t put_hdr(uint8_t *m, enum quire_wire_udp_rdv_type type, uint32_t len)
{
	quire_st32(m + QUIRE_WIRE_UDP_RDV_OFF_MAGIC, QUIRE_WIRE_UDP_RDV_MAGIC);
	m[QUIRE_WIRE_UDP_RDV_OFF_VERSION] = QUIRE_WIRE_UDP_RDV_VERSION;
	m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] = (uint8_t)type;
	quire_st16(m + QUIRE_WIRE_UDP_RDV_OFF_LEN, (uint16_t)len);
	return QUIRE_WIRE_UDP_RDV_HDR_BYTES + len;
}

static void put_ep(uint8_t *p, const struct quire_wire_udp_ep *ep)
{
	memcpy(p + QUIRE_WIRE_UDP_RDV_EP_OFF_IP, &ep->ip, 4);
	quire_st16(p + QUIRE_WIRE_UDP_RDV_EP_OFF_PORT, ep->port[0]);
	quire_st16(p + QUIRE_WIRE_UDP_RDV_EP_OFF_PORT + 2, ep->port[1]);
}

static void get_ep(const uint8_t *p, struct quire_wire_udp_ep *ep)
{
	memcpy(&ep->ip, p + QUIRE_WIRE_UDP_RDV_EP_OFF_IP, 4);
	ep->port[0] = quire_ld16(p + QUIRE_WIRE_UDP_RDV_EP_OFF_PORT);
	ep->port[1] = quire_ld16(p + QUIRE_WIRE_UDP_RDV_EP_OFF_PORT + 2);
}

static uint32_t put_announce(uint8_t *m, uint16_t addr, uint32_t cards,
			     const struct quire_wire_udp_ep *ep)
{
	uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	quire_st16(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_ADDR, addr);
	quire_st16(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_CARDS, (uint16_t)cards);
	put_ep(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_EP, ep);
	return put_hdr(m, QUIRE_WIRE_UDP_RDV_ANNOUNCE, QUIRE_WIRE_UDP_RDV_ANN_BYTES);
}

/*
 * How many bytes the message at the start of m[0..have) takes: 0 while its header or body
 * is incomplete, -1 (reason in why) when what is there cannot be a message of this
 * protocol; and what follows should be of the type `want` (or an ERROR, when err_ok).
 */
static int msg_len(const uint8_t *m, uint32_t have, int want, int err_ok, char *why, size_t n)
{
	if (have < QUIRE_WIRE_UDP_RDV_HDR_BYTES)
		return 0;
	uint32_t magic = quire_ld32(m + QUIRE_WIRE_UDP_RDV_OFF_MAGIC);
	int type = m[QUIRE_WIRE_UDP_RDV_OFF_TYPE];
	uint32_t len = quire_ld16(m + QUIRE_WIRE_UDP_RDV_OFF_LEN);
	if (magic != QUIRE_WIRE_UDP_RDV_MAGIC)
		return fail(why, n, -1, "not a rendezvous message (magic 0x%08x)", magic);
	if (m[QUIRE_WIRE_UDP_RDV_OFF_VERSION] != QUIRE_WIRE_UDP_RDV_VERSION)
		return fail(why, n, -1, "rendezvous protocol version %u, this card speaks %u",
			    m[QUIRE_WIRE_UDP_RDV_OFF_VERSION], QUIRE_WIRE_UDP_RDV_VERSION);
	if (type != want && !(err_ok && type == QUIRE_WIRE_UDP_RDV_ERROR))
		return fail(why, n, -1, "a message of type %d where %d was due", type, want);
	uint32_t max = type == QUIRE_WIRE_UDP_RDV_ERROR ? QUIRE_WIRE_UDP_RDV_ERR_MAX
		       : type == QUIRE_WIRE_UDP_RDV_ANNOUNCE
			   ? QUIRE_WIRE_UDP_RDV_ANN_BYTES
			   : MAX_MSG - QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	if (len > max ||
	    (type == QUIRE_WIRE_UDP_RDV_ANNOUNCE && len != QUIRE_WIRE_UDP_RDV_ANN_BYTES))
		return fail(why, n, -1, "a message of type %d with %u bytes of body", type, len);
	return have >= QUIRE_WIRE_UDP_RDV_HDR_BYTES + len
		   ? (int)(QUIRE_WIRE_UDP_RDV_HDR_BYTES + len)
		   : 0;
}

/* An ANNOUNCE's fields, checked against the rendezvous' W. */
static int read_announce(const uint8_t *m, uint32_t cards, uint16_t *addr,
			 struct quire_wire_udp_ep *ep, char *why, size_t n)
{
	const uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	*addr = quire_ld16(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_ADDR);
	uint32_t w = quire_ld16(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_CARDS);
	get_ep(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_EP, ep);
	if (w != cards)
		return fail(why, n, QUIRE_ERR_INVALID,
			    "the card of address %u was given cards=%u, this rendezvous %u", *addr,
			    w, cards);
	if (*addr >= cards)
		return fail(why, n, QUIRE_ERR_INVALID, "address %u announced, outside 0-%u", *addr,
			    cards - 1);
	if (!ep->ip || !ep->port[0] || !ep->port[1])
		return fail(why, n, QUIRE_ERR_INVALID,
			    "the card of address %u announced no endpoint", *addr);
	return QUIRE_OK;
}

/* "addresses 2, 3" of those not in have[], at most a line of them. */
static void list_missing(const uint8_t *have, uint32_t cards, char *out, size_t n)
{
	size_t k = 0;
	out[0] = '\0';
	for (uint32_t a = 0; a < cards; a++) {
		if (have[a])
			continue;
		if (k + 16 < n)
			k += (size_t)snprintf(out + k, n - k, "%s%u", k ? ", " : "", a);
	}
	if (k + 16 >= n)
		snprintf(out + k, n - k, ", ...");
}

static uint32_t count(const uint8_t *have, uint32_t cards)
{
	uint32_t c = 0;
	for (uint32_t a = 0; a < cards; a++)
		c += have[a] != 0;
	return c;
}

/* ---- over TCP: the card of address 0 serves ------------------------------------------ */

struct client {
	int fd;
	uint32_t have;
	uint8_t buf[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_BYTES];
	char from[INET_ADDRSTRLEN + 8];
};

/* Sends all of m, bounded by the deadline; 0 when sent. */
static int send_all(int fd, const uint8_t *m, uint32_t len, int64_t deadline)
{
	for (uint32_t off = 0; off < len;) {
		ssize_t k = send(fd, m + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k > 0) {
			off += (uint32_t)k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		if (poll(&p, 1, left_ms(deadline)) <= 0)
			return -1;
	}
	return 0;
}

/* The ERROR message with text `why`, to every client still connected. */
static void tell_all(struct client *c, uint32_t n_c, const char *why)
{
	uint8_t m[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ERR_MAX];
	uint32_t len = (uint32_t)strnlen(why, QUIRE_WIRE_UDP_RDV_ERR_MAX);
	memcpy(m + QUIRE_WIRE_UDP_RDV_HDR_BYTES, why, len);
	len = put_hdr(m, QUIRE_WIRE_UDP_RDV_ERROR, len);
	for (uint32_t i = 0; i < n_c; i++)
		if (c[i].fd >= 0)
			(void)send_all(c[i].fd, m, len, quire_sim_mono_ms() + 200);
}

static int serve(const struct quire_wire_udp_rdv_spec *s, quire_wire_udp_rdv_bind_fn bind_fn,
		 void *ctx, struct quire_wire_udp_ep *table, char *why, size_t n)
{
	char ip[INET_ADDRSTRLEN];
	int64_t deadline = quire_sim_mono_ms() + s->timeout_ms;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(s->port)};
	sa.sin_addr.s_addr = s->ip;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;
	if (lfd < 0)
		return fail(why, n, QUIRE_ERR_IO, "socket: %s", strerror(errno));
	(void)setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 64) != 0) {
		int e = errno;
		close(lfd);
		return fail(why, n, e == EADDRNOTAVAIL ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO,
			    "cannot serve the rendezvous on %s:%u: %s%s", ip_str(s->ip, ip),
			    s->port, strerror(e),
			    e == EADDRNOTAVAIL
				? " (the card of address 0 serves it: rdv= names its "
				  "host)"
				: "");
	}
	int st = bind_fn(ctx, s->ip, table[0].port);
	if (st != QUIRE_OK) {
		close(lfd);
		return fail(why, n, st, "cannot bind the UDP channels on %s", ip_str(s->ip, ip));
	}
	table[0].ip = s->ip;
	uint8_t have[QUIRE_WIRE_UDP_RDV_MAX_CARDS] = {1};
	/* Strangers may connect too: room for each card and as many more. */
	uint32_t max_c = 2 * s->cards, n_c = 0;
	struct client *c = calloc(max_c, sizeof(*c));
	struct pollfd *p = calloc(max_c + 1, sizeof(*p));
	if (!c || !p) {
		free(c);
		free(p);
		close(lfd);
		return fail(why, n, QUIRE_ERR_NOMEM, "no memory");
	}
	st = QUIRE_OK;
	while (st == QUIRE_OK && count(have, s->cards) < s->cards) {
		int wait = left_ms(deadline);
		if (!wait) {
			char miss[256];
			list_missing(have, s->cards, miss, sizeof(miss));
			st = fail(why, n, QUIRE_ERR_TIMEOUT,
				  "rendezvous %s:%u: after %u s, %u of %u cards have not come: "
				  "address%s %s",
				  ip_str(s->ip, ip), s->port, s->timeout_ms / 1000,
				  s->cards - count(have, s->cards), s->cards,
				  s->cards - count(have, s->cards) > 1 ? "es" : "", miss);
			break;
		}
		p[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
		for (uint32_t i = 0; i < n_c; i++)
			p[1 + i] = (struct pollfd){.fd = c[i].fd, .events = POLLIN};
		int r = poll(p, 1 + n_c, wait);
		if (r < 0) {
			st = fail(why, n, QUIRE_ERR_IO, "rendezvous %s:%u: %s", ip_str(s->ip, ip),
				  s->port, errno == EINTR ? "interrupted" : strerror(errno));
			break;
		}
		for (uint32_t i = 0; i < n_c && st == QUIRE_OK; i++) {
			if (!p[1 + i].revents || c[i].fd < 0)
				continue;
			ssize_t k = recv(c[i].fd, c[i].buf + c[i].have,
					 sizeof(c[i].buf) - c[i].have, MSG_DONTWAIT);
			if (k <= 0) {
				if (k < 0 && (errno == EAGAIN || errno == EINTR))
					continue;
				/* Gone before (or after) announcing: a card that died is missed at
				 * the timeout, named by its address. */
				close(c[i].fd);
				c[i].fd = -1;
				continue;
			}
			c[i].have += (uint32_t)k;
			char bad[256];
			int len = msg_len(c[i].buf, c[i].have, QUIRE_WIRE_UDP_RDV_ANNOUNCE, 0, bad,
					  sizeof(bad));
			if (len < 0) {
				st = fail(why, n, QUIRE_ERR_INVALID,
					  "rendezvous %s:%u: a malformed announcement from %s: %s",
					  ip_str(s->ip, ip), s->port, c[i].from, bad);
				break;
			}
			if (len == 0)
				continue;
			uint16_t a;
			struct quire_wire_udp_ep ep;
			if (read_announce(c[i].buf, s->cards, &a, &ep, bad, sizeof(bad)) !=
			    QUIRE_OK) {
				st =
				    fail(why, n, QUIRE_ERR_INVALID, "rendezvous %s:%u: from %s: %s",
					 ip_str(s->ip, ip), s->port, c[i].from, bad);
				break;
			}
			if (have[a]) {
				st =
				    fail(why, n, QUIRE_ERR_INVALID,
					 "rendezvous %s:%u: address %u announced twice (again from "
					 "%s)",
					 ip_str(s->ip, ip), s->port, a, c[i].from);
				break;
			}
			have[a] = 1;
			table[a] = ep;
		}
		if (st == QUIRE_OK && (p[0].revents & POLLIN)) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			int fd = accept4(lfd, (struct sockaddr *)&from, &fl,
					 SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0 && n_c == max_c) {
				close(fd);
				st = fail(why, n, QUIRE_ERR_INVALID,
					  "rendezvous %s:%u: more than %u connections for %u cards",
					  ip_str(s->ip, ip), s->port, max_c, s->cards);
			} else if (fd >= 0) {
				char fip[INET_ADDRSTRLEN];
				c[n_c].fd = fd;
				snprintf(c[n_c].from, sizeof(c[n_c].from), "%s:%u",
					 ip_str(from.sin_addr.s_addr, fip), ntohs(from.sin_port));
				n_c++;
			}
		}
	}
	close(lfd);
	if (st != QUIRE_OK) {
		tell_all(c, n_c, why);
	} else {
		uint8_t m[MAX_MSG];
		uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
		quire_st16(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_CARDS, (uint16_t)s->cards);
		quire_st16(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_CARDS + 2, 0);
		for (uint32_t a = 0; a < s->cards; a++)
			put_ep(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + a * QUIRE_WIRE_UDP_RDV_EP_BYTES,
			       &table[a]);
		uint32_t len =
		    put_hdr(m, QUIRE_WIRE_UDP_RDV_TABLE,
			    QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + s->cards * QUIRE_WIRE_UDP_RDV_EP_BYTES);
		/* A card that left after announcing misses the table and fails on its own. */
		for (uint32_t i = 0; i < n_c; i++)
			if (c[i].fd >= 0)
				(void)send_all(c[i].fd, m, len,
					       quire_sim_mono_ms() + REPLY_GRACE_MS);
	}
	for (uint32_t i = 0; i < n_c; i++)
		if (c[i].fd >= 0) {
			shutdown(c[i].fd, SHUT_WR);
			close(c[i].fd);
		}
	free(c);
	free(p);
	return st;
}

/* Connects to the rendezvous, trying again until the deadline; the socket, or -1. */
static int reach(const struct quire_wire_udp_rdv_spec *s, int64_t deadline, char *why, size_t n)
{
	char ip[INET_ADDRSTRLEN];
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(s->port)};
	sa.sin_addr.s_addr = s->ip;
	int last = 0;
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return fail(why, n, -1, "socket: %s", strerror(errno));
		int r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		if (r != 0 && errno == EINPROGRESS) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			int e = ETIMEDOUT, k = poll(&p, 1, left_ms(deadline));
			socklen_t el = sizeof(e);
			if (k < 0)
				e = errno;
			else if (k == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
				e = errno;
			r = e ? -1 : 0;
			errno = e;
		}
		if (r == 0)
			return fd;
		last = errno;
		close(fd);
		if (last == EINTR || left_ms(deadline) <= (int)RETRY_MS)
			break;
		if (usleep(RETRY_MS * 1000u) != 0 && errno == EINTR) {
			last = EINTR;
			break;
		}
	}
	return fail(why, n, -1,
		    "no rendezvous at %s:%u within %u s (%s): does the card of address 0 run "
		    "there?",
		    ip_str(s->ip, ip), s->port, s->timeout_ms / 1000,
		    last == EINTR ? "interrupted" : strerror(last));
}

/* Reads one whole message of type want (or ERROR) into m; its length, or -1 with why. */
static int read_msg(int fd, uint8_t *m, int want, int64_t deadline, const char *who, char *why,
		    size_t n, int *st)
{
	uint32_t have = 0;
	for (;;) {
		char bad[256];
		int len = msg_len(m, have, want, 1, bad, sizeof(bad));
		if (len > 0)
			return len;
		if (len < 0) {
			*st = QUIRE_ERR_INVALID;
			return fail(why, n, -1, "%s sent a malformed reply: %s", who, bad);
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, left_ms(deadline));
		if (r == 0 || (r < 0 && errno == EINTR)) {
			*st = r == 0 ? QUIRE_ERR_TIMEOUT : QUIRE_ERR_IO;
			return fail(why, n, -1, "%s: no table %s", who,
				    r == 0 ? "within its timeout and 2 s more" : "(interrupted)");
		}
		ssize_t k = r > 0 ? recv(fd, m + have, MAX_MSG - have, MSG_DONTWAIT) : -1;
		if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) {
			*st = QUIRE_ERR_PEER;
			return fail(
			    why, n, -1,
			    "%s closed the connection before sending the table (did the card "
			    "of address 0 stop?)",
			    who);
		}
		if (k > 0)
			have += (uint32_t)k;
	}
}

static int join_rdv(const struct quire_wire_udp_rdv_spec *s, uint16_t addr,
		    quire_wire_udp_rdv_bind_fn bind_fn, void *ctx, struct quire_wire_udp_ep *table,
		    char *why, size_t n)
{
	if (addr == 0)
		return serve(s, bind_fn, ctx, table, why, n);
	char ip[INET_ADDRSTRLEN], who[64];
	snprintf(who, sizeof(who), "the rendezvous at %s:%u", ip_str(s->ip, ip), s->port);
	int fd = reach(s, quire_sim_mono_ms() + s->timeout_ms, why, n);
	if (fd < 0)
		return QUIRE_ERR_TIMEOUT;
	int64_t deadline = quire_sim_mono_ms() + s->timeout_ms + REPLY_GRACE_MS;
	/* Bind where this connection left from: the interface of the route to the rendezvous. */
	struct sockaddr_in self;
	socklen_t sl = sizeof(self);
	struct quire_wire_udp_ep ep = {0};
	int st = getsockname(fd, (struct sockaddr *)&self, &sl) == 0 ? QUIRE_OK : QUIRE_ERR_IO;
	if (st == QUIRE_OK) {
		ep.ip = self.sin_addr.s_addr;
		st = bind_fn(ctx, ep.ip, ep.port);
	}
	if (st != QUIRE_OK) {
		close(fd);
		return fail(why, n, st, "cannot bind the UDP channels on %s", ip_str(ep.ip, ip));
	}
	uint8_t m[MAX_MSG];
	uint32_t len = put_announce(m, addr, s->cards, &ep);
	if (send_all(fd, m, len, deadline) != 0) {
		close(fd);
		return fail(why, n, QUIRE_ERR_PEER, "%s: cannot announce: %s", who,
			    strerror(errno));
	}
	int got = read_msg(fd, m, QUIRE_WIRE_UDP_RDV_TABLE, deadline, who, why, n, &st);
	close(fd);
	if (got < 0)
		return st;
	const uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	uint32_t body = (uint32_t)got - QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	if (m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] == QUIRE_WIRE_UDP_RDV_ERROR)
		return fail(why, n, QUIRE_ERR_PEER, "%s failed: %.*s", who, (int)body,
			    (const char *)b);
	uint32_t w = body >= 4 ? quire_ld16(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_CARDS) : 0;
	if (w != s->cards ||
	    body != QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + w * QUIRE_WIRE_UDP_RDV_EP_BYTES)
		return fail(why, n, QUIRE_ERR_INVALID,
			    "%s sent a table of %u cards in %u bytes; this card was given cards=%u",
			    who, w, body, s->cards);
	for (uint32_t a = 0; a < w; a++)
		get_ep(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + a * QUIRE_WIRE_UDP_RDV_EP_BYTES,
		       &table[a]);
	if (memcmp(&table[addr], &ep, sizeof(ep)) != 0)
		return fail(why, n, QUIRE_ERR_INVALID,
			    "%s sent a table whose entry %u is not what this card announced", who,
			    addr);
	return QUIRE_OK;
}

/* ---- in a directory -------------------------------------------------------------- */

static int join_dir(const struct quire_wire_udp_rdv_spec *s, uint16_t addr,
		    quire_wire_udp_rdv_bind_fn bind_fn, void *ctx, struct quire_wire_udp_ep *table,
		    char *why, size_t n)
{
	char ip[INET_ADDRSTRLEN], path[320], tmp[340];
	int64_t deadline = quire_sim_mono_ms() + s->timeout_ms;
	struct quire_wire_udp_ep ep = {.ip = s->ip};
	int st = bind_fn(ctx, ep.ip, ep.port);
	if (st != QUIRE_OK)
		return fail(why, n, st, "cannot bind the UDP channels on %s", ip_str(ep.ip, ip));
	uint8_t m[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_BYTES];
	uint32_t len = put_announce(m, addr, s->cards, &ep);
	/* Written aside, then linked in: a reader sees the whole file or none, and link()
	 * refuses a name that exists: the address is someone else's. */
	snprintf(path, sizeof(path), "%s/udp-%u", s->dir, addr);
	snprintf(tmp, sizeof(tmp), "%s/.udp-%u.%ld", s->dir, addr, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(why, n, errno == ENOENT ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO,
			    "rendezvous in %s: %s", s->dir, strerror(errno));
	int ok = write(fd, m, len) == (ssize_t)len;
	close(fd);
	int linked = ok && link(tmp, path) == 0, e = errno;
	unlink(tmp);
	if (!linked)
		return fail(why, n, e == EEXIST ? QUIRE_ERR_INVALID : QUIRE_ERR_IO,
			    "rendezvous in %s: cannot announce address %u: %s", s->dir, addr,
			    e == EEXIST ? "announced already (another card has it, or a file of an "
					  "earlier run is left)"
					: strerror(e));
	uint8_t have[QUIRE_WIRE_UDP_RDV_MAX_CARDS] = {0};
	have[addr] = 1;
	table[addr] = ep;
	for (;;) {
		for (uint32_t a = 0; a < s->cards; a++) {
			if (have[a])
				continue;
			snprintf(path, sizeof(path), "%s/udp-%u", s->dir, a);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			uint8_t f[sizeof(m) + 1];
			ssize_t k = read(fd, f, sizeof(f));
			close(fd);
			char bad[256];
			uint16_t fa;
			int l = msg_len(f, k > 0 ? (uint32_t)k : 0, QUIRE_WIRE_UDP_RDV_ANNOUNCE, 0,
					bad, sizeof(bad));
			if (l > 0 && l != k)
				l = fail(bad, sizeof(bad), -1, "%zd bytes, not one message", k);
			else if (l == 0)
				snprintf(bad, sizeof(bad), "%zd bytes, a message cut short", k);
			if (l <= 0)
				return fail(why, n, QUIRE_ERR_INVALID,
					    "rendezvous in %s: %s is malformed: %s", s->dir, path,
					    bad);
			if (read_announce(f, s->cards, &fa, &table[a], bad, sizeof(bad)) !=
			    QUIRE_OK)
				return fail(why, n, QUIRE_ERR_INVALID, "rendezvous in %s: %s: %s",
					    s->dir, path, bad);
			if (fa != a)
				return fail(why, n, QUIRE_ERR_INVALID,
					    "rendezvous in %s: %s announces address %u", s->dir,
					    path, fa);
			have[a] = 1;
		}
		if (count(have, s->cards) == s->cards)
			return QUIRE_OK;
		if (!left_ms(deadline)) {
			char miss[256];
			list_missing(have, s->cards, miss, sizeof(miss));
			return fail(why, n, QUIRE_ERR_TIMEOUT,
				    "rendezvous in %s: after %u s, %u of %u cards have not come: "
				    "address%s %s",
				    s->dir, s->timeout_ms / 1000, s->cards - count(have, s->cards),
				    s->cards, s->cards - count(have, s->cards) > 1 ? "es" : "",
				    miss);
		}
		if (usleep(RETRY_MS * 1000u) != 0 && errno == EINTR)
			return fail(why, n, QUIRE_ERR_IO, "rendezvous in %s: interrupted", s->dir);
	}
}

int quire_wire_udp_rdv_join(const struct quire_wire_udp_rdv_spec *s, uint16_t addr,
			    quire_wire_udp_rdv_bind_fn bind_fn, void *ctx,
			    struct quire_wire_udp_ep *table, char *why, size_t n)
{
	if (addr >= s->cards)
		return fail(why, n, QUIRE_ERR_RANGE, "address %u is not one of cards=%u (0-%u)",
			    addr, s->cards, s->cards - 1);
	memset(table, 0, s->cards * sizeof(*table));
	return s->kind == QUIRE_WIRE_UDP_RDV_TCP ? join_rdv(s, addr, bind_fn, ctx, table, why, n)
						 : join_dir(s, addr, bind_fn, ctx, table, why, n);
}
