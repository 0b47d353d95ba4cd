#!/bin/sh
# SPDX-License-Identifier: MIT
# The xrt backend as a user meets it. On this machine, with XRT installed or not, and
# XILINX_XRT unset, empty, /usr, a directory without libxrt_core.so.2 or one with it (so
# that XRT itself is called and finds no card): `quire info` and `quire selftest` say "no
# XRT device" and exit 1, never abort. Then through the fake XRT (tests/xrt/), whose device
# is the card model: a bad URI, a missing or refused image, and selftest passing.
# Usage: test_xrt.sh BUILD
set -u
B=$1
Q=$B/bin/quire
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-xrt-cli-XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/report.sh"

# expect NAME CODE PATTERN -- command...: the exit code, and the output matching PATTERN.
expect() {
	name=$1 code=$2 pattern=$3
	shift 4
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$code" ] && printf '%s' "$out" | grep -q -- "$pattern"; then
		ok "$name"
	else
		ko "$name: exit $rc (want $code), output: $(printf '%s' "$out" | tail -3)"
	fi
}

NODEV="no XRT device (no device found: needs XRT"
mkdir -p "$T/empty" "$T/nolib/lib" "$T/withcore/lib"
# XRT's own libxrt_core.so.2 where Debian puts it, under a directory of the layout XRT wants.
core=$(ls /usr/lib/*/libxrt_core.so.2 /usr/lib/libxrt_core.so.2 2>/dev/null | head -1)
[ -n "$core" ] && ln -s "$core" "$T/withcore/lib/libxrt_core.so.2"
for cmd in info selftest; do
	expect "$cmd, XILINX_XRT unset" 1 "$NODEV" -- env -u XILINX_XRT "$Q" $cmd --backend xrt
	expect "$cmd, XILINX_XRT empty" 1 "$NODEV" -- env XILINX_XRT= "$Q" $cmd --backend xrt
	expect "$cmd, XILINX_XRT an empty directory" 1 "$NODEV" -- env XILINX_XRT="$T/empty" "$Q" $cmd --backend xrt:0
	expect "$cmd, XILINX_XRT=/usr" 1 "$NODEV" -- env XILINX_XRT=/usr "$Q" $cmd --backend xrt:0000:3b:00.0
	expect "$cmd, XILINX_XRT without libxrt_core" 1 "$NODEV" -- env XILINX_XRT="$T/nolib" "$Q" $cmd --backend xrt
	if [ -n "$core" ]; then
		# XRT is called into and looks for a card: none here.
		expect "$cmd, XRT's own core, no card" 1 "$NODEV" -- env XILINX_XRT="$T/withcore" "$Q" $cmd --backend xrt
	fi
	expect "$cmd, no XRT library" 1 "$NODEV" -- env QUIRE_XRT_LIB=/nonexistent/libxrt_coreutil.so.2 "$Q" $cmd --backend xrt
done
expect "a bad xrt URI" 1 "invalid argument (xrt URIs" -- "$Q" info --backend xrt:3b:00.0
expect "help names the xrt URIs" 0 "xrt:DDDD:BB:DD.F" -- "$Q" info --help

# The fake XRT, found through the backend's own dlopen path, its card the model.
UUID=0b5e3c1a-7d2f-4e61-9a3b-5c8d7e6f1a20
PLATFORM=$(sed -n 's/^platform = "\(.*\)"/\1/p' boards/alveo-u250.toml)
printf 'platform %s\nuuid %s\nkernel quire_card\n' "$PLATFORM" "$UUID" >"$T/quire.xclbin"
fake() {
	env QUIRE_XRT_LIB="$B/tests/xrt/lib/libxrt_coreutil.so.2" XILINX_XRT="$B/tests/xrt/root" \
		QUIRE_SIM_LIB="$B/lib/libquire_sim.so.0" FAKE_XRT_DEVICES=1 \
		QUIRE_XCLBIN="$T/quire.xclbin" QUIRE_XRT_UUID=$UUID "$@"
}
expect "fake: no card at index 1" 1 "$NODEV" -- fake "$Q" info --backend xrt:1
expect "fake: no image named" 1 "QUIRE_XCLBIN must name" -- fake env -u QUIRE_XCLBIN "$Q" info --backend xrt
expect "fake: another UUID" 1 "xclbin's UUID" -- fake env QUIRE_XRT_UUID=0b5e3c1a-7d2f-4e61-9a3b-5c8d7e6f1a21 "$Q" info --backend xrt
expect "fake: no UUID pinned for the U250" 1 "xclbin's UUID" -- fake env -u QUIRE_XRT_UUID "$Q" info --backend xrt
expect "fake: info by BDF" 0 "backend        xrt" -- fake "$Q" info --backend xrt:0000:3b:00.0
expect "fake: selftest, every operation against cpu" 0 " 0 failed" -- fake "$Q" selftest --backend xrt

summary "xrt cli"
[ "$fail" -eq 0 ]
