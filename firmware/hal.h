/* SPDX-License-Identifier: MIT */
/*
 * The HAL: the only code that touches hardware. Every access is a 32-bit load
 * or store in the card's internal map (include/quire/card.h).
 */
#ifndef QUIRE_FW_HAL_H
#define QUIRE_FW_HAL_H

#include <stdint.h>

#include "fw.h"
#include "quire/card.h"

#ifdef QUIRE_FW_NATIVE
static inline uint32_t hal_read32(struct quire_fw *fw, uint32_t addr)
{
	return fw->hal->read32(fw->hal_ctx, addr);
}

static inline void hal_write32(struct quire_fw *fw, uint32_t addr, uint32_t value)
{
	fw->hal->write32(fw->hal_ctx, addr, value);
}

static inline int hal_wait_event(struct quire_fw *fw)
{
	return fw->hal->wait_event(fw->hal_ctx);
}

/* A model's accesses do not fault. */
static inline uint32_t hal_access_faults(struct quire_fw *fw)
{
	(void)fw;
	return 0;
}
#else
static inline uint32_t hal_read32(struct quire_fw *fw, uint32_t addr)
{
	(void)fw;
	return *(volatile uint32_t *)(uintptr_t)addr;
}

static inline void hal_write32(struct quire_fw *fw, uint32_t addr, uint32_t value)
{
	(void)fw;
	*(volatile uint32_t *)(uintptr_t)addr = value;
}

static inline int hal_wait_event(struct quire_fw *fw)
{
	(void)fw;
	__asm__ volatile("wfi");
	return 0;
}

/* Load and store access faults taken so far: crt0.S's trap handler counts them, skips the
 * access and reads all ones. */
extern volatile uint32_t fw_access_faults;
static inline uint32_t hal_access_faults(struct quire_fw *fw)
{
	(void)fw;
	return fw_access_faults;
}
#endif

static inline uint64_t hal_cycles(struct quire_fw *fw)
{
	uint32_t lo = hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO); /* latches HI */
	return (uint64_t)hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_HI) << 32 | lo;
}

/* Card memory, through the core's data port. */
static inline uint32_t hal_mem_read32(struct quire_fw *fw, uint32_t offset)
{
	return hal_read32(fw, QUIRE_CARD_MEM + offset);
}

static inline void hal_mem_write32(struct quire_fw *fw, uint32_t offset, uint32_t value)
{
	hal_write32(fw, QUIRE_CARD_MEM + offset, value);
}

/* A register of the BAR block at `block`. */
static inline uint32_t hal_bar_read(struct quire_fw *fw, uint32_t block, uint32_t reg)
{
	return hal_read32(fw, QUIRE_CARD_BAR + block + reg);
}

static inline void hal_bar_write(struct quire_fw *fw, uint32_t block, uint32_t reg, uint32_t v)
{
	hal_write32(fw, QUIRE_CARD_BAR + block + reg, v);
}

#endif /* QUIRE_FW_HAL_H */
