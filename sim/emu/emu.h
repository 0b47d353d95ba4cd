/* SPDX-License-Identifier: MIT */
/*
 * emu: the functional card model. Register file, card memory, DMA mover,
 * engines (the hls/ C functions) and the native build of the real firmware,
 * running in a thread of its own.
 */
#ifndef QUIRE_SIM_EMU_H
#define QUIRE_SIM_EMU_H

#include <stdint.h>

#include "sim/device.h"
#include "sim/emu/netport.h"

struct quire_emu_config {
	uint64_t mem_bytes; /* card memory; 0: the sim board's (boards/sim.toml, 128 MiB) */
	uint32_t clock_hz;  /* 0: the sim board's (250 MHz) */
	/* The card's network port, NULL for none (its link stays down). */
	const struct quire_netport_config *net;
	/* Fault injection for tests: called on the firmware's thread before each DMA
	 * transfer starts (n counts them from 1), with no lock held, so a test can make
	 * a host leave or come at an exact point of a command. NULL: none. */
	void (*before_dma)(void *arg, uint64_t n);
	void *before_dma_arg;
	/* QUIRE_CAP_* bits the card does not name (0: it names all it has), for tests that
	 * compare it with a card without some engine, such as the RTL card. */
	uint32_t caps_off;
};

/* A card, its firmware already running. NULL on failure (errno set). */
struct quire_device *quire_emu_create(const struct quire_emu_config *cfg);

/* For tests that drive one of the card's own blocks directly (the DMA mover's channels,
 * say), past the firmware: a 32-bit read or write at a card address (QUIRE_CARD_*) of a
 * card from quire_emu_create, as its firmware makes them. The firmware must leave that
 * block alone meanwhile (no command under way). */
uint32_t quire_emu_card_read(struct quire_device *dev, uint32_t addr);
void quire_emu_card_write(struct quire_device *dev, uint32_t addr, uint32_t value);

#endif
