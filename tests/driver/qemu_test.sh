#!/bin/sh
# SPDX-License-Identifier: MIT
# quire.ko in a virtual machine: Debian's kernel (linux-image-amd64, the release quire.ko
# was built for) booted under QEMU TCG with a busybox initramfs built here (with the quire
# CLI, libquire and libdrm), a simulated card (quire-sim --ivshmem, started here, behind
# ivshmem-doorbell, the guest's RAM a shared memory-backend-file it reaches by DMA) and
# ivshmem devices that are not quire cards. tests/driver/init.sh, the guest's /init, runs
# the checks (docs/driver-qemu.md); when it asks ("guest: stop-card") this script stops the
# card with SIGSTOP and answers "stopped" on the console's input. It parses the console and
# prints "driver qemu: N passed, N failed". QEMU is killed after QEMU_TIMEOUT seconds (240).
# Without qemu-system-x86, busybox-static, libdrm2 or the kernel image (linux-image-amd64),
# all in mk/debian-packages.txt, it fails naming the package: never a silent "0 passed".
# Usage: qemu_test.sh BUILD_DIR (from the top of the repository; needs BUILD_DIR/driver/quire.ko,
# BUILD_DIR/bin/quire-sim, BUILD_DIR/bin/quire and BUILD_DIR/lib/libquire.so.0)
set -u
B=${1:-build}
QEMU=${QEMU:-qemu-system-x86_64}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-240}
# The guest's CPUs: 2, so that ioctl_race's threads run at once (multi-threaded TCG).
QEMU_SMP=${QEMU_SMP:-2}
# The selftest's largest tensor: 4 MiB less 1 KiB, so that its largest buffer (the reduce's
# 4 vectors and their gaps) fits in 4 MiB, the most the guest's page allocator gives in one
# contiguous piece (Debian's kernel has no CMA, the guest no IOMMU: driver/README.md, "Buffers").
SELFTEST_MAX=${QUIRE_QEMU_SELFTEST_MAX:-4193280}
here=$(dirname "$0")
. "$here/../cli/report.sh"
ko_path="$B/driver/quire.ko"
sim="$B/bin/quire-sim"
cli="$B/bin/quire"
card_image="$B/tests/driver/card_image"

# A package of mk/debian-packages.txt is missing: a failure naming it, and nothing more to run.
need() {
	missing_pkg "$1" "$2"
	summary "driver qemu"
	exit 1
}
command -v "$QEMU" >/dev/null 2>&1 || need "no $QEMU" qemu-system-x86
busybox=$(command -v busybox 2>/dev/null)
[ -n "$busybox" ] && ldd "$busybox" 2>&1 | grep -q 'not a dynamic' || need "no static busybox" busybox-static
for f in "$ko_path" "$sim" "$cli" "$card_image"; do
	if [ ! -f "$f" ]; then
		ko "no $f: run make test (it builds what it runs)"
		summary "driver qemu"
		exit 1
	fi
done
libdrm=$(ldconfig -p 2>/dev/null | awk '$1 == "libdrm.so.2" && /x86-64/ { print $NF; exit }')
[ -n "$libdrm" ] || need "no libdrm.so.2" libdrm2
# The kernel release quire.ko was built for; its image and modules must be installed.
rel=$(modinfo -F vermagic "$ko_path" | cut -d' ' -f1)
kernel=/boot/vmlinuz-$rel
mods=/lib/modules/$rel
[ -r "$kernel" ] && [ -f "$mods/modules.dep" ] || need "no $kernel or $mods (quire.ko is for $rel)" linux-image-amd64

work=$(mktemp -d "${TMPDIR:-/tmp}/quire-qemu-XXXXXX")
# The guest's RAM, shared with the card: in memory (/dev/shm) when there is room.
ramdir=$work
[ -d /dev/shm ] && [ -w /dev/shm ] && ramdir=$(mktemp -d /dev/shm/quire-qemu-XXXXXX)
sim_pid=""
cleanup() {
	if [ -n "$sim_pid" ]; then
		kill -CONT "$sim_pid" 2>/dev/null
		kill "$sim_pid" 2>/dev/null
		wait "$sim_pid" 2>/dev/null
	fi
	rm -rf "$work"
	[ "$ramdir" = "$work" ] || rm -rf "$ramdir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
root=$work/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/lib/modules"

# busybox and its applets.
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
done
cp "$here/init.sh" "$root/init"
chmod 755 "$root/init"

# quire.ko's dependencies (modinfo's depends) and theirs (modules.dep), deepest first, as
# modprobe would load them. modules.dep names files; depends names modules ('-' is '_').
deps=$(modinfo -F depends "$ko_path" | tr ',' ' ')
order=$(awk -v want="$deps" '
	function name(p) { sub(/.*\//, "", p); sub(/\.ko.*$/, "", p); gsub(/-/, "_", p); return p }
	{ f = $1; sub(/:$/, "", f); file[name(f)] = f; line[name(f)] = $0 }
	function add(n,   k, i, parts) {
		if (n in seen) return
		seen[n] = 1
		if (!(n in line)) { print "MISSING " n; return }
		k = split(line[n], parts, " ")
		for (i = k; i >= 2; i--) add(name(parts[i]))
		print file[n]
	}
	END { k = split(want, w, " "); for (i = 1; i <= k; i++) add(w[i]) }' "$mods/modules.dep")
if echo "$order" | grep -q '^MISSING'; then
	ko "modules.dep of $rel lacks: $(echo "$order" | sed -n 's/^MISSING //p' | tr '\n' ' ')"
	summary "driver qemu"
	exit 1
fi
: >"$root/modules.order"
for f in $order; do
	cp "$mods/$f" "$root/lib/modules/"
	basename "$f" >>"$root/modules.order"
done
cp "$ko_path" "$root/quire.ko"

# The quire CLI and libquire as installed (bin/, lib/: the CLI's rpath is $ORIGIN/../lib),
# libdrm (which libquire's kdrv backend dlopens), any test program a check of init.sh needs
# (every file in BUILD_DIR/tests/driver/guest/, into /bin), and the shared libraries all of
# them need, at the paths they have here, with the dynamic loader.
progs="$cli $libdrm"
cp "$cli" "$root/bin/quire"
cp "$(readlink -f "$B/lib/libquire.so.0")" "$root/lib/libquire.so.0"
mkdir -p "$root$(dirname "$libdrm")"
cp "$(readlink -f "$libdrm")" "$root$libdrm"
for f in "$B"/tests/driver/guest/*; do
	[ -f "$f" ] || continue
	cp "$f" "$root/bin/"
	progs="$progs $f"
done
# shellcheck disable=SC2086
for lib in $(for p in $progs; do ldd "$p" 2>/dev/null; done |
	awk '/=> \// { print $3 } /^\t\// { print $1 }' | sort -u); do
	case $lib in *libquire.so*) continue ;; esac
	mkdir -p "$root$(dirname "$lib")"
	cp "$(readlink -f "$lib")" "$root$lib"
done
# The ivshmem devices, none a quire card, and how each probe must end:
# 1. 1 MiB of zeros, no register block: -ENODEV (19), before anything is set up;
# 2. an ID block of interface major 2 at offset 0: -EPROTO (71), with the driver's message;
# 3. 32 KiB, smaller than the register BAR the driver needs (64 KiB): -ENODEV;
# 4. a quire card's register window (card_image) on ivshmem-plain, which has no MSI-X:
#    the walk passes, pci_alloc_irq_vectors fails with -EINVAL (22), said by the driver.
dd if=/dev/zero of="$work/shm1" bs=1024 count=1024 2>/dev/null
{ printf '\001\000\102\121\000\000\002\000'; dd if=/dev/zero bs=1016 count=1 2>/dev/null; } >"$work/shm2"
dd if=/dev/zero bs=1024 count=1023 2>/dev/null >>"$work/shm2"
dd if=/dev/zero of="$work/shm3" bs=1024 count=32 2>/dev/null
"$card_image" "$work/shm4" 1048576
cat >"$root/test.conf" <<CONF
QUIRE_CARD=0000:00:10.0
QUIRE_REFUSED="0000:00:11.0=-19 0000:00:12.0=-71 0000:00:13.0=-19 0000:00:14.0=-22"
QUIRE_SELFTEST_MAX=$SELFTEST_MAX
CONF
# The card: quire-sim as the ivshmem server, before QEMU, which connects to it.
truncate -s 512M "$ramdir/ram"
"$sim" --ivshmem "$work/card.sock" --guest-ram "$ramdir/ram" --once 2>"$work/sim.log" &
sim_pid=$!
i=0
while [ ! -S "$work/card.sock" ] && kill -0 "$sim_pid" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -S "$work/card.sock" ]; then
	ko "quire-sim --ivshmem did not come up: $(cat "$work/sim.log")"
	summary "driver qemu"
	exit 1
fi
devs="-object memory-backend-file,id=ram,size=512M,mem-path=$ramdir/ram,share=on"
devs="$devs -machine q35,memory-backend=ram"
devs="$devs -chardev socket,path=$work/card.sock,id=card"
devs="$devs -device ivshmem-doorbell,chardev=card,vectors=1,addr=0x10"
i=0
for size in 1M 1M 32K 1M; do
	i=$((i + 1))
	devs="$devs -object memory-backend-file,id=shm$i,mem-path=$work/shm$i,size=$size,share=on"
	devs="$devs -device ivshmem-plain,memdev=shm$i,addr=0x1$i"
done

# The PRIME, fuzz and pinned-memory checks (checks_prime.sh, checks_pincap.sh, sourced by
# init.sh): their programs, and vgem, a second DRM device to share buffers with (it needs
# only drm and drm_shmem_helper, which quire.ko loads too).
cp "$here/checks_prime.sh" "$root/checks_prime.sh"
cp "$here/checks_pincap.sh" "$root/checks_pincap.sh"
for p in ioctl_fuzz ioctl_race prime_check prime_api pin_cap; do
	if [ -f "$B/tests/driver/guest/$p" ]; then
		cp "$B/tests/driver/guest/$p" "$root/bin/$p"
	else
		ko "no $B/tests/driver/guest/$p: run make all first"
	fi
done
# A golden MLP case (tests/data/mlp_golden) prime_check loads from a buffer of vgem.
mkdir -p "$root/mlp"
cp tests/data/mlp_golden/l2_32x64.qmlp "$root/mlp/model.qmlp"
cp tests/data/mlp_golden/l2_32x64.vec "$root/mlp/model.vec"
vgem=$(awk -F: '$1 ~ /\/vgem\.ko$/ { print $1 }' "$mods/modules.dep")
[ -n "$vgem" ] && cp "$mods/$vgem" "$root/lib/modules/vgem.ko"
cat >>"$root/test.conf" <<CONF
QUIRE_FUZZ_SEED=${QUIRE_FUZZ_SEED:-1}
QUIRE_FUZZ_CALLS=${QUIRE_FUZZ_CALLS:-5000}
QUIRE_GUEST_CPUS=$QEMU_SMP
CONF

(cd "$root" && find . | "$busybox" cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"
echo "initramfs: $(wc -c <"$work/initrd.gz") bytes; kernel $rel; helpers: $(tr '\n' ' ' <"$root/modules.order")"

log=$work/console.log
: >"$log" # there before QEMU's redirection, which waits for the FIFO's writer, opens it
mkfifo "$work/console.in"
start=$(date +%s.%N)
# shellcheck disable=SC2086
timeout -k 5 "$QEMU_TIMEOUT" "$QEMU" -accel tcg -smp "$QEMU_SMP" -m 512 -nographic -no-reboot -nic none \
	-kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4 quiet" $devs <"$work/console.in" >"$log" 2>&1 &
qemu_pid=$!
exec 3>"$work/console.in" # the console's input, held open while QEMU runs
# The guest asks for the card to stop: SIGSTOP, then say so on the console.
stopped=0
while kill -0 "$qemu_pid" 2>/dev/null; do
	if [ $stopped = 0 ] && tr -d '\r' <"$log" | grep -q '^guest: stop-card'; then
		kill -STOP "$sim_pid"
		stopped=1
		echo stopped >&3
	fi
	sleep 0.2
done
wait "$qemu_pid"
rc=$?
exec 3>&-
# The card goes on (SIGCONT) and, QEMU gone, ends by itself (--once): exit 0, and nothing
# from the sanitizers when it is built with them.
kill -CONT "$sim_pid" 2>/dev/null
i=0
while kill -0 "$sim_pid" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$sim_pid" 2>/dev/null; then
	ko "quire-sim still running 10 s after QEMU left"
else
	wait "$sim_pid"
	sim_rc=$?
	sim_pid=""
	if [ $sim_rc -eq 0 ] && ! grep -q -E 'Sanitizer|runtime error' "$work/sim.log"; then
		ok "quire-sim --ivshmem --once: exit 0 once QEMU left, after its SIGSTOP"
	else
		ko "quire-sim --ivshmem: exit $sim_rc: $(grep -m3 -E 'Sanitizer|runtime error' "$work/sim.log")"
	fi
fi
# Kept for a look after the run: the console and the card's messages.
cp "$log" "$B/driver/qemu-console.log"
cp "$work/sim.log" "$B/driver/qemu-quire-sim.log"
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
tr -d '\r' <"$log" | grep '^guest: ' | sed 's/^guest: //' >"$work/results"
grep -v -E '^(ok|FAIL) ' "$work/results"
grep -E '^(ok|FAIL) ' "$work/results"
pass=$((pass + $(grep -c '^ok ' "$work/results")))
fail=$((fail + $(grep -c '^FAIL ' "$work/results")))
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	ko "QEMU killed after $QEMU_TIMEOUT s"
elif grep -q '^done' "$work/results"; then
	ok "the guest ran to the end and powered off (QEMU exit $rc), boot to poweroff $secs s"
else
	ko "the guest stopped before the end (QEMU exit $rc, $secs s)"
fi
# The kernel's own lines on the console (loglevel 4: errors and worse), not the guest's report.
bad=$(tr -d '\r' <"$log" | grep -v '^guest: ' |
	grep -E 'Kernel panic|BUG:|WARNING:|Oops|general protection|Call Trace' | head -5)
if [ -z "$bad" ]; then
	ok "console: no panic, BUG, Oops, general protection, Call Trace"
else
	ko "console: $bad"
fi
if [ "$fail" -ne 0 ]; then
	echo "--- console (last 40 lines)"
	tail -40 "$log"
	echo "--- quire-sim"
	cat "$work/sim.log"
fi
summary "driver qemu"
[ "$fail" -eq 0 ]
