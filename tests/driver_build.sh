#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel driver builds, W=1 and sparse (C=1), with no warning: `make driver`. Then
# Linux 6.1's checkpatch --strict on its sources (`make checkpatch`): no error or warning.
# A missing kernel build tree (linux-headers-amd64), sparse or linux-source-6.1 (which
# holds checkpatch.pl) is a failure naming the package: all are in mk/debian-packages.txt.
# Usage: driver_build.sh BUILD_DIR (from the top of the repository)
set -u
B=${1:-build}
. "$(dirname "$0")/cli/report.sh"
if ! ls -d /lib/modules/*/build >/dev/null 2>&1; then
	missing_pkg "no kernel build tree in /lib/modules/*/build: driver build not run" linux-headers-amd64
elif ! command -v sparse >/dev/null; then
	missing_pkg "sparse not installed: driver build not run" sparse
else
	if make --no-print-directory driver BUILD="$B" >"$B/driver-test.log" 2>&1; then
		ok "$(tail -1 "$B/driver-test.log")"
	else
		n=$(grep -c -E 'warning:|error:' "$B/driver-test.log")
		grep -E 'warning:|error:' "$B/driver-test.log" | head -5 | sed 's/^/    /'
		ko "make driver: $n warnings or errors ($B/driver-test.log)"
	fi
fi
if [ ! -f /usr/src/linux-source-6.1.tar.xz ]; then
	missing_pkg "no /usr/src/linux-source-6.1.tar.xz: checkpatch not run" linux-source-6.1
elif make --no-print-directory checkpatch BUILD="$B" >"$B/checkpatch-test.log" 2>&1; then
	ok "$(tail -1 "$B/checkpatch-test.log")"
else
	grep -E '^(ERROR|WARNING):' -A2 "$B/checkpatch-test.log" | head -12 | sed 's/^/    /'
	ko "make checkpatch: $(grep "^checkpatch (Linux" "$B/checkpatch-test.log" || echo failed) ($B/checkpatch-test.log)"
fi
summary "driver build"
[ "$fail" -eq 0 ]
