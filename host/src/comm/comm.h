/* SPDX-License-Identifier: MIT */
/*
 * Communicators: the collective algorithms, written once over a transport's
 * few primitives (MPI for the cpu backend; cards bring their own later).
 */
#ifndef QUIRE_COMM_H
#define QUIRE_COMM_H

#include "host/src/core/core.h"

/* One message in flight; the transport keeps its own handle in it. */
struct quire_xfer {
	uint64_t opaque[4];
};

/*
 * A host transport: point-to-point messages round the ring, to rank + 1 and from
 * rank - 1, which arrive in the order they were sent. A message carries flags
 * (QUIRE_XFER_F_*) beside its bytes. The ring (ring_collective.c) runs every collective over
 * these, as the cards' firmware runs them over its port.
 */
#define QUIRE_XFER_F_OVERFLOW 1 /* some int32 sum of this message saturated */
#define QUIRE_XFER_F_REQUANT  2 /* a message of a requantized all-reduce */
#define QUIRE_XFER_F_MISMATCH 4 /* the sender learnt that the ranks' options differ */
#define QUIRE_XFER_F_ALL      7
struct quire_comm_ops {
	int (*isend)(struct quire_comm *c, const void *buf, size_t bytes, int flag,
		     struct quire_xfer *x);
	int (*irecv)(struct quire_comm *c, void *buf, size_t bytes, struct quire_xfer *x);
	/* Completes x; a receive's flag into *flag (may be NULL). */
	int (*wait)(struct quire_comm *c, struct quire_xfer *x, int *flag);
	/* Gives up on x after a failure: its buffer may still be written until the
	 * communicator is freed. */
	void (*abandon)(struct quire_comm *c, struct quire_xfer *x);
	int (*barrier)(struct quire_comm *c);
	void (*free)(struct quire_comm *c);
};

struct quire_comm {
	struct quire_ctx *ctx;
	int rank, size;
	/* Host transports: the primitives the host algorithms use. NULL on card
	 * communicators, whose cards run the collectives (card.c). */
	const struct quire_comm_ops *ops;
	uint16_t card_id; /* the cards' communicator id, 0 for a host transport */
	void *priv;
	/* Scratch kept between calls: fresh memory costs page faults (and MPI its
	 * registration) on every call, which dominated large all-reduces. */
	void *scratch;
	size_t scratch_bytes;
	/* A host collective failed with messages still posted into scratch: the
	 * communicator refuses every later collective (QUIRE_ERR_PEER). */
	int failed;
	unsigned options; /* QUIRE_COMM_OPT_* */
};

struct quire_ef {
	struct quire_ctx *ctx;
	struct quire_buf *resid;
	/* On cards the new residual goes here and the two trade places when the
	 * collective succeeds, so a failed one leaves the state as it was. */
	struct quire_buf *next;
	size_t count;
	size_t owner; /* the owner residual's length (requantized all-gather), after count */
};

/* requant.c: the owner residual of a requantized all-reduce of `len` elements: resid (and
 * next, when it exists) hold count + len fp32, the owner's part zeroed when len changes. */
int quire_ef_hold_owner(struct quire_ef *ef, size_t len);
/* A bfp all-reduce requantized at the owner: the communicator's option, for this format. */
int quire_comm_requant(const struct quire_comm *c, enum quire_format fmt);

/* card.c: collectives on card communicators. */
int quire_card_allreduce(struct quire_comm *c, const struct quire_allreduce_args *a,
			 struct quire_req **req);
int quire_card_reduce_scatter(struct quire_comm *c, const struct quire_allreduce_args *a,
			      struct quire_req **req);
int quire_card_broadcast(struct quire_comm *c, struct quire_ref buf, size_t bytes, int root,
			 struct quire_req **req);
int quire_card_allgather(struct quire_comm *c, struct quire_ref src, struct quire_ref dst,
			 size_t bytes, struct quire_req **req);
int quire_card_barrier(struct quire_comm *c, struct quire_req **req);
void quire_card_comm_free(struct quire_comm *c);

/* ring_collective.c: collectives on host transports, the cards' ring over c->ops. */
int quire_ring_collective_allreduce(struct quire_comm *c, const struct quire_allreduce_args *a,
				    const float *x, float *y, int scatter);
int quire_ring_collective_allgather(struct quire_comm *c, const void *src, void *dst, size_t bytes);
int quire_ring_collective_broadcast(struct quire_comm *c, void *buf, size_t bytes, int root);

/* requant.c: the requantized all-gather on the host's ring. A message of len elements
 * holds the values in QUIRE_RING_VAL(fmt), then an exponent byte per block. */
size_t quire_ring_requant_bytes(enum quire_format fmt, size_t len);
/* The owner: its finished sums (fin, shared exponents eg) decoded, with mean_w, and
 * requantized with own (the owner residual of these elements, or NULL; tmp: len fp32). */
int quire_ring_requantize(enum quire_format fmt, enum quire_format fin, uint32_t mean_w, size_t len,
			  const void *sums, const int8_t *eg, float *own, float *tmp, void *out);
/* Every rank: such a message decoded into y. */
int quire_ring_requant_decode(enum quire_format fmt, size_t len, const void *in, float *y);

#endif
