#!/bin/sh
# SPDX-License-Identifier: MIT
# The main job: data-parallel training on Fashion-MNIST with W ranks (mpirun) on
# W simulated cards (quire-cluster), once per gradient format (fp32, fp16, bfp8
# with error feedback, and the same with the requantized all-gather), same seed and epochs; the cards all-reduce the gradients
# over their own network. Then a table and a plot of test accuracy and training
# loss per epoch. QUIRE_DEMO_BACKEND=cpu runs the same with MPI as transport;
# QUIRE_DEMO_OUT is where results go (default results/demo, results/demo-cpu on cpu: one
# backend's run never overwrites the other's); QUIRE_DEMO_RANKS the number of ranks (4).
# Usage: run_demo.sh BUILD_DIR [trainer options, e.g. --epochs 1 --train-limit 20000]
set -eu
build=$1
shift
ranks=${QUIRE_DEMO_RANKS:-4}
backend=${QUIRE_DEMO_BACKEND:-sim}
case $backend in
sim) launch="$build/bin/quire-cluster -n $ranks --" uri=sim:cluster out=${QUIRE_DEMO_OUT:-results/demo} ;;
cpu) launch="" uri=cpu out=${QUIRE_DEMO_OUT:-results/demo-cpu} ;;
*) echo "run_demo: QUIRE_DEMO_BACKEND is sim or cpu, not $backend" >&2; exit 2 ;;
esac
mkdir -p "$out"
rm -f "$out"/*.csv "$out"/summary.txt "$out"/training.png
if ! command -v mpirun >/dev/null; then
	echo "run_demo: mpirun not found (apt-get install openmpi-bin)" >&2
	exit 1
fi
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for variant in "fp32" "fp16" "bfp8 --ef" "bfp8 --ef --requant"; do
	# shellcheck disable=SC2086
	$launch mpirun --oversubscribe -np "$ranks" --mca btl self,vader \
		--mca btl_vader_single_copy_mechanism none --mca mpi_yield_when_idle 1 \
		"$build/bin/quire-train-dp" --backend $uri --format $variant --out "$out" "$@"
done

# The last epoch of each format, side by side.
awk -F, 'FNR == 1 { next } { last[$1] = $0 }
END {
	split(last["fp32"], f, ",")
	printf "\n%-11s %6s %14s %10s %12s %12s\n", "format", "epochs", "test accuracy", "vs fp32", "wire B/elem", "x fp32"
	n = split("fp32 fp16 bfp8+ef bfp8+ef+rq", order, " ")
	for (i = 1; i <= n; i++) {
		if (!(order[i] in last)) continue
		split(last[order[i]], r, ",")
		# Wire B/elem as the trainer rounded it (its epoch lines show the same digits).
		printf "%-11s %6d %13.2f%% %+8.2fpp %12s %12.3f\n", r[1], r[2], 100 * r[4], 100 * (r[4] - f[4]), r[6], r[6] / f[6]
	}
	printf "\n"
	split("bfp8+ef bfp8+ef+rq", goal, " ")
	split("bfp8 with error feedback|bfp8 with error feedback, requantized all-gather", what, "|")
	for (i = 1; i <= 2; i++) {
		split(last[goal[i]], b, ",")
		d = 100 * (f[4] - b[4])
		# Parentheses: a bare > in a printf argument list is awk'"'"'s output redirection.
		printf "%s: %.2f percentage points %s fp32 (goal: within 0.5)\n", what[i], (d < 0 ? -d : d), (d > 0 ? "below" : "above")
	}
}' "$out/fp32.csv" "$out/fp16.csv" "$out/bfp8+ef.csv" "$out/bfp8+ef+rq.csv" | tee "$out/summary.txt"

if command -v gnuplot >/dev/null; then
	gnuplot -e "dir='$out'" examples/plot_training.gp && echo "plot: $out/training.png"
else
	echo "(no plot: gnuplot not found; apt-get install gnuplot-nox)"
fi
echo "results: $out/ (one CSV per format, summary.txt, training.png)"
