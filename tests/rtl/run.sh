#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the rv32im core's instruction tests (BUILD/tests/rtl/*.elf) on
# quire-rv32-run, then the runner's own checks (console, a bad ELF, the
# cycle limit), and prints "rtl core: N passed, N failed".
# Usage: run.sh [BUILD]
set -u
B=${1:-build}
RUN="$B/bin/quire-rv32-run"
passed=0
failed=0
ok() {
	echo "ok   $1"
	passed=$((passed + 1))
}
ko() {
	echo "FAIL $1"
	failed=$((failed + 1))
}
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-rtl-XXXXXX")
trap 'rm -rf "$T"' EXIT

for elf in "$B"/tests/rtl/*.elf; do
	[ -e "$elf" ] || { ko "no test programs in $B/tests/rtl (make rtl)"; break; }
	name=$(basename "$elf" .elf)
	"$RUN" --max-cycles 2000000 --stats "$elf" >"$T/out" 2>"$T/err"
	rc=$?
	stats=$(sed -n 's/^quire-rv32-run: \(.* CPI .*\)/\1/p' "$T/err")
	if [ "$name" = console ]; then
		# The console test prints a known line: the runner must pass it through.
		if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = "hello from rv32im" ]; then
			ok "$name: console forwarded ($stats)"
		else
			ko "$name: exit $rc, printed '$(cat "$T/out")'"
		fi
	elif [ $rc -eq 0 ]; then
		ok "$name ($stats)"
	else
		ko "$name: exit $rc (the number of the failing check; 128 + it on an unexpected trap)"
		sed 's/^/    /' "$T/out" "$T/err"
	fi
done

# A file that is not an ELF: a clear message and the runner's own status, 125.
printf 'not an elf\n' >"$T/bad.elf"
"$RUN" "$T/bad.elf" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'not an ELF file' "$T/err"; then
	ok "a bad ELF is refused: $(cat "$T/err")"
else
	ko "a bad ELF: exit $rc, $(cat "$T/err")"
fi

# The cycle limit: the divider test cannot finish in 100 cycles; status 124.
"$RUN" --max-cycles 100 "$B/tests/rtl/muldiv.elf" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 124 ] && grep -q 'no sim-exit after 100 cycles' "$T/err"; then
	ok "the cycle limit stops a run (status 124)"
else
	ko "the cycle limit: exit $rc, $(cat "$T/err")"
fi

echo "rtl core: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
