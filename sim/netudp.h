/* SPDX-License-Identifier: MIT */
/*
 * The simulated network's second wire (sim/netlink.c picks it for a network named
 * "udp:..."): each port a UDP socket, so cards can sit in different network
 * namespaces or on different machines, behind shaped links.
 *
 * The network's name is its address table: "udp:HOST[:BASE],HOST[:BASE],..." where
 * entry i is where the port of address i lives (a single entry: every address on
 * that host); the port of address A listens on UDP port BASE + A (BASE default
 * QUIRE_NET_UDP_PORT_BASE), so several cards share a host. HOST is an IPv4 address.
 *
 * A frame (docs/network.md, unchanged) rides in one or two datagrams behind an
 * 8-byte tag (magic, piece, pieces, 0, sequence number): an IPv4 datagram carries at
 * most 65507 bytes and a frame up to 65568. Datagrams between two ports are numbered,
 * so that the receiver hands frames on in the order they were sent, as on a link
 * (between network namespaces the kernel can swap two datagrams: each crosses a veth on
 * whichever CPU sends it); one still missing 20 ms after a later one came is lost, and
 * so is its frame, as a frame lost on a link. The receiver joins the pieces. UDP has no push-back
 * from a full receiver: a sender is held back only by its own socket buffer (EAGAIN), frames beyond
 * the receiver's socket buffer are lost.
 */
#ifndef QUIRE_SIM_NETUDP_H
#define QUIRE_SIM_NETUDP_H

#include <stdint.h>

#include "sim/netlink.h" /* struct quire_net_rx_ops */

#define QUIRE_NET_UDP_PORT_BASE 47100u
#define QUIRE_NET_UDP_MAX_ADDR  255u /* port addresses a UDP network can hold: 0..255 */

struct quire_net_udp;

/* 1 when the network name is a UDP address table. */
int quire_net_udp_is(const char *net);

/* Whether the table parses (else QUIRE_ERR_INVALID) and has an entry for address addr
 * (else QUIRE_ERR_RANGE): quire-sim checks its arguments with it. */
int quire_net_udp_check(const char *net, uint16_t addr);

/* Parses the table and binds this port (address addr) on its entry's host and port.
 * A QUIRE_ status: INVALID for a bad table, RANGE for an address it has no entry for,
 * NO_DEVICE when the host is not one of this machine's (namespace's) addresses. */
int quire_net_udp_open(const char *net, uint16_t addr, struct quire_net_udp **out);
void quire_net_udp_close(struct quire_net_udp *u);

/* The socket, for the receive thread's poll. */
int quire_net_udp_fd(const struct quire_net_udp *u);

/* Sends the frame to address dst. QUIRE_OK (also when nobody listens there: UDP cannot
 * tell), QUIRE_ERR_BUSY when this socket's buffer is full (try again), QUIRE_ERR_RANGE
 * for an address outside the table, QUIRE_ERR_IO otherwise. */
int quire_net_udp_send(struct quire_net_udp *u, uint32_t dst, const uint8_t *f, uint32_t len);

/* Reads one datagram without blocking and hands each frame it completes, in the order
 * its sender sent them, to rx (room() before each; a frame longer than cap is cut to cap,
 * so that it shows as too long). 0, or -1 when room() said to stop. */
int quire_net_udp_recv(struct quire_net_udp *u, const struct quire_net_rx_ops *rx, void *ctx,
		       uint32_t cap);

/* When datagrams wait behind a missing one: how long the receive thread may sleep before
 * calling quire_net_udp_tick (ms), else -1. */
int quire_net_udp_wait_ms(const struct quire_net_udp *u);

/* A datagram missing for GAP_MS is lost: what waited behind it goes to rx. As recv. */
int quire_net_udp_tick(struct quire_net_udp *u, const struct quire_net_rx_ops *rx, void *ctx,
		       uint32_t cap);

#endif
