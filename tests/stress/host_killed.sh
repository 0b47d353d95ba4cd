#!/bin/sh
# SPDX-License-Identifier: MIT
# Stress, not a test of make test: a host killed (-9) with a long command and a thousand more
# to come (the card confirms one was in flight), then at once the next host, whose selftest must pass; N times (default 200),
# beside a CPU hog on every core, as the machine of the failure report was loaded. Prints
# "host killed: N passed, N failed" and the time it took.
# Usage: tests/stress/host_killed.sh [BUILD_DIR [N]]
set -u
B=${1:-build}
N=${2:-200}
Q="$B/bin/quire"
SIM="$B/bin/quire-sim"
T=$(mktemp -d /tmp/quire-stress-XXXXXX)
hogs=""
cleanup() {
	[ -n "$hogs" ] && kill $hogs 2>/dev/null
	[ -n "${sp:-}" ] && kill -KILL "$sp" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
for i in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
passed=0
failed=0
start=$(date +%s)
for i in $(seq "$N"); do
	rm -f "$T/card.sock" "$T/card.log" "$T/host.log" # nothing of the run before is read
	"$SIM" --socket "$T/card.sock" 2>"$T/card.log" &
	sp=$!
	k=0
	while [ ! -S "$T/card.sock" ] && [ $k -lt 200 ]; do sleep 0.02; k=$((k + 1)); done
	"$Q" bench card --backend "sim:$T/card.sock" --size 64MiB --repeat 1000 --nops 1 \
		>"$T/host.log" 2>&1 &
	h=$!
	# Killed once its NOPs are done (it then runs 64 MiB encodes back to back); the card
	# says whether the host had a command in flight ("host gone with N commands in flight").
	k=0
	while ! grep -q "^nop round trip" "$T/host.log" 2>/dev/null && [ $k -lt 1200 ]; do sleep 0.05; k=$((k + 1)); done
	kill -9 $h 2>/dev/null
	wait $h 2>/dev/null
	k=0
	while ! grep -q "host gone" "$T/card.log" && [ $k -lt 200 ]; do sleep 0.05; k=$((k + 1)); done
	if ! grep -q "host gone with [1-9][0-9]* commands* in flight" "$T/card.log"; then
		failed=$((failed + 1))
		echo "run $i: the host was not killed mid-request: $(tail -2 "$T/card.log"); host: $(tail -1 "$T/host.log")"
	elif out=$(timeout 60 "$Q" selftest --backend "sim:$T/card.sock" --max-size 1MiB 2>&1) &&
		printf '%s' "$out" | grep -q "selftest: [0-9]* passed, 0 failed"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "run $i: $(printf '%s' "$out" | tail -2)"
	fi
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	sp=
done
echo "host killed: $passed passed, $failed failed ($(($(date +%s) - start)) s, $(nproc) CPU hogs)"
[ "$failed" -eq 0 ]
