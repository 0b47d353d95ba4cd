#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel driver builds, W=1 and sparse (C=1), with no warning: `make driver`. Skipped
# with a note where no kernel build tree (linux-headers-amd64) or no sparse is installed.
# Usage: driver_build.sh BUILD_DIR (from the top of the repository)
set -u
B=${1:-build}
. "$(dirname "$0")/cli/report.sh"
if ! ls -d /lib/modules/*/build >/dev/null 2>&1; then
	echo "note: no kernel build tree: driver build skipped (apt-get install linux-headers-amd64)"
elif ! command -v sparse >/dev/null; then
	echo "note: sparse not installed: driver build skipped (apt-get install sparse)"
else
	if make --no-print-directory driver BUILD="$B" >"$B/driver-test.log" 2>&1; then
		ok "$(tail -1 "$B/driver-test.log")"
	else
		n=$(grep -c -E 'warning:|error:' "$B/driver-test.log")
		grep -E 'warning:|error:' "$B/driver-test.log" | head -5 | sed 's/^/    /'
		ko "make driver: $n warnings or errors ($B/driver-test.log)"
	fi
fi
echo "driver build: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
