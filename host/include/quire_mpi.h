/* SPDX-License-Identifier: MIT */
/*
 * libquire_mpi: communicators over MPI, for the cpu backend (link -lquire_mpi).
 * Integer MPI_SUM is exact, so results are the cards' bits.
 */
#ifndef QUIRE_MPI_H
#define QUIRE_MPI_H

#include <mpi.h>

#include "quire.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A communicator over comm (duplicated: quire's traffic never mixes with the
 * caller's), for a context of the cpu backend. MPI must be initialised.
 */
int quire_comm_from_mpi(struct quire_ctx *ctx, MPI_Comm comm, struct quire_comm **out);

#ifdef __cplusplus
}
#endif

#endif
