#!/bin/sh
# SPDX-License-Identifier: MIT
# quire sched place: one decision from CSV or JSON on stdin, with small models made here by the
# tests' own model writer (tests/ref/mlp_ref.py): a model that scores one feature picks the
# node that feature says; the same answer and scores on cpu, the simulated card and
# opencl (when PoCL is there); the choice is the feasible argmax of the scores printed;
# no fit is 'none' (exit 3); malformed rows, corrupt or truncated models and bad usage
# are clear errors (exit 1 naming stdin:LINE or the model's offset, exit 2); quire sched
# bench prints its rows.
# Usage: test_sched_place.sh BUILD
set -u
B=$1
Q=$B/bin/quire
PY=${PYTHON:-python3}
. tests/cli/report.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-place-XXXXXX")
trap 'rm -rf "$T"' EXIT

expect() {
	name=$1 code=$2 pattern=$3 input=$4
	shift 5
	out=$(printf '%b' "$input" | "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$code" ] && { [ -z "$pattern" ] || printf '%s' "$out" | grep -q -- "$pattern"; }; then
		ok "$name"
	else
		ko "$name: exit $rc (want $code, '$pattern'), output: $(printf '%s' "$out" | head -3)"
	fi
}

# Models: random 17-64-32-1, and one layer scoring +/- one feature (index in docs/sched.md).
"$PY" - "$T" <<'PYEOF' || { ko "model writer"; exit 1; }
import random, sys
sys.path.insert(0, "tests/ref")
import mlp_ref as r
d = sys.argv[1]
W = [17, 64, 32, 1]
open(d + "/random.qmlp", "wb").write(r.image(W, r.random_model(random.Random(7), W)))
def one(name, feature, weight):
    w = [[0] * 17]
    w[0][feature] = weight
    open(d + "/" + name + ".qmlp", "wb").write(r.image([17, 1], [(w, [0], [], [])]))
one("gpu_free", 2, 1)
one("gpu_busy", 2, -1)
one("speed", 4, 1)
one("taken_left", 11, -1)
open(d + "/w16.qmlp", "wb").write(r.image([16, 1], [([[1] * 16], [0], [], [])]))
PYEOF

cat >"$T/in.csv" <<'CSV'
# a 1-GPU share of 500 milli-GPUs, four nodes
task,4000,8192,1,500,,LS,30
node,n1,32000,65536,2,T4,16000,30000,1000|600
node,n2,64000,131072,8,V100M16,60000,100000,1000|1000|1000|1000|1000|1000|1000|1000
node,n3,8000,16384,1,A10,8000,16384,200
node,cpu1,96000,393216,0,,90000,300000,
CSV
IN=$(cat "$T/in.csv")
P="$Q sched place --model-file"
expect "most free GPU share: n2" 0 "^n2 gpus=0$" "$IN" -- $P "$T/gpu_free.qmlp"
expect "least free GPU share, tie to the lowest index: n1 GPU 0" 0 "^n1 gpus=0$" "$IN" -- \
	$P "$T/gpu_busy.qmlp"
expect "fastest feasible model (n3's A10 does not fit): n2" 0 "^n2 gpus=0$" "$IN" -- \
	$P "$T/speed.qmlp"
expect "least left on the GPU taken: n1 GPU 1 (600 - 500)" 0 "^n1 gpus=1$" "$IN" -- \
	$P "$T/taken_left.qmlp"
expect "--speed T4=1.9: n1 (its two GPUs tie: GPU 0)" 0 "^n1 gpus=0$" "$IN" -- \
	$P "$T/speed.qmlp" --speed T4=1.9
expect "two whole GPUs: the node with room for them" 0 "^n2 gpus=0,1$" \
	"task,8000,8192,2,1000,,BE,0\nnode,n1,32000,65536,2,T4,16000,30000,1000|600\nnode,n2,64000,131072,8,V100M16,60000,100000,1000|1000|1000|1000|1000|1000|1000|1000\n" \
	-- $P "$T/gpu_busy.qmlp"
expect "fits nowhere: none, exit 3" 3 "^none" \
	"task,4000,8192,1,900,,LS,30\nnode,n3,8000,16384,1,A10,8000,16384,200\n" -- $P "$T/random.qmlp"
expect "CPU-only task on a CPU node" 0 "^cpu1$" \
	"task,1000,1024,0,0,,Burstable,0\nnode,cpu1,96000,393216,0,,90000,300000,\n" -- $P "$T/random.qmlp"

# The choice is the feasible candidate with the largest score (ties: the lowest index).
printf '%s\n' "$IN" | $P "$T/random.qmlp" --verbose >"$T/v" 2>&1
want=$(awk '!/^#/ && NF == 6 && $4 == 1 && (best == "" || $5 > s) { best = $2 " gpus=" $3; s = $5 }
	END { print best }' "$T/v")
got=$(tail -1 "$T/v")
[ -n "$want" ] && [ "$got" = "$want" ] && ok "verbose: the choice ($got) is the feasible argmax" ||
	ko "verbose: chose '$got', the scores say '$want': $(cat "$T/v")"
# The target workload (class rows) moves the fragmentation feature (the 13th).
printf '%s\nclass,0,0,1,700,,10\n' "$IN" | $P "$T/random.qmlp" --verbose >"$T/vc" 2>&1
awk '!/^#/ && NF == 6 { split($6, f, ","); if ($4 == 1 && f[13] != 64) n++ } END { exit !n }' "$T/vc" &&
	ok "class rows: a 700-milli class makes a 500 share's placement fragment" ||
	ko "class rows did not move the fragmentation feature: $(cat "$T/vc")"

# The same scores and answer on every backend at hand.
backends="sim"
if has_opencl; then backends="$backends opencl"; else
	missing_pkg "no OpenCL platform: opencl not compared" ocl-icd-libopencl1 pocl-opencl-icd; fi
for b in $backends; do
	printf '%s\n' "$IN" | $P "$T/random.qmlp" --verbose --backend "$b" >"$T/vb" 2>&1
	grep -v '^#' "$T/v" >"$T/v.cpu"
	grep -v '^#' "$T/vb" >"$T/v.$b"
	if cmp -s "$T/v.cpu" "$T/v.$b"; then
		ok "$b: the same scores and choice as cpu"
	else
		ko "$b: differs from cpu: $(diff "$T/v" "$T/vb" | head -5)"
	fi
done

# Malformed input: exit 1, stdin:LINE and the field.
H="task,4000,8192,1,500,,LS,30"
expect "gpu_free count" 1 "stdin:2: gpu_free '1000': 1 values for the node's 2 GPUs" \
	"$H\nnode,n1,32000,65536,2,T4,16000,30000,1000\n" -- $P "$T/random.qmlp"
expect "unknown GPU model" 1 "stdin:2: unknown GPU model 'H100'" \
	"$H\nnode,n1,32000,65536,2,H100,16000,30000,1000|1\n" -- $P "$T/random.qmlp"
expect "unknown qos" 1 "stdin:1: unknown qos 'XX'" "task,4000,8192,1,500,,XX,30\n" -- \
	$P "$T/random.qmlp"
expect "negative wait" 1 "stdin:1: waited_s '-3'" "task,4000,8192,1,500,,LS,-3\n" -- \
	$P "$T/random.qmlp"
expect "free above capacity" 1 "stdin:2: cpu_free 36000 outside 0..32000" \
	"$H\nnode,n1,32000,65536,2,T4,36000,30000,1000|1\n" -- $P "$T/random.qmlp"
expect "not an integer" 1 "stdin:3: memory_mib '1e6' is not an integer" \
	"$H\n# comment\nnode,n1,32000,1e6,2,T4,16000,30000,1000|1\n" -- $P "$T/random.qmlp"
expect "short row" 1 "stdin:2: node row: 4 fields, 9 expected" "$H\nnode,n1,32000,65536\n" -- \
	$P "$T/random.qmlp"
expect "unknown row kind" 1 "stdin:1: row kind 'tusk'" "tusk,1\n" -- $P "$T/random.qmlp"
expect "no task" 1 "stdin: no task (" "node,n1,32000,65536,2,T4,16000,30000,1000|1\n" -- \
	$P "$T/random.qmlp"
expect "no node" 1 "stdin: no node (" "$H\n" -- $P "$T/random.qmlp"
expect "two tasks" 1 "stdin:2: a second task row" "$H\n$H\n" -- $P "$T/random.qmlp"
expect "bad class" 1 "stdin:3: count 0 outside" "$H\nnode,n1,32000,65536,0,,1,1,\nclass,0,0,0,0,,0\n" -- \
	$P "$T/random.qmlp"

# The same input as JSON: the same candidates, features, scores and choice.
cat >"$T/in.json" <<'JSON'

{
  "task": {"cpu_milli": 4000, "memory_mib": 8192, "num_gpu": 1, "gpu_milli": 500,
           "qos": "LS", "waited_s": 30},
  "nodes": [
    {"sn": "n1", "cpu_milli": 32000, "memory_mib": 65536, "gpu": 2, "model": "T4",
     "cpu_free": 16000, "memory_free": 30000, "gpu_free": [1000, 600]},
    {"sn": "n2", "cpu_milli": 64000, "memory_mib": 131072, "gpu": 8, "model": "V100M16",
     "cpu_free": 60000, "memory_free": 100000,
     "gpu_free": [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000]},
    {"sn": "n3", "cpu_milli": 8000, "memory_mib": 16384, "gpu": 1, "model": "A10",
     "cpu_free": 8000, "memory_free": 16384, "gpu_free": [200]},
    {"sn": "cpu1", "cpu_milli": 96000, "memory_mib": 393216, "gpu": 0,
     "cpu_free": 90000, "memory_free": 300000}
  ],
  "classes": []
}
JSON
$P "$T/random.qmlp" --verbose <"$T/in.json" >"$T/vj" 2>&1
cmp -s "$T/v" "$T/vj" && ok "JSON: the same decision as the CSV" ||
	ko "JSON differs from CSV: $(diff "$T/v" "$T/vj" | head -4)"
J=$(cat "$T/in.json")
jexpect() { # jexpect NAME PATTERN SED-SCRIPT: the JSON edited, exit 1 with PATTERN
	expect "JSON: $1" 1 "$2" "$(printf '%s' "$J" | sed "$3")" -- $P "$T/random.qmlp"
}
jexpect "free above capacity, the node named" "stdin: nodes\[0\]: cpu_free 36000 outside 0..32000" \
	's/"cpu_free": 16000/"cpu_free": 36000/'
jexpect "missing key" "stdin: task: no 'qos'" 's/"qos": "LS", //'
jexpect "unknown key" "stdin: nodes\[1\]: unknown key 'color' in a node" 's/"sn": "n2",/"sn": "n2", "color": 1,/'
jexpect "a key twice" "stdin:8: JSON: duplicate object key near '\"sn\"'" 's/"sn": "n2",/"sn": "n2", "sn": "n3",/'
jexpect "broken array, the line" "stdin:12: JSON: ']' expected near '}'" 's/\[200\]/[200/'
jexpect "a real where an integer is wanted" "stdin: nodes\[0\]: gpu_free '600.0' is not an integer" 's/1000, 600/1000, 6e2/'
jexpect "an object where a number is wanted" "stdin: nodes\[0\]: 'cpu_free' is not a string or number" 's/"cpu_free": 16000/"cpu_free": {}/'
jexpect "unknown GPU model" "stdin: nodes\[2\]: unknown GPU model 'A100'" 's/"A10"/"A100"/'
jexpect "trailing text" "stdin:17: JSON: end of file expected near 'x'" 's/^}$/} x/'
expect "JSON: cut short" 1 "stdin:1: JSON: .*end of file" '{"task":' -- $P "$T/random.qmlp"
expect "JSON: empty object" 1 "stdin: no task (" '{}' -- $P "$T/random.qmlp"

# Bad models: the offset at fault.
head -c 100 "$T/random.qmlp" >"$T/trunc.qmlp"
expect "truncated model" 1 "trunc.qmlp: offset 100: truncated" "$IN" -- $P "$T/trunc.qmlp"
"$PY" -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[40] ^= 1; open(sys.argv[2], 'wb').write(d)" \
	"$T/random.qmlp" "$T/crc.qmlp"
expect "corrupt model" 1 "crc.qmlp: offset 24: payload CRC-32" "$IN" -- $P "$T/crc.qmlp"
expect "not a model" 1 "in.csv: offset 0: magic" "$IN" -- $P "$T/in.csv"
expect "16-input model" 1 "takes 16 inputs; a candidate has 17" "$IN" -- $P "$T/w16.qmlp"
expect "missing model" 1 "No such file" "$IN" -- $P "$T/none.qmlp"
expect "--model-file required" 2 "is required" "$IN" -- "$Q" sched place
expect "place help" 0 "gpu_free" "" -- "$Q" sched place --help
# quire sched bench: a row per backend and size (the figures themselves are not checked).
expect "bench: cpu, 32, 1024 and 1213 candidates" 0 "^cpu  *1213  *[0-9.][0-9.]*  *[0-9.][0-9.]*  *- " "" -- \
	"$Q" sched bench --backend cpu --repeat 3
expect "bench: --widths" 0 "model: 17-8-1 (" "" -- "$Q" sched bench --backend cpu --repeat 1 \
	--widths 17,8,1
expect "bench: bad --widths" 2 "the last 1" "" -- "$Q" sched bench --widths 17,8
expect "bench: bad --model" 2 "rtl, not 'emu'" "" -- "$Q" sched bench --model emu
summary "sched place"
[ "$fail" -eq 0 ]
