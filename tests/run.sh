#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the unit test programs given as arguments, then the CLI checks and the
# independent reference check (unless --unit-only), and prints one closing line
# "tests: N passed, N failed" counting test cases. Exit status 1 on any failure.
set -u
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-python3}
VALGRIND=${VALGRIND:-}
unit_only=0
if [ "${1:-}" = "--unit-only" ]; then
	unit_only=1
	shift
fi
passed=0
failed=0
# A TMPDIR of this run's own: card sockets, cluster directories and MPI's session files go
# there, so another test run on the same machine is never taken for this one.
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/quire-test-XXXXXX")
export TMPDIR="$RUN_TMP"
log="$RUN_TMP/run.log"
# sim:inproc's card model, from this build (tests under mpirun sit one folder deeper than
# libquire looks by itself).
export QUIRE_SIM_LIB="${QUIRE_SIM_LIB:-$PWD/$BUILD/lib/libquire_sim.so.0}"
trap 'rm -rf "$RUN_TMP"' EXIT

# Count cases from a program's output: cmocka's "[  PASSED  ] N test(s)." and
# "[  FAILED  ] N test(s)", or our scripts' "N passed, N failed".
count() {
	p=$(sed -n -e 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' -e 's/.* \([0-9]*\) passed, [0-9]* failed$/\1/p' "$log" | tail -1)
	f=$(sed -n -e 's/^\[  FAILED  \] \([0-9]*\) test(s), listed.*/\1/p' -e 's/.* [0-9]* passed, \([0-9]*\) failed$/\1/p' "$log" | tail -1)
	p=${p:-0}
	f=${f:-0}
	if [ "$1" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1 # crashed or exited non-zero without a count: a failure all the same
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

run() {
	echo "== $*"
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	count $rc
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
	# The Python package (Debian's python3): API, errors, bits against the CLI, zero copy, torch.
	run sh tests/python/run.sh "$BUILD"
	# The documents: links, paths and the numeric contract all inside the repository.
	run sh tests/cli/test_docs.sh
	run sh tests/public_headers.sh "$BUILD"
	# The board descriptions: their generator's checks, and the sim board against quire info.
	PYTHON="$PYTHON" run sh tests/cli/test_boards.sh "$BUILD"
	run "$PYTHON" tests/include_rules.py
	# The kernels' interfaces: hls/ top functions against quire/card.h, hls_cl.h, opencl.c.
	run "$PYTHON" hls/vitis/gen_vitis.py --check
	run sh tests/exports.sh "$BUILD"
	# The kernel driver builds with no warning under W=1 and sparse (where headers are).
	run sh tests/driver_build.sh "$BUILD"
	# The driver in a QEMU TCG guest with the simulated card: bound, info and selftest through
	# kdrv, 10 loads, the card stopped (skips itself without qemu-system-x86, busybox-static,
	# linux-image-amd64).
	if [ -f "$BUILD/driver/quire.ko" ]; then
		run sh tests/driver/qemu_test.sh "$BUILD"
	else
		echo "== driver qemu: skipped: no $BUILD/driver/quire.ko (make driver)"
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
	if [ -x "$BUILD/tests/mpi/test_comm_mpi" ]; then
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
	if command -v "${VERILATOR:-verilator}" >/dev/null 2>&1; then
		run sh tests/rtl_engines/run.sh "$BUILD"
	else
		echo "== rtl engines: skipped: verilator is not installed (apt-get install verilator)"
	fi
	# The simulated cluster: its launcher, and a card killed in the middle of an all-reduce.
	run sh tests/cli/test_cluster.sh "$BUILD"
	# The cards' network over UDP, and (as root) two namespaces standing in for two hosts.
	run sh tests/cli/test_net_udp.sh "$BUILD"
	# quire bench allreduce --link: the shaped namespaces, and nothing of them left after.
	run sh tests/cli/test_bench_link.sh "$BUILD"
	# A card frozen (SIGSTOP) under one host, and in a 4-card all-reduce job.
	run sh tests/cli/test_card_freeze.sh "$BUILD"
	# The rv32im core in RTL: its instruction tests on quire-rv32-run (Verilator).
	if command -v "${VERILATOR:-verilator}" >/dev/null 2>&1; then
		run sh tests/rtl/run.sh "$BUILD"
	else
		echo "== rtl core: skipped: apt-get install verilator"
	fi
	# The RTL card top boots the card firmware and serves descriptors, against the emu.
	if [ -x "$BUILD/tests/rtl/test_card_top" ] && [ -e "$BUILD/firmware/quire-fw.elf" ]; then
		run "$BUILD/tests/rtl/test_card_top" "$BUILD/firmware/quire-fw.elf" \
			"$BUILD/tests/rtl/card/card_dma.elf" "$BUILD/tests/rtl/card/card_mlp.elf" \
			"$BUILD/tests/rtl/card/card_net.elf"
	else
		echo "== rtl card: skipped: needs verilator and gcc-riscv64-unknown-elf (make rtl)"
	fi
	# DECODE's mean in the RTL card (quire_card_mean.sv) against hls/, bit for bit.
	if [ -x "$BUILD/tests/rtl/tb_card_mean" ]; then
		run "$BUILD/tests/rtl/tb_card_mean"
	else
		echo "== rtl mean: skipped: needs verilator (make rtl)"
	fi
	# The fuzz corpus on the RTL card and the emu: same completions, no hang. Every 16th input
	# (26 of 405, about 15 s of CPU); the whole corpus passes too but takes minutes:
	# build/tests/rtl/test_card_fuzz build/firmware/quire-fw.elf tests/fuzz/corpus
	if [ -x "$BUILD/tests/rtl/test_card_fuzz" ] && [ -e "$BUILD/firmware/quire-fw.elf" ]; then
		run "$BUILD/tests/rtl/test_card_fuzz" "$BUILD/firmware/quire-fw.elf" --every 16 \
			tests/fuzz/corpus
	else
		echo "== rtl card fuzz replay: skipped: needs verilator and gcc-riscv64-unknown-elf (make rtl)"
	fi
	# quire-sim --model rtl: the RTL card as a card process for libquire and the CLI.
	if [ -x "$BUILD/bin/quire-sim-rtl" ] && [ -e "$BUILD/firmware/quire-fw.elf" ]; then
		run sh tests/cli/test_sim_rtl.sh "$BUILD"
		# RTL cards on the card network: all-reduces bit for bit against emu cards.
		PYTHON="$PYTHON" run sh tests/cli/test_net_rtl.sh "$BUILD"
	else
		echo "== rtl card process: skipped: needs verilator and gcc-riscv64-unknown-elf (make rtl)"
	fi
	for seed in 1 2 3; do
		run "$PYTHON" tests/ref/bfp_ref.py check-reduce "$BUILD/bin/quire" --seed $seed --max-workers 8
	done
fi
# Nothing of this run may outlive it: no process naming its TMPDIR, no file left there.
sleep 0.2
left=$(pgrep -af "$RUN_TMP" | grep -v "pgrep")
files=$(ls -A "$RUN_TMP" | grep -v '^run\.log$')
echo "== leftovers of this run"
if [ -z "$left" ] && [ -z "$files" ]; then
	echo "ok   no process and no file of this run left"
	passed=$((passed + 1))
else
	echo "FAIL left running: ${left:-none}; left in $RUN_TMP: ${files:-none}"
	failed=$((failed + 1))
fi
echo
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
