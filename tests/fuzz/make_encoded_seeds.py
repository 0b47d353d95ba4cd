#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeds of the encoded-file fuzz corpus: one valid file (docs/codec-file.md) of each
format and of each width of a sum. python3 tests/fuzz/make_encoded_seeds.py tests/fuzz/corpus-encoded"""
import struct
import sys
import zlib
from pathlib import Path

VALUE_BYTES = {2: 2, 5: 1, 6: 2, 7: 4}  # fp16, int8, int16, int32


def encoded(fmt, val_fmt, n, workers):
    block = 0 if fmt == 2 else 64
    exps = b"" if fmt == 2 else bytes((e * 7) % 20 for e in range((n + 63) // 64))
    vals = bytes((i * 37) % 256 for i in range(n * VALUE_BYTES[val_fmt]))
    h = b"QUIRETNS" + struct.pack("<HHHHQI", 1, fmt, val_fmt, block, n, workers)
    return h + struct.pack("<I", zlib.crc32(h + exps + vals)) + exps + vals


seeds = {
    "fp16": encoded(2, 2, 5, 1),
    "bfp8": encoded(3, 5, 130, 1),
    "bfp16": encoded(4, 6, 65, 1),
    "bfp8_sum_w4_int16": encoded(3, 6, 64, 4),
    "bfp8_sum_w300_int32": encoded(3, 7, 10, 300),
    "bfp16_sum_w2_int32": encoded(4, 7, 1, 2),
}
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for name, body in seeds.items():
    (out / name).write_bytes(body)
