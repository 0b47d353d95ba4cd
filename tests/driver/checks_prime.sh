# SPDX-License-Identifier: MIT
# Sourced by tests/driver/init.sh (the guest's /init) as /checks_prime.sh: the checks of
# buffers shared as dma-bufs (PRIME) and of random ioctls, on the card, each a check_NAME
# function; this file puts their names into init.sh's CHECKS before its first unload (the
# fuzz check reloads the module, which would reset what earlier checks count). Programs:
# /bin/prime_check, /bin/prime_api, /bin/ioctl_fuzz and /bin/ioctl_race (tests/driver/*.c);
# vgem.ko is the second DRM device to share with, /mlp/model.* a golden MLP case; test.conf
# gives QUIRE_FUZZ_SEED and QUIRE_FUZZ_CALLS.

# A program's "ok"/"FAIL" lines as the guest's own checks, the rest indented.
report() { # report FILE
	grep -E '^(ok|FAIL) ' "$1" | sed 's/^/guest: /'
	grep -v -E '^(ok|FAIL) ' "$1" | indent
}

# The kernel log since line $1 has no oops, BUG or warning.
log_clean_since() { # log_clean_since MARK WHAT
	bad=$(new_log "$1" | grep -E 'BUG:|WARNING:|Oops|general protection|Call Trace' | head -5)
	check "$2: kernel log has no BUG, WARNING, Oops, general protection, Call Trace" [ -z "$bad" ]
	[ -z "$bad" ] || echo "$bad" | indent
}

# Buffers shared between two files of the card and with vgem, by raw ioctls (prime_check),
# then through libquire's API (prime_api): the card reads the shared memory.
check_prime() {
	[ -n "$QUIRE_CARD" ] || return 0
	load
	if [ -f /lib/modules/vgem.ko ] && [ ! -e /sys/module/vgem ]; then
		check "insmod vgem.ko (a second DRM device)" insmod /lib/modules/vgem.ko
	fi
	mark=$(dmesg | wc -l)
	t0=$(uptime_s)
	timeout 120 prime_check /mlp/model.qmlp /mlp/model.vec >/tmp/prime.out 2>&1
	rc=$?
	report /tmp/prime.out
	check "prime_check: exit $rc ($t0 s to $(uptime_s) s of uptime)" [ $rc -eq 0 ]
	timeout 120 prime_api "kdrv:$(render_node)" >/tmp/prime_api.out 2>&1
	rc=$?
	report /tmp/prime_api.out
	check "prime_api (libquire, kdrv): exit $rc" [ $rc -eq 0 ]
	log_clean_since "$mark" "PRIME"
}

# A few thousand seeded random ioctls (ioctl_fuzz), then as many from 4 threads at once
# (ioctl_race); after each the driver's counts are back (checked by the programs), and then
# the log is clean and the driver still unloads and loads.
check_fuzz() {
	[ -n "$QUIRE_CARD" ] || return 0
	load
	mark=$(dmesg | wc -l)
	t0=$(uptime_s)
	timeout 300 ioctl_fuzz "$QUIRE_FUZZ_SEED" "$QUIRE_FUZZ_CALLS" >/tmp/fuzz.out 2>&1
	rc=$?
	t1=$(uptime_s)
	report /tmp/fuzz.out
	check "ioctl_fuzz seed $QUIRE_FUZZ_SEED, $QUIRE_FUZZ_CALLS calls: exit $rc \
($t0 s to $t1 s of uptime)" [ $rc -eq 0 ]
	t0=$(uptime_s)
	say "ioctl_race: $(nproc) CPUs in the guest"
	timeout 300 ioctl_race "$QUIRE_FUZZ_SEED" 4 "$QUIRE_FUZZ_CALLS" >/tmp/race.out 2>&1
	rc=$?
	report /tmp/race.out
	check "ioctl_race seed $QUIRE_FUZZ_SEED, 4 threads, $QUIRE_FUZZ_CALLS calls: exit $rc \
($t0 s to $(uptime_s) s of uptime)" [ $rc -eq 0 ]
	log_clean_since "$mark" "fuzz"
	check "rmmod quire after the fuzz" unload
	check "insmod quire.ko again, the card bound" load_bound
}
load_bound() { load && card_bound; }

QUIRE_FUZZ_SEED=${QUIRE_FUZZ_SEED:-1}
QUIRE_FUZZ_CALLS=${QUIRE_FUZZ_CALLS:-5000}
CHECKS=$(echo " $CHECKS " | sed 's/ unload / prime fuzz unload /')
