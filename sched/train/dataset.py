# SPDX-License-Identifier: MIT
"""Reads the file `quire sched dataset` writes (docs/sched.md, "The dataset file")."""
import struct

import numpy as np

MAGIC = 0x53445351  # "QSDS"


class Decision:
    """One labelled decision: features [count, F], feasible and rolled-out masks, the
    rollouts' wait, run and fragmentation sums and pending pods, the base (FGD) choice."""

    __slots__ = ("features", "feasible", "rolled", "wait", "run", "frag", "pending",
                 "base", "load", "seed", "grid")


def read(path):
    """(gains [F], list of Decision). Raises ValueError naming the offset on a bad file."""
    data = open(path, "rb").read()
    if len(data) < 16:
        raise ValueError(f"{path}: offset 0: truncated header")
    magic, version, nf, _ = struct.unpack_from("<4I", data, 0)
    if magic != MAGIC or version != 1:
        raise ValueError(f"{path}: offset 0: not a version 1 sched dataset")
    at = 16
    gains = np.frombuffer(data, "<f4", nf, at).copy()
    at += 4 * nf
    out = []
    while at < len(data):
        start = at
        if at + 16 > len(data):
            raise ValueError(f"{path}: offset {start}: truncated record")
        count, base, load, seed = struct.unpack_from("<IifI", data, at)
        at += 16
        need = count * (4 * nf + 1 + 1 + 24 + 4)
        if at + need > len(data) or not 0 <= base < count:
            raise ValueError(f"{path}: offset {start}: bad or truncated record")
        d = Decision()
        d.features = np.frombuffer(data, "<f4", count * nf, at).reshape(count, nf).copy()
        at += 4 * nf * count
        d.feasible = np.frombuffer(data, "u1", count, at).astype(bool)
        at += count
        d.rolled = np.frombuffer(data, "u1", count, at).astype(bool)
        at += count
        d.wait = np.frombuffer(data, "<f8", count, at).copy()
        at += 8 * count
        d.run = np.frombuffer(data, "<f8", count, at).copy()
        at += 8 * count
        d.frag = np.frombuffer(data, "<f8", count, at).copy()
        at += 8 * count
        d.pending = np.frombuffer(data, "<u4", count, at).copy()
        at += 4 * count
        d.base, d.load, d.seed = base, load, seed
        out.append(d)
    return gains, out
