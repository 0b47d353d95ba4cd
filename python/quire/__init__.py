# SPDX-License-Identifier: MIT
"""quire from Python: the gradient codec, contexts, card buffers and communicators of
libquire (host/include/quire.h) through ctypes. Arrays are numpy arrays or torch CPU
tensors; the codec reads and writes their memory in place (no copy) when they are
C-contiguous and of the format's dtype. Errors raise QuireError with quire's status.
docs/python.md describes it."""
import ctypes
import os

import numpy as np

from . import _consts
from ._native import lib, path as library_path
from . import _native as _n
from ._base import (STATUS, FORMATS, BFP_BLOCK, QuireError, QuireTimeoutError, _VAL_DTYPE,
                    _ENCODE_VALS, _error, _check, _bad, _fmt, _Mem, _is_torch, _out,
                    _disjoint, _ptrs)
from ._card import Context, Buffer, Comm, ErrorFeedback

__all__ = ["QuireError", "QuireTimeoutError", "Encoded", "Context", "Buffer", "Comm",
           "ErrorFeedback", "version", "codec_impl", "codec_use", "exponents", "encode",
           "decode", "sum", "max_exponents", "reduce", "load", "format_bytes", "blocks",
           "library_path", "STATUS", "FORMATS", "BFP_BLOCK"]

def version():
    """The version of the libquire loaded, "major.minor.patch"."""
    return lib.quire_version().decode()


def codec_impl():
    """The CPU codec in use: "scalar", "avx2" or "avx512" (all give the same bits)."""
    return lib.quire_codec_impl_name().decode()


def codec_use(name):
    """Choose the CPU codec for the whole process: "auto", "scalar", "avx2", "avx512"."""
    impl = lib.quire_codec_impl_parse(name.encode())
    if impl < 0:
        raise _bad("QUIRE_ERR_INVALID", "codec_use", f"unknown implementation {name!r}")
    _check(lib.quire_codec_use(impl), "codec_use", name)


def format_bytes(fmt, n):
    """Bytes of the values of n elements in format fmt."""
    return int(lib.quire_format_bytes(_fmt(fmt, "format_bytes"), n))


def blocks(n):
    """Block exponents of an n-element tensor: ceil(n / 64)."""
    return (n + BFP_BLOCK - 1) // BFP_BLOCK


# ---- the codec -------------------------------------------------------------------------

class Encoded:
    """An encoded tensor: format ("bfp8", "bfp16", "fp16"), vals (int8/int16/int32 or
    float16 holding binary16 bits), exp (int8 block exponents, None for fp16), workers
    (1, or W for an exact sum of W encodings)."""

    def __init__(self, format, vals, exp=None, workers=1):
        self.format, self.vals, self.exp, self.workers = format, vals, exp, int(workers)

    @property
    def n(self):
        return int(self.vals.numel() if _is_torch(self.vals) else self.vals.size)

    @property
    def val_format(self):
        dt = np.dtype(self.vals.numpy().dtype if _is_torch(self.vals) else self.vals.dtype)
        for name, d in _VAL_DTYPE.items():
            if np.dtype(d) == dt:
                return name
        raise _bad("QUIRE_ERR_FORMAT", "Encoded", f"values of dtype {dt}")

    def _struct(self, where):
        vf = self.val_format
        vals = _Mem(self.vals, where, "vals", _VAL_DTYPE[vf])
        exp = None
        if self.format != "fp16":
            exp = _Mem(self.exp, where, "exp", np.int8, blocks(vals.count)) \
                if self.exp is not None else None
            if exp is None:
                raise _bad("QUIRE_ERR_INVALID", where, f"{self.format} without exponents")
        s = _n.Encoded(_fmt(self.format, where, ("bfp8", "bfp16", "fp16")), FORMATS[vf],
                       self.workers, vals.count, exp.addr if exp else None, vals.addr)
        return s, (vals, exp)

    def save(self, path):
        """Write a quire tensor file (docs/codec-file.md), as `quire codec encode` does: to
        a temporary name beside path, then renamed into place."""
        path = os.fspath(path)
        s, keep = self._struct("Encoded.save")
        tmp = os.path.join(os.path.dirname(path) or ".",
                           f".{os.path.basename(path)}.{os.getpid()}.tmp")
        st = lib.quire_encoded_write(os.fsencode(tmp), ctypes.byref(s))
        if st != 0:
            err = ctypes.get_errno()
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise _error(st, "Encoded.save", f"{path}" + (f": {os.strerror(err)}" if err else ""))
        os.replace(tmp, path)
        del keep

    def __repr__(self):
        return f"<quire.Encoded {self.format} n={self.n} workers={self.workers}>"


def load(path):
    """Read a quire tensor file into an Encoded (numpy arrays)."""
    path = os.fspath(path)
    s = _n.Encoded()
    st = lib.quire_encoded_read(os.fsencode(path), ctypes.byref(s))
    if st != 0:
        fault = lib.quire_encoded_fault(os.fsencode(path))
        raise _error(st, "load", f"{path}: {fault.decode()}" if fault else path)
    try:
        fmt = {v: k for k, v in FORMATS.items()}
        vf = fmt[s.val_format]
        vals = np.empty(s.n, _VAL_DTYPE[vf])
        ctypes.memmove(vals.ctypes.data, s.vals, vals.nbytes)
        exp = None
        if s.exp:
            exp = np.empty(blocks(s.n), np.int8)
            ctypes.memmove(exp.ctypes.data, s.exp, exp.nbytes)
        return Encoded(fmt[s.format], vals, exp, s.workers)
    finally:
        lib.quire_encoded_free(ctypes.byref(s))


def exponents(x, format="bfp8", residual=None, out=None):
    """The local block exponents of x (of fp32(x + residual) with error feedback)."""
    w = "exponents"
    f = _fmt(format, w, ("bfp8", "bfp16"))
    xm = _Mem(x, w, "x", np.float32, copy_ok=True)
    rm = _Mem(residual, w, "residual", np.float32, xm.count) if residual is not None else None
    out, om = _out(out, x, blocks(xm.count), np.int8, w, "out")
    _check(lib.quire_codec_exponents(f, xm.count, xm.addr, rm.addr if rm else None, om.addr),
           w)
    return out


def encode(x, format="bfp8", residual=None, shared_exp=None, out=None, exp_out=None):
    """Encode fp32 x: an Encoded. bfp8/bfp16: each block with its own exponent, or with
    shared_exp (a reduction's); residual (fp32, len(x)): error feedback, updated in place.
    fp16: binary16 values, no residual. out / exp_out: arrays to write into (no copy)."""
    w = "encode"
    f = _fmt(format, w, ("bfp8", "bfp16", "fp16"))
    xm = _Mem(x, w, "x", np.float32, copy_ok=True)
    if format == "fp16" and (residual is not None or shared_exp is not None or
                             exp_out is not None):
        raise _bad("QUIRE_ERR_INVALID", w, "fp16 takes no residual and no exponents")
    rm = _Mem(residual, w, "residual", np.float32, xm.count, writable=True) \
        if residual is not None else None
    vals, vm = _out(out, x, xm.count, _VAL_DTYPE[_ENCODE_VALS[format]], w, "out")
    _disjoint(vm, [("x", xm)] + ([("residual", rm)] if rm else []), w)
    exp, sm, em = None, None, None
    if format != "fp16":
        if shared_exp is not None:
            sm = _Mem(shared_exp, w, "shared_exp", np.int8, blocks(xm.count), copy_ok=True)
            exp = shared_exp
        else:
            exp, em = _out(exp_out, x, blocks(xm.count), np.int8, w, "exp_out")
    _check(lib.quire_codec_encode(f, xm.count, xm.addr, rm.addr if rm else None,
                                  sm.addr if sm else None, em.addr if em else None, vm.addr), w)
    return Encoded(format, vals, exp, 1)


def decode(enc, mean=False, out=None):
    """fp32 values of an Encoded (one encoding or an exact sum of W); mean=True divides a
    sum of W by W in fp32, as the cards' MEAN."""
    w = "decode"
    if not isinstance(enc, Encoded):
        raise _bad("QUIRE_ERR_INVALID", w, f"a {type(enc).__name__}, not a quire.Encoded")
    s, keep = enc._struct(w)
    y, ym = _out(out, enc.vals, s.n, np.float32, w, "out")
    _check(lib.quire_codec_decode(s.format, s.val_format, s.n, s.vals, s.exp,
                                  enc.workers if mean else 1, ym.addr), w)
    del keep
    return y


def sum(inputs, acc_format="int32", acc=None, out=None):
    """acc + inputs[0] + ... element-wise (quire_codec_sum): integer inputs summed exactly
    into int16/int32 (QUIRE_ERR_OVERFLOW if a sum does not fit), fp16/fp32 into fp32 in
    the order given."""
    w = "sum"
    inputs = list(inputs)
    if not inputs:
        raise _bad("QUIRE_ERR_SIZE", w, "no inputs")
    first = inputs[0]
    dt = np.dtype(first.numpy().dtype if _is_torch(first) else first.dtype)
    in_fmt = next((k for k, d in _VAL_DTYPE.items() if np.dtype(d) == dt), None)
    if in_fmt is None:
        raise _bad("QUIRE_ERR_FORMAT", w, f"inputs of dtype {dt}")
    af = _fmt(acc_format, w, ("int16", "int32", "fp32"))
    ms = [_Mem(a, w, f"inputs[{i}]", _VAL_DTYPE[in_fmt],
               copy_ok=True) for i, a in enumerate(inputs)]
    n = ms[0].count
    for i, m in enumerate(ms):
        if m.count != n:
            raise _bad("QUIRE_ERR_SIZE", w, f"inputs[{i}]: {m.count} elements, inputs[0] {n}")
    am = _Mem(acc, w, "acc", _VAL_DTYPE[acc_format], n, copy_ok=True) if acc is not None \
        else None
    y, ym = _out(out, first, n, _VAL_DTYPE[acc_format], w, "out")
    _disjoint(ym, [(f"inputs[{i}]", m) for i, m in enumerate(ms)], w)
    _check(lib.quire_codec_sum(FORMATS[in_fmt], af, len(ms), n, _ptrs(ms),
                               am.addr if am else None, ym.addr), w)
    return y


def max_exponents(exps, out=None):
    """The element-wise max of W workers' block exponents: a reduction's shared ones."""
    w = "max_exponents"
    exps = list(exps)
    if not exps:
        raise _bad("QUIRE_ERR_SIZE", w, "no exponents")
    ms = [_Mem(e, w, f"exps[{i}]", np.int8, copy_ok=True) for i, e in enumerate(exps)]
    for i, m in enumerate(ms):
        if m.count != ms[0].count:
            raise _bad("QUIRE_ERR_SIZE", w, f"exps[{i}]: {m.count} blocks, exps[0] "
                       f"{ms[0].count}")
    y, ym = _out(out, exps[0], ms[0].count, np.int8, w, "out")
    _check(lib.quire_codec_max_exponents(len(ms), ms[0].count, _ptrs(ms), ym.addr), w)
    return y


def reduce(xs, format="bfp8", op="sum", residuals=None, out=None):
    """A whole W-worker all-reduce on this CPU, bit for bit what W cards return
    (quire_codec_allreduce, `quire codec reduce`): xs, W fp32 arrays of one length;
    residuals: None or W fp32 arrays (error feedback, bfp only), updated in place."""
    w = "reduce"
    f = _fmt(format, w, ("bfp8", "bfp16", "fp16", "fp32"))
    if op not in ("sum", "mean"):
        raise _bad("QUIRE_ERR_INVALID", w, f"op {op!r}: 'sum' or 'mean'")
    xs = list(xs)
    if not 1 <= len(xs) <= _consts.MAX_WORKERS:
        raise _bad("QUIRE_ERR_SIZE", w, f"{len(xs)} workers: 1 to {_consts.MAX_WORKERS}")
    ms = [_Mem(x, w, f"xs[{i}]", np.float32, copy_ok=True) for i, x in enumerate(xs)]
    n = ms[0].count
    for i, m in enumerate(ms):
        if m.count != n:
            raise _bad("QUIRE_ERR_SIZE", w, f"xs[{i}]: {m.count} elements, xs[0] {n}")
    rp, rms = None, []
    if residuals is not None:
        residuals = list(residuals)
        if len(residuals) != len(xs):
            raise _bad("QUIRE_ERR_SIZE", w, f"{len(residuals)} residuals for {len(xs)} workers")
        rms = [_Mem(r, w, f"residuals[{i}]", np.float32, n, writable=True)
               for i, r in enumerate(residuals)]
        rp = _ptrs(rms)
    y, ym = _out(out, xs[0], n, np.float32, w, "out")
    _disjoint(ym, [(f"xs[{i}]", m) for i, m in enumerate(ms)] +
              [(f"residuals[{i}]", m) for i, m in enumerate(rms)], w)
    _check(lib.quire_codec_allreduce(f, _consts.OPS[op], len(ms), n, _ptrs(ms), rp, ym.addr), w)
    return y


