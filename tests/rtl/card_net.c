// SPDX-License-Identifier: MIT
/*
 * A bare-metal program for the RTL card (linked like the firmware) that drives the
 * network port directly (QUIRE_NET_* of include/quire/card.h), with the port's wire
 * looped back to itself by the harness (tests/rtl/test_card_top.cpp): every frame sent
 * comes back, except that the harness answers QUIRE_ERR_BUSY for destination 0xbeef,
 * "no such port" for 0xdead, flips a bit of the payload for 0xc0de and drops the last
 * byte for 0x00b1. The statuses are the emu's port's (sim/emu/netport.c): GO's length
 * and range checks, the source stamped and the CRC computed on send (checked here
 * against a CRC-32 in software) and checked on arrival, the receive filter, POP to any
 * byte address and its range check (the frame stays), DROP, POP of nothing, POP of a
 * bad frame, a whole 64 KiB payload, the NETPORT record's counters, and a GO of that
 * frame at line rate while the one before it comes back (the harness counts the beats
 * each way, test_card_top.cpp checks them). Ends through
 * sim-exit with 0, or the number of the first failed check.
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

/* A frame at card offset `at`: header for comm, to dst (the source field garbage: the port
 * stamps its own), payload of len bytes of pattern(i, seed). */
static void build(uint32_t at, uint32_t dst, uint32_t comm, uint32_t len, uint32_t seed)
{
	wr(QUIRE_CARD_MEM + at, QUIRE_FRAME_VERSION | QUIRE_FRAME_DATA << 8);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_ADDRS, 0x1234u | dst << 16);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_COMM, comm);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_COLL_SEQ, seed);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_OFFSET, 0);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_LEN, len);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_LINK_SEQ, 1);
	wr(QUIRE_CARD_MEM + at + QUIRE_FRAME_OFF_CRC, 0xffffffffu); /* the port's to fill */
	for (uint32_t i = 0; i < len; i++)
		set_byte(at + QUIRE_FRAME_HDR_BYTES + i, pattern(i, seed));
}

static uint32_t send(uint32_t at, uint32_t len)
{
	net_set(QUIRE_NET_TX_CARD, at);
	net_set(QUIRE_NET_TX_LEN, len);
	net_set(QUIRE_NET_TX_CTRL, QUIRE_NET_GO);
	return net(QUIRE_NET_TX_STATUS);
}

/* Waits (a bounded spin) until `n` frames the filter passes are waiting. */
static int pending(uint32_t n)
{
	for (uint32_t i = 0; i < 200000; i++)
		if (net(QUIRE_NET_RX_PENDING) == n)
			return 1;
	return 0;
}

static uint32_t pop(uint32_t dest, uint32_t how)
{
	net_set(QUIRE_NET_RX_DEST, dest);
	net_set(QUIRE_NET_RX_CTRL, how);
	return net(QUIRE_NET_RX_STATUS);
}

static int payload_at(uint32_t dest, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (card_byte(dest + i) != pattern(i, seed))
			return 0;
	return 1;
}

int main(void)
{
	uint32_t mem = rd(QUIRE_CARD_BAR + QUIRE_ID_MEM_LO);
	check(net(QUIRE_NET_PORT_LINK) == 1 && net(QUIRE_NET_PORT_ADDR) == SELF);
	check((rd(QUIRE_CARD_BAR + QUIRE_ID_CAPS) & QUIRE_CAP_NET) != 0);
	check(counter(QUIRE_NET_LINK) == 1 && counter(QUIRE_NET_ADDR) == SELF);
	/* GO's checks: the length, then alignment and card memory bounds; nothing sent. */
	build(0x1000, SELF, 5, 0, 1);
	check(send(0x1000, QUIRE_FRAME_HDR_BYTES - 1) == QUIRE_ERR_SIZE);
	check(send(0x1000, QUIRE_FRAME_HDR_BYTES + QUIRE_FRAME_MAX_PAYLOAD + 1) == QUIRE_ERR_SIZE);
	check(send(0x1002, QUIRE_FRAME_HDR_BYTES) == QUIRE_ERR_RANGE);
	check(send(mem - 16, QUIRE_FRAME_HDR_BYTES) == QUIRE_ERR_RANGE);
	check(send(mem + 4, QUIRE_FRAME_HDR_BYTES) == QUIRE_ERR_RANGE);
	check(counter(QUIRE_NET_TX_FRAMES) == 0 && net(QUIRE_NET_RX_PENDING) == 0);
	check(net(QUIRE_NET_RX_STATUS) == 0 && pop(0, QUIRE_NET_RX_POP) == QUIRE_ERR_INVALID);
	check(pop(0, QUIRE_NET_RX_DROP) == QUIRE_ERR_INVALID);

	/* Frame A: not on a line (0x2004), 1000 bytes of payload, comm 5; frame B: comm 6. */
	const uint32_t a = 0x2004, la = 1000, b = 0x4000, lb = 64;
	build(a, SELF, 5, la, 3);
	check(send(a, QUIRE_FRAME_HDR_BYTES + la) == QUIRE_OK);
	check(pending(1));
	/* What arrived: the source stamped, the CRC the port computed (over the stamped header). */
	wr(QUIRE_CARD_MEM + a + QUIRE_FRAME_OFF_ADDRS, SELF | SELF << 16);
	check(net(QUIRE_NET_RX_FLAGS) == 0);
	check(net(QUIRE_NET_RX_HDR(1)) == (SELF | SELF << 16));
	check(net(QUIRE_NET_RX_HDR(2)) == 5 && net(QUIRE_NET_RX_HDR(5)) == la);
	check(net(QUIRE_NET_RX_HDR(7)) == frame_crc(a, QUIRE_FRAME_HDR_BYTES + la));
	build(b, SELF, 6, lb, 9);
	check(send(b, QUIRE_FRAME_HDR_BYTES + lb) == QUIRE_OK && pending(2));
	/* The filter: comm 6 shows B only; comm 0 every frame, A first. */
	net_set(QUIRE_NET_RX_COMM, 6);
	check(net(QUIRE_NET_RX_COMM) == 6 && net(QUIRE_NET_RX_PENDING) == 1 &&
	      net(QUIRE_NET_RX_HDR(2)) == 6);
	net_set(QUIRE_NET_RX_COMM, 0x10006); /* 16 bits */
	check(net(QUIRE_NET_RX_COMM) == 6);
	net_set(QUIRE_NET_RX_COMM, 0);
	check(net(QUIRE_NET_RX_PENDING) == 2 && net(QUIRE_NET_RX_HDR(2)) == 5);
	/* POP out of card memory: RANGE, and the frame stays. */
	check(pop(mem - la + 1, QUIRE_NET_RX_POP) == QUIRE_ERR_RANGE);
	check(pop(mem + 1, QUIRE_NET_RX_POP) == QUIRE_ERR_RANGE && net(QUIRE_NET_RX_PENDING) == 2);
	/* POP to an odd address: exactly the payload's bytes change. */
	const uint32_t da = 0x20003;
	set_byte(da - 1, 0xa5);
	set_byte(da + la, 0x5a);
	check(pop(da, QUIRE_NET_RX_POP) == QUIRE_OK && net(QUIRE_NET_RX_PENDING) == 1);
	check(payload_at(da, la, 3) && card_byte(da - 1) == 0xa5 && card_byte(da + la) == 0x5a);
	/* B to a line boundary under the filter of its comm. */
	net_set(QUIRE_NET_RX_COMM, 6);
	check(pop(0x30000, QUIRE_NET_RX_POP) == QUIRE_OK && payload_at(0x30000, lb, 9));
	net_set(QUIRE_NET_RX_COMM, 0);
	check(net(QUIRE_NET_RX_PENDING) == 0 && pop(0, QUIRE_NET_RX_POP) == QUIRE_ERR_INVALID);

	/* A frame of no payload; a DROP. */
	build(0x5000, SELF, 5, 0, 0);
	check(send(0x5000, QUIRE_FRAME_HDR_BYTES) == QUIRE_OK && pending(1));
	check(pop(0x40000, QUIRE_NET_RX_POP) == QUIRE_OK && net(QUIRE_NET_RX_PENDING) == 0);
	check(send(b, QUIRE_FRAME_HDR_BYTES + lb) == QUIRE_OK && pending(1));
	check(pop(0, QUIRE_NET_RX_DROP) == QUIRE_OK && net(QUIRE_NET_RX_PENDING) == 0);

	/* A busy peer: BUSY, nothing counted. No such port: OK, lost, counted as a drop. */
	uint32_t frames = counter(QUIRE_NET_TX_FRAMES), bytes = counter(QUIRE_NET_TX_BYTES_LO);
	check(frames == 4 && bytes == 4 * QUIRE_FRAME_HDR_BYTES + la + 2 * lb);
	build(0x6000, 0xbeef, 5, 10, 1);
	check(send(0x6000, QUIRE_FRAME_HDR_BYTES + 10) == QUIRE_ERR_BUSY);
	check(counter(QUIRE_NET_TX_FRAMES) == frames);
	build(0x6000, 0xdead, 5, 10, 1);
	check(send(0x6000, QUIRE_FRAME_HDR_BYTES + 10) == QUIRE_OK);
	check(counter(QUIRE_NET_TX_FRAMES) == frames + 1 && counter(QUIRE_NET_TX_DROPS) == 1);

	/* Corrupted on the way: flagged BAD_CRC, passed by any filter, its header readable;
	 * POP says CORRUPT, writes nothing and removes it. Cut short: BAD_LEN. */
	build(0x7000, 0xc0de, 5, 100, 4);
	check(send(0x7000, QUIRE_FRAME_HDR_BYTES + 100) == QUIRE_OK && pending(1));
	net_set(QUIRE_NET_RX_COMM, 77);
	check(net(QUIRE_NET_RX_PENDING) == 1 && net(QUIRE_NET_RX_FLAGS) == QUIRE_NET_RX_F_BAD_CRC);
	check(net(QUIRE_NET_RX_HDR(5)) == 100);
	set_byte(0x50000, 0x77);
	check(pop(0x50000, QUIRE_NET_RX_POP) == QUIRE_ERR_CORRUPT && card_byte(0x50000) == 0x77);
	check(net(QUIRE_NET_RX_PENDING) == 0);
	net_set(QUIRE_NET_RX_COMM, 0);
	build(0x7000, 0x00b1, 5, 100, 4);
	check(send(0x7000, QUIRE_FRAME_HDR_BYTES + 100) == QUIRE_OK && pending(1));
	check(net(QUIRE_NET_RX_FLAGS) == QUIRE_NET_RX_F_BAD_LEN);
	check(pop(0, QUIRE_NET_RX_DROP) == QUIRE_OK);
	check(counter(QUIRE_NET_RX_ERRORS) == 2 && counter(QUIRE_NET_RX_FRAMES) == 4);

	/* The largest frame, at the end of card memory, popped to an odd address. */
	const uint32_t big = QUIRE_FRAME_MAX_PAYLOAD, at = mem - QUIRE_FRAME_HDR_BYTES - big;
	build(at, SELF, 5, big, 5);
	check(send(at, QUIRE_FRAME_HDR_BYTES + big) == QUIRE_OK && pending(1));
	check(net(QUIRE_NET_RX_FLAGS) == 0 && pop(0x100001, QUIRE_NET_RX_POP) == QUIRE_OK);
	check(payload_at(0x100001, big, 5));

	/* Both ways at once: the largest frame sent twice back to back, the first coming back
	 * while the second goes out. A GO at line rate takes its 1025 beats and the few cycles
	 * of the store, the checks and the MAC's answer. */
	check(send(at, QUIRE_FRAME_HDR_BYTES + big) == QUIRE_OK);
	uint32_t t0 = rd(QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO);
	check(send(at, QUIRE_FRAME_HDR_BYTES + big) == QUIRE_OK);
	uint32_t go_cycles = rd(QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO) - t0;
	check(go_cycles >= 1025 && go_cycles <= 1025 + 40);
	check(pending(2) && pop(0x100001, QUIRE_NET_RX_POP) == QUIRE_OK &&
	      payload_at(0x100001, big, 5));
	check(pop(0x200001, QUIRE_NET_RX_POP) == QUIRE_OK && payload_at(0x200001, big, 5));
	finish(0);
	return 0;
}
