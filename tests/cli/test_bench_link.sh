#!/bin/sh
# SPDX-License-Identifier: MIT
# quire bench allreduce --link (cli/bench_link.c, docs/bench-link.md): a bad --link
# is refused, so is a run that is not root; as root, a short W=2 run over 1 Gbit/s links
# prints OpenMPI, Gloo and quire rows for the cpu and sim backends, and afterwards no
# network namespace, veth or process of it is left; the same after a run that fails half
# way (delay= where the kernel has no netem), after SIGTERM and SIGINT in the middle of a
# run, and a SIGKILLed run's namespaces go with the next run.
# Usage: test_bench_link.sh BUILD
set -u
B=$1
Q=$B/bin/quire
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-benchlink-XXXXXX")
export TMPDIR="$T"
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=detect_leaks=0 # OpenMPI's plugins leak at exit
check() { # check NAME COMMAND...
	n=$1
	shift
	if "$@"; then ok "$n"; else ko "$n"; fi
}

"$Q" bench allreduce --link fast >"$T/out" 2>&1
check "--link fast refused (exit 2: $(head -1 "$T/out"))" [ $? -eq 2 ]
"$Q" bench allreduce --link 1gbit,jitter=1ms >"$T/out" 2>&1
check "--link 1gbit,jitter=1ms refused" [ $? -eq 2 ]
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$Q" bench allreduce --link 1gbit >"$T/out" 2>&1
	rc=$?
	check "not root: refused with a clear message ($(head -1 "$T/out"))" eval "[ $rc -ne 0 ] && grep -q 'needs root' '$T/out'"
fi

ours() { ip netns list 2>/dev/null | grep -c "^quire-bench-$1-"; } # ours PID: its namespaces
if [ "$(id -u)" -ne 0 ]; then
	skip "the runs over shaped links: needs root (ip netns, tc); CI runs them as root"
elif ! has_mpi || ! has_pkg libgloo-dev || ! command -v tc >/dev/null; then
	missing_pkg "the runs over shaped links not run" openmpi-bin libopenmpi-dev libgloo-dev iproute2
elif [ ! -x "$B/bin/quire-bench-allreduce" ] || [ ! -x "$B/bin/quire-bench-gloo" ]; then
	ko "the runs over shaped links: no $B/bin/quire-bench-allreduce or quire-bench-gloo: run make test"
else
	# A run killed outright leaves its namespaces; the next run removes them.
	stale=$(sh -c 'echo $$')
	ip netns add "quire-bench-$stale-hub"
	t0=$(now)
	# 1 MiB 5 times: each row runs some 40 ms, several of /proc/stat's ticks, so that the CPUs'
	# busy share is measured (a row shorter than a tick says "unknown", and fails below).
	"$Q" bench allreduce --link 1gbit --ranks 2 --min 1MiB --max 1MiB --repeat 5 >"$T/run.log" 2>&1 &
	q=$!
	wait $q
	rc=$?
	t1=$(now)
	check "W=2 over 1gbit links, cpu and sim: exit 0 ($(secs "$t0" "$t1") s)" [ $rc -eq 0 ]
	# What the failed run said, its leak reports left out, for whoever reads the log.
	[ $rc -eq 0 ] || grep -v -e '^ *#' -e '^$' -e 'leak' "$T/run.log" | tail -n 15 | sed 's/^/    run: /'
	for row in "MPI fp32" "Gloo fp32" "quire fp32" "quire bfp8"; do
		check "two rows of $row (cpu, sim), with x MPI and x Gloo" [ "$(grep -c "^1 MiB *$row *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]*$" "$T/run.log")" -eq 2 ]
	done
	check "the sim run's bytes were counted by the cards' ports" grep -q "backend sim:cluster (the cards' network)" "$T/run.log"
	for g in "quire bfp8 >= 1.80x" "quire fp32 >= 0.95x"; do
		check "the goal '$g OpenMPI fp32' checked twice: met, or missed with its measured reason" [ "$(grep -cE "^  $g OpenMPI fp32: [0-9.]+x, (met|missed: (link-bound|CPU-bound|neither bound) \(it used [0-9]+% of the link)" "$T/run.log")" -eq 2 ]
	done
	check "each row's use of the link printed, cpu and sim" [ "$(grep -cE "^  link used by each rank's sending \(its wire bytes over 1 Gbit/s\): OpenMPI fp32 [0-9]+%, Gloo fp32 [0-9]+%, quire fp32 [0-9]+%, quire bfp8 [0-9]+%$" "$T/run.log")" -eq 2 ]
	check "each row's CPUs busy printed, cpu and sim ($(grep -m1 "^  CPUs busy" "$T/run.log" | cut -d: -f2-))" [ "$(grep -cE "^  CPUs busy during each row's runs \(the machine, [0-9]+ CPUs\): OpenMPI fp32 [0-9]+%, quire fp32 [0-9]+%, quire bfp8 [0-9]+%$" "$T/run.log")" -eq 2 ]
	check "no namespace left" [ "$(ours $q)" -eq 0 ]
	check "the stale namespaces of a killed run removed" [ "$(ours "$stale")" -eq 0 ]
	[ "$(ours "$stale")" -eq 0 ] || ip netns del "quire-bench-$stale-hub"

	# A run that fails half way through building the links (delay= without netem here; with
	# netem it runs): namespaces gone all the same.
	"$Q" bench allreduce --link 1gbit,delay=1ms --ranks 2 --min 64KiB --max 64KiB --repeat 1 \
		--backend cpu >"$T/delay.log" 2>&1 &
	q=$!
	wait $q
	rc=$?
	if grep -q "needs tc's netem" "$T/delay.log"; then
		check "delay= without netem: refused, exit $rc ($(grep -m1 "needs tc's netem" "$T/delay.log" | cut -c1-70)...)" [ $rc -ne 0 ]
	else
		check "delay=1ms with netem: the run passes" [ $rc -eq 0 ]
	fi
	check "delay=: no namespace left" [ "$(ours $q)" -eq 0 ]

	# Stopped in the middle: exit 128+N, namespaces, veths and processes gone.
	for s in TERM:15 INT:2; do
		sig=${s%:*}
		want=$((128 + ${s#*:}))
		"$Q" bench allreduce --link 1gbit --ranks 2 --min 16MiB --max 64MiB --repeat 50 \
			--backend sim >"$T/stop.log" 2>&1 &
		q=$!
		if ! wait_until 30 eval '[ "$(descendants $q | xargs -r ps -o args= -p | grep -c "quire-bench-")" -ge 2 ]'; then
			ko "SIG$sig: the run did not start: $(tail -3 "$T/stop.log")"
			kill -KILL $q
			continue
		fi
		tree=$(descendants $q | tr "\n" " ")
		t0=$(now)
		kill -$sig $q
		wait $q
		rc=$?
		check "SIG$sig in the middle of a run: exit $want" [ $rc -eq $want ]
		# shellcheck disable=SC2086
		check "SIG$sig: its $(echo $tree | wc -w) processes ended within $(secs "$t0" "$(now)") s" wait_until 5 eval "! alive $tree"
		check "SIG$sig: no namespace left" [ "$(ours $q)" -eq 0 ]
		# shellcheck disable=SC2086
		kill -KILL $tree 2>/dev/null
	done
	check "nothing left in TMPDIR" wait_until 5 eval '[ -z "$(ls -A "$T" | grep -v "\.log$" | grep -v "^out$")" ]'
fi

summary "bench allreduce --link"
[ "$fail" -eq 0 ]
