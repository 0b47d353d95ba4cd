#!/bin/sh
# SPDX-License-Identifier: MIT
# The board descriptions (boards/*.toml) and their generator: every board file is accepted
# and the build's <quire/boards.h> is what they give today; a malformed file (a field
# missing, a key unknown, a type wrong, firmware memories smaller than firmware/link.ld's,
# ...) is refused with exit status 2 and a message naming the file and the key; the sim
# board, read by Python's tomllib, is what `quire info --backend sim:inproc` shows. (The header compiling as C11 and
# C++ is public_headers.sh's.)
# Usage: test_boards.sh BUILD_DIR (from the top of the repository)
set -u
B=${1:-build}
PYTHON=${PYTHON:-python3}
. "$(dirname "$0")/report.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-boards-XXXXXX")
trap 'rm -rf "$T"' EXIT
GEN="$PYTHON boards/gen_boards.py --regs include/quire/regs.h --link-ld firmware/link.ld"

if out=$($GEN --check boards/*.toml 2>&1); then
	ok "every board file is valid: ${out#gen_boards.py: }"
else
	ko "the board files are refused: $out"
fi
if $GEN -o "$T/boards.h" boards/*.toml && cmp -s "$T/boards.h" "$B/gen/quire/boards.h"; then
	ok "$B/gen/quire/boards.h is what the board files give"
else
	ko "$B/gen/quire/boards.h differs from what the board files give (make boards)"
fi

# refused NAME PATTERN FILE: the generator refuses FILE (with the good boards beside it)
# with exit status 2, writes nothing, and says PATTERN (a grep -E pattern) on stderr.
refused() {
	name=$1 pattern=$2 file=$3
	rm -f "$T/out.h"
	$GEN -o "$T/out.h" boards/aws-f1.toml "$file" >"$T/stdout" 2>"$T/stderr"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -E "$pattern" "$T/stderr" && [ ! -e "$T/out.h" ]; then
		ok "refused: $name: $(head -1 "$T/stderr")"
	else
		ko "$name: exit $rc, wanted 2 and /$pattern/; said: $(head -3 "$T/stderr")"
	fi
}

# bad NAME SED-SCRIPT: boards/sim.toml changed by SED-SCRIPT, as $T/bad.toml.
bad() {
	sed -e "$2" boards/sim.toml >"$T/$1.toml"
	echo "$T/$1.toml"
}
refused "a field missing" "missing.toml: missing field 'part'" "$(bad missing '/^part = /d')"
refused "an unknown key" "unknown.toml: unknown key 'colour'" \
	"$(bad unknown 's/^ran_on_hardware = false/&\ncolour = "red"/')"
refused "an unknown key in a table" "unknown2.toml: \\[network\\]: unknown key 'speed'" \
	"$(bad unknown2 's/^gbps = 0/speed = 0/')"
refused "a string for a number" "badtype.toml: \\[\\[clock\\]\\] #1: field 'mhz' must be a number" \
	"$(bad badtype 's/^mhz = 250/mhz = "250"/')"
refused "a boolean for an integer" "badbool.toml: \\[network\\]: field 'ports' must be an integer" \
	"$(bad badbool 's/^ports = 1/ports = true/')"
refused "IMEM smaller than firmware/link.ld's" "smallimem.toml: \\[firmware\\] imem = 16384 .*smaller than .*IMEM" \
	"$(bad smallimem 's/^imem = .*/imem = 16384/')"
refused "DMEM smaller than firmware/link.ld's" "smalldmem.toml: \\[firmware\\] dmem = 4096 .*smaller than .*DMEM" \
	"$(bad smalldmem 's/^dmem = .*/dmem = 4096/')"
refused "a board enum quire_board lacks" "noenum.toml: board 'NOPE' is not in enum quire_board" \
	"$(bad noenum 's/^board = .*/board = "NOPE"/')"
refused "a register BAR smaller than QUIRE_BAR0_BYTES" "smallbar.toml: the register BAR .* QUIRE_BAR0_BYTES" \
	"$(bad smallbar 's/^size = 0x10000/size = 0x1000/')"
refused "no BAR for the register blocks" "noregs.toml: exactly one \\[\\[bar\\]\\] must have regs = true" \
	"$(bad noregs 's/^regs = true/regs = false/')"
refused "a clock out of range" "range.toml: \\[\\[clock\\]\\] #1: mhz = 5000 is out of range" \
	"$(bad range 's/^mhz = 250/mhz = 5000/')"
refused "not TOML" "syntax.toml: not TOML" "$(bad syntax 's/^board = .*/board = /')"
refused "a board described twice" "is also described by" "$(bad twice 's/^board = .*/board = "AWS_F1"/')"
refused "an [xrt] kernel that is no C name" "xrtkernel.toml: \\[xrt\\] kernel 'quire card'" \
	"$(bad xrtkernel '$a [xrt]\nkernel = "quire card"')"
refused "an [xrt] xclbin_uuid that is no UUID" "xrtuuid.toml: \\[xrt\\] xclbin_uuid '0B5E' is not" \
	"$(bad xrtuuid '$a [xrt]\nkernel = "quire_card"\nxclbin_uuid = "0B5E"')"

# The sim board as libquire reports it, against boards/sim.toml read apart from the
# generator and its header (Python's tomllib): were the lines wanted made from the generated
# constants, a generator that misread the file would agree with itself.
if /usr/bin/python3 - boards/sim.toml >"$T/want" 2>"$T/err" <<'PY'; then
import sys
import tomllib

with open(sys.argv[1], "rb") as f:
    board = tomllib.load(f)
mem = [m for m in board["memory"] if m["name"] == "card memory"]
clock = [c for c in board["clock"] if c.get("engines")]
regs = [b for b in board["bar"] if b.get("regs")]
assert len(mem) == 1 and len(clock) == 1 and len(regs) == 1, "one card memory, engine clock, regs BAR"
print(f"board          {board['name']}")
print(f"card memory    {mem[0]['size'] * mem[0]['count'] >> 20} MiB, clock {clock[0]['mhz']} MHz")
print(f"register blocks (walked from BAR{regs[0]['index']} offset 0):")
PY
	"$B/bin/quire" info --backend sim:inproc >"$T/info" 2>&1
	missing=$(grep -v -x -F -f "$T/info" "$T/want")
	if [ -z "$missing" ]; then
		ok "quire info --backend sim:inproc shows boards/sim.toml: $(head -2 "$T/want" | tr -s ' ' | tr '\n' ';')"
	else
		ko "quire info --backend sim:inproc lacks, of boards/sim.toml: $missing"
	fi
else
	ko "boards/sim.toml not read by tomllib (/usr/bin/python3, 3.11): $(tail -2 "$T/err")"
fi

summary "test_boards"
[ "$fail" -eq 0 ]
