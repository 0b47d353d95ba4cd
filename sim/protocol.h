/* SPDX-License-Identifier: MIT */
/*
 * quire-sim's socket protocol: how a host process reaches a card process.
 *
 * A Unix stream socket carries fixed 24-byte messages. The host opens with
 * HELLO, passing its host memory (a memfd) as SCM_RIGHTS ancillary data; the
 * card maps it and may then DMA into [iova, iova + size). MMIO writes need no
 * answer; an MMIO read is answered by READ_REPLY; the card sends IRQ whenever
 * it raises an interrupt, at any time. Closing the socket ends the session:
 * the card drops the host's queues and serves the next host.
 *
 * The card answers a HELLO at once (version 2): HELLO_ACK when the host is
 * attached (or refused), else BUSY, naming the host that holds the card, and
 * BUSY again every QUIRE_SIM_BUSY_INTERVAL_MS while the host waits its turn
 * (hosts are served in the order they said HELLO). So a host tells a card in
 * use, which keeps talking, from a card that does not answer at all, and need
 * not wait longer than its own timeout for the first word. A host that gives
 * up its turn closes the socket.
 */
#ifndef QUIRE_SIM_PROTOCOL_H
#define QUIRE_SIM_PROTOCOL_H

#include <stdint.h>

#define QUIRE_SIM_PROTOCOL_VERSION 2u

/* How often a card tells a waiting host that it is still in use. */
#define QUIRE_SIM_BUSY_INTERVAL_MS 100u

enum quire_sim_msg_type {
	QUIRE_SIM_HELLO = 1,      /* host: offset = protocol version, value = size, value2 = iova */
	QUIRE_SIM_HELLO_ACK = 2,  /* card: value = status */
	QUIRE_SIM_MMIO_READ = 3,  /* host: offset */
	QUIRE_SIM_READ_REPLY = 4, /* card: value */
	QUIRE_SIM_MMIO_WRITE = 5, /* host: offset, value */
	QUIRE_SIM_IRQ = 6,        /* card: value = causes */
	/* card, to a host that waits for HELLO_ACK: offset = hosts waiting before this one,
	 * value = pid of the host that holds the card, value2 = when it attached (CLOCK_REALTIME,
	 * ms since the epoch) */
	QUIRE_SIM_BUSY = 7,
};

struct quire_sim_msg {
	uint32_t type;
	uint32_t offset;
	uint64_t value;
	uint64_t value2;
};

_Static_assert(sizeof(struct quire_sim_msg) == 24, "message size");

#endif
