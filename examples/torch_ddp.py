#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make demo-torch: what a PyTorch user would run. A model on Fashion-MNIST (--model cnn: a
small CNN, two conv layers and two linear; --model mlp: an MLP of 2.38 M parameters, 784 ->
1024 -> 1024 -> 512 -> 10, where communication dominates), W processes (4) with
torch.distributed (Gloo) and DDP, once per way of all-reducing the gradients, same seed and
data order:
  fp32         DDP's default all-reduce (PyTorch's allreduce_hook, the hook form of it);
  fp16         PyTorch's fp16 compression hook (default_hooks.fp16_compress_hook);
  powersgd     PyTorch's PowerSGD hook, rank 2, its own error feedback (start_powerSGD_iter 10);
  bfp8+ef      quire.torch.register(ddp, "bfp8", error_feedback=True), the cpu backend: the
               integers through Gloo, no MPI, no card;
  bfp8+ef-rq   the same with requant=True (the requantized all-gather);
  bfp8+ef-sim  quire on quire-cluster's simulated cards (--no-sim leaves it out).
Test accuracy is measured every --eval-every steps (on the first --test-limit test images,
all 10000 by default, a quarter per
rank; its time is not counted). A line per epoch, then a table and PNGs (gnuplot) in OUT
(results/demo-torch): per variant the wall time to the target (fp32's final accuracy minus
0.5 points), ms per step, the share of communication hidden behind compute, final accuracy,
bytes per step.

--link RATE (root): each rank in a network namespace of its own on tc-shaped links of RATE
(like 2gbit), started by `quire link run` (--cards for bfp8+ef-sim), as on a cluster whose
hosts meet over a network of that rate (docs/torch-link.md).

Bytes per step are counted, not modelled: under --link the bytes the rank's interface sent
(its namespace's veth: every frame, headers included, cards' too); otherwise a rank's writes
to its sockets (Gloo's TCP, from /proc/self/io), and on cards the bytes the card's network
port sent (quire_get_info); over the training steps, averaged over ranks.

Hidden share: each variant's hook is wrapped to note when DDP hands it each bucket and when
that bucket's Future completes. Per step, the communication span is from the first bucket's
hand-over to the last completion, and the exposed part is what backward() waited after its
last bucket was handed over (autograd had nothing left to compute). hidden = 1 - exposed /
span, summed over the steps. (PowerSGD's hook is waited inside the call, see worker: its
wait comes before the last hand-over, so this share says nothing for it.)

The default run is cut to fit a few minutes on 2 cores (--train-limit 16000 --epochs 3);
--full trains on all 60000 images for 10 epochs.
Usage: torch_ddp.py BUILD [--model cnn|mlp] [--link RATE] [--ranks W] [--epochs E]
                    [--train-limit N] [--eval-every N] [--variants V,...] [--full]
                    [--no-sim] [--out DIR] [--data DIR]"""
import argparse
import datetime
import gzip
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

VARIANTS = ["fp32", "fp16", "powersgd", "bfp8+ef", "bfp8+ef-rq", "bfp8+ef-sim"]
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


def model(kind):
    import torch.nn as nn
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 1024), nn.ReLU(),
                             nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 512), nn.ReLU(),
                             nn.Linear(512, 10))
    return nn.Sequential(
        nn.Conv2d(1, 16, 5), nn.ReLU(), nn.MaxPool2d(2),   # 28 -> 24 -> 12
        nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),  # 12 -> 8 -> 4
        nn.Flatten(), nn.Linear(32 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10))


def sent_bytes(state):
    """Bytes this rank has sent so far: under quire link run its namespace's interface's
    (every frame, headers included, its card's too); else its socket writes, and its card
    port's."""
    dev = os.environ.get("GLOO_SOCKET_IFNAME") if "QUIRE_LINK_NS" in os.environ else None
    if dev:
        with open(f"/sys/class/net/{dev}/statistics/tx_bytes") as f:
            return int(f.read())
    with open("/proc/self/io") as f:
        n = int(next(ln for ln in f if ln.startswith("wchar:")).split()[1])
    if state is not None and state.cards is not None:
        n += state.cards.ctx.info()["net_tx_bytes"]
    return n


class Timing:
    """When DDP handed each bucket to the hook, and when its Future completed (this step)."""

    def __init__(self):
        self.calls, self.dones = [], []
        self.span = self.exposed = 0.0

    def wrap(self, hook):
        def timed(state, bucket):
            self.calls.append(time.perf_counter())

            def done(f):
                self.dones.append(time.perf_counter())
                return f.value()
            return hook(state, bucket).then(done)
        return timed

    def step(self, backward_end):
        if self.calls and self.dones:
            self.span += max(self.dones) - min(self.calls)
            self.exposed += max(0.0, backward_end - max(self.calls))
        self.calls, self.dones = [], []

    def hidden(self):
        return max(0.0, 1 - self.exposed / self.span) if self.span > 0 else 0.0


class _Capture:
    """Stands for the DDP model in quire.torch.register: keeps the hook it registers, for
    Timing to wrap."""

    def register_comm_hook(self, state, hook):
        self.state, self.hook = state, hook


def worker(a):
    import numpy as np
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powersgd
    import quire.torch

    torch.set_num_threads(1)  # W processes share the machine's cores
    if a.link:  # quire link run: rank, world and master from the environment
        r, w = int(os.environ["QUIRE_RANK"]), int(os.environ["QUIRE_WORLD"])
    else:
        r, w = a.rank, a.ranks
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(a.port))
    dist.init_process_group("gloo", rank=r, world_size=w,
                            timeout=datetime.timedelta(seconds=600))
    mean, std = 0.2860, 0.3530  # Fashion-MNIST's training images

    def prep(x):
        return torch.from_numpy((x.astype(np.float32) / 255 - mean) / std).unsqueeze(1)
    xtr = prep(idx(f"{a.data}/train-images-idx3-ubyte.gz")[:a.train_limit])
    ytr = torch.from_numpy(idx(f"{a.data}/train-labels-idx1-ubyte.gz")[:a.train_limit].astype(np.int64))
    xte = prep(idx(f"{a.data}/t10k-images-idx3-ubyte.gz")[:a.test_limit])
    yte = torch.from_numpy(idx(f"{a.data}/t10k-labels-idx1-ubyte.gz")[:a.test_limit].astype(np.int64))

    torch.manual_seed(a.seed)
    net = model(a.model)
    ddp = DDP(net, bucket_cap_mb=a.bucket_mb)
    state, timing = None, Timing()
    if a.variant == "fp32":
        hook, hstate = default_hooks.allreduce_hook, None
    elif a.variant == "fp16":
        hook, hstate = default_hooks.fp16_compress_hook, None
    elif a.variant == "powersgd":
        hstate = powersgd.PowerSGDState(process_group=None, matrix_approximation_rank=2,
                                        start_powerSGD_iter=10, use_error_feedback=True,
                                        random_seed=a.seed)

        def hook(st, bucket):
            # Waited here: PowerSGD chains its collectives through Futures' callbacks, and with
            # two buckets those can reach Gloo in another order on another rank (in PyTorch
            # 1.13: gloo EnforceNotMet, a crash). Waiting keeps every rank's order, at the
            # cost of PowerSGD's overlap.
            fut = powersgd.powerSGD_hook(st, bucket)
            fut.wait()
            return fut
    else:
        cap = _Capture()
        state = quire.torch.register(cap, "bfp8", error_feedback=True,
                                     requant=a.variant.endswith("-rq"),
                                     backend="sim" if a.variant.endswith("-sim") else "cpu")
        hook, hstate = cap.hook, cap.state
    ddp.register_comm_hook(hstate, timing.wrap(hook))
    opt = torch.optim.SGD(net.parameters(), lr=a.lr, momentum=0.9)
    gb = a.batch * w  # the global batch: rank r takes its r-th slice
    steps = len(xtr) // gb
    every = a.eval_every or max(1, steps // 4)
    csv = evals = None
    if r == 0:
        csv = open(f"{a.out}/{a.variant}.csv", "w")
        csv.write("variant,epoch,loss,test_accuracy,bytes_per_step,ms_per_step\n")
        evals = open(f"{a.out}/{a.variant}.evals.csv", "w")
        evals.write("variant,step,seconds,test_accuracy,bytes_per_step,ms_per_step,hidden\n")
    train_s, nbytes, done = 0.0, 0, 0  # training time and bytes so far, steps done

    def evaluate():
        """Test accuracy over the whole test set, a quarter on each rank (the model is the
        same on all); every rank's figures summed."""
        net.eval()
        with torch.no_grad():
            part = slice(r * len(xte) // w, (r + 1) * len(xte) // w)
            correct = (net(xte[part]).argmax(1) == yte[part]).sum().item()
        net.train()
        tot = torch.tensor([correct, nbytes, train_s, timing.span, timing.exposed],
                           dtype=torch.float64)
        dist.all_reduce(tot)
        acc = tot[0].item() / len(xte)
        bps, ms = tot[1].item() / w / done, 1e3 * tot[2].item() / w / done
        hid = max(0.0, 1 - tot[4].item() / tot[3].item()) if tot[3].item() > 0 else 0.0
        if evals:
            evals.write(f"{a.variant},{done},{tot[2].item() / w:.3f},{acc:.4f},{bps:.0f},"
                        f"{ms:.2f},{hid:.3f}\n")
            evals.flush()
        return acc, bps, ms

    for epoch in range(1, a.epochs + 1):
        order = torch.randperm(len(xtr), generator=torch.Generator().manual_seed(a.seed + epoch))
        net.train()
        loss_sum = torch.zeros(1, dtype=torch.float64)
        e_bytes, e_s = nbytes, train_s
        for s in range(steps):
            i = order[s * gb + r * a.batch:s * gb + (r + 1) * a.batch]
            b0, t0 = sent_bytes(state), time.perf_counter()
            opt.zero_grad()
            loss = F.cross_entropy(ddp(xtr[i]), ytr[i])
            loss.backward()
            t1 = time.perf_counter()
            opt.step()
            loss_sum += loss.item()
            train_s += time.perf_counter() - t0
            nbytes += sent_bytes(state) - b0
            timing.step(t1)
            done += 1
            if done % every == 0 and s != steps - 1:
                evaluate()
        acc, _, _ = evaluate()
        tot = torch.tensor([nbytes - e_bytes, train_s - e_s, loss_sum.item()],
                           dtype=torch.float64)
        dist.all_reduce(tot)
        bps, ms = tot[0].item() / w / steps, 1e3 * tot[1].item() / w / steps
        loss_avg = tot[2].item() / w / steps
        if r == 0:
            print(f"{a.variant:12s} epoch {epoch}/{a.epochs}: loss {loss_avg:.4f}, test accuracy "
                  f"{100 * acc:.2f}%, {bps / 1e3:.1f} kB sent per rank per step, "
                  f"{ms:.1f} ms per step", flush=True)
            csv.write(f"{a.variant},{epoch},{loss_avg:.6f},{acc:.4f},{bps:.0f},{ms:.2f}\n")
            csv.flush()
    if state is not None:
        state.close()
    if r == 0:
        csv.close()
        evals.close()
    dist.barrier()
    # Out at once: tearing down a Gloo group whose Futures ran Python callbacks (Timing's)
    # can deadlock in PyTorch 1.13 (its worker thread wants the GIL the destructor holds).
    sys.stdout.flush()
    os._exit(0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(a, variant, here):
    """The W processes of one variant: under quire link run with --link (with --cards for
    the simulated cards), else here, inside quire-cluster for the cards. Their exit codes."""
    port = str(free_port())
    cmd = [sys.executable, here, a.build, "--worker", "--variant", variant, "--port",
           port] + [f"--{k.replace('_', '-')}={getattr(a, k)}" for k in
                    ("ranks", "epochs", "train_limit", "test_limit", "eval_every", "batch", "lr", "seed",
                     "out", "data", "model", "bucket_mb")]
    env = dict(os.environ, PYTHONPATH=os.path.join(a.build, "python"))
    env.pop("QUIRE_RANK", None)
    sim = variant.endswith("-sim")
    if sim:
        env["QUIRE_SIM"] = os.path.join(a.build, "bin", "quire-sim")
    if a.link:
        full = [os.path.join(a.build, "bin", "quire"), "link", "run", "--ranks", str(a.ranks),
                "--rate", a.link, "--port", port] + (["--cards"] if sim else []) + \
            ["--"] + cmd + [f"--link={a.link}"]
        return wait_all([subprocess.Popen(full, env=env)])
    if sim:
        procs = " & ".join(" ".join(cmd + ["--rank", str(r)]) for r in range(a.ranks))
        full = [os.path.join(a.build, "bin", "quire-cluster"), "-n", str(a.ranks), "--",
                "sh", "-c", f"{procs} & wait"]
        return wait_all([subprocess.Popen(full, env=env)])
    return wait_all([subprocess.Popen(cmd + ["--rank", str(r)], env=env)
                     for r in range(a.ranks)])


def wait_all(procs):
    """Their exit codes; stopped (SIGINT, or SIGTERM: see main), they are stopped too, and
    waited for (quire link run removes its namespaces then)."""
    try:
        return [p.wait() for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            p.wait()


def read_csv(path):
    with open(path) as f:
        lines = f.read().split("\n")
    return [ln.split(",") for ln in lines[1:] if ln]


def ran_to_end(csv, epochs):
    """A variant's CSV holds its header and a row per epoch only once the run ended; a run
    that was stopped leaves fewer (--resume runs that variant again)."""
    try:
        with open(csv) as f:
            return sum(1 for _ in f) >= epochs + 1
    except OSError:
        return False


def table(a, variants):
    """The summary: per variant the time to the target, ms per step, hidden share, final
    accuracy and bytes per step; the issue's goals where their variants ran."""
    rows = {}
    for v in variants:
        ev = read_csv(f"{a.out}/{v}.evals.csv")
        last = ev[-1]
        rows[v] = dict(acc=float(last[3]), bytes=float(last[4]), ms=float(last[5]),
                       hidden=float(last[6]), seconds=float(last[2]),
                       evals=[(float(e[2]), float(e[3])) for e in ev])
    f32 = rows["fp32"]
    target = f32["acc"] - 0.005
    for r in rows.values():
        r["ttt"] = next((t for t, acc in r["evals"] if acc >= target), None)
    where = (f"{a.ranks} ranks each in its own network namespace, tc tbf {a.link} each way "
             "(quire link run)" if a.link else f"{a.ranks} processes on loopback")
    params = sum(p.numel() for p in model(a.model).parameters())
    out = [f"quire demo-torch, {datetime.date.today()}: --model {a.model} ({params:,} "
           f"parameters), {where}, Gloo, DDP (bucket_cap_mb {a.bucket_mb:g}), "
           f"{a.train_limit} training images, {a.epochs} epochs, batch {a.batch} per rank, "
           f"test accuracy on the first {a.test_limit} test images every {a.eval_every or 'quarter epoch'}"
           f"{' steps' if a.eval_every else ''}; target: fp32's final accuracy - 0.5 points "
           f"= {100 * target:.2f}%",
           "", "| variant | time to target (s) | x fp32 | ms per step | comm. hidden | "
           "final accuracy | vs fp32 | bytes per rank per step | x fp32 |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for v, r in rows.items():
        ttt = f"{r['ttt']:.1f}" if r["ttt"] is not None else "not reached"
        sp = f"{f32['ttt'] / r['ttt']:.2f}x" if r["ttt"] and f32["ttt"] else "-"
        out.append(f"| {v} | {ttt} | {sp} | {r['ms']:.1f} | {100 * r['hidden']:.0f}% | "
                   f"{100 * r['acc']:.2f}% | {100 * (r['acc'] - f32['acc']):+.2f} pt | "
                   f"{r['bytes']:,.0f} | {r['bytes'] / f32['bytes']:.3f} |")
    out += ["", "(x fp32 of the time: how many times sooner than fp32; comm. hidden: the "
            "share of the communication span that backward() did not wait for)"]

    def sooner(v, than):
        q, o = rows[v]["ttt"], rows[than]["ttt"]
        return o / q if q and o else None
    goals = []
    for v in ("bfp8+ef", "bfp8+ef-rq", "bfp8+ef-sim"):
        if v not in rows:
            continue
        for than, need in (("fp32", 1.6), ("fp16", 1.2)):
            if than in rows:
                x = sooner(v, than)
                goals.append(f"{v} reaches the target {x:.2f}x sooner than {than} (goal at 2 "
                             f"Gbit/s: at least {need}x: {'met' if x and x >= need else 'NOT met'})"
                             if x else f"{v} or {than}: target not reached")
        if "powersgd" in rows:
            p, q = rows["powersgd"], rows[v]
            ok = q["acc"] >= p["acc"] and q["ttt"] is not None and \
                (p["ttt"] is None or q["ttt"] <= p["ttt"])
            def secs(t):
                return "not reached" if t is None else f"{t:.1f} s"
            goals.append(f"{v} against powersgd: accuracy {100 * q['acc']:.2f}% vs "
                         f"{100 * p['acc']:.2f}%, time to target {secs(q['ttt'])} vs "
                         f"{secs(p['ttt'])} (goal: equal or better in both: "
                         f"{'met' if ok else 'NOT met'})")
        goals.append(f"{v}: {rows[v]['ms']:.1f} ms per step vs fp32's {f32['ms']:.1f} (goal at "
                     f"10 Gbit/s and on loopback: no slower: "
                     f"{'met' if rows[v]['ms'] <= f32['ms'] else 'NOT met'})")
    out += [""] + [f"- {g}" for g in goals]
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
    # Test accuracy against the training's wall time, one line per variant.
    where = f"links of {a.link} (tc tbf, network namespaces)" if a.link else "loopback"
    lines = ", ".join(f"'{a.out}/{v}.evals.csv' every ::1 using 3:($4*100) with linespoints "
                      f"lw 2 pt {5 + i} title '{v}'" for i, v in enumerate(variants))
    script = f"""set terminal pngcairo size 900,560 font ",11"
set output '{a.out}/torch-time.png'
set datafile separator ","
set key bottom right
set grid
set title "PyTorch DDP, --model {a.model}, {a.ranks} ranks on {where}"
set xlabel "training wall time (s, evaluation not counted)"
set ylabel "test accuracy (%)"
plot {lines}
"""
    r = subprocess.run(["gnuplot"], input=script, text=True)
    if r.returncode == 0:
        print(f"plot: {a.out}/torch-time.png")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--train-limit", type=int, default=16000)
    p.add_argument("--batch", type=int, default=32, help="per rank")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--model", choices=("cnn", "mlp"), default="cnn")
    p.add_argument("--link", metavar="RATE", help="(root) each rank in a network namespace on "
                   "tc-shaped links of RATE, through quire link run")
    p.add_argument("--test-limit", type=int, default=10000,
                   help="test accuracy over the first N test images")
    p.add_argument("--eval-every", type=int, default=0,
                   help="test accuracy every N steps (default: 4 times an epoch)")
    p.add_argument("--bucket-mb", type=float, default=25, help="DDP's bucket_cap_mb")
    p.add_argument("--resume", action="store_true",
                   help="keep the results of variants that ran to the end in OUT already")
    p.add_argument("--variants", help="a comma-separated subset of " + ",".join(VARIANTS))
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
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))  # wait_all's finally
    variants = a.variants.split(",") if a.variants else VARIANTS
    if "fp32" not in variants or any(v not in VARIANTS for v in variants):
        sys.exit(f"torch_ddp: --variants: fp32 and others of {','.join(VARIANTS)}")
    variants = [v for v in VARIANTS if v in variants and not (a.no_sim and v.endswith("-sim"))]
    if a.link and os.geteuid() != 0:
        sys.exit("torch_ddp: --link needs root (network namespaces and tc, by quire link run)")
    kept = [v for v in variants if a.resume and os.path.exists(f"{a.out}/{v}.evals.csv")
            and ran_to_end(f"{a.out}/{v}.csv", a.epochs)]
    for v in variants:
        for f in (f"{a.out}/{v}.csv", f"{a.out}/{v}.evals.csv"):
            if v not in kept and os.path.exists(f):
                os.unlink(f)
    here = os.path.abspath(__file__)
    t0 = time.time()
    for v in variants:
        if v in kept:
            print(f"{v}: kept from an earlier run (--resume)")
            continue
        rcs = run(a, v, here)
        if any(rcs):
            sys.exit(f"torch_ddp: {v}: a rank failed (exit {rcs})")
    table(a, variants)
    plot(a, variants)
    print(f"results: {a.out}/ (CSVs per variant, summary.md, torch.png, torch-time.png); "
          f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
