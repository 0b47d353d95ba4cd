#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/include_rules.py against includes planted where their floor may not have them, in a
# copy of the tree (its tracked READMEs and sources): the copy as it is passes; each plant
# fails, naming its file and line: sched/sched.h and a header of the card model's insides
# (sim/ivshmem.h) in libquire (host/src/core/context.c),
# libquire's public quire.h in the emu (sim/emu/emu.c: the emu reaches the codec through its
# own floor), one of libquire's inner headers in the CLI (cli/main.c), and hls/ in the
# public API (host/include/quire.h, a floor inside host/).
# Usage: include_rules_plant.sh (from the top of the repository)
set -u
. "$(dirname "$0")/cli/report.sh"
PYTHON=${PYTHON:-python3}
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-rules-XXXXXX")
trap 'rm -rf "$T"' EXIT

mkdir "$T/tree"
git ls-files -z '*README.md' '*.c' '*.h' '*.cpp' '*.S' | tar --null -T - -cf - | tar -xf - -C "$T/tree"

# rules: the checker on the copy; its output in $T/out, its exit status returned.
rules() {
	"$PYTHON" tests/include_rules.py --root "$T/tree" >"$T/out" 2>&1
}

if rules; then
	ok "the copy as it is: $(tail -1 "$T/out")"
else
	ko "the copy as it is fails:"
	sed 's/^/    /' "$T/out"
fi

# plant FILE HEADER FLOOR: FILE with #include "HEADER" added at its end must fail, the
# breach named FILE:LINE and FLOOR's README; the file is put back after.
plant() {
	file=$1 header=$2 floor=$3
	cp "$T/tree/$file" "$T/saved"
	printf '#include "%s"\n' "$header" >>"$T/tree/$file"
	line=$(wc -l <"$T/tree/$file")
	want="FAIL $file:$line: \"$header: "
	if rules; then
		ko "$header planted in $file passes"
	elif grep -F "$want" "$T/out" | grep -qF "not in $floor/'s 'May include'"; then
		ok "$header planted in $file fails: $(grep -F "$want" "$T/out")"
	else
		ko "$header planted in $file: no line '$want... not in $floor/'s 'May include''"
		sed 's/^/    /' "$T/out"
	fi
	cp "$T/saved" "$T/tree/$file"
}

plant host/src/core/context.c sched/sched.h host
plant host/src/core/context.c sim/ivshmem.h host
plant sim/emu/emu.c quire.h sim
plant cli/main.c host/src/backend/transport.h cli
plant host/include/quire.h hls/quant.h host/include

summary include_rules_plant
