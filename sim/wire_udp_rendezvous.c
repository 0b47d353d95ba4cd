// SPDX-License-Identifier: MIT
/*
 * The simulated cards' UDP wire addresses from a rendezvous (wire_udp_rendezvous.h): the TCP
 * form, served by the card of address 0, and the directory form. Every wait is bounded by the
 * timeout the network's name gives, and every connection by QUIRE_WIRE_UDP_RDV_CONN_MS; a
 * connection that does not prove the job's key is refused and the rendezvous goes on. (Not
 * libquire's host/src/comm/rendezvous.c, where the ranks of a job meet: this is the cards'
 * ports meeting before any rank runs.)
 */
#include "sim/wire_udp_rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quire/status.h"
#include "sim/why.h"
#include "sim/clock.h"
#include "sim/le.h"

#define RETRY_MS       50u   /* between attempts to reach the rendezvous, or to read PATH */
#define REPLY_GRACE_MS 2000u /* a connected card waits this much past the timeout */
/* The longest message: a TABLE of every address. */
#define MAX_MSG                                                                                    \
	(QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_TAB_BYTES(QUIRE_WIRE_UDP_RDV_MAX_CARDS))
#define SPARE_CONNS 64u /* connections the rendezvous holds beyond one per card */

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
		return quire_sim_why(why, n, QUIRE_ERR_INVALID,
				     "%s is not udp:rdv=HOST:PORT,... or udp:dir=PATH,...",
				     net ? net : "(none)");
	int have_host = 0, have_timeout = 0;
	unsigned long v;
	for (char *save, *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char *val = strchr(e, '=');
		if (!val)
			return quire_sim_why(why, n, QUIRE_ERR_INVALID, "%s: '%s' is not KEY=VALUE",
					     net, e);
		*val++ = '\0';
		if (!strcmp(e, "rdv") && !s->kind) {
			char *colon = strrchr(val, ':');
			struct in_addr ia;
			if (!colon)
				return quire_sim_why(why, n, QUIRE_ERR_INVALID,
						     "%s: rdv= wants HOST:PORT", net);
			*colon = '\0';
			if (inet_pton(AF_INET, val, &ia) != 1 || number(colon + 1, 1, 65535, &v))
				return quire_sim_why(
				    why, n, QUIRE_ERR_INVALID,
				    "%s: rdv= wants an IPv4 address and a TCP port 1-65535", net);
			s->kind = QUIRE_WIRE_UDP_RDV_TCP;
			s->ip = ia.s_addr;
			s->port = (uint16_t)v;
		} else if (!strcmp(e, "dir") && !s->kind) {
			if (!*val ||
			    snprintf(s->dir, sizeof(s->dir), "%s", val) >= (int)sizeof(s->dir))
				return quire_sim_why(why, n, QUIRE_ERR_INVALID,
						     "%s: dir= wants a path under %zu bytes", net,
						     sizeof(s->dir) - 16);
			s->kind = QUIRE_WIRE_UDP_RDV_DIR;
		} else if (!strcmp(e, "cards") && !s->cards) {
			if (number(val, 1, QUIRE_WIRE_UDP_RDV_MAX_CARDS, &v))
				return quire_sim_why(why, n, QUIRE_ERR_INVALID,
						     "%s: cards= wants 1-%u", net,
						     QUIRE_WIRE_UDP_RDV_MAX_CARDS);
			s->cards = (uint32_t)v;
		} else if (!strcmp(e, "timeout") && !have_timeout++) {
			if (number(val, 1, QUIRE_WIRE_UDP_RDV_MAX_TIMEOUT_S, &v))
				return quire_sim_why(why, n, QUIRE_ERR_INVALID,
						     "%s: timeout= wants 1-%u s", net,
						     QUIRE_WIRE_UDP_RDV_MAX_TIMEOUT_S);
			s->timeout_ms = (uint32_t)v * 1000u;
		} else if (!strcmp(e, "host") && !have_host) {
			struct in_addr ia;
			if (inet_pton(AF_INET, val, &ia) != 1)
				return quire_sim_why(why, n, QUIRE_ERR_INVALID,
						     "%s: host= wants an IPv4 address", net);
			s->ip = ia.s_addr;
			have_host = 1;
		} else {
			return quire_sim_why(why, n, QUIRE_ERR_INVALID,
					     "%s: unknown or repeated '%s='", net, e);
		}
	}
	if (have_host && s->kind != QUIRE_WIRE_UDP_RDV_DIR)
		return quire_sim_why(
		    why, n, QUIRE_ERR_INVALID,
		    "%s: host= is for dir= (over rdv= a card binds where its route to the "
		    "rendezvous leaves)",
		    net);
	if (s->kind == QUIRE_WIRE_UDP_RDV_DIR && !have_host)
		s->ip = htonl(INADDR_LOOPBACK);
	if (s->ip == htonl(INADDR_ANY) || s->ip == htonl(INADDR_BROADCAST))
		return quire_sim_why(
		    why, n, QUIRE_ERR_INVALID,
		    "%s: a card's address, not 0.0.0.0 or 255.255.255.255: the others send "
		    "to it",
		    net);
	if (!s->cards)
		return quire_sim_why(why, n, QUIRE_ERR_INVALID,
				     "%s: no cards=W (how many cards meet)", net);
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

/* An ANNOUNCE with a fresh nonce (into nonce), the run's identity (NULL: zero) and its MAC
 * over the challenge (NULL: a file's); its length, or 0 when no nonce or MAC could be made. */
static uint32_t put_announce(uint8_t *m, uint16_t addr, uint32_t cards,
			     const struct quire_wire_udp_ep *ep, const struct quire_job_key *key,
			     const uint8_t *challenge, const uint8_t *run,
			     uint8_t nonce[QUIRE_WIRE_UDP_RDV_NONCE_BYTES])
{
	uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	memset(b, 0, QUIRE_WIRE_UDP_RDV_ANN_BYTES);
	quire_st16(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_ADDR, addr);
	quire_st16(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_CARDS, (uint16_t)cards);
	put_ep(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_EP, ep);
	if (quire_job_random(nonce, QUIRE_WIRE_UDP_RDV_NONCE_BYTES) != QUIRE_OK)
		return 0;
	memcpy(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_NONCE, nonce, QUIRE_WIRE_UDP_RDV_NONCE_BYTES);
	if (run)
		memcpy(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_RUN, run, QUIRE_WIRE_UDP_RDV_RUN_BYTES);
	uint32_t len = put_hdr(m, QUIRE_WIRE_UDP_RDV_ANNOUNCE, QUIRE_WIRE_UDP_RDV_ANN_BYTES);
	return quire_wire_udp_rdv_announce_mac(key, challenge, m,
					       b + QUIRE_WIRE_UDP_RDV_ANN_OFF_MAC) == QUIRE_OK
		   ? len
		   : 0;
}

/* Whether the ANNOUNCE m carries the MAC of the key over the challenge (NULL: a file's). */
static int announce_proves(const struct quire_job_key *key, const uint8_t *challenge,
			   const uint8_t *m)
{
	uint8_t mac[QUIRE_WIRE_UDP_RDV_MAC_BYTES];
	const uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	return quire_wire_udp_rdv_announce_mac(key, challenge, m, mac) == QUIRE_OK &&
	       CRYPTO_memcmp(mac, b + QUIRE_WIRE_UDP_RDV_ANN_OFF_MAC, sizeof(mac)) == 0;
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
		return quire_sim_why(why, n, -1, "not a rendezvous message (magic 0x%08x)", magic);
	if (m[QUIRE_WIRE_UDP_RDV_OFF_VERSION] != QUIRE_WIRE_UDP_RDV_VERSION)
		return quire_sim_why(why, n, -1,
				     "rendezvous protocol version %u, this card speaks %u",
				     m[QUIRE_WIRE_UDP_RDV_OFF_VERSION], QUIRE_WIRE_UDP_RDV_VERSION);
	if (type != want && !(err_ok && type == QUIRE_WIRE_UDP_RDV_ERROR))
		return quire_sim_why(why, n, -1, "a message of type %d where %d was due", type,
				     want);
	uint32_t exact = type == QUIRE_WIRE_UDP_RDV_ANNOUNCE    ? QUIRE_WIRE_UDP_RDV_ANN_BYTES
			 : type == QUIRE_WIRE_UDP_RDV_CHALLENGE ? QUIRE_WIRE_UDP_RDV_CHAL_BYTES
								: 0;
	uint32_t max = type == QUIRE_WIRE_UDP_RDV_ERROR ? QUIRE_WIRE_UDP_RDV_ERR_MAX
		       : exact                          ? exact
							: MAX_MSG - QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	if (len > max || (exact && len != exact))
		return quire_sim_why(why, n, -1, "a message of type %d with %u bytes of body", type,
				     len);
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
		return quire_sim_why(
		    why, n, QUIRE_ERR_INVALID,
		    "the card of address %u was given cards=%u, this rendezvous %u", *addr, w,
		    cards);
	if (*addr >= cards)
		return quire_sim_why(why, n, QUIRE_ERR_INVALID,
				     "address %u announced, outside 0-%u", *addr, cards - 1);
	if (!ep->ip || !ep->port[0] || !ep->port[1])
		return quire_sim_why(why, n, QUIRE_ERR_INVALID,
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
	int fd;           /* -1: gone, or a free place when it never announced */
	int announced;    /* its address is in the table: it is owed the table */
	int64_t until_ms; /* when it must have announced */
	uint32_t have;
	uint8_t challenge[QUIRE_WIRE_UDP_RDV_NONCE_BYTES]; /* the rendezvous' nonce for it */
	uint8_t nonce[QUIRE_WIRE_UDP_RDV_NONCE_BYTES];     /* its own, from its announcement */
	uint8_t buf[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_BYTES];
	char from[INET_ADDRSTRLEN + 8];
};

/* The serving card's rendezvous. */
struct server {
	const struct quire_wire_udp_rdv_spec *s;
	const struct quire_job_key *key;
	char ip[INET_ADDRSTRLEN];
	uint32_t refused; /* connections refused so far */
	struct client *c;
	uint32_t n_c;
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

/* The ERROR message with text `why` to fd, within 200 ms. */
static void tell(int fd, const char *why)
{
	uint8_t m[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ERR_MAX];
	uint32_t len = (uint32_t)strnlen(why, QUIRE_WIRE_UDP_RDV_ERR_MAX);
	memcpy(m + QUIRE_WIRE_UDP_RDV_HDR_BYTES, why, len);
	len = put_hdr(m, QUIRE_WIRE_UDP_RDV_ERROR, len);
	(void)send_all(fd, m, len, quire_sim_mono_ms() + 200);
}

/* Refuses connection c (or, c NULL, one at fd the rendezvous has no room for): tells it
 * why, says so on stderr and counts it; the rendezvous goes on without it. */
static void refuse(struct server *v, struct client *c, int fd, const char *from, const char *fmt,
		   ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	v->refused++;
	fprintf(stderr, "quire card 0: rendezvous %s:%u: refused %s: %s (%u refused)\n", v->ip,
		v->s->port, from, why, v->refused);
	char text[600];
	snprintf(text, sizeof(text), "refused by the rendezvous: %s", why);
	tell(c ? c->fd : fd, text);
	close(c ? c->fd : fd);
	if (c) {
		c->fd = -1;
		c->have = 0;
	}
}

/* A new connection: a place (one that never announced and is gone), and its challenge. */
static void admit(struct server *v, int fd, const struct sockaddr_in *from)
{
	char fip[INET_ADDRSTRLEN], name[INET_ADDRSTRLEN + 8];
	snprintf(name, sizeof(name), "%s:%u", ip_str(from->sin_addr.s_addr, fip),
		 ntohs(from->sin_port));
	struct client *c = NULL;
	for (uint32_t i = 0; i < v->n_c && !c; i++)
		if (v->c[i].fd < 0 && !v->c[i].announced)
			c = &v->c[i];
	if (!c) {
		refuse(v, NULL, fd, name, "%u connections are open already", v->n_c);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	snprintf(c->from, sizeof(c->from), "%s", name);
	c->until_ms = quire_sim_mono_ms() + QUIRE_WIRE_UDP_RDV_CONN_MS;
	uint8_t m[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_CHAL_BYTES];
	uint32_t len = put_hdr(m, QUIRE_WIRE_UDP_RDV_CHALLENGE, QUIRE_WIRE_UDP_RDV_CHAL_BYTES);
	if (quire_job_random(c->challenge, sizeof(c->challenge)) != QUIRE_OK) {
		refuse(v, c, -1, c->from, "no random bytes for its challenge");
		return;
	}
	memcpy(m + QUIRE_WIRE_UDP_RDV_HDR_BYTES, c->challenge, sizeof(c->challenge));
	if (send_all(fd, m, len, quire_sim_mono_ms() + 200) != 0) {
		close(fd);
		c->fd = -1;
	}
}

/*
 * What connection c sent: QUIRE_OK (nothing whole yet, or taken, or refused: the rendezvous
 * goes on), or the failure of the whole rendezvous (why) when a card that proved the key
 * announces what cannot be: another W, an address outside it or taken.
 */
static int take(struct server *v, struct client *c, uint8_t *have, struct quire_wire_udp_ep *table,
		char *why, size_t n)
{
	ssize_t k = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have, MSG_DONTWAIT);
	if (k <= 0) {
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			return QUIRE_OK;
		/* Gone before (or after) announcing: a card that died is missed at the
		 * timeout, named by its address. */
		close(c->fd);
		c->fd = -1;
		return QUIRE_OK;
	}
	if (c->announced) /* nothing more is due from it */
		return QUIRE_OK;
	c->have += (uint32_t)k;
	char bad[256];
	int len = msg_len(c->buf, c->have, QUIRE_WIRE_UDP_RDV_ANNOUNCE, 0, bad, sizeof(bad));
	if (len < 0)
		refuse(v, c, -1, c->from, "a malformed announcement: %s", bad);
	if (len <= 0)
		return QUIRE_OK;
	if (!announce_proves(v->key, c->challenge, c->buf)) {
		refuse(v, c, -1, c->from,
		       "it did not prove the job's key (its announcement's MAC fails: another "
		       "job, or no key)");
		return QUIRE_OK;
	}
	uint16_t a;
	struct quire_wire_udp_ep ep;
	if (read_announce(c->buf, v->s->cards, &a, &ep, bad, sizeof(bad)) != QUIRE_OK)
		return quire_sim_why(why, n, QUIRE_ERR_INVALID, "rendezvous %s:%u: from %s: %s",
				     v->ip, v->s->port, c->from, bad);
	if (have[a])
		return quire_sim_why(why, n, QUIRE_ERR_INVALID,
				     "rendezvous %s:%u: address %u announced twice (again from %s)",
				     v->ip, v->s->port, a, c->from);
	have[a] = 1;
	table[a] = ep;
	c->announced = 1;
	memcpy(c->nonce, c->buf + QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_OFF_NONCE,
	       sizeof(c->nonce));
	return QUIRE_OK;
}

/* The table and the run to every card that announced, each with its own MAC. */
static void send_table(struct server *v, const struct quire_wire_udp_ep *table, const uint8_t *run)
{
	uint32_t w = v->s->cards;
	uint8_t m[MAX_MSG];
	uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	quire_st16(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_CARDS, (uint16_t)w);
	quire_st16(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_CARDS + 2, 0);
	for (uint32_t a = 0; a < w; a++)
		put_ep(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + a * QUIRE_WIRE_UDP_RDV_EP_BYTES,
		       &table[a]);
	uint8_t *r = b + QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + w * QUIRE_WIRE_UDP_RDV_EP_BYTES;
	memcpy(r, run, QUIRE_WIRE_UDP_RDV_RUN_BYTES);
	uint32_t len = put_hdr(m, QUIRE_WIRE_UDP_RDV_TABLE, QUIRE_WIRE_UDP_RDV_TAB_BYTES(w));
	uint8_t *mac = m + len - QUIRE_WIRE_UDP_RDV_MAC_BYTES;
	/* A card that left after announcing misses the table and fails on its own. */
	for (uint32_t i = 0; i < v->n_c; i++) {
		struct client *c = &v->c[i];
		if (c->fd < 0 || !c->announced ||
		    quire_wire_udp_rdv_table_mac(v->key, c->nonce, c->challenge, m, len, mac) !=
			QUIRE_OK)
			continue;
		(void)send_all(c->fd, m, len, quire_sim_mono_ms() + REPLY_GRACE_MS);
	}
}

/* The time left until the first connection's announcement is due (at most wait ms); the
 * connections already late are refused. */
static int next_due(struct server *v, int wait)
{
	int64_t t = quire_sim_mono_ms();
	for (uint32_t i = 0; i < v->n_c; i++) {
		struct client *c = &v->c[i];
		if (c->fd < 0 || c->announced)
			continue;
		if (t >= c->until_ms)
			refuse(v, c, -1, c->from, "no announcement within %u ms",
			       QUIRE_WIRE_UDP_RDV_CONN_MS);
		else if (c->until_ms - t < wait)
			wait = (int)(c->until_ms - t);
	}
	return wait;
}

static int serve(const struct quire_wire_udp_rdv_spec *s, const struct quire_job_key *key,
		 quire_wire_udp_rdv_bind_fn bind_fn, void *ctx, struct quire_wire_udp_ep *table,
		 uint8_t *run, char *why, size_t n)
{
	struct server v = {.s = s, .key = key};
	(void)ip_str(s->ip, v.ip);
	int64_t deadline = quire_sim_mono_ms() + s->timeout_ms;
	if (quire_job_random(run, QUIRE_WIRE_UDP_RDV_RUN_BYTES) != QUIRE_OK)
		return quire_sim_why(why, n, QUIRE_ERR_IO,
				     "no random bytes for the run's identity");
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(s->port)};
	sa.sin_addr.s_addr = s->ip;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;
	if (lfd < 0)
		return quire_sim_why(why, n, QUIRE_ERR_IO, "socket: %s", strerror(errno));
	(void)setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 64) != 0) {
		int e = errno;
		close(lfd);
		return quire_sim_why(
		    why, n, e == EADDRNOTAVAIL ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO,
		    "cannot serve the rendezvous on %s:%u: %s%s", v.ip, s->port, strerror(e),
		    e == EADDRNOTAVAIL ? " (the card of address 0 serves it: rdv= names its "
					 "host)"
				       : "");
	}
	int st = bind_fn(ctx, s->ip, table[0].port);
	if (st != QUIRE_OK) {
		close(lfd);
		return quire_sim_why(why, n, st, "cannot bind the UDP channels on %s", v.ip);
	}
	table[0].ip = s->ip;
	uint8_t have[QUIRE_WIRE_UDP_RDV_MAX_CARDS] = {1};
	/* Strangers may connect too: room for each card and some more; a connection that
	 * does not announce in time gives its place up. */
	v.n_c = s->cards + SPARE_CONNS;
	v.c = calloc(v.n_c, sizeof(*v.c));
	struct pollfd *p = calloc(v.n_c + 1, sizeof(*p));
	uint32_t *at = calloc(v.n_c, sizeof(*at));
	if (!v.c || !p || !at) {
		free(v.c);
		free(p);
		free(at);
		close(lfd);
		return quire_sim_why(why, n, QUIRE_ERR_NOMEM, "no memory");
	}
	for (uint32_t i = 0; i < v.n_c; i++)
		v.c[i].fd = -1;
	while (st == QUIRE_OK && count(have, s->cards) < s->cards) {
		int wait = left_ms(deadline);
		if (!wait) {
			char miss[256];
			list_missing(have, s->cards, miss, sizeof(miss));
			st = quire_sim_why(
			    why, n, QUIRE_ERR_TIMEOUT,
			    "rendezvous %s:%u: after %u s, %u of %u cards have not come: "
			    "address%s %s",
			    v.ip, s->port, s->timeout_ms / 1000, s->cards - count(have, s->cards),
			    s->cards, s->cards - count(have, s->cards) > 1 ? "es" : "", miss);
			break;
		}
		wait = next_due(&v, wait);
		uint32_t np = 0;
		p[np++] = (struct pollfd){.fd = lfd, .events = POLLIN};
		for (uint32_t i = 0; i < v.n_c; i++)
			if (v.c[i].fd >= 0) {
				at[np - 1] = i;
				p[np++] = (struct pollfd){.fd = v.c[i].fd, .events = POLLIN};
			}
		int r = poll(p, np, wait);
		if (r < 0) {
			st = quire_sim_why(why, n, QUIRE_ERR_IO, "rendezvous %s:%u: %s", v.ip,
					   s->port,
					   errno == EINTR ? "interrupted" : strerror(errno));
			break;
		}
		for (uint32_t k = 1; k < np && st == QUIRE_OK; k++)
			if (p[k].revents && v.c[at[k - 1]].fd >= 0)
				st = take(&v, &v.c[at[k - 1]], have, table, why, n);
		if (st == QUIRE_OK && (p[0].revents & POLLIN)) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			int fd = accept4(lfd, (struct sockaddr *)&from, &fl,
					 SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0)
				admit(&v, fd, &from);
		}
	}
	close(lfd);
	if (st != QUIRE_OK) {
		for (uint32_t i = 0; i < v.n_c; i++)
			if (v.c[i].fd >= 0)
				tell(v.c[i].fd, why);
	} else {
		send_table(&v, table, run);
	}
	for (uint32_t i = 0; i < v.n_c; i++)
		if (v.c[i].fd >= 0) {
			shutdown(v.c[i].fd, SHUT_WR);
			close(v.c[i].fd);
		}
	free(v.c);
	free(p);
	free(at);
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
			return quire_sim_why(why, n, -1, "socket: %s", strerror(errno));
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
	return quire_sim_why(
	    why, n, -1,
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
	const char *what = want == QUIRE_WIRE_UDP_RDV_CHALLENGE ? "challenge" : "table";
	for (;;) {
		char bad[256];
		int len = msg_len(m, have, want, 1, bad, sizeof(bad));
		if (len > 0)
			return len;
		if (len < 0) {
			*st = QUIRE_ERR_INVALID;
			return quire_sim_why(why, n, -1, "%s sent a malformed reply: %s", who, bad);
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, left_ms(deadline));
		if (r == 0 || (r < 0 && errno == EINTR)) {
			*st = r == 0 ? QUIRE_ERR_TIMEOUT : QUIRE_ERR_IO;
			return quire_sim_why(why, n, -1, "%s: no %s %s", who, what,
					     r == 0 ? "within its timeout and 2 s more"
						    : "(interrupted)");
		}
		ssize_t k = r > 0 ? recv(fd, m + have, MAX_MSG - have, MSG_DONTWAIT) : -1;
		if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) {
			*st = QUIRE_ERR_PEER;
			return quire_sim_why(
			    why, n, -1,
			    "%s closed the connection before sending the %s (did the card "
			    "of address 0 stop?)",
			    who, what);
		}
		if (k > 0)
			have += (uint32_t)k;
	}
}

/* A connection to the rendezvous that has sent its challenge (into challenge): the socket,
 * or -1 with *st and why. One closed before its challenge (a rendezvous with no room yet)
 * is made again, until the deadline. */
static int challenged(const struct quire_wire_udp_rdv_spec *s, const char *who, uint8_t *challenge,
		      char *why, size_t n, int *st)
{
	int64_t deadline = quire_sim_mono_ms() + s->timeout_ms;
	for (;;) {
		int fd = reach(s, deadline, why, n);
		if (fd < 0) {
			*st = QUIRE_ERR_TIMEOUT;
			return -1;
		}
		uint8_t m[MAX_MSG];
		int got = read_msg(fd, m, QUIRE_WIRE_UDP_RDV_CHALLENGE, deadline + REPLY_GRACE_MS,
				   who, why, n, st);
		if (got > 0 && m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] == QUIRE_WIRE_UDP_RDV_CHALLENGE) {
			memcpy(challenge, m + QUIRE_WIRE_UDP_RDV_HDR_BYTES,
			       QUIRE_WIRE_UDP_RDV_NONCE_BYTES);
			return fd;
		}
		close(fd);
		if (got > 0) { /* an ERROR */
			*st = QUIRE_ERR_PEER;
			return quire_sim_why(why, n, -1, "%s failed: %.*s", who,
					     got - (int)QUIRE_WIRE_UDP_RDV_HDR_BYTES,
					     (const char *)m + QUIRE_WIRE_UDP_RDV_HDR_BYTES);
		}
		if (*st != QUIRE_ERR_PEER || left_ms(deadline) <= (int)RETRY_MS)
			return -1;
		usleep(RETRY_MS * 1000u);
	}
}

/* The TABLE in m (got bytes) into table and run, once its MAC proves the rendezvous holds
 * the key; the card's own entry must be what it announced. */
static int read_table(const struct quire_wire_udp_rdv_spec *s, const struct quire_job_key *key,
		      const uint8_t *m, int got, const uint8_t *nonce, const uint8_t *challenge,
		      uint16_t addr, const struct quire_wire_udp_ep *ep,
		      struct quire_wire_udp_ep *table, uint8_t *run, const char *who, char *why,
		      size_t n)
{
	const uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	uint32_t body = (uint32_t)got - QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	if (m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] == QUIRE_WIRE_UDP_RDV_ERROR)
		return quire_sim_why(why, n, QUIRE_ERR_PEER, "%s failed: %.*s", who, (int)body,
				     (const char *)b);
	uint32_t w = body >= 4 ? quire_ld16(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_CARDS) : 0;
	if (w != s->cards || body != QUIRE_WIRE_UDP_RDV_TAB_BYTES(w))
		return quire_sim_why(
		    why, n, QUIRE_ERR_INVALID,
		    "%s sent a table of %u cards in %u bytes; this card was given cards=%u", who, w,
		    body, s->cards);
	uint8_t mac[QUIRE_WIRE_UDP_RDV_MAC_BYTES];
	if (quire_wire_udp_rdv_table_mac(key, nonce, challenge, m, (uint32_t)got, mac) !=
		QUIRE_OK ||
	    CRYPTO_memcmp(mac, m + got - QUIRE_WIRE_UDP_RDV_MAC_BYTES, sizeof(mac)) != 0)
		return quire_sim_why(
		    why, n, QUIRE_ERR_INVALID,
		    "%s did not prove the job's key (its table's MAC fails: another job's "
		    "rendezvous on that port?)",
		    who);
	for (uint32_t a = 0; a < w; a++)
		get_ep(b + QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + a * QUIRE_WIRE_UDP_RDV_EP_BYTES,
		       &table[a]);
	memcpy(run, b + QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + w * QUIRE_WIRE_UDP_RDV_EP_BYTES,
	       QUIRE_WIRE_UDP_RDV_RUN_BYTES);
	if (memcmp(&table[addr], ep, sizeof(*ep)) != 0)
		return quire_sim_why(
		    why, n, QUIRE_ERR_INVALID,
		    "%s sent a table whose entry %u is not what this card announced", who, addr);
	return QUIRE_OK;
}

static int join_rdv(const struct quire_wire_udp_rdv_spec *s, uint16_t addr,
		    const struct quire_job_key *key, quire_wire_udp_rdv_bind_fn bind_fn, void *ctx,
		    struct quire_wire_udp_ep *table, uint8_t *run, char *why, size_t n)
{
	if (addr == 0)
		return serve(s, key, bind_fn, ctx, table, run, why, n);
	char ip[INET_ADDRSTRLEN], who[64];
	snprintf(who, sizeof(who), "the rendezvous at %s:%u", ip_str(s->ip, ip), s->port);
	uint8_t challenge[QUIRE_WIRE_UDP_RDV_NONCE_BYTES], nonce[QUIRE_WIRE_UDP_RDV_NONCE_BYTES];
	int st = QUIRE_OK, fd = challenged(s, who, challenge, why, n, &st);
	if (fd < 0)
		return st;
	int64_t deadline = quire_sim_mono_ms() + s->timeout_ms + REPLY_GRACE_MS;
	/* Bind where this connection left from: the interface of the route to the rendezvous. */
	struct sockaddr_in self;
	socklen_t sl = sizeof(self);
	struct quire_wire_udp_ep ep = {0};
	st = getsockname(fd, (struct sockaddr *)&self, &sl) == 0 ? QUIRE_OK : QUIRE_ERR_IO;
	if (st == QUIRE_OK) {
		ep.ip = self.sin_addr.s_addr;
		st = bind_fn(ctx, ep.ip, ep.port);
	}
	if (st != QUIRE_OK) {
		close(fd);
		return quire_sim_why(why, n, st, "cannot bind the UDP channels on %s",
				     ip_str(ep.ip, ip));
	}
	uint8_t m[MAX_MSG];
	uint32_t len = put_announce(m, addr, s->cards, &ep, key, challenge, NULL, nonce);
	if (!len || send_all(fd, m, len, deadline) != 0) {
		close(fd);
		return quire_sim_why(why, n, QUIRE_ERR_PEER, "%s: cannot announce: %s", who,
				     len ? strerror(errno) : "no nonce or MAC");
	}
	int got = read_msg(fd, m, QUIRE_WIRE_UDP_RDV_TABLE, deadline, who, why, n, &st);
	close(fd);
	if (got < 0)
		return st;
	return read_table(s, key, m, got, nonce, challenge, addr, &ep, table, run, who, why, n);
}

/* ---- in a directory -------------------------------------------------------------- */

/* Card a's announcement in the directory into table[a] (and, of address 0, the run), *taken
 * set, or nothing when it is not there yet: QUIRE_OK, or the failure (why). */
static int read_file(const struct quire_wire_udp_rdv_spec *s, const struct quire_job_key *key,
		     uint32_t a, struct quire_wire_udp_ep *table, uint8_t *run, uint8_t *taken,
		     char *why, size_t n)
{
	char path[320], bad[256];
	snprintf(path, sizeof(path), "%s/udp-%u", s->dir, a);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return QUIRE_OK;
	uint8_t f[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_BYTES + 1];
	ssize_t k = read(fd, f, sizeof(f));
	close(fd);
	uint16_t fa;
	int l =
	    msg_len(f, k > 0 ? (uint32_t)k : 0, QUIRE_WIRE_UDP_RDV_ANNOUNCE, 0, bad, sizeof(bad));
	if (l > 0 && l != k)
		l = quire_sim_why(bad, sizeof(bad), -1, "%zd bytes, not one message", k);
	else if (l == 0)
		snprintf(bad, sizeof(bad), "%zd bytes, a message cut short", k);
	if (l <= 0)
		return quire_sim_why(why, n, QUIRE_ERR_INVALID,
				     "rendezvous in %s: %s is malformed: %s", s->dir, path, bad);
	if (!announce_proves(key, NULL, f))
		return quire_sim_why(
		    why, n, QUIRE_ERR_INVALID,
		    "rendezvous in %s: %s does not prove the job's key (its MAC fails: a "
		    "card of another job, or given another key)",
		    s->dir, path);
	if (read_announce(f, s->cards, &fa, &table[a], bad, sizeof(bad)) != QUIRE_OK)
		return quire_sim_why(why, n, QUIRE_ERR_INVALID, "rendezvous in %s: %s: %s", s->dir,
				     path, bad);
	if (fa != a)
		return quire_sim_why(why, n, QUIRE_ERR_INVALID,
				     "rendezvous in %s: %s announces address %u", s->dir, path, fa);
	if (a == 0)
		memcpy(run, f + QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_OFF_RUN,
		       QUIRE_WIRE_UDP_RDV_RUN_BYTES);
	*taken = 1;
	return QUIRE_OK;
}

static int join_dir(const struct quire_wire_udp_rdv_spec *s, uint16_t addr,
		    const struct quire_job_key *key, quire_wire_udp_rdv_bind_fn bind_fn, void *ctx,
		    struct quire_wire_udp_ep *table, uint8_t *run, char *why, size_t n)
{
	char ip[INET_ADDRSTRLEN], path[320], tmp[340];
	int64_t deadline = quire_sim_mono_ms() + s->timeout_ms;
	struct quire_wire_udp_ep ep = {.ip = s->ip};
	int st = bind_fn(ctx, ep.ip, ep.port);
	if (st != QUIRE_OK)
		return quire_sim_why(why, n, st, "cannot bind the UDP channels on %s",
				     ip_str(ep.ip, ip));
	/* The card of address 0 makes the run's identity; the others read it in its file. */
	if (addr == 0 && quire_job_random(run, QUIRE_WIRE_UDP_RDV_RUN_BYTES) != QUIRE_OK)
		return quire_sim_why(why, n, QUIRE_ERR_IO,
				     "no random bytes for the run's identity");
	uint8_t m[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_BYTES];
	uint8_t nonce[QUIRE_WIRE_UDP_RDV_NONCE_BYTES];
	uint32_t len =
	    put_announce(m, addr, s->cards, &ep, key, NULL, addr == 0 ? run : NULL, nonce);
	if (!len)
		return quire_sim_why(why, n, QUIRE_ERR_IO, "rendezvous in %s: no nonce or MAC",
				     s->dir);
	/* Written aside, then linked in: a reader sees the whole file or none, and link()
	 * refuses a name that exists: the address is someone else's. */
	snprintf(path, sizeof(path), "%s/udp-%u", s->dir, addr);
	snprintf(tmp, sizeof(tmp), "%s/.udp-%u.%ld", s->dir, addr, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return quire_sim_why(why, n, errno == ENOENT ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO,
				     "rendezvous in %s: %s", s->dir, strerror(errno));
	int ok = write(fd, m, len) == (ssize_t)len;
	close(fd);
	int linked = ok && link(tmp, path) == 0, e = errno;
	unlink(tmp);
	if (!linked)
		return quire_sim_why(
		    why, n, e == EEXIST ? QUIRE_ERR_INVALID : QUIRE_ERR_IO,
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
			st = read_file(s, key, a, table, run, &have[a], why, n);
			if (st != QUIRE_OK)
				return st;
		}
		if (count(have, s->cards) == s->cards)
			return QUIRE_OK;
		if (!left_ms(deadline)) {
			char miss[256];
			list_missing(have, s->cards, miss, sizeof(miss));
			return quire_sim_why(
			    why, n, QUIRE_ERR_TIMEOUT,
			    "rendezvous in %s: after %u s, %u of %u cards have not come: "
			    "address%s %s",
			    s->dir, s->timeout_ms / 1000, s->cards - count(have, s->cards),
			    s->cards, s->cards - count(have, s->cards) > 1 ? "es" : "", miss);
		}
		if (usleep(RETRY_MS * 1000u) != 0 && errno == EINTR)
			return quire_sim_why(why, n, QUIRE_ERR_IO, "rendezvous in %s: interrupted",
					     s->dir);
	}
}

int quire_wire_udp_rdv_join(const struct quire_wire_udp_rdv_spec *s, uint16_t addr,
			    const struct quire_job_key *key, quire_wire_udp_rdv_bind_fn bind_fn,
			    void *ctx, struct quire_wire_udp_ep *table,
			    uint8_t run[QUIRE_WIRE_UDP_RDV_RUN_BYTES], char *why, size_t n)
{
	if (addr >= s->cards)
		return quire_sim_why(why, n, QUIRE_ERR_RANGE,
				     "address %u is not one of cards=%u (0-%u)", addr, s->cards,
				     s->cards - 1);
	if (!key || !key->len)
		return quire_sim_why(
		    why, n, QUIRE_ERR_INVALID,
		    "the rendezvous needs the job's key (%s or %s): its cards prove it",
		    QUIRE_JOB_KEY_ENV, QUIRE_JOB_KEY_FILE_ENV);
	memset(table, 0, s->cards * sizeof(*table));
	memset(run, 0, QUIRE_WIRE_UDP_RDV_RUN_BYTES);
	return s->kind == QUIRE_WIRE_UDP_RDV_TCP
		   ? join_rdv(s, addr, key, bind_fn, ctx, table, run, why, n)
		   : join_dir(s, addr, key, bind_fn, ctx, table, run, why, n);
}
