# SPDX-License-Identifier: MIT
"""What every module of the package shares: quire's status codes and formats, the
exceptions, and arrays (numpy or torch CPU tensors) as libquire sees their memory. Imports
nothing of the package but the generated constants and the library, so the package's
modules import it, never each other."""
import ctypes

import numpy as np

from . import _consts
from ._native import lib

STATUS = dict(_consts.STATUS)
FORMATS = dict(_consts.FORMATS)
BFP_BLOCK = _consts.BFP_BLOCK
_CODE = {name: code for code, name in STATUS.items()}
_VAL_DTYPE = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "fp16": np.float16,
              "fp32": np.float32}
_ENCODE_VALS = {"bfp8": "int8", "bfp16": "int16", "fp16": "fp16"}


class QuireError(Exception):
    """A quire status other than QUIRE_OK: .status (the code), .name ("QUIRE_ERR_SIZE"),
    .text (quire_strerror), .detail (what was wrong, if known), .where (the call),
    .detail_code (a card operation's enum quire_detail, 0 if none)."""

    __module__ = "quire"  # raised and caught as quire.QuireError, wherever it is defined

    def __init__(self, status, where, detail=None, detail_code=0):
        self.status, self.detail_code = int(status), int(detail_code)
        self.name = STATUS.get(self.status, f"status {self.status}")
        self.text = lib.quire_strerror(self.status).decode()
        self.where, self.detail = where, detail
        msg = f"{where}: {self.text} ({self.name})"
        super().__init__(msg + (f": {detail}" if detail else ""))


class QuireTimeoutError(QuireError, TimeoutError):
    """QUIRE_ERR_TIMEOUT or QUIRE_ERR_UNRESPONSIVE: a card or a peer stood still."""
    __module__ = "quire"


def _error(status, where, detail=None, detail_code=0):
    timeout = status in (_CODE["QUIRE_ERR_TIMEOUT"], _CODE["QUIRE_ERR_UNRESPONSIVE"])
    return (QuireTimeoutError if timeout else QuireError)(status, where, detail, detail_code)


def _check(status, where, detail=None):
    if status != 0:
        raise _error(status, where, detail)


def _bad(name, where, detail):
    return _error(_CODE[name], where, detail)


def _fmt(fmt, where, allowed=None):
    if isinstance(fmt, str) and fmt in FORMATS and (allowed is None or fmt in allowed):
        return FORMATS[fmt]
    want = ", ".join(allowed or FORMATS)
    raise _bad("QUIRE_ERR_FORMAT", where, f"format {fmt!r}: one of {want}")


# ---- arrays: numpy arrays and torch CPU tensors, by their memory ------------------------

def _torch():
    import sys
    return sys.modules.get("torch")  # only if the caller has it imported: never imported here


class _Mem:
    """An array's memory as libquire sees it: address, element count, dtype name."""

    def __init__(self, obj, where, what, dtype, count=None, writable=False, copy_ok=False):
        t = _torch()
        self.obj = obj
        if t is not None and isinstance(obj, t.Tensor):
            if obj.device.type != "cpu":
                raise _bad("QUIRE_ERR_INVALID", where, f"{what}: a {obj.device} tensor; "
                           "quire takes CPU tensors (use .cpu())")
            tdt = {np.float32: t.float32, np.float16: t.float16, np.int8: t.int8,
                   np.int16: t.int16, np.int32: t.int32}[dtype]
            if obj.dtype != tdt:
                raise _bad("QUIRE_ERR_FORMAT", where, f"{what}: dtype {obj.dtype}, not {tdt}")
            if not obj.is_contiguous():
                if writable or not copy_ok:
                    raise _bad("QUIRE_ERR_INVALID", where, f"{what}: not contiguous; "
                               "quire writes in place (use .contiguous())")
                obj = obj.contiguous()
                self.obj = obj
            self.addr, self.count, self.nbytes = obj.data_ptr(), obj.numel(), \
                obj.numel() * obj.element_size()
        else:
            if not isinstance(obj, np.ndarray):
                raise _bad("QUIRE_ERR_INVALID", where,
                           f"{what}: a {type(obj).__name__}, not a numpy array or torch tensor")
            if obj.dtype != np.dtype(dtype):
                raise _bad("QUIRE_ERR_FORMAT", where,
                           f"{what}: dtype {obj.dtype}, not {np.dtype(dtype)}")
            if writable and not obj.flags.writeable:
                raise _bad("QUIRE_ERR_INVALID", where, f"{what}: read-only array")
            if not obj.flags.c_contiguous:
                if writable or not copy_ok:
                    raise _bad("QUIRE_ERR_INVALID", where, f"{what}: not C-contiguous; "
                               "quire writes in place (np.ascontiguousarray)")
                obj = np.ascontiguousarray(obj)
                self.obj = obj
            self.addr, self.count, self.nbytes = obj.ctypes.data, obj.size, obj.nbytes
        if self.count and self.addr % np.dtype(dtype).itemsize:
            raise _bad("QUIRE_ERR_ALIGN", where, f"{what}: address {self.addr:#x} is not a "
                       f"multiple of {np.dtype(dtype).itemsize}")
        if count is not None and self.count != count:
            raise _bad("QUIRE_ERR_SIZE", where, f"{what}: {self.count} elements, need {count}")


def _is_torch(obj):
    t = _torch()
    return t is not None and isinstance(obj, t.Tensor)


def _new(like, n, dtype):
    """A new contiguous array of n elements: a torch tensor if like is one, else numpy."""
    if _is_torch(like):
        t = _torch()
        return t.from_numpy(np.empty(n, dtype))
    return np.empty(n, dtype)


def _out(out, like, n, dtype, where, what):
    if out is None:
        out = _new(like, n, dtype)
    return out, _Mem(out, where, what, dtype, n, writable=True)


def _disjoint(out, mems, where):
    """Refuse an output that shares memory with an input: the C API reads each input
    while it writes the output."""
    for what, m in mems:
        if m.count and out.count and m.addr < out.addr + out.nbytes and \
                out.addr < m.addr + m.nbytes:
            raise _bad("QUIRE_ERR_INVALID", where, f"out shares memory with {what}")


def _ptrs(mems):
    arr = (ctypes.c_void_p * len(mems))(*[m.addr for m in mems])
    return arr
