#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the guest that tests/driver/qemu_test.sh boots (busybox, PID 1). Loads the DRM
# helpers and quire.ko; checks that the ivshmem devices that are not cards are refused the
# way they must be and that the simulated card (quire-sim --ivshmem behind
# ivshmem-doorbell) is bound; runs `quire info` and `quire selftest` on it through the kdrv
# backend; loads and unloads the driver 10 times; has the host stop the card in the middle
# of a job and checks the timeouts and a clean unload; scans the kernel log; prints one
# "guest: ok|FAIL ..." line per check and powers off.
#
# Each check is a function check_NAME, run in the order of CHECKS below: a new check is a
# new function and a word in that list. A check finds the module loaded or not as the one
# before left it, and says so with load/unload when it needs one or the other. The card
# stops for good in check_card_stops, so checks that use the card come before it.
# A test program a check needs goes in BUILD_DIR/tests/driver/guest/: qemu_test.sh copies
# every file there into the guest's /bin, with its shared libraries.
#
# /modules.order lists the helpers to insmod in order, /quire.ko is the driver and
# /test.conf says what the host attached: QUIRE_CARD (the card's PCI address, empty
# without one), QUIRE_REFUSED (ADDRESS=ERRNO for each ivshmem device that is not a card:
# the errno its probe must end with), QUIRE_SELFTEST_MAX (quire selftest --max-size).
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
. /test.conf
ok() { echo "guest: ok   $1"; }
ko() { echo "guest: FAIL $1"; }
say() { echo "guest: $1"; }
indent() { sed 's/^/guest:     /'; }
check() { # check NAME COMMAND...: ok when the command succeeds
	name=$1
	shift
	if "$@"; then ok "$name"; else ko "$name"; fi
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
loaded() { [ -e /sys/module/quire ]; }
load() { loaded || insmod /quire.ko; }
unload() { ! loaded || rmmod quire; }
render_node() { # the card's render node, from sysfs
	for n in /sys/bus/pci/devices/"$QUIRE_CARD"/drm/renderD*; do
		[ -e "$n" ] && echo "/dev/dri/${n##*/}"
	done
}
card_bound() {
	drv=$(readlink "/sys/bus/pci/devices/$QUIRE_CARD/driver")
	[ "${drv##*/}" = quire ] && [ -c "$(render_node)" ]
}
new_log() { # the kernel log after line $1 of it
	dmesg | tail -n +$(($1 + 1))
}

# The DRM core and helpers quire.ko depends on, in dependency order (from modules.dep).
check_helpers() {
	helpers=1
	while read -r m; do
		insmod "/lib/modules/$m" || helpers=0
	done </modules.order
	check "DRM helpers loaded ($(tr '\n' ' ' </modules.order | sed 's/ $//'))" [ $helpers -eq 1 ]
}

# The ivshmem devices (1af4:1110) on the bus: the card and the others.
check_devices() {
	ivshmem=""
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/device")" = 0x1110 ] &&
			ivshmem="$ivshmem ${d##*/}"
	done
	want=$(echo $QUIRE_CARD ${QUIRE_REFUSED} | wc -w)
	n=$(echo "$ivshmem" | wc -w)
	check "ivshmem devices on the PCI bus: $n (expected $want):$ivshmem" [ "$n" = "$want" ]
}

# insmod, with the driver core saying why each probe ended (-ENODEV and -ENXIO only under
# dynamic debug); the log of the probes is kept for check_refused and check_card_bound.
check_load() {
	echo 'file drivers/base/dd.c +p' >/sys/kernel/debug/dynamic_debug/control
	mark=$(dmesg | wc -l)
	check "insmod quire.ko" insmod /quire.ko
	check "the driver is registered with the PCI bus" [ -d /sys/bus/pci/drivers/quire ]
	new_log "$mark" >/tmp/probe.log
	echo 'file drivers/base/dd.c -p' >/sys/kernel/debug/dynamic_debug/control
}

check_refused() {
	for r in $QUIRE_REFUSED; do
		dev=${r%=*}
		want=${r#*=}
		check "$dev left unbound" [ ! -e "/sys/bus/pci/devices/$dev/driver" ]
		line=$(grep -E "quire: probe of $dev (rejects match|failed with error) $want\$" \
			/tmp/probe.log)
		check "$dev refused with $want: ${line#*] }" [ -n "$line" ]
	done
}

check_card_bound() {
	[ -n "$QUIRE_CARD" ] || return 0
	line=$(grep "quire $QUIRE_CARD: quire card:" /tmp/probe.log)
	check "$QUIRE_CARD bound, render node $(render_node): ${line#*] }" card_bound
	[ -n "$line" ] || grep -E 'quire|ivshmem' /tmp/probe.log | indent
}

# quire CMD... on the card through the kdrv backend, bounded by SECS; its output indented
# on the console. Returns its exit status.
run_quire() { # run_quire SECS OUTFILE ARGS...
	secs=$1
	out=$2
	shift 2
	timeout "$secs" quire "$@" >"$out" 2>&1
	rc=$?
	indent <"$out"
	return $rc
}

check_info() {
	[ -n "$QUIRE_CARD" ] || return 0
	load
	run_quire 60 /tmp/info.out info --backend kdrv
	rc=$?
	check "quire info --backend kdrv: exit $rc, $(grep -m1 -i 'board' /tmp/info.out)" [ $rc -eq 0 ]
}

check_selftest() {
	[ -n "$QUIRE_CARD" ] || return 0
	load
	t0=$(uptime_s)
	run_quire 150 /tmp/selftest.out selftest --backend kdrv --max-size "$QUIRE_SELFTEST_MAX"
	rc=$?
	t1=$(uptime_s)
	check "quire selftest --backend kdrv --max-size $QUIRE_SELFTEST_MAX: exit $rc, \
$(tail -1 /tmp/selftest.out) ($t0 s to $t1 s of uptime)" [ $rc -eq 0 ]
}

# The completions came by interrupt (the card writes the guest's ivshmem vector eventfd,
# QEMU raises MSI-X vector 0), not only by the waits' own 100 ms reaping.
check_msix() {
	[ -n "$QUIRE_CARD" ] && loaded || return 0
	line=$(grep ' quire$' /proc/interrupts)
	n=0
	for w in $(echo "$line" | cut -d: -f2); do
		case $w in *[!0-9]*) break ;; *) n=$((n + w)) ;; esac
	done
	check "the card's interrupt: $n so far ($(echo "$line" | tr -s ' ' | cut -c1-60))" [ $n -gt 0 ]
}

check_unload() {
	check "rmmod quire" unload
	check "the module is gone" [ ! -e /sys/module/quire ]
}

# Load and unload 10 times; with a card, it is bound and has its render node each time.
check_reload_10() {
	unload
	good=0
	t0=$(uptime_s)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		insmod /quire.ko || continue
		bound=1
		[ -z "$QUIRE_CARD" ] || card_bound || bound=0
		rmmod quire && [ ! -e /sys/module/quire ] && [ $bound = 1 ] && good=$((good + 1))
	done
	t1=$(uptime_s)
	check "insmod/rmmod 10 times${QUIRE_CARD:+, the card bound each time}: $good clean \
($t0 s to $t1 s of uptime)" [ $good -eq 10 ]
}

# The card stops answering (the host SIGSTOPs quire-sim) in the middle of a run of NOP round
# trips (quire bench card): the one in flight times out instead of hanging, and the driver
# unloads in bounded time. The host stops the card when it reads "guest: stop-card" on the
# console and answers "stopped" on the console's input. The card stays stopped.
check_card_stops() {
	[ -n "$QUIRE_CARD" ] || return 0
	load
	mark=$(dmesg | wc -l)
	limit_ms=3000
	QUIRE_TIMEOUT_MS=$limit_ms quire bench card --backend kdrv --size 4096 --repeat 1 \
		--nops 1000000 >/tmp/stop.out 2>&1 &
	runner=$!
	# quire bench card prints its first line once its card is open, as its NOPs start (a
	# million of them: far longer than this check); the card is stopped only then.
	waited=0
	while ! grep -q "^quire bench card: backend kdrv" /tmp/stop.out && kill -0 $runner 2>/dev/null &&
		[ $waited -lt 600 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	check "NOPs running on the card before it stops: $(head -1 /tmp/stop.out)" \
		eval 'grep -q "^quire bench card: backend kdrv" /tmp/stop.out && kill -0 $runner'
	say "stop-card"
	reply=""
	read -t 60 -r reply
	check "the host stopped the card (it answered '$reply')" [ "$reply" = stopped ]
	t0=$(uptime_s)
	# One timeout after the stop it gives up; a TCG guest is slow, so allow 20 timeouts.
	bound=$((20 * limit_ms / 100)) # tenths of a second
	waited=0
	while kill -0 $runner 2>/dev/null && [ $waited -lt $bound ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	t1=$(uptime_s)
	if kill -0 $runner 2>/dev/null; then
		ko "quire bench card on a stopped card: still running after 20 timeouts ($((bound / 10)) s)"
		kill -9 $runner
	else
		wait $runner
		rc=$?
		indent </tmp/stop.out
		check "quire bench card on the stopped card: exit $rc, a timeout ($t0 s to $t1 s)" \
			eval '[ $rc -ne 0 ] && grep -q -i -E "timed out|timeout" /tmp/stop.out'
	fi
	t0=$(uptime_s)
	unload
	rc=$?
	t1=$(uptime_s)
	check "rmmod quire with the card stopped: exit $rc ($t0 s to $t1 s of uptime)" \
		eval '[ $rc -eq 0 ] && [ ! -e /sys/module/quire ]'
	line=$(new_log "$mark" | grep -m1 'card not answering')
	check "the driver saw it: ${line#*] }" [ -n "$line" ]
}

# Nothing went wrong in the kernel while we did all that.
check_kernel_log() {
	bad=$(dmesg | grep -E 'BUG:|WARNING:|Oops|KASAN|general protection|Call Trace' | head -5)
	check "kernel log: no BUG, WARNING, Oops, KASAN, general protection, Call Trace" [ -z "$bad" ]
	[ -n "$bad" ] && echo "$bad" | indent
}

check_taint() {
	taint=$(cat /proc/sys/kernel/tainted)
	# 4096 (O, out-of-tree) and 8192 (E, unsigned) are what any module of ours sets.
	check "kernel taint $taint: only out-of-tree and unsigned module" \
		[ $((taint & ~(4096 | 8192))) -eq 0 ]
}

CHECKS="helpers devices load refused card_bound info selftest msix unload reload_10 card_stops
	kernel_log taint"

# Checks kept in files of their own add themselves to CHECKS.
for f in /checks_*.sh; do
	[ -f "$f" ] && . "$f"
done

say "kernel $(uname -r), up $(uptime_s) s"
for c in $CHECKS; do
	"check_$c"
done
say "dmesg of the probe:"
grep -E 'quire|ivshmem' /tmp/probe.log | indent
say "done, up $(uptime_s) s"
poweroff -f
