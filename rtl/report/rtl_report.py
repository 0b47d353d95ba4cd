#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Resource estimate of quire's RTL: Yosys synth_xilinx per top, cells counted.

Usage: rtl_report.py [--timeout S] [--work DIR] [--out FILE] [--optional TOP]...
                     --top NAME SRC... [--top NAME SRC...] [--param TOP:NAME=VALUE]...
                     [--blackbox TOP:MODULE]... [--sum NAME=TOP+TOP...]...

--blackbox leaves MODULE's instances in TOP as empty boxes (its body removed, its ports
kept), counted in nothing; --sum prints a line of several tops' figures added, so that a
top synthesized with other tops as boxes is reported whole (the card top: its own modules,
plus the core and the engine tops, each in the card once).

Each top is synthesized on its own by `yosys -p 'synth_xilinx -family xcup -noiopad
-top TOP; stat -top TOP'` (UltraScale+; no I/O buffers: a block inside a shell, not a
chip), its submodules synthesized each once and summed over their instances by
`stat -top` (its "design hierarchy" total; not -flatten: on the flattened engines,
Yosys's resource sharing pass runs for many minutes over the 16 lanes of adders),
under a time bound, and its mapped cells are counted as LUT (LUT1..LUT6), FF (FD*),
DSP (DSP48E2), BRAM (RAMB36E2 + RAMB18E2/2, in BRAM36) and URAM (URAM288); LUTs used
as memory (RAM*M, RAM*X1*) and shift registers (SRL*) are counted apart. The shares
are of two devices; every figure is a Yosys estimate, not a vendor synthesis, and no
Fmax is claimed.

Yosys 0.23 (Debian 12) reads SystemVerilog packages and `pkg::NAME`, but not an
`import pkg::*;` (neither in a module header nor anywhere else) nor a cast to a user
type `type_t'(x)`. So every top is first flattened into one file under --work: each
package imported is written once at compilation-unit scope (its body without the
`package`/`endpackage` lines), the imports are
dropped, as is `pkg::` before a name of it (a name defined twice is an error unless
both are the same line; a package only named as `pkg::NAME` stays a package), `int'(e)`
becomes `$signed(32'(e))`, and `type_t'(` becomes `W'(` with W the width of a typedef declared
`typedef [enum] logic [H:L] type_t`. Nor does it read a packed array of more than
one dimension (`logic [Lanes-1:0][31:0] x`): such a declaration becomes the same
bits in one dimension (`logic [(Lanes)*32-1:0] x`; a packed array's element 0 is
its low bits) and its selects are rewritten to match: `x[i]` to `x[(i)*32 +: 32]`,
`x[i][b]` to `x[(i)*32 + (b)]`, `x[i][h:l]` to `x[(i)*32 + (l) +: (h)-(l)+1]`.
Three more it lacks, used by the core: `x inside {a, b}` becomes `(x == a || x == b)`
(a set of single values only); a named assignment pattern `v = '{f: e, g: d};` becomes
`v.f = e; v.g = d;`; and `return e;` in a function becomes `name = e;`, which is the
same only where a return ends the function's path, as in the core's functions (each
is the last statement of a case item). Nothing else is changed; the sources are not.
"""
import argparse
import os
import re
import subprocess
import sys
import time

# Device totals: LUT, FF, DSP48E2, BRAM36 and URAM288 of the XCVU9P (AWS F1) and of
# the XCU55C (Alveo U55C, a rebadged XCVU37P), as AMD/Xilinx's selection guides give
# them (Virtex UltraScale+ product tables; Alveo U55C data sheet DS978). Checked here
# against a public device table (XCVU9P: 1,182,240 LUTs, 2,364,480 FFs, 2,160 BRAM36,
# 960 URAM, 6,840 DSP; XCVU37P/XCU280/XCU55C: 162,960 CLBs, 1,303,680 LUTs, 2,016
# BRAM36, 960 URAM, 9,024 DSP); an UltraScale+ CLB holds 8 LUTs and 16 FFs (UG574),
# so the XCU55C has 2,607,360 FFs. The whole device: a shell (the F1 shell, the
# Vitis platform) takes its part first, which these shares do not subtract.
DEVICES = [
    ("VU9P (AWS F1)", {"LUT": 1182240, "FF": 2364480, "DSP": 6840, "BRAM36": 2160, "URAM": 960}),
    ("XCU55C (Alveo U55C)", {"LUT": 1303680, "FF": 2607360, "DSP": 9024, "BRAM36": 2016, "URAM": 960}),
]
LABEL = "Yosys estimate, not a vendor synthesis; no Fmax claimed"


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def flatten(srcs):
    """The sources of one top as one file Yosys 0.23 reads (see the module's comment)."""
    packages, modules = {}, []
    for path in srcs:
        text = read(path)
        m = re.search(r"^\s*package\s+(\w+)\s*;(.*?)^\s*endpackage\b", text, re.M | re.S)
        if m:
            packages[m.group(1)] = (path, m.group(2))
        else:
            modules.append((path, text))
    imported = []
    import_re = re.compile(r"^\s*import\s+(\w+)::\*\s*;[ \t]*\n", re.M)
    for _, text in modules:
        for name in import_re.findall(text):
            if name not in packages:
                raise SystemExit(f"rtl_report: package {name} imported but not among the sources")
            if name not in imported:
                imported.append(name)
    out, defined = [], {}
    name_re = re.compile(r"\b(?:localparam|parameter)\b[^=;]*?\b(\w+)\s*=|\btypedef\b[^;]*?\b(\w+)\s*;", re.S)
    for name in imported:
        path, body = packages[name]
        kept = []
        for line in body.splitlines(keepends=True):
            m = name_re.search(line)
            if m and line.rstrip().endswith(";"):
                ident = m.group(1) or m.group(2)
                if ident in defined:
                    # The same definition in two packages (a status code each
                    # generated from include/quire/) is written once.
                    if defined[ident][1] != line.strip():
                        raise SystemExit(f"rtl_report: {ident} defined in {defined[ident][0]} and {name}")
                    continue
                defined[ident] = (name, line.strip())
            kept.append(line)
        body = "".join(kept)
        for m in name_re.finditer(body):
            ident = m.group(1) or m.group(2)
            if ident not in defined:
                defined[ident] = (name, None)
        out.append(f"// package {name} ({path}) at compilation-unit scope\n{body}\n")
    widths = {}
    for text in [b for _, b in packages.values()] + [t for _, t in modules]:
        for m in re.finditer(r"\btypedef\s+(?:enum\s+)?logic\s*\[\s*(\d+)\s*:\s*(\d+)\s*\]\s*(?:\{[^}]*\}\s*)?(\w+)\s*;", text, re.S):
            widths[m.group(3)] = int(m.group(1)) - int(m.group(2)) + 1
    for name, (path, body) in packages.items():
        if name not in imported:
            # Only named as `pkg::NAME`: left a package, which Yosys reads.
            out.append(f"// {path}\npackage {name};\n{lower_sv(body)}\nendpackage\n")
    for path, text in modules:
        text = lower_sv(flatten_packed(import_re.sub("", text)))
        for name in imported:
            text = re.sub(rf"\b{name}::", "", text)
        for name, width in widths.items():
            text = re.sub(rf"\b{name}'\(", f"{width}'(", text)
        out.append(f"// {path}\n{text}\n")
    return "".join(out)


def close_bracket(text, i):
    """Index of the `]` closing the `[` at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "[":
            depth += 1
        elif text[j] == "]":
            depth -= 1
            if depth == 0:
                return j
    raise SystemExit("rtl_report: unbalanced [ in a source")


def flatten_packed(text):
    """Packed arrays of two dimensions, `[A:0][H:0]`, as one dimension (see the module's comment)."""
    widths = {}
    decl_re = re.compile(r"\blogic\s*\[\s*([^\[\]:]+?)\s*:\s*0\]\s*\[\s*([^\[\]:]+?)\s*:\s*0\s*\]([^;\n]*)")

    def size(hi):
        """The element count of `[hi:0]`."""
        if hi.isdigit():
            return int(hi) + 1
        return hi[:-2].strip() if hi.replace(" ", "").endswith("-1") else f"({hi}+1)"

    def decl(m):
        width = size(m.group(2))
        for name in re.findall(r"\b([A-Za-z_]\w*)\b", m.group(3).split("//")[0].split("=")[0]):
            widths[name] = width
        return f"logic [({size(m.group(1))})*{width}-1:0]{m.group(3)}"
    text = decl_re.sub(decl, text)
    for name, width in widths.items():
        out, pos = [], 0
        for m in re.finditer(rf"\b{name}\[", text):
            if m.start() < pos:
                continue
            i = m.end() - 1
            j = close_bracket(text, i)
            index = text[i + 1:j]
            k = j + 1
            if k < len(text) and text[k] == "[":
                l2 = close_bracket(text, k)
                inner = text[k + 1:l2]
                if ":" in inner and "+:" not in inner and "-:" not in inner:
                    hi, lo = inner.split(":")
                    sel = f"[({index})*{width} + ({lo.strip()}) +: ({hi.strip()})-({lo.strip()})+1]"
                else:
                    sel = f"[({index})*{width} + ({inner})]"
                end = l2 + 1
            else:
                sel = f"[({index})*{width} +: {width}]"
                end = j + 1
            out.append(text[pos:i] + sel)
            pos = end
        out.append(text[pos:])
        text = "".join(out)
    return text


def blackbox(text, name):
    """text with module NAME's body removed and the module marked (* blackbox *): its
    ports and parameters stay, so that an instance of it is a cell Yosys leaves alone
    and counts nothing in (the card memory: the board's DRAM, not the FPGA's fabric)."""
    m = re.search(rf"^module\s+{name}\b", text, re.M)
    if not m:
        raise SystemExit(f"rtl_report: --blackbox: no module {name}")
    depth, j, seen = 0, m.end(), False
    while j < len(text):
        if text.startswith("//", j):
            j = text.index("\n", j)
            continue
        ch = text[j]
        if ch == "(":
            depth, seen = depth + 1, True
        elif ch == ")":
            depth -= 1
        elif ch == ";" and depth == 0 and seen:
            break
        j += 1
    end = text.index("endmodule", j)
    return text[:m.start()] + "(* blackbox *)\n" + text[m.start():j + 1] + "\n" + text[end:]


def split_top(text):
    """text split on the commas outside brackets and braces."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def int_casts(text):
    """`int'(e)` as `$signed(32'(e))`: the same signed 32 bits."""
    out, pos = [], 0
    for m in re.finditer(r"\bint'\(", text):
        if m.start() < pos:
            continue
        depth, j = 0, m.end() - 1
        for j in range(m.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                break
        out.append(text[pos:m.start()] + "$signed(32'" + int_casts(text[m.end() - 1:j + 1]) + ")")
        pos = j + 1
    out.append(text[pos:])
    return "".join(out)


def lower_sv(text):
    """`inside`, named assignment patterns, `return` and `int'()` as Yosys 0.23 reads them."""
    text = int_casts(text)
    def inside(m):
        return "(" + " || ".join(f"{m.group(1)} == {v.strip()}" for v in split_top(m.group(2))) + ")"
    text = re.sub(r"([\w.]+(?:\[[^\]]*\])?)\s+inside\s*\{([^{}]*)\}", inside, text)

    def pattern(m):
        fields = [f.split(":", 1) for f in split_top(m.group(3)) if f.strip()]
        return " ".join(f"{m.group(2)}.{k.strip()} = {v.strip()};" for k, v in fields)
    text = re.sub(r"^(\s*)([\w.]+)\s*=\s*'\{(\s*\w+\s*:.*?)\};", pattern, text, flags=re.M | re.S)

    def function(m):
        return re.sub(r"\breturn\s+([^;]+);", rf"{m.group(1)} = \1;", m.group(0))
    return re.sub(r"\bfunction\s+automatic\s+(?:\w+\s*)?(?:\[[^\]]*\]\s*)?(\w+)\s*\(.*?\bendfunction\b", function, text, flags=re.S)


def classify(cell):
    if re.fullmatch(r"LUT[1-6]", cell):
        return "LUT"
    if re.fullmatch(r"FD[A-Z]*(_1)?", cell):
        return "FF"
    if cell.startswith("DSP48"):
        return "DSP"
    if cell in ("RAMB36E2", "RAMB18E2"):
        return "BRAM36"
    if cell.startswith("URAM"):
        return "URAM"
    if re.match(r"RAM\d+(M|X1)", cell) or cell.startswith("SRL"):
        return "LUTRAM/SRL"
    return None


def parse_stat(log, top):
    """Cell counts of TOP and its submodules: the "design hierarchy" total of `stat -top`
    (printed only where TOP has submodules), else TOP's own."""
    blocks = re.split(r"^=== (.+?) ===$", log, flags=re.M)
    names = blocks[1::2]
    want = "design hierarchy" if "design hierarchy" in names else top
    cells = None
    for i in range(1, len(blocks) - 1, 2):
        if blocks[i] == want:
            cells = {}
            for m in re.finditer(r"^\s+(\S+)\s+(\d+)$", blocks[i + 1].split("Chip area")[0], re.M):
                cells[m.group(1)] = int(m.group(2))
    if cells is None:
        return None
    counts = {"LUT": 0, "FF": 0, "DSP": 0, "BRAM36": 0.0, "URAM": 0, "LUTRAM/SRL": 0, "other": 0}
    for cell, n in cells.items():
        if cell.startswith("quire_"):
            continue  # an instance of a submodule: the hierarchy total counts its cells
        kind = classify(cell)
        if kind == "BRAM36":
            counts[kind] += n / 2 if cell == "RAMB18E2" else n
        elif kind:
            counts[kind] += n
        elif cell not in ("CARRY8", "MUXF7", "MUXF8", "MUXF9", "BUFG", "VCC", "GND", "INV"):
            counts["other"] += n
    counts["cells"] = cells
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", nargs="+", action="append", required=True, metavar=("NAME", "SRC"))
    ap.add_argument("--param", action="append", default=[], metavar="TOP:NAME=VALUE")
    ap.add_argument("--optional", action="append", default=[], metavar="TOP",
                    help="a top whose failure is reported but does not fail the run")
    ap.add_argument("--blackbox", action="append", default=[], metavar="TOP:MODULE",
                    help="synthesize TOP with MODULE's instances as empty boxes (counted apart)")
    ap.add_argument("--sum", action="append", default=[], metavar="NAME=TOP+TOP...",
                    help="a line NAME: the sum of those tops' figures (a top whose parts are "
                         "boxes plus the tops synthesized for them)")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--work", default="build/rtl/report")
    ap.add_argument("--out", default=None)
    ap.add_argument("--yosys", default="yosys")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    version = subprocess.run([args.yosys, "-V"], capture_output=True, text=True).stdout.strip()
    lines = [f"quire RTL resource report: {LABEL}.",
             f"{version}; synth_xilinx -family xcup -noiopad (UltraScale+), each top on its own, its submodules summed.",
             ""]
    head = f"{'top':<22} {'LUT':>8} {'FF':>8} {'DSP':>5} {'BRAM36':>7} {'URAM':>5} {'LUTRAM/SRL':>10}  {'time':>6}"
    lines.append(head)
    rows, failed = [], []
    for spec in args.top:
        top, srcs = spec[0], spec[1:]
        params = [p.split(":", 1)[1] for p in args.param if p.split(":", 1)[0] == top]
        flat = os.path.join(args.work, f"{top}.sv")
        boxes = [b.split(":", 1)[1] for b in args.blackbox if b.split(":", 1)[0] == top]
        text = flatten(srcs)
        for box in boxes:
            text = blackbox(text, box)
        with open(flat, "w", encoding="utf-8") as f:
            f.write(text)
        chparam = "".join(f"chparam -set {p.split('=')[0]} {p.split('=')[1]} {top}; " for p in params)
        script = f"read_verilog -sv {flat}; {chparam}synth_xilinx -family xcup -noiopad -top {top}; stat -top {top}"
        logpath = os.path.join(args.work, f"{top}.log")
        start = time.monotonic()
        try:
            proc = subprocess.run([args.yosys, "-q", "-l", logpath, "-p", script],
                                  capture_output=True, text=True, timeout=args.timeout)
            status = proc.returncode
        except subprocess.TimeoutExpired:
            status = "timeout"
        took = time.monotonic() - start
        log = read(logpath) if os.path.exists(logpath) else ""
        counts = parse_stat(log, top) if status == 0 else None
        if counts is None:
            err = [l for l in log.splitlines() if "ERROR" in l][:1]
            why = f"timed out after {args.timeout} s" if status == "timeout" else (err[0] if err else f"exit {status}")
            lines.append(f"{top:<22} not synthesized: {why} ({took:.1f} s; {logpath})")
            if top not in args.optional:
                failed.append(top)
            print(lines[-1], file=sys.stderr)
            continue
        note = " " + " ".join(params) if params else ""
        note += f" boxes: {' '.join(boxes)}" if boxes else ""
        lines.append(f"{top:<22} {counts['LUT']:>8} {counts['FF']:>8} {counts['DSP']:>5} "
                     f"{counts['BRAM36']:>7g} {counts['URAM']:>5} {counts['LUTRAM/SRL']:>10}  {took:>5.1f}s{note}")
        rows.append((top, counts))
        print(lines[-1], file=sys.stderr)
    for spec in args.sum:
        name, parts = spec.split("=", 1)
        parts = "+".join(t.strip() for t in parts.split("+"))  # make's lists bring spaces
        got = dict(rows)
        missing = [t for t in parts.split("+") if t not in got]
        if missing:
            lines.append(f"{name:<22} not summed: {', '.join(missing)} not synthesized")
            if parts.split("+")[0] not in args.optional:
                failed.append(name)
        else:
            counts = {k: sum(got[t][k] for t in parts.split("+"))
                      for k in ("LUT", "FF", "DSP", "BRAM36", "URAM", "LUTRAM/SRL")}
            took = ""
            lines.append(f"{name:<22} {counts['LUT']:>8} {counts['FF']:>8} {counts['DSP']:>5} "
                         f"{counts['BRAM36']:>7g} {counts['URAM']:>5} {counts['LUTRAM/SRL']:>10}  "
                         f"{took:>6} = {' + '.join(parts.split('+'))}")
            rows.append((name, counts))
        print(lines[-1], file=sys.stderr)
    for device, total in DEVICES:
        lines += ["", f"Share of one {device} ({', '.join(f'{v:,} {k}' for k, v in total.items())}): {LABEL}."]
        lines.append(f"{'top':<22} {'LUT':>8} {'FF':>8} {'DSP':>8} {'BRAM36':>8} {'URAM':>8}")
        for top, counts in rows:
            lines.append(f"{top:<22} " + " ".join(f"{100.0 * counts[k] / total[k]:>7.3f}%"
                                                 for k in ("LUT", "FF", "DSP", "BRAM36", "URAM")))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
