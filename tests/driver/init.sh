#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the guest that tests/driver/qemu_test.sh boots (busybox, PID 1). Loads the DRM
# helpers and quire.ko, checks what the driver does with the ivshmem devices QEMU gives it
# (none of them a quire card), loads and unloads it 10 times, scans the kernel log for
# trouble, prints one "guest: ok|FAIL ..." line per check and powers off.
# /modules.order lists the helpers to insmod in order, /quire.ko is the driver and
# /test.conf says what the host attached (QUIRE_IVSHMEM_N devices, QUIRE_IVSHMEM_i the errno
# the probe of the i-th must end with).
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
. /test.conf
ok() { echo "guest: ok   $1"; }
ko() { echo "guest: FAIL $1"; }
check() { # check NAME COMMAND...: ok when the command succeeds
	name=$1
	shift
	if "$@"; then ok "$name"; else ko "$name"; fi
}
echo "guest: kernel $(uname -r), up $(cut -d' ' -f1 /proc/uptime) s"

# The DRM core and helpers quire.ko depends on, in dependency order (from modules.dep).
helpers=1
while read -r m; do
	insmod "/lib/modules/$m" || helpers=0
done </modules.order
check "DRM helpers loaded ($(tr '\n' ' ' </modules.order | sed 's/ $//'))" [ $helpers -eq 1 ]

# The ivshmem devices (1af4:1110): their addresses, and what each stands for (QEMU's
# ivshmem-plain with id=NAME: the order of the command line is the order of the bus).
ivshmem=""
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/device")" = 0x1110 ] &&
		ivshmem="$ivshmem ${d##*/}"
done
n=$(echo "$ivshmem" | wc -w)
check "ivshmem devices on the PCI bus: $n (expected $QUIRE_IVSHMEM_N):$ivshmem" [ "$n" = "$QUIRE_IVSHMEM_N" ]

# The driver core says why a probe ended: -ENODEV and -ENXIO only under dynamic debug.
echo 'file drivers/base/dd.c +p' >/sys/kernel/debug/dynamic_debug/control
dmesg -c >/dev/null
check "insmod quire.ko" insmod /quire.ko
check "the driver is registered with the PCI bus" [ -d /sys/bus/pci/drivers/quire ]
i=0
for dev in $ivshmem; do
	i=$((i + 1))
	want=$(eval echo "\$QUIRE_IVSHMEM_$i") # what this device must get: an errno
	bound=no
	[ -e "/sys/bus/pci/devices/$dev/driver" ] && bound=yes
	check "$dev (ivshmem $i) left unbound" [ $bound = no ]
	line=$(dmesg | grep -E "quire: probe of $dev (rejects match|failed with error) $want\$")
	check "$dev refused with $want: ${line#*] }" [ -n "$line" ]
done
dmesg >/tmp/probe.log
echo 'file drivers/base/dd.c -p' >/sys/kernel/debug/dynamic_debug/control
check "rmmod quire" rmmod quire
check "the module is gone" [ ! -e /sys/module/quire ]

# Load and unload 10 times.
good=0
t0=$(cut -d' ' -f1 /proc/uptime)
for i in 1 2 3 4 5 6 7 8 9 10; do
	insmod /quire.ko && rmmod quire && [ ! -e /sys/module/quire ] && good=$((good + 1))
done
t1=$(cut -d' ' -f1 /proc/uptime)
check "insmod/rmmod 10 times: $good clean ($t0 s to $t1 s of uptime)" [ $good -eq 10 ]

# Nothing went wrong in the kernel while we did that.
bad=$(dmesg | grep -E 'BUG:|WARNING:|Oops|KASAN|general protection|Call Trace' | head -5)
check "kernel log: no BUG, WARNING, Oops, KASAN, general protection, Call Trace" [ -z "$bad" ]
[ -n "$bad" ] && echo "$bad" | sed 's/^/guest:     /'
taint=$(cat /proc/sys/kernel/tainted)
# 4096 (O, out-of-tree) and 8192 (E, unsigned) are what any module of ours sets.
check "kernel taint $taint: only out-of-tree and unsigned module" [ $((taint & ~(4096 | 8192))) -eq 0 ]
echo "guest: dmesg of the probe:"
grep -E 'quire|ivshmem' /tmp/probe.log | sed 's/^/guest:     /'
echo "guest: done, up $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
