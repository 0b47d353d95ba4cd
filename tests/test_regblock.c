// SPDX-License-Identifier: MIT
/*
 * The register-block walk (contract/regblock.c) on planted BARs: a good chain, a loop, a
 * block over its predecessor, headers at and past the BAR's end, a card that reads all
 * ones, too many blocks, a missing block and a major version the reader does not know.
 * The fake BAR fails the test on any read outside it. The same chains go to two of the
 * walk's callers, the native firmware (quire_fw_init) and libquire's ring driver
 * (quire_ring_attach): each refuses a chain with the walk's own status.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define QUIRE_FW_NATIVE /* the firmware's HAL as the card models provide it */
#include "firmware/fw.h"
#include "host/src/backend/transport.h"
#include "host/src/core/core.h"
#include "quire/card.h"
#include "quire/regblock.h"
#include "quire/regs.h"
#include "quire/status.h"

struct bar {
	uint32_t word[QUIRE_BAR0_BYTES / 4];
};

static uint32_t bar_read(void *ctx, uint32_t off)
{
	struct bar *b = ctx;
	assert_true(off % 4 == 0);
	assert_true(off < QUIRE_BAR0_BYTES); /* the walk never reads outside the BAR */
	return b->word[off / 4];
}

static void put(struct bar *b, uint32_t off, uint32_t type, uint32_t version, uint32_t next)
{
	b->word[(off + QUIRE_RB_TYPE) / 4] = type;
	b->word[(off + QUIRE_RB_VERSION) / 4] = version;
	b->word[(off + QUIRE_RB_NEXT) / 4] = next;
}

/* The blocks both callers need, 0x100 apart from 0, the last one's next left to the test. */
static const struct card_block {
	uint32_t type, version;
} card[] = {
    {QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION},
    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION},
    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION},
    {QUIRE_RB_TYPE_IRQ, QUIRE_RB_IRQ_VERSION},
    {QUIRE_RB_TYPE_ENGINES, QUIRE_RB_ENGINES_VERSION},
    {QUIRE_RB_TYPE_NETPORT, QUIRE_RB_NETPORT_VERSION},
    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION},
};
#define CARD_BLOCKS (sizeof(card) / sizeof(card[0]))
#define LAST        ((CARD_BLOCKS - 1) * 0x100u)

static struct bar *good_card(void)
{
	struct bar *b = calloc(1, sizeof(*b));
	assert_non_null(b);
	for (uint32_t i = 0; i < CARD_BLOCKS; i++)
		put(b, i * 0x100, card[i].type, card[i].version,
		    i + 1 < CARD_BLOCKS ? (i + 1) * 0x100 : 0);
	b->word[QUIRE_ID_MAGIC / 4] = QUIRE_ID_MAGIC_VALUE;
	b->word[QUIRE_ID_IF_VERSION / 4] = QUIRE_INTERFACE_VERSION;
	b->word[QUIRE_ID_MEM_HI / 4] = 1; /* 4 GiB and more: the firmware's memory check passes */
	return b;
}

static int walk(struct bar *b, struct quire_regblock_chain *chain)
{
	return quire_regblock_walk(bar_read, b, chain);
}

/* The native firmware's HAL on the fake BAR: the card's internal map reads all ones
 * outside the BAR, and writes go to the BAR or nowhere. */
static uint32_t fw_read(void *ctx, uint32_t addr)
{
	if (addr < QUIRE_CARD_BAR || addr - QUIRE_CARD_BAR >= QUIRE_BAR0_BYTES)
		return 0xffffffffu;
	return bar_read(ctx, addr - QUIRE_CARD_BAR);
}

static void fw_write(void *ctx, uint32_t addr, uint32_t value)
{
	struct bar *b = ctx;
	if (addr >= QUIRE_CARD_BAR && addr - QUIRE_CARD_BAR < QUIRE_BAR0_BYTES)
		b->word[(addr - QUIRE_CARD_BAR) / 4] = value;
}

static int fw_wait(void *ctx)
{
	(void)ctx;
	return 1;
}

static int fw_init(struct bar *b, struct quire_fw *fw)
{
	static const struct quire_fw_hal hal = {fw_read, fw_write, fw_wait};
	memset(fw, 0, sizeof(*fw));
	fw->hal = &hal;
	fw->hal_ctx = b;
	return quire_fw_init(fw);
}

/* libquire's ring driver on the fake BAR, through a transport of the test's own. */
struct fake_dev {
	struct quire_device dev;
	struct bar *bar;
};

static uint32_t dev_read(struct quire_device *dev, uint32_t off)
{
	return bar_read(((struct fake_dev *)dev)->bar, off);
}

static void dev_write(struct quire_device *dev, uint32_t off, uint32_t value)
{
	(void)dev, (void)off, (void)value;
}

static int t_state(struct transport *t)
{
	(void)t;
	return QUIRE_OK;
}

static void t_close(struct transport *t)
{
	(void)t;
}

static int ring_attach(struct bar *b)
{
	static const struct quire_device_ops ops = {.mmio_read = dev_read, .mmio_write = dev_write};
	static uint64_t mem[64];
	struct fake_dev dev = {{&ops}, b};
	struct transport t = {.dev = &dev.dev,
			      .mem = mem,
			      .mem_size = sizeof(mem),
			      .iova = QUIRE_SIM_IOVA,
			      .state = t_state,
			      .close = t_close,
			      .timeout_ms = -1};
	struct quire_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	return quire_ring_attach(&ctx, &t, "sim");
}

/* A chain the walk refuses with `status`: the firmware and the ring driver refuse it alike. */
static void refused(struct bar *b, int status)
{
	struct quire_regblock_chain chain;
	struct quire_fw fw;
	assert_int_equal(walk(b, &chain), status);
	assert_int_equal(fw_init(b, &fw), status);
	assert_int_equal(ring_attach(b), status);
	free(b);
}

static void test_good_chain(void **state)
{
	(void)state;
	struct bar *b = good_card();
	struct quire_regblock_chain chain;
	assert_int_equal(walk(b, &chain), QUIRE_OK);
	assert_int_equal(chain.count, CARD_BLOCKS);
	for (uint32_t i = 0; i < CARD_BLOCKS; i++) {
		assert_int_equal(chain.block[i].offset, i * 0x100);
		assert_int_equal(chain.block[i].type, card[i].type);
		assert_int_equal(chain.block[i].version, card[i].version);
	}
	uint32_t cplq = 0, irq = 0, failed = 99;
	const struct quire_regblock_need need[] = {
	    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &cplq},
	    {QUIRE_RB_TYPE_IRQ, QUIRE_RB_MAKE_VERSION(1, 7), &irq}, /* a newer minor: fine */
	};
	assert_int_equal(quire_regblock_find_all(&chain, need, 2, &failed), QUIRE_OK);
	assert_int_equal(failed, 99);
	assert_int_equal(cplq, 0x200);
	assert_int_equal(irq, 0x300);

	/* The firmware finds its six blocks where they are. */
	struct quire_fw fw;
	assert_int_equal(fw_init(b, &fw), QUIRE_OK);
	assert_int_equal(fw.bar.id, 0);
	assert_int_equal(fw.bar.cmdq, 0x100);
	assert_int_equal(fw.bar.engines, 0x400);
	assert_int_equal(fw.bar.counters, 0x600);
	free(b);
}

/* A header that ends exactly at the BAR's end is inside it. */
static void test_header_at_end(void **state)
{
	(void)state;
	struct bar *b = good_card();
	struct quire_regblock_chain chain;
	b->word[(LAST + QUIRE_RB_NEXT) / 4] = QUIRE_BAR0_BYTES - QUIRE_RB_HEADER_BYTES;
	put(b, QUIRE_BAR0_BYTES - QUIRE_RB_HEADER_BYTES, 0x51420099u, QUIRE_RB_MAKE_VERSION(1, 0),
	    0);
	assert_int_equal(walk(b, &chain), QUIRE_OK);
	assert_int_equal(chain.count, CARD_BLOCKS + 1);
	free(b);
}

/* The last block's next offset planted: each is a corrupt chain. */
static void test_bad_next(void **state)
{
	(void)state;
	static const uint32_t next[] = {
	    /* a header that straddles the BAR's end, or starts at or past it (the last one
	     * wraps around 32 bits when the header's size is added) */
	    QUIRE_BAR0_BYTES - QUIRE_RB_HEADER_BYTES + 4,
	    QUIRE_BAR0_BYTES - 4,
	    QUIRE_BAR0_BYTES,
	    QUIRE_BAR0_BYTES + 0x100,
	    0xfffffff0u,
	    /* back to an earlier block (a loop), to itself (a block of no size), into its
	     * predecessor */
	    0x100,
	    LAST,
	    LAST - 8,
	};
	for (size_t i = 0; i < sizeof(next) / sizeof(next[0]); i++) {
		struct bar *b = good_card();
		b->word[(LAST + QUIRE_RB_NEXT) / 4] = next[i];
		refused(b, QUIRE_ERR_CORRUPT);
	}
}

/* More blocks than a chain holds: refused; exactly as many: walked. */
static void test_too_many(void **state)
{
	(void)state;
	for (uint32_t extra = QUIRE_RB_MAX_BLOCKS - CARD_BLOCKS;
	     extra <= QUIRE_RB_MAX_BLOCKS - CARD_BLOCKS + 1; extra++) {
		struct bar *b = good_card();
		struct quire_regblock_chain chain;
		b->word[(LAST + QUIRE_RB_NEXT) / 4] = 0x1000;
		for (uint32_t i = 0; i < extra; i++)
			put(b, 0x1000 + 0x10 * i, 0x51420099u, QUIRE_RB_MAKE_VERSION(1, 0),
			    i + 1 < extra ? 0x1000 + 0x10 * (i + 1) : 0);
		if (CARD_BLOCKS + extra <= QUIRE_RB_MAX_BLOCKS) {
			assert_int_equal(walk(b, &chain), QUIRE_OK);
			assert_int_equal(chain.count, QUIRE_RB_MAX_BLOCKS);
			free(b);
		} else {
			refused(b, QUIRE_ERR_CORRUPT);
		}
	}
}

/* No card answers: the first type reads all ones, or a later one does. */
static void test_all_ones(void **state)
{
	(void)state;
	struct bar *b = good_card();
	memset(b->word, 0xff, sizeof(b->word));
	refused(b, QUIRE_ERR_NO_DEVICE);
	b = good_card();
	b->word[(0x300 + QUIRE_RB_TYPE) / 4] = QUIRE_RB_TYPE_NONE;
	refused(b, QUIRE_ERR_NO_DEVICE);
}

/* A block both callers need is not in the chain. */
static void test_missing(void **state)
{
	(void)state;
	struct bar *b = good_card();
	struct quire_regblock_chain chain;
	uint32_t cmdq = 0, counters = 0, failed = 99;
	b->word[(0x100 + QUIRE_RB_TYPE) / 4] = 0x51420099u; /* no CMDQ */
	assert_int_equal(walk(b, &chain), QUIRE_OK);
	const struct quire_regblock_need need[] = {
	    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION, &counters},
	    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, &cmdq},
	};
	assert_int_equal(quire_regblock_find_all(&chain, need, 2, &failed), QUIRE_ERR_NO_DEVICE);
	assert_int_equal(failed, 1);
	assert_int_equal(counters, 0x600);
	struct quire_fw fw;
	assert_int_equal(fw_init(b, &fw), QUIRE_ERR_NO_DEVICE);
	assert_int_equal(ring_attach(b), QUIRE_ERR_NO_DEVICE);
	free(b);
}

/* A major version the reader does not know: refused, the block named; a minor is not. */
static void test_version(void **state)
{
	(void)state;
	struct bar *b = good_card();
	struct quire_regblock_chain chain;
	uint32_t cplq = 0;
	b->word[(0x200 + QUIRE_RB_VERSION) / 4] = QUIRE_RB_MAKE_VERSION(2, 0);
	assert_int_equal(walk(b, &chain), QUIRE_OK); /* the walk reads versions, not judges */
	assert_int_equal(
	    quire_regblock_find(&chain, QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &cplq),
	    QUIRE_ERR_VERSION);
	assert_int_equal(cplq, 0x200);
	struct quire_fw fw;
	assert_int_equal(fw_init(b, &fw), QUIRE_ERR_VERSION);
	assert_int_equal(ring_attach(b), QUIRE_ERR_VERSION);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good_chain), cmocka_unit_test(test_header_at_end),
	    cmocka_unit_test(test_bad_next),   cmocka_unit_test(test_too_many),
	    cmocka_unit_test(test_all_ones),   cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
