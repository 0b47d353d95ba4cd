# SPDX-License-Identifier: MIT
"""A PyTorch DDP communication hook: each gradient bucket all-reduced in quire's bfp8 or
bfp16, with error feedback. backend "cpu": through a process group of DDP's ranks (Gloo
under torchrun: no MPI, no card); the ranks trade their block exponents, take the max and
encode with it; from 4 ranks on, each rank sends segment k of its integer values to rank k
(quire_comm_chunk's split), which sums its segment exactly, and the ranks all-gather the
sums in the narrowest type that holds them (with fewer ranks that costs more: they
all-gather the whole values and each sums them); every rank decodes. backend "sim": each
rank's card (quire-cluster's) all-reduces the bucket over the cards' network. Every rank
gets the same bits on both, those of quire_codec_allreduce (MEAN) for the same gradients.
With requant, the requantized all-gather (docs/contract-bfp.md): the owner of each segment
decodes the mean of its sums and requantizes it with its own exponents and owner residual,
the ranks all-gather those values and exponents, and every rank decodes them; the same bits
as the C API's QUIRE_COMM_OPT_REQUANT. docs/python.md.

The hook is asynchronous, as DDP's own all-reduce: it hands the bucket to the state's worker
and returns at once a Future that the worker completes, so the coding and the transfers of
one bucket run while autograd computes the gradients of the next. The worker is two
threads in a pipeline (exponents and encoding; then the integers' transfers, the sums and
decoding), each taking buckets in the order DDP hands them over, the same on every rank,
each talking to the other ranks through a process group of its own (the same ranks): their
collectives can never interleave with one another's or with those the trainer or DDP itself
issue meanwhile."""
import ctypes
import os
import queue
import threading

import torch
import torch.distributed as dist

import quire
from ._base import _CODE, _error

_FORMATS = ("bfp8", "bfp16")


class _Job:
    """One bucket on its way through the worker's two stages: the bucket, its Future, its
    residual and owner residual (views of the state's, updated in place), and what the first
    stage hands the second (the encoded values and the shared exponents)."""

    def __init__(self, bucket, fut):
        self.bucket, self.fut = bucket, fut
        self.residual = self.owner = self.enc = self.shared = None


class _State:
    """The hook's state: the format, the residual of every parameter (error feedback), and
    the worker: two threads, each with a process group of its own (the same ranks). The
    first computes a bucket's exponents, trades them with the other ranks and encodes; the
    second moves the integers, sums and decodes. Both take buckets in the order DDP hands
    them over, the same on every rank, so while one bucket's values are on the wire the next
    one's exponents already are, and neither group's collectives ever interleave with
    another's (or with those the trainer and DDP issue)."""

    def __init__(self, groups, format, error_feedback, requant=False):
        self.group, self.exp_group = groups
        self.format, self.error_feedback, self.requant = format, error_feedback, requant
        # id(parameter) -> its fp32 residual (flat), a view of the flat residual of the
        # bucket it was last in (self._flats): a bucket whose layout is unchanged reads and
        # updates its residual where it lies, put together anew only when DDP rebuilds
        # its buckets.
        self.residuals = {}
        # requant with error feedback: id(parameter) -> its owner residual (flat, the whole
        # parameter; only the elements of this rank's segment of a bucket are used)
        self.owner_residuals = {}
        self._flats = {}  # (which, parameter ids) -> the flat residual they are views of
        self.bytes_sent = 0  # payload bytes this rank handed to the process groups
        # The QuireError of the first bucket that failed: DDP's reducer hands it on to
        # backward() as a RuntimeError whose text is the QuireError's, this keeps the error
        # itself. Once set, every later bucket fails with it at once: the group (or the
        # card's communicator) is broken, and waiting out its timeout per bucket helps
        # nobody. A failed bucket's residuals are not meaningful any more.
        self.error = None
        self._lock = threading.Lock()
        self.cards = None  # backend "sim": this rank's card (_Cards)
        self._encoding = queue.SimpleQueue()  # _Job, or None to stop
        self._reducing = queue.SimpleQueue()
        self._threads = [threading.Thread(target=f, name=f"quire.torch.{n}", daemon=True)
                         for n, f in (("encode", self._encode_stage),
                                      ("reduce", self._reduce_stage))]
        for t in self._threads:
            t.start()

    def close(self):
        """Stop the worker and free this rank's card (backend "sim"); the model must not
        run another step. Buckets already handed over are finished first."""
        if self._threads:
            self._encoding.put(None)
            for t in self._threads:
                t.join()
            self._threads = []
        if self.cards is not None:
            self.cards.close()
            self.cards = None

    def submit(self, bucket):
        """The Future of the bucket's all-reduce, done by the worker after those before."""
        fut = torch.futures.Future()
        self._encoding.put(_Job(bucket, fut))
        return fut

    def fail(self, bucket, e):
        """Keep the first failure (any later bucket fails with it) and return it."""
        if isinstance(e, RuntimeError) and not isinstance(e, quire.QuireError):
            q = _peer_error(bucket, e)  # the process group's own failure: a peer gone or silent
            q.__cause__ = e
            e = q
        with self._lock:
            if self.error is None:
                self.error = e
            return self.error

    def _encode_stage(self):
        while True:
            job = self._encoding.get()
            if job is not None and self.error is None:
                try:
                    _prepare(self, job)
                except Exception as e:  # whatever it is, the trainer hears of it
                    self.fail(job.bucket, e)
            self._reducing.put(job)
            if job is None:
                return

    def _reduce_stage(self):
        while True:
            job = self._reducing.get()
            if job is None:
                return
            y = None
            if self.error is None:
                try:
                    y = _finish(self, job)
                except Exception as e:
                    self.fail(job.bucket, e)
            if self.error is not None:
                job.fut.set_exception(self.error)
            else:
                job.fut.set_result(y)

    def residual(self, bucket, kept):
        """The bucket's flat residual from kept (the residuals or the owner residuals), its
        parameters in order; its parameters' entries in kept become views of it."""
        key = (id(kept), tuple(id(p) for p in bucket.params))
        flat = self._flats.get(key)
        if flat is None:
            flat = torch.cat([kept.get(id(p), torch.zeros(p.numel())) for p in bucket.params])
            self._flats = {k: f for k, f in self._flats.items()
                           if k[0] != key[0] or not set(k[1]) & set(key[1])}
            self._flats[key] = flat
            off = 0
            for p in bucket.params:
                kept[id(p)] = flat[off:off + p.numel()]
                off += p.numel()
        return flat


class _Bucket:
    """What the worker needs of DDP's GradBucket, taken in the hook (DDP's thread): the
    flat gradients, the parameters in order and the index."""

    def __init__(self, bucket):
        self.grads, self.params, self.index = bucket.buffer(), bucket.parameters(), bucket.index()


def _gather(group, t):
    """Every rank's bytes of t, in rank order (one all_gather through the group)."""
    raw = t.contiguous().view(torch.uint8)
    out = [torch.empty_like(raw) for _ in range(dist.get_world_size(group))]
    dist.all_gather(out, raw, group=group)
    return [o.view(t.dtype) for o in out]


def _segment(n, w, k):
    """(offset, len) of rank k's segment of n elements (quire_comm_chunk)."""
    off, ln = ctypes.c_size_t(), ctypes.c_size_t()
    quire._native.lib.quire_comm_chunk(n, w, k, ctypes.byref(off), ctypes.byref(ln))
    return off.value, ln.value


def _sum_type(fmt, w):
    """The narrowest integer type that holds a sum of w values of fmt (the cards' wire type
    of the finished sums, docs/collectives.md): int16 for bfp8 up to 258 ranks, else int32."""
    return "int16" if fmt == "bfp8" and w * 127 <= 32767 else "int32"


def _reduce_scattered(fmt, w):
    """Whether the exact all-reduce sends fewer bytes as a reduce-scatter and an all-gather
    of the sums than as an all-gather of every rank's whole values: (w-1)/w (vb + sb)
    against (w-1) vb bytes an element, so from 4 ranks on (3: equal)."""
    vb = 1 if fmt == "bfp8" else 2
    sb = 2 if _sum_type(fmt, w) == "int16" else 4
    return vb + sb < w * vb


def _prepare(state, job):
    """The first stage: the bucket's residuals, and on cpu its exponents traded, their max
    taken and the gradients encoded with it (the residual updated)."""
    b = job.bucket
    if state.error_feedback:
        job.residual = state.residual(b, state.residuals)
        if state.requant:
            job.owner = state.residual(b, state.owner_residuals)
    if state.cards is not None:
        return
    fmt, group, g = state.format, state.exp_group, b.grads
    w = dist.get_world_size(group)
    exps = _gather(group, quire.exponents(g, fmt, residual=job.residual))
    state.bytes_sent += (w - 1) * exps[0].numel()
    job.shared = quire.max_exponents(exps)
    job.enc = quire.encode(g, fmt, residual=job.residual, shared_exp=job.shared)


def _finish(state, job):
    """The second stage: the bucket's mean, on the card or from the encoded values."""
    if state.cards is not None:
        return state.cards.allreduce(state, job)
    fmt, group, enc, shared = state.format, state.group, job.enc, job.shared
    w, n = dist.get_world_size(group), enc.vals.numel()
    if not state.requant and not _reduce_scattered(fmt, w):
        vals = _gather(group, enc.vals)
        state.bytes_sent += (w - 1) * enc.vals.numel() * enc.vals.element_size()
        return quire.decode(quire.Encoded(fmt, quire.sum(vals, "int32"), shared, w), mean=True)
    segs = [_segment(n, w, k) for k in range(w)]
    sums = _owner_sums(state, enc.vals, segs)
    if state.requant:
        return _requantized(state, sums, shared, segs, job.owner)
    out = torch.empty(n, dtype=torch.float32)
    for (off, ln), got in zip(segs, _gather_segments(state, sums, max(ln for _, ln in segs))):
        if ln:  # segments are whole blocks (quire_comm_chunk): each decodes on its own
            b = off // quire.BFP_BLOCK
            quire.decode(quire.Encoded(fmt, got[:ln], shared[b:b + quire.blocks(ln)], w),
                         mean=True, out=out[off:off + ln])
    return out


def allreduce_bucket(state, bucket):
    """The mean over the group's ranks of the bucket's flat fp32 gradients (this rank's),
    as quire_codec_allreduce, its residuals carried in and updated: both stages in turn."""
    job = _Job(bucket, None)
    _prepare(state, job)
    return _finish(state, job)


def _owner_sums(state, vals, segs):
    """The reduce-scatter: segment k of every rank's integer values goes to rank k (one
    all_to_all; quire_comm_chunk's segments follow one another in rank order), and this
    rank returns the exact sums of its own segment, in _sum_type."""
    group = state.group
    w, rank = dist.get_world_size(group), dist.get_rank(group)
    lens = [ln for _, ln in segs]
    vb = vals.element_size()
    raw = vals.contiguous().view(torch.uint8)
    mine = lens[rank]
    got = torch.empty(w * mine * vb, dtype=torch.uint8)
    dist.all_to_all_single(got, raw, output_split_sizes=[mine * vb] * w,
                           input_split_sizes=[ln * vb for ln in lens], group=group)
    state.bytes_sent += (sum(lens) - mine) * vb
    acc = _sum_type(state.format, w)
    if not mine:
        return torch.empty(0, dtype=torch.int16 if acc == "int16" else torch.int32)
    parts = got.view(vals.dtype).view(w, mine)
    return quire.sum([parts[k] for k in range(w)], acc)


def _gather_segments(state, mine, size):
    """Every rank's segment (this rank's is mine), in rank order, each padded to size
    elements, the largest of any rank's (one all_gather; the padding counts as sent)."""
    padded = torch.zeros(size, dtype=mine.dtype)
    padded[:mine.numel()] = mine
    state.bytes_sent += (dist.get_world_size(state.group) - 1) * size * padded.element_size()
    return _gather(state.group, padded)


def _requantized(state, sums, shared, segs, owner):
    """The requantized all-gather: this rank, owner of its segment, decodes the mean of its
    sums, requantizes it with its own block exponents (and its owner residual, owner, the
    bucket's), the ranks all-gather values and exponents, and every rank decodes every
    segment."""
    fmt, group = state.format, state.group
    w, rank = dist.get_world_size(group), dist.get_rank(group)
    n = sum(ln for _, ln in segs)
    vb = 1 if fmt == "bfp8" else 2
    size = max(ln * vb + quire.blocks(ln) for _, ln in segs)
    mine = torch.zeros(size, dtype=torch.uint8)
    off, ln = segs[rank]
    if ln:
        b = off // quire.BFP_BLOCK
        y = quire.decode(quire.Encoded(fmt, sums, shared[b:b + quire.blocks(ln)], w),
                         mean=True)
        own = owner[off:off + ln] if owner is not None else None
        enc = quire.encode(y, fmt, residual=own)
        mine[:ln * vb] = enc.vals.contiguous().view(torch.uint8)
        mine[ln * vb:ln * vb + quire.blocks(ln)] = enc.exp.view(torch.uint8)
    out = torch.empty(n, dtype=torch.float32)
    for (off, ln), got in zip(segs, _gather_segments(state, mine, size)):
        if ln:
            vals = got[:ln * vb].view(torch.int8 if vb == 1 else torch.int16)
            exp = got[ln * vb:ln * vb + quire.blocks(ln)].view(torch.int8)
            quire.decode(quire.Encoded(fmt, vals, exp, 1), out=out[off:off + ln])
    return out


class _Cards:
    """backend "sim": this rank's card and a communicator of the group's cards, a card
    buffer as large as the largest bucket, and error-feedback state per bucket size (its
    residual written in before each bucket and read out after: the hook's per-parameter
    residuals stay the state, so DDP's rebuilding of its buckets loses nothing)."""

    def __init__(self, group, uri):
        rank, size = dist.get_rank(group), dist.get_world_size(group)
        # quire-cluster gives card r to the process whose QUIRE_RANK (or mpirun's rank) is
        # r; under torchrun only RANK is set: the group's rank names the card.
        os.environ.setdefault("QUIRE_RANK", str(rank))
        try:
            self.ctx = quire.Context(uri)
        except quire.QuireError as e:
            if uri != "sim:cluster" or "QUIRE_CLUSTER_DIR" in os.environ:
                raise
            raise _error(e.status, "quire.torch.register", "backend 'sim': no card for "
                               "this rank; run the ranks inside quire-cluster -n W -- ...") from e
        self.comm = self.ctx.comm_rendezvous(rank=rank, size=size)
        self.buf, self.efs = None, {}

    def requant(self, on):
        self.comm.requant = on

    def allreduce(self, state, job):
        g = job.bucket.grads
        n = g.numel()
        if self.buf is None or self.buf.size < 4 * n:
            if self.buf is not None:
                self.buf.free()
            self.buf = self.ctx.alloc(4 * n)
        v = self.buf.torch(count=n)
        v.copy_(g)
        ef, own = None, None
        if job.residual is not None:
            ef = self.efs.get(n)
            if ef is None:
                ef = self.efs[n] = self.ctx.ef(n)
            ef.write(job.residual)
            if job.owner is not None:
                off, ln = self.comm.chunk(n)
                own = job.owner[off:off + ln]
                ef.write_owner(own)
        self.comm.allreduce(self.buf, count=n, format=state.format, op="mean", ef=ef)
        if ef is not None:
            ef.read(job.residual)
        if own is not None:
            ef.read_owner(own)
        state.bytes_sent += self.comm.wire_bytes(n, state.format)
        return v.clone()

    def close(self):
        self.ctx.close()


def _peer_error(bucket, e):
    """The process group's failure as a quire error. A rank that is gone shows up as its
    connection closing, which Gloo sees at once, or as silence until the group's timeout:
    both are what quire reports as QUIRE_ERR_TIMEOUT to the other ranks of a card whose
    peer died (docs/failures.md: QUIRE_ERR_PEER is for a rank's own card gone or a
    communicator already failed), with the detail saying which it was."""
    text = str(e)
    low = text.lower()
    if "timed out" in low or "timeout" in low:
        why = "no answer within the process group's timeout"
    elif any(w in low for w in ("closed", "reset by peer", "broken pipe", "refused", "eof")):
        why = "a peer rank is gone: its connection closed (seen at once, before the timeout)"
    else:
        return _error(_CODE["QUIRE_ERR_IO"], "quire.torch",
                            f"bucket {bucket.index}: the process group failed: {text}")
    return _error(_CODE["QUIRE_ERR_TIMEOUT"], "quire.torch",
                        f"bucket {bucket.index}: {why}: {text}")


def _hook(state, bucket):
    g = bucket.buffer()
    if g.dtype != torch.float32 or g.device.type != "cpu":
        raise quire.QuireError(_CODE["QUIRE_ERR_FORMAT"], "quire.torch",
                               f"bucket of {g.dtype} on {g.device}: float32 CPU gradients")
    b = _Bucket(bucket)
    n = sum(p.numel() for p in b.params)
    if n != g.numel():
        raise quire.QuireError(_CODE["QUIRE_ERR_SIZE"], "quire.torch",
                               f"bucket {b.index}: {g.numel()} elements, its parameters {n}")
    return state.submit(b)


def register(ddp_model, format="bfp8", error_feedback=True, backend="cpu", group=None,
             requant=False):
    """Make ddp_model all-reduce its gradients in quire's format (bfp8 or bfp16), with error
    feedback if asked, and with requant the requantized all-gather (its owner residuals kept
    per parameter too). backend "cpu": the CPU codec, the process group carries the integers;
    "sim" (or a URI such as "sim:cluster"): each rank's simulated card of quire-cluster,
    meeting the others in $QUIRE_CLUSTER_DIR. The hook is asynchronous: each bucket's
    all-reduce runs in the state's worker (two threads), over process groups of group's
    ranks made here (so every process of the job calls register). Returns the hook's state (bytes_sent
    counts this rank's payload bytes; error the QuireError of a bucket that failed: a peer
    rank gone or silent is QUIRE_ERR_TIMEOUT; close() stops the worker, frees the card)."""
    if format not in _FORMATS:
        raise quire.QuireError(_CODE["QUIRE_ERR_FORMAT"], "quire.torch.register",
                               f"format {format!r}: one of {', '.join(_FORMATS)}")
    if backend != "cpu" and backend != "sim" and not backend.startswith("sim:"):
        raise quire.QuireError(_CODE["QUIRE_ERR_NOT_SUPPORTED"],
                               "quire.torch.register", f"backend {backend!r}: 'cpu' or 'sim' "
                               "(quire-cluster's cards; kdrv, xrt, opencl cards: not yet)")
    group = group if group is not None else dist.group.WORLD
    # The worker's own process groups, one per stage, of the same ranks (every process of
    # the job makes them, as torch.distributed.new_group asks, here as in DDP's own
    # construction).
    ranks = dist.get_process_group_ranks(group)
    state = _State((dist.new_group(ranks=ranks), dist.new_group(ranks=ranks)), format,
                   error_feedback, requant)
    if backend != "cpu":
        try:
            state.cards = _Cards(state.group, "sim:cluster" if backend == "sim" else backend)
            state.cards.requant(requant)
        except BaseException:
            state.close()
            raise
    ddp_model.register_comm_hook(state, _hook)
    return state


__all__ = ["register", "allreduce_bucket"]
