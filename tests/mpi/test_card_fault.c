// SPDX-License-Identifier: MIT
/*
 * A card killed, or frozen, in the middle of an all-reduce, under quire-cluster with W
 * ranks on "sim:cluster": rank 0 kills the last rank's card (kill -9 of its quire-sim)
 * or stops it (SIGSTOP: a hung card) once every other rank has the collective in flight
 * (rank 0 joins it only after the fault, so it cannot end before). Killed: the
 * victim's rank learns its card is gone ("peer lost"). Frozen: the victim's rank times
 * out after its context's timeout (set to the same limit), and its context then refuses
 * everything at once. Either way every other rank's call returns QUIRE_ERR_TIMEOUT within
 * the communicator's limit, never hangs, and every input buffer is intact. Prints
 * "card fault: N passed, N failed".
 *
 *   quire-cluster -n 4 -- mpirun -np 4 test_card_fault [TIMEOUT_MS (0: 5 s) [kill|stop [TAG]]]
 *
 * TAG is not read: a script names its own job's processes by it.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quire_mpi.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int passed, failed, rank, size;

static void report(int ok_here, const char *what)
{
	int ok;
	MPI_Allreduce(&ok_here, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	ok ? passed++ : failed++;
	if (rank == 0)
		printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

static pid_t card_pid(int r)
{
	char p[512];
	const char *dir = getenv("QUIRE_CLUSTER_DIR");
	snprintf(p, sizeof(p), "%s/card-%d.pid", dir ? dir : ".", r);
	FILE *f = fopen(p, "r");
	int pid = 0;
	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return (pid_t)pid;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* 0: the communicator's default limit */
	int timeout_ms = argc > 1 ? atoi(argv[1]) : 2000, victim = size - 1;
	int limit_ms = timeout_ms ? timeout_ms : (int)QUIRE_COMM_TIMEOUT_DEFAULT_MS;
	int freeze = argc > 2 && strcmp(argv[2], "stop") == 0;
	struct quire_ctx *ctx;
	struct quire_comm *comm;
	if (size < 3 || quire_open("sim:cluster", &ctx) ||
	    quire_comm_from_mpi_timeout(ctx, MPI_COMM_WORLD, timeout_ms, &comm)) {
		fprintf(stderr, "rank %d: needs quire-cluster and 3 or more ranks\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	quire_set_timeout(ctx, limit_ms); /* how long a card may stand still */
	size_t n = 8u << 20;              /* fp32, 32 MiB: frames flowing between the cards */
	struct quire_buf *x, *y;
	if (quire_buf_alloc(ctx, n * 4, &x) || quire_buf_alloc(ctx, n * 4, &y))
		MPI_Abort(MPI_COMM_WORLD, 2);
	float *in = quire_buf_ptr(x), *copy = malloc(n * 4);
	for (size_t i = 0; i < n; i++)
		in[i] = (float)((i * 2654435761u + (size_t)rank) % 2001) / 1000.0f - 1.0f;
	memcpy(copy, in, n * 4);
	/* A first all-reduce that works: the cluster and the communicator are sound. */
	struct quire_allreduce_args small = {QUIRE_FMT_BFP8, QUIRE_OP_SUM, 4099,
					     {x, 0},         {y, 0},       NULL};
	report(quire_allreduce(comm, &small, NULL) == QUIRE_OK, "an all-reduce before the fault");

	MPI_Barrier(MPI_COMM_WORLD);
	struct quire_allreduce_args a = {QUIRE_FMT_FP32, QUIRE_OP_SUM, n, {x, 0}, {y, 0}, NULL};
	struct quire_req *req = NULL;
	/* Every rank but 0 starts the all-reduce; rank 0 starts its own only after the fault.
	 * No card can finish a collective that rank 0's card has not joined, so the fault comes
	 * with it in flight on every other card, the victim's among them, however fast or slow
	 * the machine: no wall-clock guess. */
	int st = rank == 0 ? QUIRE_OK : quire_allreduce(comm, &a, &req);
	report(rank == 0 || (st == QUIRE_OK && quire_test(req) == QUIRE_ERR_BUSY),
	       "the all-reduce in flight on every card but rank 0's before the fault");
	double fault = 0; /* CLOCK_MONOTONIC: one clock for every rank of this machine */
	if (rank == 0) {
		pid_t pid = card_pid(victim);
		if (pid <= 0 || kill(pid, freeze ? SIGSTOP : SIGKILL) != 0)
			fprintf(stderr, "rank 0: cannot stop card %d\n", victim);
		fault = now_s();
		struct timespec wall; /* for scripts that time the whole job from the fault */
		clock_gettime(CLOCK_REALTIME, &wall);
		printf("fault at %lld.%09ld\n", (long long)wall.tv_sec, wall.tv_nsec);
		fflush(stdout);
		st = quire_allreduce(comm, &a, &req);
	}
	MPI_Bcast(&fault, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (st == QUIRE_OK)
		st = quire_wait(req, QUIRE_WAIT_DEFAULT);
	double took = now_s() - fault;
	quire_req_free(req);
	int expect = rank == victim && !freeze ? QUIRE_ERR_PEER : QUIRE_ERR_TIMEOUT;
	if (st != expect)
		fprintf(stderr, "rank %d: %s (%d), %.2f s\n", rank, quire_strerror(st), st, took);
	report(st == expect, freeze
				 ? "every rank's all-reduce fails with a timeout, the frozen "
				   "card's own rank too"
				 : "every rank's all-reduce fails: the dead card's own rank with "
				   "\"peer lost\", the others with a timeout");
	double worst;
	MPI_Allreduce(&took, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	char what[160];
	/* One timeout after the fault, and a margin of three quarters of one. */
	double bound = 1.75 * limit_ms / 1000.0;
	snprintf(what, sizeof(what),
		 "within the limit: slowest rank returned %.2f s after the %s (limit %.1f s: "
		 "%.2f with a margin)",
		 worst, freeze ? "freeze" : "kill", limit_ms / 1000.0, bound);
	report(worst < bound, what);
	report(memcmp(in, copy, n * 4) == 0, "every rank's input buffer intact");
	/* The communicator stays failed; the survivors' cards still serve their hosts. */
	int again = quire_barrier(comm, NULL);
	int expect_again = rank == victim && freeze ? QUIRE_ERR_UNRESPONSIVE : QUIRE_ERR_PEER;
	report(again == expect_again, "the failed communicator refuses the next collective "
				      "(the frozen card's context: at once, unresponsive)");
	if (rank == 0)
		printf("card fault: %d passed, %d failed\n", passed, failed);
	free(copy);
	quire_comm_free(comm);
	quire_close(ctx);
	MPI_Finalize();
	return failed ? 1 : 0;
}
