#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One rank of a DDP job for tests/python/test_quire.py: a small model, Gloo, the quire
hook (bfp8, error feedback) on BACKEND (cpu; sim: the rank's card, inside quire-cluster),
3 steps. Each hook call appends to OUT.RANK: the step, the
parameters of the bucket (their positions in the model), this rank's gradients in and the
result out; after the steps, the model's parameters.
--die: rank 1 ends itself after step 1 (DDP has rebuilt its buckets); the others must raise a quire error in step 2
(printed: its class and status), not hang.
--requant: the hook's requantized all-gather.
Usage: ddp_rank.py BUILD RANK W PORT OUT BACKEND [--die] [--requant]"""
import datetime
import os
import sys
import time

build, rank, w, port, out, backend = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    sys.argv[4], sys.argv[5], sys.argv[6]
sys.path.insert(0, os.path.join(build, "python"))
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
import quire.torch  # noqa: E402

torch.set_num_threads(1)  # W processes share this machine's cores

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
die = "--die" in sys.argv
dist.init_process_group("gloo", rank=rank, world_size=w,
                        timeout=datetime.timedelta(seconds=10 if die else 60))
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(20, 600), torch.nn.ReLU(), torch.nn.Linear(600, 500),
                            torch.nn.ReLU(), torch.nn.Linear(500, 5))
# Buckets of 0.1 MB after the first (1 MB, DDP's own): several a step, rebuilt after step 0.
ddp = DDP(model, bucket_cap_mb=0.1)
pos = {id(p): k for k, p in enumerate(model.parameters())}
records, pending, step = [], [], 0  # pending: rank 0's hook at the gate
register = ddp.register_comm_hook


def recording(state, hook):
    """quire.torch.register's hook, with what it was given and, once its Future is done,
    what it returned noted, in the order of the calls. It notes too whether the hook
    returned before the bucket's all-reduce was done: at the first bucket of step 1 the
    other ranks hand theirs to the hook only once rank 0's hook has returned (OUT.gate), so
    rank 0's all-reduce cannot be done then, and a hook that waited for it would never
    return (the process group's timeout would end the run)."""
    def rec(st, bucket):
        entry = [step, [pos[id(p)] for p in bucket.parameters()], bucket.buffer().clone(), None]
        gate = step == 1 and not any(e[0] == 1 for e in records)
        records.append(entry)
        if gate and rank != 0:
            for _ in range(6000):  # up to 60 s, then the hook's own timeout says why
                if os.path.exists(f"{out}.gate"):
                    break
                time.sleep(0.01)
        fut = hook(st, bucket)
        if gate and rank == 0:
            pending.append(not fut.done())
            open(f"{out}.gate", "w").close()

        def done(f):
            entry[3] = f.value().clone()
            return f.value()
        return fut.then(done)
    register(state, rec)


ddp.register_comm_hook = recording
state = quire.torch.register(ddp, "bfp8", error_feedback=True, backend=backend,
                             requant="--requant" in sys.argv)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
gen = torch.Generator().manual_seed(1 + rank)
for step in range(3):
    if die and step == 2 and rank == 1:
        os._exit(0)  # gone, without a word to the others
    x, y = torch.randn(16, 20, generator=gen), torch.randint(0, 5, (16,), generator=gen)
    opt.zero_grad()
    try:
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
    except Exception as e:
        q = state.error
        print(f"rank {rank} step {step}: {type(e).__name__}; state.error "
              f"{type(q).__name__} {getattr(q, 'name', '-')}: {e}", flush=True)
        os._exit(3)
    opt.step()
state.close()
torch.save({"records": [tuple(e) for e in records], "pending": pending, "params": [p.detach().clone() for p in model.parameters()],
            "bytes": state.bytes_sent}, f"{out}.{rank}")
dist.barrier()  # no rank leaves while another still talks to it
dist.destroy_process_group()
