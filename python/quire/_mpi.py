# SPDX-License-Identifier: MIT
"""Communicators over MPI from Python (quire_comm_from_mpi of libquire_mpi): W ranks on
the cpu backend, the host's ring with MPI's point-to-point messages as links; or cards
whose addresses MPI trades. MPI is OpenMPI's libmpi (Debian's openmpi-bin), loaded
global so that its plugins find it; with mpi4py, its communicators are taken too."""
import atexit
import ctypes
import os

from . import _native as _n
from ._base import _bad

_libs = None


def _load():
    """libmpi (global) and libquire_mpi, the one beside the libquire loaded."""
    global _libs
    if _libs is None:
        try:
            mpi = ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise _bad("QUIRE_ERR_NOT_SUPPORTED", "Context.comm_from_mpi",
                       f"OpenMPI's libmpi.so.40: {e} (apt-get install openmpi-bin)") from e
        errors = []
        for p in (os.path.join(os.path.dirname(_n.path), "libquire_mpi.so.0"),
                  "libquire_mpi.so.0"):
            try:
                qm = ctypes.CDLL(p)
                break
            except OSError as e:
                errors.append(str(e))
        else:
            raise _bad("QUIRE_ERR_NOT_SUPPORTED", "Context.comm_from_mpi",
                       "libquire_mpi: " + "; ".join(errors) + " (built when MPI is installed)")
        qm.quire_comm_from_mpi_timeout.restype = ctypes.c_int
        qm.quire_comm_from_mpi_timeout.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                   ctypes.c_int,
                                                   ctypes.POINTER(ctypes.c_void_p)]
        _libs = mpi, qm
    return _libs


def _finalize(mpi):
    done = ctypes.c_int()
    mpi.MPI_Finalized(ctypes.byref(done))
    if not done.value:
        mpi.MPI_Finalize()


def handle(comm):
    """The MPI_Comm to use: MPI_COMM_WORLD for None (MPI initialised here if nobody has,
    finalised at exit), an mpi4py communicator's handle, or an int that is one."""
    mpi, qm = _load()
    inited = ctypes.c_int()
    mpi.MPI_Initialized(ctypes.byref(inited))
    if not inited.value:
        if mpi.MPI_Init(None, None) != 0:
            raise _bad("QUIRE_ERR_NOT_SUPPORTED", "Context.comm_from_mpi", "MPI_Init failed")
        atexit.register(_finalize, mpi)
    if comm is None:
        # OpenMPI's MPI_COMM_WORLD is the address of this object (its ABI: a pointer).
        return ctypes.addressof(ctypes.c_char.in_dll(mpi, "ompi_mpi_comm_world")), qm
    if isinstance(comm, int):
        return comm, qm
    try:
        from mpi4py import MPI
        return MPI._handleof(comm), qm
    except (ImportError, TypeError, AttributeError) as e:
        raise _bad("QUIRE_ERR_INVALID", "Context.comm_from_mpi",
                   f"comm: None (MPI_COMM_WORLD), an MPI_Comm handle or an mpi4py "
                   f"communicator, not {type(comm).__name__}") from e
