# SPDX-License-Identifier: MIT
# Sourced by tests/driver/init.sh (the guest's /init) as /checks_pincap.sh: quire.ko's caps on
# pinned buffer-object memory (driver/quire_pin.c) and the charge of its objects to the
# creator's memory cgroup, on the card, as check_pincap; this file puts its name into
# init.sh's CHECKS before the first unload (it needs the card, and no other user of it).
# Program: /bin/pin_cap (tests/driver/pin_cap.c). report and log_clean_since are
# checks_prime.sh's (sourced too, before any check runs).

# The caps pin_cap runs under (MiB): a process fills its file's cap, a second one the rest
# of the global cap. pin_cap wants PIN_FILE_MIB + 2 <= PIN_GLOBAL_MIB < 2 * PIN_FILE_MIB.
PIN_FILE_MIB=8
PIN_GLOBAL_MIB=12

# A cgroup v2 child with the memory controller, for pin_cap's charge check; its path, or
# nothing (and why, on the console) when the guest's kernel cannot give one.
memory_cgroup() {
	root=/sys/fs/cgroup
	[ -f $root/cgroup.controllers ] || mount -t cgroup2 cgroup2 $root 2>/dev/null
	if [ ! -f $root/cgroup.controllers ]; then
		say "    no cgroup v2 in this kernel: the memory-cgroup charge is not checked" >&2
		return 1
	fi
	if ! grep -qw memory $root/cgroup.controllers; then
		say "    cgroup v2 without the memory controller: the charge is not checked" >&2
		return 1
	fi
	echo +memory >$root/cgroup.subtree_control && mkdir -p $root/quire-pin &&
		echo $root/quire-pin
}

# One number of the card's debugfs quire_objects (dri/MINOR: renderD128 is minor 128).
pinned_value() { # pinned_value KEY
	node=$(render_node)
	awk -v k="$1" '$1 == k { print $2 }' "/sys/kernel/debug/dri/${node##*renderD}/quire_objects"
}

check_pincap() {
	[ -n "$QUIRE_CARD" ] || return 0
	load
	params=/sys/module/quire/parameters
	mem=$(awk '$1 == "MemTotal:" { print $2 * 1024 }' /proc/meminfo)
	check "default caps (parameters 0): all cards $(pinned_value pinned_max) bytes, a file \
$(pinned_value pinned_file_max): half and a quarter of the guest's $mem bytes of RAM" \
		eval '[ "$(cat $params/pinned_max_mib)" = 0 ] &&
			[ "$(pinned_value pinned_max)" = $((mem / 2)) ] &&
			[ "$(pinned_value pinned_file_max)" = $((mem / 4)) ]'
	mark=$(dmesg | wc -l)
	# libquire's kdrv backend names the cap when BO_CREATE meets it (each refused size
	# prints it: the first and the summary are enough here).
	echo 1 >$params/pinned_file_max_mib
	timeout 120 quire selftest --backend kdrv --max-size "$QUIRE_SELFTEST_MAX" \
		>/tmp/pincap_selftest.out 2>&1
	rc=$?
	grep -m2 -E "over quire.ko's cap|cannot allocate" /tmp/pincap_selftest.out | indent
	check "quire selftest with pinned_file_max_mib=1: exit $rc, $(grep -m1 -o \
"over quire.ko's cap on pinned memory" /tmp/pincap_selftest.out), $(tail -1 /tmp/pincap_selftest.out)" \
		eval '[ $rc -ne 0 ] && grep -q "over quire.ko.s cap on pinned memory" /tmp/pincap_selftest.out &&
			grep -q -i "out of memory" /tmp/pincap_selftest.out'
	echo $PIN_FILE_MIB >$params/pinned_file_max_mib
	echo $PIN_GLOBAL_MIB >$params/pinned_max_mib
	cg=$(memory_cgroup)
	check "a cgroup v2 child with the memory controller: ${cg:-none}" [ -n "$cg" ]
	t0=$(uptime_s)
	# shellcheck disable=SC2086
	timeout 120 pin_cap $PIN_FILE_MIB $PIN_GLOBAL_MIB $cg >/tmp/pincap.out 2>&1
	rc=$?
	report /tmp/pincap.out
	check "pin_cap $PIN_FILE_MIB $PIN_GLOBAL_MIB $cg: exit $rc ($t0 s to $(uptime_s) s of uptime)" \
		[ $rc -eq 0 ]
	echo 0 >$params/pinned_file_max_mib
	echo 0 >$params/pinned_max_mib
	[ -z "$cg" ] || rmdir "$cg"
	log_clean_since "$mark" "pinned-memory caps"
}

CHECKS=$(echo " $CHECKS " | sed 's/ unload / pincap unload /')
