# SPDX-License-Identifier: MIT
"""A rank of tests/cli/test_link_run.sh under quire link run --cards: its simulated card
(quire-cluster's, in this rank's namespace) all-reduces rank+1 with the other ranks' cards
over the namespaces' UDP network; prints the sum it got. Usage: link_card.py PYTHONPATH"""
import os
import sys

sys.path.insert(0, sys.argv[1])
import quire  # noqa: E402

r, w = int(os.environ["QUIRE_RANK"]), int(os.environ["QUIRE_WORLD"])
with quire.Context("sim:cluster") as ctx:
    comm = ctx.comm_rendezvous(rank=r, size=w)
    buf = ctx.alloc(4 * 1024)
    buf.numpy(count=1024)[:] = r + 1
    comm.allreduce(buf, count=1024, format="fp32", op="sum")
    got = set(buf.numpy(count=1024).tolist())
    os.write(1, f"rank {r}: card all-reduce at {os.environ['QUIRE_LINK_ADDR']}: "
             f"{sorted(got)}\n".encode())  # one write(2): the ranks share the launcher's stdout
