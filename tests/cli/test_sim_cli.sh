#!/bin/sh
# SPDX-License-Identifier: MIT
# quire-sim's command line as a user meets it: --socket replaces only a stale socket
# (never a file, a directory or a live card's socket); --mem takes whole MiB from what the
# firmware needs up, and says so; --ivshmem wants --guest-ram, a regular file, and serves
# the ivshmem handshake (a client here in Python stands for QEMU: tests/driver/ boots one).
# Usage: test_sim_cli.sh path/to/quire path/to/quire-sim
set -u
Q=$1
SIM=$2
T=$(mktemp -d /tmp/quire-sim-cli-XXXXXX)
. "$(dirname "$0")/report.sh"
cards=""
cleanup() {
	for p in $cards; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

# start_card SOCKET [OPTION...]: a card process in the background, waited for until its
# socket is there (5 s at most); sets card to its pid. With --ivshmem first, SOCKET is
# its ivshmem server's.
start_card() {
	sock=$1
	shift
	kind=--socket
	[ "${1:-}" = --ivshmem ] && kind=--ivshmem && shift
	"$SIM" $kind "$sock" --quiet "$@" &
	card=$!
	cards="$cards $card"
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# exits RC NAME PATTERN -- quire-sim arguments...: exit RC at once (a quire-sim that serves
# instead is stopped after 5 s), the output matching PATTERN. refused: exit 1 (a request
# quire-sim turns down); bad_usage: exit 2.
exits() {
	want=$1 name=$2 pattern=$3
	shift 4
	out=$(timeout 5 "$SIM" "$@" 2>&1)
	rc=$?
	if [ $rc -eq "$want" ] && printf '%s' "$out" | grep -q -- "$pattern"; then
		ok "$name"
	else
		ko "$name: exit $rc (want $want), output: $(printf '%s' "$out" | head -2)"
	fi
}
refused() { exits 1 "$@"; }
bad_usage() { exits 2 "$@"; }

card_answers() { # card_answers SOCKET: a host reaches a card there
	"$Q" info --backend "sim:$1" 2>&1 | grep -q "firmware .*running"
}

# 1. A regular file at the socket's path is someone's data: refused, left byte for byte.
head -c 4194304 /dev/urandom >"$T/victim.f32"
cp "$T/victim.f32" "$T/victim.copy"
refused "--socket on a regular file: refused" "not a socket" -- --socket "$T/victim.f32" --once
if cmp -s "$T/victim.f32" "$T/victim.copy"; then
	ok "--socket on a regular file: the file is intact"
else
	ko "--socket on a regular file: the file is gone or changed"
fi

# 2. A directory: refused, still there.
mkdir "$T/dir"
: >"$T/dir/keep"
refused "--socket on a directory: refused" "not a socket" -- --socket "$T/dir" --once
if [ -f "$T/dir/keep" ]; then ok "--socket on a directory: left alone"; else ko "--socket on a directory: removed"; fi

# 3. A live card's socket: refused; that card still answers.
start_card "$T/live.sock"
live=$card
refused "--socket of a live card: refused" "listening on it already" -- --socket "$T/live.sock" --once
if card_answers "$T/live.sock"; then
	ok "--socket of a live card: that card still answers"
else
	ko "--socket of a live card: the card no longer answers"
fi
kill "$live" 2>/dev/null
wait "$live" 2>/dev/null

# 4. A stale socket (its card killed, nobody listening): replaced by the new card.
start_card "$T/stale.sock"
kill -9 "$card" 2>/dev/null
wait "$card" 2>/dev/null
if [ -S "$T/stale.sock" ]; then
	start_card "$T/stale.sock" # returns at once: the old socket is there
	i=0
	while ! card_answers "$T/stale.sock" && kill -0 "$card" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if card_answers "$T/stale.sock"; then
		ok "--socket on a stale socket: replaced, the new card answers"
	else
		ko "--socket on a stale socket: no card answers there"
	fi
else
	ko "a killed card left no stale socket to test with"
fi

# 5. --mem: anything but whole MiB within bounds is bad usage (exit 2) naming the option
# and the firmware's minimum; the minimum itself makes a card a host can use.
bounds=$("$SIM" --help | sed -n 's/.*--mem MiB *card memory, \([0-9]*\) (what the firmware needs) to \([0-9]*\);.*/\1 \2/p')
if [ -n "$bounds" ]; then
	ok "--help says the bounds of --mem ($bounds MiB)"
else
	ko "--help does not say the bounds of --mem"
	bounds="69 4096"
fi
min=${bounds% *} max=${bounds#* }
for bad in abc 0 1 $((min - 1)) -5 12x $((max + 1)) 99999999999999999999; do
	out=$(timeout 5 "$SIM" --socket "$T/mem.sock" --mem "$bad" 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && printf '%s' "$out" | grep -q -- "--mem wants whole MiB from $min"; then
		ok "--mem $bad refused"
	else
		ko "--mem $bad: exit $rc (want 2), output: $(printf '%s' "$out" | head -2)"
	fi
	rm -f "$T/mem.sock"
done
start_card "$T/min.sock" --mem "$min"
if "$Q" info --backend "sim:$T/min.sock" 2>&1 | grep -q "card memory *$min MiB"; then
	ok "--mem $min: a host finds the card"
else
	ko "--mem $min: no host finds the card"
fi

# 6. --ivshmem and --guest-ram: together, once, and the guest's RAM a regular file.
truncate -s 64M "$T/ram"
bad_usage "--ivshmem without --guest-ram: bad usage" "go together" -- --ivshmem "$T/i.sock"
bad_usage "--guest-ram without --ivshmem: bad usage" "go together" -- --socket "$T/i.sock" \
	--guest-ram "$T/ram"
bad_usage "--socket and --ivshmem: bad usage" "one of --socket and --ivshmem" -- \
	--socket "$T/i.sock" --ivshmem "$T/j.sock" --guest-ram "$T/ram"
refused "--guest-ram that is not there: refused" "guest-ram $T/nothing: No such file" -- \
	--ivshmem "$T/i.sock" --guest-ram "$T/nothing" --once
: >"$T/empty"
refused "--guest-ram of 0 bytes: refused" "wants a regular file" -- \
	--ivshmem "$T/i.sock" --guest-ram "$T/empty" --once
refused "--guest-ram a directory: refused" "guest-ram $T/dir: Is a directory" -- \
	--ivshmem "$T/i.sock" --guest-ram "$T/dir" --once
rm -f "$T/i.sock" "$T/j.sock"

# 7. The ivshmem server as QEMU meets it (QEMU's docs/specs/ivshmem-spec.rst): version 0,
# the client's ID 1, the shared memory, peer 0 (the card) with its eventfd, the client's own
# eventfd; the register window holds the card's ID block; a write through the write ring
# and the card's doorbell is taken (CONSUMER moves) and shows in the window.
start_card "$T/iv.sock" --ivshmem --guest-ram "$T/ram" --once
out=$("${PYTHON:-python3}" - "$T/iv.sock" <<'PY' 2>&1
import mmap, os, socket, struct, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
got = []
for _ in range(5):
    data, fds, _, _ = socket.recv_fds(s, 8, 1)
    got.append((struct.unpack("<q", data)[0], len(fds), fds[0] if fds else -1))
want = [(0, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
if [(v, n) for v, n, _ in got] != want:
    sys.exit("handshake %s, want %s" % ([(v, n) for v, n, _ in got], want))
shm = mmap.mmap(got[2][2], 0x20000)
rd = lambda off: struct.unpack_from("<I", shm, off)[0]
if rd(0x10) != 0x45524951:
    sys.exit("no ID block in the window: magic %#x" % rd(0x10))
irq = 0  # the IRQ block, by walking the chain
off = 0
while True:
    if rd(off) == 0x51420004:
        irq = off
    if rd(off + 8) <= off:
        break
    off = rd(off + 8)
if not irq:
    sys.exit("no IRQ block in the chain")
struct.pack_into("<II", shm, 0x10040, irq + 0x14, 3)  # IRQ_MASK = 3, entry 0
struct.pack_into("<I", shm, 0x10000, 1)  # PRODUCER
os.write(got[3][2], struct.pack("<Q", 1))  # the doorbell: peer 0, vector 0
end = time.time() + 5
while rd(0x10004) != 1 and time.time() < end:
    time.sleep(0.01)
if rd(0x10004) != 1 or rd(irq + 0x14) != 3:
    sys.exit("write not taken: CONSUMER %u, IRQ_MASK %#x" % (rd(0x10004), rd(irq + 0x14)))
print("handshake, window and write ring as QEMU and the driver need them")
PY
)
rc=$?
if [ $rc -eq 0 ]; then ok "--ivshmem: $out"; else ko "--ivshmem: $out"; fi
i=0
while kill -0 "$card" 2>/dev/null && [ $i -lt 100 ]; do # --once: gone with its client
	sleep 0.05
	i=$((i + 1))
done
if kill -0 "$card" 2>/dev/null; then
	ko "--ivshmem --once: still running after its client left"
else
	ok "--ivshmem --once: exits when its client leaves"
fi

summary "sim cli"
[ "$fail" -eq 0 ]
