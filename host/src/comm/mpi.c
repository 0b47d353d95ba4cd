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

int quire_comm_from_mpi(struct quire_ctx *ctx, MPI_Comm comm, struct quire_comm **out)
{
	if (!ctx || !out)
		return QUIRE_ERR_INVALID;
	*out = NULL;
	if (strcmp(ctx->ops->name, "cpu") != 0)
		return QUIRE_ERR_NOT_SUPPORTED; /* cards run collectives on their own network */
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
