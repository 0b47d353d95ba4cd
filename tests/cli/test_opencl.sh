#!/bin/sh
# SPDX-License-Identifier: MIT
# The opencl backend as a user meets it: without an OpenCL platform, and with bad URIs, a
# clear error and exit 1 (never a crash); on a platform (PoCL in CI), every operation bit
# for bit against cpu from 1 element to 16 MiB, the device list, and the bench rows.
# Usage: test_opencl.sh BUILD
set -u
B=$1
Q=$B/bin/quire
T=$(mktemp -d /tmp/quire-opencl-XXXXXX)
. "$(dirname "$0")/report.sh"
trap 'rm -rf "$T"' EXIT

# fails NAME PATTERN -- quire arguments...: exit status 1 (not a signal), output matching.
fails() {
	name=$1 pattern=$2
	shift 3
	out=$("$Q" "$@" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && printf '%s' "$out" | grep -q -- "$pattern"; then
		ok "$name"
	else
		ko "$name: exit $rc (want 1), output: $(printf '%s' "$out" | head -2)"
	fi
}

# 1. No platform: the ICD loader finds no vendor in an empty directory.
mkdir "$T/no-vendors"
export OCL_ICD_VENDORS="$T/no-vendors"
fails "no OpenCL platform: quire info says so" "no device found (no such OpenCL platform" -- \
	info --backend opencl
fails "no OpenCL platform: quire selftest says so" "no device found" -- selftest --backend opencl
fails "no OpenCL platform: bench codec --backend says so" "no device found" -- \
	bench codec --backend opencl --size 4K --repeat 1
unset OCL_ICD_VENDORS

# 2. URIs that name nothing.
for uri in opencl:x opencl:0 opencl:0:0:0 opencl:-1:0 "opencl:0:"; do
	fails "URI '$uri' is refused" "invalid argument (opencl URIs" -- info --backend "$uri"
done
fails "URI opencl:200:0 names no platform" "no device found" -- info --backend opencl:200:0

# 3. On a platform (decided apart from quire: a broken backend fails here): the real work.
if ! has_opencl; then
	missing_pkg "no OpenCL platform: the backend not run" ocl-icd-libopencl1 pocl-opencl-icd
else
	"$Q" info --backend opencl >"$T/info" 2>&1
	if grep -q "^  opencl:0:0 " "$T/info" && grep -q "^backend *opencl" "$T/info"; then
		ok "quire info --backend opencl lists the devices"
	else
		ko "quire info --backend opencl: $(cat "$T/info")"
	fi
	start=$(date +%s)
	# Under ASan, LeakSanitizer's exit scan crashes in PoCL's dynamic TLS after the selftest
	# passed ("Tracer caught signal 11", a DTLS range of 0x1c-0x80000111e; Debian 12's
	# glibc and gcc-12's libsanitizer): no leak check in this process. Leaks of libquire's
	# opencl backend stay checked by the unit test (tests/test_opencl.c) under LSan.
	if ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		"$Q" selftest --backend opencl >"$T/st" 2>&1 && grep -q "n=4194304" "$T/st"; then
		ok "selftest --backend opencl: $(tail -1 "$T/st"), 1 to 4194304 elements, $(($(date +%s) - start)) s"
	else
		ko "selftest --backend opencl: $(grep -v '^ok' "$T/st" | head -5)"
	fi
	if "$Q" bench codec --backend opencl --size 1M --repeat 1 >"$T/bench" 2>&1 &&
		grep -q "^encode bfp8, backend opencl .*cpu backend" "$T/bench" &&
		grep -q "^decode bfp8, backend opencl .*cpu backend" "$T/bench"; then
		ok "bench codec --backend opencl: $(grep 'backend opencl' "$T/bench" | head -1)"
	else
		ko "bench codec --backend opencl: $(tail -3 "$T/bench")"
	fi
fi
summary "opencl"
[ "$fail" -eq 0 ]
