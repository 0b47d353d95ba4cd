/* SPDX-License-Identifier: MIT */
/*
 * libquire_mpi: communicators from MPI (link -lquire_mpi). On the cpu backend
 * the host runs the cards' ring with MPI point-to-point messages as its links
 * (so results are the cards' bits); on cards MPI only introduces the cards to
 * each other.
 */
#ifndef QUIRE_MPI_H
#define QUIRE_MPI_H

#include <mpi.h>

#include "quire.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A communicator of the ranks of comm, each with its context. MPI must be
 * initialised; every rank of comm calls this. cpu backend: collectives over
 * a duplicate of comm (quire's traffic never mixes with the caller's); with
 * timeout_ms > 0 a collective waits at most that long for any message of a
 * peer, then fails with QUIRE_ERR_TIMEOUT (0: no limit but MPI's). Cards:
 * the ranks exchange their cards' addresses over comm, then the cards run the
 * collectives on their network; a collective waits at most timeout_ms for a
 * peer (0: 5000) and then fails with QUIRE_ERR_TIMEOUT on every rank.
 */
int quire_comm_from_mpi(struct quire_ctx *ctx, MPI_Comm comm, struct quire_comm **out);
int quire_comm_from_mpi_timeout(struct quire_ctx *ctx, MPI_Comm comm, int timeout_ms,
				struct quire_comm **out);

#ifdef __cplusplus
}
#endif

#endif
