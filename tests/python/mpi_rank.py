#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One MPI rank for tests/python/test_quire.py: the cpu backend, a communicator from
MPI_COMM_WORLD (Context.comm_from_mpi), all-reduces of its gradients (bfp8 with error
feedback, 2 steps; then fp32 mean), each result written to OUT.RANK.STEP.f32.
Usage: mpirun -np W mpi_rank.py BUILD N OUT"""
import os
import sys

build, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, os.path.join(build, "python"))
import numpy as np  # noqa: E402
import quire  # noqa: E402

with quire.Context("cpu") as ctx:
    comm = ctx.comm_from_mpi(timeout_ms=20000)
    rank = comm.rank
    buf, ef = ctx.alloc(4 * n), ctx.ef(n)
    for step in range(3):
        x = np.random.default_rng(100 * step + rank).standard_normal(n).astype(np.float32)
        buf.numpy()[:] = x
        if step < 2:
            comm.allreduce(buf, format="bfp8", ef=ef)
        else:
            comm.allreduce(buf, format="fp32", op="mean")
        buf.numpy().tofile(f"{out}.{rank}.{step}.f32")
    print(f"rank {rank} of {comm.size}: done")
