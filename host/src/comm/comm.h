/* SPDX-License-Identifier: MIT */
/*
 * Communicators: the collective algorithms, written once over a transport's
 * few primitives (MPI for the cpu backend; cards bring their own later).
 */
#ifndef QUIRE_COMM_H
#define QUIRE_COMM_H

#include "host/src/core/core.h"

struct quire_comm_ops {
	int (*max_i8)(struct quire_comm *c, int8_t *buf, size_t n); /* in place, all ranks */
	int (*sum_int)(struct quire_comm *c, void *buf, size_t n,
		       enum quire_format fmt); /* INT16/INT32, exact, in place */
	int (*sum_i64)(struct quire_comm *c, int64_t *buf, size_t n);
	int (*allgather)(struct quire_comm *c, const void *send, void *recv, size_t bytes);
	int (*bcast)(struct quire_comm *c, void *buf, size_t bytes, int root);
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

#endif
