/* SPDX-License-Identifier: MIT */
/*
 * The simulated card network's reliable link, shared by the emu's port (sim/emu/netport.c)
 * and the RTL card's harness (sim/rtl/rtl_device.cpp), so that both kinds of card can
 * share one network. It sends frames over the wire (sim/wire.h: Unix datagram sockets in
 * the network's directory, or UDP for a network named "udp:...", with the faults a test
 * asks for, after the CRC) and runs a receive thread that hands each frame to its owner,
 * which says when it has room for one more: a full port stops reading the socket. Frames
 * lost or damaged on the way are sent again (reliable_link.c: selective repeat under a
 * link header, ACKs and NACKs on the wire's second channel), so the owner receives every
 * frame sent to it whole, in order and once, or, when the sender's card is gone, nothing
 * more.
 */
#ifndef QUIRE_SIM_RELIABLE_LINK_H
#define QUIRE_SIM_RELIABLE_LINK_H

#include <stdint.h>

#include "quire/frame.h"
#include "sim/wire.h" /* struct quire_netport_config */

#ifdef __cplusplus
extern "C" {
#endif

#define QUIRE_NET_FRAME_MAX (QUIRE_FRAME_HDR_BYTES + QUIRE_FRAME_MAX_PAYLOAD)

struct quire_reliable_link;

/* What the link did, since it was opened. */
struct quire_reliable_link_stats {
	uint64_t retransmits;     /* frames sent again (after a NACK or a timeout) */
	uint64_t nacks;           /* NACKs this port sent: a frame to it missing or damaged */
	uint64_t wire_lost;       /* frames the injected faults lost on the way out */
	uint64_t wire_damaged;    /* frames they damaged */
	uint64_t rx_damaged;      /* datagrams that arrived damaged (dropped, asked for again) */
	uint64_t rx_duplicates;   /* frames that arrived again (dropped, acknowledged again) */
	uint64_t rx_out_of_order; /* frames that came ahead of a gap (kept until it is filled) */
	uint64_t rx_forged;       /* datagrams whose CRCs held but tag failed (dropped) */
	uint64_t rx_replayed;     /* tagged datagrams of before this port started (naming an earlier
				   * incarnation), of a session left, or old answers (dropped) */
	uint64_t starts_over; /* sessions started over with the frames held (a receiver asked) */
};

/* What the receive thread calls: room(ctx) before each read, blocking while the owner is
 * full, 0 when the thread is to end; deliver(ctx, frame, len) with each frame, which it
 * copies: whole (its header's length is len's, len at most QUIRE_NET_FRAME_MAX) and its CRC
 * checked by the link, so the owner need not compute it again. */
struct quire_reliable_link_rx_ops {
	int (*room)(void *ctx);
	void (*deliver)(void *ctx, const uint8_t *frame, uint32_t len);
};

/* Binds this port's socket and starts the receive thread. On a UDP network the job's key
 * comes from the environment (sim/job_key.h), without which the link is refused
 * (QUIRE_ERR_INVALID, said on stderr). A QUIRE_ status. */
int quire_reliable_link_open(const struct quire_netport_config *cfg,
			     const struct quire_reliable_link_rx_ops *rx, void *ctx,
			     struct quire_reliable_link **out);
/* Ends the receive thread (the owner has made room() return 0, or room() returns at once),
 * unbinds the socket. */
void quire_reliable_link_close(struct quire_reliable_link *l);

/* Sends the frame of `len` bytes (its header's crc32 already filled) to address dst, with
 * the configured faults, and keeps a copy until dst acknowledges it. QUIRE_OK when sent (the
 * link delivers it, sending it again as often as it must); QUIRE_OK with *nobody set when no
 * port has that address (the frame is lost); QUIRE_ERR_BUSY when the peer's buffer, or what
 * the link keeps for it, is full (try again); QUIRE_ERR_RANGE, QUIRE_ERR_NOMEM or
 * QUIRE_ERR_IO otherwise. */
int quire_reliable_link_send(struct quire_reliable_link *l, uint32_t dst, uint8_t *frame,
			     uint32_t len, int *nobody);

void quire_reliable_link_stats(struct quire_reliable_link *l, struct quire_reliable_link_stats *st);

/* The frame's CRC-32 (IEEE, zlib's: hls/crc32.c's): the header with crc32 zero, then the
 * payload; what the port computes on send and checks on arrival. */
uint32_t quire_net_frame_crc(const uint8_t *frame, uint32_t len);

#ifdef __cplusplus
}
#endif

#endif
