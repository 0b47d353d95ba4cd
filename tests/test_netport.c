// SPDX-License-Identifier: MIT
/*
 * The emu's network port (sim/emu/netport.c) driven through its registers, two ports on
 * one simulated network in a temporary directory, each with card memory of its own: the
 * transmit ring's checks (a ring outside card memory, a frame too long or outside card
 * memory: STATUS, nothing sent), frames through rings of 4 wrapping around (into buffers
 * on a line and half a line in), a receive buffer outside card memory or neither on a
 * line nor half a line in given back at once with QUIRE_ERR_RANGE, a
 * full receive ring holding the frame back until a buffer is posted (then whole), and a
 * frame cut to a short buffer (SIZE, TRUNC). Frames that fail the CRC or length check never
 * reach the emu's port (its link sends them again); tests/rtl/card_net.c checks the RTL
 * port's dropping of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "quire/card.h"
#include "quire/frame.h"
#include "quire/status.h"
#include "sim/emu/netport.h"
#include "sim/le.h"

#define MEM_BYTES (1u << 20)
#define TX_RING   0x1000u
#define RX_RING   0x1400u
#define FRAME_AT  0x2000u
#define BUF(i)    (0x10000u + (i)*0x10040u)
#define BUF_BYTES (QUIRE_FRAME_HDR_BYTES + QUIRE_FRAME_MAX_PAYLOAD)
#define DONE(st)  ((uint32_t)QUIRE_NET_DESC_F_DONE << 16 | (uint32_t)(st))

struct port {
	struct quire_netport *p;
	uint8_t *mem;
	uint32_t tx_prod, rx_prod;
};

struct net {
	char dir[64];
	struct port a, b; /* addresses 1 and 2 */
};

static void no_wake(void *ctx)
{
	(void)ctx;
}

static void open_port(struct net *n, struct port *pt, uint16_t addr)
{
	struct quire_netport_config cfg = {.dir = n->dir, .addr = addr};
	pt->mem = calloc(1, MEM_BYTES);
	assert_non_null(pt->mem);
	assert_int_equal(quire_netport_open(&cfg, pt->mem, MEM_BYTES, no_wake, NULL, &pt->p),
			 QUIRE_OK);
	quire_netport_write(pt->p, QUIRE_NET_TX_BASE, TX_RING);
	quire_netport_write(pt->p, QUIRE_NET_TX_LOG2, 2);
	quire_netport_write(pt->p, QUIRE_NET_RX_BASE, RX_RING);
	quire_netport_write(pt->p, QUIRE_NET_RX_LOG2, 2);
}

static int setup(void **state)
{
	struct net *n = calloc(1, sizeof(*n));
	assert_non_null(n);
	snprintf(n->dir, sizeof(n->dir), "/tmp/quire-netport-XXXXXX");
	assert_non_null(mkdtemp(n->dir));
	open_port(n, &n->a, 1);
	open_port(n, &n->b, 2);
	*state = n;
	return 0;
}

static int teardown(void **state)
{
	struct net *n = *state;
	quire_netport_close(n->a.p);
	quire_netport_close(n->b.p);
	free(n->a.mem);
	free(n->b.mem);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", n->dir);
	assert_int_equal(system(cmd), 0);
	free(n);
	return 0;
}

static uint32_t reg(struct port *pt, uint32_t r)
{
	return quire_netport_read(pt->p, r);
}

static void put_desc(struct port *pt, uint32_t at, uint32_t card, uint32_t len)
{
	quire_st32(pt->mem + at + QUIRE_NET_DESC_CARD, card);
	quire_st32(pt->mem + at + QUIRE_NET_DESC_LEN, len);
	quire_st32(pt->mem + at + QUIRE_NET_DESC_STATUS, 0);
	quire_st32(pt->mem + at + QUIRE_NET_DESC_PAD, 0);
}

static uint32_t tx_desc(uint32_t i)
{
	return TX_RING + QUIRE_NET_DESC_BYTES * (i & 3u);
}

static uint32_t rx_desc(uint32_t i)
{
	return RX_RING + QUIRE_NET_DESC_BYTES * (i & 3u);
}

/* A DATA frame at FRAME_AT of port pt to dst: payload of len bytes of seed, header LEN
 * field hdr_len. */
static void build(struct port *pt, uint16_t dst, uint32_t len, uint32_t hdr_len, uint8_t seed)
{
	uint8_t *f = pt->mem + FRAME_AT;
	memset(f, 0, QUIRE_FRAME_HDR_BYTES);
	quire_st32(f, QUIRE_FRAME_VERSION | QUIRE_FRAME_DATA << 8);
	quire_st32(f + QUIRE_FRAME_OFF_ADDRS, (uint32_t)dst << 16);
	quire_st32(f + QUIRE_FRAME_OFF_COLL_SEQ, seed);
	quire_st32(f + QUIRE_FRAME_OFF_LEN, hdr_len);
	for (uint32_t i = 0; i < len; i++)
		f[QUIRE_FRAME_HDR_BYTES + i] = (uint8_t)(i * 7 + seed);
}

/* Queue the frame at `card` of len bytes; the emu's port sends in the PROD write. */
static uint32_t send(struct port *pt, uint32_t card, uint32_t len)
{
	uint32_t d = tx_desc(pt->tx_prod);
	put_desc(pt, d, card, len);
	quire_netport_write(pt->p, QUIRE_NET_TX_PROD, ++pt->tx_prod);
	assert_int_equal(reg(pt, QUIRE_NET_TX_CONS), pt->tx_prod);
	return quire_ld32(pt->mem + d + QUIRE_NET_DESC_STATUS);
}

static void post(struct port *pt, uint32_t card, uint32_t len)
{
	put_desc(pt, rx_desc(pt->rx_prod), card, len);
	quire_netport_write(pt->p, QUIRE_NET_RX_PROD, ++pt->rx_prod);
}

/* Waits up to 5 s for register r of pt to read v (frames cross in another thread). */
static int reaches(struct port *pt, uint32_t r, uint32_t v)
{
	for (int i = 0; i < 5000; i++) {
		if (reg(pt, r) == v)
			return 1;
		usleep(1000);
	}
	return 0;
}

/* Receive descriptor i of B holds the frame `seed` of len payload bytes from A, in buf. */
static void received(struct port *pt, uint32_t i, uint32_t buf, uint32_t len, uint8_t seed)
{
	const uint8_t *d = pt->mem + rx_desc(i), *f = pt->mem + buf;
	assert_int_equal(quire_ld32(d + QUIRE_NET_DESC_STATUS), DONE(QUIRE_OK));
	assert_int_equal(quire_ld32(d + QUIRE_NET_DESC_CARD), buf);
	assert_int_equal(quire_ld32(d + QUIRE_NET_DESC_LEN), QUIRE_FRAME_HDR_BYTES + len);
	assert_int_equal(quire_ld32(f + QUIRE_FRAME_OFF_ADDRS), 1u | 2u << 16); /* src stamped */
	assert_int_equal(quire_ld32(f + QUIRE_FRAME_OFF_COLL_SEQ), seed);
	for (uint32_t k = 0; k < len; k++)
		assert_int_equal(f[QUIRE_FRAME_HDR_BYTES + k], (uint8_t)(k * 7 + seed));
}

static void test_transmit_checks(void **state)
{
	struct net *n = *state;
	struct port *a = &n->a;
	quire_netport_write(a->p, QUIRE_NET_TX_BASE, MEM_BYTES - 16);
	assert_int_equal(reg(a, QUIRE_NET_TX_STATE), QUIRE_ERR_RANGE);
	quire_netport_write(a->p, QUIRE_NET_TX_BASE, TX_RING);
	assert_int_equal(reg(a, QUIRE_NET_TX_STATE), QUIRE_OK);
	build(a, 2, 0, 0, 1);
	assert_int_equal(send(a, FRAME_AT, QUIRE_FRAME_HDR_BYTES - 1), DONE(QUIRE_ERR_SIZE));
	assert_int_equal(send(a, FRAME_AT, BUF_BYTES + 1), DONE(QUIRE_ERR_SIZE));
	assert_int_equal(send(a, FRAME_AT + 2, QUIRE_FRAME_HDR_BYTES), DONE(QUIRE_ERR_RANGE));
	assert_int_equal(send(a, MEM_BYTES - 16, QUIRE_FRAME_HDR_BYTES), DONE(QUIRE_ERR_RANGE));
	struct quire_netport_stats st;
	quire_netport_stats(a->p, &st);
	assert_int_equal(st.tx_frames, 0);
}

static void test_rings_wrap(void **state)
{
	struct net *n = *state;
	struct port *a = &n->a, *b = &n->b;
	/* Receive buffers outside card memory or neither on a line nor half a line in: given
	 * back at once. */
	post(b, MEM_BYTES - 64, 128);
	post(b, BUF(0) + 16, BUF_BYTES);
	assert_int_equal(reg(b, QUIRE_NET_RX_CONS), 2);
	assert_int_equal(quire_ld32(b->mem + rx_desc(0) + QUIRE_NET_DESC_STATUS),
			 DONE(QUIRE_ERR_RANGE));
	assert_int_equal(quire_ld32(b->mem + rx_desc(1) + QUIRE_NET_DESC_STATUS),
			 DONE(QUIRE_ERR_RANGE));
	for (uint32_t i = 0; i < 10; i++) { /* 10 frames through rings of 4 */
		uint32_t len = 100 + 40 * i;
		build(a, 2, len, len, (uint8_t)(20 + i));
		uint32_t bb = BUF(i % 3) + 32 * (i % 2); /* every other one half a line in */
		post(b, bb, BUF_BYTES);
		assert_int_equal(send(a, FRAME_AT, QUIRE_FRAME_HDR_BYTES + len), DONE(QUIRE_OK));
		assert_true(reaches(b, QUIRE_NET_RX_CONS, 3 + i));
		received(b, 2 + i, bb, len, (uint8_t)(20 + i));
	}
	assert_int_equal(reg(a, QUIRE_NET_TX_CONS), 10);
	assert_int_equal(reg(b, QUIRE_NET_RX_PROD), 12);
}

static void test_full_ring_and_truncation(void **state)
{
	struct net *n = *state;
	struct port *a = &n->a, *b = &n->b;
	/* No buffer posted: the frame waits, then comes whole. */
	build(a, 2, 300, 300, 7);
	assert_int_equal(send(a, FRAME_AT, QUIRE_FRAME_HDR_BYTES + 300), DONE(QUIRE_OK));
	usleep(20000);
	assert_int_equal(reg(b, QUIRE_NET_RX_CONS), 0);
	assert_int_equal(reg(b, QUIRE_NET_RX_NOBUF), 0);
	post(b, BUF(0), BUF_BYTES);
	assert_true(reaches(b, QUIRE_NET_RX_CONS, 1));
	received(b, 0, BUF(0), 300, 7);
	assert_int_equal(reg(b, QUIRE_NET_RX_NOBUF), 1); /* it took the only buffer posted */
	/* The next buffer takes the next frame. (A frame that fails the CRC or length check
	 * never gets here: the link below sends it again until it comes whole, reliable_link.h;
	 * the RTL port's dropping of such frames is tests/rtl/card_net.c's.) */
	post(b, BUF(1), BUF_BYTES);
	build(a, 2, 100, 100, 9);
	assert_int_equal(send(a, FRAME_AT, QUIRE_FRAME_HDR_BYTES + 100), DONE(QUIRE_OK));
	assert_true(reaches(b, QUIRE_NET_RX_CONS, 2));
	received(b, 1, BUF(1), 100, 9);
	/* Longer than its buffer: the buffer's bytes, nothing past them; SIZE and TRUNC. */
	b->mem[BUF(2) + 128] = 0x5a;
	post(b, BUF(2), 128);
	build(a, 2, 200, 200, 10);
	assert_int_equal(send(a, FRAME_AT, QUIRE_FRAME_HDR_BYTES + 200), DONE(QUIRE_OK));
	assert_true(reaches(b, QUIRE_NET_RX_CONS, 3));
	const uint8_t *d = b->mem + rx_desc(2);
	assert_int_equal(quire_ld32(d + QUIRE_NET_DESC_STATUS),
			 DONE(QUIRE_ERR_SIZE) | (uint32_t)QUIRE_NET_DESC_F_TRUNC << 16);
	assert_int_equal(quire_ld32(d + QUIRE_NET_DESC_LEN), QUIRE_FRAME_HDR_BYTES + 200);
	assert_int_equal(b->mem[BUF(2) + 127], (uint8_t)(95 * 7 + 10));
	assert_int_equal(b->mem[BUF(2) + 128], 0x5a);
	struct quire_netport_stats st;
	quire_netport_stats(b->p, &st);
	assert_int_equal(st.rx_frames, 3);
	assert_int_equal(st.rx_errors, 0);
	assert_int_equal(reg(b, QUIRE_NET_RX_BAD), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_transmit_checks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rings_wrap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_full_ring_and_truncation, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
