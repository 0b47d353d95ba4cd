// SPDX-License-Identifier: MIT
/*
 * meet: one rank of a communicator made without MPI, for tests/cli/test_cluster.sh.
 * Run W of them inside quire-cluster with QUIRE_RANK=0..W-1: each opens its card
 * (sim:cluster), meets the others in $QUIRE_CLUSTER_DIR (quire_comm_rendezvous), and
 * all-reduces the int32 value rank+1; exits 0 when every rank gets W(W+1)/2.
 * Usage: meet W
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "quire.h"

int main(int argc, char **argv)
{
	const char *dir = getenv("QUIRE_CLUSTER_DIR"), *r = getenv("QUIRE_RANK");
	if (argc != 2 || !dir || !r) {
		fprintf(stderr, "usage: QUIRE_RANK=R meet W (inside quire-cluster)\n");
		return 2;
	}
	int size = atoi(argv[1]), rank = atoi(r);
	struct quire_ctx *ctx = NULL;
	struct quire_comm *comm = NULL;
	struct quire_buf *buf = NULL;
	int st = quire_open("sim:cluster", &ctx);
	if (!st)
		st = quire_comm_rendezvous(ctx, dir, rank, size, 10000, &comm);
	if (!st)
		st = quire_buf_alloc(ctx, sizeof(int32_t), &buf);
	if (!st) {
		*(int32_t *)quire_buf_ptr(buf) = rank + 1;
		struct quire_allreduce_args a = {QUIRE_FMT_INT32, QUIRE_OP_SUM, 1,
						 {buf, 0},        {buf, 0},     NULL};
		st = quire_allreduce(comm, &a, NULL);
	}
	int32_t got = st ? 0 : *(int32_t *)quire_buf_ptr(buf);
	if (st)
		fprintf(stderr, "meet: rank %d: %s\n", rank, quire_strerror(st));
	else if (got != size * (size + 1) / 2)
		fprintf(stderr, "meet: rank %d: sum %d, not %d\n", rank, got,
			size * (size + 1) / 2);
	quire_buf_free(buf);
	quire_comm_free(comm);
	quire_close(ctx);
	return st || got != size * (size + 1) / 2;
}
