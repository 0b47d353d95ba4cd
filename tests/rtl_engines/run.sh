#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every engine testbench of tests/rtl_engines/ (built by `make rtl-engines`
# into BUILD/tests/rtl_engines/) and prints one closing line
# "rtl engines: N passed, N failed" counting their cases, with the rates they print held to
# docs/rtl-engines.md's (tests/rtl_figures.py). Exit status 1 on any failure.
# Usage: run.sh [BUILD]
set -u
build=${1:-build}
passed=0
failed=0
rates=$(mktemp "${TMPDIR:-/tmp}/quire-rtl-rates-XXXXXX")
trap 'rm -f "$rates"' EXIT
tally() { # tally OUTPUT RC: the output's counts added to the run's
	p=$(echo "$1" | sed -n 's/.* \([0-9]*\) passed, [0-9]* failed$/\1/p' | tail -1)
	f=$(echo "$1" | sed -n 's/.* [0-9]* passed, \([0-9]*\) failed$/\1/p' | tail -1)
	p=${p:-0}
	f=${f:-0}
	# A program that ends non-zero without counting a failure failed all the same.
	[ "$2" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	passed=$((passed + p))
	failed=$((failed + f))
}
for engine in quant_exp quant_encode quant_decode reduce_sum reduce_max_exp reduce_fp_sum mlp; do
	tb="$build/tests/rtl_engines/tb_$engine"
	if [ ! -x "$tb" ]; then
		echo "rtl $engine: FAIL $tb is not built (make rtl-engines)"
		failed=$((failed + 1))
		continue
	fi
	out=$("$tb" 2>&1)
	rc=$?
	echo "$out"
	echo "$out" >>"$rates"
	tally "$out" $rc
done
# Their rates against the documented ones: a regression fails, naming the figure.
out=$(/usr/bin/python3 tests/rtl_figures.py engines "$rates" 2>&1)
rc=$?
echo "$out"
tally "$out" $rc
echo "rtl engines: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
