#!/bin/sh
# SPDX-License-Identifier: MIT
# Simulated cards as processes: selftest through a card process, a host killed
# with requests in flight (the card serves the next host), a card killed under a
# waiting host (the host gets an error, never hangs), and nothing left behind.
# Usage: test_sim_faults.sh path/to/quire path/to/quire-sim
set -u
Q=$1
SIM=$2
export QUIRE_SIM="$SIM"
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-faults-XXXXXX")
# The card processes libquire starts put their sockets under TMPDIR: ours, so the checks
# below see only this run's (another test run may share the machine).
export TMPDIR="$T"
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
cleanup() {
	[ -n "${simpid:-}" ] && kill "$simpid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

start_card() { # a card process on $T/card.sock, its messages (hosts coming, going) in $T/card.log
	"$SIM" --socket "$T/card.sock" 2>"$T/card.log" &
	simpid=$!
	wait_until 5 test -S "$T/card.sock"
}

# 1. A card process started by the library for this one host.
out=$("$Q" selftest --backend sim --max-size 4MiB 2>&1)
if printf '%s' "$out" | grep -q "selftest: [0-9]* passed, 0 failed"; then
	ok "selftest --backend sim (card process started by the command)"
else
	ko "selftest --backend sim: $(printf '%s' "$out" | tail -3)"
fi

# 2. A host killed with requests in flight; the card serves the next host. The host is
# killed once it says its NOPs are done: it then runs 64 MiB encodes back to back, one
# always on the card but for a few instructions between two. The card says how many
# commands its host had rung in and not yet seen complete when it went (quire-sim's
# "host gone with N commands in flight"): that confirms the kill came mid-request.
start_card
"$Q" bench card --backend "sim:$T/card.sock" --size 64MiB --repeat 1000 --nops 1 >"$T/host2.log" 2>&1 &
host=$!
if wait_until 120 grep -q "^nop round trip" "$T/host2.log"; then
	kill -9 $host 2>/dev/null
	wait $host 2>/dev/null
	gone() { grep -q "host gone" "$T/card.log"; }
	wait_until 10 gone
	if grep -q "host gone with [1-9][0-9]* commands* in flight" "$T/card.log"; then
		ok "host killed mid-request: $(grep -m1 'host gone' "$T/card.log")"
	else
		ko "host killed, but not mid-request: card says '$(grep 'host gone' "$T/card.log")'"
	fi
else
	ko "host never reached its encodes: $(tail -2 "$T/host2.log")"
	kill -9 $host 2>/dev/null
	wait $host 2>/dev/null
fi
out=$(timeout 60 "$Q" selftest --backend "sim:$T/card.sock" --max-size 1MiB 2>&1)
if printf '%s' "$out" | grep -q "selftest: [0-9]* passed, 0 failed"; then
	ok "host killed in flight: the card serves the next host"
else
	ko "host killed in flight: next host got: $(printf '%s' "$out" | tail -3)"
fi
if kill -0 "$simpid" 2>/dev/null; then ok "card process still up"; else ko "card process died"; fi

# 3. The card killed under a waiting host: an error, never a hang. A small tensor and a
# long stream of NOPs (a million: far longer than the rest of this test) keep the host
# waiting on the card when it dies; the card is killed once the host says its NOPs
# started. The host's timeout is long, so a "peer lost" well within it came from the card
# going away, not from its silence.
HOST_TIMEOUT_MS=20000
QUIRE_TIMEOUT_MS=$HOST_TIMEOUT_MS "$Q" bench card --backend "sim:$T/card.sock" --size 4KiB \
	--repeat 1 --nops 1000000 >"$T/host.log" 2>&1 &
host=$!
if ! wait_until 60 grep -q "^quire bench card: backend" "$T/host.log"; then
	ko "card killed: the host never started its NOPs: $(tail -2 "$T/host.log")"
fi
if alive $host; then
	ok "card killed: the host was running its NOPs"
else
	ko "card killed: the host had ended before the card was killed: $(tail -2 "$T/host.log")"
fi
kill -9 "$simpid"
wait "$simpid" 2>/dev/null
simpid=
start=$(now)
bound=$(echo "$HOST_TIMEOUT_MS" | awk '{ printf "%.2f", $1 / 2000 }') # half the timeout
if ! wait_until 60 none_alive $host; then
	kill -9 $host
	ko "card killed: the host still waits after 60 s"
else
	wait $host
	rc=$?
	took=$(secs "$start" "$(now)")
	if [ $rc -ne 0 ] && grep -q "peer lost" "$T/host.log" &&
		echo "$took $bound" | awk '{ exit !($1 < $2) }'; then
		ok "card killed: the host's wait returned 'peer lost' (exit $rc, ${took} s, under half its timeout: $bound s)"
	else
		ko "card killed: host exit $rc after ${took} s (bound $bound s), output: $(tail -2 "$T/host.log")"
	fi
fi

# 4. Opening a card that is not there is an error, not an abort.
out=$("$Q" info --backend "sim:$T/nothing.sock" 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s' "$out" | grep -q "no device found"; then
	ok "no card at the socket: clear error"
else
	ko "no card at the socket: exit $rc: $out"
fi
out=$(QUIRE_SIM=/nonexistent/quire-sim "$Q" info --backend sim 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s' "$out" | grep -q "cannot start"; then
	ok "no quire-sim to start: clear error"
else
	ko "no quire-sim to start: exit $rc: $out"
fi

# 5. Nothing left behind: no card processes of ours, no socket directories. The cards the
# library started (part 1) get SIGTERM when their host goes: give them a moment to end.
strays() { pgrep -f "quire-sim --socket $T/quire-sim-" >/dev/null 2>&1; }
if ! wait_until 10 eval '! strays'; then
	ko "stray quire-sim processes: $(pgrep -af "quire-sim --socket $T/quire-sim-")"
else
	ok "no stray card processes"
fi
if [ -z "$(ls -d "$T"/quire-sim-* 2>/dev/null)" ]; then
	ok "no socket directories left behind"
else
	ko "socket directories left: $(ls -d "$T"/quire-sim-*)"
fi

summary "sim faults"
[ "$fail" -eq 0 ]
