#!/bin/sh
# SPDX-License-Identifier: MIT
# The card's records in host memory (descriptors, completions, the communicator
# descriptor, INFO's record) are little-endian: __le16/__le32/__le64 fields in
# include/quire/cmd.h. The driver's build checks every use with sparse (make driver,
# C=1). This does the same for the user-space C that builds or reads them (libquire, the
# firmware's native build, quire-sim's ivshmem window, the tests that build descriptors):
# under sparse, <linux/types.h> makes __le32 a type of its own, so a field used without
# quire_le32_to_cpu / quire_cpu_to_le32 is a warning. First it checks that sparse does
# see one: a planted unconverted read must be reported.
# Usage: byte_order.sh BUILD_DIR (from the top of the repository)
set -u
B=${1:-build}
. "$(dirname "$0")/cli/report.sh"
T=$(mktemp -d /tmp/quire-byte-order-XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! command -v sparse >/dev/null; then
	missing_pkg "sparse not installed: byte order not checked" sparse
	summary "byte order"
	exit 1
fi
flags="-std=gnu11 -D_GNU_SOURCE -Iinclude -Ihost/include -I. -I$B/gen -I/usr/include/libdrm"
flags="$flags $(pkg-config --cflags ompi-c 2>/dev/null)"
# Reports of sparse about byte order: restricted types mixed with plain integers.
endian_warnings() {
	grep -E 'restricted __le|different base types' "$1"
}

cat >"$T/planted.c" <<'EOF'
#include "quire/cmd.h"
unsigned int planted(const struct quire_cmd *c);
unsigned int planted(const struct quire_cmd *c)
{
	return c->count; /* unconverted: sparse must say so */
}
EOF
# shellcheck disable=SC2086
sparse $flags "$T/planted.c" >"$T/planted.log" 2>&1
if endian_warnings "$T/planted.log" >/dev/null; then
	ok "sparse reports an unconverted __le32 read in user space ($(endian_warnings "$T/planted.log" | head -1 | sed 's/.*: warning: //'))"
else
	sed 's/^/    /' "$T/planted.log" | head -5
	ko "sparse did not report a planted unconverted __le32 read: the check below would prove nothing"
fi

files=$(git grep -l -E 'quire_cmd\b|quire_cpl\b|quire_comm_desc|quire_card_info|quire_(le|cpu_to_le)(16|32|64)' \
	-- 'host/*.c' 'firmware/*.c' 'sim/*.c' 'tests/*.c')
n=0
bad=0
for f in $files; do
	n=$((n + 1))
	case $f in firmware/*) extra=-DQUIRE_FW_NATIVE ;; *) extra= ;; esac
	# shellcheck disable=SC2086
	sparse $flags $extra "$f" >"$T/out" 2>&1
	if endian_warnings "$T/out" >/dev/null; then
		bad=$((bad + 1))
		endian_warnings "$T/out" | head -3 | sed 's/^/    /'
		echo "    ($f)"
	fi
done
if [ "$bad" -eq 0 ]; then
	ok "sparse: $n user-space files that build or read the card's records, every __le field converted"
else
	ko "sparse: $bad of $n files use a __le field unconverted"
fi
summary "byte order"
[ "$fail" -eq 0 ]
