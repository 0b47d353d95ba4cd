#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Who may include what, floor by floor. A floor is a folder whose README.md has a line
beginning "May include" that names, in backticks, the folders (ending in '/') and files of
other floors its sources may include; every top-level folder with sources must be one, and
a folder inside one may be a floor of its own (host/include/, the public API, inside host/).
A source belongs to the deepest floor around it, and may include its floor's own files
(those of the floors inside it too) and what its README names. This checks every #include
of every C, C++ and assembly source against that, and that none reaches up with "../" (the
build sets include roots: include/, host/include/ and the top of the repository).
Prints one line per breach and "include rules: N passed, N failed".

  include_rules.py [--root DIR]

--root DIR checks the tree at DIR (default: here): the files git tracks where DIR is the top
of a git work tree, else every source file under it."""
import argparse
import os
import re
import subprocess
import sys

ROOTS = ["include", "host/include", "."]  # the build's -I, in order
EXEMPT = {"tests"}  # tests may include anything in the repository
SOURCES = (".c", ".h", ".cpp", ".S")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def rules(folder):
    """The folders and files a floor may include, from its README; None if it is no floor."""
    readme = os.path.join(folder, "README.md")
    if not os.path.exists(readme):
        return None
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"^May include(.*?)(?:\n\s*\n|\Z)", text, re.M | re.S)
    if not m:
        return None
    return [p for p in re.findall(r"`([^`]+)`", m.group(1)) if "/" in p]


def resolve(src, quote, name):
    """The repository path an include names, or None for a system header."""
    here = os.path.dirname(src)
    if quote == '"' and os.path.exists(os.path.join(here, name)):
        return os.path.normpath(os.path.join(here, name))
    for root in ROOTS:
        path = os.path.normpath(os.path.join(root, name))
        if os.path.exists(path):
            return path
    return None


def source_files():
    """The sources to check, relative to the current directory (the tree's top)."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        top = None
    if top and os.path.realpath(top) == os.path.realpath("."):
        return subprocess.check_output(
            ["git", "ls-files"] + ["*" + s for s in SOURCES], text=True).split()
    files = []
    for d, dirs, names in os.walk("."):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        files += [os.path.relpath(os.path.join(d, n)) for n in sorted(names)
                  if n.endswith(SOURCES)]
    return files


def floor_of(src, floors):
    """The deepest floor around src."""
    best = None
    for f in floors:
        if src.startswith(f + "/") and (best is None or len(f) > len(best)):
            best = f
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=".", help="the tree to check (default: here)")
    os.chdir(ap.parse_args().root)
    files = [f for f in source_files() if "/" in f and f.split("/")[0] not in EXEMPT]
    passed = failed = 0
    floors = {}
    for top in sorted({f.split("/")[0] for f in files}):
        floors[top] = rules(top)
        if floors[top] is None:
            print(f"FAIL {top}/README.md has no 'May include' line")
            failed += 1
    # The floors inside a floor: every folder on the way to a source with a README that says.
    for f in files:
        parts = f.split("/")[:-1]
        for i in range(2, len(parts) + 1):
            folder = "/".join(parts[:i])
            if folder not in floors:
                floors[folder] = rules(folder)
    floors = {f: allowed for f, allowed in floors.items() if allowed is not None}
    breaches = {f: [] for f in floors}
    for src in files:
        floor = floor_of(src, floors)
        if floor is None:
            continue  # its top-level folder has no rules: said above
        allowed = floors[floor]
        for n, line in enumerate(open(src, encoding="utf-8", errors="replace"), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            quote, name = m.groups()
            where = f"{src}:{n}: {quote}{name}"
            if "../" in name:
                breaches[floor].append(f"{where}: reaches up with '../' (name it from the top)")
                continue
            path = resolve(src, quote, name)
            if path is None or path.startswith(floor + "/"):
                continue  # a system header, or the floor's own
            if not any(path.startswith(a) if a.endswith("/") else path == a for a in allowed):
                breaches[floor].append(f"{where}: {path} is not in {floor}/'s 'May include'")
    for floor in sorted(floors):
        for b in breaches[floor]:
            print("FAIL " + b)
        if breaches[floor]:
            failed += 1
        else:
            print(f"ok   {floor}/ includes only what its README allows")
            passed += 1
    print(f"include rules: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
