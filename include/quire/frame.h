/* SPDX-License-Identifier: MIT */
/*
 * Frames on the card network: what one card's network port sends another.
 *
 * A frame is this 32-byte header and up to QUIRE_FRAME_MAX_PAYLOAD bytes of
 * payload. The port fills crc32 on transmit (CRC-32 of the header, with crc32
 * zero, then the payload) and checks it on arrival, as an Ethernet MAC does
 * its FCS; the firmware sees a frame that failed the check flagged, never its
 * payload. Little-endian. See docs/network.md.
 */
#ifndef QUIRE_FRAME_H
#define QUIRE_FRAME_H

#include "quire/cmd.h" /* __u8 .. __u64, __le16 .. __le64 */

#define QUIRE_FRAME_VERSION     1u
#define QUIRE_FRAME_HDR_BYTES   32u
#define QUIRE_FRAME_MAX_PAYLOAD 65536u

enum quire_frame_type {
	QUIRE_FRAME_DATA = 1,  /* one chunk of one step of a collective */
	QUIRE_FRAME_ABORT = 2, /* the sender gave up on collective coll_seq: so must everyone */
	/* The sender is alive and a member of the communicator (to the member that waits for
	 * its DATA, every quarter of the timeout): a slow peer is not a dead one. link_seq:
	 * the DATA frames it has sent on this link, so a lost last frame is still noticed. */
	QUIRE_FRAME_KEEPALIVE = 3,
};

/* flags */
#define QUIRE_FRAME_F_OVERFLOW 0x0001 /* DATA: some int32 sum of this chunk saturated */
/* DATA of an all-reduce with the requantized all-gather (QUIRE_CMD_F_REQUANT): a member
 * that gets a frame whose mark differs from its own ends the collective, QUIRE_ERR_MISMATCH. */
#define QUIRE_FRAME_F_REQUANT 0x0002

/*
 * step: the phase of the collective in the top bits, the ring step below.
 * A receiver knows exactly which (phase, step, offset, len) comes next from its
 * ring neighbour, so any other frame is a protocol error, not data.
 */
#define QUIRE_FRAME_STEP(phase, s) ((__u16)((phase) << 12 | (s)))
#define QUIRE_FRAME_STEP_MAX       0x0fffu
enum quire_frame_phase {
	QUIRE_PHASE_EXP_RS = 1, /* block exponents: max, reduce-scatter */
	QUIRE_PHASE_EXP_AG = 2, /* block exponents: all-gather */
	QUIRE_PHASE_RS = 3,     /* values: reduce-scatter */
	QUIRE_PHASE_AG = 4,     /* values: all-gather */
	QUIRE_PHASE_GATHER = 5, /* ALLGATHER: bytes */
	QUIRE_PHASE_BCAST = 6,  /* BROADCAST: bytes down the ring from the root */
};

struct quire_frame_hdr {
	__u8 version; /* QUIRE_FRAME_VERSION */
	__u8 type;    /* enum quire_frame_type */
	__le16 flags;
	__le16 src;      /* network address of the sending port */
	__le16 dst;      /* network address of the receiving port */
	__le16 comm;     /* communicator id, the same on every member */
	__le16 step;     /* QUIRE_FRAME_STEP(phase, ring step) */
	__le32 coll_seq; /* the collective's number within the communicator, from 1 */
	__le32 offset;   /* first unit (element, or block for exponents) of the payload */
	__le32 len;      /* payload bytes */
	__le32
	    link_seq; /* this sender's frame count to this receiver in the communicator, from 1 */
	__le32 crc32;
};

/*
 * The link: on the simulated network every frame travels behind this 20-byte header, which
 * numbers the frames from one port to another so that the link can send again what was lost
 * or damaged on the way (docs/network.md, "Loss recovery"). The receiving side hands on only
 * whole frames, in order, each once; it acknowledges each (ACK, to the sender's control
 * address) and asks for the rest again from the first one it misses (NACK). ACK and NACK are
 * this header alone. A port never sees it: it is the link's, as an Ethernet preamble is.
 * A session is bound to the receiving port's incarnation, a random number each port draws
 * when it starts: a DATA frame names the one its sender last learned, an ACK or NACK carries
 * the answering port's own, and a port takes only frames that name its own.
 * A job with a key (docs/network.md, "The job's key") tags every datagram: version
 * QUIRE_LINK_VERSION_TAGGED, the header, a tag of QUIRE_LINK_TAG_BYTES over the header and
 * what follows it, then the frame (docs/wire-format.md).
 */
#define QUIRE_LINK_VERSION        3u
#define QUIRE_LINK_VERSION_TAGGED 4u
#define QUIRE_LINK_HDR_BYTES      20u
#define QUIRE_LINK_TAG_BYTES      16u
enum quire_link_kind {
	QUIRE_LINK_DATA = 1, /* a frame follows: seq is its number on this link, from 1 */
	QUIRE_LINK_ACK = 2,  /* every frame up to seq arrived and was taken */
	QUIRE_LINK_NACK = 3, /* frame seq is missing or was damaged: send again from it */
};
struct quire_link_hdr {
	__u8 version;   /* QUIRE_LINK_VERSION */
	__u8 kind;      /* enum quire_link_kind */
	__le16 src;     /* address of the port that sends this header */
	__le32 session; /* the sender's numbering of the link: new when it starts over at 1 */
	__le32 seq;
	__le32 incarnation; /* the receiving port's (DATA: as its sender learned it, 0 before it
			     * has; ACK, NACK: the answering port's own), never 0 once drawn */
	__le32 crc32;       /* CRC-32 (IEEE) of the 16 bytes before; the frame has its own */
};
#define QUIRE_LINK_OFF_SESSION     4u
#define QUIRE_LINK_OFF_SEQ         8u
#define QUIRE_LINK_OFF_INCARNATION 12u
#define QUIRE_LINK_OFF_CRC         16u

/* Where the fields are, for code that reads frames as bytes or 32-bit words. */
#define QUIRE_FRAME_OFF_ADDRS    4u /* src | dst << 16 */
#define QUIRE_FRAME_OFF_COMM     8u /* comm | step << 16 */
#define QUIRE_FRAME_OFF_COLL_SEQ 12u
#define QUIRE_FRAME_OFF_OFFSET   16u
#define QUIRE_FRAME_OFF_LEN      20u
#define QUIRE_FRAME_OFF_LINK_SEQ 24u
#define QUIRE_FRAME_OFF_CRC      28u

#ifndef __KERNEL__
#include <stddef.h>

#include "quire/static_assert.h"
QUIRE_STATIC_ASSERT(sizeof(struct quire_frame_hdr) == QUIRE_FRAME_HDR_BYTES, "frame header size");
QUIRE_STATIC_ASSERT(offsetof(struct quire_frame_hdr, src) == QUIRE_FRAME_OFF_ADDRS, "src");
QUIRE_STATIC_ASSERT(offsetof(struct quire_frame_hdr, comm) == QUIRE_FRAME_OFF_COMM, "comm");
QUIRE_STATIC_ASSERT(offsetof(struct quire_frame_hdr, coll_seq) == QUIRE_FRAME_OFF_COLL_SEQ, "seq");
QUIRE_STATIC_ASSERT(offsetof(struct quire_frame_hdr, offset) == QUIRE_FRAME_OFF_OFFSET, "offset");
QUIRE_STATIC_ASSERT(offsetof(struct quire_frame_hdr, len) == QUIRE_FRAME_OFF_LEN, "len");
QUIRE_STATIC_ASSERT(offsetof(struct quire_frame_hdr, link_seq) == QUIRE_FRAME_OFF_LINK_SEQ, "link");
QUIRE_STATIC_ASSERT(offsetof(struct quire_frame_hdr, crc32) == QUIRE_FRAME_OFF_CRC, "crc32");
QUIRE_STATIC_ASSERT(sizeof(struct quire_link_hdr) == QUIRE_LINK_HDR_BYTES, "link header size");
QUIRE_STATIC_ASSERT(offsetof(struct quire_link_hdr, session) == QUIRE_LINK_OFF_SESSION, "session");
QUIRE_STATIC_ASSERT(offsetof(struct quire_link_hdr, seq) == QUIRE_LINK_OFF_SEQ, "link seq");
QUIRE_STATIC_ASSERT(offsetof(struct quire_link_hdr, incarnation) == QUIRE_LINK_OFF_INCARNATION,
		    "incarnation");
QUIRE_STATIC_ASSERT(offsetof(struct quire_link_hdr, crc32) == QUIRE_LINK_OFF_CRC, "link crc32");
#endif

#endif /* QUIRE_FRAME_H */
