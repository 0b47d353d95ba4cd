#!/bin/sh
# SPDX-License-Identifier: MIT
# A card that stops answering without going away (SIGSTOP: a hung simulator or a
# wedged card). One card: a selftest whose card freezes mid-run returns within one
# timeout (plus a margin), every later operation failing at once. Four cards: an
# all-reduce job with one card frozen ends within two timeouts. Nothing of either is
# left running. Only this script's own processes are looked at (another test run may
# share the machine).
# Usage: test_card_freeze.sh BUILD_DIR
set -u
B=$1
Q="$B/bin/quire"
SIM="$B/bin/quire-sim"
LIMIT_MS=2000
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-freeze-XXXXXX")
export TMPDIR="$T" # quire-cluster's cards put their sockets here: ours alone
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
cleanup() {
	[ -n "${simpid:-}" ] && kill -KILL "$simpid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
within() { echo "$1 $2" | awk '{ exit !($1 <= $2) }'; }

# 1. One card, frozen 0.4 s into a selftest (which takes about 1.2 s unhindered).
"$SIM" --socket "$T/card.sock" --quiet &
simpid=$!
wait_until 5 test -S "$T/card.sock"
QUIRE_TIMEOUT_MS=$LIMIT_MS "$Q" selftest --backend "sim:$T/card.sock" >"$T/selftest.log" 2>&1 &
host=$!
sleep 0.4
kill -STOP "$simpid"
frozen=$(now)
if ! wait_until 15 none_alive $host; then
	kill -9 $host
	ko "frozen card: selftest still running 15 s after the freeze"
else
	wait $host
	rc=$?
	took=$(secs "$frozen" "$(now)")
	if [ $rc -ne 0 ] && within "$took" 3.5; then
		ok "frozen card: selftest returned ${took} s after the freeze (limit 2.0 s), exit $rc"
	else
		ko "frozen card: selftest exit $rc after ${took} s: $(tail -3 "$T/selftest.log")"
	fi
	if grep -q "timed out" "$T/selftest.log" && grep -q "card unresponsive" "$T/selftest.log"; then
		ok "frozen card: one operation timed out, the later ones failed at once (unresponsive)"
	else
		ko "frozen card: expected a timeout, then 'card unresponsive': $(grep -m3 FAIL "$T/selftest.log")"
	fi
fi
kill -KILL "$simpid"
wait "$simpid" 2>/dev/null
simpid=

# 2. Four cards under quire-cluster, card 3 frozen in the middle of a 32 MiB all-reduce.
if need_mpi "a card frozen in a 4-card all-reduce" "$B/tests/mpi/test_card_fault"; then
	[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	ASAN_OPTIONS=detect_leaks=0 "$B/bin/quire-cluster" -n 4 -- mpirun -x ASAN_OPTIONS \
		--oversubscribe -np 4 --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		--mca mpi_yield_when_idle 1 "$B/tests/mpi/test_card_fault" $LIMIT_MS stop "tag=$$" \
		>"$T/job.log" 2>&1 &
	job=$!
	wait_until 60 none_alive $job
	ended=$(now)
	if alive $job; then
		kill -TERM $job
		ko "frozen card in a 4-card job: still running after 60 s"
	fi
	wait $job
	rc=$?
	sed 's/^/    /' "$T/job.log" | grep -v "^    -*$"
	p=$(sed -n 's/^card fault: \([0-9]*\) passed.*/\1/p' "$T/job.log")
	f=$(sed -n 's/^card fault: [0-9]* passed, \([0-9]*\) failed/\1/p' "$T/job.log")
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	fault=$(sed -n 's/^fault at //p' "$T/job.log")
	if [ -n "$fault" ]; then
		took=$(secs "$fault" "$ended")
		if [ $rc -ne 0 ] || [ "${f:-1}" -ne 0 ]; then
			ko "frozen card in a 4-card job: exit $rc"
		elif within "$took" 4.0; then
			ok "frozen card in a 4-card job: the whole job ended ${took} s after the freeze (two timeouts: 4.0 s)"
		else
			ko "frozen card in a 4-card job: ended ${took} s after the freeze (two timeouts: 4.0 s)"
		fi
	else
		ko "frozen card in a 4-card job: no fault happened (exit $rc)"
	fi
	# This job's ranks carry this script's tag (another test run may share the machine).
	if pgrep -f "test_card_fault $LIMIT_MS stop tag=$$" >/dev/null 2>&1; then
		ko "ranks of the frozen-card job still running"
	else
		ok "no rank of the frozen-card job left"
	fi
	check_cards() { ! pgrep -f "quire-sim --socket $T/" >/dev/null; }
	if wait_until 2 check_cards; then
		ok "no card of the frozen-card job left"
	else
		ko "cards of the frozen-card job still running: $(pgrep -af "quire-sim --socket $T/")"
	fi
fi
summary "card freeze"
[ "$fail" -eq 0 ]
