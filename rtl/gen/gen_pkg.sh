#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes a SystemVerilog package of the constants of C headers, so that every
# offset, address and code is written once, in include/quire/. The C compiler
# evaluates them: the names are taken from the headers (object-like #defines
# with a value other than a string, enum members, and the X(NAME, value, ...) entries of status
# lists), a small C program that includes the headers prints each one, and an
# expression such as QUIRE_RB_MAKE_VERSION(1, 0) or (1u << 3) therefore means
# exactly what it means to the firmware. Two forms:
# - gen_pkg.sh PACKAGE PREFIX HEADER...: every constant becomes
#   `localparam logic [31:0] NAME` with PREFIX taken off its name (the card's packages:
#   registers, offsets and codes are bit patterns); a value that does not fit in 32
#   unsigned bits stops the build.
# - gen_pkg.sh -k PACKAGE PREFIX HEADER...: names kept whole, each constant typed by its
#   value (the engines' packages, whose constants are also numbers that can be negative):
#   `localparam int` from -2^31 up to 2^24, `logic [31:0]` hex from there to 2^32 (bit
#   patterns and addresses read best, and compare safely, so), `logic [63:0]` beyond.
# Usage: gen_pkg.sh [-k] PACKAGE PREFIX HEADER... > PACKAGE.sv   (CC: the host compiler)
set -eu
keep=0
if [ "$1" = "-k" ]; then
	keep=1
	shift
fi
pkg=$1
prefix=$2
shift 2
CC=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/quire-gen-pkg-XXXXXX")
trap 'rm -rf "$work"' EXIT

names() {
	sed -n \
		-e 's/^#define[[:space:]]\{1,\}\('"$prefix"'[A-Za-z0-9_]*\)[[:space:]]\{1,\}[^[:space:]"].*/\1/p' \
		-e 's/^[[:space:]]\{1,\}\('"$prefix"'[A-Za-z0-9_]*\)[[:space:]]*\(=[^,]*\)\{0,1\},\{0,1\}[[:space:]]*\(\/\*.*\)\{0,1\}$/\1/p' \
		-e 's/^[[:space:]]*X(\('"$prefix"'[A-Za-z0-9_]*\),.*/\1/p' \
		"$@"
}

{
	echo '#include <stdio.h>'
	echo '#include <stdlib.h>'
	for h in "$@"; do
		echo "#include \"$h\""
	done
	cat <<'EOC'
static void emit(const char *name, long long value, int keep)
{
	if (keep && value >= -0x80000000LL && value < 0x1000000LL)
		printf("  localparam int %s = %lld;\n", name, value);
	else if (value >= 0 && value <= 0xffffffffLL)
		printf("  localparam logic [31:0] %s = 32'h%08llx;\n", name, value);
	else if (keep)
		printf("  localparam logic [63:0] %s = 64'h%016llx;\n", name,
		       (unsigned long long)value);
	else {
		fprintf(stderr, "gen_pkg.sh: %s does not fit in 32 unsigned bits\n", name);
		exit(1);
	}
}
int main(void)
EOC
	echo '{'
	names "$@" | awk '!seen[$0]++' | while read -r name; do
		if [ $keep = 1 ]; then
			echo "	emit(\"$name\", (long long)($name), 1);"
		else
			echo "	emit(\"${name#"$prefix"}\", (long long)($name), 0);"
		fi
	done
	echo '	return 0;'
	echo '}'
} >"$work/gen.c"
$CC -std=c11 -I. -Iinclude -o "$work/gen" "$work/gen.c"
echo "// SPDX-License-Identifier: MIT"
echo "// Generated from $* by rtl/gen/gen_pkg.sh: do not edit."
echo "package $pkg;"
echo "  // A header's constants: a design uses some of them."
echo "  /* verilator lint_off UNUSEDPARAM */"
"$work/gen"
echo "  /* verilator lint_on UNUSEDPARAM */"
echo "endpackage"
