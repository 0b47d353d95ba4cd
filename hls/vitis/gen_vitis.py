#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Vitis flow's generated inputs, and the check that every side binds the same kernels.

The one source of truth is the top functions of hls/quant.c, hls/reduce.c and hls/mlp.c:
their parameters (order, names, scalar or pointer) and their INTERFACE pragmas (the AXI
bundle of each pointer). From them:

    gen_vitis.py --check
        compares them with what the host code binds to, and exits 1 naming every mismatch:
        the QUIRE_*_ARG_* enums of include/quire/card.h (the argument indices of the
        opencl backend, the firmware and the card models), the __kernel wrappers of
        hls/hls_cl.h (the from-source OpenCL program), the kernel names and the
        scalars-then-pointers split in host/src/backend/opencl.c, and the INTERFACE
        pragmas (an m_axi bundle with offset = slave for each pointer, s_axilite for each
        scalar and for the return value).
    gen_vitis.py --kernels DIR
        writes DIR/kernel_{quant,reduce,mlp}.c: the Vitis kernels quire_quant, quire_reduce,
        quire_mlp, thin wrappers with the top function's parameters and pragmas plus
        `status` (the top function's return value, which OpenCL cannot read from
        ap_return), in the bundle of the last pointer.
    gen_vitis.py --board BOARD.toml --out DIR
        writes DIR/compile.cfg and DIR/link.cfg for v++ from a board description
        (boards/*.toml, read and validated by boards/gen_boards.py): the platform, the
        engines' clock, one compute unit per kernel and every pointer argument on the
        board's first memory bank.

Standard library only (tomllib: Python 3.11)."""
import argparse
import importlib.util
import os
import re
import sys

KERNELS = ["quant", "reduce", "mlp"]
# The C each kernel is synthesised from (what hls/vitis/run_hls.tcl adds as well).
SOURCES = {"quant": ["hls/quant.c"], "reduce": ["hls/reduce.c", "hls/quant.c"],
           "mlp": ["hls/mlp.c", "hls/crc32.c"]}
# v++'s names of a board's memory banks, by the memory type of boards/*.toml.
BANKS = {"DDR4": "DDR", "HBM2": "HBM"}


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def params_of(text):
    """[(name, is_pointer, C type)] of a parameter list."""
    out = []
    for p in [p.strip() for p in text.split(",") if p.strip()]:
        m = re.match(r"(.*?)([A-Za-z_]\w*)$", p.replace("QUIRE_GMEM", "").strip(), re.S)
        if not m:
            raise SystemExit(f"gen_vitis.py: cannot read parameter '{p}'")
        ctype = " ".join(m.group(1).split())
        out.append((m.group(2), "*" in ctype, ctype))
    return out


def read_top(kernel):
    """The top function of hls/KERNEL.c: its parameters and INTERFACE pragmas."""
    path = f"hls/{kernel}.c"
    text = strip_comments(open(path, encoding="utf-8").read())
    m = re.search(r"\bint\s+quire_%s_top\s*\(([^)]*)\)\s*\{" % kernel, text)
    if not m:
        raise SystemExit(f"gen_vitis.py: {path}: no definition of quire_{kernel}_top")
    pragmas = []
    for line in text[m.end():].split("\n"):
        line = line.strip()
        if not line:
            continue
        if not line.startswith("#pragma HLS INTERFACE"):
            break
        pragmas.append(line)
    ifs = {}
    for p in pragmas:
        f = dict(re.findall(r"(\w+)\s*=\s*(\w+)", p))
        mode = p.split()[3]
        ifs[f.get("port")] = (mode, f.get("bundle"), f.get("offset"), p)
    return {"file": path, "params": params_of(m.group(1)), "pragmas": pragmas, "ifs": ifs}


def card_enum(kernel):
    text = strip_comments(open("include/quire/card.h", encoding="utf-8").read())
    m = re.search(r"enum\s+quire_%s_arg\s*\{([^}]*)\}" % kernel, text)
    if not m:
        raise SystemExit(f"gen_vitis.py: include/quire/card.h: no enum quire_{kernel}_arg")
    names = [n.strip() for n in m.group(1).split(",") if n.strip()]
    prefix = f"QUIRE_{kernel.upper()}_ARG_"
    return [n[len(prefix):].lower() for n in names if n != f"QUIRE_{kernel.upper()}_ARGS"]


def cl_wrapper(kernel):
    text = strip_comments(open("hls/hls_cl.h", encoding="utf-8").read())
    m = re.search(r"__kernel\s+void\s+quire_%s\s*\(([^)]*)\)" % kernel, text)
    if not m:
        raise SystemExit(f"gen_vitis.py: hls/hls_cl.h: no __kernel quire_{kernel}")
    return [p[0] for p in params_of(m.group(1))]


def check():
    errors = []
    host = strip_comments(open("host/src/backend/opencl.c", encoding="utf-8").read())
    names = re.search(r"kernel_names\[K_COUNT\]\s*=\s*\{([^}]*)\}", host)
    firsts = re.search(r"first_ptr\[K_COUNT\]\s*=\s*\{([^}]*)\}", host)
    if not names or not firsts:
        raise SystemExit("gen_vitis.py: host/src/backend/opencl.c: no kernel_names or first_ptr")
    names = re.findall(r'"([^"]+)"', names.group(1))
    firsts = [f.strip() for f in firsts.group(1).split(",") if f.strip()]
    if names != [f"quire_{k}" for k in KERNELS]:
        errors.append(f"opencl.c binds kernels {names}, not quire_{{{','.join(KERNELS)}}}")
    passed = 0
    for i, k in enumerate(KERNELS):
        before = len(errors)
        top = read_top(k)
        pnames = [p[0] for p in top["params"]]
        where = f"{top['file']}: quire_{k}_top"
        if card_enum(k) != pnames:
            errors.append(f"{where}({', '.join(pnames)}) but quire/card.h's enum quire_{k}_arg "
                          f"is ({', '.join(card_enum(k))})")
        want = pnames + ["status"] + (["net"] if k == "mlp" else [])
        if cl_wrapper(k) != want:
            errors.append(f"hls/hls_cl.h: quire_{k}({', '.join(cl_wrapper(k))}), want "
                          f"({', '.join(want)})")
        ptr = [p[1] for p in top["params"]]
        split = ptr.index(True) if True in ptr else len(ptr)
        if ptr != [False] * split + [True] * (len(ptr) - split):
            errors.append(f"{where}: scalars are not all before the pointers")
        if i < len(firsts) and firsts[i] != f"QUIRE_{k.upper()}_ARG_{pnames[split].upper()}":
            errors.append(f"opencl.c: first_ptr of quire_{k} is {firsts[i]}, the top's first "
                          f"pointer is {pnames[split]}")
        for name, is_ptr, _ in top["params"]:
            mode, bundle, offset, _ = top["ifs"].get(name, (None, None, None, None))
            if is_ptr and (mode != "m_axi" or not bundle or offset != "slave"):
                errors.append(f"{where}: pointer {name} has no m_axi bundle with offset = slave")
            if not is_ptr and mode != "s_axilite":
                errors.append(f"{where}: scalar {name} is not s_axilite")
        if top["ifs"].get("return", ("",))[0] != "s_axilite":
            errors.append(f"{where}: the return value is not s_axilite")
        extra = set(top["ifs"]) - set(pnames) - {"return"}
        if extra:
            errors.append(f"{where}: INTERFACE pragmas for no parameter: {sorted(extra)}")
        if len(errors) == before:
            passed += 1
            bundles = ", ".join(f"{n}:{top['ifs'][n][1]}" for n, p, _ in top["params"] if p)
            print(f"ok   quire_{k}: {len(pnames)} arguments as quire/card.h, hls_cl.h and "
                  f"opencl.c bind them; m_axi {bundles}")
    for e in errors:
        print(f"FAIL {e}")
    print(f"kernel interfaces: {passed} passed, {len(errors)} failed")
    return 1 if errors else 0


def kernels(out):
    os.makedirs(out, exist_ok=True)
    for k in KERNELS:
        top = read_top(k)
        ptrs = [n for n, p, _ in top["params"] if p]
        bundle = top["ifs"][ptrs[-1]][1]
        decl = ",\n\t".join(f"{t} {n}" if not t.endswith("*") else f"{t}{n}"
                            for n, _, t in top["params"])
        lines = [
            "// SPDX-License-Identifier: MIT",
            f"/* Generated by hls/vitis/gen_vitis.py from {top['file']}: do not edit. The",
            f" * Vitis kernel quire_{k}: quire_{k}_top's arguments and interfaces, and its",
            " * return value in `status` (OpenCL hosts cannot read ap_return). */",
            f'#include "hls/{k}.h"',
            "",
            f"void quire_{k}({decl},\n\tint32_t *status)",
            "{",
        ]
        lines += [p for p in top["pragmas"]]
        lines.append(f"#pragma HLS INTERFACE m_axi port = status offset = slave bundle = {bundle}")
        call = ", ".join(n for n, _, _ in top["params"])
        lines += [f"\t*status = quire_{k}_top({call});", "}", ""]
        with open(os.path.join(out, f"kernel_{k}.c"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines))


def board_configs(toml_path, out):
    spec = importlib.util.spec_from_file_location("gen_boards", "boards/gen_boards.py")
    gb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gb)
    import tomllib
    with open(toml_path, "rb") as f:
        doc = tomllib.load(f)
    enum, bar0 = gb.read_enum("include/quire/regs.h")
    b = gb.validate(toml_path, doc, enum, bar0, gb.read_link_ld("firmware/link.ld"))
    mem = doc["memory"][0]
    if mem["type"] not in BANKS:
        raise SystemExit(f"gen_vitis.py: {toml_path}: memory type {mem['type']}: not a Vitis "
                         "platform (no xclbin for this board)")
    bank = f"{BANKS[mem['type']]}[0]"
    mhz = [c["mhz"] for c in doc["clock"] if c.get("engines")][0]
    os.makedirs(out, exist_ok=True)
    head = [f"# Generated by hls/vitis/gen_vitis.py from {toml_path}: do not edit.",
            f"# {doc['name']}; ran on hardware: {str(doc['ran_on_hardware']).lower()}."]
    comp = head + [f"platform={doc['platform']}", "[hls]"]
    comp += [f"clock={int(mhz * 1000000)}:quire_{k}" for k in KERNELS]
    link = head + [f"platform={doc['platform']}", f"kernel_frequency={int(mhz)}",
                   "[connectivity]"]
    for k in KERNELS:
        link.append(f"nk=quire_{k}:1:quire_{k}_1")
    for k in KERNELS:
        top = read_top(k)
        for n in [n for n, p, _ in top["params"] if p] + ["status"]:
            link.append(f"sp=quire_{k}_1.{n}:{bank}")
    for name, text in (("compile.cfg", comp), ("link.cfg", link)):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write("\n".join(text) + "\n")
    print(f"gen_vitis.py: {b['board']}: {out}/compile.cfg, {out}/link.cfg "
          f"({doc['platform']}, {mhz} MHz, {bank})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--kernels", metavar="DIR")
    ap.add_argument("--board", metavar="BOARD.toml")
    ap.add_argument("--out", metavar="DIR")
    a = ap.parse_args()
    if a.check:
        return check()
    if a.kernels:
        kernels(a.kernels)
        return 0
    if a.board and a.out:
        board_configs(a.board, a.out)
        return 0
    ap.print_usage()
    return 2


if __name__ == "__main__":
    sys.exit(main())
