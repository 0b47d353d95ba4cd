#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeds of the fuzz corpus: one valid descriptor of each opcode (little-endian,
include/quire/cmd.h), addresses relative to the fuzzer's window (reloc byte
0x1f moves all four into it). python3 tests/fuzz/make_seeds.py tests/fuzz/corpus"""
import struct
import sys
from pathlib import Path

W = 0x300000000 + 0x10000  # the fuzzer's window base + its ring area


def cmd(op, flags=0, fmt=0, count=0, val_fmt=0, workers=0, src=0, dst=0, exp=0, aux=0, stride=0):
    return struct.pack("<BBHIIHHQQQQQII", op, flags, fmt, 0, count, val_fmt, workers,
                       src, dst, exp, aux, stride, 0, 0)


seeds = {
    "nop": cmd(1),
    "info": cmd(2, dst=W),
    "exponents_ef": cmd(3, flags=1, fmt=3, count=1000, src=W, exp=W + 0x40000, aux=W + 0x80000),
    "encode_bfp8": cmd(4, fmt=3, count=1000, src=W, dst=W + 0x40000, exp=W + 0x80000),
    "encode_shared": cmd(4, flags=2, fmt=4, count=4099, src=W, dst=W + 0x40000, exp=W + 0x80000),
    "encode_fp16": cmd(4, fmt=2, count=129, src=W, dst=W + 0x40000),
    "decode_sum": cmd(5, fmt=3, count=640, val_fmt=7, workers=4, src=W, dst=W + 0x40000, exp=W + 0x80000),
    "reduce_w4": cmd(6, fmt=7, count=300, val_fmt=5, workers=4, src=W, dst=W + 0x40000, stride=512),
    "mlp_load": cmd(7, count=52, src=W),
    "mlp_score": cmd(8, count=16, src=W, dst=W + 0x40000, aux=W + 0x80000),
    # Collectives: the fuzzer's card has no network, so communicators of one member.
    "comm_init": cmd(9, count=34, src=W),
    "comm_free": cmd(10, workers=1),
    "allreduce_ef": cmd(11, flags=5, fmt=3, count=1000, workers=1, src=W, dst=W + 0x40000,
                        exp=W + 0x80000, aux=W + 0xc0000),
    "barrier": cmd(12, workers=1),
    "reduce_scatter": cmd(13, fmt=1, count=640, workers=1, src=W, dst=W + 0x40000, stride=640),
    "allgather": cmd(14, count=100, workers=1, src=W, dst=W + 0x40000, stride=100),
    "broadcast": cmd(15, count=100, workers=1, dst=W),
}
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for name, body in seeds.items():
    assert len(body) == 64
    (out / name).write_bytes(bytes([0x10]) + body)
(out / "all_ops").write_bytes(bytes([0x10]) + b"".join(list(seeds.values())[:8]))
collective = ["comm_init", "allreduce_ef", "reduce_scatter", "allgather", "broadcast", "barrier",
              "comm_free"]
(out / "collectives").write_bytes(bytes([0x10]) + b"".join(seeds[k] for k in collective))
