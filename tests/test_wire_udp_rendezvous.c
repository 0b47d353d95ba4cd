// SPDX-License-Identifier: MIT
/*
 * The rendezvous of the cards' UDP network (sim/wire_udp_rendezvous.c) on loopback: the forms
 * parsed and refused; four ports opened through udp:rdv= and through udp:dir= learn each other's
 * free ports and reach one another, each datagram named by its sender; and every way it
 * can fail ends within its timeout with a message saying why: a card that never comes
 * (named), no rendezvous, a rendezvous that goes away, another W, an address twice, a
 * malformed or taken file, a file or a rendezvous of another key. Every card proves the
 * job's key: strangers (a malformed or foreign-version message, no proof, a wrong key, a
 * connection that says nothing) are refused, each told why, while the rendezvous goes on
 * and the cards that hold the key meet.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "quire/status.h"
#include "sim/job_key.h"
#include "sim/le.h"
#include "sim/wire_udp_rendezvous.h"
#include "sim/wire_udp.h"
#include "test_util.h"

#define W 4

/* The job's key, and another job's. */
static const struct quire_job_key key = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
					 16};
static const struct quire_job_key other_key = {
    {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17}, 16};

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	return test_tmpdir_make(tmpdir, sizeof(tmpdir), "quire-wire-udp-rdv");
}

static int teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(tmpdir);
}

/* A TCP port free on loopback now (another run may share the machine). */
static unsigned free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t l = sizeof(a);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void forms(void **state)
{
	(void)state;
	struct quire_wire_udp_rdv_spec s;
	char why[256];
	assert_int_equal(quire_wire_udp_rdv_is("udp:rdv=1.2.3.4:5"), 1);
	assert_int_equal(quire_wire_udp_rdv_is("udp:dir=/x"), 1);
	assert_int_equal(quire_wire_udp_rdv_is("udp:127.0.0.1"), 0);
	assert_int_equal(quire_wire_udp_rdv_parse("udp:rdv=10.0.0.1:7000,cards=8,timeout=3", &s,
						  why, sizeof(why)),
			 QUIRE_OK);
	assert_int_equal(s.kind, QUIRE_WIRE_UDP_RDV_TCP);
	assert_int_equal(s.ip, inet_addr("10.0.0.1"));
	assert_int_equal(s.port, 7000);
	assert_int_equal(s.cards, 8);
	assert_int_equal(s.timeout_ms, 3000);
	assert_int_equal(quire_wire_udp_rdv_parse("udp:dir=/tmp/q,cards=2", &s, why, sizeof(why)),
			 QUIRE_OK);
	assert_int_equal(s.ip, htonl(INADDR_LOOPBACK));
	assert_int_equal(s.timeout_ms, QUIRE_WIRE_UDP_RDV_TIMEOUT_S * 1000);
	static const struct {
		const char *net, *why;
	} bad[] = {
	    {"udp:rdv=10.0.0.1:7000", "no cards=W"},
	    {"udp:rdv=10.0.0.1,cards=2", "rdv= wants HOST:PORT"},
	    {"udp:rdv=nowhere:70,cards=2", "an IPv4 address and a TCP port"},
	    {"udp:rdv=10.0.0.1:0,cards=2", "an IPv4 address and a TCP port"},
	    {"udp:rdv=10.0.0.1:70,cards=257", "cards= wants 1-256"},
	    {"udp:rdv=10.0.0.1:70,cards=2,timeout=601", "timeout= wants 1-600"},
	    {"udp:rdv=10.0.0.1:70,cards=2,host=10.0.0.2", "host= is for dir="},
	    {"udp:rdv=10.0.0.1:70,cards=2,cards=3", "repeated 'cards='"},
	    {"udp:rdv=10.0.0.1:70,cards=2,speed=9", "unknown or repeated 'speed='"},
	    {"udp:dir=/x,cards=2,junk", "'junk' is not KEY=VALUE"},
	    {"udp:dir=,cards=2", "dir= wants a path"},
	    {"udp:rdv=0.0.0.0:70,cards=2", "not 0.0.0.0"},
	    {"udp:dir=/x,cards=2,host=0.0.0.0", "not 0.0.0.0"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (quire_wire_udp_rdv_parse(bad[i].net, &s, why, sizeof(why)) != QUIRE_ERR_INVALID)
			fail_msg("%s: taken", bad[i].net);
		if (!strstr(why, bad[i].why))
			fail_msg("%s: '%s' does not say '%s'", bad[i].net, why, bad[i].why);
	}
	/* The transport's own check: an address beyond cards= has no entry. */
	assert_int_equal(quire_wire_udp_check("udp:rdv=127.0.0.1:9,cards=2", 1), QUIRE_OK);
	assert_int_equal(quire_wire_udp_check("udp:rdv=127.0.0.1:9,cards=2", 2), QUIRE_ERR_RANGE);
	assert_int_equal(quire_wire_udp_check("udp:rdv=127.0.0.1:9", 0), QUIRE_ERR_INVALID);
}

/* ---- W ports through a rendezvous, talking ---------------------------------------- */

struct opener {
	const char *net;
	uint16_t addr;
	int st;
	struct quire_wire_udp *u;
};

static void *open_main(void *arg)
{
	struct opener *o = arg;
	o->st = quire_wire_udp_open(o->net, o->addr, &key, &o->u);
	return NULL;
}

/* The next datagram on channel ch of u within 2 s, as a string in out (31 bytes at most):
 * 1 and its sender, or 0. */
static int recv_one(struct quire_wire_udp *u, enum quire_wire_chan ch, char *out, uint32_t *src)
{
	uint8_t buf[QUIRE_WIRE_HEADROOM + 31];
	for (int t = 0; t < 2000; t++) {
		uint32_t off, len;
		if (quire_wire_udp_recv(u, ch, buf, sizeof(buf), &off, &len, src) == 1) {
			memcpy(out, buf + off, len);
			out[len] = '\0';
			return 1;
		}
		struct pollfd p = {.fd = quire_wire_udp_fd(u, ch), .events = POLLIN};
		(void)poll(&p, 1, 1);
	}
	return 0;
}

/* W ports meet on `net` (started in reverse order: the rendezvous' card comes last) and
 * every one sends each other one datagram on each channel, recognised by its sender. */
static void meet_and_talk(const char *net)
{
	struct opener o[W];
	pthread_t t[W];
	for (int a = W - 1; a >= 0; a--) {
		o[a] = (struct opener){.net = net, .addr = (uint16_t)a};
		assert_int_equal(pthread_create(&t[a], NULL, open_main, &o[a]), 0);
		usleep(20000);
	}
	uint8_t run[W][QUIRE_JOB_RUN_BYTES];
	for (int a = 0; a < W; a++) {
		pthread_join(t[a], NULL);
		assert_int_equal(o[a].st, QUIRE_OK);
		assert_int_equal(quire_wire_udp_run(o[a].u, run[a]), 1);
		assert_memory_equal(run[a], run[0], QUIRE_JOB_RUN_BYTES); /* one run, card 0's */
	}
	static const uint8_t zero[QUIRE_JOB_RUN_BYTES];
	assert_memory_not_equal(run[0], zero, QUIRE_JOB_RUN_BYTES);
	for (int ch = 0; ch < 2; ch++)
		for (int from = 0; from < W; from++)
			for (int to = 0; to < W; to++) {
				if (from == to)
					continue;
				char msg[32], got[32];
				snprintf(msg, sizeof(msg), "%d->%d on %d", from, to, ch);
				struct iovec iov = {msg, strlen(msg)};
				assert_int_equal(quire_wire_udp_send(o[from].u,
								     (enum quire_wire_chan)ch,
								     (uint32_t)to, &iov, 1),
						 QUIRE_OK);
				uint32_t src = 99;
				assert_int_equal(
				    recv_one(o[to].u, (enum quire_wire_chan)ch, got, &src), 1);
				assert_string_equal(got, msg);
				assert_int_equal(src, (uint32_t)from);
			}
	/* An address beyond the table is refused, as with a list. */
	struct iovec iov = {"x", 1};
	assert_int_equal(quire_wire_udp_send(o[0].u, QUIRE_WIRE_FRAMES, W, &iov, 1),
			 QUIRE_ERR_RANGE);
	for (int a = 0; a < W; a++)
		quire_wire_udp_close(o[a].u);
}

static void rdv_meets(void **state)
{
	(void)state;
	char net[96];
	snprintf(net, sizeof(net), "udp:rdv=127.0.0.1:%u,cards=%d,timeout=10", free_port(), W);
	meet_and_talk(net);
}

static void dir_meets(void **state)
{
	(void)state;
	char net[160], d[96];
	snprintf(d, sizeof(d), "%s/meet", tmpdir);
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(net, sizeof(net), "udp:dir=%s,cards=%d,timeout=10", d, W);
	meet_and_talk(net);
}

/* ---- failures ---------------------------------------------------------------------- */

struct joiner {
	struct quire_wire_udp_rdv_spec spec;
	uint16_t addr;
	int st;
	char why[QUIRE_WIRE_UDP_RDV_ERR_MAX];
	struct quire_wire_udp_ep tab[QUIRE_WIRE_UDP_RDV_MAX_CARDS];
	uint8_t run[QUIRE_WIRE_UDP_RDV_RUN_BYTES];
	const struct quire_job_key *key; /* NULL: the job's */
};

/* A bind that binds nothing: the failures below never get as far as sending. */
static int bind_fake(void *ctx, uint32_t ip, uint16_t port[2])
{
	(void)ctx;
	(void)ip;
	port[0] = 1;
	port[1] = 2;
	return QUIRE_OK;
}

static void *join_main(void *arg)
{
	struct joiner *j = arg;
	j->st = quire_wire_udp_rdv_join(&j->spec, j->addr, j->key ? j->key : &key, bind_fake, NULL,
					j->tab, j->run, j->why, sizeof(j->why));
	return NULL;
}

static void spec_of(struct joiner *j, const char *net, uint16_t addr)
{
	char why[256];
	memset(j, 0, sizeof(*j));
	assert_int_equal(quire_wire_udp_rdv_parse(net, &j->spec, why, sizeof(why)), QUIRE_OK);
	j->addr = addr;
}

static void says(const char *why, const char *what)
{
	if (!strstr(why, what))
		fail_msg("'%s' does not say '%s'", why, what);
}

/* The timeout=1 of the failures below, in seconds; bounds are multiples of it. */
#define LIMIT_S 1.0

/* Card 2 of 3 never comes: cards 0 and 1 both fail after the 1 s timeout, naming it. */
static void missing_card(void **state)
{
	(void)state;
	char net[96];
	snprintf(net, sizeof(net), "udp:rdv=127.0.0.1:%u,cards=3,timeout=1", free_port());
	struct joiner j[2];
	pthread_t t[2];
	double t0 = now_s();
	for (int a = 0; a < 2; a++) {
		spec_of(&j[a], net, (uint16_t)a);
		assert_int_equal(pthread_create(&t[a], NULL, join_main, &j[a]), 0);
	}
	for (int a = 0; a < 2; a++)
		pthread_join(t[a], NULL);
	double took = now_s() - t0;
	/* Their timeout (timeout=1, LIMIT_S), and three more as a margin. */
	assert_true(took >= 0.9 * LIMIT_S && took < 4 * LIMIT_S);
	assert_int_equal(j[0].st, QUIRE_ERR_TIMEOUT);
	says(j[0].why, "after 1 s, 1 of 3 cards have not come: address 2");
	assert_int_equal(j[1].st, QUIRE_ERR_PEER);
	says(j[1].why, "failed: rendezvous 127.0.0.1:");
	says(j[1].why, "1 of 3 cards have not come: address 2");
	/* Nobody serves: a card that finds no rendezvous gives up after its timeout. */
	snprintf(net, sizeof(net), "udp:rdv=127.0.0.1:%u,cards=3,timeout=1", free_port());
	spec_of(&j[1], net, 1);
	t0 = now_s();
	join_main(&j[1]);
	took = now_s() - t0;
	assert_true(took >= 0.8 * LIMIT_S && took < 3 * LIMIT_S);
	assert_int_equal(j[1].st, QUIRE_ERR_TIMEOUT);
	says(j[1].why, "no rendezvous at 127.0.0.1:");
	says(j[1].why, "Connection refused");
	/* The rendezvous host is not this machine's: card 0 cannot serve it. */
	spec_of(&j[0], "udp:rdv=192.0.2.99:7000,cards=2,timeout=1", 0);
	join_main(&j[0]);
	assert_int_equal(j[0].st, QUIRE_ERR_NO_DEVICE);
	says(j[0].why, "cannot serve the rendezvous on 192.0.2.99:7000");
}

/* A connection to the rendezvous as a stranger would make it. */
static int dial(unsigned port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int t = 0; t < 200; t++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		close(fd);
		usleep(10000);
	}
	fail_msg("the rendezvous on port %u never listened", port);
	return -1;
}

/* The queues of the TCP socket from local port `from` to port `to` on loopback, from
 * /proc/net/tcp ("tx_queue:rx_queue", hex); 0 when there is no such socket. */
static int tcp_queues(unsigned from, unsigned to, unsigned long *tx, unsigned long *rx)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	char line[512];
	int found = 0;
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned la, lp, ra, rp, st;
		if (sscanf(line, " %*u: %x:%x %x:%x %x %lx:%lx", &la, &lp, &ra, &rp, &st, tx, rx) ==
			7 &&
		    lp == from && rp == to)
			found = 1;
	}
	fclose(f);
	return found;
}

/* Wait until the rendezvous, in this process, has read all that fd sent it: fd's own queue
 * is empty (the bytes reached the other end) and so is the receive queue of the
 * rendezvous' end of the connection (it took them). Its one thread handles a message
 * whole before it looks at the next connection, so what comes after is handled after. */
static void wait_taken(int fd)
{
	struct sockaddr_in me, peer;
	socklen_t l1 = sizeof(me), l2 = sizeof(peer);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&me, &l1), 0);
	assert_int_equal(getpeername(fd, (struct sockaddr *)&peer, &l2), 0);
	unsigned mine = ntohs(me.sin_port), theirs = ntohs(peer.sin_port);
	for (int i = 0; i < 6000; i++) { /* a minute at most: only a rendezvous that never reads */
		unsigned long tx, rx, tx2, rx2;
		if (tcp_queues(mine, theirs, &tx, &rx) && tx == 0 &&
		    tcp_queues(theirs, mine, &tx2, &rx2) && rx2 == 0)
			return;
		usleep(10000);
	}
	fail_msg("the rendezvous never read the first announcement");
}

/* An announcement of address addr given cards=w, protocol version ver, magic magic, with
 * its MAC under k over the challenge (k NULL: no MAC, zeros). */
static size_t announce(uint8_t *m, uint16_t addr, uint16_t w, uint8_t ver, uint32_t magic,
		       const struct quire_job_key *k, const uint8_t *challenge)
{
	memset(m, 0, QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_BYTES);
	quire_st32(m + QUIRE_WIRE_UDP_RDV_OFF_MAGIC, magic);
	m[QUIRE_WIRE_UDP_RDV_OFF_VERSION] = ver;
	m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] = QUIRE_WIRE_UDP_RDV_ANNOUNCE;
	quire_st16(m + QUIRE_WIRE_UDP_RDV_OFF_LEN, QUIRE_WIRE_UDP_RDV_ANN_BYTES);
	uint8_t *b = m + QUIRE_WIRE_UDP_RDV_HDR_BYTES;
	quire_st16(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_ADDR, addr);
	quire_st16(b + QUIRE_WIRE_UDP_RDV_ANN_OFF_CARDS, w);
	uint8_t *ep = b + QUIRE_WIRE_UDP_RDV_ANN_OFF_EP;
	ep[0] = 127, ep[3] = 1;
	quire_st16(ep + QUIRE_WIRE_UDP_RDV_EP_OFF_PORT, 5000);
	quire_st16(ep + QUIRE_WIRE_UDP_RDV_EP_OFF_PORT + 2, 5001);
	b[QUIRE_WIRE_UDP_RDV_ANN_OFF_NONCE] = (uint8_t)(addr + 1);
	if (k)
		assert_int_equal(quire_wire_udp_rdv_announce_mac(
				     k, challenge, m, b + QUIRE_WIRE_UDP_RDV_ANN_OFF_MAC),
				 QUIRE_OK);
	return QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_BYTES;
}

/* The rendezvous' challenge on a new connection fd, into c. */
static void challenge_of(int fd, uint8_t c[QUIRE_WIRE_UDP_RDV_NONCE_BYTES])
{
	uint8_t m[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_CHAL_BYTES];
	size_t have = 0;
	for (ssize_t k; have < sizeof(m) && (k = recv(fd, m + have, sizeof(m) - have, 0)) > 0;)
		have += (size_t)k;
	assert_int_equal(have, sizeof(m));
	assert_int_equal(quire_ld32(m), QUIRE_WIRE_UDP_RDV_MAGIC);
	assert_int_equal(m[QUIRE_WIRE_UDP_RDV_OFF_VERSION], QUIRE_WIRE_UDP_RDV_VERSION);
	assert_int_equal(m[QUIRE_WIRE_UDP_RDV_OFF_TYPE], QUIRE_WIRE_UDP_RDV_CHALLENGE);
	memcpy(c, m + QUIRE_WIRE_UDP_RDV_HDR_BYTES, QUIRE_WIRE_UDP_RDV_NONCE_BYTES);
}

/* The ERROR a connection receives, as text. */
static void error_reply(int fd, char *text, size_t cap)
{
	uint8_t m[QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ERR_MAX];
	size_t have = 0;
	for (ssize_t k; (k = recv(fd, m + have, sizeof(m) - have, 0)) > 0;)
		have += (size_t)k;
	assert_true(have >= QUIRE_WIRE_UDP_RDV_HDR_BYTES);
	assert_int_equal(quire_ld32(m), QUIRE_WIRE_UDP_RDV_MAGIC);
	assert_int_equal(m[QUIRE_WIRE_UDP_RDV_OFF_TYPE], QUIRE_WIRE_UDP_RDV_ERROR);
	size_t len = quire_ld16(m + QUIRE_WIRE_UDP_RDV_OFF_LEN);
	assert_int_equal(have, QUIRE_WIRE_UDP_RDV_HDR_BYTES + len);
	assert_true(len < cap);
	memcpy(text, m + QUIRE_WIRE_UDP_RDV_HDR_BYTES, len);
	text[len] = '\0';
}

/* Card 0 of 3 serves; the test sends it, as cards that prove the key, `m` from one
 * connection (and, if m2, a second message from another); it fails at once saying `what`,
 * and tells the connections. "At once": well under its timeout, which is long (LONG_S) so
 * that a card that waited for it cannot pass, however slow the machine. */
#define LONG_S 60
static void bad_announcement(uint16_t addr, uint16_t w, uint16_t addr2, const char *what)
{
	unsigned port = free_port();
	char net[96], text[QUIRE_WIRE_UDP_RDV_ERR_MAX + 1];
	snprintf(net, sizeof(net), "udp:rdv=127.0.0.1:%u,cards=3,timeout=%d", port, LONG_S);
	struct joiner j;
	pthread_t t;
	spec_of(&j, net, 0);
	double t0 = now_s();
	assert_int_equal(pthread_create(&t, NULL, join_main, &j), 0);
	uint8_t m[128], c[QUIRE_WIRE_UDP_RDV_NONCE_BYTES];
	int fd = dial(port), fd2 = -1;
	challenge_of(fd, c);
	size_t n =
	    announce(m, addr, w, QUIRE_WIRE_UDP_RDV_VERSION, QUIRE_WIRE_UDP_RDV_MAGIC, &key, c);
	assert_int_equal(send(fd, m, n, 0), (ssize_t)n);
	if (addr2 != 0xffff) {
		wait_taken(fd); /* the first counted before the second comes */
		fd2 = dial(port);
		challenge_of(fd2, c);
		n = announce(m, addr2, w, QUIRE_WIRE_UDP_RDV_VERSION, QUIRE_WIRE_UDP_RDV_MAGIC,
			     &key, c);
		assert_int_equal(send(fd2, m, n, 0), (ssize_t)n);
	}
	pthread_join(t, NULL);
	assert_true(now_s() - t0 < LONG_S / 2); /* at once, not at the timeout */
	assert_int_equal(j.st, QUIRE_ERR_INVALID);
	says(j.why, what);
	error_reply(fd2 >= 0 ? fd2 : fd, text, sizeof(text));
	assert_string_equal(text, j.why);
	close(fd);
	if (fd2 >= 0)
		close(fd2);
}

static void bad_messages(void **state)
{
	(void)state;
	bad_announcement(1, 4, 0xffff,
			 "the card of address 1 was given cards=4, this rendezvous 3");
	bad_announcement(3, 3, 0xffff, "address 3 announced, outside 0-2");
	bad_announcement(2, 3, 2, "address 2 announced twice");
}

/* A stranger's connection: what it sends (the challenge read first when it waits for one),
 * and the reason it is refused for. */
struct stranger {
	int fd;
	const char *why;
};

/*
 * Card 0 of 2 serves with a long timeout; strangers connect and send what is no proof of
 * the key: a foreign magic, a foreign version, a TABLE, a short body, an announcement with
 * no MAC, one under another key, a MAC over another challenge, nothing at all. Each is
 * refused, told why, within QUIRE_WIRE_UDP_RDV_CONN_MS (the silent one) or at once; then
 * card 1, which holds the key, joins and both meet. A card given another key is refused
 * too, and says so.
 */
static void strangers_refused(void **state)
{
	(void)state;
	unsigned port = free_port();
	char net[96], text[QUIRE_WIRE_UDP_RDV_ERR_MAX + 1];
	snprintf(net, sizeof(net), "udp:rdv=127.0.0.1:%u,cards=2,timeout=%d", port, LONG_S);
	struct joiner j0, j1, wrong;
	pthread_t t0, t1;
	spec_of(&j0, net, 0);
	double start = now_s();
	assert_int_equal(pthread_create(&t0, NULL, join_main, &j0), 0);
	struct stranger s[8];
	uint8_t m[128], c[QUIRE_WIRE_UDP_RDV_NONCE_BYTES];
	static const char *const why[8] = {
	    "a malformed announcement: not a rendezvous message (magic 0x12345678)",
	    "a malformed announcement: rendezvous protocol version 1, this card speaks 2",
	    "a malformed announcement: a message of type 2 where 1 was due",
	    "a malformed announcement: a message of type 1 with 4 bytes of body",
	    "it did not prove the job's key",
	    "it did not prove the job's key",
	    "it did not prove the job's key",
	    "no announcement within 5000 ms"};
	for (int i = 0; i < 8; i++) {
		s[i].fd = dial(port);
		s[i].why = why[i];
		challenge_of(s[i].fd, c);
		size_t n = announce(m, 1, 2, QUIRE_WIRE_UDP_RDV_VERSION, QUIRE_WIRE_UDP_RDV_MAGIC,
				    i == 5   ? &other_key
				    : i == 4 ? NULL
					     : &key,
				    c);
		if (i == 0)
			quire_st32(m, 0x12345678);
		if (i == 1)
			m[QUIRE_WIRE_UDP_RDV_OFF_VERSION] = 1;
		if (i == 2)
			m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] = QUIRE_WIRE_UDP_RDV_TABLE;
		if (i == 3)
			quire_st16(m + QUIRE_WIRE_UDP_RDV_OFF_LEN, 4);
		if (i == 6) { /* a proof made for another connection's challenge: replayed */
			c[0] ^= 1;
			n = announce(m, 1, 2, QUIRE_WIRE_UDP_RDV_VERSION, QUIRE_WIRE_UDP_RDV_MAGIC,
				     &key, c);
		}
		if (i < 7)
			assert_int_equal(send(s[i].fd, m, n, 0), (ssize_t)n);
	}
	for (int i = 0; i < 8; i++) {
		error_reply(s[i].fd, text, sizeof(text));
		says(text, "refused by the rendezvous: ");
		says(text, s[i].why);
		close(s[i].fd);
	}
	/* The silent one waited its 5 s; nothing has failed the rendezvous. */
	assert_true(now_s() - start < LONG_S / 2);
	/* A card of another job (another key) is refused, and says so. */
	spec_of(&wrong, net, 1);
	wrong.key = &other_key;
	join_main(&wrong);
	assert_int_equal(wrong.st, QUIRE_ERR_PEER);
	says(wrong.why, "refused by the rendezvous: it did not prove the job's key");
	/* The card that holds the key: both meet, one run. */
	spec_of(&j1, net, 1);
	assert_int_equal(pthread_create(&t1, NULL, join_main, &j1), 0);
	pthread_join(t1, NULL);
	pthread_join(t0, NULL);
	assert_int_equal(j0.st, QUIRE_OK);
	assert_int_equal(j1.st, QUIRE_OK);
	assert_memory_equal(j0.run, j1.run, QUIRE_WIRE_UDP_RDV_RUN_BYTES);
	assert_int_equal(j1.tab[1].port[0], 1); /* bind_fake's */
}

/* A rendezvous of another job: it challenges, takes the announcement and answers with a
 * table whose MAC is not the key's. */
static void *impostor_main(void *arg)
{
	int lfd = *(int *)arg;
	int fd = accept(lfd, NULL, NULL);
	uint8_t m[256] = {0};
	quire_st32(m + QUIRE_WIRE_UDP_RDV_OFF_MAGIC, QUIRE_WIRE_UDP_RDV_MAGIC);
	m[QUIRE_WIRE_UDP_RDV_OFF_VERSION] = QUIRE_WIRE_UDP_RDV_VERSION;
	m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] = QUIRE_WIRE_UDP_RDV_CHALLENGE;
	quire_st16(m + QUIRE_WIRE_UDP_RDV_OFF_LEN, QUIRE_WIRE_UDP_RDV_CHAL_BYTES);
	(void)!send(fd, m, QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_CHAL_BYTES, 0);
	(void)!recv(fd, m, QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_BYTES,
		    MSG_WAITALL);
	memset(m, 0, sizeof(m));
	quire_st32(m + QUIRE_WIRE_UDP_RDV_OFF_MAGIC, QUIRE_WIRE_UDP_RDV_MAGIC);
	m[QUIRE_WIRE_UDP_RDV_OFF_VERSION] = QUIRE_WIRE_UDP_RDV_VERSION;
	m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] = QUIRE_WIRE_UDP_RDV_TABLE;
	quire_st16(m + QUIRE_WIRE_UDP_RDV_OFF_LEN, QUIRE_WIRE_UDP_RDV_TAB_BYTES(2));
	quire_st16(m + QUIRE_WIRE_UDP_RDV_HDR_BYTES, 2);
	(void)!send(fd, m, QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_TAB_BYTES(2), 0);
	close(fd);
	return NULL;
}

/* A listening socket on loopback, any port, into *port. */
static int listener(unsigned *port)
{
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t l = sizeof(a);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &l), 0);
	*port = ntohs(a.sin_port);
	return lfd;
}

static void impostor_refused(void **state)
{
	(void)state;
	unsigned port;
	int lfd = listener(&port);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, impostor_main, &lfd), 0);
	char net[96];
	snprintf(net, sizeof(net), "udp:rdv=127.0.0.1:%u,cards=2,timeout=%d", port, LONG_S);
	struct joiner j;
	spec_of(&j, net, 1);
	join_main(&j);
	pthread_join(t, NULL);
	close(lfd);
	assert_int_equal(j.st, QUIRE_ERR_INVALID);
	says(j.why, "did not prove the job's key (its table's MAC fails");
}

/* A rendezvous that takes the announcement and goes away: the card says so at once. */
static void *vanish_main(void *arg)
{
	int lfd = *(int *)arg;
	int fd = accept(lfd, NULL, NULL);
	uint8_t m[128] = {0};
	quire_st32(m + QUIRE_WIRE_UDP_RDV_OFF_MAGIC, QUIRE_WIRE_UDP_RDV_MAGIC);
	m[QUIRE_WIRE_UDP_RDV_OFF_VERSION] = QUIRE_WIRE_UDP_RDV_VERSION;
	m[QUIRE_WIRE_UDP_RDV_OFF_TYPE] = QUIRE_WIRE_UDP_RDV_CHALLENGE;
	quire_st16(m + QUIRE_WIRE_UDP_RDV_OFF_LEN, QUIRE_WIRE_UDP_RDV_CHAL_BYTES);
	(void)!send(fd, m, QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_CHAL_BYTES, 0);
	(void)!recv(fd, m, sizeof(m), 0);
	close(fd);
	return NULL;
}

static void rendezvous_dies(void **state)
{
	(void)state;
	unsigned port;
	int lfd = listener(&port);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, vanish_main, &lfd), 0);
	char net[96];
	snprintf(net, sizeof(net), "udp:rdv=127.0.0.1:%u,cards=2,timeout=%d", port, LONG_S);
	struct joiner j;
	spec_of(&j, net, 1);
	double t0 = now_s();
	join_main(&j);
	pthread_join(t, NULL);
	close(lfd);
	assert_true(now_s() - t0 < LONG_S / 2); /* at once, not at the timeout */
	assert_int_equal(j.st, QUIRE_ERR_PEER);
	says(j.why, "closed the connection before sending the table");
}

static void dir_failures(void **state)
{
	(void)state;
	char d[96], net[160], f[128];
	snprintf(d, sizeof(d), "%s/bad", tmpdir);
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(net, sizeof(net), "udp:dir=%s,cards=3,timeout=1", d);
	struct joiner j;
	/* Alone: the two others are named after the timeout. */
	spec_of(&j, net, 1);
	double t0 = now_s(), took;
	join_main(&j);
	took = now_s() - t0;
	assert_true(took >= 0.9 * LIMIT_S && took < 3 * LIMIT_S);
	assert_int_equal(j.st, QUIRE_ERR_TIMEOUT);
	says(j.why, "after 1 s, 2 of 3 cards have not come: addresses 0, 2");
	/* Its file stays: address 1 is taken. */
	spec_of(&j, net, 1);
	join_main(&j);
	assert_int_equal(j.st, QUIRE_ERR_INVALID);
	says(j.why, "cannot announce address 1: announced already");
	/* A file that is not an announcement. */
	snprintf(f, sizeof(f), "%s/udp-2", d);
	FILE *fp = fopen(f, "w");
	assert_non_null(fp);
	fputs("hello", fp);
	fclose(fp);
	spec_of(&j, net, 0);
	join_main(&j);
	assert_int_equal(j.st, QUIRE_ERR_INVALID);
	says(j.why, "udp-2 is malformed: 5 bytes, a message cut short");
	/* A card given another key refuses the files of the job's (and they its file). */
	assert_int_equal(unlink(f), 0);
	spec_of(&j, net, 2);
	j.key = &other_key;
	join_main(&j); /* writes udp-2, then finds udp-0 of the job's key */
	assert_int_equal(j.st, QUIRE_ERR_INVALID);
	says(j.why, "udp-0 does not prove the job's key");
	/* No key at all: refused before anything. */
	spec_of(&j, net, 0);
	j.st = quire_wire_udp_rdv_join(&j.spec, 0, NULL, bind_fake, NULL, j.tab, j.run, j.why,
				       sizeof(j.why));
	assert_int_equal(j.st, QUIRE_ERR_INVALID);
	says(j.why, "the rendezvous needs the job's key");
	/* No such directory. */
	snprintf(net, sizeof(net), "udp:dir=%s/none,cards=2,timeout=1", d);
	spec_of(&j, net, 0);
	join_main(&j);
	assert_int_equal(j.st, QUIRE_ERR_NO_DEVICE);
	says(j.why, "No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(forms),
	    cmocka_unit_test(rdv_meets),
	    cmocka_unit_test(dir_meets),
	    cmocka_unit_test(missing_card),
	    cmocka_unit_test(bad_messages),
	    cmocka_unit_test(strangers_refused),
	    cmocka_unit_test(impostor_refused),
	    cmocka_unit_test(rendezvous_dies),
	    cmocka_unit_test(dir_failures),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
