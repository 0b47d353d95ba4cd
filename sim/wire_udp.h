/* SPDX-License-Identifier: MIT */
/*
 * The simulated network's wire over UDP (sim/wire.c picks it for a network named
 * "udp:..."): UDP sockets, so cards can sit in different network namespaces or on
 * different machines, behind shaped links. It only carries datagrams; the link layer
 * above it (reliable_link.c: link header, ACK/NACK, resending) makes them a reliable link.
 *
 * The network's name is its address table: "udp:HOST[:BASE],HOST[:BASE],..." where
 * entry i is where the port of address i lives (a single entry: every address on
 * that host). Each port has two channels, as the wire's Unix sockets are two (wire.c): its
 * frames arrive on UDP port BASE + A, its link's ACKs and NACKs on BASE + 256 + A
 * (BASE default QUIRE_WIRE_UDP_PORT_BASE), so several cards share a host. HOST is an
 * IPv4 address. Or no list: "udp:rdv=HOST:PORT,..." and "udp:dir=PATH,..." (wire_udp_rendezvous.h)
 * bind each port's channels on any free ports and learn the table from a rendezvous.
 *
 * A datagram of the link (link header and frame, up to 65584 bytes; an IPv4 datagram
 * carries at most 65507) rides in one or two UDP datagrams behind an 8-byte tag (magic,
 * piece, pieces, 0, a number counted per destination and channel), a longer one as its
 * head (what is over 65000 bytes, at most QUIRE_WIRE_HEADROOM) then its last 65000
 * bytes; the receiver keeps
 * a piece (up to 4 per sender) until the other piece of its datagram, the next or the
 * previous number, comes, in either order and with other datagrams between them, and
 * joins the two; a piece whose partner never comes is pushed out by newer ones, and the
 * link sees a frame lost and asks for it again. Datagrams that cross out of order
 * (between network namespaces the kernel can swap two: each crosses a veth on whichever
 * CPU sends it) are handed on as they come; the link puts them back in order. UDP has no push-back
 * from a full receiver: a sender is held back only by its own socket buffer (EAGAIN); datagrams
 * beyond the receiver's socket buffer are lost, and sent again by the link. Nor can UDP tell a
 * sender that nobody listens: a frame to an address without a card is lost, sent again
 * while the link keeps it (docs/network.md).
 */
#ifndef QUIRE_SIM_WIRE_UDP_H
#define QUIRE_SIM_WIRE_UDP_H

#include <stdint.h>
#include <sys/uio.h>

#include "sim/job_key.h"
#include "sim/wire.h" /* enum quire_wire_chan, QUIRE_WIRE_HEADROOM */

#define QUIRE_WIRE_UDP_PORT_BASE 47100u
#define QUIRE_WIRE_UDP_MAX_ADDR  255u /* port addresses a UDP network can hold: 0..255 */
#define QUIRE_WIRE_UDP_LINK_OFF  256u /* the link channel's UDP port: BASE + 256 + address */

struct quire_wire_udp;

/* 1 when the network name is a UDP address table. */
int quire_wire_udp_is(const char *net);

/* Whether the table parses (else QUIRE_ERR_INVALID) and has an entry for address addr
 * (else QUIRE_ERR_RANGE): quire-sim checks its arguments with it. */
int quire_wire_udp_check(const char *net, uint16_t addr);

/* Parses the table and binds this port's two channels (address addr) on its entry's host;
 * for a rendezvous form, binds them on free ports and waits (bounded) for the table, saying
 * on stderr what failed. A QUIRE_ status: INVALID for a bad table, RANGE for an address it
 * has no entry for, NO_DEVICE when the host is not one of this machine's (namespace's)
 * addresses; the rendezvous' statuses (wire_udp_rendezvous.h). key: the job's, which a
 * rendezvous makes every card prove (NULL: a rendezvous is refused). */
int quire_wire_udp_open(const char *net, uint16_t addr, const struct quire_job_key *key,
			struct quire_wire_udp **out);
/* The run's identity the rendezvous gave into run: 1, or 0 for a list (no rendezvous). */
int quire_wire_udp_run(const struct quire_wire_udp *u, uint8_t run[QUIRE_JOB_RUN_BYTES]);
void quire_wire_udp_close(struct quire_wire_udp *u);

/* A channel's socket, for the link's threads to poll. */
int quire_wire_udp_fd(const struct quire_wire_udp *u, enum quire_wire_chan ch);

/* Sends one datagram, the iovecs' bytes in turn, to channel ch of address dst.
 * QUIRE_OK (also when nobody listens there: UDP cannot tell), QUIRE_ERR_BUSY when this
 * socket's buffer is full (try again), QUIRE_ERR_RANGE for an address outside the table
 * or a datagram longer than 65000 + QUIRE_WIRE_HEADROOM bytes, QUIRE_ERR_IO otherwise. */
int quire_wire_udp_send(struct quire_wire_udp *u, enum quire_wire_chan ch, uint32_t dst,
			const struct iovec *iov, int n_iov);

/* Reads one UDP datagram from channel ch without blocking, into buf past
 * QUIRE_WIRE_HEADROOM bytes (where the head of a two-piece datagram is put when its tail
 * comes, so that the long tail is not copied). 1: a whole datagram as sent is at buf + *off,
 * *len bytes (cut to what buf holds, so that one too long shows), *src the address of the
 * port that sent it; 0: what was read completed nothing (a piece, a stranger's, or cap not
 * above the headroom); -1: nothing is waiting. */
int quire_wire_udp_recv(struct quire_wire_udp *u, enum quire_wire_chan ch, uint8_t *buf,
			uint32_t cap, uint32_t *off, uint32_t *len, uint32_t *src);

#endif
