/* SPDX-License-Identifier: MIT */
/*
 * Communicators: the collective algorithms, written once over a transport's
 * few primitives (MPI for the cpu backend; cards bring their own later).
 */
#ifndef QUIRE_COMM_H
#define QUIRE_COMM_H

#include "../core/core.h"

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
	const struct quire_comm_ops *ops;
	void *priv;
	/* Scratch kept between calls: fresh memory costs page faults (and MPI its
	 * registration) on every call, which dominated large all-reduces. */
	void *scratch;
	size_t scratch_bytes;
};

struct quire_ef {
	struct quire_ctx *ctx;
	struct quire_buf *resid;
	size_t count;
};

#endif
