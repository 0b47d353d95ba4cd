#!/bin/sh
# SPDX-License-Identifier: MIT
# quire-cluster, the simulated cluster's launcher: W card processes around one
# command, torn down when it ends, fails, or the launcher is stopped or killed;
# and a card killed in the middle of an all-reduce (tests/mpi/test_card_fault.c).
# Usage: test_cluster.sh BUILD_DIR
set -u
B=$1
CL="$B/bin/quire-cluster"
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
# Our own TMPDIR: the launchers put their directories and card sockets there, so the
# checks below see this run's processes and files only.
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-cl-XXXXXX")
export TMPDIR="$T"
trap 'rm -rf "$T"' EXIT
check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
	d=$1
	shift
	if "$@"; then ok "$d"; else ko "$d"; fi
}
cards_alive() { pgrep -f "[q]uire-sim --socket $T/" >/dev/null; }
no_cards() { ! cards_alive; }
SLEEP="sleep 30.$$" # a command only this script runs
sleepers() { pgrep -f "^$SLEEP\$" >/dev/null; }
# Both cards of a 2-card launcher up (their processes and their sockets) and its command
# running: what the "nothing left" checks after it look for, seen first.
cluster_up() {
	[ "$(pgrep -f -c "[q]uire-sim --socket $T/")" -eq 2 ] &&
		[ "$(ls "$T"/quire-cluster-*/card-*.sock 2>/dev/null | wc -l)" -eq 2 ] && sleepers
}
start_sleeping_cluster() { # WHY: a launcher around $SLEEP, its cards running; sets lpid
	"$CL" -n 2 -- $SLEEP &
	lpid=$!
	check "$1: 2 cards and the command running first" wait_until 30 cluster_up
}
dirs() { ls -d "$T"/quire-cluster-* 2>/dev/null | wc -l; }
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

"$CL" >/dev/null 2>&1
check "no arguments: usage, exit 2" [ $? -eq 2 ]
"$CL" -n 0 -- true >/dev/null 2>&1
check "-n 0 refused" [ $? -eq 2 ]
"$CL" -n 2 --net-drop 2 -- true >/dev/null 2>&1
check "a probability above 1 refused" [ $? -eq 2 ]
"$CL" -n 2 -- /nonexistent/program >/dev/null 2>&1
check "a command that cannot run: exit 127" [ $? -eq 127 ]
"$CL" -n 2 -- sh -c 'test -S "$QUIRE_CLUSTER_DIR/card-0.sock" && test -S "$QUIRE_CLUSTER_DIR/card-1.sock" && exit 3'
check "the command sees both cards and its exit status comes back" [ $? -eq 3 ]
check "no card process left" no_cards

# Stopped (SIGTERM) while its command runs: the command and the cards end, the directory goes.
start_sleeping_cluster "stopped with SIGTERM"
kill -TERM $lpid
wait $lpid
check "stopped with SIGTERM: exit 128+15" [ $? -eq 143 ]
check "stopped: no card process left" no_cards
check "stopped: its command ended" wait_until 5 eval '! sleepers'

# Killed (SIGKILL): it cannot clean up, but its cards die with it.
start_sleeping_cluster "killed with SIGKILL"
left=$(ls -d "$T"/quire-cluster-* 2>/dev/null | tail -1)
kill -KILL $lpid
wait $lpid 2>/dev/null
check "killed with SIGKILL: its cards end too" wait_until 5 no_cards
check "killed with SIGKILL: its command ends too" wait_until 5 eval '! sleepers'
[ -n "$left" ] && rm -rf "$left" # what a SIGKILLed launcher could not remove

# Ranks that meet without MPI leave their files in the launcher's directory; it goes all the same.
M="$B/tests/cli/meet"
"$CL" -n 3 -- sh -c "QUIRE_RANK=0 $M 3 & a=\$!; QUIRE_RANK=1 $M 3 & b=\$!; QUIRE_RANK=2 $M 3; c=\$?
	wait \$a && wait \$b && exit \$c" >"$T/meet.log" 2>&1
check "3 ranks meet in the cluster's directory and all-reduce" [ $? -eq 0 ]
check "the directory goes with the files the ranks left" [ "$(dirs)" -eq 0 ]
check "nothing said about it" eval '! grep -q "not removed" "$T/meet.log"'

# `quire bench allreduce` stopped by a signal: quire-cluster, mpirun, the ranks and the
# cards all end with it (exit 128+N), and nothing is left in TMPDIR.
bench_ranks() { [ "$(descendants "$q" | xargs -r ps -o args= -p | grep -c "^[^ ]*quire-bench-allreduce")" -ge 2 ]; }
if need_mpi "bench allreduce stopped by a signal" "$B/bin/quire-bench-allreduce"; then
	for s in TERM:15 INT:2 KILL:9; do
		sig=${s%:*}
		want=$((128 + ${s#*:}))
		ASAN_OPTIONS=detect_leaks=0 "$B/bin/quire" bench allreduce --backend sim --ranks 2 \
			--min 16MiB --max 64MiB --repeat 100 >"$T/bench.log" 2>&1 &
		q=$!
		if ! wait_until 30 bench_ranks; then
			ko "bench allreduce: its ranks did not start: $(tail -3 "$T/bench.log")"
			kill -KILL $q
			continue
		fi
		tree=$(descendants $q)
		t0=$(now)
		kill -$sig $q
		wait $q
		rc=$?
		check "bench allreduce, SIG$sig: exit $want" [ $rc -eq $want ]
		# shellcheck disable=SC2086
		if wait_until 5 none_alive $tree; then
			ok "bench allreduce, SIG$sig: launchers, ranks and cards ($(echo $tree | wc -w) processes) ended within $(secs "$t0" "$(now)") s"
		else
			# shellcheck disable=SC2086
			ko "bench allreduce, SIG$sig: still running: $(ps -o args= -p "$(echo $tree | tr ' ' ,)")"
			# shellcheck disable=SC2086
			kill -KILL $tree 2>/dev/null
		fi
		check "bench allreduce, SIG$sig: nothing left in TMPDIR" wait_until 5 eval '[ -z "$(ls -A "$T" | grep -v "\.log$")" ]'
	done
fi

# A card killed mid-all-reduce: timeouts within the limit, inputs intact.
if need_mpi "a card killed mid-all-reduce" "$B/tests/mpi/test_card_fault"; then
	# OpenMPI's plugins leak at exit: leak checks off under the sanitizers, as for the MPI tests.
	out=$(ASAN_OPTIONS=detect_leaks=0 "$CL" -n 4 -- mpirun -x ASAN_OPTIONS --oversubscribe -np 4 --mca btl self,vader \
		--mca btl_vader_single_copy_mechanism none --mca mpi_yield_when_idle 1 \
		"$B/tests/mpi/test_card_fault" 2000 2>&1)
	rc=$?
	echo "$out" | sed 's/^/    /'
	p=$(echo "$out" | sed -n 's/^card fault: \([0-9]*\) passed.*/\1/p')
	f=$(echo "$out" | sed -n 's/^card fault: [0-9]* passed, \([0-9]*\) failed/\1/p')
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	[ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ] && ko "test_card_fault exited with $rc"
	# Its cards ran (its first all-reduce passed on them): none may be left.
	check "after the card fault (the job ran: '$(echo "$out" | grep -m1 "before the fault")'): no card process left" \
		eval 'echo "$out" | grep -q "^ok   an all-reduce before the fault" && no_cards'
	[ -z "$p" ] && ko "test_card_fault printed no summary"
fi
check "every cluster directory removed" [ "$(dirs)" -eq 0 ]
summary "cluster"
[ $fail -eq 0 ]
