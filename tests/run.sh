#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the unit test programs given as arguments, then the CLI checks and the
# independent reference check (unless --unit-only), lists every check that was skipped
# with its reason, and prints one closing line "tests: N passed, N failed, N skipped"
# counting test cases. Exit status 1 on any failure.
# `make test` builds everything it runs: a missing program is a failure ("run make test"),
# and so is a missing package of mk/debian-packages.txt (named). Skips remain only for
# reasons a user can act on otherwise (not root, valgrind); QUIRE_TEST_NO_SKIP=1 (CI) makes
# each of them a failure too.
set -u
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-python3}
VALGRIND=${VALGRIND:-}
unit_only=0
if [ "${1:-}" = "--unit-only" ]; then
	unit_only=1
	shift
fi
# has_mpi and the other package checks the scripts use (its ok/ko counters are not used here).
. tests/cli/report.sh
passed=0
failed=0
skipped=0
skips="" # "suite: reason" lines, listed before the closing line
suite=""
# A TMPDIR of this run's own: card sockets, cluster directories and MPI's session files go
# there, so another test run on the same machine is never taken for this one.
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/quire-test-XXXXXX")
export TMPDIR="$RUN_TMP"
log="$RUN_TMP/run.log"
# sim:inproc's card model, from this build (tests under mpirun sit one folder deeper than
# libquire looks by itself).
export QUIRE_SIM_LIB="${QUIRE_SIM_LIB:-$PWD/$BUILD/lib/libquire_sim.so.0}"
trap 'rm -rf "$RUN_TMP"' EXIT

# Count cases from a program's output: cmocka's "[  PASSED  ] N test(s).",
# "[  FAILED  ] N test(s)" and "[  SKIPPED ] N test(s)", or our scripts' (and quire
# selftest's) "N passed, N failed[, N skipped]". A C test's "skip: REASON" line is a part of
# a case that did not run (cmocka cannot count those): one skip each.
count() {
	p=$(sed -n -e 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' -e 's/.* \([0-9]*\) passed, [0-9]* failed\(, [0-9]* skipped\)\{0,1\}$/\1/p' "$log" | tail -1)
	f=$(sed -n -e 's/^\[  FAILED  \] \([0-9]*\) test(s), listed.*/\1/p' -e 's/.* [0-9]* passed, \([0-9]*\) failed\(, [0-9]* skipped\)\{0,1\}$/\1/p' "$log" | tail -1)
	s=$(sed -n -e 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed.*/\1/p' -e 's/.* [0-9]* passed, [0-9]* failed, \([0-9]*\) skipped$/\1/p' "$log" | tail -1)
	p=${p:-0}
	f=${f:-0}
	s=$((${s:-0} + $(grep -c '^skip: ' "$log")))
	if [ "$1" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1 # crashed or exited non-zero without a count: a failure all the same
	fi
	# The reasons, as the programs print them: our scripts' "SKIP", C tests' "skip:",
	# selftest's "skip NAME ..." and "skipped: ...", cmocka's names of skipped tests.
	# (cmocka names a skipped test twice: where it ran, and in its summary.)
	why=$(grep -E '^(SKIP |skip[: ]|skipped: |\[  SKIPPED \] [^0-9])' "$log" | awk '!seen[$0]++' |
		sed "s|^|  $suite: |")
	if [ "$s" -gt 0 ] && [ "${QUIRE_TEST_NO_SKIP:-0}" = 1 ]; then
		echo "FAIL $suite: $s skipped, and QUIRE_TEST_NO_SKIP=1 forbids skips"
		f=$((f + s))
		s=0
	elif [ -n "$why" ]; then
		skips="$skips$why
"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

# The suites' wall times, "SECONDS SUITE" a line: the slowest are listed at the end, for
# whoever wants make test (and CI) shorter. A figure, never a pass or a failure.
times=""
run() {
	suite="$*"
	echo "== $*"
	started=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	times="$times$(($(date +%s) - started)) $suite
"
	cat "$log"
	count $rc
}

# missing NAME WHY: a suite that cannot run because something make test builds, or a
# package of mk/debian-packages.txt, is missing: one failure, saying which.
missing() {
	echo "== $1"
	echo "FAIL $1 not run: $2"
	failed=$((failed + 1))
}
# built FILE...: all exist (make test builds them before it runs this script).
built() {
	for f in "$@"; do
		[ -e "$f" ] || return 1
	done
}
# The packages the RTL suites need, asked of the system, not of the build.
has_verilator() { command -v "${VERILATOR:-verilator}" >/dev/null 2>&1; }
has_riscv() { command -v riscv64-unknown-elf-gcc >/dev/null 2>&1; }
rtl_missing() { # rtl_missing NAME [riscv]: the package at fault, or the build
	if ! has_verilator; then
		missing "$1" "verilator is not installed: apt-get install verilator (mk/debian-packages.txt)"
	elif [ "${2:-}" = riscv ] && ! has_riscv; then
		missing "$1" "no riscv64-unknown-elf-gcc: apt-get install gcc-riscv64-unknown-elf (mk/debian-packages.txt)"
	else
		missing "$1" "not built: run make test (it builds what it runs)"
	fi
}

for t in "$@"; do
	# shellcheck disable=SC2086
	run $VALGRIND "$t"
done
if [ $unit_only -eq 0 ]; then
	run sh tests/cli/test_cli.sh "$BUILD/bin/quire"
	# The scheduler's trace replay on a slice of the trace (tests/data/sched/).
	run sh tests/cli/test_sched.sh "$BUILD/bin/quire"
	# One decision from the command line (quire sched place) on every backend at hand.
	run sh tests/cli/test_sched_place.sh "$BUILD"
	# quire sched serve, the Kubernetes scheduler extender: recorded requests, bad ones, SIGTERM.
	run sh tests/cli/test_sched_serve.sh "$BUILD"
	# The Python package (Debian's python3): API, errors, bits against the CLI, zero copy, torch.
	run sh tests/python/run.sh "$BUILD"
	# The documents: links, paths and the numeric contract all inside the repository.
	run sh tests/cli/test_docs.sh
	run sh tests/public_headers.sh "$BUILD"
	# The card's records are little-endian: sparse over the user space that builds them.
	run sh tests/byte_order.sh "$BUILD"
	# The board descriptions: their generator's checks, and the sim board against quire info.
	PYTHON="$PYTHON" run sh tests/cli/test_boards.sh "$BUILD"
	run "$PYTHON" tests/include_rules.py
	# The same checker fails on includes planted where their floor may not have them.
	PYTHON="$PYTHON" run sh tests/include_rules_plant.sh
	# The kernels' interfaces: hls/ top functions against quire/card.h, hls_cl.h, opencl.c.
	run "$PYTHON" hls/vitis/gen_vitis.py --check
	run sh tests/exports.sh "$BUILD"
	# The kernel driver builds with no warning under W=1 and sparse.
	run sh tests/driver_build.sh "$BUILD"
	# The driver in a QEMU TCG guest with the simulated card: bound, info and selftest through
	# kdrv, 10 loads, the card stopped (a failure naming the package without qemu-system-x86,
	# busybox-static, linux-image-amd64).
	if ! ls -d /lib/modules/*/build >/dev/null 2>&1; then
		missing "driver qemu" "no kernel build tree: apt-get install linux-headers-amd64 (mk/debian-packages.txt)"
	elif [ -f "$BUILD/driver/quire.ko" ]; then
		run sh tests/driver/qemu_test.sh "$BUILD"
	else
		missing "driver qemu" "no $BUILD/driver/quire.ko: run make test (it builds what it runs)"
	fi
	# Every operation on a card process against cpu, 1 element to 16 MiB.
	QUIRE_SIM="$BUILD/bin/quire-sim" run "$BUILD/bin/quire" selftest --backend sim
	# The opencl backend: no platform, bad URIs, and every operation against cpu on PoCL.
	run sh tests/cli/test_opencl.sh "$BUILD"
	run sh tests/cli/test_sim_faults.sh "$BUILD/bin/quire" "$BUILD/bin/quire-sim"
	run sh tests/cli/test_attach.sh "$BUILD"
	run sh tests/cli/test_sim_cli.sh "$BUILD/bin/quire" "$BUILD/bin/quire-sim"
	# The xrt backend: no XRT device here, never an abort; the fake XRT's card passes selftest.
	run sh tests/cli/test_xrt.sh "$BUILD"
	# Collectives over MPI, W ranks (OpenMPI's plugins leak at exit: leak checks off there).
	# MPI is decided by mpirun and its package, not by what the build made.
	if ! has_mpi; then
		missing "mpi collectives" "no MPI: apt-get install openmpi-bin libopenmpi-dev (mk/debian-packages.txt)"
	elif [ ! -x "$BUILD/tests/mpi/test_comm_mpi" ]; then
		missing "mpi collectives" "no $BUILD/tests/mpi/test_comm_mpi: run make test (it builds what it runs)"
	else
		[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
		# The same checks on both backends: cpu over MPI, and simulated cards on their network.
		for backend in cpu sim; do
			for w in 2 3 4 8; do
				ASAN_OPTIONS=detect_leaks=0 run mpirun -x ASAN_OPTIONS --oversubscribe -np $w \
					--mca btl self,vader --mca btl_vader_single_copy_mechanism none \
					--mca mpi_yield_when_idle 1 "$BUILD/tests/mpi/test_comm_mpi" $backend
			done
		done
	fi
	# The engines in RTL (Verilator) against the hls/ kernels, bit for bit, and their rates.
	if has_verilator; then
		run sh tests/rtl_engines/run.sh "$BUILD"
	else
		rtl_missing "rtl engines"
	fi
	# The simulated cluster: its launcher, and a card killed in the middle of an all-reduce.
	run sh tests/cli/test_cluster.sh "$BUILD"
	# The cards' network over UDP, and (as root) two namespaces standing in for two hosts.
	run sh tests/cli/test_net_udp.sh "$BUILD"
	# quire bench allreduce --link: the shaped namespaces, and nothing of them left after.
	run sh tests/cli/test_bench_link.sh "$BUILD"
	# quire link run: a command per rank namespace on shaped links, and nothing left after.
	run sh tests/cli/test_link_run.sh "$BUILD"
	# A card frozen (SIGSTOP) under one host, and in a 4-card all-reduce job.
	run sh tests/cli/test_card_freeze.sh "$BUILD"
	# quire bench faults, short: 150 collectives under mixed faults, a planted wrong result.
	run sh tests/cli/test_fault_campaign.sh "$BUILD"
	# The rv32im core in RTL: its instruction tests on quire-rv32-run (Verilator).
	if has_verilator; then
		run sh tests/rtl/run.sh "$BUILD"
	else
		rtl_missing "rtl core"
	fi
	# The RTL card top boots the card firmware and serves descriptors, against the emu.
	if has_verilator && has_riscv && built "$BUILD/tests/rtl/test_card_top" "$BUILD/firmware/quire-fw.elf" \
		"$BUILD/tests/rtl/card/card_dma.elf" "$BUILD/tests/rtl/card/card_mlp.elf" \
		"$BUILD/tests/rtl/card/card_net.elf"; then
		run "$BUILD/tests/rtl/test_card_top" "$BUILD/firmware/quire-fw.elf" \
			"$BUILD/tests/rtl/card/card_dma.elf" "$BUILD/tests/rtl/card/card_mlp.elf" \
			"$BUILD/tests/rtl/card/card_net.elf"
		# A scheduler's decision's cycles held to docs/sched-api.md's.
		cp "$log" "$RUN_TMP/card_top.out"
		run /usr/bin/python3 tests/rtl_figures.py mlp "$RUN_TMP/card_top.out"
		rm -f "$RUN_TMP/card_top.out"
	else
		rtl_missing "rtl card" riscv
	fi
	# DECODE's mean in the RTL card (quire_card_mean.sv) against hls/, bit for bit.
	if has_verilator && built "$BUILD/tests/rtl/tb_card_mean"; then
		run "$BUILD/tests/rtl/tb_card_mean"
	else
		rtl_missing "rtl mean"
	fi
	# The network port's CRC-32 of a beat (quire_crc32_pkg.sv) against hls/crc32.c.
	if has_verilator && built "$BUILD/tests/rtl/tb_crc32"; then
		run "$BUILD/tests/rtl/tb_crc32"
	else
		rtl_missing "rtl crc32"
	fi
	# The checkers of rtl/assert/ (bound to every Verilator model above): each stops what
	# breaks its rule and lets through what keeps it.
	if has_verilator && built "$BUILD/tests/rtl/tb_assert"; then
		run "$BUILD/tests/rtl/tb_assert"
	else
		rtl_missing "rtl assert"
	fi
	# The fuzz corpus on the RTL card and the emu: same completions, no hang. Every 16th input
	# (26 of 405, about 15 s of CPU); the whole corpus passes too but takes minutes:
	# build/tests/rtl/test_card_fuzz build/firmware/quire-fw.elf tests/fuzz/corpus
	if has_verilator && has_riscv && built "$BUILD/tests/rtl/test_card_fuzz" "$BUILD/firmware/quire-fw.elf"; then
		run "$BUILD/tests/rtl/test_card_fuzz" "$BUILD/firmware/quire-fw.elf" --every 16 \
			tests/fuzz/corpus
	else
		rtl_missing "rtl card fuzz replay" riscv
	fi
	# quire-sim --model rtl: the RTL card as a card process for libquire and the CLI.
	if has_verilator && has_riscv && built "$BUILD/bin/quire-sim-rtl" "$BUILD/firmware/quire-fw.elf"; then
		run sh tests/cli/test_sim_rtl.sh "$BUILD"
		# A slow card (the RTL card) waited for by its own clock; the same card stopped: a timeout.
		run sh tests/cli/test_card_slow.sh "$BUILD"
		# The card's cycles (boot, NOP round trip, ENCODE, REDUCE) held to docs/rtl-card.md's.
		run /usr/bin/python3 tests/rtl_figures.py card "$BUILD/bin/quire-bench-rtl"
		# 4 RTL cards in lockstep: a 1 MiB bfp8 all-reduce against the golden model, its cycles held.
		run /usr/bin/python3 tests/rtl_figures.py ring "$BUILD/bin/quire-bench-rtl"
		# RTL cards on the card network: all-reduces bit for bit against emu cards.
		PYTHON="$PYTHON" run sh tests/cli/test_net_rtl.sh "$BUILD"
	else
		rtl_missing "rtl card process" riscv
	fi
	# The numpy reference of the MLP (tests/test_sched.c's) against mlp_ref.py's golden vectors.
	run /usr/bin/python3 tests/ref/mlp_score.py --check-golden tests/data/mlp_golden
	for seed in 1 2 3; do
		run "$PYTHON" tests/ref/bfp_ref.py check-reduce "$BUILD/bin/quire" --seed $seed --max-workers 8
	done
fi
# Nothing of this run may outlive it: no process naming its TMPDIR, no file left there. A
# card process told to go by the last suite may still be on its way out: looked at again
# every 0.1 s for up to 10 s, so a slow machine is given the time and a leftover still fails.
for _ in $(seq 100); do
	left=$(pgrep -af "$RUN_TMP" | grep -v "pgrep")
	files=$(ls -A "$RUN_TMP" | grep -v '^run\.log$')
	[ -z "$left" ] && [ -z "$files" ] && break
	sleep 0.1
done
echo "== leftovers of this run"
if [ -z "$left" ] && [ -z "$files" ]; then
	echo "ok   no process and no file of this run left"
	passed=$((passed + 1))
else
	echo "FAIL left running: ${left:-none}; left in $RUN_TMP: ${files:-none}"
	failed=$((failed + 1))
fi
echo
echo "slowest suites (wall seconds):"
printf '%s' "$times" | sort -rn | head -8 | sed 's/^/  /'
if [ "$skipped" -gt 0 ] || [ -n "$skips" ]; then
	echo "skipped, with their reasons:"
	printf '%s' "$skips"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
