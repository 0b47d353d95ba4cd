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
check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
	d=$1
	shift
	if "$@"; then ok "$d"; else ko "$d"; fi
}
cards_alive() { pgrep -f "[q]uire-sim --socket /tmp/quire-cluster-" >/dev/null; }
no_cards() { ! cards_alive; }
wait_until() { # wait_until COMMAND...: up to 5 s for it to succeed
	i=0
	while ! "$@" && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
start_sleeping_cluster() { # a launcher around `sleep 30`, its cards running; sets lpid
	"$CL" -n 2 -- sleep 30 &
	lpid=$!
	wait_until cards_alive
	sleep 0.2
}
dirs() { ls -d /tmp/quire-cluster-* 2>/dev/null | wc -l; }
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dirs_before=$(dirs)

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
start_sleeping_cluster
kill -TERM $lpid
wait $lpid
check "stopped with SIGTERM: exit 128+15" [ $? -eq 143 ]
check "stopped: no card process left" no_cards
check "stopped: no sleep left" sh -c '! pgrep -f "^[s]leep 30$" >/dev/null'

# Killed (SIGKILL): it cannot clean up, but its cards die with it.
start_sleeping_cluster
left=$(ls -d /tmp/quire-cluster-* 2>/dev/null | tail -1)
kill -KILL $lpid
wait $lpid 2>/dev/null
wait_until no_cards
check "killed with SIGKILL: its cards end too" no_cards
pkill -f "^[s]leep 30$" 2>/dev/null
[ -n "$left" ] && rm -rf "$left" # what a SIGKILLed launcher could not remove

# A card killed mid-all-reduce: timeouts within the limit, inputs intact.
if [ -x "$B/tests/mpi/test_card_fault" ]; then
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
	check "after the card fault: no card process left" no_cards
fi
check "every cluster directory removed" [ "$(dirs)" -eq "$dirs_before" ]
echo "cluster: $pass passed, $fail failed"
[ $fail -eq 0 ]
