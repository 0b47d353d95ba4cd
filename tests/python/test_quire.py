#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python package quire: its API and errors, bit for bit against the quire CLI (the
C API) for the same inputs, zero copy where it says so, and the torch tensor path.
Usage: test_quire.py BUILD (the package from BUILD/python, the CLI BUILD/bin/quire).
Prints "python: N passed, N failed, N skipped" (the skipped ones with their reasons first)."""
import os
import subprocess
import sys
import tempfile
import unittest

BUILD = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else "build")
sys.path.insert(0, os.path.join(BUILD, "python"))
import numpy as np  # noqa: E402
import quire  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
NO_TORCH = f"{sys.executable} lacks torch (apt-get install python3-torch)"
CLI = os.path.join(BUILD, "bin", "quire")
N = 1000  # 15 whole blocks and a short one


def grads(seed, n=N):
    """Gradients with what the contract cares for: magnitudes over many exponents,
    zeros, a subnormal, ties."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n))).astype(np.float32)
    x[64:128] = 0.0
    x[130] = np.float32(1e-40)
    x[131] = 0.5
    return x


def bits(a):
    a = a.numpy() if torch is not None and isinstance(a, torch.Tensor) else a
    return a.view(np.uint8).tobytes()


class Tmp(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def f32(self, name, x):
        x.astype("<f4").tofile(self.path(name))
        return self.path(name)

    def cli(self, *args):
        r = subprocess.run([CLI, *args], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, f"quire {' '.join(args)}: {r.stderr}")

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def status(self, name, fn, *a, **kw):
        with self.assertRaises(quire.QuireError) as cm:
            fn(*a, **kw)
        self.assertEqual(cm.exception.name, name, str(cm.exception))
        self.assertEqual(quire.STATUS[cm.exception.status], name)
        return cm.exception


class Against_C(Tmp):
    """Bit for bit what the quire CLI (quire_codec_* of libquire) writes."""

    def test_encode(self):
        x = grads(1)
        for fmt in ("bfp8", "bfp16", "fp16"):
            self.cli("codec", "encode", "--format", fmt, self.f32("x.f32", x), self.path("c.qt"))
            quire.encode(x, fmt).save(self.path("p.qt"))
            self.assertEqual(self.read("c.qt"), self.read("p.qt"), fmt)
            e = quire.load(self.path("c.qt"))
            self.assertEqual((e.format, e.n, e.workers), (fmt, N, 1))

    def test_encode_error_feedback(self):
        for fmt in ("bfp8", "bfp16"):
            r = np.zeros(N, np.float32)
            for step in range(3):  # the residual carries from step to step
                x = grads(10 + step)
                self.cli("codec", "encode", "--format", fmt, "--residual", self.path("r.f32"),
                         self.f32("x.f32", x), self.path("c.qt"))
                quire.encode(x, fmt, residual=r).save(self.path("p.qt"))
                self.assertEqual(self.read("c.qt"), self.read("p.qt"), f"{fmt} step {step}")
                self.assertEqual(self.read("r.f32"), bits(r), f"{fmt} residual step {step}")
            self.assertTrue(np.any(r != 0))
            os.unlink(self.path("r.f32"))

    def test_decode(self):
        x = grads(2)
        for fmt in ("bfp8", "bfp16", "fp16"):
            self.cli("codec", "encode", "--format", fmt, self.f32("x.f32", x), self.path("c.qt"))
            self.cli("codec", "decode", self.path("c.qt"), self.path("y.f32"))
            self.assertEqual(self.read("y.f32"), bits(quire.decode(quire.load(self.path("c.qt")))))

    def test_decode_sum_mean(self):
        # An exact sum of 3 bfp8 encodings with shared exponents, as a file the CLI decodes.
        xs = [grads(20 + k) for k in range(3)]
        shared = quire.max_exponents([quire.exponents(x, "bfp8") for x in xs])
        encs = [quire.encode(x, "bfp8", shared_exp=shared) for x in xs]
        total = quire.Encoded("bfp8", quire.sum([e.vals for e in encs], "int16"), shared, 3)
        total.save(self.path("s.qt"))
        for mean in (False, True):
            self.cli("codec", "decode", *(["--mean"] if mean else []), self.path("s.qt"),
                     self.path("y.f32"))
            self.assertEqual(self.read("y.f32"), bits(quire.decode(total, mean=mean)))
        # ... and the same bits as the whole all-reduce.
        self.assertEqual(bits(quire.decode(total, mean=True)), bits(quire.reduce(xs, op="mean")))

    def test_reduce(self):
        xs = [grads(30 + k) for k in range(4)]
        files = [self.f32(f"x{k}.f32", x) for k, x in enumerate(xs)]
        for fmt in ("bfp8", "bfp16", "fp16", "fp32"):
            for op in ("sum", "mean"):
                self.cli("codec", "reduce", "--format", fmt, *(["--mean"] if op == "mean" else []),
                         "--out", self.path("y.f32"), *files)
                self.assertEqual(self.read("y.f32"), bits(quire.reduce(xs, fmt, op)), f"{fmt} {op}")

    def test_comm_on_a_card(self):
        # A communicator of one on a simulated card, with error feedback: the card's bits
        # are the CPU codec's for W = 1.
        x = grads(40)
        r = np.zeros(N, np.float32)
        with quire.Context("sim:inproc") as ctx:
            buf = ctx.alloc(4 * N)
            comm, ef = ctx.comm_self(), ctx.ef(N)
            self.assertEqual((comm.rank, comm.size), (0, 1))
            for step in range(2):
                v = buf.numpy()
                v[:] = x + step
                comm.allreduce(buf, format="bfp8", ef=ef)
                want = quire.reduce([x + step], "bfp8", residuals=[r])
                self.assertEqual(bits(v), bits(want), f"step {step}")
            # The state read out is the codec's residual; one written in is used next.
            self.assertEqual(bits(ef.read()), bits(r))
            r[:] = np.linspace(-1e-3, 1e-3, N, dtype=np.float32)
            ef.write(r)
            v[:] = x
            comm.allreduce(buf, format="bfp8", ef=ef)
            self.assertEqual(bits(v), bits(quire.reduce([x], "bfp8", residuals=[r])))
            t = ef.read(torch.empty(N)) if torch is not None else ef.read(np.empty(N, np.float32))
            self.assertEqual(bits(t), bits(r))
            self.status("QUIRE_ERR_SIZE", ef.write, r[:-1])
            self.status("QUIRE_ERR_FORMAT", ef.read, np.empty(N, np.float64))


class Cluster(Tmp):
    """Ranks in processes of their own, each with a simulated card (quire-cluster), meeting
    without MPI: the same bits on every rank, and the CPU codec's for the same gradients."""

    def ranks(self, w, leave=None, requant=False):
        n = 3000
        rank = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cluster_rank.py")
        cmd = " & ".join(f"QUIRE_RANK={r} {sys.executable} {rank} {BUILD} {w} {n} "
                         f"{self.path('y')}{' --leave' if r == leave else ''}"
                         f"{' --requant' if requant else ''} >{self.path(f'log{r}')} 2>&1"
                         for r in range(w))
        waits = " ; ".join(f"wait %{r + 1}; echo $? >{self.path(f'rc{r}')}" for r in range(w))
        env = dict(os.environ, QUIRE_TIMEOUT_MS="1500", QUIRE_SIM=os.path.join(BUILD, "bin", "quire-sim"))
        subprocess.run([os.path.join(BUILD, "bin", "quire-cluster"), "-n", str(w), "--", "sh", "-c",
                        f"{cmd} & {waits}"], env=env, timeout=60, capture_output=True)
        return n, [int(self.read(f"rc{r}")) for r in range(w)]

    def test_two_ranks(self):
        w = 2
        n, rcs = self.ranks(w)
        self.assertEqual(rcs, [0] * w, [self.read(f"log{r}") for r in range(w)])
        res = [np.zeros(n, np.float32) for _ in range(w)]
        for step in range(2):
            xs = [np.random.default_rng(100 * step + r).standard_normal(n).astype(np.float32)
                  for r in range(w)]
            want = bits(quire.reduce(xs, "bfp8", residuals=res))
            for r in range(w):
                self.assertEqual(self.read(f"y.{r}.{step}.f32"), want, f"rank {r} step {step}")

    def test_two_ranks_requantized(self):
        """Comm.requant: every rank gets the owners' requantized sums, as composing the
        codec says (docs/contract-bfp.md): the exact sum, then each owner's segment encoded
        with its own exponents and owner residual, decoded."""
        import ctypes
        w = 2
        n, rcs = self.ranks(w, requant=True)
        self.assertEqual(rcs, [0] * w, [self.read(f"log{r}") for r in range(w)])
        res = [np.zeros(n, np.float32) for _ in range(w)]
        own = []
        for k in range(w):
            off, ln = ctypes.c_size_t(), ctypes.c_size_t()
            quire._native.lib.quire_comm_chunk(n, w, k, ctypes.byref(off), ctypes.byref(ln))
            own.append((slice(off.value, off.value + ln.value), np.zeros(ln.value, np.float32)))
        for step in range(2):
            xs = [np.random.default_rng(100 * step + r).standard_normal(n).astype(np.float32)
                  for r in range(w)]
            exact = quire.reduce(xs, "bfp8", residuals=res)
            y = np.empty(n, np.float32)
            for part, r_o in own:
                y[part] = quire.decode(quire.encode(exact[part].copy(), "bfp8", residual=r_o))
            self.assertNotEqual(bits(y), bits(exact))
            for r in range(w):
                self.assertEqual(self.read(f"y.{r}.{step}.f32"), bits(y), f"rank {r} step {step}")
                self.assertEqual(self.read(f"y.{r}.{step}.own.f32"), bits(own[r][1]))

    def test_a_rank_that_leaves(self):
        n, rcs = self.ranks(2, leave=1)
        self.assertEqual(rcs, [3, 0])
        self.assertRegex(self.read("log0").decode(),
                         "QuireTimeoutError QUIRE_ERR_TIMEOUT|QuireError QUIRE_ERR_PEER")
        self.assertIn("about: net", self.read("log0").decode())  # the card says where


class MPIComm(Tmp):
    """Context.comm_from_mpi: 3 ranks under mpirun on the cpu backend, the host's ring over
    MPI: the same bits on every rank, the codec's for the same gradients."""

    @classmethod
    def setUpClass(cls):
        # MPI is in mk/debian-packages.txt, and make test builds libquire_mpi with it: either
        # missing is an error of the class (a failure), never a skip. mpirun itself says
        # whether MPI is here, not the build.
        try:
            subprocess.run(["mpirun", "--version"], capture_output=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise AssertionError("no MPI: apt-get install openmpi-bin libopenmpi-dev "
                                 f"(mk/debian-packages.txt): {e}") from None
        lib = os.path.join(BUILD, "lib", "libquire_mpi.so.0")
        if not os.path.exists(lib):
            raise AssertionError(f"no {lib} with MPI installed: run make test")

    @staticmethod
    def ring_fp32_mean(xs):
        """fp32 in the ring's order (collectives.md): chunk k adds ranks k+1, ..., k."""
        import ctypes
        w, n = len(xs), len(xs[0])
        y = np.empty(n, np.float32)
        for k in range(w):
            off, ln = ctypes.c_size_t(), ctypes.c_size_t()
            quire._native.lib.quire_comm_chunk(n, w, k, ctypes.byref(off), ctypes.byref(ln))
            part = slice(off.value, off.value + ln.value)
            acc = xs[(k + 1) % w][part].copy()
            for j in range(2, w + 1):
                acc += xs[(k + j) % w][part]
            y[part] = acc / np.float32(w)
        return y

    def test_three_ranks(self):
        w, n = 3, 3000
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        rank = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_rank.py")
        r = subprocess.run(["mpirun", "--oversubscribe", "-np", str(w), "--mca", "btl",
                            "self,vader", "--mca", "btl_vader_single_copy_mechanism", "none",
                            "--mca", "mpi_yield_when_idle", "1", sys.executable, rank, BUILD,
                            str(n), self.path("y")], env=env, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = [np.zeros(n, np.float32) for _ in range(w)]
        for step in range(3):
            xs = [np.random.default_rng(100 * step + k).standard_normal(n).astype(np.float32)
                  for k in range(w)]
            want = bits(quire.reduce(xs, "bfp8", residuals=res) if step < 2 else
                        self.ring_fp32_mean(xs))
            for k in range(w):
                self.assertEqual(self.read(f"y.{k}.{step}.f32"), want, f"rank {k} step {step}")


@unittest.skipIf(torch is None, NO_TORCH)
class DDPHook(Tmp):
    """quire.torch.register on 2 and 4 processes over Gloo, on the cpu backend and on
    quire-cluster's simulated cards: the same bits on every rank, each bucket's result
    quire_codec_allreduce's (MEAN, error feedback) for the same gradients, through buckets
    DDP rebuilds; the two backends give the same model; on cpu each rank's bytes_sent is
    what its collectives carry, fewer than all-gathering the whole values from 4 ranks on
    and with requant."""

    def ranks(self, w, backend, *args):
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = str(s.getsockname()[1])
        rank = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ddp_rank.py")
        out = self.path(f"ddp-{backend}")
        cmd = " & ".join(f"{sys.executable} {rank} {BUILD} {r} {w} {port} {out} {backend} "
                         f"{' '.join(args)} >{self.path(f'log{r}')} 2>&1" for r in range(w))
        waits = " ; ".join(f"wait %{r + 1}; echo $? >{self.path(f'rc{r}')}" for r in range(w))
        launch = ["sh", "-c", f"{cmd} & {waits}"]
        if backend == "sim":
            launch = [os.path.join(BUILD, "bin", "quire-cluster"), "-n", str(w), "--"] + launch
        env = dict(os.environ, QUIRE_TIMEOUT_MS="2000",
                   QUIRE_SIM=os.path.join(BUILD, "bin", "quire-sim"))
        env.pop("QUIRE_RANK", None)
        subprocess.run(launch, env=env, timeout=90, capture_output=True)
        return ([int(self.read(f"rc{r}")) for r in range(w)],
                [self.read(f"log{r}").decode() for r in range(w)], out)

    @staticmethod
    def segment(n, w, k):
        """(offset, len) of rank k's segment of n elements (quire_comm_chunk)."""
        import ctypes
        o, c = ctypes.c_size_t(), ctypes.c_size_t()
        quire._native.lib.quire_comm_chunk(n, w, k, ctypes.byref(o), ctypes.byref(c))
        return o.value, c.value

    def check(self, w, backend, requant=False):
        rcs, outs, out = self.ranks(w, backend, *(["--requant"] if requant else []))
        self.assertEqual(rcs, [0] * w, outs)
        got = [torch.load(f"{out}.{r}") for r in range(w)]
        for r in range(1, w):
            self.assertEqual(b"".join(map(bits, got[0]["params"])),
                             b"".join(map(bits, got[r]["params"])), f"rank {r}")
        recs = [g["records"] for g in got]
        self.assertTrue(all(len(rc) == len(recs[0]) for rc in recs))
        self.assertGreater(len(recs[0]), 3)  # several buckets a step
        counts = [p.numel() for p in got[0]["params"]]
        sizes = {}
        res = [{} for _ in range(w)]  # each rank's residual per parameter, as the hook keeps
        own = [{} for _ in range(w)]  # each rank's owner residual per parameter (requant)
        for rec in zip(*recs):
            step, params = rec[0][0], rec[0][1]
            for r in range(1, w):
                self.assertEqual((rec[r][0], rec[r][1]), (step, params))  # same step, bucket
                self.assertEqual(bits(rec[r][3]), bits(rec[0][3]))  # same bits on every rank
            sizes.setdefault(step, []).append(tuple(params))
            rr = [torch.cat([res[k][p] if p in res[k] else torch.zeros(counts[p])
                             for p in params]) for k in range(w)]
            want = quire.reduce([rec[k][2] for k in range(w)], "bfp8", "mean", residuals=rr)
            if requant:  # each owner's segment requantized with its own exponents, residual
                n = want.numel()
                for k in range(w):
                    oo = torch.cat([own[k][p] if p in own[k] else torch.zeros(counts[p])
                                    for p in params])
                    off, ln = self.segment(n, w, k)
                    if ln:
                        part = oo[off:off + ln]
                        want[off:off + ln] = quire.decode(
                            quire.encode(want[off:off + ln].contiguous(), "bfp8", residual=part))
                    at = 0
                    for p in params:
                        own[k][p] = oo[at:at + counts[p]].clone()
                        at += counts[p]
            self.assertEqual(bits(rec[0][3]), bits(want), f"step {step} bucket {params}")
            for k in range(w):
                off = 0
                for p in params:
                    res[k][p] = rr[k][off:off + counts[p]].clone()
                    off += counts[p]
        self.assertNotEqual(sizes[0], sizes[1])  # DDP rebuilt its buckets after step 0
        self.assertGreater(got[0]["bytes"], 0)
        if backend == "cpu":
            self.wire(w, requant, [rec[2].numel() for rec in recs[0]],
                      [g["bytes"] for g in got])
        # Rank 0's hook returned while its bucket's all-reduce still waited for the others.
        self.assertEqual(got[0]["pending"], [True])
        return got[0]["params"]

    def wire(self, w, requant, buckets, sent):
        """Each rank's bytes_sent on cpu, bucket by bucket what the hook's collectives
        carry from it (docs/python.md): exponents to w-1 ranks; from 4 ranks on (and always
        with requant) its values of the others' segments, then its segment (padded to the
        longest) to w-1 ranks: int16 sums, or requantized int8 and exponents; with fewer
        ranks its whole values to w-1 ranks. Per element that is below what gathering the
        whole values costs, (w-1)(1 + 1/64), and for requant its extra all-gather."""
        blocks = quire.blocks
        want, old = [0] * w, 0
        for n in buckets:
            segs = [self.segment(n, w, k)[1] for k in range(w)]
            requantized = (w - 1) * max(ln + blocks(ln) for ln in segs)
            old += (w - 1) * (n + blocks(n)) + (requantized if requant else 0)
            for r in range(w):
                want[r] += (w - 1) * blocks(n)
                if requant:
                    want[r] += n - segs[r] + requantized
                elif w >= 4:
                    want[r] += n - segs[r] + (w - 1) * max(segs) * 2
                else:
                    want[r] += (w - 1) * n
        self.assertEqual(sent, want)
        if requant or w >= 4:
            self.assertLess(max(sent), old)
        else:
            self.assertEqual(max(sent), old)

    def backends(self, w, requant=False):
        cpu, sim = self.check(w, "cpu", requant), self.check(w, "sim", requant)
        self.assertEqual(b"".join(map(bits, cpu)), b"".join(map(bits, sim)))
        return cpu

    def test_two_ranks(self):
        self.backends(2)

    def test_four_ranks(self):
        self.backends(4)

    def test_requantized(self):
        """register(requant=True): the owners' requantized means, on both backends."""
        self.backends(2, requant=True)
        self.check(3, "cpu", requant=True)
        self.check(4, "cpu", requant=True)

    def dies(self, w, backend):
        rcs, outs, _ = self.ranks(w, backend, "--die")
        self.assertEqual(rcs, [3, 0] + [3] * (w - 2), outs)
        for r in [0] + list(range(2, w)):
            self.assertRegex(outs[r], f"rank {r} step 2: RuntimeError; state.error "
                             "QuireTimeoutError QUIRE_ERR_TIMEOUT", outs)

    def test_a_rank_that_dies(self):
        self.dies(2, "cpu")
        self.dies(2, "sim")

    def test_register_errors(self):
        # Outside quire-cluster there is no card for backend "sim": said, with what to do.
        code = ("import os, sys, torch, torch.distributed as dist; import quire.torch\n"
                "os.environ.update(MASTER_ADDR='127.0.0.1', MASTER_PORT=sys.argv[1])\n"
                "dist.init_process_group('gloo', rank=0, world_size=1)\n"
                "ddp = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3))\n"
                "for kw in ({'backend': 'sim'}, {'backend': 'xrt'}, {'format': 'fp16'}):\n"
                "    try:\n"
                "        quire.torch.register(ddp, **kw)\n"
                "    except quire.QuireError as e:\n"
                "        print(e.name, e)\n")
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = str(s.getsockname()[1])
        env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
        env.pop("QUIRE_CLUSTER_DIR", None)
        r = subprocess.run([sys.executable, "-c", code, port], env=env, capture_output=True,
                           text=True, timeout=60)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 3, r.stdout + r.stderr)
        self.assertRegex(lines[0], "^QUIRE_ERR_NO_DEVICE .*inside quire-cluster")
        self.assertRegex(lines[1], "^QUIRE_ERR_NOT_SUPPORTED .*'xrt'")
        self.assertRegex(lines[2], "^QUIRE_ERR_FORMAT .*'fp16'")


class Errors(Tmp):
    def test_bad_uri(self):
        e = self.status("QUIRE_ERR_NO_DEVICE", quire.Context, "nonsense")
        self.assertIn("nonsense", str(e))
        self.assertIn("no device", e.text)
        self.status("QUIRE_ERR_NO_DEVICE", quire.Context, "sim:" + self.path("none.sock"))

    def test_silent_card(self):
        # A card process that takes no host's HELLO (stopped): a timeout that says so.
        import socket
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.bind(self.path("silent.sock"))
            s.listen(4)
            old = os.environ.get("QUIRE_TIMEOUT_MS")
            os.environ["QUIRE_TIMEOUT_MS"] = "300"
            try:
                e = self.status("QUIRE_ERR_TIMEOUT", quire.Context,
                                "sim:" + self.path("silent.sock"))
            finally:
                if old is None:
                    del os.environ["QUIRE_TIMEOUT_MS"]
                else:
                    os.environ["QUIRE_TIMEOUT_MS"] = old
        self.assertIsInstance(e, TimeoutError)
        self.assertIn("did not answer the attach within", str(e))

    def test_formats(self):
        x = grads(3)
        self.status("QUIRE_ERR_FORMAT", quire.encode, x, "bfp7")
        self.status("QUIRE_ERR_FORMAT", quire.encode, x.astype(np.float64), "bfp8")
        self.status("QUIRE_ERR_FORMAT", quire.reduce, [x], "int8")
        self.status("QUIRE_ERR_INVALID", quire.encode, x, "fp16", residual=np.zeros(N, np.float32))
        self.status("QUIRE_ERR_INVALID", quire.encode, list(x), "bfp8")
        self.status("QUIRE_ERR_INVALID", quire.reduce, [x], op="max")

    def test_sizes(self):
        x = grads(4)
        self.status("QUIRE_ERR_SIZE", quire.encode, x, residual=np.zeros(N - 1, np.float32))
        self.status("QUIRE_ERR_SIZE", quire.encode, x, out=np.zeros(N + 1, np.int8))
        self.status("QUIRE_ERR_SIZE", quire.encode, x, shared_exp=np.zeros(3, np.int8))
        self.status("QUIRE_ERR_SIZE", quire.reduce, [x, x[:-1]])
        self.status("QUIRE_ERR_SIZE", quire.reduce, [x, x], residuals=[np.zeros(N, np.float32)])
        self.status("QUIRE_ERR_SIZE", quire.reduce, [])
        self.status("QUIRE_ERR_SIZE", quire.decode, quire.encode(x), out=np.zeros(10, np.float32))

    def test_errors_of_the_c_api(self):
        x = grads(5)
        # A shared exponent outside [-126, 127]: libquire's own QUIRE_ERR_RANGE.
        e = self.status("QUIRE_ERR_RANGE", quire.encode, x, "bfp8",
                        shared_exp=np.full(quire.blocks(N), -128, np.int8))
        self.assertEqual(e.where, "encode")
        big = np.full(N, 32767, np.int16)
        self.status("QUIRE_ERR_OVERFLOW", quire.sum, [big, big], "int16")
        with open(self.path("bad.qt"), "wb") as f:
            f.write(b"QUIRETNS" + (1).to_bytes(2, "little") + bytes(38))  # format 0
        e = self.status("QUIRE_ERR_CORRUPT", quire.load, self.path("bad.qt"))
        self.assertIn("bad.qt: format", str(e))  # quire_encoded_fault's field at fault
        self.status("QUIRE_ERR_IO", quire.load, self.path("none.qt"))

    def test_misaligned_and_short(self):
        raw = np.zeros(4 * N + 1, np.uint8)
        odd = raw[1:].view(np.float32)  # numpy allows it; libquire does not
        self.assertNotEqual(odd.ctypes.data % 4, 0)
        self.status("QUIRE_ERR_ALIGN", quire.encode, odd, "bfp8")
        self.status("QUIRE_ERR_ALIGN", quire.reduce, [grads(6), odd])
        with quire.Context("cpu") as ctx:
            buf = ctx.alloc(4 * 100)
            self.status("QUIRE_ERR_SIZE", buf.numpy, np.float32, 101)
            self.status("QUIRE_ERR_ALIGN", buf.numpy, np.float32, 1, 2)
            self.status("QUIRE_ERR_RANGE", buf.numpy, np.float32, None, 800)
            comm = ctx.comm_self()
            self.status("QUIRE_ERR_SIZE", comm.allreduce, buf, count=101)
            self.status("QUIRE_ERR_INVALID", comm.allreduce, np.zeros(100, np.float32))
            buf.free()
            self.status("QUIRE_ERR_INVALID", lambda: buf.ptr)
        self.status("QUIRE_ERR_INVALID", comm.barrier)  # its context is closed

    def test_writes_in_place_only(self):
        x = grads(7)
        self.status("QUIRE_ERR_INVALID", quire.encode, x, out=np.zeros(2 * N, np.int8)[::2])
        ro = np.zeros(N, np.float32)
        ro.flags.writeable = False
        self.status("QUIRE_ERR_INVALID", quire.encode, x, residual=ro)
        self.status("QUIRE_ERR_INVALID", quire.reduce, [x, x.copy()], out=x)
        # An input that is not contiguous is read through a copy, with the same bits.
        wide = np.repeat(x, 2)
        self.assertEqual(bits(quire.reduce([wide[::2]])), bits(quire.reduce([x])))

    def test_non_finite(self):
        x = grads(8)
        x[5] = np.nan
        x[200] = -np.inf
        for fmt in ("bfp8", "bfp16"):
            r = np.full(N, 0.25, np.float32)
            e = quire.encode(x, fmt, residual=r)
            self.assertEqual(list(e.exp[:4] == quire._consts.BFP_EXP_NONFINITE),
                             [True, False, False, True])
            self.assertTrue(np.all(e.vals[:64] == 0))
            y = quire.decode(e)
            self.assertTrue(np.all(y[:64].view(np.uint32) == 0x7fc00000))
            self.assertTrue(np.all(y[192:256].view(np.uint32) == 0x7fc00000))
            self.assertTrue(np.all(np.isfinite(y[64:192])))
            self.assertTrue(np.all(r[:64] == 0.25) and np.all(r[192:256] == 0.25))
            # One worker's NaN marks the block for the whole reduction.
            s = quire.reduce([grads(9), x], fmt)
            self.assertTrue(np.all(s[:64].view(np.uint32) == 0x7fc00000))
            self.assertTrue(np.all(np.isfinite(s[64:192])))
        # fp16 keeps NaN and Inf per element.
        y = quire.decode(quire.encode(x, "fp16"))
        self.assertTrue(np.isnan(y[5]) and y[200] == -np.inf and np.isfinite(y[6]))

    def test_save_is_atomic(self):
        x = grads(11)
        quire.encode(x).save(self.path("a.qt"))
        with self.assertRaises(quire.QuireError):
            quire.Encoded("bfp8", np.zeros(N, np.int8), np.zeros(quire.blocks(N), np.int8),
                          workers=0).save(self.path("a.qt"))
        self.assertEqual(sorted(os.listdir(self.dir)), ["a.qt"])  # no temporary left
        self.assertEqual(bits(quire.load(self.path("a.qt")).vals), bits(quire.encode(x).vals))


class ZeroCopy(unittest.TestCase):
    def test_codec_writes_the_arrays_given(self):
        x = grads(12)
        vals, exp = np.empty(N, np.int8), np.empty(quire.blocks(N), np.int8)
        r = np.zeros(N, np.float32)
        addrs = (vals.ctypes.data, exp.ctypes.data, r.ctypes.data)
        e = quire.encode(x, "bfp8", residual=r, out=vals, exp_out=exp)
        self.assertIs(e.vals, vals)
        self.assertIs(e.exp, exp)
        self.assertEqual((vals.ctypes.data, exp.ctypes.data, r.ctypes.data), addrs)
        ref = quire.encode(x, "bfp8", residual=np.zeros(N, np.float32))
        self.assertEqual(bits(vals), bits(ref.vals))
        self.assertTrue(np.any(r != 0))
        y = np.empty(N, np.float32)
        self.assertIs(quire.decode(e, out=y), y)
        self.assertIs(quire.reduce([x, x], out=y), y)

    def test_buffer_views(self):
        with quire.Context("sim:inproc") as ctx:
            buf = ctx.alloc(4 * N)
            v = buf.numpy()
            self.assertEqual(v.ctypes.data, buf.ptr)
            self.assertEqual(v.nbytes, buf.size)
            v[:] = 1.5
            self.assertTrue(np.all(buf.numpy(np.float32, 10, 40) == 1.5))
            self.assertEqual(buf.numpy(np.float32, 10, 40).ctypes.data, buf.ptr + 40)
            if torch is not None:
                t = buf.torch()
                self.assertEqual(t.data_ptr(), buf.ptr)
                t[0] = 7.0
                self.assertEqual(v[0], 7.0)

    @unittest.skipIf(torch is None, NO_TORCH)
    def test_torch_tensors_in_place(self):
        x = torch.from_numpy(grads(13))
        out = torch.empty(N, dtype=torch.int8)
        r = torch.zeros(N)
        p = (out.data_ptr(), r.data_ptr())
        e = quire.encode(x, "bfp8", residual=r, out=out)
        self.assertIs(e.vals, out)
        self.assertEqual((out.data_ptr(), r.data_ptr()), p)


@unittest.skipIf(torch is None, NO_TORCH)
class Torch(unittest.TestCase):
    def test_same_bits_as_numpy(self):
        xs = [grads(50 + k) for k in range(3)]
        ts = [torch.from_numpy(x.copy()) for x in xs]
        for fmt in ("bfp8", "bfp16", "fp16"):
            et, en = quire.encode(ts[0], fmt), quire.encode(xs[0], fmt)
            self.assertIsInstance(et.vals, torch.Tensor)
            self.assertEqual(bits(et.vals), bits(en.vals))
            yt = quire.decode(et)
            self.assertIsInstance(yt, torch.Tensor)
            self.assertEqual(bits(yt), bits(quire.decode(en)))
            self.assertEqual(bits(quire.reduce(ts, fmt)), bits(quire.reduce(xs, fmt)))
        rt, rn = [torch.zeros(N) for _ in ts], [np.zeros(N, np.float32) for _ in xs]
        for _ in range(2):
            self.assertEqual(bits(quire.reduce(ts, residuals=rt)), bits(quire.reduce(xs, residuals=rn)))
        self.assertEqual(b"".join(map(bits, rt)), b"".join(map(bits, rn)))

    def test_torch_errors(self):
        x = torch.from_numpy(grads(60))
        e = quire.QuireError
        with self.assertRaises(e) as cm:
            quire.encode(x.double())
        self.assertEqual(cm.exception.name, "QUIRE_ERR_FORMAT")
        with self.assertRaises(e) as cm:
            quire.encode(x, residual=torch.zeros(2 * N)[::2])
        self.assertEqual(cm.exception.name, "QUIRE_ERR_INVALID")
        # A gradient of a model: a view of 2-D weights, not contiguous, is read through a copy.
        w = torch.from_numpy(grads(61, 2 * N)).reshape(N // 10 * 2, 10)
        self.assertEqual(bits(quire.reduce([w.t()])),
                         bits(quire.reduce([w.t().contiguous().reshape(-1)])))


if __name__ == "__main__":
    print(f"python: {sys.executable}, numpy {np.__version__}, "
          f"torch {torch.__version__ if torch else 'missing'}, {quire.library_path}")
    res = unittest.main(exit=False, verbosity=2).result
    bad = len(res.failures) + len(res.errors)
    if torch is None:
        # python3-torch is in mk/debian-packages.txt: its absence is a failure, not skips.
        print(f"FAIL {NO_TORCH} (mk/debian-packages.txt)")
        bad += 1
    for test, why in res.skipped:
        print(f"SKIP {test.id()}: {why}")
    # A class whose setUpClass failed counts one error but no test run.
    ran_bad = len(res.failures) + sum(isinstance(t, unittest.TestCase) for t, _ in res.errors)
    print(f"python: {res.testsRun - ran_bad - len(res.skipped)} passed, "
          f"{bad} failed, {len(res.skipped)} skipped")
    sys.exit(1 if bad else 0)
