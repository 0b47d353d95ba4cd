#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The RTL's documented figures held: cycle counts from Verilator are the same on every
run, so a figure worse than its document's (beyond MARGIN) is a regression, and fails,
naming the document and the figure. The documents are the one source: the figures are read
from their tables, never copied here.

    rtl_figures.py engines OUTPUT...
        The testbenches' output (tests/rtl_engines/run.sh) against docs/rtl-engines.md's
        "Rates measured": every case with a rate has its row, the same workload, and a rate
        no lower than the row's less MARGIN.
    rtl_figures.py card QUIRE_BENCH_RTL
        Runs the RTL card bench with the parameters docs/rtl-card.md names (--nops 200
        --size 1048576) and holds its cycles (boot, NOP round trip, ENCODE, REDUCE and DECODE
        per MiB) to the rows of that document's "What is measured", less MARGIN.
    rtl_figures.py ring QUIRE_BENCH_RTL
        Runs the 4-card all-reduce (--ring 4 --size 1048576: 1 MiB of fp32 a rank, bfp8, on
        RTL cards in lockstep), which fails unless every rank's result is the golden model's;
        holds its cycles, doorbell to last completion, to docs/rtl-card.md's row under "## Four
        RTL cards in a ring", less MARGIN, and wants the busbw printed.
    rtl_figures.py mlp OUTPUT
        The RTL card test's output (tests/rtl/test_card_top.cpp: a scheduler's decision of
        17-64-32-1 and 17-128-1 on 1, 32, 1,024 and 1,213 candidates, its command cycles and the
        engine's) against docs/sched-api.md's table under "Where a decision's cycles go":
        every decision printed has its cell, and neither count is more than the cell's
        "command (engine)" plus MARGIN.

Prints "ok"/"FAIL" per figure, then "rtl figures: N passed, N failed"; exit 1 on a failure.
"""
import re
import subprocess
import sys
from pathlib import Path

# The documents round (e.g. "~0.83 M", two decimals): a figure may be this much worse than
# its row and still pass. Anything more is a change of the RTL or firmware worth a look.
MARGIN = 0.02
ENGINES_DOC = "docs/rtl-engines.md"
CARD_DOC = "docs/rtl-card.md"
# The card bench's run, as docs/rtl-card.md says CI runs it.
CARD_ARGS = ["--nops", "200", "--size", "1048576"]
SCHED_DOC = "docs/sched-api.md"
RING_ARGS = ["--ring", "4", "--size", "1048576"]
RING_ROW = "bfp8 all-reduce, 1 MiB of fp32 a rank, 4 cards"
RING_CYCLES = r"^all-reduce, doorbell to last completion +(\d+) cycles"
# The card figures: the bench's line (a regex whose group 1 is the cycles) -> the start of
# the first cell of its row in CARD_DOC's table. Fewer cycles are better.
CARD_FIGURES = [
    (r"^boot to RUNNING +(\d+) cycles", "boot: reset to FW_STATE RUNNING"),
    (r"^nop round trip .* (\d+) cycles median", "NOP round trip, a NOP after"),
    (r"^encode bfp8, per MiB of fp32 +(\d+) cycles", "ENCODE bfp8 per MiB of fp32"),
    (r"^reduce int8 -> int16, W 4, per MiB of input +(\d+) cycles", "REDUCE int8 -> int16, W 4"),
    (r"^decode bfp8, mean of 4, per MiB of fp32 +(\d+) cycles", "DECODE bfp8 (int8 values)"),
    (r"^network port out, a 64 KiB frame \( *1025 beats\) +(\d+) cycles", "network port out, a 64 KiB"),
    (r"^network port in, a 64 KiB frame \( *1025 beats\) +(\d+) cycles", "network port in, a 64 KiB"),
]

passed = failed = 0


def ok(msg):
    global passed
    passed += 1
    print("ok   " + msg)


def ko(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def table_rows(doc, heading):
    """The cells of the rows of the first table under `heading` in doc."""
    text = Path(doc).read_text()
    at = text.find(heading)
    if at < 0:
        raise SystemExit(f"FAIL {doc}: no section '{heading}'\nrtl figures: 0 passed, 1 failed")
    rows, started = [], False
    for line in text[at:].splitlines()[1:]:
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):  # not the rule
                rows.append(cells)
        elif started:
            break
    return rows[1:]  # the header row left out


def number(cell):
    """The figure a cell starts with: "16.00", "499.29 (...)", "~0.83 M (...)", "204 (...)"."""
    m = re.match(r"~?\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(M\b)?", cell)
    if not m:
        return None
    v = float(m.group(1).replace(",", ""))
    return v * 1e6 if m.group(2) else v


def engines(outputs):
    rows = {r[0].strip("`"): r for r in table_rows(ENGINES_DOC, "### Rates measured")}
    text = "".join(Path(p).read_text() for p in outputs)
    cases = re.findall(r"^rtl (.+): (\d+) elements, ([0-9.]+) elements/cycle", text, re.M)
    cases += [(n, e, r) for n, e, r in
              re.findall(r"^rtl mlp MACs: (.+): (\d+) MACs in \d+ cycles, ([0-9.]+) MACs/cycle",
                         text, re.M)]
    if not cases:
        ko("no rate in the testbenches' output: nothing to hold to " + ENGINES_DOC)
    for name, elements, rate in cases:
        row = rows.pop(name, None)
        if row is None:
            ko(f"rtl {name}: {rate} a cycle, and no row '{name}' in {ENGINES_DOC}'s Rates measured")
            continue
        want, want_n = number(row[2]), number(row[1])
        if want is None or want_n != int(elements):
            ko(f"rtl {name}: {elements} elements, {ENGINES_DOC} says {row[1]}: another workload "
               "than the documented one")
        elif float(rate) < want * (1 - MARGIN):
            ko(f"WORSE: rtl {name}: {rate} a cycle, {ENGINES_DOC} (Rates measured) says {want:.2f} "
               f"(at least {want * (1 - MARGIN):.2f} with the {MARGIN:.0%} margin)")
        else:
            ok(f"rtl {name}: {rate} a cycle, {ENGINES_DOC} says {want:.2f}")
    for name in rows:  # a documented figure no run measures any more
        ko(f"{ENGINES_DOC}'s row '{name}': no testbench printed that case")


def hold(rows, figures, out, section):
    """Each (pattern, label) of figures: the cycles the bench printed (group 1 of pattern) no
    more than the figure of the row of rows starting with label, plus MARGIN."""
    for pattern, label in figures:
        row = next((r for r in rows if r[0].startswith(label)), None)
        m = re.search(pattern, out, re.M)
        if row is None or number(row[1]) is None:
            ko(f"{CARD_DOC}: no figure in a row '{label}...' of {section}")
        elif not m:
            ko(f"{label}: the bench printed no line /{pattern}/: {out.strip()[-300:]}")
        else:
            got, want = int(m.group(1)), number(row[1])
            limit = want * (1 + MARGIN)
            if got > limit:
                ko(f"WORSE: {label}: {got} cycles, {CARD_DOC} ({section}) says {row[1]} "
                   f"(at most {limit:.0f} with the {MARGIN:.0%} margin)")
            else:
                ok(f"{label}: {got} cycles, {CARD_DOC} says {row[1]}")


def card(bench):
    rows = table_rows(CARD_DOC, "## What is measured")
    run = subprocess.run([bench] + CARD_ARGS, capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    if run.returncode != 0:
        ko(f"{bench} {' '.join(CARD_ARGS)}: exit {run.returncode}: {out.strip()[-300:]}")
        return
    hold(rows, CARD_FIGURES, out, "What is measured")


def ring(bench):
    rows = table_rows(CARD_DOC, "## Four RTL cards in a ring")
    run = subprocess.run([bench] + RING_ARGS, capture_output=True, text=True, timeout=1800)
    out = run.stdout + run.stderr
    what = f"{bench} {' '.join(RING_ARGS)}"
    if run.returncode != 0:
        ko(f"{what}: exit {run.returncode}: {out.strip()[-400:]}")
        return
    if re.search(r"^results +every byte of every rank's result is the golden model's", out, re.M):
        ok(f"{what}: every rank's result is the golden model's")
    else:
        ko(f"{what}: no line saying the results are the golden model's: {out.strip()[-300:]}")
    busbw = re.search(r"^busbw of the fp32 vector +([0-9.]+) GB/s = ([0-9.]+)% of the", out, re.M)
    if busbw:
        ok(f"{what}: busbw {busbw.group(1)} GB/s, {busbw.group(2)}% of the link")
    else:
        ko(f"{what}: no busbw printed: {out.strip()[-300:]}")
    hold(rows, [(RING_CYCLES, RING_ROW)], out, "Four RTL cards in a ring")


def mlp(output):
    rows = {r[0]: r for r in table_rows(SCHED_DOC, "### Where a decision's cycles go")}
    header = ["1", "32", "1,024", "1,213"]  # the table's columns after the shape: candidates
    got = re.findall(r"MLP (\S+), (\d+) candidates: (\d+) command cycles \(fetch to completion\), "
                     r"(\d+) of them the engine's", Path(output).read_text())
    if not got:
        ko(f"{output}: no MLP decision's cycles printed: nothing to hold to {SCHED_DOC}")
    for shape, c, cmd, eng in got:
        row = rows.get(shape)
        col = header.index(f"{int(c):,}") + 1 if f"{int(c):,}" in header else None
        cell = row[col] if row and col and col < len(row) else None
        m = re.fullmatch(r"\**([0-9,]+) \(([0-9,]+)\)\**", cell or "")
        if not m:
            ko(f"MLP {shape}, {c} candidates: no cell 'N (M)' for it in {SCHED_DOC}'s table "
               "under Where a decision's cycles go")
            continue
        want_cmd, want_eng = (int(g.replace(",", "")) for g in m.groups())
        what = f"MLP {shape}, {c} candidates: {cmd} command cycles ({eng} the engine's)"
        if int(cmd) > want_cmd * (1 + MARGIN) or int(eng) > want_eng * (1 + MARGIN):
            ko(f"WORSE: {what}, {SCHED_DOC} says {cell} (at most {MARGIN:.0%} more)")
        else:
            ok(f"{what}, {SCHED_DOC} says {cell}")


def main(argv):
    if len(argv) >= 3 and argv[1] == "engines":
        engines(argv[2:])
    elif len(argv) == 3 and argv[1] == "card":
        card(argv[2])
    elif len(argv) == 3 and argv[1] == "ring":
        ring(argv[2])
    elif len(argv) == 3 and argv[1] == "mlp":
        mlp(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(f"rtl figures: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
