/* SPDX-License-Identifier: MIT */
/*
 * The RTL card (rtl/card/ under Verilator, through sim/rtl/card_harness.h)
 * behind the device interface (sim/device.h), for C: what quire-sim-rtl serves
 * as `quire-sim --model rtl`. A host cannot tell it from the emu except by
 * speed and its cycle counts (docs/rtl-card.md says where they differ). Its
 * network port, when given a network, is on the emu's (sim/reliable_link.h, with its
 * link layer's loss recovery): RTL and emu cards can share one.
 *
 * One thread owns the model and clocks it; MMIO calls hand their access to it
 * and wait for it, so the accesses happen between clock edges in their order.
 * When the core sleeps in WFI with no event for it, the thread sleeps too: until
 * an MMIO write, or until the firmware's wake-up time comes in real time at the
 * card's clock, when the cycle counter is moved forward to it. An idle card
 * costs no CPU.
 */
#ifndef QUIRE_SIM_RTL_RTL_DEVICE_H
#define QUIRE_SIM_RTL_RTL_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/device.h"
#include "sim/reliable_link.h"

#ifdef __cplusplus
extern "C" {
#endif

struct quire_rtl_config {
	const char *fw_elf; /* the card firmware (build/firmware/quire-fw.elf) */
	/* The network to attach the card's port to (sim/reliable_link.h, the emu's network), or
	 * NULL. */
	const struct quire_netport_config *net;
	char *error; /* on failure, why (may be NULL) */
	size_t error_len;
};

/* A card, its firmware booted and its model clocking. NULL on failure, with cfg->error. */
struct quire_device *quire_rtl_device_create(const struct quire_rtl_config *cfg);

/* Cycles clocked so far, and cycles skipped while the card slept (idle). */
void quire_rtl_device_stats(struct quire_device *dev, uint64_t *clocked, uint64_t *skipped);

#ifdef __cplusplus
}
#endif

#endif
