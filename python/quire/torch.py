# SPDX-License-Identifier: MIT
"""A PyTorch DDP communication hook: each gradient bucket all-reduced in quire's bfp8 or
bfp16, with error feedback, through the process group DDP already has (Gloo under torchrun:
no MPI, no card). Every rank gets the same bits, those of quire_codec_allreduce (MEAN) for
the same gradients: the ranks trade their block exponents, take the max, encode with it,
trade the integer values and sum them exactly, then decode. docs/python.md."""
import torch
import torch.distributed as dist

import quire

_FORMATS = ("bfp8", "bfp16")


class _State:
    """The hook's state: the format, and the residual of every parameter (error feedback),
    kept per parameter so that it survives DDP's rebuilding of its buckets."""

    def __init__(self, group, format, error_feedback):
        self.group, self.format, self.error_feedback = group, format, error_feedback
        self.residuals = {}  # id(parameter) -> its fp32 residual (flat)
        self.bytes_sent = 0  # payload bytes this rank handed to the process group
        # The QuireError of a failed bucket: DDP's reducer hands it on to backward() as a
        # RuntimeError whose text is the QuireError's, this keeps the error itself.
        self.error = None

    def residual(self, bucket):
        """The bucket's residual, in its layout (its parameters in order, flat)."""
        params = bucket.parameters()
        n = bucket.buffer().numel()
        if sum(p.numel() for p in params) != n:
            raise quire.QuireError(quire._CODE["QUIRE_ERR_SIZE"], "quire.torch",
                                   f"bucket {bucket.index()}: {n} elements, its parameters "
                                   f"{sum(p.numel() for p in params)}")
        return torch.cat([self.residuals.get(id(p), torch.zeros(p.numel())) for p in params])

    def keep(self, bucket, r):
        off = 0
        for p in bucket.parameters():
            self.residuals[id(p)] = r[off:off + p.numel()].clone()
            off += p.numel()


def _gather(group, t):
    """Every rank's bytes of t, in rank order (one all_gather through the group)."""
    raw = t.contiguous().view(torch.uint8)
    out = [torch.empty_like(raw) for _ in range(dist.get_world_size(group))]
    dist.all_gather(out, raw, group=group)
    return [o.view(t.dtype) for o in out]


def allreduce_bucket(state, g):
    """The mean over the group's ranks of the flat fp32 gradients g (this rank's), as
    quire_codec_allreduce: g's residual is state.residual_now (or None)."""
    fmt, group, r = state.format, state.group, state.residual_now
    w = dist.get_world_size(group)
    exps = _gather(group, quire.exponents(g, fmt, residual=r))
    shared = quire.max_exponents(exps)
    enc = quire.encode(g, fmt, residual=r, shared_exp=shared)
    vals = _gather(group, enc.vals)
    state.bytes_sent += exps[0].numel() + enc.vals.numel() * enc.vals.element_size()
    total = quire.sum(vals, "int32")
    return quire.decode(quire.Encoded(fmt, total, shared, w), mean=True)


def _hook(state, bucket):
    g = bucket.buffer()
    if g.dtype != torch.float32 or g.device.type != "cpu":
        raise quire.QuireError(quire._CODE["QUIRE_ERR_FORMAT"], "quire.torch",
                               f"bucket of {g.dtype} on {g.device}: float32 CPU gradients")
    state.residual_now = state.residual(bucket) if state.error_feedback else None
    try:
        y = allreduce_bucket(state, g)
    except quire.QuireError as e:
        state.error = e
        raise
    except RuntimeError as e:  # the process group's own failure: a peer gone or silent
        code = "QUIRE_ERR_TIMEOUT" if "timed out" in str(e).lower() else "QUIRE_ERR_PEER"
        state.error = quire._error(quire._CODE[code], "quire.torch",
                                   f"bucket {bucket.index()}: {e}")
        raise state.error from e
    if state.error_feedback:
        state.keep(bucket, state.residual_now)
    fut = torch.futures.Future()
    fut.set_result(y)
    return fut


def register(ddp_model, format="bfp8", error_feedback=True, backend="cpu", group=None):
    """Make ddp_model all-reduce its gradients in quire's format (bfp8 or bfp16), with error
    feedback if asked, through its process group (backend "cpu": the CPU codec, the group
    carries the integers). Returns the hook's state (bytes_sent counts this rank's
    payload bytes; error the QuireError of a bucket that failed: a peer that went away is
    QUIRE_ERR_PEER, one silent for the group's timeout QUIRE_ERR_TIMEOUT)."""
    if format not in _FORMATS:
        raise quire.QuireError(quire._CODE["QUIRE_ERR_FORMAT"], "quire.torch.register",
                               f"format {format!r}: one of {', '.join(_FORMATS)}")
    if backend != "cpu":
        raise quire.QuireError(quire._CODE["QUIRE_ERR_NOT_SUPPORTED"],
                               "quire.torch.register", f"backend {backend!r}: only 'cpu' "
                               "for now (cards: not yet)")
    state = _State(group if group is not None else dist.group.WORLD, format, error_feedback)
    ddp_model.register_comm_hook(state, _hook)
    return state


__all__ = ["register", "allreduce_bucket"]
