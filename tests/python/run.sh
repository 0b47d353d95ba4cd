#!/bin/sh
# SPDX-License-Identifier: MIT
# The Python package against this build: tests/python/test_quire.py under Debian's
# python3 (QUIRE_PYTHON to choose another), then `make install-python` into a scratch
# prefix and the package imported from there. Prints "python: N passed, N failed, N skipped".
# Usage: tests/python/run.sh BUILD
set -u
BUILD=${1:-build}
PY=${QUIRE_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=$(command -v python3)
if ! "$PY" -c 'import numpy' 2>/dev/null; then
	echo "FAIL $PY has no numpy: apt-get install python3-numpy (mk/debian-packages.txt)"
	echo "python: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
# A sanitized libquire needs the sanitizer runtimes loaded before python itself.
if ldd "$BUILD/lib/libquire.so.0" | grep -q libasan; then
	LD_PRELOAD="$(ldd "$BUILD/lib/libquire.so.0" | awk '/libasan|libubsan/ {printf "%s ", $3}')"
	export LD_PRELOAD ASAN_OPTIONS=detect_leaks=0
fi
prefix=$(mktemp -d)
"$PY" tests/python/test_quire.py "$BUILD" >"$prefix/test.log" 2>&1
rc=$?
cat "$prefix/test.log"
passed=$(sed -n 's/^python: \([0-9]*\) passed, [0-9]* failed.*/\1/p' "$prefix/test.log")
failed=$(sed -n 's/^python: [0-9]* passed, \([0-9]*\) failed.*/\1/p' "$prefix/test.log")
skipped=$(sed -n 's/^python: [0-9]* passed, [0-9]* failed, \([0-9]*\) skipped$/\1/p' "$prefix/test.log")
passed=${passed:-0}
failed=${failed:-0}
skipped=${skipped:-0}
[ $rc -ne 0 ] && [ "$failed" -eq 0 ] && failed=1 # died without its count
# The installed package: where make install puts it, loading the libquire it names.
if make -s install-python BUILD="$BUILD" PREFIX="$prefix" LIBDIR="$PWD/$BUILD/lib" >"$prefix/log" 2>&1 &&
	dir=$(ls -d "$prefix"/lib/python3*/dist-packages) &&
	got=$(cd / && PYTHONPATH="$dir" "$PY" -c \
		'import quire; print(quire.__file__, quire.library_path, quire.version())') &&
	case "$got" in "$dir/quire/__init__.py $PWD/$BUILD/lib/libquire.so.0 "*) true ;; *) false ;; esac; then
	echo "ok   make install-python: $got"
	passed=$((passed + 1))
else
	echo "FAIL make install-python into $prefix: ${got:-$(cat "$prefix/log")}"
	failed=$((failed + 1))
fi
rm -rf "$prefix"
echo "python package: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
