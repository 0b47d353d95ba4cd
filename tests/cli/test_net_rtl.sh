#!/bin/sh
# SPDX-License-Identifier: MIT
# RTL cards on the card network (docs/network.md, docs/rtl-card.md): a 4-card all-reduce
# (fp32, bfp8 with error feedback, and bfp8 mean with the requantized all-gather and error
# feedback at the owners too; 3 rounds of 1001 seeded values) on RTL cards gives every rank
# the same bytes as on emu cards, and the requantized ones those of the golden model (on 2,
# 3 and 8 RTL cards too); so does one on a network shared by two
# emu and two RTL cards; frames with a bad CRC or length sent into an RTL card's port
# are counted as the emu's port counts them; 5% of frames lost and 5% corrupted on the
# way: the link sends them again and the all-reduce gives the loss-free bytes on both;
# every frame corrupted on the way: the all-reduce times out, with the same error on
# both (not a hang). Needs quire-sim-rtl (make rtl).
# Usage: test_net_rtl.sh BUILD
set -u
B=$1
CL=$B/bin/quire-cluster
SIM=$B/bin/quire-sim
DUMP=$B/tests/cli/ring_dump
PYTHON=${PYTHON:-python3}
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-netrtl-XXXXXX")
export TMPDIR="$T"
. "$(dirname "$0")/report.sh"
. "$(dirname "$0")/procs.sh"
pids=
cleanup() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
N=1001
ROUNDS=3

"$CL" --model bogus -n 2 -- true >"$T/out" 2>&1
if [ $? -eq 2 ] && grep -q "wants emu or rtl" "$T/out"; then ok "quire-cluster --model bogus refused"; else ko "quire-cluster --model bogus: $(cat "$T/out")"; fi

# The W ranks (4 unless given) of one all-reduce job of n values (N) and rounds (ROUNDS)
# in the cluster's directory: results to $T/$1-$fmt-r.
ranks() { # ranks TAG FMT [W [n [rounds]]]
	echo "p=; for r in $(seq 0 $((${3:-4} - 1)) | tr '\n' ' '); do QUIRE_RANK=\$r $DUMP ${3:-4} $2 ${4:-$N} ${5:-$ROUNDS} $T/$1-$2-\$r & p=\"\$p \$!\"; done
		fail=0; for i in \$p; do wait \$i || fail=1; done; exit \$fail"
}
same_as_emu() { # same_as_emu TAG FMT: every rank's bytes equal the emu run's
	for r in 0 1 2 3; do
		cmp -s "$T/emu-$2-$r" "$T/$1-$2-$r" || return 1
	done
}

for fmt in fp32 bfp8 bfp8rq; do
	if ! "$CL" -n 4 -- sh -c "$(ranks emu $fmt)" >"$T/emu.log" 2>&1; then
		ko "4 emu cards, $fmt all-reduce: $(tail -3 "$T/emu.log")"
		continue
	fi
	t0=$(now)
	if "$CL" --model rtl -n 4 -- sh -c "$(ranks rtl $fmt)" >"$T/rtl.log" 2>&1; then
		t1=$(now)
		gold=
		[ $fmt = bfp8rq ] && gold=" and the golden model's (hls/allreduce_golden.c)"
		if same_as_emu rtl $fmt; then
			ok "4 RTL cards, $fmt all-reduce ($ROUNDS x $N values): the same bytes as on emu cards$gold, every rank ($(secs "$t0" "$t1") s)"
		else
			ko "4 RTL cards, $fmt all-reduce: bytes differ from the emu's"
		fi
	else
		ko "4 RTL cards, $fmt all-reduce failed: $(tail -3 "$T/rtl.log")"
	fi
done

# The requantized all-gather on 2, 3 and 8 RTL cards too (2 rounds of 517 values): each rank
# checks every round against the golden model (ring_dump), as on 4 cards above.
for w in 2 3 8; do
	t0=$(now)
	if "$CL" --model rtl -n $w -- sh -c "$(ranks rq$w bfp8rq $w 517 2)" >"$T/rq$w.log" 2>&1; then
		ok "$w RTL cards, bfp8rq all-reduce (2 x 517 values): the golden model's bytes, every rank ($(secs "$t0" "$(now)") s)"
	else
		ko "$w RTL cards, bfp8rq all-reduce: $(tail -3 "$T/rq$w.log")"
	fi
done

# A lossy network: 5% of frames lost and 5% damaged, each way; the link sends them again,
# and every rank gets the bytes of the loss-free emu run.
t0=$(now)
if "$CL" --model rtl -n 4 --net-drop 0.05 --net-corrupt 0.05 -- sh -c "$(ranks lossy bfp8)" \
	>"$T/lossy.log" 2>&1 && same_as_emu lossy bfp8; then
	ok "4 RTL cards through 5% loss and 5% corruption, bfp8: the loss-free bytes ($(secs "$t0" "$(now)") s)"
else
	ko "4 RTL cards through a lossy network: $(tail -3 "$T/lossy.log" 2>/dev/null)"
fi

# One network, two kinds of card: cards 0 and 2 emu, 1 and 3 RTL, as quire-cluster lays
# them out (DIR/card-i.sock, address i).
D=$T/mixed
mkdir -p "$D"
for i in 0 1 2 3; do
	m=emu
	[ $((i % 2)) -eq 1 ] && m=rtl
	"$SIM" --model $m --socket "$D/card-$i.sock" --net "$D" --addr $i --quiet &
	pids="$pids $!"
done
up() { for i in 0 1 2 3; do [ -S "$D/card-$i.sock" ] || return 1; done; }
one_gone() { for p in $pids; do alive "$p" || return 0; done; return 1; }
wait_until 60 eval 'up || one_gone'
if up && QUIRE_CLUSTER_DIR=$D sh -c "$(ranks mixed fp32)" >"$T/mixed.log" 2>&1 &&
	same_as_emu mixed fp32; then
	ok "2 emu + 2 RTL cards on one network, fp32 all-reduce: the same bytes as on emu cards"
else
	ko "2 emu + 2 RTL cards on one network: $(tail -3 "$T/mixed.log" 2>/dev/null)"
fi
# shellcheck disable=SC2086
kill $pids 2>/dev/null
# shellcheck disable=SC2086
wait_until 10 none_alive $pids || ko "mixed network: card processes still running"
pids=

# Frames from outside into one card's port, behind link headers (include/quire/frame.h).
# First a frame that names no incarnation of the port: not taken, answered with a NACK of
# frame 0 that tells the port's incarnation. Then, naming it, frames numbered 1 to 4: a
# good one, one whose CRC is wrong, one shorter than its header says, one shorter than a
# header. The link hands the port the good one alone (it would ask for the damaged one
# again and drops the two after it), on either kind of card (quire info's network line). A
# last datagram, from another port (8) in a session met past its start (numbered 0), is
# not taken either: the link answers it with a NACK of frame 0 to port 8, which it sends
# only after it has handled the ones before it (one socket, one thread, in order). The
# sender waits for that answer, so the card is asked for its counters after every frame
# was handled, however slow the machine.
frames() { # frames DIR ADDR: the datagrams to port ADDR of the network in DIR, then the answers
	"$PYTHON" - "$1" "$2" <<'EOF'
import os, socket, struct, sys, zlib
d, a = sys.argv[1], int(sys.argv[2])
def link(seq, frame, inc, src=9, session=77):  # the link's header: DATA, version 3 (untagged)
    h = struct.pack("<BBHIII", 3, 1, src, session, seq, inc)
    return h + struct.pack("<I", zlib.crc32(h)) + frame
def frame(payload, comm=7, fix_crc=True, claim=None):
    n = len(payload) if claim is None else claim
    hdr = struct.pack("<BBHHHHHIIIII", 1, 1, 0, 9, a, comm, 0, 1, 0, n, 1, 0)
    crc = zlib.crc32(hdr + payload) if fix_crc else 0x12345678
    return hdr[:28] + struct.pack("<I", crc) + payload
def answer(sock):  # kind, seq, incarnation of the next ACK or NACK
    h = sock.recv(64)
    return h[1], struct.unpack("<I", h[8:12])[0], struct.unpack("<I", h[12:16])[0]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("%s/port-9" % d)  # as a port would: the link answers port 9's link address
ans = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ans.bind("%s/link-9" % d)
ctl = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ctl.bind("%s/link-8" % d)  # where the link answers port 8
for sock in (ans, ctl):
    sock.settimeout(60)  # only a card that never answers waits this long
try:
    s.sendto(link(1, frame(bytes(range(100))), 0, session=76), "%s/port-%d" % (d, a))
    kind, seq, inc = answer(ans)
    print("port 9's first answer: kind %d, seq %d, incarnation %s" % (kind, seq, "set" if inc else 0),
          file=sys.stderr)
    for i, f in enumerate((frame(bytes(range(100))), frame(bytes(100), fix_crc=False),
                           frame(bytes(64), claim=65), b"short")):
        s.sendto(link(i + 1, f, inc), "%s/port-%d" % (d, a))
    s.sendto(link(0, frame(bytes(8)), inc, src=8, session=88), "%s/port-%d" % (d, a))
    kind, seq, _ = answer(ctl)
finally:
    for n in ("port-9", "link-9", "link-8"):
        os.unlink("%s/%s" % (d, n))
print("port 8's answer: kind %d, seq %d" % (kind, seq), file=sys.stderr)
EOF
}
received() { # received FILE: the card's port has counted a frame (quire info's network line)
	"$B/bin/quire" info --backend "sim:$D/card.sock" 2>&1 | grep "network port" >"$1"
	! grep -q " 0 received" "$1"
}
for m in emu rtl; do
	D=$T/crc-$m
	mkdir -p "$D"
	"$SIM" --model $m --socket "$D/card.sock" --net "$D" --addr 5 --quiet &
	pids=$!
	wait_until 60 eval '[ -S "$D/card.sock" ] || ! alive $pids'
	if [ -S "$D/card.sock" ] && frames "$D" 5 2>"$T/answers-$m.txt"; then
		# Every datagram handled by the link; the good frame is counted once the card's
		# port has taken it from the link (the RTL card streams it in on its clock).
		wait_until 60 received "$T/crc-$m.txt"
	else
		ko "bad frames on the $m card: no answer from its link: $(cat "$T/answers-$m.txt")"
	fi
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	pids=
done
if grep -q "1 received, 0 bad" "$T/crc-rtl.txt" && cmp -s "$T/crc-emu.txt" "$T/crc-rtl.txt"; then
	ok "frames with a bad CRC or length: never reach the port, as on the emu ($(sed 's/.*link up; //' "$T/crc-rtl.txt"))"
else
	ko "bad frames: rtl '$(cat "$T/crc-rtl.txt")', emu '$(cat "$T/crc-emu.txt")'"
fi

# Every frame corrupted on the way: the link sends each again and again, none arrives, and
# the all-reduce times out (the communicator's timeout), with the same error as on emu cards.
M=$B/tests/cli/meet
for m in emu rtl; do
	"$CL" --model $m -n 2 --net-corrupt 1 -- sh -c "QUIRE_RANK=0 $M 2 & QUIRE_RANK=1 $M 2; wait" \
		2>&1 | sort >"$T/corrupt-$m.txt"
done
if grep -q "timed out" "$T/corrupt-rtl.txt" && cmp -s "$T/corrupt-emu.txt" "$T/corrupt-rtl.txt"; then
	ok "every frame corrupted: the all-reduce times out as on emu cards ($(head -1 "$T/corrupt-rtl.txt"))"
else
	ko "every frame corrupted: rtl '$(cat "$T/corrupt-rtl.txt")', emu '$(cat "$T/corrupt-emu.txt")'"
fi

summary "rtl card network"
[ "$fail" -eq 0 ]
