#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden vectors of the MLP engine, from an implementation of docs/contract-mlp.md written
apart from hls/mlp.c: Python integers, which never overflow, and Python's
floor shift. Writes, per case, a model image (layout of include/quire/mlp.h)
and a vectors file that tests/test_mlp.c checks bit for bit.

    python3 tests/ref/mlp_ref.py OUTDIR

Vectors file, little-endian: u32 magic 'QMLV', u32 C, u32 n0, then
int8 features[C][n0], u8 feasible[C], int32 scores[C], i32 choice (-1: none).
"""
import math
import random
import struct
import sys
import zlib
from pathlib import Path

MAX_W = 256


def pad4(b: bytes) -> bytes:
    return b + bytes(-len(b) % 4)


def requantize(acc, m, s):
    y = (acc * m + ((1 << (s - 1)) if s > 0 else 0)) >> s  # floor: round half up
    return min(max(y, 0), 127)


def infer(layers, x):
    for li, (w, b, m, s) in enumerate(layers):
        acc = [b[o] + sum(wi * xi for wi, xi in zip(w[o], x)) for o in range(len(w))]
        assert all(-(2**31) <= a < 2**31 for a in acc)
        if li == len(layers) - 1:
            return acc[0]
        x = [requantize(acc[o], m[o], s[o]) for o in range(len(w))]


def image(widths, layers):
    payload = b""
    for li, (w, b, m, s) in enumerate(layers):
        payload += pad4(bytes(v & 0xFF for row in w for v in row))
        payload += struct.pack("<%di" % len(b), *b)
        if li < len(layers) - 1:
            payload += struct.pack("<%di" % len(m), *m)
            payload += pad4(bytes(s))
    wid = list(widths) + [0] * (5 - len(widths))
    header = struct.pack("<IHH5HHIII", 0x504C4D51, 1, len(layers), *wid, 0,
                         len(payload), zlib.crc32(payload), 0)
    assert len(header) == 32
    return header + payload


def random_model(rng, widths, extreme=False):
    layers = []
    for li in range(len(widths) - 1):
        n_in, n_out = widths[li], widths[li + 1]
        w = [[rng.randint(-128, 127) for _ in range(n_in)] for _ in range(n_out)]
        # extreme: a third of the channels at the bounds (bias, M, shift), the rest ordinary
        wild = [extreme and rng.random() < 1 / 3 for _ in range(n_out)]
        b = [rng.randint(-(2**30) + 1, 2**30 - 1) if wild[o] else rng.randint(-5000, 5000)
             for o in range(n_out)]
        m, s = [], []
        if li < len(widths) - 2:
            for o in range(n_out):
                if wild[o]:
                    mm = rng.choice([0, 1, 2**31 - 1, rng.randint(2**30, 2**31 - 1)])
                    ss = rng.choice([0, 1, 31, 46, 62])
                else:
                    # M / 2^s near 40 / typical |acc|: activations spread over 0..127
                    typical = math.sqrt(n_in) * 74 * 74
                    mm = rng.randint(2**30, 2**31 - 1)
                    ss = 30 + math.ceil(math.log2(typical / 40)) + rng.randint(-1, 1)
                m.append(mm)
                s.append(ss)
        layers.append((w, b, m, s))
    return layers


def write_case(out: Path, name, rng, widths, c, extreme=False, ties=False, none_feasible=False):
    layers = random_model(rng, widths, extreme)
    feats = [[rng.randint(-128, 127) for _ in range(widths[0])] for _ in range(c)]
    if ties:  # duplicates: equal scores, the lowest index must win
        for k in range(1, c, 3):
            feats[k] = list(feats[k - 1])
    feas = [0 if none_feasible else rng.choice([1, 1, 1, 0]) for _ in range(c)]
    scores = [infer(layers, f) for f in feats]
    best = -1
    for k in range(c):
        if feas[k] and (best < 0 or scores[k] > scores[best]):
            best = k
    (out / (name + ".qmlp")).write_bytes(image(widths, layers))
    vec = struct.pack("<III", 0x564C4D51, c, widths[0])
    vec += bytes(v & 0xFF for f in feats for v in f) + bytes(feas)
    vec += struct.pack("<%di" % c, *scores) + struct.pack("<i", best)
    (out / (name + ".vec")).write_bytes(vec)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20261122)
    write_case(out, "l1_16", rng, [16, 1], 40)
    write_case(out, "l2_32x64", rng, [32, 64, 1], 100, ties=True)
    write_case(out, "l3_extreme", rng, [64, 48, 24, 1], 50, extreme=True)
    write_case(out, "l4_256", rng, [256, 128, 64, 32, 1], 64)
    write_case(out, "l2_none_feasible", rng, [8, 8, 1], 10, none_feasible=True)
    write_case(out, "l2_wide_c1024", rng, [12, 256, 1], 1024, ties=True)


if __name__ == "__main__":
    main()
