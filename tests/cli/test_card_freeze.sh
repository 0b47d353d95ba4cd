#!/bin/sh
# SPDX-License-Identifier: MIT
# A card that stops answering without going away (SIGSTOP: a hung simulator or a
# wedged card). One card: a selftest whose card freezes mid-run has the operation in
# flight time out within one timeout (plus a margin), every later one failing at once. Four cards: an
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
	[ -n "${host:-}" ] && kill -KILL "$host" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
within() { echo "$1 $2" | awk '{ exit !($1 <= $2) }'; }

# 1. One card, frozen under a selftest with most of its checks still to run. The selftest
# writes its lines to a pipe we fill first, so its first flush (the header and the NOP's
# line, written once the card has served INFO and a NOP) holds it in write(2) however fast
# the machine is: the card is frozen while it is held there, then the pipe is drained and
# every later check meets the frozen card.
"$SIM" --socket "$T/card.sock" --quiet &
simpid=$!
wait_until 5 test -S "$T/card.sock"
mkfifo "$T/out"
exec 3<>"$T/out" # read-write: neither open waits for the other end
# Full, whatever the pipe's size: non-blocking writes of a page until one would block.
dd if=/dev/zero of="$T/out" bs=4096 count=65536 oflag=nonblock 2>/dev/null
QUIRE_TIMEOUT_MS=$LIMIT_MS "$Q" selftest --backend "sim:$T/card.sock" >&3 2>"$T/selftest.err" 3>&- &
host=$!
exec 4<"$T/out" 3>&- # the selftest holds the only writing end now
if wait_until 60 writing_stdout $host; then
	kill -STOP "$simpid"
	frozen=$(now)
	ok "frozen card: the selftest had run INFO and a NOP and was held mid-run when the card froze"
else
	ko "frozen card: the selftest never reached its first line (exit or stuck elsewhere)"
	frozen=$(now)
fi
cat <&4 >"$T/raw" & # as it comes (the filler's zeros first)
drain=$!
exec 4<&-
# Timed from the freeze to the line of the check that timed out (the selftest flushes each
# line): what follows it is the selftest's own work on the cpu backend, which a loaded
# machine slows, and is bounded only loosely.
bound=$(echo "$LIMIT_MS" | awk '{ printf "%.2f", 1.75 * $1 / 1000 }') # one timeout and a margin
said_timeout() { grep -a -q "timed out" "$T/raw"; }
if wait_until 60 eval 'said_timeout || none_alive $host' && said_timeout; then
	took=$(secs "$frozen" "$(now)")
	if within "$took" "$bound"; then
		ok "frozen card: an operation timed out ${took} s after the freeze (limit $bound s: 1.75 timeouts)"
	else
		ko "frozen card: an operation timed out ${took} s after the freeze (limit $bound s)"
	fi
else
	ko "frozen card: no operation timed out (within 60 s of the freeze, or before the selftest ended)"
fi
if ! wait_until 120 none_alive $host; then
	kill -9 $host
	ko "frozen card: selftest still running 120 s after the freeze"
else
	wait $host
	rc=$?
	wait $drain
	tr -d '\000' <"$T/raw" >"$T/selftest.log"
	cat "$T/selftest.err" >>"$T/selftest.log"
	if [ $rc -ne 0 ]; then
		ok "frozen card: selftest exit $rc, $(secs "$frozen" "$(now)") s after the freeze"
	else
		ko "frozen card: selftest exit $rc: $(tail -3 "$T/selftest.log")"
	fi
	if grep -q "^ok   nop" "$T/selftest.log" && grep -q "timed out" "$T/selftest.log" &&
		grep -q "card unresponsive" "$T/selftest.log"; then
		ok "frozen card: the NOP before it passed, one operation timed out, the later ones failed at once (unresponsive)"
	else
		ko "frozen card: expected the NOP's ok, a timeout, then 'card unresponsive': $(grep -m3 -e FAIL -e nop "$T/selftest.log")"
	fi
fi
kill -KILL "$simpid"
wait "$simpid" 2>/dev/null
simpid=

# 2. Four cards under quire-cluster, card 3 frozen in the middle of a 32 MiB all-reduce
# (test_card_fault makes sure every other card has it in flight first).
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
	bound2=$(echo "$LIMIT_MS" | awk '{ printf "%.2f", 2 * $1 / 1000 }')
	if [ -n "$fault" ]; then
		took=$(secs "$fault" "$ended")
		if [ $rc -ne 0 ] || [ "${f:-1}" -ne 0 ]; then
			ko "frozen card in a 4-card job: exit $rc"
		elif within "$took" "$bound2"; then
			ok "frozen card in a 4-card job: the whole job ended ${took} s after the freeze (two timeouts: $bound2 s)"
		else
			ko "frozen card in a 4-card job: ended ${took} s after the freeze (two timeouts: $bound2 s)"
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
