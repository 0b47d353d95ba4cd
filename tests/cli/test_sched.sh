#!/bin/sh
# SPDX-License-Identifier: MIT
# quire sched replay on a slice of the trace (tests/data/sched/): every policy runs, the
# table, CSVs and plot script are written, the same seed gives the same figures, and bad
# input is a clear error (exit 1 naming FILE:LINE, exit 2 for bad usage).
# Usage: test_sched.sh path/to/quire
set -u
Q=$1
D=tests/data/sched
. tests/cli/report.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-sched-XXXXXX")
trap 'rm -rf "$T"' EXIT

expect() {
	name=$1 code=$2 pattern=$3
	shift 4
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$code" ] && { [ -z "$pattern" ] || printf '%s' "$out" | grep -q -- "$pattern"; }; then
		ok "$name"
	else
		ko "$name: exit $rc (want $code), output: $(printf '%s' "$out" | head -3)"
	fi
}

R="$Q sched replay --pods $D/pods-slice.csv --nodes $D/nodes-slice.csv --nodes-count 16 --quiet"
expect "replay: every policy, two loads" 0 "12 runs in" -- $R --load 0.5,0.9 --seed 3 --out "$T/a"
for p in first-fit best-fit least-loaded tetris random fgd; do
	if grep -q "^$p,0.9,3," "$T/a/runs.csv" && grep -q "^$p,0.5,1," "$T/a/summary.csv"; then
		ok "runs.csv and summary.csv have $p"
	else
		ko "runs.csv or summary.csv lacks $p"
	fi
done
[ -s "$T/a/series.csv" ] && [ -s "$T/a/replay.gp" ] && ok "series.csv and replay.gp written" ||
	ko "series.csv or replay.gp missing"
if command -v gnuplot >/dev/null 2>&1; then
	[ -s "$T/a/replay.png" ] && ok "replay.png written" || ko "no replay.png with gnuplot installed"
else
	missing_pkg "replay.png not checked: no gnuplot" gnuplot-nox
fi
# Deterministic: the same seed gives the same figures (all but the wall time, the last column).
# Every run must end well and write its rows: a crash gives an empty or partial runs.csv,
# which "differs" from any other and must not read as "another seed, another cluster".
expect "seed 5: replay" 0 "runs in" -- $R --load 0.7 --seed 5 --out "$T/b" --no-plot
expect "seed 5 again: replay" 0 "runs in" -- $R --load 0.7 --seed 5 --out "$T/c" --no-plot
expect "seed 6: replay" 0 "runs in" -- $R --load 0.7 --seed 6 --out "$T/d" --no-plot
rows() { sed 's/,[^,]*$//' "$1/runs.csv" 2>/dev/null; }
# The header and one row per policy (6) at the one load.
whole() { [ "$(grep -c '^[a-z-]*,0\.7,[0-9]*,' "$1/runs.csv" 2>/dev/null)" -eq 6 ]; }
if whole "$T/b" && whole "$T/c" && [ "$(rows "$T/b")" = "$(rows "$T/c")" ]; then
	ok "same seed, same figures"
else
	ko "same seed, different figures (or a run without its 6 rows)"
fi
if whole "$T/b" && whole "$T/d" && [ "$(rows "$T/b")" != "$(rows "$T/d")" ]; then
	ok "another seed, another cluster"
else
	ko "seeds 5 and 6 gave the same figures (or a run without its 6 rows)"
fi
expect "no gnuplot: the PNG is skipped, said" 0 "replay.png: skipped: gnuplot is not installed" -- \
	env PATH=/nonexistent $R --policy first-fit --out "$T/n"
expect "--no-plot says so" 0 "replay.png: skipped (--no-plot)" -- $R --policy fgd --out "$T/e" --no-plot
expect "--qos-priority runs" 0 "fgd" -- $R --policy fgd,random --qos-priority --out "$T/f" --no-plot

# Bad input: the file and line.
head -5 $D/pods-slice.csv >"$T/bad.csv"
echo "openb-pod-x,12000,16384,1,abc,,LS,Running,0,10,0" >>"$T/bad.csv"
expect "malformed pod row" 1 "bad.csv:6: gpu_milli 'abc' is not an integer" -- \
	$R --pods "$T/bad.csv" --out "$T/g"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\n' >"$T/h100.csv"
expect "unknown GPU model" 1 "h100.csv:2: unknown GPU model 'H100'" -- \
	$R --nodes "$T/h100.csv" --out "$T/g"
expect "unknown model given a speed" 0 "runs in" -- $R --nodes "$T/h100.csv" --speed H100=2 \
	--policy fgd --out "$T/g" --no-plot
expect "missing pods file" 1 "nope.csv: No such file" -- $R --pods "$T/nope.csv" --out "$T/g"
expect "load out of reach" 1 "out of reach" -- $R --load 9 --out "$T/g" --no-plot
expect "unknown policy" 2 "unknown policy 'worst-fit'" -- $R --policy worst-fit
expect "bad load" 2 "bad --load" -- $R --load 0
expect "bad speed" 2 "bad speed factor" -- $R --speed T4=-1
expect "pods required" 2 "are required" -- "$Q" sched replay --nodes $D/nodes-slice.csv
expect "sched help" 0 "replay" -- "$Q" sched --help
expect "replay help" 0 "--nodes-count" -- "$Q" sched replay --help

# The neural policy with the shipped model, on the cpu backend; its loader's errors.
expect "neural with the shipped model, int8/fp32 compared" 0 "int8 and fp32 choose the same node" -- \
	$R --policy all,neural --part eval --load 0.3 --fp32-file sched/model/sched.fp32 --out "$T/nn" --no-plot
grep -q "^neural,0.3,1," "$T/nn/runs.csv" && grep -q "^tetris,0.3,1," "$T/nn/runs.csv" &&
	ok "all,neural: runs.csv has the heuristics and neural" || ko "runs.csv lacks neural or tetris"
# The same choices on the card model as on the cpu backend: the same figures.
$R --policy neural --load 0.5,0.9 --out "$T/cpu" --no-plot >/dev/null 2>&1
$R --policy neural --load 0.5,0.9 --backend sim --out "$T/sim" --no-plot >/dev/null 2>&1
if [ -s "$T/sim/runs.csv" ] && [ "$(sed 's/,[^,]*$//' "$T/cpu/runs.csv")" = "$(sed 's/,[^,]*$//' "$T/sim/runs.csv")" ]; then
	ok "neural: the same figures on sim as on cpu"
else
	ko "neural: sim and cpu differ (or sim did not run)"
fi
expect "a policy named twice" 2 "named twice" -- $R --policy fgd,all
head -c 20 sched/model/sched.qmlp >"$T/short.qmlp"
expect "truncated model" 1 "short.qmlp: offset 20: truncated" -- \
	$R --policy neural --model-file "$T/short.qmlp" --out "$T/g"
expect "missing model" 1 "none.qmlp: No such file" -- \
	$R --policy neural --model-file "$T/none.qmlp" --out "$T/g"
expect "bad part" 2 "bad --part" -- $R --part test
# The dataset: rollouts written, and read back by the training's reader with the count said.
DS="$Q sched dataset --pods $D/pods-slice.csv --nodes $D/nodes-slice.csv --nodes-count 16"
out=$($DS --seed 3 --load 0.7 --rate 0.5 --horizon 8 --out "$T/ds.qsds" 2>&1)
n=$(printf '%s' "$out" | sed -n 's/^wrote .*: \([0-9]*\) decisions.*/\1/p')
py=/usr/bin/python3
if [ -z "$n" ] || [ "$n" -eq 0 ]; then
	ko "sched dataset: $(printf '%s' "$out" | tail -1)"
elif ! $py -c "import numpy" 2>/dev/null; then
	missing_pkg "sched dataset: $n decisions, not read back: $py has no numpy" python3-numpy
else
	got=$(cd sched/train && $py -c "import dataset, sys; g, d = dataset.read(sys.argv[1]); \
assert all(x.feasible[x.base] and x.rolled[x.base] for x in d); print(len(d))" "$T/ds.qsds" 2>&1)
	[ "$got" = "$n" ] && ok "sched dataset: $n decisions, read back" ||
		ko "sched dataset: wrote $n, read back '$got'"
fi
expect "dataset needs --out" 2 "are required" -- $DS

# The split by time: 60/20/20 of the rows in creation order, disjoint and complete, each
# file in creation order; a part's file is the same whatever the eval rows hold; and the
# replay of --part eval is the replay of eval.csv.
expect "split" 0 "eval.csv: 80 pods" -- "$Q" sched split --pods $D/pods-slice.csv --out "$T/sp"
body() { tail -n +2 "$1"; }
ct() { body "$1" | cut -d, -f9; }
if [ "$(body "$T/sp/train.csv" | wc -l)" -eq 240 ] && [ "$(body "$T/sp/select.csv" | wc -l)" -eq 80 ] &&
	[ "$(cat "$T/sp/train.csv" "$T/sp/select.csv" "$T/sp/eval.csv" | grep -v '^name,' | sort)" = \
		"$(body $D/pods-slice.csv | sort)" ]; then
	ok "split: 240, 80, 80 rows, together the file's"
else
	ko "split: parts are not 60/20/20 of the file's rows"
fi
[ "$(ct "$T/sp/train.csv"; ct "$T/sp/select.csv"; ct "$T/sp/eval.csv")" = "$(ct $D/pods-slice.csv | sort -n)" ] &&
	ok "split: the parts follow each other in time" || ko "split: parts overlap in time"
# Planted: every eval row changed (CPU and duration) leaves train.csv and select.csv as they were.
last=$(ct "$T/sp/eval.csv" | head -1)
awk -F, -v OFS=, -v last="$last" 'NR > 1 && $9 >= last { $2 = 1000; if ($11 + 0 > 0) $10 = $11 + 5 } { print }' \
	$D/pods-slice.csv >"$T/planted.csv"
"$Q" sched split --pods "$T/planted.csv" --parts train,select --out "$T/sp2" >/dev/null 2>&1
if cmp -s "$T/sp/train.csv" "$T/sp2/train.csv" && cmp -s "$T/sp/select.csv" "$T/sp2/select.csv" &&
	[ ! -e "$T/sp2/eval.csv" ] && ! cmp -s $D/pods-slice.csv "$T/planted.csv"; then
	ok "split: train and select do not depend on the eval rows; --parts writes no eval.csv"
else
	ko "split: the eval rows changed train.csv or select.csv, or eval.csv was written"
fi
$R --part eval --policy fgd,random --seed 2 --out "$T/pe" --no-plot >/dev/null 2>&1
$R --pods "$T/sp/eval.csv" --policy fgd,random --seed 2 --out "$T/fe" --no-plot >/dev/null 2>&1
[ -s "$T/pe/runs.csv" ] && [ "$(rows "$T/pe")" = "$(rows "$T/fe")" ] &&
	ok "--part eval replays as eval.csv" || ko "--part eval and eval.csv differ"
expect "split: bad part" 2 "bad part 'test'" -- "$Q" sched split --pods $D/pods-slice.csv --parts test --out "$T/sp3"
expect "split: malformed row" 1 "bad.csv:6:" -- "$Q" sched split --pods "$T/bad.csv" --out "$T/sp3"
# make sched-train gives its steps the train and select files only: the pods file itself
# reaches nothing but `quire sched split --parts train,select`.
if command -v make >/dev/null 2>&1; then
	recipe=$(make -n sched-train BUILD="$T/mk" 2>/dev/null)
	if printf '%s' "$recipe" | grep -q "sched split --pods .*pods.csv --parts train,select" &&
		[ "$(printf '%s\n' "$recipe" | grep -c 'pods\.csv')" -eq 1 ] &&
		! printf '%s' "$recipe" | grep -q "eval"; then
		ok "sched-train: only the split reads pods.csv, and no eval part"
	else
		ko "sched-train's recipe reads pods.csv or an eval part: $recipe"
	fi
fi

# Inflation: K draws per pod, per seed; the saturation experiment's table, CSV and plot.
expect "inflate: 3 x the pods" 0 "1161 pods replayed" -- $R --inflate 3 --policy fgd --load 0.9 --out "$T/inf" --no-plot
expect "bad inflate" 2 "bad --inflate" -- $R --inflate 0
expect "saturate" 0 "unallocated GPUs" -- $R --saturate 1.2 --policy fgd,first-fit,neural --seed 1,2 --out "$T/sat"
n=$(grep -c '^fgd,' "$T/sat/saturate.csv" 2>/dev/null)
[ "$n" = 240 ] && [ -s "$T/sat/saturate.gp" ] && ok "saturate.csv: 120 points x 2 seeds per policy, and its plot script" ||
	ko "saturate.csv has $n fgd rows (want 240)"
# No departures: the allocated share never falls as demand grows.
if awk -F, 'NR > 1 { k = $1 "," $2; if (k in u && $7 > u[k] + 1e-9) bad = 1; u[k] = $7 } END { exit bad }' \
	"$T/sat/saturate.csv"; then
	ok "saturate: unallocated share never grows with demand"
else
	ko "saturate: the unallocated share grew (a pod left?)"
fi
expect "saturate: bad demand" 2 "bad --saturate" -- $R --saturate 0
summary "sched cli"
[ "$fail" -eq 0 ]
