#!/bin/sh
# SPDX-License-Identifier: MIT
# quire bench faults, short: 150 collectives with a fixed seed on 4 emu cards under every
# fault but the forged frame (lost, corrupted, duplicated, reordered and delayed frames, a
# card frozen and thawed, a card frozen past the timeout, a killed card, a killed rank):
# no wrong result, no hang, every fault put on a collective, nothing left. Then the
# checker's own check: a planted bit flip in one rank's result must come out WRONG and fail
# the campaign. Then the forged frames from a sender outside the job (valid CRCs, no job
# key): the cards' links refuse them (never answered), and every collective is exact. Then
# cards killed and started again at the same address: the collectives after, with no fault
# of their own, all exact.
# Usage: test_fault_campaign.sh BUILD_DIR
set -u
B=$1
Q="$B/bin/quire"
export QUIRE_SIM="$B/bin/quire-sim"
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-campaign-XXXXXX")
export TMPDIR="$T" # the campaign's directory goes here: ours alone
. "$(dirname "$0")/report.sh"
trap 'rm -rf "$T"' EXIT

# A matrix row's count: row NAME, column number N (1: exact ... 5: HANG, 6: missed).
cell() {
	awk -v name="$2" -v col="$3" 'index($0, name) == 1 {
		n = split(substr($0, length(name) + 1), f, " "); print f[col]; exit }' "$1"
}

# 1. The short campaign.
ALL=lost,corrupt,duplicate,reorder,delay,thaw,freeze,kill-card,kill-rank
timeout 600 "$Q" bench faults --ops 150 --seed 7 --fault-rate 0.5 --timeout 2000 --faults $ALL >"$T/run.log" 2>&1
rc=$?
sed -n '/^fault /,$p' "$T/run.log" | sed 's/^/    /'
if [ $rc -eq 0 ] && grep -q "^0 wrong or hung, 0 left behind: pass" "$T/run.log"; then
	ok "150 collectives under faults, seed 7: no wrong result, no hang, nothing left"
else
	ko "150 collectives under faults, seed 7: exit $rc: $(grep -e WRONG -e HANG -e FAIL "$T/run.log" | head -5)"
fi
for row in "lost frames" "corrupted frames" "duplicated frames" "reordered frames" \
	"delayed frames" "frozen, thawed" "frozen past timeout" "killed card" "killed rank"; do
	n=0
	for col in 1 2 3 4 5; do
		n=$((n + $(cell "$T/run.log" "$row" $col)))
	done
	if [ "$n" -gt 0 ]; then
		ok "$row: put on $n collectives"
	else
		ko "$row: never put on a collective"
	fi
done
# 2. A wrong result is caught: rank 1 flips a bit of collective 20's result.
QUIRE_BENCH_FAULTS_PLANT=20 timeout 300 "$Q" bench faults --ops 40 --seed 7 --fault-rate 0 \
	>"$T/plant.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^  WRONG at collective 2[0-9]" "$T/plant.log" &&
	[ "$(cell "$T/plant.log" none 4)" = 1 ] && grep -q ": FAIL$" "$T/plant.log"; then
	ok "a planted wrong result: reported WRONG ($(grep -m1 'WRONG$\|WRONG (' "$T/plant.log" | sed 's/^ *//')), exit 1"
else
	ko "a planted wrong result: exit $rc: $(tail -3 "$T/plant.log")"
fi

# 3. Forged frames from a sender outside the job.
timeout 300 "$Q" bench faults --ops 24 --seed 7 --fault-rate 1 --timeout 2000 --faults forged >"$T/forged.log" 2>&1
sent=$(sed -n 's/.* \([0-9]*\) forged frames sent, answered \([0-9]*\) times.*/\1/p' "$T/forged.log")
answered=$(sed -n 's/.* forged frames sent, answered \([0-9]*\) times.*/\1/p' "$T/forged.log")
exact=$(cell "$T/forged.log" "forged frame" 1)
if [ "${sent:-0}" -gt 0 ] && [ "${answered:-1}" -eq 0 ] && [ "${exact:-0}" -gt 0 ] &&
	grep -q "^0 wrong or hung, 0 left behind: pass" "$T/forged.log" &&
	[ "$(cell "$T/forged.log" "forged frame" 2)" = 0 ] && [ "$(cell "$T/forged.log" "forged frame" 3)" = 0 ]; then
	ok "forged frames: $sent sent, none answered by the cards' links; $exact collectives under them, every one exact"
else
	ko "forged frames: sent ${sent:-?}, answered ${answered:-?}, exact ${exact:-?}: $(sed -n '/^fault /,$p' "$T/forged.log" | head -20)"
fi

# 4. Cards killed and started again at the same address: the next collectives, on a new
# communicator and with no fault of their own, are exact on every rank. A peer with nothing
# in flight to the killed card still numbers its frames in the session the old card had
# joined; the new card asks it to start over (docs/network.md, "Loss recovery").
timeout 300 "$Q" bench faults --ops 40 --seed 5 --fault-rate 0.5 --timeout 1000 --faults kill-card \
	>"$T/restart.log" 2>&1
rc=$?
killed=$(cell "$T/restart.log" "killed card" 1)
killed=$((${killed:-0} + $(cell "$T/restart.log" "killed card" 2) + $(cell "$T/restart.log" "killed card" 3)))
exact=$(cell "$T/restart.log" none 1)
if [ $rc -eq 0 ] && [ "$killed" -gt 0 ] && [ "${exact:-0}" -gt 0 ] &&
	[ "$(cell "$T/restart.log" none 2)" = 0 ] && [ "$(cell "$T/restart.log" none 3)" = 0 ]; then
	ok "cards killed and restarted ($killed collectives): the $exact collectives with no fault of their own all exact"
else
	ko "restarted cards: exit $rc, $killed kills: $(sed -n '/^fault /,/^total/p' "$T/restart.log")"
fi

# 5. Bad usage is an error, not a run.
"$Q" bench faults --faults lost,bogus >"$T/usage.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "unknown fault 'bogus'" "$T/usage.log"; then
	ok "an unknown fault: usage error"
else
	ko "an unknown fault: exit $rc: $(cat "$T/usage.log")"
fi

# 5. Nothing of the campaigns left: no directory, no process naming one.
if [ -z "$(ls -A "$T" | grep -v '\.log$')" ]; then
	ok "no file of the campaigns left"
else
	ko "left in $T: $(ls -A "$T")"
fi
if pgrep -f "$T/" >/dev/null 2>&1; then
	ko "processes of the campaigns left: $(pgrep -af "$T/")"
else
	ok "no process of the campaigns left"
fi
summary "fault campaign"
[ "$fail" -eq 0 ]
