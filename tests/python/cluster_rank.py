#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One rank of a simulated cluster for tests/python/test_quire.py: opens its card
(sim:cluster), meets the others in $QUIRE_CLUSTER_DIR and all-reduces its gradients
(bfp8, error feedback) for 2 steps, writing each result to OUT.STEP.f32.
Usage: QUIRE_RANK=R cluster_rank.py BUILD W N OUT [--leave] [--requant]  (--leave: this rank
goes away before the first all-reduce; the others must get a quire error, not hang;
--requant: the requantized all-gather, each step's owner residual to OUT.R.STEP.own.f32)."""
import os
import sys

build, size, n, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
leave, requant = "--leave" in sys.argv, "--requant" in sys.argv
sys.path.insert(0, os.path.join(build, "python"))
import numpy as np  # noqa: E402
import quire  # noqa: E402

rank = int(os.environ["QUIRE_RANK"])
with quire.Context("sim:cluster") as ctx:
    comm = ctx.comm_rendezvous(rank=rank, size=size)
    comm.requant = requant
    if leave:
        sys.exit(0)
    buf, ef = ctx.alloc(4 * n), ctx.ef(n)
    for step in range(2):
        x = np.random.default_rng(100 * step + rank).standard_normal(n).astype(np.float32)
        buf.numpy()[:] = x
        try:
            comm.allreduce(buf, format="bfp8", ef=ef)
        except quire.QuireError as e:
            print(f"rank {rank}: {type(e).__name__} {e.name}: {e}")
            sys.exit(3)
        buf.numpy().tofile(f"{out}.{rank}.{step}.f32")
        if requant:
            ef.read_owner().tofile(f"{out}.{rank}.{step}.own.f32")
