#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Scores of the int8 MLP (docs/contract-mlp.md) for a model image and candidates, from
numpy, written apart from hls/mlp.c and libquire: the reference of tests/test_sched.c,
which compares the scheduler's scores and choices (libquire's MLP_LOAD/MLP_SCORE on the
cpu backend) with these bit for bit. The image is read from its documented layout
(include/quire/mlp.h), not through quire's loader.

    mlp_score.py MODEL CALLS OUT
        CALLS, little-endian, one call after another: u32 C, u32 n0, int8 features[C][n0],
        u8 feasible[C]. OUT, per call: int32 scores[C], i32 choice (-1: none feasible).
    mlp_score.py --check-golden DIR
        The golden vectors of DIR (tests/data/mlp_golden/, written by mlp_ref.py, a pure
        Python implementation) scored again here: the same scores and choices, or exit 1.
"""
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

MAGIC, VERSION, HEADER = 0x504C4D51, 1, 32


def load(image: bytes):
    """The layers [(W[out][in] int64, b, M, s)] of a model image; ValueError if malformed."""
    if len(image) < HEADER:
        raise ValueError("shorter than the header")
    magic, version, nl, *rest = struct.unpack_from("<IHH5HHIII", image)
    widths, payload_len, crc = rest[:5], rest[6], rest[7]  # flags and reserved not read
    if magic != MAGIC or version != VERSION or not 1 <= nl <= 4:
        raise ValueError(f"magic 0x{magic:x}, version {version}, {nl} layers")
    payload = image[HEADER:HEADER + payload_len]
    if len(payload) != payload_len or zlib.crc32(payload) != crc:
        raise ValueError("payload truncated or its CRC wrong")
    layers, at = [], 0

    def take(n, dtype):
        nonlocal at
        a = np.frombuffer(payload, dtype=dtype, count=n, offset=at)
        at += (a.nbytes + 3) & ~3  # every array starts on 4 bytes
        return a.astype(np.int64)

    for li in range(nl):
        n_in, n_out = widths[li], widths[li + 1]
        w = take(n_out * n_in, "<i1").reshape(n_out, n_in)
        b = take(n_out, "<i4")
        m = s = None
        if li < nl - 1:
            m, s = take(n_out, "<i4"), take(n_out, "u1")
        layers.append((w, b, m, s))
    if widths[nl] != 1 or at != payload_len:
        raise ValueError(f"output width {widths[nl]}, {at} of {payload_len} payload bytes read")
    return widths[0], layers


def score(layers, x):
    """Scores (int64) of the candidates x[C][n0]: every value exact in int64 (the contract's
    bounds keep |acc * M + h| below 2^63); floor shifts are numpy's arithmetic >>."""
    for li, (w, b, m, s) in enumerate(layers):
        acc = x @ w.T + b  # int64: exact
        if np.any(acc >= 2**31) or np.any(acc < -(2**31)):
            raise ValueError(f"layer {li}: an accumulator outside int32")
        if li == len(layers) - 1:
            return acc[:, 0]
        h = np.where(s > 0, np.left_shift(1, np.maximum(s, 1) - 1), 0)
        x = np.clip((acc * m + h) >> s, 0, 127)
    raise AssertionError("unreachable")


def choose(scores, feasible):
    """The feasible candidate with the largest score, the lowest index among equals; -1."""
    idx = np.flatnonzero(feasible)
    if idx.size == 0:
        return -1
    return int(idx[np.argmax(scores[idx])])  # argmax: the first of equal maxima


def check_golden(folder: Path):
    bad = 0
    cases = sorted(folder.glob("*.vec"))
    for vec in cases:
        n0_model, layers = load(vec.with_suffix(".qmlp").read_bytes())
        raw = vec.read_bytes()
        magic, c, n0 = struct.unpack_from("<III", raw)
        at = 12
        x = np.frombuffer(raw, "<i1", c * n0, at).astype(np.int64).reshape(c, n0)
        at += c * n0
        feas = np.frombuffer(raw, "u1", c, at)
        at += c
        want = np.frombuffer(raw, "<i4", c, at)
        (want_choice,) = struct.unpack_from("<i", raw, at + 4 * c)
        got = score(layers, x)
        same = magic == 0x564C4D51 and n0 == n0_model and np.array_equal(got, want)
        same = same and choose(got, feas) == want_choice
        print(("ok   " if same else "FAIL ") + f"{vec.name}: {c} candidates, numpy vs mlp_ref.py")
        bad += not same
    print(f"mlp numpy reference: {len(cases) - bad} passed, {bad} failed")
    return 1 if bad or not cases else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--check-golden":
        return check_golden(Path(argv[2]))
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    n0_model, layers = load(Path(argv[1]).read_bytes())
    raw = Path(argv[2]).read_bytes()
    out, at = b"", 0
    while at < len(raw):
        c, n0 = struct.unpack_from("<II", raw, at)
        if n0 != n0_model or len(raw) < at + 8 + c * n0 + c:
            raise ValueError(f"{argv[2]}: {c} candidates of {n0} features at byte {at}, "
                             f"the model takes {n0_model}")
        x = np.frombuffer(raw, "<i1", c * n0, at + 8).astype(np.int64).reshape(c, n0)
        feas = np.frombuffer(raw, "u1", c, at + 8 + c * n0)
        at += 8 + c * n0 + c
        scores = score(layers, x)
        out += scores.astype("<i4").tobytes() + struct.pack("<i", choose(scores, feas))
    Path(argv[3]).write_bytes(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
