#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent implementation of the codec contract (docs/contract-bfp.md) in exact rational
arithmetic, and a check of `quire codec reduce` against it.

Nothing here shares code with quire: values are Python Fractions, rounding to
fp32 is done here from first principles (round to nearest, ties to even,
subnormals, overflow to Inf).

    python3 tests/ref/bfp_ref.py check-reduce QUIRE_BINARY [--seed S] [--max-workers W]

writes W random gradient files (mixed random and edge-case blocks), runs
`QUIRE codec reduce` for bfp8 and bfp16, sum and mean, W = 1 .. max, and
compares every output bit with the reference. Prints one line per case and a
summary line 'N passed, N failed'; exits non-zero on any mismatch.
"""
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

BLOCK = 64
NAN_BITS = 0x7FC00000


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_value(bits: int) -> Fraction:
    """Exact value of a finite fp32 bit pattern."""
    sign = -1 if bits >> 31 else 1
    e = (bits >> 23) & 0xFF
    m = bits & 0x7FFFFF
    if e == 0:
        return sign * Fraction(m, 2**149)
    return sign * Fraction(m | 0x800000) * Fraction(2) ** (e - 150)


def round_f32(v: Fraction) -> int:
    """Bits of v rounded to fp32, nearest, ties to even."""
    if v == 0:
        return 0
    sign = 0x80000000 if v < 0 else 0
    a = abs(v)
    # exponent e with 2^e <= a < 2^(e+1)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -126)  # below: subnormal, fixed spacing 2^-149
    ulp = Fraction(2) ** (e - 23)
    q, r = divmod(a, ulp)
    q = int(q)
    if r > ulp / 2 or (r == ulp / 2 and q % 2 == 1):
        q += 1
    if q == 2**24:  # carried into the next binade
        q, e = 2**23, e + 1
    if e > 127:
        return sign | 0x7F800000
    if q < 2**23:  # subnormal
        return sign | q
    return sign | ((e + 127) << 23) | (q - 2**23)


def block_exponent(bits_list) -> int:
    if any((b & 0x7F800000) == 0x7F800000 for b in bits_list):
        return 127
    m = max(abs(f32_value(b)) for b in bits_list)
    if m == 0:
        return -126
    e = math.frexp(float(m))[1]  # m = f * 2^e, f in [0.5, 1): ilogb(m) + 1 = e
    return min(max(e, -125), 126)


def quantize(bits: int, eg: int, mant: int) -> int:
    if eg in (127, -126):
        return 0
    limit = 127 if mant == 7 else 32767
    v = f32_value(bits) * Fraction(2) ** (mant - eg)
    q = round(v)  # Fraction rounds half to even
    return max(-limit, min(limit, q))


def allreduce(workers, mant: int, mean: bool):
    n = len(workers[0])
    out = []
    for start in range(0, n, BLOCK):
        blocks = [w[start:start + BLOCK] for w in workers]
        eg = max(block_exponent(b) for b in blocks)
        for j in range(len(blocks[0])):
            if eg == 127:
                y = NAN_BITS
            elif eg == -126:
                y = 0
            else:
                s = sum(quantize(b[j], eg, mant) for b in blocks)
                y = round_f32(Fraction(s) * Fraction(2) ** (eg - mant))
            if mean and y != NAN_BITS:
                if (y & 0x7F800000) == 0x7F800000:
                    pass  # Inf / W = Inf
                else:
                    y = round_f32(f32_value(y) / len(workers))
            out.append(y)
    return out


def random_gradients(rng: random.Random, n: int):
    """fp32 bit patterns, one kind per 64-element block, with specials sprinkled."""
    bits = []
    for start in range(0, n, BLOCK):
        kind = rng.randrange(9)
        scale = rng.randint(-40, 20)
        for j in range(min(BLOCK, n - start)):
            if kind == 0:
                b = rng.choice([0, 0x80000000])
            elif kind == 1:
                b = rng.randrange(1, 0x800000) | rng.choice([0, 0x80000000])
            elif kind == 2:
                b = rng.randrange(0x7E800000, 0x7F800000) | rng.choice([0, 0x80000000])
            elif kind == 3:  # exact ties: max 1.0, (k + 1/2) / 64
                b = f32_bits(1.0 if j == 0 else (rng.randrange(127) - 63.5) / 64)
            elif kind == 4:
                b = rng.randrange(0, 0x7F800000) | rng.choice([0, 0x80000000])
            else:
                b = f32_bits(math.ldexp(rng.gauss(0, 1), scale))
            bits.append(b)
        if rng.randrange(12) == 0:
            j = start + rng.randrange(min(BLOCK, n - start))
            bits[j] = rng.choice([0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x7FA00001])
    return bits


def check_reduce(quire: str, seed: int, max_workers: int) -> int:
    rng = random.Random(seed)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="quire-ref-") as tmp:
        for w in range(1, max_workers + 1):
            n = rng.choice([1, 63, 64, 65, 640 + w, 1000 + 17 * w])
            workers = [random_gradients(rng, n) for _ in range(w)]
            paths = []
            for k, bits in enumerate(workers):
                p = os.path.join(tmp, "w%d.f32" % k)
                with open(p, "wb") as f:
                    f.write(struct.pack("<%dI" % n, *bits))
                paths.append(p)
            for fmt, mant in (("bfp8", 7), ("bfp16", 15)):
                for mean in (False, True):
                    out = os.path.join(tmp, "out.f32")
                    cmd = [quire, "codec", "reduce", "--format", fmt, "--out", out]
                    cmd += (["--mean"] if mean else []) + paths
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    name = "reduce %s W=%d n=%d %s" % (fmt, w, n, "mean" if mean else "sum")
                    if r.returncode != 0:
                        print("FAIL %s: exit %d: %s" % (name, r.returncode, r.stderr.strip()))
                        failed += 1
                        continue
                    with open(out, "rb") as f:
                        got = list(struct.unpack("<%dI" % n, f.read()))
                    want = allreduce(workers, mant, mean)
                    bad = [i for i in range(n) if got[i] != want[i]]
                    if bad:
                        i = bad[0]
                        print("FAIL %s: %d elements differ, first %d: %08x, reference %08x"
                              % (name, len(bad), i, got[i], want[i]))
                        failed += 1
                    else:
                        print("ok   %s" % name)
                        passed += 1
    print("reference check: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0] != "check-reduce":
        print(__doc__)
        return 2
    seed, max_w = 1, 8
    if "--seed" in args:
        seed = int(args[args.index("--seed") + 1])
    if "--max-workers" in args:
        max_w = int(args[args.index("--max-workers") + 1])
    return check_reduce(args[1], seed, max_w)


if __name__ == "__main__":
    sys.exit(main())
