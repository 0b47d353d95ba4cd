// SPDX-License-Identifier: MIT
/*
 * libquire_mpi: the MPI transport of communicators. Every primitive is one
 * MPI collective on a duplicate of the caller's communicator, with errors
 * returned (MPI_ERRORS_RETURN) instead of aborting the job where MPI allows.
 */
#include <limits.h>
#include <string.h>
#include <stdlib.h>

#include "quire_mpi.h"
#include "comm.h"

#define PIECE ((size_t)1 << 30) /* MPI counts are int */

static MPI_Comm mpi_of(struct quire_comm *c)
{
	return *(MPI_Comm *)c->priv;
}

static int status_of(int mpi_err)
{
	return mpi_err == MPI_SUCCESS ? QUIRE_OK : QUIRE_ERR_PEER;
}

static int allreduce_pieces(struct quire_comm *c, void *buf, size_t n, size_t elem, MPI_Datatype t,
			    MPI_Op op)
{
	for (size_t i = 0; i < n; i += PIECE) {
		size_t len = n - i < PIECE ? n - i : PIECE;
		int err =
		    MPI_Allreduce(MPI_IN_PLACE, (char *)buf + i * elem, (int)len, t, op, mpi_of(c));
		if (err != MPI_SUCCESS)
			return status_of(err);
	}
	return QUIRE_OK;
}

static int mpi_max_i8(struct quire_comm *c, int8_t *buf, size_t n)
{
	return allreduce_pieces(c, buf, n, 1, MPI_INT8_T, MPI_MAX);
}

static int mpi_sum_int(struct quire_comm *c, void *buf, size_t n, enum quire_format fmt)
{
	if (fmt == QUIRE_FMT_INT16)
		return allreduce_pieces(c, buf, n, 2, MPI_INT16_T, MPI_SUM);
	return allreduce_pieces(c, buf, n, 4, MPI_INT32_T, MPI_SUM);
}

static int mpi_sum_i64(struct quire_comm *c, int64_t *buf, size_t n)
{
	return allreduce_pieces(c, buf, n, 8, MPI_INT64_T, MPI_SUM);
}

static int mpi_allgather(struct quire_comm *c, const void *send, void *recv, size_t bytes)
{
	if (bytes > INT_MAX)
		return QUIRE_ERR_SIZE;
	return status_of(
	    MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, mpi_of(c)));
}

static int mpi_bcast(struct quire_comm *c, void *buf, size_t bytes, int root)
{
	for (size_t i = 0; i < bytes; i += PIECE) {
		size_t len = bytes - i < PIECE ? bytes - i : PIECE;
		int err = MPI_Bcast((char *)buf + i, (int)len, MPI_BYTE, root, mpi_of(c));
		if (err != MPI_SUCCESS)
			return status_of(err);
	}
	return QUIRE_OK;
}

static int mpi_barrier(struct quire_comm *c)
{
	return status_of(MPI_Barrier(mpi_of(c)));
}

static void mpi_free(struct quire_comm *c)
{
	MPI_Comm_free((MPI_Comm *)c->priv);
	free(c->priv);
}

static const struct quire_comm_ops mpi_ops = {
    .max_i8 = mpi_max_i8,
    .sum_int = mpi_sum_int,
    .sum_i64 = mpi_sum_i64,
    .allgather = mpi_allgather,
    .bcast = mpi_bcast,
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
	struct quire_comm *c = calloc(1, sizeof(*c));
	MPI_Comm *dup = malloc(sizeof(*dup));
	if (!c || !dup) {
		free(c);
		free(dup);
		return QUIRE_ERR_NOMEM;
	}
	if (MPI_Comm_dup(comm, dup) != MPI_SUCCESS) {
		free(c);
		free(dup);
		return QUIRE_ERR_PEER;
	}
	MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
	MPI_Comm_rank(*dup, &c->rank);
	MPI_Comm_size(*dup, &c->size);
	if ((uint32_t)c->size > QUIRE_MAX_WORKERS) {
		MPI_Comm_free(dup);
		free(dup);
		free(c);
		return QUIRE_ERR_SIZE;
	}
	c->ctx = ctx;
	c->ops = &mpi_ops;
	c->priv = dup;
	*out = c;
	return QUIRE_OK;
}
