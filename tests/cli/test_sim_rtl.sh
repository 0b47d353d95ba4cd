#!/bin/sh
# SPDX-License-Identifier: MIT
# quire-sim --model rtl: the RTL card (Verilator) served as a card process, met by the
# same clients as the emu: quire info, quire selftest (engines the card does not name
# are skipped, the rest bit for bit against cpu), libquire's tests/test_api.c and
# tests/test_sched_api.c, quire sched place and bench, quire
# bench card; an idle card sleeps;
# the card process is ended and nothing is left. Needs quire-sim-rtl (make rtl).
# Usage: test_sim_rtl.sh BUILD
set -u
B=$1
Q=$B/bin/quire
SIM=$B/bin/quire-sim
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-rtl-XXXXXX")
export TMPDIR="$T"
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
cleanup() {
	[ -n "${simpid:-}" ] && kill "$simpid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

expect_exit() { # expect_exit WHAT CODE TEXT -- COMMAND...
	what=$1 code=$2 text=$3
	shift 4
	"$@" >"$T/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$code" ] && grep -q -- "$text" "$T/out"; then
		ok "$what: exit $rc"
	else
		ko "$what: exit $rc (wanted $code and '$text'): $(head -2 "$T/out")"
	fi
}
expect_exit "--model bogus refused" 2 "wants emu or rtl" -- "$SIM" --model bogus --socket "$T/x.sock"
expect_exit "--model rtl --mem refused" 2 "no --mem" -- "$SIM" --model rtl --mem 128 --socket "$T/x.sock"
expect_exit "--model rtl without quire-sim-rtl" 1 "has no RTL card" -- \
	env QUIRE_SIM_RTL="$T/none" "$SIM" --model rtl --socket "$T/x.sock"
expect_exit "--model rtl without firmware" 1 "QUIRE_FW_ELF" -- \
	env QUIRE_FW_ELF="$T/none.elf" "$SIM" --model rtl --socket "$T/x.sock"

"$SIM" --model rtl --socket "$T/card.sock" --quiet &
simpid=$!
if ! wait_until 30 test -S "$T/card.sock"; then
	ko "quire-sim --model rtl: no socket after 30 s"
	summary "rtl card process"
	exit 1
fi
ok "quire-sim --model rtl: listening"

timeout 30 "$Q" info --backend "sim:$T/card.sock" >"$T/info" 2>&1
if grep -q "running" "$T/info" && grep -q "^capabilities .*codec" "$T/info"; then
	ok "quire info: $(grep -m1 '^board' "$T/info" | tr -s ' '); $(grep '^capabilities' "$T/info" | tr -s ' ')"
else
	ko "quire info: $(cat "$T/info")"
fi

timeout 300 "$Q" selftest --backend "sim:$T/card.sock" --max-size 4KiB >"$T/selftest" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "selftest: [0-9]* passed, 0 failed" "$T/selftest"; then
	ok "quire selftest --max-size 4KiB: $(tail -1 "$T/selftest")"
	grep "^skip" "$T/selftest" >"$T/skips" && while read -r l; do skip "selftest on the RTL card: $l"; done <"$T/skips"
else
	ko "quire selftest (exit $rc): $(grep -m5 -e FAIL -e 'selftest:' "$T/selftest")"
fi
# What the card names in its capabilities is tested and passes (a check of it answered
# "not supported" is a failure here), what it does not name is said to be skipped.
for engine in reduce mlp; do
	if grep -q "^capabilities .*$engine" "$T/info"; then
		if grep -q "^ok   $engine " "$T/selftest" &&
			! grep -q -e "^skip $engine " -e "^FAIL $engine " "$T/selftest"; then
			ok "selftest: $engine in the caps, its $(grep -c "^ok   $engine " "$T/selftest") checks ran and passed"
		else
			ko "selftest: $engine in the caps but not all run and passed: $(grep "$engine " "$T/selftest" | tr -s ' ' | tr '\n' ';')"
		fi
	elif grep -q "skipped: the card has no $engine engine" "$T/selftest"; then
		ok "selftest: $engine not in the caps, said skipped"
	else
		ko "selftest: $engine neither in the caps nor said skipped"
	fi
done
# The RTL card has an MLP engine (rtl/card/quire_card_mlp.sv): its caps name it, and the
# selftest's MLP checks (load, 1000 candidates, none feasible) ran and passed.
if grep -q "^capabilities .*mlp" "$T/info" && [ "$(grep -c '^ok   mlp ' "$T/selftest")" -eq 3 ] &&
	! grep -q "^FAIL mlp" "$T/selftest"; then
	ok "selftest: the MLP checks ran on the RTL card: $(grep '^ok   mlp ' "$T/selftest" | tr -s ' ' | tr '\n' ';')"
else
	ko "selftest: the MLP checks did not all run and pass: $(grep -e mlp "$T/selftest" | tr '\n' ';')"
fi

# libquire's single-card tests, unchanged but for the card they open (QUIRE_TEST_CARD): what
# needs an engine the card lacks says it is skipped. The RTL card runs some thousand times
# slower than its 250 MHz; the contexts' default timeout holds all the same, since libquire
# measures a card's standstill by the card's own clock (docs/failures.md).
QUIRE_TEST_CARD="sim:$T/card.sock" timeout 300 "$B/tests/test_api" \
	>"$T/api" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "^\[  PASSED  \] [0-9]* test" "$T/api" && ! grep -q "FAILED" "$T/api"; then
	ok "tests/test_api.c on the RTL card: $(grep '^\[  PASSED' "$T/api")"
	grep "^skip" "$T/api" >"$T/skips" && while read -r l; do skip "tests/test_api.c on the RTL card: $l"; done <"$T/skips"
else
	ko "tests/test_api.c on the RTL card (exit $rc): $(grep -m5 -e FAIL -e ERROR -e "rounds failed" "$T/api")"
fi

# The scheduler's API (tests/test_sched_api.c): the golden models' scores and choices bit
# for bit on the RTL card too, its errors, a model loaded again after another.
QUIRE_TEST_CARD="sim:$T/card.sock" timeout 300 "$B/tests/test_sched_api" \
	>"$T/sapi" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "l2_wide_c1024 on sim:$T/card.sock: 1024 candidates" "$T/sapi" &&
	grep -q "^\[  PASSED  \] 5 test" "$T/sapi"; then
	ok "tests/test_sched_api.c on the RTL card: $(grep "l2_wide_c1024 on sim:$T" "$T/sapi")"
else
	ko "tests/test_sched_api.c on the RTL card (exit $rc): $(grep -m5 -e FAIL -e ERROR "$T/sapi")"
fi
# quire sched place on it: a random 17-64-32-1 model (tests/ref/mlp_ref.py's writer), the
# same candidates, int8 features, scores and choice as on cpu.
R=$(dirname "$0")/..
if "${PYTHON:-python3}" -c "import random, sys; sys.path.insert(0, sys.argv[1]); import mlp_ref as r; \
W = [17, 64, 32, 1]; open(sys.argv[2], 'wb').write(r.image(W, r.random_model(random.Random(3), W)))" \
	"$R/ref" "$T/place.qmlp"; then
	for b in cpu "sim:$T/card.sock"; do
		timeout 120 "$Q" sched place --model-file "$T/place.qmlp" \
			--backend "$b" --verbose <"$R/fuzz/corpus-place/place.csv" 2>&1 |
			grep -v '^#' >"$T/place.$(echo "$b" | cut -c1-3)"
	done
	if [ -s "$T/place.cpu" ] && cmp -s "$T/place.cpu" "$T/place.sim"; then
		ok "quire sched place on the RTL card: as on cpu, chose $(tail -1 "$T/place.sim")"
	else
		ko "quire sched place on the RTL card differs from cpu: $(diff "$T/place.cpu" "$T/place.sim" | head -4)"
	fi
else
	ko "quire sched place on the RTL card: the model writer failed"
fi
# The decision latency on it, in card cycles (one call timed per figure).
timeout 120 "$Q" sched bench --backend "sim:$T/card.sock" --repeat 1 >"$T/sbench" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "^sim:.* 32 .* [0-9][0-9]* .*[0-9.]$" "$T/sbench" &&
	grep -q "^sim:.* 1024 " "$T/sbench" && grep -q "^sim:.* 1213 .* [0-9][0-9]* .*[0-9.]$" "$T/sbench"; then
	ok "quire sched bench on the RTL card: $(grep "^sim:.* 32 " "$T/sbench" | tr -s ' ')"
else
	ko "quire sched bench on the RTL card (exit $rc): $(tail -3 "$T/sbench")"
fi

timeout 120 "$Q" bench card --backend "sim:$T/card.sock" --nops 100 --size 4KiB --repeat 1 \
	>"$T/bench" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "nop round trip" "$T/bench"; then
	ok "quire bench card: $(grep 'nop round trip' "$T/bench")"
else
	ko "quire bench card (exit $rc): $(tail -3 "$T/bench")"
fi

# The RTL card in card cycles, in this process (quire-bench-rtl): every figure printed.
if [ -x "$B/bin/quire-bench-rtl" ]; then
	timeout 120 "$Q" bench card --model rtl --nops 20 --size 64KiB >"$T/rtlbench" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^nop round trip .* cycles median" "$T/rtlbench" &&
		grep -q "^firmware CPI" "$T/rtlbench" && grep -q "^encode bfp8, per MiB" "$T/rtlbench" &&
		grep -q "^reduce int8" "$T/rtlbench" && grep -q "cycles per wall second" "$T/rtlbench"; then
		ok "quire bench card --model rtl: $(grep '^nop round trip' "$T/rtlbench" | tr -s ' ')"
		sed 's/^/     /' "$T/rtlbench"
	else
		ko "quire bench card --model rtl (exit $rc): $(tail -3 "$T/rtlbench")"
	fi
else
	ko "no $B/bin/quire-bench-rtl: run make test (it builds what it runs)"
fi

# An idle card waits in WFI: its process sleeps. Its last host is gone (every command above
# ended with its process). What it wants of the CPU over a second is the time its threads
# ran plus the time they waited, runnable, for a CPU (/proc/PID/task/*/schedstat): a card
# that spins wants the whole second however loaded the machine is; a sleeping one, next to
# nothing. Under a fifth of the interval passes.
wants_ns() { cat /proc/"$simpid"/task/*/schedstat 2>/dev/null | awk '{ s += $1 + $2 } END { printf "%.0f", s }'; }
a=$(wants_ns)
t0=$(now)
sleep 1
b=$(wants_ns)
t1=$(now)
share=$(echo "$a $b $t0 $t1" | awk '{ printf "%.3f", ($2 - $1) / 1e9 / ($4 - $3) }')
if echo "$share" | awk '{ exit !($1 < 0.2) }'; then
	ok "idle RTL card: ran or wanted to run $share of the time (under 0.2)"
else
	ko "idle RTL card burns CPU: ran or wanted to run $share of the time (under 0.2 wanted)"
fi

kill "$simpid"
if wait_until 10 none_alive "$simpid"; then
	ok "card process ended on SIGTERM"
else
	ko "card process still running 10 s after SIGTERM"
	kill -9 "$simpid" 2>/dev/null
fi
wait "$simpid" 2>/dev/null
if none_alive "$simpid" && [ ! -e "$T/card.sock" ]; then
	ok "nothing left: no card process, no socket"
else
	ko "left behind: card process $simpid or its socket"
fi
simpid=
summary "rtl card process"
[ "$fail" -eq 0 ]
