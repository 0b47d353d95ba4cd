#!/bin/sh
# SPDX-License-Identifier: MIT
# The quire CLI as a user meets it: help, bad usage (exit 2), bad files (exit 1,
# a message naming the file), round trips. Usage: test_cli.sh path/to/quire
set -u
Q=$1
T=$(mktemp -d /tmp/quire-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/report.sh"

# expect NAME EXIT_CODE PATTERN -- command...: the exit code, and stderr+stdout matching
# PATTERN (an empty PATTERN checks the exit code alone).
expect() {
	name=$1 code=$2 pattern=$3
	shift 4
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$code" ] && { [ -z "$pattern" ] || printf '%s' "$out" | grep -q -- "$pattern"; }; then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name: exit $rc (want $code), output: $(printf '%s' "$out" | head -3)"
	fi
}

# Exactly representable values: multiples of 1/8 below 8 survive bfp8 unchanged.
python3 -c "
import struct
open('$T/exact.f32','wb').write(struct.pack('<200f', *[((i % 120) - 60) / 8 for i in range(200)]))
open('$T/five.bin','wb').write(b'12345')
open('$T/a.f32','wb').write(struct.pack('<100f', *[i / 7 for i in range(100)]))
open('$T/b.f32','wb').write(struct.pack('<99f', *[i / 3 for i in range(99)]))
"
: > "$T/empty.f32"

expect "top-level help" 0 "Usage: quire COMMAND" -- "$Q" --help
expect "top-level help names bench allreduce" 0 "bench.*allreduce" -- "$Q" --help
expect "info help names sim:cluster" 0 "sim:cluster (inside quire-cluster" -- "$Q" info --help
expect "no command" 2 "Usage" -- "$Q"
expect "unknown command" 2 "unknown command 'frobnicate'" -- "$Q" frobnicate
expect "version" 0 "quire 0" -- "$Q" --version
expect "codec help" 0 "encode" -- "$Q" codec --help
expect "encode help" 0 "residual" -- "$Q" codec encode --help
expect "decode help" 0 "mean" -- "$Q" codec decode --help
expect "reduce help" 0 "worker order" -- "$Q" codec reduce --help
expect "bench help" 0 "memcpy" -- "$Q" bench codec --help
expect "unknown codec command" 2 "unknown command" -- "$Q" codec squash
expect "unknown long option" 2 "unknown option '--bogus'" -- "$Q" codec encode --bogus --format bfp8 "$T/exact.f32" "$T/x"
expect "unknown short option" 2 "unknown option '-z'" -- "$Q" codec decode -z "$T/x" "$T/y"
expect "missing option value" 2 "needs a value" -- "$Q" codec encode "$T/exact.f32" "$T/x" --format
expect "format required" 2 "format is required" -- "$Q" codec encode "$T/exact.f32" "$T/x"
expect "unknown format" 2 "unknown format 'bfp4'" -- "$Q" codec encode --format bfp4 "$T/exact.f32" "$T/x"
# An output that is one of the inputs is refused, and the input left as it was.
cp "$T/exact.f32" "$T/same.f32"
ln -s same.f32 "$T/link.f32"
expect "encode over its input refused" 1 "output is also the input" -- "$Q" codec encode --format bfp8 "$T/same.f32" "$T/same.f32"
expect "encode over its input through a link refused" 1 "output is also the input" -- "$Q" codec encode --format bfp8 "$T/same.f32" "$T/link.f32"
expect "residual that is the input refused" 1 "output is also the input" -- "$Q" codec encode --format bfp8 --residual "$T/same.f32" "$T/same.f32" "$T/x"
expect "reduce over an input refused" 1 "output is also the input" -- "$Q" codec reduce --format bfp8 --out "$T/same.f32" "$T/exact.f32" "$T/same.f32"
expect "the input left as it was" 0 "" -- cmp "$T/exact.f32" "$T/same.f32"
"$Q" codec encode --format bfp8 "$T/exact.f32" "$T/same.qt"
expect "decode over its input refused" 1 "output is also the input" -- "$Q" codec decode "$T/same.qt" "$T/same.qt"
rm -f "$T/same.f32" "$T/link.f32" "$T/same.qt"
expect "wrong file count" 2 "expected IN.f32 and OUT" -- "$Q" codec encode --format bfp8 "$T/exact.f32"
expect "missing input" 1 "nope.f32: No such file" -- "$Q" codec encode --format bfp8 "$T/nope.f32" "$T/x"
expect "misshapen input" 1 "five.bin: size 5 is not a multiple of 4" -- "$Q" codec encode --format bfp8 "$T/five.bin" "$T/x"
expect "empty input" 1 "empty file" -- "$Q" codec encode --format bfp16 "$T/empty.f32" "$T/x"
expect "decode non-quire file" 1 "not a valid quire tensor file" -- "$Q" codec decode "$T/exact.f32" "$T/y"
expect "reduce shape mismatch" 1 "same shape" -- "$Q" codec reduce --format bfp8 --out "$T/y" "$T/a.f32" "$T/b.f32"
expect "reduce needs --out" 2 "required" -- "$Q" codec reduce --format bfp8 "$T/a.f32"
expect "unwritable output" 1 "No such file or directory" -- "$Q" codec encode --format bfp8 "$T/exact.f32" "$T/no/dir/x"
expect "bench bad size" 2 "multiple of 4" -- "$Q" bench codec --size 3
expect "bench bad impl" 2 "unknown --impl" -- "$Q" bench codec --impl sse9

for fmt in bfp8 bfp16 fp16; do
	expect "encode $fmt" 0 "" -- "$Q" codec encode --format $fmt "$T/exact.f32" "$T/exact.$fmt"
	expect "decode $fmt" 0 "" -- "$Q" codec decode "$T/exact.$fmt" "$T/back.$fmt.f32"
	expect "round trip $fmt is exact" 0 "" -- cmp "$T/exact.f32" "$T/back.$fmt.f32"
done
expect "encode with residual" 0 "" -- "$Q" codec encode --format bfp8 --residual "$T/r.f32" "$T/a.f32" "$T/a.bfp8"
expect "residual written" 0 "400" -- stat -c %s "$T/r.f32"
expect "residual reused" 0 "" -- "$Q" codec encode --format bfp8 --residual "$T/r.f32" "$T/a.f32" "$T/a.bfp8"
expect "residual of wrong size" 1 "residual has 100 elements, the input 99" -- "$Q" codec encode --format bfp8 --residual "$T/r.f32" "$T/b.f32" "$T/b.bfp8"
expect "residual refused for fp16" 2 "bfp8 and bfp16 only" -- "$Q" codec encode --format fp16 --residual "$T/r.f32" "$T/a.f32" "$T/a.fp16"
# A failed command leaves no output behind, and what was there stays as it was.
expect "residual in a missing directory" 1 "no/dir/r.f32: No such file" -- "$Q" codec encode --format bfp8 --residual "$T/no/dir/r.f32" "$T/a.f32" "$T/partial.bfp8"
expect "... writes no encoded file" 1 "" -- test -e "$T/partial.bfp8"
printf 'old' > "$T/kept.bfp8"
expect "residual in a missing directory, output existing" 1 "No such file" -- "$Q" codec encode --format bfp8 --residual "$T/no/dir/r.f32" "$T/a.f32" "$T/kept.bfp8"
expect "... leaves it as it was" 0 "^old$" -- cat "$T/kept.bfp8"
expect "decode into a directory" 1 "Is a directory" -- "$Q" codec decode "$T/exact.bfp8" "$T"
expect "reduce into a missing directory" 1 "No such file" -- "$Q" codec reduce --format bfp8 --out "$T/no/dir/y" "$T/a.f32"
expect "no temporary file left behind" 0 "" -- sh -c "[ -z \"\$(find '$T' -name '*.quire-*')\" ]"
expect "decode to a device writes to it" 0 "" -- "$Q" codec decode "$T/exact.bfp8" /dev/null
expect "... and leaves it a device" 0 "" -- test -c /dev/null
expect "a new output gets the umask's mode" 0 "^644$" -- sh -c "umask 022 && \"$Q\" codec decode \"$T/exact.bfp8\" \"$T/mode.f32\" && stat -c %a \"$T/mode.f32\""
chmod 600 "$T/mode.f32"
expect "a replaced output keeps its mode" 0 "^600$" -- sh -c "\"$Q\" codec decode \"$T/exact.bfp8\" \"$T/mode.f32\" && stat -c %a \"$T/mode.f32\""
# A damaged encoded file is refused, not decoded.
cp "$T/exact.bfp8" "$T/bad.bfp8"
printf '\377' | dd of="$T/bad.bfp8" bs=1 seek=40 conv=notrunc 2>/dev/null
expect "damaged file refused" 1 "not a valid quire tensor file" -- "$Q" codec decode "$T/bad.bfp8" "$T/y"
# A well-formed file with a header the writer never writes (5000 workers): refused, naming the field.
python3 -c "
import struct, zlib
h = b'QUIRETNS' + struct.pack('<HHHHQI', 1, 3, 5, 64, 100, 5000)
payload = bytes(2 + 100)
open('$T/w5000.bfp8', 'wb').write(h + struct.pack('<I', zlib.crc32(h + payload)) + payload)"
expect "decode: the field at fault is named" 1 "not a valid quire tensor file: workers" -- "$Q" codec decode "$T/w5000.bfp8" "$T/y"
# W copies of the same exact tensor: the sum is W times it, the mean is it.
expect "reduce sum" 0 "" -- "$Q" codec reduce --format bfp8 --out "$T/sum.f32" "$T/exact.f32" "$T/exact.f32"
python3 -c "
import struct,sys
x=struct.unpack('<200f',open('$T/exact.f32','rb').read()); y=struct.unpack('<200f',open('$T/sum.f32','rb').read())
sys.exit(0 if all(b == 2*a for a,b in zip(x,y)) else 1)" && pass=$((pass + 1)) && echo "ok   reduce sum is 2x" || { fail=$((fail + 1)); echo "FAIL reduce sum is 2x"; }
expect "reduce mean" 0 "" -- "$Q" codec reduce --format bfp16 --mean --out "$T/mean.f32" "$T/exact.f32" "$T/exact.f32" "$T/exact.f32"
expect "mean of copies is the tensor" 0 "" -- cmp "$T/exact.f32" "$T/mean.f32"
# What docs/contract-bfp.md tells users they will meet, with its numbers: a NaN or an Inf turns its
# whole block into NaN 0x7fc00000; 2^126 and above saturate (3e38 -> 127 x 2^119 = 8.44e37);
# -0.0 comes back +0.0.
python3 -c "
import struct
v = [1.0] * 194
v[3] = float('nan'); v[130] = float('inf'); v[64] = 3e38; v[65] = 2.0**126; v[66] = 2.0**125
v[67] = -0.0; v[192] = -0.0; v[193] = -0.0
open('$T/facts.f32', 'wb').write(struct.pack('<194f', *v))"
expect "facts: encode" 0 "" -- "$Q" codec encode --format bfp8 "$T/facts.f32" "$T/facts.bfp8"
expect "facts: decode" 0 "" -- "$Q" codec decode "$T/facts.bfp8" "$T/facts.out"
python3 -c "
import struct, sys
y = struct.unpack('<194I', open('$T/facts.out', 'rb').read())
want = {0: 0x7fc00000, 3: 0x7fc00000, 63: 0x7fc00000, 128: 0x7fc00000, 130: 0x7fc00000,
        191: 0x7fc00000, 64: 0x7e7e0000, 65: 0x7e7e0000, 66: 0x7e000000, 67: 0, 192: 0, 193: 0}
sys.exit(0 if all(y[i] == b for i, b in want.items()) else 1)" && pass=$((pass + 1)) &&
	echo "ok   facts: NaN/Inf blocks, saturation at 2^126, -0.0 as documented" ||
	{ fail=$((fail + 1)); echo "FAIL facts: NaN/Inf blocks, saturation at 2^126, -0.0 as documented"; }
expect "bench runs" 0 "memcpy" -- "$Q" bench codec --size 1MiB --repeat 1
expect "bench card runs" 0 "nop round trip" -- "$Q" bench card --backend sim:inproc --size 1MiB --repeat 1 --nops 50
expect "bench card, bad backend" 1 "no device found" -- "$Q" bench card --backend tpu
expect "bench card --ring without --model rtl" 2 "needs --model rtl" -- "$Q" bench card --ring 4
expect "bench card --ring 1" 2 "2 to 8 cards" -- "$Q" bench card --model rtl --ring 1
NET=$(mktemp -d /tmp/quire-cli-net-XXXXXX)
expect "info: a card on a network shows its port" 0 "address 5, link up" -- "$Q" info --backend "sim:inproc,net=$NET,addr=5"
expect "info: a card without one says so" 0 "link down" -- "$Q" info --backend sim:inproc
expect "a network option it does not know" 1 "invalid argument" -- "$Q" info --backend "sim:inproc,net=$NET,addr=5,speed=9"
expect "a network directory that is not there" 1 "" -- "$Q" info --backend "sim:inproc,net=/nonexistent/net,addr=1"
rmdir "$NET"
expect "sim:inproc without libquire_sim: a clear error" 1 "no device found" -- env QUIRE_SIM_LIB=/nonexistent/libquire_sim.so "$Q" info --backend sim:inproc
expect "sim:cluster outside quire-cluster" 1 "no device found" -- env -u QUIRE_CLUSTER_DIR "$Q" info --backend sim:cluster
# kdrv: the kernel driver's cards. None here (the QEMU test loads the driver): a clear error
# naming the driver, never an abort; nodes that are no quire card and bad URIs refused.
if ! ls /sys/class/drm/renderD*/device/driver 2>/dev/null | xargs -r -n1 readlink | grep -q '/quire$'; then
	expect "kdrv without a quire card: no device, the driver named" 1 "no device found (no render node of the quire kernel driver" -- "$Q" info --backend kdrv
fi
expect "kdrv:/dev/null is no DRM node" 1 "no device found" -- "$Q" info --backend kdrv:/dev/null
expect "kdrv:/nonexistent" 1 "no device found" -- "$Q" info --backend kdrv:/nonexistent
expect "kdrv by an empty PCI slot" 1 "no device found" -- "$Q" info --backend kdrv:pci:ffff:ff:1f.7
expect "kdrv: a bad URI" 1 "invalid argument (kdrv URIs" -- "$Q" info --backend kdrv:renderD128
expect "kdrv: a bad PCI slot" 1 "invalid argument" -- "$Q" selftest --backend kdrv:pci:0000:03:20.0
expect "kdrv without libdrm: no device" 1 "no device found" -- env QUIRE_LIBDRM=/nonexistent/libdrm.so.2 "$Q" info --backend kdrv
if ! has_mpi; then
	missing_pkg "no MPI: bench allreduce not run" openmpi-bin libopenmpi-dev
elif [ ! -x "$(dirname "$Q")/quire-bench-allreduce" ]; then
	ko "no $(dirname "$Q")/quire-bench-allreduce with MPI installed: run make test"
else
	# OpenMPI leaks at exit by design: leak checks off for its ranks (sanitizer builds).
	expect "bench allreduce runs" 0 "quire bfp8" -- env ASAN_OPTIONS=detect_leaks=0 "$Q" bench allreduce --ranks 2 --max 256KiB --repeat 1
fi
expect "bench allreduce, bad ranks" 2 "ranks" -- "$Q" bench allreduce --ranks 0
# Checked before anything starts: a usage error (exit 2), not an abort inside the MPI ranks.
expect "bench allreduce, --max below --min" 2 "--max: from --min" -- "$Q" bench allreduce --min 1MiB --max 64KiB
expect "bench allreduce, --min below one block" 2 "--min: 256 bytes" -- "$Q" bench allreduce --min 100
expect "bench allreduce, --repeat not a number" 2 "--repeat: 1 to" -- "$Q" bench allreduce --repeat 5x

summary cli
[ "$fail" -eq 0 ]
