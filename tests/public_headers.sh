#!/bin/sh
# SPDX-License-Identifier: MIT
# The public headers (what `make install` installs: host/include/*.h and include/quire/'s but
# the card-internal ones, `make public-headers`)
# compile on their own, each first in its file, as C11 and as C++11, 14, 17 and 20, with
# the GNU and the LLVM compilers, warnings as errors; and a C++ program links with libquire
# (its functions declared with C linkage). <quire/boards.h>, generated from boards/ into
# BUILD_DIR/gen, is checked with them. A compiler that is not installed is skipped
# with a note. Usage: public_headers.sh BUILD_DIR (from the top of the repository)
set -u
B=${1:-build}
. "$(dirname "$0")/cli/report.sh"
T=$(mktemp -d /tmp/quire-headers-XXXXXX)
trap 'rm -rf "$T"' EXIT
# The list is the Makefile's, the one `make install` uses.
headers="$(make --no-print-directory -s public-headers) quire/boards.h"
# MPI's own headers are its business: -isystem keeps our warnings out of them.
mpi_flags=$(pkg-config --cflags ompi-c 2>/dev/null | sed 's/-I/-isystem /g')

# check COMPILER LANGUAGE STANDARD [FLAG...]: every header alone in a translation unit.
check() {
	cc=$1 lang=$2 std=$3
	shift 3
	bad=""
	for h in $headers; do
		if [ "$h" = quire_mpi.h ] && [ -z "$mpi_flags" ]; then
			continue
		fi
		printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >"$T/use.$lang"
		if ! $cc -x "$lang" -std="$std" -Wall -Wextra -Werror -fsyntax-only "$@" \
			-Iinclude -Ihost/include -I"$B/gen" $mpi_flags "$T/use.$lang" >"$T/err" 2>&1; then
			bad="$bad $h"
			sed -n '1,3s/^/    /p' "$T/err"
		fi
	done
	if [ -z "$bad" ]; then
		ok "$cc -std=$std: every public header"
	else
		ko "$cc -std=$std:$bad"
	fi
}

[ -n "$mpi_flags" ] || echo "note: MPI not found (pkg-config ompi-c): quire_mpi.h not checked"
for cc in gcc clang; do
	if command -v $cc >/dev/null; then
		check $cc c c11 -pedantic-errors
	else
		missing_pkg "$cc not installed: the headers not compiled with it" $cc
	fi
done
for cxx in g++ clang++; do
	if ! command -v $cxx >/dev/null; then
		missing_pkg "$cxx not installed: its C++ checks not run" "$(echo $cxx | sed 's/clang++/clang/')"
		continue
	fi
	# Not -pedantic: struct quire_comm_desc ends in a flexible array member, C that both
	# C++ compilers take as an extension.
	for std in c++11 c++14 c++17 c++20; do
		check $cxx c++ $std
	done
done

# C linkage: a function of <quire.h> and one of <quire/status.h> called from C++.
cat >"$T/link.cpp" <<'CPP'
#include <quire.h>
#include <cstdio>
int main() { return std::printf("%s %s\n", quire_version(), quire_strerror(QUIRE_OK)) < 0; }
CPP
if nm -D "$B/lib/libquire.so" 2>/dev/null | grep -q __asan_init; then
	echo "note: $B/lib/libquire.so is instrumented (SANITIZE=1): the C++ link check is left to the plain build"
	linkers=""
else
	linkers="g++ clang++"
fi
for cxx in $linkers; do
	command -v $cxx >/dev/null || continue
	if $cxx -std=c++11 -Iinclude -Ihost/include -o "$T/link" "$T/link.cpp" -L"$B/lib" -lquire \
		-Wl,-rpath,"$PWD/$B/lib" >"$T/err" 2>&1 && "$T/link" >/dev/null; then
		ok "$cxx: a C++ program links with libquire and calls it"
	else
		ko "$cxx: a C++ program does not link with libquire: $(grep -m1 'undefined' "$T/err")"
	fi
done

summary "public headers"
[ "$fail" -eq 0 ]
