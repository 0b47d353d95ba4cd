#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Resource estimate of quire's RTL: Yosys synth_xilinx per module, cells counted.

Usage: rtl_report.py [--timeout S] [--jobs N] [--cached-only] [--work DIR] [--out FILE]
                     [--optional TOP]...
                     --top NAME SRC... [--top NAME SRC...] [--param TOP:NAME=VALUE]...
                     [--blackbox TOP:MODULE]... [--sum NAME=TOP+TOP...]...

--blackbox leaves MODULE's instances in TOP as empty boxes (its body removed, its ports
kept), counted in nothing; --sum prints a line of several tops' figures added, so that a
top synthesized with other tops as boxes is reported whole (the card top: its own modules,
plus the core and the engine tops, each in the card once).

Each top's sources are elaborated once (`read_verilog -sv; chparam; hierarchy -check -top
TOP; write_rtlil`): every module under it, with the parameters it is used with, and how
many instances of it the top holds. Then each distinct module is synthesized on its own
by `yosys -p 'read_rtlil; synth_xilinx -family xcup -noiopad -top M; stat -top M'`
(UltraScale+; no I/O buffers: a block inside a shell, not a chip), its submodules empty
boxes of their ports, --jobs of them at once, the largest first, each under a time bound;
a top's figures are its modules' times their instances. That is what one hierarchical
`synth_xilinx` of the top (not -flatten) and its `stat -top` total give too: Yosys
optimizes nothing across a module's ports there either (on the flattened engines, its
resource sharing pass runs for many minutes over the 16 lanes of adders); but a module in
two tops is synthesized once, and the runs go side by side. Each result is kept in
DIR/cache under a hash of the module's elaborated RTLIL (the names Yosys makes up
numbered in order, source positions left out), its submodules' ports, the script and
Yosys's version, so a run after a change synthesizes only the modules it changed (and
each top's elaboration under a hash of its flattened file; --cached-only reports what the
cache holds and synthesizes nothing). The
mapped cells are counted as LUT (LUT1..LUT6), FF (FD*), DSP (DSP48E2), BRAM (RAMB36E2 +
RAMB18E2/2, in BRAM36) and URAM (URAM288); LUTs used as memory (RAM*M, RAM*X1*) and shift
registers (SRL*) are counted apart. The shares are of the devices of the boards quire
names; every figure is a Yosys estimate, not a vendor synthesis, and no Fmax is claimed.
After them, each module's own figures, the largest first: which block is big.

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
`x[i][b]` to `x[(i)*32 + (b)]`, `x[i][h:l]` to `x[(i)*32 + (l) +: (h)-(l)+1]`,
`x[i][l +: w]` to `x[(i)*32 + (l) +: w]`; three packed dimensions the same way
(`x[i][j]` of `logic [3:0][P-1:0][511:0] x` to `x[(i)*(P)*(512) + (j)*(512) +: (512)]`),
and where the name has an unpacked dimension (`logic [P-1:0][31:0] x [N]`) its first
index is kept and the packed ones after it rewritten. A whole unpacked array given
`'{default: v}` (`x <= '{default: '0};`, `logic [...] x [N]`) becomes a loop that gives
each of its N elements v. Three more it lacks, used by the core: `x inside {a, b}` becomes `(x == a || x == b)`
(a set of single values only); a named assignment pattern `v = '{f: e, g: d};` becomes
`v.f = e; v.g = d;`; and `return e;` in a function becomes `name = e;`, which is the
same only where a return ends the function's path, as in the core's functions (each
is the last statement of a case item). Nothing else is changed; the sources are not.
"""
import argparse
import concurrent.futures
import hashlib
import json
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
# so the XCU55C has 2,607,360 FFs. The XCU250 (Alveo U250, the XCVU13P's die): 1,728,000
# LUTs, 3,456,000 FFs, 12,288 DSP, 2,688 BRAM36, 1,280 URAM, as a public table of the part
# xcu250-figd2104-2L-e gives them (the Alveo U250 data sheet's figures). The whole device:
# a shell (the F1 shell, the Vitis platform) takes its part first, which these shares do
# not subtract. The boards are those of boards/*.toml.
DEVICES = [
    ("VU9P (AWS F1)", {"LUT": 1182240, "FF": 2364480, "DSP": 6840, "BRAM36": 2160, "URAM": 960}),
    ("XCU250 (Alveo U250)", {"LUT": 1728000, "FF": 3456000, "DSP": 12288, "BRAM36": 2688, "URAM": 1280}),
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
        text = lower_sv(unpacked_defaults(flatten_packed(import_re.sub("", text))))
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


def size(hi):
    """The element count of `[hi:0]`."""
    if hi.isdigit():
        return int(hi) + 1
    return hi[:-2].strip() if hi.replace(" ", "").endswith("-1") else f"({hi}+1)"


def unpacked_defaults(text):
    """`x <= '{default: '0};` (or `=`) for an unpacked array `logic [...] x [N];` as a loop
    over its N elements, each given '0."""
    counts = dict((m.group(1), m.group(2)) for m in
                  re.finditer(r"\blogic\b[^;\n]*?\b([A-Za-z_]\w*)\s*\[\s*([^\]:]+?)\s*\]\s*;", text))

    def loop(m):
        name = m.group(2)
        if name not in counts:
            raise SystemExit(f"rtl_report: '{{default: ...}} to {name}, not an unpacked array of one dimension")
        return (f"{m.group(1)}for (int unsigned rtl_report_i = 0; rtl_report_i < {counts[name]}; "
                f"rtl_report_i++) {name}[rtl_report_i] {m.group(3)} {m.group(4)};")
    return re.sub(r"^(\s*)(\w+)\s*(<=|=)\s*'\{\s*default\s*:\s*([^{}]+?)\s*\}\s*;", loop, text, flags=re.M)


def outer_colon(expr):
    """Index of the first `:` of expr outside brackets and parentheses, or None."""
    depth = 0
    for i, ch in enumerate(expr):
        depth += {"[": 1, "(": 1, "{": 1, "]": -1, ")": -1, "}": -1}.get(ch, 0)
        if ch == ":" and depth == 0:
            return i
    return None


def flatten_packed(text):
    """Packed arrays of two or three dimensions, `[A:0][H:0]` or `[A:0][B:0][H:0]`, as one
    dimension (see the module's comment). An unpacked dimension after the name stays: its
    index is the first and is kept, the packed ones after it are rewritten."""
    arrays = {}
    decl_re = re.compile(r"\blogic\s*((?:\[\s*[^\[\]:]+?\s*:\s*0\s*\]\s*){2,3})([^;\n]*)")

    def decl(m):
        dims = [size(h) for h in re.findall(r"\[\s*([^\[\]:]+?)\s*:\s*0\s*\]", m.group(1))]
        rest = m.group(2)
        for nm in re.finditer(r"\b([A-Za-z_]\w*)\b((?:\s*\[[^\]]*\])*)", rest.split("//")[0].split("=")[0]):
            arrays[nm.group(1)] = (dims, nm.group(2).count("["))
        total = "*".join(f"({d})" for d in dims)
        return f"logic [{total}-1:0]{rest}"
    text = decl_re.sub(decl, text)
    for name, (dims, unpacked) in arrays.items():
        strides = ["*".join(f"({d})" for d in dims[t + 1:]) or "1" for t in range(len(dims))]
        out, pos = [], 0
        for m in re.finditer(rf"\b{name}\[", text):
            if m.start() < pos:
                continue
            start = m.end() - 1
            i = start
            for _ in range(unpacked):  # the unpacked indices, kept
                i = close_bracket(text, i) + 1
                if i >= len(text) or text[i] != "[":
                    break
            if i >= len(text) or text[i] != "[":
                continue  # a whole element of an unpacked array: unchanged
            keep = text[start:i]
            sels, k = [], i
            while k < len(text) and text[k] == "[" and len(sels) < len(dims):
                e = close_bracket(text, k)
                sels.append(text[k + 1:e])
                k = e + 1
            base = " + ".join(f"({sel})*{strides[t]}" for t, sel in enumerate(sels[:-1]))
            base = base + " + " if base else ""
            last, t = sels[-1], len(sels) - 1
            colon = outer_colon(last)
            if colon is not None and last[colon - 1] not in "+-":
                hi, lo = last[:colon], last[colon + 1:]
                if t != len(dims) - 1:
                    raise SystemExit(f"rtl_report: a range of elements of {name}")
                sel = f"[{base}({lo.strip()}) +: ({hi.strip()})-({lo.strip()})+1]"
            elif colon is not None and last[colon - 1] == "+":
                lo, w = last[:colon - 1], last[colon + 1:]
                if t != len(dims) - 1:
                    raise SystemExit(f"rtl_report: a range of elements of {name}")
                sel = f"[{base}({lo.strip()}) +: {w.strip()}]"
            elif t == len(dims) - 1:
                sel = f"[{base}({last})]"
            else:
                sel = f"[{base}({last})*{strides[t]} +: {strides[t]}]"
            out.append(text[pos:start] + keep + sel)
            pos = k
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


KINDS = ("LUT", "FF", "DSP", "BRAM36", "URAM", "LUTRAM/SRL")
SYNTH_TOP = "quire_report_module"


def run_yosys(yosys, script, logpath, timeout):
    """(status, log, seconds) of one Yosys run: status 0, an exit status, or "timeout"."""
    start = time.monotonic()
    try:
        proc = subprocess.run([yosys, "-q", "-l", logpath, "-p", script],
                              capture_output=True, text=True, timeout=timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        status = "timeout"
    log = read(logpath) if os.path.exists(logpath) else ""
    return status, log, time.monotonic() - start


def why_failed(status, log, timeout):
    if status == "timeout":
        return f"timed out after {timeout} s"
    err = [l for l in log.splitlines() if "ERROR" in l][:1]
    return err[0] if err else f"exit {status}"


def rtlil_modules(text):
    """The modules of an RTLIL dump: name -> {"attrs", "body", "box", "cells", "ports"}.
    A module is `module NAME` ... `end` at the line's start, its attributes the lines
    before it; its cells `  cell TYPE NAME`, its ports the wires with input/output."""
    mods, attrs, cur = {}, [], None
    for line in text.splitlines(keepends=True):
        if cur is None:
            if line.startswith("attribute "):
                attrs.append(line)
            elif line.startswith("module "):
                cur = {"name": line.split(None, 1)[1].strip(), "attrs": attrs, "body": [line]}
                attrs = []
            else:
                attrs = []
            continue
        cur["body"].append(line)
        if line.rstrip("\n") == "end":
            body = "".join(cur["body"])
            mods[cur["name"]] = {
                "attrs": "".join(cur["attrs"]),
                "body": body,
                "box": any(re.match(r"attribute \\(blackbox|whitebox) ", a) for a in cur["attrs"]),
                "cells": re.findall(r"^  cell (\S+) \S+$", body, re.M),
                "ports": [l for l in cur["body"] if re.match(r"  wire .*\b(input|output|inout) \d+ ", l)
                          or re.match(r"  parameter ", l)],
            }
            cur = None
    return mods


def stub(name, mod):
    """An empty box of module NAME with MOD's ports (and parameters): what a module's own
    synthesis sees of a submodule, which is synthesized on its own."""
    return f"attribute \\blackbox 1\nmodule {name}\n{''.join(mod['ports'])}end\n"


def module_key(name, mods, script, version):
    """The cache key of one module's synthesis: its elaborated RTLIL (the names Yosys makes
    up, `$...$N`, numbered in order of appearance, and source positions dropped, so that a
    change elsewhere in the flattened file does not touch it), its submodules' ports, the
    script and Yosys's version."""
    body = "".join(l for l in mods[name]["body"].splitlines(keepends=True)
                   if not l.lstrip().startswith("attribute \\src "))
    made = {}

    def number(m):
        if m.group(0).startswith("$paramod"):
            return m.group(0)
        return made.setdefault(m.group(0), f"$n{len(made)}")
    body = re.sub(r"\$[^\s]+", number, body)
    parts = [version, script, body]
    for child in sorted(set(c for c in mods[name]["cells"] if c in mods)):
        parts.append(stub(child, mods[child]))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def module_label(name):
    """A derived module's name as a reader wants it: `$paramod$HASH\\quire_x` -> quire_x,
    `$paramod\\quire_x\\A=1` -> quire_x(A=1)."""
    name = name.lstrip("\\")
    m = re.match(r"\$paramod\$[0-9a-f]+\\(.+)$", name)
    if m:
        return f"{m.group(1)}(params)"
    m = re.match(r"\$paramod\\([^\\]+)\\(.+)$", name)
    if m:
        params = re.sub(r"\b\d+'([01]+)\b", lambda v: str(int(v.group(1), 2)), m.group(2))
        return f"{m.group(1)}({params.replace(chr(92), ' ')})"
    return name


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
    ap.add_argument("--timeout", type=int, default=600, help="bound of one module's synthesis (s)")
    ap.add_argument("--jobs", type=int, default=2, help="Yosys runs at once")
    ap.add_argument("--cached-only", action="store_true",
                    help="synthesize nothing: report what the cache holds, the rest as not synthesized")
    ap.add_argument("--work", default="build/rtl/report")
    ap.add_argument("--out", default=None)
    ap.add_argument("--yosys", default="yosys")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.work, "cache"), exist_ok=True)
    wall = time.monotonic()
    version = subprocess.run([args.yosys, "-V"], capture_output=True, text=True).stdout.strip()
    script = f"synth_xilinx -family xcup -noiopad -top {SYNTH_TOP}; stat -top {SYNTH_TOP}"

    # Each top flattened into one file and elaborated (its hierarchy, parameters set); its
    # modules, each with the parameters it is used with, in an RTLIL dump.
    tops, elab_failed = [], {}
    for spec in args.top:
        top, srcs = spec[0], spec[1:]
        params = [p.split(":", 1)[1] for p in args.param if p.split(":", 1)[0] == top]
        boxes = [b.split(":", 1)[1] for b in args.blackbox if b.split(":", 1)[0] == top]
        text = flatten(srcs)
        for box in boxes:
            text = blackbox(text, box)
        flat = os.path.join(args.work, f"{top}.sv")
        with open(flat, "w", encoding="utf-8") as f:
            f.write(text)
        chparam = "".join(f"chparam -set {p.split('=')[0]} {p.split('=')[1]} {top}; " for p in params)
        il = os.path.join(args.work, f"{top}.il")
        # The elaboration is kept too (the card top's takes minutes), under a hash of what
        # it read and did.
        elab_key = hashlib.sha256("\0".join([version, chparam, text]).encode()).hexdigest()
        status = 0
        if not (os.path.exists(il) and os.path.exists(il + ".key") and read(il + ".key") == elab_key):
            status, log, _ = run_yosys(args.yosys, f"read_verilog -sv {flat}; {chparam}hierarchy -check -top {top}; "
                                       f"write_rtlil {il}", os.path.join(args.work, f"{top}.elab.log"), args.timeout)
            if status == 0:
                with open(il + ".key", "w", encoding="utf-8") as f:
                    f.write(elab_key)
        if status != 0:
            elab_failed[top] = why_failed(status, log, args.timeout)
            tops.append((top, params, boxes, None))
            continue
        mods = rtlil_modules(read(il))
        # Instances of each module under the top, counted down the hierarchy.
        name = next(n for n in mods if n.lstrip("\\") == top)
        count = {}

        def walk(m, times):
            count[m] = count.get(m, 0) + times
            for child in mods[m]["cells"]:
                if child in mods and not mods[child]["box"]:
                    walk(child, times)
        walk(name, 1)
        tops.append((top, params, boxes, (mods, count)))

    # Each distinct module synthesized once (modules the same in two tops, or already in the
    # cache from an earlier run, are not synthesized again), several at once, the largest first.
    jobs = {}
    for top, _, _, elab in tops:
        if elab is None:
            continue
        mods, count = elab
        for m in count:
            key = module_key(m, mods, script, version)
            jobs.setdefault(key, (m, mods))
    results, todo = {}, []
    for key, (m, mods) in jobs.items():
        path = os.path.join(args.work, "cache", f"{key}.json")
        if os.path.exists(path):
            results[key] = dict(json.loads(read(path)), cached=True)
        elif args.cached_only:
            results[key] = {"module": module_label(m), "error": "not in the cache (--cached-only)", "cached": True}
        else:
            todo.append((len(mods[m]["body"]), key, m, mods))
    todo.sort(reverse=True)

    def synth(item):
        _, key, m, mods = item
        il = os.path.join(args.work, "cache", f"{key}.il")
        children = sorted(set(c for c in mods[m]["cells"] if c in mods))
        with open(il, "w", encoding="utf-8") as f:
            f.write(mods[m]["attrs"].replace("attribute \\top 1\n", ""))
            f.write(mods[m]["body"].replace(f"module {m}\n", f"module \\{SYNTH_TOP}\n", 1))
            for child in children:
                f.write(stub(child, mods[child]))
        logpath = os.path.join(args.work, "cache", f"{key}.log")
        status, log, took = run_yosys(args.yosys, f"read_rtlil {il}; {script}", logpath, args.timeout)
        counts = parse_stat(log, SYNTH_TOP) if status == 0 else None
        label = module_label(m)
        if counts is None:
            res = {"module": label, "error": f"{why_failed(status, log, args.timeout)} ({took:.1f} s; {logpath})"}
        else:
            res = {"module": label, "counts": {k: counts[k] for k in KINDS}, "time": took}
            with open(os.path.join(args.work, "cache", f"{key}.json"), "w", encoding="utf-8") as f:
                json.dump(res, f)
        print(f"rtl_report: {label}: " + (f"{took:.1f} s" if counts else res["error"]), file=sys.stderr)
        return key, res
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for key, res in pool.map(synth, todo):
            results[key] = res

    lines = [f"quire RTL resource report: {LABEL}.",
             f"{version}; synth_xilinx -family xcup -noiopad (UltraScale+), each distinct module on its own "
             "(its submodules as boxes), a top the sum over its modules' instances.",
             ""]
    head = f"{'top':<22} {'LUT':>8} {'FF':>8} {'DSP':>5} {'BRAM36':>7} {'URAM':>5} {'LUTRAM/SRL':>10}  {'time':>6}"
    lines.append(head)
    rows, failed, per_module = [], [], {}
    for top, params, boxes, elab in tops:
        why = elab_failed.get(top)
        if elab is not None:
            mods, count = elab
            counts, took = {k: 0 for k in KINDS}, 0.0
            for m, n in count.items():
                res = results[module_key(m, mods, script, version)]
                if "error" in res:
                    why = why or f"{res['module']}: {res['error']}"
                    continue
                for k in KINDS:
                    counts[k] += n * res["counts"][k]
                took += res["time"]
                entry = per_module.setdefault(module_label(m), [res, []])
                entry[1].append(f"{top} x{n}")
        if why:
            lines.append(f"{top:<22} not synthesized: {why}")
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
            counts = {k: sum(got[t][k] for t in parts.split("+")) for k in KINDS}
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
    # Every module's own figures (its submodules not in them), the largest first: which block
    # is big. A module used with two sets of parameters is two lines.
    lines += ["", "Each module on its own (submodules excluded), per instance; where it is used:",
              f"{'module':<40} {'LUT':>8} {'FF':>8} {'DSP':>5} {'BRAM36':>7} {'URAM':>5} {'LUTRAM/SRL':>10}  {'time':>6}  in"]
    for label, (res, where) in sorted(per_module.items(), key=lambda e: -e[1][0]["counts"]["LUT"]):
        c = res["counts"]
        lines.append(f"{label[:40]:<40} {c['LUT']:>8} {c['FF']:>8} {c['DSP']:>5} {c['BRAM36']:>7g} "
                     f"{c['URAM']:>5} {c['LUTRAM/SRL']:>10}  {res['time']:>5.1f}s  {', '.join(where)}")
    fresh = sum(1 for r in results.values() if not r.get("cached"))
    lines += ["", f"{len(results)} distinct modules: {fresh} synthesized in this run, {len(results) - fresh} "
              f"from the cache ({args.work}/cache); {time.monotonic() - wall:.0f} s wall, {args.jobs} Yosys runs at once. "
              "A top's time is the sum of its modules' Yosys times."]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
