/* SPDX-License-Identifier: MIT */
/*
 * The card's network port, modelled over the simulated network's reliable link
 * (sim/reliable_link.h, over the wire of sim/wire.h: Unix datagram sockets in a
 * directory, or UDP): the network of a rack, with loss and corruption only where a
 * test injects them.
 *
 * The port's registers are QUIRE_NET_* of include/quire/card.h: frames move
 * between card memory and the network through a transmit and a receive ring of
 * descriptors in card memory (docs/registers/net-rings.md). A transmit descriptor is
 * sent when the firmware moves TX_PROD on (in that register write); received frames
 * are written into the posted buffers from a thread of its own, so frames arrive while
 * the firmware is busy, and with no buffer posted that thread stops reading the socket.
 */
#ifndef QUIRE_SIM_NETPORT_H
#define QUIRE_SIM_NETPORT_H

#include <stdint.h>

#include "sim/wire.h" /* struct quire_netport_config: the network, shared with the RTL card */

struct quire_netport_stats {
	uint64_t tx_frames, rx_frames, rx_errors, tx_bytes, tx_drops;
	uint64_t retransmits; /* frames the link sent again (sim/reliable_link.c) */
};

struct quire_netport;

/* A port on the network, its rings and frames in card memory `mem` of `mem_bytes`;
 * `wake(ctx)` is called (from the receive thread, no lock held) whenever a receive
 * descriptor completes. Returns a QUIRE_ status; *out is NULL on failure. */
int quire_netport_open(const struct quire_netport_config *cfg, uint8_t *mem, uint64_t mem_bytes,
		       void (*wake)(void *), void *ctx, struct quire_netport **out);
void quire_netport_close(struct quire_netport *p);

/* Register access (offsets QUIRE_NET_*). */
uint32_t quire_netport_read(struct quire_netport *p, uint32_t reg);
void quire_netport_write(struct quire_netport *p, uint32_t reg, uint32_t value);
void quire_netport_stats(struct quire_netport *p, struct quire_netport_stats *st);

#endif
