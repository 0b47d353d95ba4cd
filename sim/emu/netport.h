/* SPDX-License-Identifier: MIT */
/*
 * The card's network port, modelled over the simulated network's reliable link
 * (sim/reliable_link.h, over the wire of sim/wire.h: Unix datagram sockets in a
 * directory, or UDP): the network of a rack, with loss and corruption only where a
 * test injects them.
 *
 * The port's registers are QUIRE_NET_* of include/quire/card.h. Its receive
 * buffer fills from a thread of its own, so frames arrive while the firmware
 * is busy; the buffer is bounded, and a full one stops reading the socket.
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

/* A port on the network; `wake(ctx)` is called (from the receive thread, no lock held)
 * whenever a frame arrives. Returns a QUIRE_ status; *out is NULL on failure. */
int quire_netport_open(const struct quire_netport_config *cfg, void (*wake)(void *), void *ctx,
		       struct quire_netport **out);
void quire_netport_close(struct quire_netport *p);

/* Register access (offsets QUIRE_NET_*); `mem` is card memory, for frames. */
uint32_t quire_netport_read(struct quire_netport *p, uint32_t reg);
void quire_netport_write(struct quire_netport *p, uint32_t reg, uint32_t value, uint8_t *mem,
			 uint64_t mem_bytes);
void quire_netport_stats(struct quire_netport *p, struct quire_netport_stats *st);

#endif
