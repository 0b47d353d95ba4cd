// SPDX-License-Identifier: MIT
/*
 * The cards' network over UDP (sim/wire_udp.c under sim/reliable_link.c), on loopback: address
 * tables good and bad; a frame of the largest size crosses in two datagrams whole; the
 * transport alone, with datagrams forged by a plain socket standing for port 1, joins two
 * pieces that come in turn, swapped, or with other datagrams between them, never joins a
 * piece with one of another datagram, pushes out pieces whose partner never comes, on
 * either channel, and ignores a stranger's; and the link above UDP, through 5% loss and 5%
 * corruption, hands on every frame whole, in order and once, sending frames again.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "quire/status.h"
#include "sim/reliable_link.h"
#include "sim/wire_udp.h"
#include "test_util.h"

#define MAX_GOT 16
#define N_LOSSY 300

struct sink { /* what a port received, in order */
	pthread_mutex_t lock;
	int n;
	uint32_t len[MAX_GOT];
	uint8_t *data[MAX_GOT];
};

static int room(void *ctx)
{
	(void)ctx;
	return 1;
}

static void deliver(void *ctx, const uint8_t *f, uint32_t len)
{
	struct sink *s = ctx;
	pthread_mutex_lock(&s->lock);
	if (s->n < MAX_GOT) {
		s->data[s->n] = malloc(len);
		memcpy(s->data[s->n], f, len);
		s->len[s->n++] = len;
	}
	pthread_mutex_unlock(&s->lock);
}

static int got(struct sink *s)
{
	pthread_mutex_lock(&s->lock);
	int n = s->n;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Waits up to ms for the sink to hold n frames; how many it holds. */
static int wait_for(struct sink *s, int n, int ms)
{
	for (int t = 0; t < ms && got(s) < n; t++)
		usleep(1000);
	return got(s);
}

static void sink_free(struct sink *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->data[i]);
	pthread_mutex_destroy(&s->lock);
}

static const struct quire_reliable_link_rx_ops ops = {room, deliver};
static unsigned base;
static char net[64];

static int setup(void **state)
{
	(void)state;
	base = 30000u + (unsigned)getpid() % 20000u; /* another run may share the machine */
	snprintf(net, sizeof(net), "udp:127.0.0.1:%u", base);
	/* The links of a UDP network take the job's key from the environment. */
	setenv("QUIRE_JOB_KEY", "000102030405060708090a0b0c0d0e0f", 1);
	return 0;
}

static void tables(void **state)
{
	(void)state;
	assert_int_equal(quire_wire_udp_is("udp:1.2.3.4"), 1);
	assert_int_equal(quire_wire_udp_is("/tmp/dir"), 0);
	assert_int_equal(quire_wire_udp_check("udp:127.0.0.1", 200), QUIRE_OK);
	assert_int_equal(quire_wire_udp_check("udp:10.0.0.1,10.0.0.2:5000", 1), QUIRE_OK);
	assert_int_equal(quire_wire_udp_check("udp:10.0.0.1,10.0.0.2", 2), QUIRE_ERR_RANGE);
	assert_int_equal(quire_wire_udp_check("udp:127.0.0.1", 256), QUIRE_ERR_RANGE);
	assert_int_equal(quire_wire_udp_check("udp:", 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_wire_udp_check("udp:nowhere", 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_wire_udp_check("udp:1.2.3.4:", 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_wire_udp_check("udp:1.2.3.4:65500", 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_wire_udp_check("udp:1.2.3.4:65100", 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_wire_udp_check("udp:1.2.3.4:65000", 0), QUIRE_OK);
	struct quire_netport_config cfg = {.dir = "udp:192.0.2.77", .addr = 0};
	struct quire_reliable_link *l;
	struct sink s = {.lock = PTHREAD_MUTEX_INITIALIZER};
	assert_int_equal(quire_reliable_link_open(&cfg, &ops, &s, &l), QUIRE_ERR_NO_DEVICE);
}

/* A frame the link takes: a header whose length and CRC are right, payload bytes from k. */
static uint32_t make_frame(uint8_t *f, uint32_t payload, uint32_t k)
{
	memset(f, 0, QUIRE_FRAME_HDR_BYTES);
	f[0] = QUIRE_FRAME_VERSION;
	for (uint32_t i = 0; i < payload; i++)
		f[QUIRE_FRAME_HDR_BYTES + i] = (uint8_t)(i * 7 + k * 13 + 3);
	uint32_t len = QUIRE_FRAME_HDR_BYTES + payload;
	memcpy(f + QUIRE_FRAME_OFF_LEN, &payload, 4); /* little-endian hosts, as the card */
	uint32_t crc = quire_net_frame_crc(f, len);
	memcpy(f + QUIRE_FRAME_OFF_CRC, &crc, 4);
	return len;
}

/* The largest frame, and a small one behind it, from port 1 to port 0 through the links. */
static void whole_frames(void **state)
{
	(void)state;
	struct sink s = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct quire_netport_config c0 = {.dir = net, .addr = 0}, c1 = {.dir = net, .addr = 1};
	struct quire_reliable_link *l0, *l1;
	assert_int_equal(quire_reliable_link_open(&c0, &ops, &s, &l0), QUIRE_OK);
	struct sink none = {.lock = PTHREAD_MUTEX_INITIALIZER};
	assert_int_equal(quire_reliable_link_open(&c1, &ops, &none, &l1), QUIRE_OK);
	static uint8_t big[QUIRE_NET_FRAME_MAX], small[QUIRE_FRAME_HDR_BYTES + 8];
	uint32_t big_len = make_frame(big, QUIRE_FRAME_MAX_PAYLOAD, 1),
		 small_len = make_frame(small, 8, 2);
	assert_int_equal(big_len, sizeof(big));
	int nobody;
	assert_int_equal(quire_reliable_link_send(l1, 0, big, big_len, &nobody), QUIRE_OK);
	assert_int_equal(quire_reliable_link_send(l1, 0, small, small_len, &nobody), QUIRE_OK);
	assert_int_equal(wait_for(&s, 2, 2000), 2);
	assert_int_equal(s.len[0], big_len);
	assert_memory_equal(s.data[0], big, big_len);
	assert_int_equal(s.len[1], small_len);
	assert_memory_equal(s.data[1], small, small_len);
	/* Nobody at address 9: UDP cannot tell, the frame is sent (and lost). */
	assert_int_equal(quire_reliable_link_send(l1, 9, small, small_len, &nobody), QUIRE_OK);
	assert_int_equal(nobody, 0);
	assert_int_equal(quire_reliable_link_send(l1, 300, small, small_len, &nobody),
			 QUIRE_ERR_RANGE);
	quire_reliable_link_close(l1);
	quire_reliable_link_close(l0);
	sink_free(&s);
	sink_free(&none);
}

/* A datagram as port 1 sends it: the tag (piece of pieces, number seq), then `name`. */
static void forge(int fd, unsigned to_port, uint8_t piece, uint8_t pieces, uint32_t seq,
		  const char *name)
{
	uint8_t d[64] = {0x71,
			 piece,
			 pieces,
			 0,
			 (uint8_t)seq,
			 (uint8_t)(seq >> 8),
			 (uint8_t)(seq >> 16),
			 (uint8_t)(seq >> 24)};
	size_t n = strlen(name);
	memcpy(d + 8, name, n);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)to_port)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(sendto(fd, d, 8 + n, 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)(8 + n));
}

static int udp_at(unsigned port)
{
	int fd = test_udp_loopback(port);
	assert_true(fd >= 0);
	return fd;
}

/* The next datagram the transport completes on channel ch within 1 s, as a string; "" when
 * none does. */
static const char *next_of(struct quire_wire_udp *u, enum quire_wire_chan ch, char *buf,
			   uint32_t *src)
{
	for (int t = 0; t < 1000; t++) {
		uint32_t off, len;
		int r = quire_wire_udp_recv(u, ch, (uint8_t *)buf, QUIRE_WIRE_HEADROOM + 63, &off,
					    &len, src);
		if (r == 1) {
			buf[off + len] = '\0';
			return buf + off;
		}
		if (r < 0)
			usleep(1000);
	}
	buf[0] = '\0';
	return buf;
}

static void pieces(void **state)
{
	(void)state;
	struct quire_wire_udp *u;
	assert_int_equal(quire_wire_udp_open(net, 0, NULL, &u), QUIRE_OK);
	int p1 = udp_at(base + 1), l1 = udp_at(base + QUIRE_WIRE_UDP_LINK_OFF + 1),
	    stranger = udp_at(base + 300);
	char buf[QUIRE_WIRE_HEADROOM + 64];
	uint32_t src = 99;
	forge(p1, base, 0, 2, 1, "ab"); /* two pieces in turn: joined */
	forge(p1, base, 1, 2, 2, "cd");
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "abcd");
	assert_int_equal(src, 1);
	forge(p1, base, 1, 2, 4, "xx");      /* a second piece whose first is missing: waits */
	forge(stranger, base, 0, 1, 5, "s"); /* not of the table: ignored */
	forge(p1, base, 0, 2, 6, "yy");      /* a first piece, then not its second: waits */
	forge(p1, base, 0, 1, 7, "e");
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "e");
	forge(p1, base, 1, 2, 8, "zz"); /* not yy's second (7 is between): never joined to it */
	forge(p1, base, 0, 2, 9, "f");
	forge(p1, base, 1, 2, 11, "g"); /* not f's second: a piece between went missing */
	forge(p1, base, 0, 1, 12, "h");
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "h");
	/* Swapped on the way (between namespaces the kernel swaps datagrams): the second piece
	 * first, then a whole datagram, then the first piece: joined in order. */
	forge(p1, base, 1, 2, 14, "jk");
	forge(p1, base, 0, 1, 15, "w");
	forge(p1, base, 0, 2, 13, "i");
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "w");
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "ijk");
	/* Two datagrams' pieces crossed: each joined with its own. */
	forge(p1, base, 0, 2, 16, "l");
	forge(p1, base, 0, 2, 18, "n");
	forge(p1, base, 1, 2, 19, "o");
	forge(p1, base, 1, 2, 17, "m");
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "no");
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "lm");
	/* Pieces whose partners never come are pushed out by newer ones: their late partners
	 * (4 waiting places per sender) find nothing, and nothing is joined wrongly. */
	for (uint32_t k = 0; k < 5; k++)
		forge(p1, base, 0, 2, 100 + 2 * k, "p");
	forge(p1, base, 1, 2, 101, "q"); /* 100 was pushed out: waits alone */
	forge(p1, base, 1, 2, 109, "r"); /* 108 waits: joined */
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "pr");
	forge(l1, base + QUIRE_WIRE_UDP_LINK_OFF, 0, 1, 1, "ack"); /* the link channel */
	assert_string_equal(next_of(u, QUIRE_WIRE_LINK, buf, &src), "ack");
	assert_int_equal(src, 1);
	/* Nothing else was joined: a whole datagram sent last is the next one out (one sender's
	 * datagrams on loopback come in order), so no wait for "nothing" decides it. */
	forge(p1, base, 0, 1, 110, "end");
	assert_string_equal(next_of(u, QUIRE_WIRE_FRAMES, buf, &src), "end");
	close(p1);
	close(l1);
	close(stranger);
	quire_wire_udp_close(u);
}

/* What port 0 received through the lossy link: frame k is the k-th sent, whole. */
struct check {
	pthread_mutex_t lock;
	int n, bad;
};

static void deliver_check(void *ctx, const uint8_t *f, uint32_t len)
{
	struct check *c = ctx;
	static uint8_t want[QUIRE_NET_FRAME_MAX];
	pthread_mutex_lock(&c->lock);
	uint32_t k = (uint32_t)c->n, wlen = make_frame(want, (k * 4099u) % 70000u % 65537u, k);
	if (len != wlen || memcmp(f, want, len) != 0)
		c->bad++;
	c->n++;
	pthread_mutex_unlock(&c->lock);
}

static int checked(struct check *c)
{
	pthread_mutex_lock(&c->lock);
	int n = c->n;
	pthread_mutex_unlock(&c->lock);
	return n;
}

static void lossy(void **state)
{
	(void)state;
	struct check c = {.lock = PTHREAD_MUTEX_INITIALIZER};
	const struct quire_reliable_link_rx_ops check_ops = {room, deliver_check};
	struct quire_netport_config
	    c0 = {.dir = net, .addr = 0, .drop = 0.05, .corrupt = 0.05, .seed = 11},
	    c1 = {.dir = net, .addr = 1, .drop = 0.05, .corrupt = 0.05, .seed = 11};
	struct quire_reliable_link *l0, *l1;
	assert_int_equal(quire_reliable_link_open(&c0, &check_ops, &c, &l0), QUIRE_OK);
	struct sink none = {.lock = PTHREAD_MUTEX_INITIALIZER};
	assert_int_equal(quire_reliable_link_open(&c1, &ops, &none, &l1), QUIRE_OK);
	static uint8_t f[QUIRE_NET_FRAME_MAX];
	for (uint32_t k = 0; k < N_LOSSY; k++) {
		uint32_t len = make_frame(f, (k * 4099u) % 70000u % 65537u, k);
		int nobody, st, tries = 0;
		while ((st = quire_reliable_link_send(l1, 0, f, len, &nobody)) == QUIRE_ERR_BUSY &&
		       tries++ < 20000)
			usleep(200);
		assert_int_equal(st, QUIRE_OK);
	}
	for (int t = 0; t < 20000 && checked(&c) < N_LOSSY; t++)
		usleep(1000);
	assert_int_equal(checked(&c), N_LOSSY);
	assert_int_equal(c.bad, 0);
	struct quire_reliable_link_stats s0, s1;
	quire_reliable_link_stats(l0, &s0);
	quire_reliable_link_stats(l1, &s1);
	print_message("over UDP, 5%% loss and corruption: %d frames, %llu sent again, %llu NACKs\n",
		      N_LOSSY, (unsigned long long)s1.retransmits, (unsigned long long)s0.nacks);
	assert_true(s1.retransmits > 0);
	assert_true(s1.wire_lost > 0 && s1.wire_damaged > 0);
	quire_reliable_link_close(l1);
	quire_reliable_link_close(l0); /* joins its receiving threads: nothing is delivered after */
	assert_int_equal(checked(&c), N_LOSSY); /* nothing twice */
	sink_free(&none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tables),
	    cmocka_unit_test(whole_frames),
	    cmocka_unit_test(pieces),
	    cmocka_unit_test(lossy),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
