/* SPDX-License-Identifier: MIT */
/*
 * What the bare-metal programs for the RTL card share (tests/rtl/card_dma.c,
 * card_mlp.c, card_net.c): 32-bit register and card memory accesses, and the
 * end of a run through sim-exit: 0, or the number of the first failed check
 * (test_card_top.cpp reports it).
 */
#ifndef QUIRE_TESTS_RTL_CARD_BARE_H
#define QUIRE_TESTS_RTL_CARD_BARE_H

#include <stdint.h>

#include "quire/card.h"

static inline uint32_t rd(uint32_t addr)
{
	return *(volatile uint32_t *)(uintptr_t)addr;
}

static inline void wr(uint32_t addr, uint32_t value)
{
	*(volatile uint32_t *)(uintptr_t)addr = value;
}

static inline uint8_t card_byte(uint32_t offset)
{
	return (uint8_t)(rd(QUIRE_CARD_MEM + (offset & ~3u)) >> (8 * (offset & 3)));
}

static inline void finish(uint32_t code)
{
	wr(QUIRE_CARD_SIM_IO + QUIRE_SIM_IO_EXIT, code);
	for (;;)
		;
}

static uint32_t check_number;

static inline void check(int ok)
{
	check_number++;
	if (!ok)
		finish(check_number);
}

#endif /* QUIRE_TESTS_RTL_CARD_BARE_H */
