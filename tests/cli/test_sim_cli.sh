#!/bin/sh
# SPDX-License-Identifier: MIT
# quire-sim's command line as a user meets it: --socket replaces only a stale socket
# (never a file, a directory or a live card's socket); --mem takes whole MiB from what the
# firmware needs up, and says so.
# Usage: test_sim_cli.sh path/to/quire path/to/quire-sim
set -u
Q=$1
SIM=$2
T=$(mktemp -d /tmp/quire-sim-cli-XXXXXX)
. "$(dirname "$0")/report.sh"
cards=""
cleanup() {
	for p in $cards; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

# start_card SOCKET [OPTION...]: a card process in the background, waited for until its
# socket is there (5 s at most); sets card to its pid.
start_card() {
	sock=$1
	shift
	"$SIM" --socket "$sock" --quiet "$@" &
	card=$!
	cards="$cards $card"
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# refused NAME PATTERN -- quire-sim arguments...: exit 1 at once (a quire-sim that serves
# instead is stopped after 5 s), the output matching PATTERN.
refused() {
	name=$1 pattern=$2
	shift 3
	out=$(timeout 5 "$SIM" "$@" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && printf '%s' "$out" | grep -q -- "$pattern"; then
		ok "$name"
	else
		ko "$name: exit $rc (want 1), output: $(printf '%s' "$out" | head -2)"
	fi
}

card_answers() { # card_answers SOCKET: a host reaches a card there
	"$Q" info --backend "sim:$1" 2>&1 | grep -q "firmware .*running"
}

# 1. A regular file at the socket's path is someone's data: refused, left byte for byte.
head -c 4194304 /dev/urandom >"$T/victim.f32"
cp "$T/victim.f32" "$T/victim.copy"
refused "--socket on a regular file: refused" "not a socket" -- --socket "$T/victim.f32" --once
if cmp -s "$T/victim.f32" "$T/victim.copy"; then
	ok "--socket on a regular file: the file is intact"
else
	ko "--socket on a regular file: the file is gone or changed"
fi

# 2. A directory: refused, still there.
mkdir "$T/dir"
: >"$T/dir/keep"
refused "--socket on a directory: refused" "not a socket" -- --socket "$T/dir" --once
if [ -f "$T/dir/keep" ]; then ok "--socket on a directory: left alone"; else ko "--socket on a directory: removed"; fi

# 3. A live card's socket: refused; that card still answers.
start_card "$T/live.sock"
live=$card
refused "--socket of a live card: refused" "listening on it already" -- --socket "$T/live.sock" --once
if card_answers "$T/live.sock"; then
	ok "--socket of a live card: that card still answers"
else
	ko "--socket of a live card: the card no longer answers"
fi
kill "$live" 2>/dev/null
wait "$live" 2>/dev/null

# 4. A stale socket (its card killed, nobody listening): replaced by the new card.
start_card "$T/stale.sock"
kill -9 "$card" 2>/dev/null
wait "$card" 2>/dev/null
if [ -S "$T/stale.sock" ]; then
	start_card "$T/stale.sock" # returns at once: the old socket is there
	i=0
	while ! card_answers "$T/stale.sock" && kill -0 "$card" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if card_answers "$T/stale.sock"; then
		ok "--socket on a stale socket: replaced, the new card answers"
	else
		ko "--socket on a stale socket: no card answers there"
	fi
else
	ko "a killed card left no stale socket to test with"
fi

# 5. --mem: anything but whole MiB within bounds is bad usage (exit 2) naming the option
# and the firmware's minimum; the minimum itself makes a card a host can use.
bounds=$("$SIM" --help | sed -n 's/.*--mem MiB *card memory, \([0-9]*\) (what the firmware needs) to \([0-9]*\);.*/\1 \2/p')
if [ -n "$bounds" ]; then
	ok "--help says the bounds of --mem ($bounds MiB)"
else
	ko "--help does not say the bounds of --mem"
	bounds="69 4096"
fi
min=${bounds% *} max=${bounds#* }
for bad in abc 0 1 $((min - 1)) -5 12x $((max + 1)) 99999999999999999999; do
	out=$(timeout 5 "$SIM" --socket "$T/mem.sock" --mem "$bad" 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && printf '%s' "$out" | grep -q -- "--mem wants whole MiB from $min"; then
		ok "--mem $bad refused"
	else
		ko "--mem $bad: exit $rc (want 2), output: $(printf '%s' "$out" | head -2)"
	fi
	rm -f "$T/mem.sock"
done
start_card "$T/min.sock" --mem "$min"
if "$Q" info --backend "sim:$T/min.sock" 2>&1 | grep -q "card memory *$min MiB"; then
	ok "--mem $min: a host finds the card"
else
	ko "--mem $min: no host finds the card"
fi

echo "sim cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
