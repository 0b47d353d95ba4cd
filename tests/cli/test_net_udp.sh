#!/bin/sh
# SPDX-License-Identifier: MIT
# The cards' network over UDP (sim/wire_udp.c, docs/network.md): 4-card all-reduces (fp32,
# and bfp8 with error feedback, 3 rounds of 100,001 seeded values) over UDP on loopback
# give every rank the same bytes as over Unix sockets, with the address table given as a
# list and learnt from a rendezvous (sim/wire_udp_rendezvous.c: TCP, served by card 0, and files in the
# cluster's directory; one launcher per rank, by hand and under mpirun); a bad address
# table is refused; a rendezvous whose cards do not all come fails within its timeout,
# naming them; through 2% loss and 2% corruption the link above UDP gives the loss-free bits.
# As root, two network namespaces joined by a veth pair shaped with tc tbf stand in for
# two machines, two cards in each, with a list and with a rendezvous: the same bytes again,
# and neither namespace, veth nor process is left afterwards. Not root: that part is
# skipped, and says so (SKIP); missing MPI or iproute2 is a failure naming the package.
# Usage: test_net_udp.sh BUILD
set -u
B=$1
CL=$B/bin/quire-cluster
SIM=$B/bin/quire-sim
DUMP=$B/tests/cli/ring_dump
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-wire-udp-XXXXXX")
export TMPDIR="$T"
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
NS_A=quire-udp-$$-a
NS_B=quire-udp-$$-b
cleanup() {
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
N=100001
ROUNDS=3

# The 4 ranks of one all-reduce job in the cluster's directory: results to $T/$1-$fmt-r.
ranks() { # ranks TAG FMT
	echo "p=; for r in 0 1 2 3; do QUIRE_RANK=\$r $DUMP 4 $2 $N $ROUNDS $T/$1-$2-\$r & p=\"\$p \$!\"; done
		fail=0; for i in \$p; do wait \$i || fail=1; done; exit \$fail"
}
same_as_unix() { # same_as_unix TAG FMT: every rank's bytes equal those over Unix sockets
	for r in 0 1 2 3; do
		cmp -s "$T/unix-$2-$r" "$T/$1-$2-$r" || return 1
	done
}
run_as() { # run_as TAG LABEL FMT QUIRE-CLUSTER-OPTIONS...: ok/ko against the Unix run
	tag=$1 label=$2 fmt=$3
	shift 3
	t0=$(now)
	if "$CL" -n 4 "$@" -- sh -c "$(ranks "$tag" "$fmt")" >"$T/$tag.log" 2>&1; then
		t1=$(now)
		if same_as_unix "$tag" "$fmt"; then
			ok "$label: 4 cards, $fmt all-reduce ($ROUNDS x $N values): the same bytes as over Unix sockets, every rank ($(secs "$t0" "$t1") s)"
		else
			ko "$label: 4 cards, $fmt all-reduce: bytes differ from those over Unix sockets"
		fi
	else
		ko "$label: 4 cards, $fmt all-reduce failed: $(tail -3 "$T/$tag.log")"
	fi
}

# One launcher per rank (quire-cluster --rank-card, as under mpirun): each starts its own
# card (address = rank) in the directory the ranks share, and runs its rank.
rank_cards() { # rank_cards TAG LABEL FMT QUIRE-CLUSTER-OPTIONS...
	tag=$1 label=$2 fmt=$3
	shift 3
	mkdir -p "$T/shared-$tag"
	p=
	for r in 0 1 2 3; do
		QUIRE_RANK=$r QUIRE_CLUSTER_DIR="$T/shared-$tag" "$CL" --rank-card "$@" -- \
			"$DUMP" 4 "$fmt" $N $ROUNDS "$T/$tag-$fmt-$r" >"$T/$tag-$r.log" 2>&1 &
		p="$p $!"
	done
	bad=0
	for i in $p; do wait "$i" || bad=1; done
	if [ $bad -eq 0 ] && same_as_unix "$tag" "$fmt"; then
		ok "$label: 4 launchers of one card each, $fmt all-reduce: the same bytes as over Unix sockets, every rank"
	else
		ko "$label: 4 launchers of one card each, $fmt: $(cat "$T/$tag"-?.log | tail -3)"
	fi
	if ls "$T/shared-$tag" | grep -q "^card-"; then ko "$label: card files left: $(ls "$T/shared-$tag")"; fi
}

"$CL" -n 2 --net udp:nowhere -- true >"$T/out" 2>&1
if [ $? -ne 0 ] && grep -q "card 0 did not start" "$T/out"; then ok "quire-cluster --net udp:nowhere refused"; else ko "--net udp:nowhere: $(cat "$T/out")"; fi
"$SIM" --socket "$T/c.sock" --net udp:127.0.0.1,127.0.0.1 --addr 2 --quiet >"$T/out" 2>&1
if [ $? -eq 2 ] && grep -q "no entry for --addr 2" "$T/out"; then ok "quire-sim: an address outside the UDP table refused ($(head -1 "$T/out"))"; else ko "address outside the table: $(cat "$T/out")"; fi

BASE=$((20000 + ($$ % 20000))) # UDP ports of this run: another run may share the machine
RDV=$BASE                      # and the TCP port of its rendezvous
for fmt in fp32 bfp8; do
	if ! "$CL" -n 4 -- sh -c "$(ranks unix $fmt)" >"$T/unix.log" 2>&1; then
		ko "4 cards over Unix sockets, $fmt all-reduce: $(tail -3 "$T/unix.log")"
		continue
	fi
	run_as lo "UDP on loopback" "$fmt" --net "udp:127.0.0.1:$BASE"
	run_as rdv "UDP on loopback, addresses from a TCP rendezvous" "$fmt" --net "udp:rdv=127.0.0.1:$RDV"
done
run_as dirv "UDP on loopback, addresses from files in the cluster's directory" fp32 --net udp:dir
rank_cards rlo "UDP on loopback" fp32 --net "udp:127.0.0.1:$BASE"
rank_cards rrdv "UDP on loopback, a TCP rendezvous" fp32 --net "udp:rdv=127.0.0.1:$RDV,cards=4"
rank_cards rdir "UDP on loopback, files in the directory the ranks share" bfp8 --net "udp:dir,cards=4"
QUIRE_RANK=0 "$CL" --rank-card --net "udp:dir,cards=2" -- true >"$T/out" 2>&1
if [ $? -eq 2 ] && grep -q "QUIRE_CLUSTER_DIR, which is not set" "$T/out"; then ok "--rank-card --net udp:dir without a shared directory refused"; else ko "rank-card udp:dir alone: $(cat "$T/out")"; fi

# The rendezvous' failures: bounded, and saying who is missing.
t0=$(now)
"$SIM" --socket "$T/c.sock" --net "udp:rdv=127.0.0.1:$RDV,cards=3,timeout=1" --addr 0 --quiet >"$T/out" 2>&1
rc=$?
t1=$(now)
if [ $rc -eq 1 ] && grep -q "after 1 s, 2 of 3 cards have not come: addresses 1, 2" "$T/out" && [ ! -e "$T/c.sock" ]; then
	ok "a rendezvous whose peers never come: card 0 fails in $(secs "$t0" "$t1") s, naming them ($(head -1 "$T/out"))"
else
	ko "rendezvous with missing peers: exit $rc: $(cat "$T/out")"
fi
QUIRE_RANK=1 "$CL" --rank-card --net "udp:rdv=127.0.0.1:$RDV,cards=2,timeout=1" -- true >"$T/out" 2>&1
if [ $? -eq 1 ] && grep -q "no rendezvous at 127.0.0.1:$RDV within 1 s" "$T/out" && grep -q "card 1 did not start" "$T/out"; then
	ok "a card with no rendezvous to reach: the launcher fails, saying why"
else
	ko "no rendezvous: $(cat "$T/out")"
fi
"$CL" -n 4 --net "udp:rdv=127.0.0.1:$RDV,cards=3" -- true >"$T/out" 2>&1
if [ $? -eq 2 ] && grep -q "cards=3, but -n 4" "$T/out"; then ok "quire-cluster: a rendezvous for 3 cards with -n 4 refused"; else ko "cards=3 -n 4: $(cat "$T/out")"; fi
"$SIM" --socket "$T/c.sock" --net "udp:rdv=127.0.0.1:$RDV" --addr 0 >"$T/out" 2>&1
if [ $? -eq 2 ] && grep -q "no cards=W" "$T/out"; then ok "quire-sim: a rendezvous without cards= refused"; else ko "no cards=: $(cat "$T/out")"; fi

# Under mpirun: one quire-cluster per rank, no list typed, W from mpirun's world size.
if ! has_mpi; then
	missing_pkg "no MPI: the rendezvous under mpirun not run" openmpi-bin libopenmpi-dev
else
	[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	mkdir -p "$T/shared-mpi"
	if QUIRE_CLUSTER_DIR="$T/shared-mpi" ASAN_OPTIONS=detect_leaks=0 timeout 120 mpirun -x QUIRE_CLUSTER_DIR -x ASAN_OPTIONS \
		--oversubscribe -np 4 --mca btl self,vader "$CL" --rank-card --net "udp:rdv=127.0.0.1:$RDV" -- \
		sh -c "exec $DUMP 4 fp32 $N $ROUNDS $T/mpi-fp32-\$QUIRE_RANK" >"$T/mpi.log" 2>&1 && same_as_unix mpi fp32; then
		ok "under mpirun: 4 ranks, each starting its card on a TCP rendezvous, fp32 all-reduce: the same bytes as over Unix sockets"
	else
		ko "under mpirun with a rendezvous: $(tail -3 "$T/mpi.log")"
	fi
fi
QUIRE_RANK=0 "$CL" -n 4 --rank-card -- true >"$T/out" 2>&1
if [ $? -eq 2 ] && grep -q "rank-card wants no -n" "$T/out"; then ok "--rank-card with -n refused"; else ko "--rank-card -n 4: $(cat "$T/out")"; fi

# The link's loss recovery over UDP (reliable_link.c above wire_udp.c): the bench's cards on UDP on
# loopback, 2% of datagrams lost and 2% damaged, against the loss-free run's bits.
"$B/bin/quire" bench allreduce --card-net tcp >"$T/out" 2>&1
if [ $? -eq 2 ] && grep -q "card-net: udp or unix" "$T/out"; then ok "bench --card-net tcp refused"; else ko "--card-net tcp: $(cat "$T/out")"; fi
if ! has_mpi; then
	missing_pkg "no MPI: the lossy bench over UDP not run" openmpi-bin libopenmpi-dev
elif [ ! -x "$B/bin/quire-bench-allreduce" ]; then
	ko "no $B/bin/quire-bench-allreduce with MPI installed: run make test"
else
	# OpenMPI's plugins leak at exit: no leak check for the bench's MPI ranks (SANITIZE=1).
	ASAN_OPTIONS=detect_leaks=0 "$B/bin/quire" bench allreduce --backend sim --ranks 3 --min 256KiB --max 256KiB --verify 5 \
		--net-drop 0.02 --net-corrupt 0.02 --net-seed 5 --card-net udp >"$T/out" 2>&1
	rc=$?
	again=$(sed -n 's/^verify: \([0-9]*\) frames sent again.*/\1/p' "$T/out" | tail -1)
	if [ $rc -eq 0 ] && grep -q "bit for bit on every rank: 5 of 5" "$T/out" && [ "${again:-0}" -gt 0 ]; then
		ok "cards on UDP through 2% loss and 2% corruption: 5 of 5 bfp8 all-reduces the loss-free bits ($again frames sent again)"
	else
		ko "lossy bench over UDP: $(tail -5 "$T/out")"
	fi
fi

# Two hosts: namespace A holds cards 0 and 1 (192.0.2.1), B cards 2 and 3 (192.0.2.2),
# one veth pair between them shaped to 1 Gbit/s each way, MTU 9000.
if [ "$(id -u)" -ne 0 ]; then
	skip "two hosts in network namespaces: needs root (ip netns, tc); CI runs it as root"
elif ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
	missing_pkg "two hosts in network namespaces: no ip or tc" iproute2
else
	set -e
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip -n "$NS_A" link add qa type veth peer name qb netns "$NS_B"
	for x in "A qa 192.0.2.1" "B qb 192.0.2.2"; do
		set -- $x
		ns=$NS_A
		[ "$1" = B ] && ns=$NS_B
		ip -n "$ns" link set lo up
		ip -n "$ns" link set "$2" mtu 9000 up
		ip -n "$ns" addr add "$3/24" dev "$2"
		tc -n "$ns" qdisc add dev "$2" root tbf rate 1gbit burst 256kb limit 16mb
	done
	set +e
	two="udp:192.0.2.1,192.0.2.1,192.0.2.2,192.0.2.2"
	for fmt in fp32 bfp8; do
		run_as two "2 hosts (namespaces) x 2 cards, 1 Gbit/s" "$fmt" --net "$two" \
			--netns "$NS_A,$NS_A,$NS_B,$NS_B"
	done
	rank_cards rtwo "2 hosts (namespaces), 1 Gbit/s" bfp8 --net "$two" --netns "$NS_A,$NS_A,$NS_B,$NS_B"
	# No list: card 0 serves the rendezvous on A's address, the others bind on the address
	# their route to it leaves from (192.0.2.2 for the cards in B).
	run_as tworv "2 hosts (namespaces), 1 Gbit/s, a TCP rendezvous" bfp8 --net "udp:rdv=192.0.2.1:$RDV" \
		--netns "$NS_A,$NS_A,$NS_B,$NS_B"
	rank_cards rtworv "2 hosts (namespaces), 1 Gbit/s, a TCP rendezvous" fp32 --net "udp:rdv=192.0.2.1:$RDV,cards=4" \
		--netns "$NS_A,$NS_A,$NS_B,$NS_B"
	# The cards crossed the link: tc counted their bytes on A's side.
	sent=$(tc -n "$NS_A" -s qdisc show dev qa | sed -n 's/.*Sent \([0-9]*\) bytes.*/\1/p' | head -1)
	if [ "${sent:-0}" -gt 1000000 ]; then ok "the frames went through the shaped link ($sent bytes from A)"; else ko "nothing went through the link (${sent:-?} bytes)"; fi
	# Nothing is left in the namespaces when the cluster is gone.
	left=$(ip netns pids "$NS_A"; ip netns pids "$NS_B")
	if [ -z "$left" ]; then ok "no process left in the namespaces"; else ko "processes left: $left"; fi
	ip netns del "$NS_A" && ip netns del "$NS_B"
	if ip netns list | grep -q "quire-udp-$$-"; then ko "namespaces left"; else ok "namespaces and veths removed"; fi
fi

summary "card network over UDP"
[ "$fail" -eq 0 ]
