# SPDX-License-Identifier: MIT
"""Contexts (a backend by URI), buffers the card reaches, error-feedback state and
communicators: quire.h's cards and collectives from Python."""
import ctypes
import os

import numpy as np

from . import _consts, _native as _n
from ._base import _Mem, _bad, _check, _error, _fmt, _out, _torch

_REQUANT = _consts.COMM_OPT_REQUANT

lib = _n.lib


class Context:
    """A quire context: Context("cpu"), Context("sim"), Context("sim:inproc"),
    Context("sim:PATH"), Context("sim:cluster") inside quire-cluster. A context serves
    one thread at a time. Use as a context manager, or close()."""

    def __init__(self, uri="cpu"):
        self._h, self._children, self.uri = None, [], uri
        h = ctypes.c_void_p()
        st = lib.quire_open(uri.encode(), ctypes.byref(h))
        if st != 0:
            # Why, where the backend says more (a card that did not answer, or in use by whom).
            fault = lib.quire_open_fault()
            _check(st, "Context", f"uri {uri!r}" + (f": {fault.decode()}" if fault else ""))
        self._h = h

    @property
    def handle(self):
        if not self._h:
            raise _bad("QUIRE_ERR_INVALID", "Context", "closed")
        return self._h

    def close(self):
        if self._h:
            for c in reversed(self._children):
                c._release()
            self._children = []
            lib.quire_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def info(self):
        """quire_get_info as a dict."""
        i = _n.Info()
        _check(lib.quire_get_info(self.handle, ctypes.byref(i)), "Context.info")
        return {"backend": i.backend.decode(), "board": i.board.decode(),
                "if_version": i.if_version, "fw_build": i.fw_build, "caps": i.caps,
                "clock_hz": i.clock_hz, "mem_bytes": i.mem_bytes, "cmds_ok": i.cmds_ok,
                "cmds_err": i.cmds_err, "net_addr": i.net.addr, "net_link": i.net.link,
                "net_tx_bytes": i.net.tx_bytes}

    @property
    def caps(self):
        return int(lib.quire_backend_caps(self.handle))

    def set_timeout(self, timeout_ms):
        lib.quire_set_timeout(self.handle, int(timeout_ms))

    def reset(self):
        _check(lib.quire_reset(self.handle), "Context.reset")

    def alloc(self, nbytes):
        """A Buffer of nbytes the card reaches."""
        if nbytes <= 0:
            raise _bad("QUIRE_ERR_SIZE", "Context.alloc", f"{nbytes} bytes")
        h = ctypes.c_void_p()
        _check(lib.quire_buf_alloc(self.handle, nbytes, ctypes.byref(h)), "Context.alloc",
               f"{nbytes} bytes")
        return self._adopt(Buffer(self, h))

    def ef(self, count):
        """Error-feedback state of one tensor of count elements (starts at +0.0)."""
        h = ctypes.c_void_p()
        _check(lib.quire_ef_create(self.handle, count, ctypes.byref(h)), "Context.ef",
               f"{count} elements")
        return self._adopt(ErrorFeedback(self, h, count))

    def comm_self(self):
        """A communicator of this rank alone."""
        h = ctypes.c_void_p()
        _check(lib.quire_comm_self(self.handle, ctypes.byref(h)), "Context.comm_self")
        return self._adopt(Comm(self, h))

    def comm_rendezvous(self, directory=None, rank=None, size=None, wait_ms=10000):
        """A communicator of cards without MPI: the ranks meet in directory (default
        $QUIRE_CLUSTER_DIR); rank and size default to QUIRE_RANK and QUIRE_SIZE."""
        directory = directory or os.environ.get("QUIRE_CLUSTER_DIR")
        rank = int(os.environ.get("QUIRE_RANK", -1)) if rank is None else rank
        size = int(os.environ.get("QUIRE_SIZE", -1)) if size is None else size
        if not directory or rank < 0 or size < 1:
            raise _bad("QUIRE_ERR_INVALID", "Context.comm_rendezvous",
                       f"directory {directory!r}, rank {rank}, size {size} "
                       "(set them, or QUIRE_CLUSTER_DIR, QUIRE_RANK, QUIRE_SIZE)")
        h = ctypes.c_void_p()
        _check(lib.quire_comm_rendezvous(self.handle, os.fsencode(directory), rank, size,
                                         wait_ms, ctypes.byref(h)),
               "Context.comm_rendezvous", f"{directory}, rank {rank} of {size}")
        return self._adopt(Comm(self, h))

    def comm_from_mpi(self, comm=None, timeout_ms=0):
        """A communicator of the ranks of an MPI communicator (quire_comm_from_mpi of
        libquire_mpi): on the cpu backend the ring runs over MPI's messages; on cards MPI
        trades their addresses. comm: None (MPI_COMM_WORLD; MPI initialised here if it is
        not yet, finalised at exit), an mpi4py communicator or an MPI_Comm handle (int).
        timeout_ms: how long a collective waits for a silent peer, then QUIRE_ERR_TIMEOUT
        (0: on cpu no limit but MPI's, on cards 5000)."""
        from . import _mpi
        h, qm = _mpi.handle(comm)
        out = ctypes.c_void_p()
        _check(qm.quire_comm_from_mpi_timeout(self.handle, h, int(timeout_ms),
                                              ctypes.byref(out)), "Context.comm_from_mpi")
        return self._adopt(Comm(self, out))

    def _adopt(self, child):
        self._children.append(child)
        return child


class _Child:
    """Something a context owns: freed with it, or before it by free()."""

    def __init__(self, ctx, h):
        self.ctx, self._h = ctx, h

    @property
    def handle(self):
        if not self._h or not self.ctx._h:
            raise _bad("QUIRE_ERR_INVALID", type(self).__name__, "freed, or its context closed")
        return self._h

    def _release(self):
        if self._h:
            self._free_fn(self._h)
            self._h = None

    def free(self):
        if self._h and self.ctx._h:
            self.ctx._children.remove(self)
            self._release()
        self._h = None


class Buffer(_Child):
    """Memory the card reaches (quire_buf_alloc). numpy() and torch() are views of it, no
    copy: valid until the buffer is freed or its context closed."""
    _free_fn = staticmethod(lib.quire_buf_free)

    @property
    def ptr(self):
        return int(lib.quire_buf_ptr(self.handle))

    @property
    def size(self):
        return int(lib.quire_buf_size(self.handle))

    def numpy(self, dtype=np.float32, count=None, offset=0):
        """A numpy array over the buffer's bytes from offset (no copy)."""
        dt = np.dtype(dtype)
        room = self.size - offset
        if offset < 0 or room < 0 or offset % dt.itemsize:
            raise _bad("QUIRE_ERR_RANGE" if offset % dt.itemsize == 0 else "QUIRE_ERR_ALIGN",
                       "Buffer.numpy", f"offset {offset} in {self.size} bytes of {dt}")
        count = room // dt.itemsize if count is None else count
        if count < 0 or count * dt.itemsize > room:
            raise _bad("QUIRE_ERR_SIZE", "Buffer.numpy",
                       f"{count} x {dt} from offset {offset} in {self.size} bytes")
        raw = (ctypes.c_char * (count * dt.itemsize)).from_address(self.ptr + offset)
        raw._quire_buffer = self  # the view keeps the Python object alive
        return np.frombuffer(raw, dt, count)

    def torch(self, dtype=np.float32, count=None, offset=0):
        """A torch CPU tensor over the buffer's bytes (no copy)."""
        t = _torch()
        if t is None:
            import torch as t
        return t.from_numpy(self.numpy(dtype, count, offset))

    def ref(self, offset=0):
        return _n.Ref(self.handle, offset)


class ErrorFeedback(_Child):
    """The residual of one tensor on one rank (quire_ef_create); reset() zeroes it."""
    _free_fn = staticmethod(lib.quire_ef_free)

    def __init__(self, ctx, h, count):
        super().__init__(ctx, h)
        self.count = count

    def reset(self):
        lib.quire_ef_reset(self.handle)

    def read(self, out=None):
        """The residual, count float32: a new numpy array, or out (an array or tensor)."""
        out, m = _out(out, out, self.count, np.float32, "ErrorFeedback.read", "out")
        _check(lib.quire_ef_read(self.handle, m.addr, self.count), "ErrorFeedback.read")
        return out

    def write(self, residual):
        """Make residual (count float32, an array or tensor) the state."""
        m = _Mem(residual, "ErrorFeedback.write", "residual", np.float32, self.count,
                 copy_ok=True)
        _check(lib.quire_ef_write(self.handle, m.addr, self.count), "ErrorFeedback.write")

    def read_owner(self, out=None):
        """The owner residual of a requantized all-reduce (Comm.requant): as many float32
        as this rank's segment (Comm.chunk), empty until such an all-reduce ran."""
        n = int(lib.quire_ef_owner_len(self.handle))
        out, m = _out(out, out, n, np.float32, "ErrorFeedback.read_owner", "out")
        if n:
            _check(lib.quire_ef_read_owner(self.handle, m.addr, n), "ErrorFeedback.read_owner")
        return out

    def write_owner(self, residual):
        """Make residual (float32, an array or tensor, as long as this rank's segment of
        the next requantized all-reduce) the owner residual."""
        n = int(residual.numel() if hasattr(residual, "numel") else len(residual))
        m = _Mem(residual, "ErrorFeedback.write_owner", "residual", np.float32, n,
                 copy_ok=True)
        _check(lib.quire_ef_write_owner(self.handle, m.addr if n else None, n),
               "ErrorFeedback.write_owner")


def _place(x, where, what):
    if isinstance(x, Buffer):
        return x, 0
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], Buffer):
        return x
    raise _bad("QUIRE_ERR_INVALID", where, f"{what}: a quire.Buffer or (Buffer, offset), "
               f"not {type(x).__name__} (Context.alloc gives one; its numpy() view fills it)")


class Comm(_Child):
    """A communicator (quire_comm): every rank calls the same collectives in order."""
    _free_fn = staticmethod(lib.quire_comm_free)

    @property
    def rank(self):
        return int(lib.quire_comm_rank(self.handle))

    @property
    def size(self):
        return int(lib.quire_comm_size(self.handle))

    @property
    def requant(self):
        """The requantized all-gather (QUIRE_COMM_OPT_REQUANT): bfp all-reduces send the
        owners' requantized values instead of the sums (docs/collectives.md). Every rank
        must set the same, else every rank's all-reduce raises QUIRE_ERR_MISMATCH."""
        return bool(lib.quire_comm_options(self.handle) & _REQUANT)

    @requant.setter
    def requant(self, on):
        opts = lib.quire_comm_options(self.handle) & ~_REQUANT | (_REQUANT if on else 0)
        _check(lib.quire_comm_set_options(self.handle, opts), "Comm.requant")

    def chunk(self, count, k=None):
        """(offset, len) of rank k's part after a reduce-scatter (default: this rank)."""
        off, ln = ctypes.c_size_t(), ctypes.c_size_t()
        lib.quire_comm_chunk(count, self.size, self.rank if k is None else k,
                             ctypes.byref(off), ctypes.byref(ln))
        return off.value, ln.value

    def _wait(self, st, req, where):
        try:
            if st == 0:
                st = lib.quire_wait(req, _consts.WAIT_DEFAULT)
            detail = int(lib.quire_req_detail(req)) if req else 0
        finally:
            if req:
                lib.quire_req_free(req)
        if st:
            name = _consts.DETAILS.get(detail, str(detail))
            raise _error(st, where, f"about: {name}" if detail else None, detail)

    def _args(self, where, src, dst, count, format, op, ef):
        sb, so = _place(src, where, "src")
        db, do = _place(src if dst is None else dst, where, "dst")
        f = _fmt(format, where, ("bfp8", "bfp16", "fp16", "fp32", "int32"))
        if op not in ("sum", "mean"):
            raise _bad("QUIRE_ERR_INVALID", where, f"op {op!r}: 'sum' or 'mean'")
        if count is None:
            count = (sb.size - so) // 4
        if count <= 0 or so + 4 * count > sb.size:
            raise _bad("QUIRE_ERR_SIZE", where, f"{count} elements from offset {so} in a "
                       f"{sb.size}-byte src")
        if ef is not None and not isinstance(ef, ErrorFeedback):
            raise _bad("QUIRE_ERR_INVALID", where, "ef: a quire.ErrorFeedback (Context.ef)")
        return _n.AllreduceArgs(f, _consts.OPS[op], count, sb.ref(so), db.ref(do),
                                ef.handle if ef is not None else None)

    def allreduce(self, src, dst=None, count=None, format="bfp8", op="sum", ef=None):
        """All-reduce count fp32 (int32 for "int32") elements of Buffer src into dst
        (default: in place); ef: error feedback (bfp). Waits for the result."""
        a = self._args("Comm.allreduce", src, dst, count, format, op, ef)
        req = ctypes.c_void_p()
        st = lib.quire_allreduce(self.handle, ctypes.byref(a), ctypes.byref(req))
        self._wait(st, req, "Comm.allreduce")

    def reduce_scatter(self, src, dst, count=None, format="bfp8", op="sum", ef=None):
        """dst gets this rank's chunk (chunk()) of the all-reduce of src."""
        a = self._args("Comm.reduce_scatter", src, dst, count, format, op, ef)
        req = ctypes.c_void_p()
        st = lib.quire_reduce_scatter(self.handle, ctypes.byref(a), ctypes.byref(req))
        self._wait(st, req, "Comm.reduce_scatter")

    def broadcast(self, buf, nbytes, root=0):
        b, o = _place(buf, "Comm.broadcast", "buf")
        req = ctypes.c_void_p()
        st = lib.quire_broadcast(self.handle, b.ref(o), nbytes, root, ctypes.byref(req))
        self._wait(st, req, "Comm.broadcast")

    def allgather(self, src, dst, nbytes):
        sb, so = _place(src, "Comm.allgather", "src")
        db, do = _place(dst, "Comm.allgather", "dst")
        req = ctypes.c_void_p()
        st = lib.quire_allgather(self.handle, sb.ref(so), db.ref(do), nbytes,
                                 ctypes.byref(req))
        self._wait(st, req, "Comm.allgather")

    def barrier(self):
        req = ctypes.c_void_p()
        st = lib.quire_barrier(self.handle, ctypes.byref(req))
        self._wait(st, req, "Comm.barrier")

    def wire_bytes(self, count, format="bfp8"):
        """Bytes one rank sends for an all-reduce of count elements on the cards' ring,
        with this communicator's options."""
        return int(lib.quire_allreduce_wire_bytes_opt(_fmt(format, "Comm.wire_bytes"),
                                                      self.size, count,
                                                      lib.quire_comm_options(self.handle)))
