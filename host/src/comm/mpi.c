// SPDX-License-Identifier: MIT
/*
 * libquire_mpi: the MPI transport of communicators. The cpu backend's
 * collectives are the cards' ring (ring_collective.c) over MPI point-to-point messages
 * to the next rank and from the previous one, on a duplicate of the caller's
 * communicator, with errors returned (MPI_ERRORS_RETURN) instead of aborting
 * the job where MPI allows. With a timeout, a wait that sees no message for
 * that long fails with QUIRE_ERR_TIMEOUT rather than hang on a silent peer.
 */
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "quire_mpi.h"
#include "comm.h"

struct mpi_priv {
	MPI_Comm comm;
	int timeout_ms; /* 0: wait as long as MPI does */
};

_Static_assert(sizeof(MPI_Request) <= sizeof(((struct quire_xfer *)0)->opaque),
	       "an MPI request fits a quire_xfer");

static struct mpi_priv *priv_of(struct quire_comm *c)
{
	return c->priv;
}

static MPI_Request *req_of(struct quire_xfer *x)
{
	return (MPI_Request *)(void *)x->opaque;
}

static int status_of(int mpi_err)
{
	return mpi_err == MPI_SUCCESS ? QUIRE_OK : QUIRE_ERR_PEER;
}

static int mpi_isend(struct quire_comm *c, const void *buf, size_t bytes, int flag,
		     struct quire_xfer *x)
{
	if (bytes > INT_MAX)
		return QUIRE_ERR_SIZE;
	int to = (c->rank + 1) % c->size;
	return status_of(MPI_Isend(buf, (int)bytes, MPI_BYTE, to, flag & QUIRE_XFER_F_ALL,
				   priv_of(c)->comm, req_of(x)));
}

static int mpi_irecv(struct quire_comm *c, void *buf, size_t bytes, struct quire_xfer *x)
{
	if (bytes > INT_MAX)
		return QUIRE_ERR_SIZE;
	int from = (c->rank + c->size - 1) % c->size;
	/* Any tag: the tag is the message's flags; one sender, so messages match in order. */
	return status_of(
	    MPI_Irecv(buf, (int)bytes, MPI_BYTE, from, MPI_ANY_TAG, priv_of(c)->comm, req_of(x)));
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int mpi_wait(struct quire_comm *c, struct quire_xfer *x, int *flag)
{
	MPI_Status s;
	int err, done = 0, limit = priv_of(c)->timeout_ms;
	if (limit <= 0) {
		err = MPI_Wait(req_of(x), &s);
	} else { /* poll, yielding the core, until the message is in or the peer is late */
		double end = now_ms() + limit;
		while ((err = MPI_Test(req_of(x), &done, &s)) == MPI_SUCCESS && !done) {
			if (now_ms() > end)
				return QUIRE_ERR_TIMEOUT;
			sched_yield();
		}
	}
	if (err == MPI_SUCCESS && flag)
		*flag = s.MPI_TAG & QUIRE_XFER_F_ALL;
	return status_of(err);
}

static void mpi_abandon(struct quire_comm *c, struct quire_xfer *x)
{
	(void)c;
	MPI_Request *r = req_of(x);
	if (*r != MPI_REQUEST_NULL)
		MPI_Request_free(r); /* the buffers stay allocated until the communicator goes */
}

static int mpi_barrier(struct quire_comm *c)
{
	return status_of(MPI_Barrier(priv_of(c)->comm));
}

static void mpi_free(struct quire_comm *c)
{
	MPI_Comm_free(&priv_of(c)->comm);
	free(c->priv);
}

static const struct quire_comm_ops mpi_ops = {
    .isend = mpi_isend,
    .irecv = mpi_irecv,
    .wait = mpi_wait,
    .abandon = mpi_abandon,
    .barrier = mpi_barrier,
    .free = mpi_free,
};

/*
 * Cards: MPI is only the bootstrap. The ranks trade their cards' network
 * addresses, agree on an id no member card uses yet, and each tells its card;
 * from then on the cards talk among themselves.
 */
static int cards_from_mpi(struct quire_ctx *ctx, MPI_Comm comm, int timeout_ms,
			  struct quire_comm **out)
{
	static int next_id = 1; /* ids this process gave out; ranks agree on the largest */
	int rank, size;
	if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
		return QUIRE_ERR_PEER;
	if ((uint32_t)size > QUIRE_MAX_WORKERS)
		return QUIRE_ERR_SIZE;
	uint16_t mine = 0, *addrs = calloc((size_t)size, sizeof(*addrs));
	if (!addrs)
		return QUIRE_ERR_NOMEM;
	int st = quire_card_address(ctx, &mine), worst = 0, id = 0;
	/* Every rank takes part in every exchange, so one rank's failure fails them all alike. */
	if (MPI_Allreduce(&st, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS ||
	    MPI_Allgather(&mine, 1, MPI_UINT16_T, addrs, 1, MPI_UINT16_T, comm) != MPI_SUCCESS ||
	    MPI_Allreduce(&next_id, &id, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) {
		free(addrs);
		return QUIRE_ERR_PEER;
	}
	if (worst != QUIRE_OK) {
		free(addrs);
		return st != QUIRE_OK ? st : QUIRE_ERR_PEER;
	}
	next_id = id % 0xffff + 1;
	struct quire_comm_config cfg = {rank, size, addrs, (uint16_t)id, timeout_ms};
	st = quire_comm_create(ctx, &cfg, out);
	free(addrs);
	worst = 0;
	if (MPI_Allreduce(&st, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
		worst = QUIRE_ERR_PEER;
	if (worst != QUIRE_OK) {
		quire_comm_free(*out);
		*out = NULL;
		return st != QUIRE_OK ? st : QUIRE_ERR_PEER;
	}
	return QUIRE_OK;
}

int quire_comm_from_mpi(struct quire_ctx *ctx, MPI_Comm comm, struct quire_comm **out)
{
	return quire_comm_from_mpi_timeout(ctx, comm, 0, out);
}

int quire_comm_from_mpi_timeout(struct quire_ctx *ctx, MPI_Comm comm, int timeout_ms,
				struct quire_comm **out)
{
	if (!ctx || !out)
		return QUIRE_ERR_INVALID;
	*out = NULL;
	if (quire_backend_caps(ctx) & QUIRE_BACKEND_CAP_CARD_NET)
		return cards_from_mpi(ctx, comm, timeout_ms, out);
	if (timeout_ms < 0)
		return QUIRE_ERR_INVALID;
	struct quire_comm *c = calloc(1, sizeof(*c));
	struct mpi_priv *priv = malloc(sizeof(*priv));
	if (!c || !priv) {
		free(c);
		free(priv);
		return QUIRE_ERR_NOMEM;
	}
	priv->timeout_ms = timeout_ms;
	MPI_Comm *dup = &priv->comm;
	if (MPI_Comm_dup(comm, dup) != MPI_SUCCESS) {
		free(c);
		free(priv);
		return QUIRE_ERR_PEER;
	}
	MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
	MPI_Comm_rank(*dup, &c->rank);
	MPI_Comm_size(*dup, &c->size);
	if ((uint32_t)c->size > QUIRE_MAX_WORKERS) {
		MPI_Comm_free(dup);
		free(priv);
		free(c);
		return QUIRE_ERR_SIZE;
	}
	c->ctx = ctx;
	c->ops = &mpi_ops;
	c->priv = priv;
	*out = c;
	return QUIRE_OK;
}
