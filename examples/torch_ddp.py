#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make demo-torch: what a PyTorch user would run. A small CNN (two conv layers, two linear)
on Fashion-MNIST, W processes (4) with torch.distributed (Gloo) and DDP, once per way of
all-reducing the gradients, same seed and data order:
  fp32       DDP's default all-reduce;
  fp16       PyTorch's own fp16 compression hook (default_hooks.fp16_compress_hook);
  bfp8+ef    quire.torch.register(ddp, "bfp8", error_feedback=True), the cpu backend: the
             integers through Gloo, no MPI, no card;
  bfp8+ef-sim  the same on quire-cluster's simulated cards (--no-sim leaves it out).
A line per epoch, then a table (test accuracy, bytes each rank sent per step, time per step)
and a PNG (gnuplot), in OUT (results/demo-torch).

Bytes per step are counted, not modelled: a rank's writes to its sockets (Gloo's TCP, read
from /proc/self/io, which counts every write()), and on cards the bytes the card's network
port sent (quire_get_info), over the training steps of the epoch, averaged over ranks.

The default run is cut to fit a few minutes on 2 cores (--train-limit 16000 --epochs 3);
--full trains on all 60000 images for 10 epochs. The test set is always all 10000.
Usage: torch_ddp.py BUILD [--ranks W] [--epochs E] [--train-limit N] [--full] [--no-sim]
                    [--out DIR] [--data DIR]"""
import argparse
import datetime
import gzip
import os
import shutil
import socket
import subprocess
import sys
import time

VARIANTS = ["fp32", "fp16", "bfp8+ef"]
DATA = "/usr/share/datasets/fashion-mnist"


def idx(path):
    """An IDX file of unsigned bytes (gzip'd, as Debian ships Fashion-MNIST)."""
    import numpy as np
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        sys.exit(f"torch_ddp: {path}: {e.strerror or e} (apt-get install dataset-fashion-mnist)")
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    if raw[:3] != b"\0\0\x08" or len(raw) != 4 + 4 * dims + int(np.prod(shape)):
        sys.exit(f"torch_ddp: {path}: not an IDX file of unsigned bytes")
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


def model():
    import torch.nn as nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 5), nn.ReLU(), nn.MaxPool2d(2),   # 28 -> 24 -> 12
        nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),  # 12 -> 8 -> 4
        nn.Flatten(), nn.Linear(32 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10))


def sent_bytes(state):
    """Bytes this rank has sent so far: its socket writes, and its card port's."""
    with open("/proc/self/io") as f:
        n = int(next(ln for ln in f if ln.startswith("wchar:")).split()[1])
    if state is not None and state.cards is not None:
        n += state.cards.ctx.info()["net_tx_bytes"]
    return n


def worker(a):
    import numpy as np
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    import quire.torch

    torch.set_num_threads(1)  # W processes share the machine's cores
    r, w = a.rank, a.ranks
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(a.port))
    dist.init_process_group("gloo", rank=r, world_size=w,
                            timeout=datetime.timedelta(seconds=300))
    mean, std = 0.2860, 0.3530  # Fashion-MNIST's training images

    def prep(x):
        return torch.from_numpy((x.astype(np.float32) / 255 - mean) / std).unsqueeze(1)
    xtr = prep(idx(f"{a.data}/train-images-idx3-ubyte.gz")[:a.train_limit])
    ytr = torch.from_numpy(idx(f"{a.data}/train-labels-idx1-ubyte.gz")[:a.train_limit].astype(np.int64))
    xte = prep(idx(f"{a.data}/t10k-images-idx3-ubyte.gz"))
    yte = torch.from_numpy(idx(f"{a.data}/t10k-labels-idx1-ubyte.gz").astype(np.int64))

    torch.manual_seed(a.seed)
    net = model()
    ddp = DDP(net)
    state = None
    if a.variant == "fp16":
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    elif a.variant.startswith("bfp8+ef"):
        state = quire.torch.register(ddp, "bfp8", error_feedback=True,
                                     backend="sim" if a.variant.endswith("-sim") else "cpu")
    opt = torch.optim.SGD(net.parameters(), lr=a.lr, momentum=0.9)
    gb = a.batch * w  # the global batch: rank r takes its r-th slice
    steps = len(xtr) // gb
    csv = open(f"{a.out}/{a.variant}.csv", "w") if r == 0 else None
    if csv:
        csv.write("variant,epoch,loss,test_accuracy,bytes_per_step,ms_per_step\n")
    for epoch in range(1, a.epochs + 1):
        order = torch.randperm(len(xtr), generator=torch.Generator().manual_seed(a.seed + epoch))
        net.train()
        loss_sum = torch.zeros(1, dtype=torch.float64)
        b0, t0 = sent_bytes(state), time.perf_counter()
        for s in range(steps):
            i = order[s * gb + r * a.batch:s * gb + (r + 1) * a.batch]
            opt.zero_grad()
            loss = F.cross_entropy(ddp(xtr[i]), ytr[i])
            loss.backward()
            opt.step()
            loss_sum += loss.item()
        dt, nb = time.perf_counter() - t0, sent_bytes(state) - b0
        # Test accuracy over the whole test set, a quarter on each rank (the model is the
        # same on all); the figures of every rank summed.
        net.eval()
        with torch.no_grad():
            part = slice(r * len(xte) // w, (r + 1) * len(xte) // w)
            correct = (net(xte[part]).argmax(1) == yte[part]).sum().item()
        tot = torch.tensor([correct, nb, dt, loss_sum.item()], dtype=torch.float64)
        dist.all_reduce(tot)
        acc = tot[0].item() / len(xte)
        bps, ms = tot[1].item() / w / steps, 1e3 * tot[2].item() / w / steps
        loss_avg = tot[3].item() / w / steps
        if r == 0:
            print(f"{a.variant:12s} epoch {epoch}/{a.epochs}: loss {loss_avg:.4f}, test accuracy "
                  f"{100 * acc:.2f}%, {bps / 1e3:.1f} kB sent per rank per step, "
                  f"{ms:.1f} ms per step", flush=True)
            csv.write(f"{a.variant},{epoch},{loss_avg:.6f},{acc:.4f},{bps:.0f},{ms:.2f}\n")
            csv.flush()
    if state is not None:
        state.close()
    dist.barrier()
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(a, variant, here):
    """The W processes of one variant; inside quire-cluster for the cards."""
    cmd = [sys.executable, here, a.build, "--worker", "--variant", variant, "--port",
           str(free_port())] + [f"--{k.replace('_', '-')}={getattr(a, k)}" for k in
                                ("ranks", "epochs", "train_limit", "batch", "lr", "seed",
                                 "out", "data")]
    env = dict(os.environ, PYTHONPATH=os.path.join(a.build, "python"))
    env.pop("QUIRE_RANK", None)
    if variant.endswith("-sim"):
        env["QUIRE_SIM"] = os.path.join(a.build, "bin", "quire-sim")
        procs = " & ".join(" ".join(cmd + ["--rank", str(r)]) for r in range(a.ranks))
        full = [os.path.join(a.build, "bin", "quire-cluster"), "-n", str(a.ranks), "--",
                "sh", "-c", f"{procs} & wait"]
        rc = subprocess.run(full, env=env).returncode
        return [rc]
    procs = [subprocess.Popen(cmd + ["--rank", str(r)], env=env) for r in range(a.ranks)]
    return [p.wait() for p in procs]


def table(a, variants):
    rows = {}
    for v in variants:
        with open(f"{a.out}/{v}.csv") as f:
            lines = f.read().split("\n")[1:]
        epochs = [ln.split(",") for ln in lines if ln]
        last = epochs[-1]
        # Time: the fastest epoch, the one other jobs on the machine disturbed least.
        rows[v] = (int(last[1]), float(last[3]), float(last[4]),
                   min(float(e[5]) for e in epochs))
    f32 = rows["fp32"]
    out = [f"quire demo-torch, {datetime.date.today()}: {a.ranks} processes (Gloo, DDP), "
           f"{a.train_limit} training images, {a.epochs} epochs, batch {a.batch} per rank, "
           "test accuracy on all 10000 test images",
           "", "| variant | epochs | test accuracy | vs fp32 | bytes sent per rank per step "
           "| x fp32 | ms per step (fastest epoch) |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for v, (ep, acc, b, ms) in rows.items():
        out.append(f"| {v} | {ep} | {100 * acc:.2f}% | {100 * (acc - f32[1]):+.2f} pt | "
                   f"{b:,.0f} | {b / f32[2]:.3f} | {ms:.1f} |")
    q = rows["bfp8+ef"]
    d, x = 100 * (q[1] - f32[1]), q[2] / f32[2]
    out += ["", f"bfp8+ef: {d:+.2f} points from fp32 (goal: within 0.5: "
            f"{'met' if abs(d) <= 0.5 else 'NOT met'}); bytes {x:.3f}x fp32's (goal: at most "
            f"0.55x: {'met' if x <= 0.55 else 'NOT met'})"]
    text = "\n".join(out)
    print("\n" + text)
    with open(f"{a.out}/summary.md", "w") as f:
        f.write(text + "\n")


def plot(a, variants):
    if not shutil.which("gnuplot"):
        print("(no plot: gnuplot not found; apt-get install gnuplot-nox)")
        return
    gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot_torch.gp")
    r = subprocess.run(["gnuplot", "-e", f"dir='{a.out}'; variants='{' '.join(variants)}'; ranks={a.ranks}", gp])
    if r.returncode == 0:
        print(f"plot: {a.out}/torch.png")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--train-limit", type=int, default=16000)
    p.add_argument("--batch", type=int, default=32, help="per rank")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--full", action="store_true", help="all 60000 images, 10 epochs")
    p.add_argument("--no-sim", action="store_true", help="leave out bfp8+ef on simulated cards")
    p.add_argument("--out", default="results/demo-torch")
    p.add_argument("--data", default=DATA)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--rank", type=int, help=argparse.SUPPRESS)
    p.add_argument("--variant", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    a = p.parse_args()
    sys.path.insert(0, os.path.join(a.build, "python"))
    if a.worker:
        return worker(a)
    if a.full:
        a.train_limit, a.epochs = 60000, 10
    if a.ranks < 1 or a.epochs < 1 or a.train_limit < a.batch * a.ranks:
        sys.exit("torch_ddp: --ranks and --epochs from 1; --train-limit at least one global batch")
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit(f"torch_ddp: {sys.executable} has no torch (apt-get install python3-torch; "
                 "make demo-torch uses /usr/bin/python3, QUIRE_PYTHON= to choose)")
    os.makedirs(a.out, exist_ok=True)
    variants = VARIANTS + ([] if a.no_sim else ["bfp8+ef-sim"])
    for v in variants:
        if os.path.exists(f"{a.out}/{v}.csv"):
            os.unlink(f"{a.out}/{v}.csv")
    here = os.path.abspath(__file__)
    t0 = time.time()
    for v in variants:
        rcs = run(a, v, here)
        if any(rcs):
            sys.exit(f"torch_ddp: {v}: a rank failed (exit {rcs})")
    table(a, variants)
    plot(a, variants)
    print(f"results: {a.out}/ (a CSV per variant, summary.md, torch.png); "
          f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
