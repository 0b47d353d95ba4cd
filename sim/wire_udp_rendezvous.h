/* SPDX-License-Identifier: MIT */
/*
 * The rendezvous of the cards' UDP network (docs/network.md, "A rendezvous instead of a
 * list"): instead of a list of every card's host given to every card, each card binds its
 * two UDP channels where it is (port 0: any free port), announces (its address, its two
 * endpoints) and receives the whole table of W entries before its port starts. The
 * simulated cards' ports meet here, before a host runs anything; libquire's rendezvous
 * (host/src/comm/rendezvous.c, quire_comm_rendezvous) is another meeting, of a job's
 * ranks making a card communicator, over the cards this one has already joined.
 *
 *   udp:rdv=HOST:PORT[,cards=W][,timeout=S]   over TCP: the card of address 0 listens on
 *       HOST:PORT (an address of its machine or namespace) and binds its UDP channels on
 *       HOST; every other card connects there (trying again until the timeout), binds on
 *       the address its connection left from (the route towards the rendezvous), and
 *       announces itself; card 0 answers each with the table once all W have come, or
 *       with an ERROR naming what went wrong (a card missing at the timeout, an address
 *       announced twice, another W, a malformed message).
 *   udp:dir=PATH[,cards=W][,host=IP][,timeout=S]   in a directory (one machine, or a
 *       filesystem the hosts share): each card binds on IP (default 127.0.0.1), writes
 *       its announcement to PATH/udp-ADDR (an existing one is refused: the address is
 *       taken) and reads the others' as they appear.
 *
 * cards= is W, the number of addresses (quire-cluster adds it from -n or mpirun's world
 * size); timeout= is how long a card waits for the others, seconds (default 30, at most
 * 600): never longer, whatever the peers do. The messages (below) are little-endian and
 * versioned; they are the simulation's (a hardware card's addresses would come from its
 * own bootstrap), so they live here and not in include/quire/.
 */
#ifndef QUIRE_SIM_WIRE_UDP_RENDEZVOUS_H
#define QUIRE_SIM_WIRE_UDP_RENDEZVOUS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/job_key.h"

/* Every message: an 8-byte header, then len bytes of body. */
#define QUIRE_WIRE_UDP_RDV_MAGIC       0x56445251u /* "QRDV" as its little-endian bytes */
#define QUIRE_WIRE_UDP_RDV_VERSION     2u
#define QUIRE_WIRE_UDP_RDV_HDR_BYTES   8u
#define QUIRE_WIRE_UDP_RDV_OFF_MAGIC   0u /* u32 */
#define QUIRE_WIRE_UDP_RDV_OFF_VERSION 4u /* u8 */
#define QUIRE_WIRE_UDP_RDV_OFF_TYPE    5u /* u8: enum quire_wire_udp_rdv_type */
#define QUIRE_WIRE_UDP_RDV_OFF_LEN     6u /* u16: body bytes */

enum quire_wire_udp_rdv_type {
	QUIRE_WIRE_UDP_RDV_ANNOUNCE = 1,  /* a card to the rendezvous: who it is, where */
	QUIRE_WIRE_UDP_RDV_TABLE = 2,     /* the rendezvous to every card: all W entries */
	QUIRE_WIRE_UDP_RDV_ERROR = 3,     /* the rendezvous to every card: why it failed (text) */
	QUIRE_WIRE_UDP_RDV_CHALLENGE = 4, /* the rendezvous to a card that connects: its nonce */
};

/* Proofs of the job key (sim/job_key.h): HMAC-SHA256 under it (sim/frame_auth.h). */
#define QUIRE_WIRE_UDP_RDV_NONCE_BYTES 16u
#define QUIRE_WIRE_UDP_RDV_RUN_BYTES   16u /* the run's identity (QUIRE_JOB_RUN_BYTES) */
#define QUIRE_WIRE_UDP_RDV_MAC_BYTES   32u

/* CHALLENGE body: the rendezvous' fresh nonce for this connection. */
#define QUIRE_WIRE_UDP_RDV_CHAL_BYTES QUIRE_WIRE_UDP_RDV_NONCE_BYTES

/* An endpoint: 8 bytes, in ANNOUNCE (after addr and cards) and TABLE (W of them). */
#define QUIRE_WIRE_UDP_RDV_EP_BYTES  8u
#define QUIRE_WIRE_UDP_RDV_EP_OFF_IP 0u /* 4 bytes: the IPv4 address, in network order */
#define QUIRE_WIRE_UDP_RDV_EP_OFF_PORT                                                             \
	4u /* u16 x 2: the UDP ports of the frames, link channels                                  \
	    */

/* ANNOUNCE body: addr (u16), cards (u16: the W it was given), its endpoint, the card's fresh
 * nonce, the run's identity (a file of address 0; else zero), then the MAC: HMAC(key,
 * "quire rdv announce v2" || the CHALLENGE's nonce (a file: zero) || the body before it). */
#define QUIRE_WIRE_UDP_RDV_ANN_OFF_ADDR  0u
#define QUIRE_WIRE_UDP_RDV_ANN_OFF_CARDS 2u
#define QUIRE_WIRE_UDP_RDV_ANN_OFF_EP    4u
#define QUIRE_WIRE_UDP_RDV_ANN_OFF_NONCE 12u
#define QUIRE_WIRE_UDP_RDV_ANN_OFF_RUN   28u
#define QUIRE_WIRE_UDP_RDV_ANN_OFF_MAC   44u
#define QUIRE_WIRE_UDP_RDV_ANN_BYTES     76u

/* TABLE body: cards (u16), 0 (u16), the endpoint of each address 0..cards-1, the run's
 * identity, then the MAC: HMAC(key, "quire rdv table v2" || the card's nonce || the
 * CHALLENGE's nonce || the body before it): the rendezvous too proves the key. */
#define QUIRE_WIRE_UDP_RDV_TAB_OFF_CARDS 0u
#define QUIRE_WIRE_UDP_RDV_TAB_OFF_EP    4u
#define QUIRE_WIRE_UDP_RDV_TAB_BYTES(w)                                                            \
	(QUIRE_WIRE_UDP_RDV_TAB_OFF_EP + (w)*QUIRE_WIRE_UDP_RDV_EP_BYTES +                         \
	 QUIRE_WIRE_UDP_RDV_RUN_BYTES + QUIRE_WIRE_UDP_RDV_MAC_BYTES)

/* ERROR body: at most this many bytes of text, no terminating zero. */
#define QUIRE_WIRE_UDP_RDV_ERR_MAX       1024u

#define QUIRE_WIRE_UDP_RDV_MAX_CARDS     256u /* the UDP network's addresses, 0-255 */
#define QUIRE_WIRE_UDP_RDV_TIMEOUT_S     30u
#define QUIRE_WIRE_UDP_RDV_CONN_MS       5000u /* a connection announces within this, or goes */
#define QUIRE_WIRE_UDP_RDV_MAX_TIMEOUT_S 600u

/* Where one address's two channels are. */
struct quire_wire_udp_ep {
	uint32_t ip;      /* network order */
	uint16_t port[2]; /* host order: frames, link (enum quire_wire_chan) */
};

enum quire_wire_udp_rdv_kind { QUIRE_WIRE_UDP_RDV_TCP = 1, QUIRE_WIRE_UDP_RDV_DIR = 2 };

struct quire_wire_udp_rdv_spec {
	enum quire_wire_udp_rdv_kind kind;
	uint32_t ip;   /* network order: RDV the rendezvous' host, DIR the card's (host=) */
	uint16_t port; /* RDV: the rendezvous' TCP port */
	char dir[256]; /* DIR: the directory */
	uint32_t cards, timeout_ms;
};

/* 1 when the network name is a rendezvous form (udp:rdv=... or udp:dir=...). */
int quire_wire_udp_rdv_is(const char *net);

/* Parses a rendezvous form. QUIRE_OK, or QUIRE_ERR_INVALID with the reason in why. */
int quire_wire_udp_rdv_parse(const char *net, struct quire_wire_udp_rdv_spec *s, char *why,
			     size_t why_len);

/* Binds this card's two channels on ip (network order), any free ports, and says which. */
typedef int (*quire_wire_udp_rdv_bind_fn)(void *ctx, uint32_t ip, uint16_t port[2]);

/*
 * Takes part in the rendezvous as address addr (< s->cards), proving the job's key (and,
 * over TCP, the rendezvous proving it back): finds the address to bind on, calls bind,
 * announces the endpoint it gives, and fills table[0..cards-1] and run (the run's identity,
 * made by the card of address 0). A connection that fails the proof, says nothing within
 * QUIRE_WIRE_UDP_RDV_CONN_MS or is malformed is refused (told why, and said and counted on
 * stderr), and the rendezvous goes on. With no key (NULL), QUIRE_ERR_INVALID. Returns
 * within the timeout (and a connection's 2 s more): QUIRE_OK; QUIRE_ERR_TIMEOUT (peers
 * missing, named), QUIRE_ERR_INVALID (an address twice, another W, a malformed message),
 * QUIRE_ERR_PEER (the rendezvous failed or went away), QUIRE_ERR_NO_DEVICE (the host is
 * not this machine's), QUIRE_ERR_IO otherwise, with why saying what happened.
 */
int quire_wire_udp_rdv_join(const struct quire_wire_udp_rdv_spec *s, uint16_t addr,
			    const struct quire_job_key *key, quire_wire_udp_rdv_bind_fn bind,
			    void *ctx, struct quire_wire_udp_ep *table,
			    uint8_t run[QUIRE_WIRE_UDP_RDV_RUN_BYTES], char *why, size_t why_len);

/* The MACs above: of an ANNOUNCE message m (header and body) under the challenge's nonce
 * (NULL: zero), and of a TABLE message m of len bytes under the card's and the challenge's
 * nonces; into mac. QUIRE_OK or QUIRE_ERR_NOMEM. */
int quire_wire_udp_rdv_announce_mac(const struct quire_job_key *key, const uint8_t *challenge,
				    const uint8_t *m, uint8_t mac[QUIRE_WIRE_UDP_RDV_MAC_BYTES]);
int quire_wire_udp_rdv_table_mac(const struct quire_job_key *key, const uint8_t *card_nonce,
				 const uint8_t *challenge, const uint8_t *m, uint32_t len,
				 uint8_t mac[QUIRE_WIRE_UDP_RDV_MAC_BYTES]);

#endif
