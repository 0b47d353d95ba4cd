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
 * rank - 1, which arrive in the order they were sent. A message carries a flag
 * (0 or 1; the int32 overflow mark) beside its bytes. The ring (ring_collective.c) runs
 * every collective over these, as the cards' firmware runs them over its port.
 */
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
};

struct quire_ef {
	struct quire_ctx *ctx;
	struct quire_buf *resid;
	/* On cards the new residual goes here and the two trade places when the
	 * collective succeeds, so a failed one leaves the state as it was. */
	struct quire_buf *next;
	size_t count;
};

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

#endif
