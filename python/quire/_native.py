# SPDX-License-Identifier: MIT
"""libquire through ctypes: finding the library and declaring the C API's prototypes
(host/include/quire.h). Nothing here is for users; the package's other modules are."""
import ctypes
import os

from . import _consts

try:  # written by `make install`: the LIBDIR of that install
    from ._install import LIBDIR as _INSTALL_LIBDIR
except ImportError:
    _INSTALL_LIBDIR = None

SONAME = "libquire.so.0"


def _candidates():
    env = os.environ.get("QUIRE_LIB")
    if env:
        return [env]  # asked for by name: that one or an error, never another
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    if _INSTALL_LIBDIR:
        out.append(os.path.join(_INSTALL_LIBDIR, SONAME))
    # The build tree: build/python/quire/ beside build/lib/.
    out.append(os.path.normpath(os.path.join(here, "..", "..", "lib", SONAME)))
    out.append(SONAME)  # the dynamic linker's own search (ldconfig, LD_LIBRARY_PATH)
    return out


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            return ctypes.CDLL(path, use_errno=True), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError("quire: cannot load libquire (set QUIRE_LIB to its path): " +
                      "; ".join(errors))


lib, path = _load()

c_int, c_u32, c_size, c_vp = ctypes.c_int, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_void_p
c_char_p = ctypes.c_char_p


class Ref(ctypes.Structure):
    _fields_ = [("buf", c_vp), ("offset", c_size)]


class AllreduceArgs(ctypes.Structure):
    _fields_ = [("format", c_int), ("op", c_int), ("count", c_size), ("src", Ref), ("dst", Ref),
                ("ef", c_vp)]


class _Net(ctypes.Structure):
    _fields_ = [("link", c_u32), ("addr", c_u32), ("tx_frames", c_u32), ("rx_frames", c_u32),
                ("rx_errors", c_u32), ("tx_drops", c_u32), ("tx_bytes", ctypes.c_uint64),
                ("retransmits", ctypes.c_uint64)]


class _Block(ctypes.Structure):
    _fields_ = [("offset", c_u32), ("type", c_u32), ("version", c_u32)]


class Info(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_char * 16), ("board", ctypes.c_char * 48),
                ("if_version", c_u32), ("fw_build", c_u32), ("fw_state", c_u32),
                ("caps", c_u32), ("clock_hz", c_u32), ("hw_build", ctypes.c_uint64),
                ("mem_bytes", ctypes.c_uint64), ("cmds_ok", c_u32), ("cmds_err", c_u32),
                ("net", _Net), ("n_blocks", c_u32), ("blocks", _Block * 16)]


class Encoded(ctypes.Structure):
    _fields_ = [("format", c_int), ("val_format", c_int), ("workers", c_u32),
                ("n", ctypes.c_uint64), ("exp", c_vp), ("vals", c_vp)]


PP = ctypes.POINTER(c_vp)
_PROTOS = {
    "quire_version": (c_char_p, []),
    "quire_strerror": (c_char_p, [c_int]),
    "quire_codec_use": (c_int, [c_int]),
    "quire_codec_impl_name": (c_char_p, []),
    "quire_codec_impl_parse": (c_int, [c_char_p]),
    "quire_codec_exponents": (c_int, [c_int, c_size, c_vp, c_vp, c_vp]),
    "quire_codec_encode": (c_int, [c_int, c_size, c_vp, c_vp, c_vp, c_vp, c_vp]),
    "quire_codec_decode": (c_int, [c_int, c_int, c_size, c_vp, c_vp, c_u32, c_vp]),
    "quire_codec_sum": (c_int, [c_int, c_int, c_u32, c_size, PP, c_vp, c_vp]),
    "quire_codec_max_exponents": (c_int, [c_u32, c_size, PP, c_vp]),
    "quire_codec_allreduce": (c_int, [c_int, c_int, c_u32, c_size, PP, PP, c_vp]),
    "quire_format_bytes": (c_size, [c_int, c_size]),
    "quire_encoded_write": (c_int, [c_char_p, ctypes.POINTER(Encoded)]),
    "quire_encoded_read": (c_int, [c_char_p, ctypes.POINTER(Encoded)]),
    "quire_encoded_free": (None, [ctypes.POINTER(Encoded)]),
    "quire_encoded_fault": (c_char_p, [c_char_p]),
    "quire_open": (c_int, [c_char_p, PP]),
    "quire_open_fault": (c_char_p, []),
    "quire_close": (None, [c_vp]),
    "quire_set_timeout": (None, [c_vp, c_int]),
    "quire_reset": (c_int, [c_vp]),
    "quire_get_info": (c_int, [c_vp, ctypes.POINTER(Info)]),
    "quire_backend_caps": (c_u32, [c_vp]),
    "quire_buf_alloc": (c_int, [c_vp, c_size, PP]),
    "quire_buf_ptr": (c_vp, [c_vp]),
    "quire_buf_size": (c_size, [c_vp]),
    "quire_buf_free": (None, [c_vp]),
    "quire_card_address": (c_int, [c_vp, ctypes.POINTER(ctypes.c_uint16)]),
    "quire_comm_rendezvous": (c_int, [c_vp, c_char_p, c_int, c_int, c_int, PP]),
    "quire_comm_self": (c_int, [c_vp, PP]),
    "quire_comm_rank": (c_int, [c_vp]),
    "quire_comm_size": (c_int, [c_vp]),
    "quire_comm_free": (None, [c_vp]),
    "quire_comm_chunk": (None, [c_size, c_int, c_int, ctypes.POINTER(c_size),
                                ctypes.POINTER(c_size)]),
    "quire_ef_create": (c_int, [c_vp, c_size, PP]),
    "quire_ef_reset": (None, [c_vp]),
    "quire_ef_free": (None, [c_vp]),
    "quire_ef_read": (c_int, [c_vp, c_vp, c_size]),
    "quire_ef_write": (c_int, [c_vp, c_vp, c_size]),
    "quire_allreduce": (c_int, [c_vp, ctypes.POINTER(AllreduceArgs), PP]),
    "quire_reduce_scatter": (c_int, [c_vp, ctypes.POINTER(AllreduceArgs), PP]),
    "quire_broadcast": (c_int, [c_vp, Ref, c_size, c_int, PP]),
    "quire_allgather": (c_int, [c_vp, Ref, Ref, c_size, PP]),
    "quire_barrier": (c_int, [c_vp, PP]),
    "quire_allreduce_wire_bytes": (ctypes.c_uint64, [c_int, c_int, c_size]),
    "quire_allreduce_wire_bytes_opt": (ctypes.c_uint64, [c_int, c_int, c_size, ctypes.c_uint]),
    "quire_comm_set_options": (c_int, [c_vp, ctypes.c_uint]),
    "quire_comm_options": (ctypes.c_uint, [c_vp]),
    "quire_ef_owner_len": (c_size, [c_vp]),
    "quire_ef_read_owner": (c_int, [c_vp, c_vp, c_size]),
    "quire_ef_write_owner": (c_int, [c_vp, c_vp, c_size]),
    "quire_wait": (c_int, [c_vp, c_int]),
    "quire_req_detail": (c_u32, [c_vp]),
    "quire_req_free": (None, [c_vp]),
}
for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args

WAIT_DEFAULT = _consts.WAIT_DEFAULT
STATUS = _consts.STATUS
