// SPDX-License-Identifier: MIT
/*
 * The cards' network over UDP (sim/netudp.c under sim/netlink.c), on loopback: address
 * tables good and bad; a frame of the largest size crosses in two datagrams whole; and,
 * with datagrams forged by a plain socket standing for port 1, the receiver's order: early
 * datagrams wait for a late one, one missing for 20 ms is lost and what waited goes on,
 * one that comes after that is dropped, and a stranger's datagram is ignored.
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
#include "sim/netlink.h"
#include "sim/netudp.h"

#define MAX_GOT 16

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

static const struct quire_net_rx_ops ops = {room, deliver};
static unsigned base;
static char net[64];

static int setup(void **state)
{
	(void)state;
	base = 30000u + (unsigned)getpid() % 20000u; /* another run may share the machine */
	snprintf(net, sizeof(net), "udp:127.0.0.1:%u", base);
	return 0;
}

static void tables(void **state)
{
	(void)state;
	assert_int_equal(quire_net_udp_is("udp:1.2.3.4"), 1);
	assert_int_equal(quire_net_udp_is("/tmp/dir"), 0);
	assert_int_equal(quire_net_udp_check("udp:127.0.0.1", 200), QUIRE_OK);
	assert_int_equal(quire_net_udp_check("udp:10.0.0.1,10.0.0.2:5000", 1), QUIRE_OK);
	assert_int_equal(quire_net_udp_check("udp:10.0.0.1,10.0.0.2", 2), QUIRE_ERR_RANGE);
	assert_int_equal(quire_net_udp_check("udp:127.0.0.1", 256), QUIRE_ERR_RANGE);
	assert_int_equal(quire_net_udp_check("udp:", 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_net_udp_check("udp:nowhere", 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_net_udp_check("udp:1.2.3.4:", 0), QUIRE_ERR_INVALID);
	assert_int_equal(quire_net_udp_check("udp:1.2.3.4:65500", 0), QUIRE_ERR_INVALID);
	struct quire_netport_config cfg = {.dir = "udp:192.0.2.77", .addr = 0};
	struct quire_net_link *l;
	struct sink s = {.lock = PTHREAD_MUTEX_INITIALIZER};
	assert_int_equal(quire_net_link_open(&cfg, &ops, &s, &l), QUIRE_ERR_NO_DEVICE);
}

/* The largest frame, and a small one behind it, from port 1 to port 0 through the links. */
static void whole_frames(void **state)
{
	(void)state;
	struct sink s = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct quire_netport_config c0 = {.dir = net, .addr = 0}, c1 = {.dir = net, .addr = 1};
	struct quire_net_link *l0, *l1;
	assert_int_equal(quire_net_link_open(&c0, &ops, &s, &l0), QUIRE_OK);
	struct sink none = {.lock = PTHREAD_MUTEX_INITIALIZER};
	assert_int_equal(quire_net_link_open(&c1, &ops, &none, &l1), QUIRE_OK);
	static uint8_t big[QUIRE_NET_FRAME_MAX], small[40];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 3);
	memset(small, 0x5a, sizeof(small));
	int nobody;
	assert_int_equal(quire_net_link_send(l1, 0, big, sizeof(big), &nobody), QUIRE_OK);
	assert_int_equal(quire_net_link_send(l1, 0, small, sizeof(small), &nobody), QUIRE_OK);
	assert_int_equal(wait_for(&s, 2, 2000), 2);
	assert_int_equal(s.len[0], sizeof(big));
	assert_memory_equal(s.data[0], big, sizeof(big));
	assert_int_equal(s.len[1], sizeof(small));
	assert_memory_equal(s.data[1], small, sizeof(small));
	assert_int_equal(quire_net_link_send(l1, 9, small, sizeof(small), &nobody), QUIRE_OK);
	quire_net_link_close(l1);
	quire_net_link_close(l0);
	sink_free(&s);
	sink_free(&none);
}

/* A datagram as port 1 sends it: the tag, then one byte that names it. */
static void forge(int fd, unsigned to_port, uint32_t seq, uint8_t name)
{
	uint8_t d[9] = {0x71,
			0,
			1,
			0,
			(uint8_t)seq,
			(uint8_t)(seq >> 8),
			(uint8_t)(seq >> 16),
			(uint8_t)(seq >> 24),
			name};
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)to_port)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(sendto(fd, d, sizeof(d), 0, (struct sockaddr *)&to, sizeof(to)), 9);
}

static int udp_at(unsigned port)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void order(void **state)
{
	(void)state;
	struct sink s = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct quire_netport_config c0 = {.dir = net, .addr = 0};
	struct quire_net_link *l0;
	assert_int_equal(quire_net_link_open(&c0, &ops, &s, &l0), QUIRE_OK);
	int p1 = udp_at(base + 1), stranger = udp_at(base + 300);
	forge(p1, base, 1, 'a'); /* the first heard sets the count */
	assert_int_equal(wait_for(&s, 1, 2000), 1);
	forge(p1, base, 3, 'c'); /* early: waits for 2 */
	forge(stranger, base, 2, 'x');
	usleep(2000);
	assert_int_equal(got(&s), 1);
	forge(p1, base, 2, 'b');
	assert_int_equal(wait_for(&s, 3, 2000), 3);
	forge(p1, base, 5, 'e'); /* 4 never comes: lost after 20 ms, then e goes on */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(wait_for(&s, 4, 2000), 4);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	assert_true(ms >= 15.0);
	forge(p1, base, 4, 'd'); /* too late: dropped */
	forge(p1, base, 6, 'f');
	assert_int_equal(wait_for(&s, 5, 2000), 5);
	usleep(10000);
	assert_int_equal(got(&s), 5);
	const char want[] = "abcef";
	for (int i = 0; i < 5; i++) {
		assert_int_equal(s.len[i], 1);
		assert_int_equal(s.data[i][0], want[i]);
	}
	close(p1);
	close(stranger);
	quire_net_link_close(l0);
	sink_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tables),
	    cmocka_unit_test(whole_frames),
	    cmocka_unit_test(order),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
