#!/bin/sh
# SPDX-License-Identifier: MIT
# A card that is slow but alive is waited for; a card that stops is not. The slow card is
# the RTL card (quire-sim --model rtl): Verilator clocks it a thousand times or more
# slower than its 250 MHz, so a command whose heartbeats are microseconds apart in the
# card's time is seconds apart in wall time. With a context timeout of LIMIT_MS, far
# below those wall-time gaps and far above the card-time ones, a selftest on it must pass
# with nothing declared unresponsive, since the host measures a card's standstill by the
# card's own clock (host/src/core/request.c); the card's cycles and the wall time it took
# are printed. The same card stopped (SIGSTOP) mid-selftest must fail the operation in
# flight with a timeout within a few timeouts of wall time (a card that answers nothing
# has no clock to read), and the selftest must end. Needs quire-sim-rtl (make rtl).
# Usage: test_card_slow.sh BUILD_DIR
set -u
B=$1
LIMIT_MS=1000
BOUND_S=3 # the stopped card: one timeout, and a margin for a loaded machine
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-slow-XXXXXX")
export TMPDIR="$T"
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
trap 'kill -KILL ${simpid:-} ${host:-} 2>/dev/null; rm -rf "$T"' EXIT

for card in slow stopped; do
	# The card process says at its exit how many cycles it clocked (not --quiet).
	"$B/bin/quire-sim" --model rtl --socket "$T/$card.sock" 2>"$T/$card.err" &
	simpid=$!
	if ! wait_until 60 test -S "$T/$card.sock"; then
		ko "$card card: no RTL card process listening after 60 s: $(head -2 "$T/$card.err")"
		continue
	fi
	t0=$(now)
	QUIRE_TIMEOUT_MS=$LIMIT_MS "$B/bin/quire" selftest --backend "sim:$T/$card.sock" \
		--max-size 64KiB >"$T/$card.out" 2>&1 &
	host=$!
	if [ $card = stopped ]; then
		# The selftest flushes each line: two passed checks, and it is mid-run on the card.
		wait_until 300 eval '[ "$(grep -c "^ok" "$T/$card.out")" -ge 2 ] || none_alive $host'
		kill -STOP $simpid
		t0=$(now)
		wait_until 60 eval 'grep -q "timed out" "$T/$card.out" || none_alive $host'
		took=$(secs "$t0" "$(now)")
		if grep -q "timed out" "$T/$card.out" && [ "$(echo "$took $BOUND_S" |
			awk '{ print ($1 <= $2) }')" = 1 ]; then
			ok "stopped card: an operation timed out $took s after the stop (limit $BOUND_S s)"
		else
			ko "stopped card: no timeout within $BOUND_S s of the stop ($took s)"
		fi
	fi
	wait_until 600 none_alive $host || kill -KILL $host # a hang: said as a failure below
	wait $host
	rc=$?
	took=$(secs "$t0" "$(now)")
	host=
	if [ $card = slow ]; then
		kill -TERM $simpid
		wait $simpid 2>/dev/null
		simpid=
		cycles=$(sed -n 's/.*RTL card: \([0-9]*\) cycles clocked.*/\1/p' "$T/$card.err")
		if [ $rc -eq 0 ] && ! grep -q -e "timed out" -e "unresponsive" "$T/$card.out"; then
			ms=$(echo "${cycles:-0}" | awk '{ printf "%.1f", $1 / 250000 }')
			ok "slow card: selftest passed with a $LIMIT_MS ms timeout in $took s; the card clocked ${cycles:-?} cycles ($ms ms at 250 MHz)"
		else
			ko "slow card: selftest exit $rc: $(grep -m 3 FAIL "$T/$card.out")"
		fi
	elif [ $rc -ne 0 ] && grep -q "unresponsive" "$T/$card.out"; then
		ok "stopped card: selftest exit $rc, the later checks failing at once (unresponsive)"
	else
		ko "stopped card: selftest exit $rc: $(tail -2 "$T/$card.out")"
	fi
done
kill -KILL ${simpid:-} 2>/dev/null
wait 2>/dev/null
simpid=
summary "slow card"
