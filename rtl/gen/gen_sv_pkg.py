#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a SystemVerilog package of the integer constants of a C header.

The contract of include/quire/ is written once, in C: every object-like
#define whose value is an integer constant expression (after expanding the
header's own macros, function-like ones included) and every enumerator
becomes a localparam of the same name. Anything else (strings, casts,
function-like macros themselves) is left out, and the package says how many.

Usage: gen_sv_pkg.py HEADER PACKAGE_NAME > PACKAGE_NAME.sv
"""
import re
import sys

TOKEN = re.compile(r"\s*(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<|>>|\S)")
ALLOWED_OPS = set("()+-*/%&|^~<>") | {"<<", ">>"}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return text.replace("\\\n", " ")


def tokens(expr):
    expr = expr.strip()
    out, pos = [], 0
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            break
        out.append(m.group(1))
        pos = m.end()
    return out


class Header:
    def __init__(self):
        self.objects = {}  # name -> token list
        self.functions = {}  # name -> (params, token list)
        self.values = {}  # name -> int, in header order

    def expand(self, toks, depth=0):
        if depth > 32:
            raise ValueError("macro recursion")
        out, i = [], 0
        while i < len(toks):
            t = toks[i]
            if t in self.functions and i + 1 < len(toks) and toks[i + 1] == "(":
                params, body = self.functions[t]
                args, level, cur, i = [], 0, [], i + 2
                while i < len(toks):
                    if toks[i] == "(":
                        level += 1
                    elif toks[i] == ")":
                        if level == 0:
                            break
                        level -= 1
                    if toks[i] == "," and level == 0:
                        args.append(cur)
                        cur = []
                    else:
                        cur.append(toks[i])
                    i += 1
                args.append(cur)
                if len(args) != len(params):
                    raise ValueError("argument count")
                binding = dict(zip(params, args))
                sub = []
                for b in body:
                    sub.extend(["("] + binding[b] + [")"] if b in binding else [b])
                out.extend(["("] + self.expand(sub, depth + 1) + [")"])
            elif t in self.values:
                out.append(str(self.values[t]))
            elif t in self.objects:
                out.extend(["("] + self.expand(self.objects[t], depth + 1) + [")"])
            else:
                out.append(t)
            i += 1
        return out

    def evaluate(self, toks):
        py = []
        for t in self.expand(toks):
            if re.fullmatch(r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*", t):
                py.append(str(int(t.rstrip("uUlL"), 0)))
            elif t in ALLOWED_OPS:
                # C's integer division; every constant here is non-negative where it divides.
                py.append("//" if t == "/" else t)
            else:
                raise ValueError("not an integer constant: " + t)
        if not py:
            raise ValueError("empty")
        return int(eval(" ".join(py), {"__builtins__": {}}, {}))


def parse(text):
    h = Header()
    skipped = 0
    text = strip_comments(text)
    define = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\([^)]*\))?[ \t]*(.*)$", re.M)
    enum = re.compile(r"\benum\s+\w*\s*\{([^}]*)\}", re.S)
    # Defines and enums in the order of the header, so later ones may use earlier ones.
    items = [(m.start(), "define", m) for m in define.finditer(text)]
    items += [(m.start(), "enum", m) for m in enum.finditer(text)]
    for _, kind, m in sorted(items, key=lambda item: item[0]):
        if kind == "define":
            name, params, body = m.group(1), m.group(2), m.group(3)
            if params is not None:
                names = [p.strip() for p in params[1:-1].split(",") if p.strip()]
                h.functions[name] = (names, tokens(body))
                continue
            h.objects[name] = tokens(body)
            if not body.strip():
                continue  # include guards
            try:
                h.values[name] = h.evaluate(h.objects[name])
            except (ValueError, SyntaxError, ZeroDivisionError):
                skipped += 1
        else:
            nxt = 0
            for entry in m.group(1).split(","):
                entry = entry.strip()
                if not entry:
                    continue
                name, _, expr = entry.partition("=")
                name = name.strip()
                if expr.strip():
                    nxt = h.evaluate(tokens(expr))
                h.values[name] = nxt
                nxt += 1
    return h, skipped


def sv_param(name, value):
    # Bit patterns and addresses (2^24 and up) read best, and compare safely, as 32-bit hex.
    if -(1 << 31) <= value < (1 << 24):
        return "  localparam int %s = %d;" % (name, value)
    if 0 <= value < (1 << 32):
        return "  localparam logic [31:0] %s = 32'h%08x;" % (name, value)
    return "  localparam logic [63:0] %s = 64'h%016x;" % (name, value & ((1 << 64) - 1))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen_sv_pkg.py HEADER PACKAGE_NAME")
    path, package = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        h, skipped = parse(f.read())
    print("// SPDX-License-Identifier: MIT")
    print("// Generated from %s by rtl/gen/gen_sv_pkg.py: do not edit." % path)
    print("// %d integer constants; %d defines that are not integer constants left out."
          % (len(h.values), skipped))
    # A design uses a few constants of a header: the rest are not warnings.
    print("/* verilator lint_off UNUSEDPARAM */")
    print("package %s;" % package)
    for name, value in h.values.items():
        print(sv_param(name, value))
    print("endpackage")
    print("/* verilator lint_on UNUSEDPARAM */")


if __name__ == "__main__":
    main()
