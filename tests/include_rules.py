#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Who may include what: each top-level folder's README.md has a line beginning
"May include" that names, in backticks, the folders (ending in '/') and files of
other tiers its sources may include. This checks every #include of every tracked
C, C++ and assembly source against it, and that none reaches up with "../" (the
build sets include roots: include/, host/include/ and the top of the repository).
Prints one line per breach and "include rules: N passed, N failed"."""
import os
import re
import subprocess
import sys

ROOTS = ["include", "host/include", "."]  # the build's -I, in order
EXEMPT = {"tests"}  # tests may include anything in the repository
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def rules(top):
    """The tiers a top-level folder may include, from its README."""
    readme = os.path.join(top, "README.md")
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


def main():
    files = subprocess.check_output(
        ["git", "ls-files", "*.c", "*.h", "*.cpp", "*.S"], text=True).split()
    passed = failed = 0
    for top in sorted({f.split("/")[0] for f in files if "/" in f}):
        if top in EXEMPT:
            continue
        allowed = rules(top)
        if allowed is None:
            print(f"FAIL {top}/README.md has no 'May include' line")
            failed += 1
            continue
        bad = []
        for src in (f for f in files if f.startswith(top + "/")):
            for n, line in enumerate(open(src, encoding="utf-8", errors="replace"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                quote, name = m.groups()
                where = f"{src}:{n}: {quote}{name}"
                if "../" in name:
                    bad.append(f"{where}: reaches up with '../' (name it from the top)")
                    continue
                path = resolve(src, quote, name)
                if path is None or path.startswith(top + "/"):
                    continue  # a system header, or the folder's own
                if not any(path.startswith(a) if a.endswith("/") else path == a
                           for a in allowed):
                    bad.append(f"{where}: {path} is not in {top}/'s 'May include'")
        for b in bad:
            print("FAIL " + b)
        if bad:
            failed += 1
        else:
            print(f"ok   {top}/ includes only what its README allows")
            passed += 1
    print(f"include rules: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
