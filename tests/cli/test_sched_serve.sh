#!/bin/sh
# SPDX-License-Identifier: MIT
# quire sched serve, the Kubernetes scheduler extender: recorded requests in the protocol's
# own shapes (tests/data/sched_serve/: an ExtenderArgs with Nodes, one with NodeNames and
# the NodeList given with --nodes) answered as `quire sched place` decides the same input
# (place.csv): filter keeps exactly the nodes where the pod fits, prioritize's scores are
# place's, each node's best, mapped to 1..10; with the shipped model and a random one, on
# cpu, the simulated card and opencl (when PoCL is there). Bad requests get their 4xx and
# message and the server stays up; bad start-ups are clear errors; SIGTERM with a request
# in flight: that request gets its whole answer, and the server ends with status 0.
# Usage: test_sched_serve.sh BUILD
set -u
B=$1
Q=$B/bin/quire
PY=${PYTHON:-python3}
D=tests/data/sched_serve
. tests/cli/report.sh
. tests/cli/procs.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-serve-XXXXXX")
PIDS=""
trap 'for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
C="$PY tests/cli/serve_client.py"

# start NAME ARGS...: quire sched serve --port 0 --verbose ARGS in the background (stdout
# $T/NAME.out, stderr $T/NAME.log); PID and PORT set once it says where it listens.
start() {
	name=$1
	shift
	"$Q" sched serve --port 0 --verbose "$@" >"$T/$name.out" 2>"$T/$name.log" &
	PID=$!
	PIDS="$PIDS $PID"
	wait_until 120 grep -q '^quire sched serve: listening on ' "$T/$name.out" || {
		PORT=
		return 1
	}
	PORT=$(sed -n 's|^quire sched serve: listening on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' \
		"$T/$name.out")
	[ -n "$PORT" ]
}
# stop NAME: SIGTERM, and the server ends with status 0.
stop() {
	kill -TERM "$PID"
	wait "$PID"
	rc=$?
	[ $rc -eq 0 ] && ok "$1: stopped by SIGTERM, status 0" ||
		ko "$1: status $rc after SIGTERM: $(tail -3 "$T/$1.log")"
}
# ask NAME METHOD PATH [BODY]: the answer's status into $T/status, its body into $T/body.
ask() {
	$C request "$PORT" "$2" "$3" ${4:+"$4"} >"$T/answer" 2>&1
	head -1 "$T/answer" >"$T/status"
	tail -n +2 "$T/answer" >"$T/body"
}
# refused NAME STATUS PATTERN METHOD PATH [BODY]: a bad request's status and message.
refused() {
	name=$1 want=$2 pattern=$3
	shift 3
	ask "$name" "$@"
	if [ "$(cat "$T/status")" = "$want" ] && grep -q -- "$pattern" "$T/body" &&
		$PY -c 'import json,sys; json.load(open(sys.argv[1]))["Error"]' "$T/body" 2>/dev/null; then
		ok "$name: $want, '$pattern'"
	else
		ko "$name: $(cat "$T/answer" | head -3) (want $want, '$pattern')"
	fi
}

# Models: the shipped one, and a random 17-64-32-1 of the tests' own model writer.
"$PY" - "$T" <<'PYEOF' || { ko "model writer"; exit 1; }
import random, sys
sys.path.insert(0, "tests/ref")
import mlp_ref as r
W = [17, 64, 32, 1]
open(sys.argv[1] + "/random.qmlp", "wb").write(r.image(W, r.random_model(random.Random(11), W)))
open(sys.argv[1] + "/w16.qmlp", "wb").write(r.image([16, 1], [([[1] * 16], [0], [], [])]))
PYEOF

# ---- Recorded requests, answered as quire sched place decides them --------------------
backends="cpu sim"
if has_opencl; then backends="$backends opencl"; else
	missing_pkg "no OpenCL platform: opencl not served" ocl-icd-libopencl1 pocl-opencl-icd; fi
for model in sched/model/sched.qmlp "$T/random.qmlp"; do
	m=$(basename "$model" .qmlp)
	"$Q" sched place --model-file "$model" --verbose <"$D/place.csv" >"$T/v.$m" 2>&1 ||
		ko "$m: quire sched place on place.csv: $(cat "$T/v.$m")"
	bs=cpu
	[ "$m" = random ] && bs=$backends
	for b in $bs; do
		if ! start "$m-$b" --model-file "$model" --backend "$b" --nodes "$D/nodes.json"; then
			ko "$m on $b: the server did not start: $(cat "$T/$m-$b.log")"
			continue
		fi
		for args in nodes names; do
			for verb in filter prioritize; do
				ask "$m-$b" POST "/$verb" "$D/args_$args.json"
				if [ "$(cat "$T/status")" = 200 ] &&
					$C expect "$T/v.$m" "$T/body" "$verb" 2>"$T/why"; then
					ok "$m on $b: $verb of args_$args.json: place's decision"
				else
					ko "$m on $b: $verb of args_$args.json: $(cat "$T/status" "$T/why")"
				fi
				cp "$T/body" "$T/$verb.$args.$m.$b"
			done
		done
		stop "$m-$b"
	done
done
# The best node by prioritize is the one place chooses.
choice=$(tail -1 "$T/v.random" | cut -d' ' -f1)
$PY -c 'import json,sys; l=json.load(open(sys.argv[1])); sys.exit(not any(h["Host"] == sys.argv[2] and h["Score"] == 10 for h in l))' \
	"$T/prioritize.names.random.cpu" "$choice" &&
	ok "prioritize: place's choice ($choice) scores 10" ||
	ko "prioritize: place's choice ($choice) does not score 10: $(cat "$T/prioritize.names.random.cpu")"

# ---- Bad requests: a 4xx and a message, and the server stays up --------------------------
start bad --model-file "$T/random.qmlp" --max-body 16KiB --nodes "$D/nodes.json" ||
	ko "bad: the server did not start"
bad() { # bad NAME PYTHON-EXPRESSION: args_nodes.json changed by the expression (on `a`)
	$PY - "$D/args_nodes.json" "$T/$1.json" "$2" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(a if isinstance(a, str) else json.dumps(a))
PYEOF
}
bad trunc 'a = json.dumps(a)[:500]'
refused "malformed JSON" 400 "JSON, line 1, column" POST /filter "$T/trunc.json"
bad array 'a = [a]'
refused "not an object" 400 "an ExtenderArgs object expected" POST /prioritize "$T/array.json"
printf '' >"$T/empty.json"
refused "empty body" 400 "JSON" POST /prioritize "$T/empty.json"
bad nopod 'del a["Pod"]'
refused "no Pod" 400 "no Pod" POST /filter "$T/nopod.json"
bad both 'a["NodeNames"] = ["gpu-t4-a"]'
refused "Nodes and NodeNames" 400 "both Nodes and NodeNames" POST /filter "$T/both.json"
bad unknown 'a = {"Pod": a["Pod"], "NodeNames": ["gpu-t4-a", "gpu-h100-z"]}'
refused "unknown node" 400 "NodeNames\[1\]: unknown node 'gpu-h100-z' (not in the --nodes list)" \
	POST /prioritize "$T/unknown.json"
bad model 'a["Nodes"]["items"][0]["metadata"]["labels"]["alibabacloud.com/gpu-card-model"] = "H100"'
refused "unknown GPU model" 400 "Nodes.items\[0\] (gpu-t4-a): unknown GPU model 'H100'" \
	POST /prioritize "$T/model.json"
bad listed 'del a["Nodes"]["items"][1]["metadata"]["annotations"]["quire/cpu-free"]'
ask bad POST /prioritize "$T/listed.json"
[ "$(cat "$T/status")" = 200 ] && $C expect "$T/v.random" "$T/body" prioritize 2>"$T/why" &&
	ok "a node without quire/cpu-free: what is free from the --nodes list" ||
	ko "free from the --nodes list: $(cat "$T/status" "$T/why")"
bad nofree 'n = a["Nodes"]["items"][1]; del n["metadata"]["annotations"]["quire/cpu-free"]; n["metadata"]["name"] = "gpu-v100-x"'
refused "free resources unknown" 400 "Nodes.items\[1\] (gpu-v100-x): what is free there is not known" \
	POST /prioritize "$T/nofree.json"
bad quantity 'a["Pod"]["spec"]["containers"][1]["resources"]["requests"]["memory"] = "2 GiB"'
refused "bad quantity" 400 "Pod.spec.containers\[1\].resources.requests.memory: not a Kubernetes quantity" \
	POST /prioritize "$T/quantity.json"
bad over 'a["Nodes"]["items"][0]["metadata"]["annotations"]["quire/cpu-free"] = "33"'
refused "free above allocatable" 400 "(gpu-t4-a): cpu_free 33000 outside 0..32000" \
	POST /filter "$T/over.json"
bad milli 'a["Pod"]["metadata"]["annotations"]["alibabacloud.com/gpu-milli"] = "1500"'
refused "GPU share above 1000" 400 "Pod: gpu_milli 1500 outside" POST /filter "$T/milli.json"
bad time 'a["Pod"]["metadata"]["creationTimestamp"] = "yesterday"'
refused "bad creationTimestamp" 400 "creationTimestamp: RFC 3339" POST /filter "$T/time.json"
bad huge 'a["Pod"]["metadata"]["annotations"]["x"] = "y" * 20000'
refused "body above --max-body" 413 "at most 16384 (--max-body)" POST /prioritize "$T/huge.json"
$C chunked "$PORT" POST /prioritize "$T/huge.json" >"$T/answer" 2>&1
[ "$(head -1 "$T/answer")" = 413 ] && grep -q "more than 16384 bytes (--max-body)" "$T/answer" &&
	ok "chunked body above --max-body: 413 after its end" || ko "chunked too big: $(head -3 "$T/answer")"
$C chunked "$PORT" POST /prioritize "$D/args_nodes.json" >"$T/answer" 2>&1
head -1 "$T/answer" >"$T/status"
tail -n +2 "$T/answer" >"$T/body"
[ "$(cat "$T/status")" = 200 ] && $C expect "$T/v.random" "$T/body" prioritize 2>"$T/why" &&
	ok "a chunked body: answered as the others" || ko "chunked: $(cat "$T/status" "$T/why")"
refused "GET /filter" 405 "GET /filter: POST expected" GET /filter
refused "unknown path" 404 "no '/bind' here" POST /bind "$D/args_nodes.json"
ask bad GET /healthz
[ "$(cat "$T/status")" = 200 ] && grep -q '^ok$' "$T/body" &&
	ok "after the bad requests: still up (GET /healthz)" || ko "healthz: $(cat "$T/answer")"
ask bad POST /prioritize "$D/args_nodes.json"
[ "$(cat "$T/status")" = 200 ] && $C expect "$T/v.random" "$T/body" prioritize 2>"$T/why" &&
	ok "after the bad requests: a good one answered right" || ko "good after bad: $(cat "$T/why")"
stop bad
alive "$PID" && ko "bad: still running" || true

# ---- Start-up errors ------------------------------------------------------------------
startup() { # startup NAME STATUS PATTERN ARGS...
	name=$1 want=$2 pattern=$3
	shift 3
	"$Q" sched serve --port 0 "$@" >"$T/su.out" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pattern" "$T/su.out"; then
		ok "start-up: $name: exit $want, '$pattern'"
	else
		ko "start-up: $name: exit $rc (want $want, '$pattern'): $(head -3 "$T/su.out")"
	fi
}
startup "no model file" 1 "$T/none.qmlp" --model-file "$T/none.qmlp"
head -c 100 "$T/random.qmlp" >"$T/short.qmlp"
startup "truncated model" 1 "short.qmlp: offset" --model-file "$T/short.qmlp"
startup "model of 16 inputs" 1 "input width 16" --model-file "$T/w16.qmlp"
startup "--model-file missing" 2 "model-file FILE is required"
startup "no --nodes file" 1 "nodes.none" --model-file "$T/random.qmlp" --nodes "$T/nodes.none"
startup "--nodes not a NodeList" 1 "a v1.NodeList expected" --model-file "$T/random.qmlp" \
	--nodes "$D/args_nodes.json"
startup "bad --listen" 2 "an IPv4 or IPv6 address" --model-file "$T/random.qmlp" --listen nowhere
startup "bad backend" 1 "sched serve" --model-file "$T/random.qmlp" --backend nosuch
if start taken --model-file "$T/random.qmlp"; then
	grep -q "listening on http://127.0.0.1:" "$T/taken.out" && ok "loopback by default, port 0: printed" ||
		ko "default address: $(cat "$T/taken.out")"
	refused "NodeNames without --nodes" 400 "without a node list (--nodes FILE)" POST /filter \
		"$D/args_names.json"
	"$Q" sched serve --model-file "$T/random.qmlp" --port "$PORT" >"$T/su.out" 2>&1
	rc=$?
	[ $rc -eq 1 ] && grep -q "cannot listen on 127.0.0.1 port $PORT" "$T/su.out" &&
		ok "start-up: port taken: exit 1" || ko "port taken: exit $rc: $(cat "$T/su.out")"
	stop taken
else
	ko "taken: the server did not start"
fi

# ---- SIGTERM with a request in flight: its whole answer, then status 0 -------------------
if start term --model-file "$T/random.qmlp"; then
	$C in-flight "$PORT" "$D/args_nodes.json" "$T/term.log" "$PID" >"$T/answer" 2>&1
	head -1 "$T/answer" >"$T/status"
	tail -n +2 "$T/answer" >"$T/body"
	if [ "$(cat "$T/status")" = 200 ] && cmp -s "$T/body" "$T/prioritize.nodes.random.cpu"; then
		ok "SIGTERM in flight: the request got its whole answer"
	else
		ko "SIGTERM in flight: $(head -3 "$T/answer")"
	fi
	wait "$PID"
	rc=$?
	[ $rc -eq 0 ] && grep -q "stopped; 1 requests, 1 answered" "$T/term.log" &&
		ok "SIGTERM in flight: then stopped, status 0" ||
		ko "SIGTERM in flight: status $rc: $(tail -3 "$T/term.log")"
else
	ko "term: the server did not start"
fi

# ---- quire bench sched-serve: its rows (the figures are not judged here) -----------------
"$Q" bench sched-serve --nodes 5,20 --requests 20 --clients 2 >"$T/bench" 2>&1
rc=$?
rows=$(awk '$1 ~ /^[0-9]+$/ && ($2 == "Nodes" || $2 == "NodeNames") && $6 > 0 && $9 >= $8' "$T/bench" | wc -l)
[ $rc -eq 0 ] && [ "$rows" -eq 4 ] && ok "bench sched-serve: 4 rows of req/s and latency" ||
	ko "bench sched-serve: exit $rc, $rows rows: $(cat "$T/bench")"
"$Q" bench sched-serve --nodes 0 >"$T/bench" 2>&1
[ $? -eq 2 ] && grep -q -- "--nodes: up to" "$T/bench" && ok "bench sched-serve: bad --nodes, exit 2" ||
	ko "bench sched-serve --nodes 0: $(cat "$T/bench")"

summary test_sched_serve
