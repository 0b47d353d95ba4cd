#!/bin/sh
# SPDX-License-Identifier: MIT
# quire link run (cli/link_run.c, docs/cli.md): bad options are refused; as root, 2 ranks on
# 1 Gbit/s links each run the command in a namespace of their own, see their rank and reach
# the master's address over TCP (a small Python exchange); with --cards each rank's simulated
# card answers in its namespace; a failing rank's status is the launcher's and stops the
# other; and no namespace or process is left after a normal end, after that failure and
# after SIGTERM of the launcher while its ranks run; a killed run's namespaces go with the next.
# Usage: test_link_run.sh BUILD
set -u
B=$1
Q=$B/bin/quire
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-linkrun-XXXXXX")
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
trap 'rm -rf "$T"' EXIT
check() { # check NAME COMMAND...
	n=$1
	shift
	if "$@"; then ok "$n"; else ko "$n"; fi
}

"$Q" link run --ranks 2 -- true >"$T/out" 2>&1
check "no --rate: refused, exit 2 ($(head -1 "$T/out"))" [ $? -eq 2 ]
"$Q" link run --ranks 2 --rate fast -- true >"$T/out" 2>&1
check "--rate fast: refused, exit 2" [ $? -eq 2 ]
"$Q" link run --ranks 2 --rate 1gbit >"$T/out" 2>&1
check "no COMMAND: refused, exit 2" [ $? -eq 2 ]

ours() { ip netns list 2>/dev/null | grep -c "^quire-link-$1-"; } # ours PID: its namespaces
if [ "$(id -u)" -ne 0 ]; then
	skip "the runs on shaped links: needs root (ip netns, tc)"
	summary "link run"
	exit 0
fi
if ! command -v tc >/dev/null; then
	missing_pkg "the runs on shaped links not run" iproute2
	summary "link run"
	exit 1
fi
# Debian's python3, as tests/python/run.sh: the one with numpy, for --cards' quire package.
PY=${QUIRE_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=$(command -v python3)

# Rank 0 listens on all its addresses, rank 1 connects to the master's address and says who
# it is; both print what they see.
cat >"$T/meet.py" <<'PY'
import os, socket, subprocess, sys, time
r, w, m = int(os.environ["QUIRE_RANK"]), int(os.environ["QUIRE_WORLD"]), os.environ["QUIRE_LINK_MASTER"]
port = int(os.environ["MASTER_PORT"])
addrs = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", os.environ["GLOO_SOCKET_IFNAME"]],
                       capture_output=True, text=True).stdout
# One write(2) per line: the ranks share the launcher's stdout.
os.write(1, (f"rank {r} of {w}: master {m}, own {os.environ['QUIRE_LINK_ADDR']} "
             f"({'on' if os.environ['QUIRE_LINK_ADDR'] + '/' in addrs else 'NOT on'} my interface)\n").encode())
if r == 0:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen()
    c, peer = s.accept()
    os.write(1, f"rank 0 heard '{c.recv(64).decode()}' from {peer[0]}\n".encode())
else:
    for _ in range(200):
        try:
            c = socket.create_connection((m, port), timeout=5)
            break
        except OSError:
            time.sleep(0.05)
    c.sendall(f"rank {r}".encode())
    c.close()
PY
stale=$(sh -c 'echo $$') # a run killed outright leaves its namespaces; the next run removes them
ip netns add "quire-link-$stale-hub"
t0=$(now)
"$Q" link run --ranks 2 --rate 1gbit --port 29611 -- "$PY" "$T/meet.py" >"$T/run.log" 2>&1 &
q=$!
wait $q
rc=$?
check "2 ranks on 1gbit links: exit 0 ($(secs "$t0" "$(now)") s)" [ $rc -eq 0 ]
check "each rank saw its rank, the world size and the master address" eval \
	"grep -q '^rank 0 of 2: master 192.0.2.1, own 192.0.2.1 (on my interface)' '$T/run.log' && grep -q '^rank 1 of 2: master 192.0.2.1, own 192.0.2.2 (on my interface)' '$T/run.log'"
check "rank 0 at the master address heard rank 1 from 192.0.2.2" grep -q "^rank 0 heard 'rank 1' from 192.0.2.2$" "$T/run.log"
check "no namespace left" [ "$(ours $q)" -eq 0 ]
check "the stale namespace of a killed run removed" [ "$(ours "$stale")" -eq 0 ]
[ "$(ours "$stale")" -eq 0 ] || ip netns del "quire-link-$stale-hub"

# --cards: each rank's simulated card in its namespace; the cards all-reduce 1 + 2 over UDP.
if ! "$PY" -c "import numpy" 2>/dev/null; then
	missing_pkg "--cards not run ($PY has no numpy)" python3-numpy
else
	# A sanitized libquire needs the sanitizer runtimes loaded before python itself (as in
	# tests/python/run.sh); only the ranks' python gets them.
	pre=
	if ldd "$B/lib/libquire.so.0" | grep -q libasan; then
		pre="env ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD=$(ldd "$B/lib/libquire.so.0" |
			awk '/libasan|libubsan/ {printf "%s:", $3}')"
	fi
	"$Q" link run --ranks 2 --rate 1gbit --cards -- $pre "$PY" "$(dirname "$0")/link_card.py" "$B/python" \
		>"$T/cards.log" 2>&1 &
	q=$!
	wait $q
	rc=$?
	check "--cards: exit 0, each rank's card gave 1 + 2 = 3 ($(tr '\n' ' ' <"$T/cards.log" | cut -c1-150))" \
		eval "[ $rc -eq 0 ] && [ \"\$(grep -c '^rank [01]: card all-reduce at 192.0.2.[12]: \\[3.0\\]$' '$T/cards.log')\" -eq 2 ]"
	check "--cards: no namespace left" [ "$(ours $q)" -eq 0 ]
fi

# Rank 1 fails while rank 0 would run for a minute: its status comes back, rank 0 is stopped.
t0=$(now)
# (sleep 60.PID: a name no other process on the machine has, for the check below)
"$Q" link run --ranks 2 --rate 1gbit -- sh -c "[ \"\$QUIRE_RANK\" = 1 ] && exit 3; exec sleep 60.$$" \
	>"$T/fail.log" 2>&1 &
q=$!
wait $q
rc=$?
check "rank 1 exits 3: the launcher exits 3 within $(secs "$t0" "$(now)") s ($(grep -m1 'rank 1' "$T/fail.log"))" [ $rc -eq 3 ]
check "failure: no namespace left" [ "$(ours $q)" -eq 0 ]
check "failure: no sleep of rank 0 left" [ -z "$(ps -e -o args= | grep -x "sleep 60.$$")" ]

# SIGTERM once both ranks run: exit 143, ranks, namespaces and veths gone.
"$Q" link run --ranks 2 --rate 1gbit -- sh -c "echo \$\$ >$T/started.\$QUIRE_RANK; exec sleep 61" \
	>"$T/term.log" 2>&1 &
q=$!
if ! wait_until 30 eval "[ -s $T/started.0 ] && [ -s $T/started.1 ]"; then
	ko "SIGTERM: the ranks did not start: $(tail -3 "$T/term.log")"
	kill -KILL $q
else
	tree="$(descendants $q | tr "\n" " ") $(cat "$T/started.0" "$T/started.1" | tr "\n" " ")"
	t0=$(now)
	kill -TERM $q
	wait $q
	rc=$?
	check "SIGTERM while the ranks run: exit 143" [ $rc -eq 143 ]
	# shellcheck disable=SC2086
	check "SIGTERM: its $(echo $tree | wc -w) processes ended within $(secs "$t0" "$(now)") s" wait_until 5 eval "! alive $tree"
	check "SIGTERM: no namespace left" [ "$(ours $q)" -eq 0 ]
	check "SIGTERM: no veth of it left in this namespace" [ -z "$(ip -o link show type veth 2>/dev/null | grep -E ': (h[0-9]+|v0)@')" ]
	# shellcheck disable=SC2086
	kill -KILL $tree 2>/dev/null
fi

summary "link run"
[ "$fail" -eq 0 ]
