/* SPDX-License-Identifier: MIT */
/*
 * The simulated card network's wire: what carries one port's datagrams, beneath the loss
 * recovery of sim/reliable_link.c. A port has two channels, its frames and its link's ACKs
 * and NACKs. On a network named by a directory they are Unix datagram sockets there,
 * <dir>/port-A and <dir>/link-A (datagrams keep their boundaries, arrive in order, and a
 * full receiver pushes back on its senders: EAGAIN); on a network named "udp:..." they
 * are UDP sockets (sim/wire_udp.h), for cards in other network namespaces or on other
 * machines. The wire also injects the faults a test asks for (a datagram lost, or one bit
 * of it flipped), drawn from a hash of what names the datagram, so that a seeded run loses
 * the same datagrams whatever the threads do. It sends and receives; it never resends.
 */
#ifndef QUIRE_SIM_WIRE_H
#define QUIRE_SIM_WIRE_H

#include <stdint.h>

#include "quire/frame.h"
#include "sim/frame_auth.h"
#include "sim/job_key.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest datagram the wire carries: a link header, its tag (on a network with a job
 * key) and the longest frame. */
#define QUIRE_WIRE_DATAGRAM_MAX                                                                    \
	(QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES + QUIRE_FRAME_HDR_BYTES +                     \
	 QUIRE_FRAME_MAX_PAYLOAD)
/* Receive buffers' room before the datagram (quire_wire_recv): where the UDP wire joins the
 * two pieces of a long datagram without copying the long one. */
#define QUIRE_WIRE_HEADROOM 1024u

/* A port's two channels. */
enum quire_wire_chan { QUIRE_WIRE_FRAMES = 0, QUIRE_WIRE_LINK = 1 };

/* A port on the simulated network (the emu's port, the RTL card's harness). */
struct quire_netport_config {
	const char *dir; /* the network: a directory every port of it binds in, or udp:... */
	uint16_t addr;   /* this port's address */
	/* Faults, for tests: the probability that a datagram on the wire (a frame, sent
	 * again or not, or the link's ACK or NACK) is lost, or has one bit flipped after
	 * its CRC was computed; drawn from a hash of seed and what names the datagram. */
	double drop, corrupt;
	uint64_t seed;
};

struct quire_wire;

/* What the wire did to a datagram it was given. */
enum quire_wire_fate { QUIRE_WIRE_SENT = 0, QUIRE_WIRE_LOST = 1, QUIRE_WIRE_DAMAGED = 2 };

/* What names one transmission, for the faults: the same name meets the same fate. */
struct quire_wire_name {
	uint32_t kind;    /* the link header's kind (include/quire/frame.h) */
	uint32_t seq;     /* its number on the link */
	uint32_t attempt; /* how often it was sent before */
};

/* Binds the port's two channels (cfg->dir, cfg->addr) and keeps cfg's faults; key is the
 * job's, for a UDP rendezvous (NULL: none). A QUIRE_ status: QUIRE_ERR_NO_DEVICE when the
 * directory is missing or not this host's; the UDP wire's statuses (wire_udp.h). */
int quire_wire_open(const struct quire_netport_config *cfg, const struct quire_job_key *key,
		    struct quire_wire **out);
/* The run's identity a UDP rendezvous gave into run: 1, else 0. */
int quire_wire_run(const struct quire_wire *w, uint8_t run[QUIRE_JOB_RUN_BYTES]);
/* Closes the channels (and unbinds the Unix sockets). */
void quire_wire_close(struct quire_wire *w);

/* A channel's socket, to poll. */
int quire_wire_fd(const struct quire_wire *w, enum quire_wire_chan ch);

/*
 * Sends one datagram, the header's hdr_len bytes then the body's body_len (body may be
 * NULL with 0), to channel ch of address dst, after the faults the name draws; *fate says
 * which (a damaged copy goes: hdr and body stay whole). QUIRE_OK (sent, or lost on the way;
 * over UDP also when nobody listens, which UDP cannot tell), QUIRE_ERR_BUSY (a socket
 * buffer is full: try again), QUIRE_ERR_NO_DEVICE (no socket at that address),
 * QUIRE_ERR_RANGE or QUIRE_ERR_IO. Sends with a body from one thread at a time: the damaged
 * copy is made in the wire's own buffer.
 */
int quire_wire_send(struct quire_wire *w, enum quire_wire_chan ch, uint32_t dst, const uint8_t *hdr,
		    uint32_t hdr_len, const uint8_t *body, uint32_t body_len,
		    const struct quire_wire_name *name, enum quire_wire_fate *fate);

/*
 * The next datagram on channel ch, without blocking, read into buf past QUIRE_WIRE_HEADROOM
 * bytes: 1 with *len bytes at *data (cut to what buf holds, so that one too long shows) and
 * *src its sender's address (-1 when unknown); 0 when what was read completed nothing (read
 * on); -1 when nothing is waiting.
 */
int quire_wire_recv(struct quire_wire *w, enum quire_wire_chan ch, uint8_t *buf, uint32_t cap,
		    const uint8_t **data, uint32_t *len, int64_t *src);

/* The hash the faults are drawn from (splitmix64's finaliser); the link draws its session
 * numbers from it too. */
uint64_t quire_wire_hash(uint64_t x);

#ifdef __cplusplus
}
#endif

#endif
