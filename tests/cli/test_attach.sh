#!/bin/sh
# SPDX-License-Identifier: MIT
# Attaching to a card process (issue 29). A card stopped (SIGSTOP: a hung simulator, a
# wedged card) before any host attached: the attach fails with "timed out" and "did not
# answer" within the caller's timeout, having waited for most of it. A card that serves
# another host: "busy", naming that host's pid, after the wait the caller chose
# (QUIRE_ATTACH_WAIT_MS); a host that waits longer gets the card once the holder leaves.
# Each case runs on a quiet machine, then beside a busy-loop hog per core. The RTL card
# (quire-sim --model rtl, the same server) is tried too where it is built. Every process
# is started here and ended in the trap; a card is stopped only once it has answered.
# Usage: test_attach.sh BUILD_DIR
set -u
B=$1
Q="$B/bin/quire"
SIM="$B/bin/quire-sim"
LIMIT_MS=2000 # the caller's timeout, QUIRE_TIMEOUT_MS
WAIT_MS=1500  # how long a host waits its turn, QUIRE_ATTACH_WAIT_MS
MARGIN_MS=1000
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-attach-XXXXXX")
export TMPDIR="$T"
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
started="" # every process of ours, for the trap
hogs=""    # timeout(1) processes: on SIGTERM they end their busy loop too (not on SIGKILL)
cleanup() {
	for p in $hogs; do kill -TERM "$p" 2>/dev/null; done
	for p in $started; do
		kill -CONT "$p" 2>/dev/null # a stopped process acts on no signal
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ms() { echo $(($(date +%s%N) / 1000000)); }

# start_card NAME MODEL LABEL: a card process on $T/NAME.sock, up and answering (a host
# attached and left), its messages in $T/NAME.log, its pid in $card; 0 when it is, else
# said as a failure (the card ended).
start_card() {
	"$SIM" --socket "$T/$1.sock" --model "$2" 2>"$T/$1.log" &
	card=$!
	started="$started $card"
	# -s: the log may not be there yet, the shell that makes it being still on its way.
	if wait_until 120 grep -qs "card ready on" "$T/$1.log" &&
		"$Q" info --backend "sim:$T/$1.sock" >/dev/null 2>&1 &&
		wait_until 10 grep -q "host gone" "$T/$1.log"; then
		return 0
	fi
	ko "$3 $2: the card did not come up: $(tail -2 "$T/$1.log")"
	stop_card
	return 1
}
stop_card() {
	kill -CONT "$card" 2>/dev/null
	kill -KILL "$card" 2>/dev/null
	wait "$card" 2>/dev/null
}

# attach_fails WHAT LIMIT_MS PATTERN COMMAND...: the command (an attach) fails, after most
# of LIMIT_MS and at most a margin past it, with its error line matching PATTERN.
attach_fails() {
	what=$1
	limit=$2
	pattern=$3
	shift 3
	t0=$(ms)
	"$@" >"$T/out" 2>&1
	rc=$?
	took=$(($(ms) - t0))
	msg=$(grep "backend" "$T/out" | head -1)
	if [ $rc -ne 0 ] && [ $took -ge $((limit * 3 / 4)) ] && [ $took -le $((limit + MARGIN_MS)) ]; then
		ok "$what: exit $rc after $took ms (limit $limit ms)"
	else
		ko "$what: exit $rc after $took ms (limit $limit ms): $msg"
	fi
	if printf '%s' "$msg" | grep -q "$pattern"; then
		ok "$what says: ${msg#*: backend }"
	else
		ko "$what: no '$pattern' in: $msg"
	fi
}

# silent MODEL LABEL: a card stopped before any host attached.
silent() {
	name="silent-$1-$2"
	start_card "$name" "$1" "$2" || return
	kill -STOP "$card"
	for cmd in info selftest; do
		QUIRE_TIMEOUT_MS=$LIMIT_MS attach_fails "$2 $1: silent card, quire $cmd" $LIMIT_MS \
			"timed out: card at .* did not answer the attach" \
			"$Q" $cmd --backend "sim:$T/$name.sock"
	done
	stop_card
}

# busy MODEL LABEL: a card that serves another host, which is really attached (the card
# said so, with its pid) and holds on to it: a benchmark of a million NOPs, stopped once
# attached (so that it lets go of nothing, and the machine's load is the hogs' alone).
busy() {
	name="busy-$1-$2"
	start_card "$name" "$1" "$2" || return
	"$Q" bench card --backend "sim:$T/$name.sock" --size 4KiB --repeat 1000 --nops 1000000 \
		>/dev/null 2>&1 &
	holder=$!
	started="$started $holder"
	if ! wait_until 60 grep -q "host connected (pid $holder," "$T/$name.log"; then
		ko "$2 $1: the holder (pid $holder) never attached: $(tail -2 "$T/$name.log")"
		stop_card
		return
	fi
	kill -STOP "$holder"
	QUIRE_ATTACH_WAIT_MS=$WAIT_MS QUIRE_TIMEOUT_MS=$LIMIT_MS attach_fails \
		"$2 $1: card in use, quire info" $WAIT_MS \
		"device or queue busy: card at .* in use by pid $holder since" \
		"$Q" info --backend "sim:$T/$name.sock"
	# The holder must still hold the card, or the check proves nothing.
	if [ "$(grep -c "host gone" "$T/$name.log")" -eq 1 ]; then
		ok "$2 $1: the holder held the card all through"
	else
		ko "$2 $1: the holder left the card during the check"
	fi
	# A host that waits long enough gets the card when the holder leaves.
	QUIRE_ATTACH_WAIT_MS=120000 QUIRE_TIMEOUT_MS=$LIMIT_MS "$Q" info \
		--backend "sim:$T/$name.sock" >"$T/$name.next" 2>&1 &
	next=$!
	started="$started $next"
	if wait_until 30 grep -q "host pid $next waits its turn (pid $holder has the card)" \
		"$T/$name.log"; then
		kill -KILL "$holder" # the card sees its socket close
		wait "$holder" 2>/dev/null
		wait "$next"
		rc=$?
		if [ $rc -eq 0 ] && grep -q "host connected (pid $next," "$T/$name.log"; then
			ok "$2 $1: the host in line got the card once the holder left"
		else
			ko "$2 $1: the host in line: exit $rc: $(tail -2 "$T/$name.next")"
		fi
	else
		ko "$2 $1: the card never said that pid $next waits: $(tail -2 "$T/$name.log")"
	fi
	stop_card
}

models=emu
if [ -x "$B/bin/quire-sim-rtl" ] && [ -f "$B/firmware/quire-fw.elf" ]; then
	models="emu rtl"
else
	echo "== attach: the RTL card skipped: no $B/bin/quire-sim-rtl (make rtl)"
fi
for m in $models; do
	silent $m quiet
	busy $m quiet
done
# The same beside a busy loop per core, bounded in time should the trap never run.
for i in $(seq "$(nproc)"); do
	timeout 300 sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
for m in $models; do
	silent $m hogged
	busy $m hogged
done
for p in $hogs; do kill -TERM "$p" 2>/dev/null; done
hogs=""
echo "attach: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
