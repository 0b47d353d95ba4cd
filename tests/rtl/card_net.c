// SPDX-License-Identifier: MIT
/*
 * A bare-metal program for the RTL card (linked like the firmware) that drives the
 * network port's rings directly (QUIRE_NET_* of include/quire/card.h,
 * docs/registers/net-rings.md), with the port's wire looped back to itself by the
 * harness (tests/rtl/test_card_top.cpp): every frame sent comes back, except that the
 * harness answers QUIRE_ERR_BUSY for destination 0xbeef, "no such port" for 0xdead,
 * flips a bit of the payload for 0xc0de and drops the last byte for 0x00b1. Checked:
 * a ring outside card memory refused (its STATE), transmit descriptors' length and
 * range checks (STATUS, nothing sent), a receive buffer outside card memory or neither on
 * a line nor half a line in given back at once with QUIRE_ERR_RANGE, a frame received
 * whole into a buffer on a line and into one half a line in (its last half line written
 * after its last beat, nothing around the frame touched), a frame received whole (the source
 * stamped, the CRC the port computed, checked here against a CRC-32 in software), both
 * rings wrapping around, a full receive ring holding the frame back until a buffer is
 * posted (RX_NOBUF counting the frames that took the last buffer), a corrupted and a short frame
 * counted and dropped with their buffer taking the next frame, a frame cut to its buffer (TRUNC),
 * the NETPORT record's counters, and the largest frame twice at line rate while the one before it
 * comes back (the harness counts the beats each way, test_card_top.cpp checks them).
 * Ends through sim-exit with 0, or the number of the first failed check.
 */
#include <stdint.h>

#include "quire/card.h"
#include "quire/frame.h"
#include "quire/regs.h"
#include "quire/status.h"

#include "card_bare.h"

int main(void);

#define NETPORT_BAR 0x500u /* the RTL card's NETPORT block (docs/rtl-card.md) */
#define SELF        7u
#define TX_RING     0x8000u
#define RX_RING     0x8400u
#define BUF(i)      (0x100000u + (i)*0x10040u)
#define BUF_BYTES   (QUIRE_FRAME_HDR_BYTES + QUIRE_FRAME_MAX_PAYLOAD)
#define DONE(st)    ((uint32_t)QUIRE_NET_DESC_F_DONE << 16 | (uint32_t)(st))

static uint32_t net(uint32_t reg)
{
	return rd(QUIRE_CARD_NET + reg);
}

static void net_set(uint32_t reg, uint32_t v)
{
	wr(QUIRE_CARD_NET + reg, v);
}

static uint32_t counter(uint32_t reg)
{
	return rd(QUIRE_CARD_BAR + NETPORT_BAR + QUIRE_NET_RECORD(0) + reg);
}

static void set_byte(uint32_t offset, uint8_t v)
{
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)(QUIRE_CARD_MEM + offset);
	*p = v;
}

static uint32_t word(uint32_t offset)
{
	return rd(QUIRE_CARD_MEM + offset);
}

static uint8_t pattern(uint32_t i, uint32_t seed)
{
	return (uint8_t)(i * 13 + seed);
}

/* CRC-32 (IEEE, reflected) of card memory [at, at + len), byte 28..31 taken as 0. */
static uint32_t frame_crc(uint32_t at, uint32_t len)
{
	uint32_t c = 0xffffffffu;
	for (uint32_t i = 0; i < len; i++) {
		c ^= i >= QUIRE_FRAME_OFF_CRC && i < QUIRE_FRAME_HDR_BYTES ? 0 : card_byte(at + i);
		for (int b = 0; b < 8; b++)
			c = c >> 1 ^ (c & 1 ? 0xedb88320u : 0);
	}
	return ~c;
}

/* A frame at card offset `at`: header for comm 5, to dst (the source field garbage: the
 * port stamps its own), payload of len bytes of pattern(i, seed). */
static void build(uint32_t at, uint32_t dst, uint32_t len, uint32_t seed)
{
	wr(QUIRE_CARD_MEM + at, QUIRE_FRAME_VERSION | QUIRE_FRAME_DATA << 8);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_ADDRS, 0x1234u | dst << 16);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_COMM, 5);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_COLL_SEQ, seed);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_OFFSET, 0);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_LEN, len);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_LINK_SEQ, 1);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_CRC, 0xffffffffu); /* the port's to fill */
	for (uint32_t i = 0; i < len; i++)
		set_byte(at + QUIRE_FRAME_HDR_BYTES + i, pattern(i, seed));
}

static void put_desc(uint32_t at, uint32_t card, uint32_t len)
{
	wr(QUIRE_CARD_MEM + at + QUIRE_NET_DESC_CARD, card);
	wr(QUIRE_CARD_MEM + at + QUIRE_NET_DESC_LEN, len);
	wr(QUIRE_CARD_MEM + at + QUIRE_NET_DESC_STATUS, 0);
	wr(QUIRE_CARD_MEM + at + QUIRE_NET_DESC_PAD, 0);
}

/* The rings as the program keeps them: 2^log2 descriptors each, the indices it moved. */
static uint32_t tx_log2, rx_log2, tx_prod, rx_prod;

static uint32_t tx_desc(uint32_t i)
{
	return TX_RING + QUIRE_NET_DESC_BYTES * (i & ((1u << tx_log2) - 1u));
}

static uint32_t rx_desc(uint32_t i)
{
	return RX_RING + QUIRE_NET_DESC_BYTES * (i & ((1u << rx_log2) - 1u));
}

static void rings(uint32_t tx, uint32_t rx)
{
	tx_log2 = tx;
	rx_log2 = rx;
	tx_prod = rx_prod = 0;
	net_set(QUIRE_NET_TX_BASE, TX_RING);
	net_set(QUIRE_NET_TX_LOG2, tx);
	net_set(QUIRE_NET_RX_BASE, RX_RING);
	net_set(QUIRE_NET_RX_LOG2, rx);
}

/* Waits (a bounded spin of `tries` reads) until register reg reads v. */
static int reaches_in(uint32_t reg, uint32_t v, uint32_t tries)
{
	for (uint32_t i = 0; i < tries; i++)
		if (net(reg) == v)
			return 1;
	return 0;
}

static int reaches(uint32_t reg, uint32_t v)
{
	return reaches_in(reg, v, 200000);
}

/* Queue the frame at `at` of len bytes; its descriptor's STATUS once the port is done. */
static uint32_t send(uint32_t at, uint32_t len)
{
	uint32_t d = tx_desc(tx_prod);
	put_desc(d, at, len);
	net_set(QUIRE_NET_TX_PROD, ++tx_prod);
	if (!reaches(QUIRE_NET_TX_CONS, tx_prod))
		return 0xdeadu;
	return word(d + QUIRE_NET_DESC_STATUS);
}

static void post(uint32_t card, uint32_t len)
{
	put_desc(rx_desc(rx_prod), card, len);
	net_set(QUIRE_NET_RX_PROD, ++rx_prod);
}

static int payload_at(uint32_t dest, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (card_byte(dest + i) != pattern(i, seed))
			return 0;
	return 1;
}

/* Receive descriptor i holds frame `seed` of len payload bytes, whole, in buffer `buf`. */
static int received(uint32_t i, uint32_t buf, uint32_t len, uint32_t seed)
{
	uint32_t d = rx_desc(i);
	return word(d + QUIRE_NET_DESC_STATUS) == DONE(QUIRE_OK) &&
	       word(d + QUIRE_NET_DESC_CARD) == buf &&
	       word(d + QUIRE_NET_DESC_LEN) == QUIRE_FRAME_HDR_BYTES + len &&
	       word(buf + QUIRE_FRAME_OFF_ADDRS) == (SELF | SELF << 16) &&
	       word(buf + QUIRE_FRAME_OFF_LEN) == len &&
	       word(buf + QUIRE_FRAME_OFF_COLL_SEQ) == seed &&
	       payload_at(buf + QUIRE_FRAME_HDR_BYTES, len, seed);
}

int main(void)
{
	uint32_t mem = rd(QUIRE_CARD_BAR + QUIRE_ID_MEM_LO);
	check(net(QUIRE_NET_PORT_LINK) == 1 && net(QUIRE_NET_PORT_ADDR) == SELF);
	check((rd(QUIRE_CARD_BAR + QUIRE_ID_CAPS) & QUIRE_CAP_NET) != 0);
	check(counter(QUIRE_NET_LINK) == 1 && counter(QUIRE_NET_ADDR) == SELF);

	/* A ring outside card memory, off 16 bytes or too large: RANGE, nothing taken. */
	net_set(QUIRE_NET_TX_BASE, mem - 16);
	net_set(QUIRE_NET_TX_LOG2, 1);
	check(net(QUIRE_NET_TX_STATE) == QUIRE_ERR_RANGE);
	net_set(QUIRE_NET_TX_BASE, TX_RING + 8);
	check(net(QUIRE_NET_TX_STATE) == QUIRE_ERR_RANGE);
	net_set(QUIRE_NET_TX_BASE, TX_RING);
	net_set(QUIRE_NET_TX_LOG2, QUIRE_NET_RING_LOG2_MAX + 1);
	check(net(QUIRE_NET_TX_STATE) == QUIRE_ERR_RANGE);
	put_desc(TX_RING, 0x1000, QUIRE_FRAME_HDR_BYTES);
	net_set(QUIRE_NET_TX_PROD, 1);
	check(net(QUIRE_NET_TX_CONS) == 0 && net(QUIRE_NET_TX_PROD) == 1);

	/* Transmit checks: the length, then alignment and card memory bounds; nothing sent,
	 * each descriptor given back with its status. */
	rings(2, 2);
	check(net(QUIRE_NET_TX_STATE) == QUIRE_OK && net(QUIRE_NET_RX_STATE) == QUIRE_OK);
	check(net(QUIRE_NET_TX_CONS) == 0 && net(QUIRE_NET_TX_PROD) == 0);
	build(0x1000, SELF, 0, 1);
	check(send(0x1000, QUIRE_FRAME_HDR_BYTES - 1) == DONE(QUIRE_ERR_SIZE));
	check(send(0x1000, BUF_BYTES + 1) == DONE(QUIRE_ERR_SIZE));
	check(send(0x1002, QUIRE_FRAME_HDR_BYTES) == DONE(QUIRE_ERR_RANGE));
	check(send(mem - 16, QUIRE_FRAME_HDR_BYTES) == DONE(QUIRE_ERR_RANGE));
	check(send(mem + 4, QUIRE_FRAME_HDR_BYTES) == DONE(QUIRE_ERR_RANGE));
	check(counter(QUIRE_NET_TX_FRAMES) == 0 && net(QUIRE_NET_RX_CONS) == 0);

	/* Receive buffers outside card memory, neither on a line nor half a line in, or shorter
	 * than a header: given back at once, nothing written, no frame taken. */
	post(mem - 64, 128);
	post(0x40010, BUF_BYTES);
	post(0x40000, QUIRE_FRAME_HDR_BYTES - 1);
	check(reaches(QUIRE_NET_RX_CONS, 3));
	check(word(rx_desc(0) + QUIRE_NET_DESC_STATUS) == DONE(QUIRE_ERR_RANGE));
	check(word(rx_desc(1) + QUIRE_NET_DESC_STATUS) == DONE(QUIRE_ERR_RANGE));
	check(word(rx_desc(2) + QUIRE_NET_DESC_STATUS) == DONE(QUIRE_ERR_SIZE));

	/* Frame A from off a line (0x2004), 1000 bytes of payload: whole in its buffer, the
	 * source stamped, the CRC the port computed (over the stamped header). */
	const uint32_t a = 0x2004, la = 1000;
	build(a, SELF, la, 3);
	post(BUF(0), BUF_BYTES);
	check(send(a, QUIRE_FRAME_HDR_BYTES + la) == DONE(QUIRE_OK));
	check(reaches(QUIRE_NET_RX_CONS, 4) && received(3, BUF(0), la, 3));
	wr(QUIRE_CARD_MEM + a + QUIRE_FRAME_OFF_ADDRS, SELF | SELF << 16);
	check(word(BUF(0) + QUIRE_FRAME_OFF_CRC) == frame_crc(a, QUIRE_FRAME_HDR_BYTES + la));
	check(net(QUIRE_NET_RX_NOBUF) == 1); /* A took the only buffer posted */

	/* Both rings wrap around: 10 frames through rings of 4, each buffer posted again, every
	 * other one half a line in (the frame's payload on a line; its last beat's second half,
	 * written after it or not at all: 40, 56, 8, 24 and 40 bytes); the bytes just before
	 * the buffer and just after the frame untouched. */
	for (uint32_t i = 0; i < 10; i++) {
		uint32_t bb = BUF(1 + i % 2) + 32 * (i % 2), len = 64 + 8 * i;
		set_byte(bb - 1, 0x5a);
		set_byte(bb + QUIRE_FRAME_HDR_BYTES + len, 0xa5);
		build(0x3000, SELF, len, 20 + i);
		post(bb, BUF_BYTES);
		check(send(0x3000, QUIRE_FRAME_HDR_BYTES + len) == DONE(QUIRE_OK));
		check(reaches(QUIRE_NET_RX_CONS, 5 + i));
		check(received(4 + i, bb, len, 20 + i));
		check(card_byte(bb - 1) == 0x5a &&
		      card_byte(bb + QUIRE_FRAME_HDR_BYTES + len) == 0xa5);
	}
	check(net(QUIRE_NET_TX_CONS) == 16 && net(QUIRE_NET_RX_PROD) == 14);

	/* A full receive ring (every buffer taken): the frame waits on the wire; a buffer
	 * posted, it comes in whole. Every frame so far took the last buffer posted. */
	build(0x5000, SELF, 300, 7);
	check(send(0x5000, QUIRE_FRAME_HDR_BYTES + 300) == DONE(QUIRE_OK));
	check(!reaches_in(QUIRE_NET_RX_CONS, 15, 3000) && net(QUIRE_NET_RX_NOBUF) == 11);
	post(BUF(3), BUF_BYTES);
	check(reaches(QUIRE_NET_RX_CONS, 15) && received(14, BUF(3), 300, 7));
	check(net(QUIRE_NET_RX_NOBUF) == 12);

	/* A busy peer: BUSY, nothing counted. No such port: OK, lost, NOBODY, a drop. */
	uint32_t frames = counter(QUIRE_NET_TX_FRAMES);
	check(frames == 12);
	build(0x6000, 0xbeef, 10, 1);
	check(send(0x6000, QUIRE_FRAME_HDR_BYTES + 10) == DONE(QUIRE_ERR_BUSY));
	check(counter(QUIRE_NET_TX_FRAMES) == frames);
	build(0x6000, 0xdead, 10, 1);
	check(send(0x6000, QUIRE_FRAME_HDR_BYTES + 10) ==
	      (DONE(QUIRE_OK) | (uint32_t)QUIRE_NET_DESC_F_NOBODY << 16));
	check(counter(QUIRE_NET_TX_FRAMES) == frames + 1 && counter(QUIRE_NET_TX_DROPS) == 1);

	/* Corrupted on the way, then cut short: both counted and dropped, no descriptor
	 * completed; the buffer posted for them takes the next good frame. */
	post(BUF(4), BUF_BYTES);
	build(0x7000, 0xc0de, 100, 4);
	check(send(0x7000, QUIRE_FRAME_HDR_BYTES + 100) == DONE(QUIRE_OK));
	check(reaches(QUIRE_NET_RX_BAD, 1) && counter(QUIRE_NET_RX_ERRORS) == 1);
	build(0x7000, 0x00b1, 100, 4);
	check(send(0x7000, QUIRE_FRAME_HDR_BYTES + 100) == DONE(QUIRE_OK));
	check(reaches(QUIRE_NET_RX_BAD, 2) && counter(QUIRE_NET_RX_ERRORS) == 2);
	check(net(QUIRE_NET_RX_CONS) == 15);
	build(0x7000, SELF, 100, 8);
	check(send(0x7000, QUIRE_FRAME_HDR_BYTES + 100) == DONE(QUIRE_OK));
	check(reaches(QUIRE_NET_RX_CONS, 16) && received(15, BUF(4), 100, 8));

	/* A frame longer than its buffer (half a line in): the buffer's bytes written, nothing
	 * past it; SIZE, TRUNC, and the frame's length. */
	set_byte(BUF(5) + 32 + 128, 0x5a);
	post(BUF(5) + 32, 128);
	build(0x7000, SELF, 200, 9);
	check(send(0x7000, QUIRE_FRAME_HDR_BYTES + 200) == DONE(QUIRE_OK));
	check(reaches(QUIRE_NET_RX_CONS, 17));
	check(word(rx_desc(16) + QUIRE_NET_DESC_STATUS) ==
	      (DONE(QUIRE_ERR_SIZE) | (uint32_t)QUIRE_NET_DESC_F_TRUNC << 16));
	check(word(rx_desc(16) + QUIRE_NET_DESC_LEN) == QUIRE_FRAME_HDR_BYTES + 200);
	check(payload_at(BUF(5) + 32 + QUIRE_FRAME_HDR_BYTES, 128 - QUIRE_FRAME_HDR_BYTES, 9) &&
	      card_byte(BUF(5) + 32 + 128) == 0x5a);
	check(counter(QUIRE_NET_RX_FRAMES) == 14 && counter(QUIRE_NET_RX_ERRORS) == 2);

	/* The largest frame, at the end of card memory. */
	const uint32_t big = QUIRE_FRAME_MAX_PAYLOAD, at = mem - QUIRE_FRAME_HDR_BYTES - big;
	build(at, SELF, big, 5);
	post(BUF(6), BUF_BYTES);
	check(send(at, QUIRE_FRAME_HDR_BYTES + big) == DONE(QUIRE_OK));
	check(reaches(QUIRE_NET_RX_CONS, 18) && received(17, BUF(6), big, 5));

	/* Both ways at once: the largest frame queued twice, the first coming back while the
	 * second goes out: the two in 2 x 1025 beats and the few cycles of the descriptors and
	 * the MAC's answers. */
	post(BUF(7), BUF_BYTES);
	post(BUF(8), BUF_BYTES);
	put_desc(tx_desc(tx_prod), at, QUIRE_FRAME_HDR_BYTES + big);
	put_desc(tx_desc(tx_prod + 1), at, QUIRE_FRAME_HDR_BYTES + big);
	tx_prod += 2;
	uint32_t t0 = rd(QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO);
	net_set(QUIRE_NET_TX_PROD, tx_prod);
	check(reaches(QUIRE_NET_TX_CONS, tx_prod));
	uint32_t go_cycles = rd(QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO) - t0;
	check(go_cycles >= 2 * 1025 && go_cycles <= 2 * 1025 + 40);
	check(reaches(QUIRE_NET_RX_CONS, 20) && received(18, BUF(7), big, 5) &&
	      received(19, BUF(8), big, 5));
	finish(0);
	return 0;
}
