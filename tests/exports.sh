#!/bin/sh
# SPDX-License-Identifier: MIT
# libquire.so exports its public API and nothing else: the functions declared in
# <quire.h> and the contract headers it includes, exactly; libquire_mpi.so those of
# <quire_mpi.h>. Internal functions (the codec's SIMD kernels, the core's, the card
# model's) stay inside.
# Usage: exports.sh BUILD_DIR
set -u
B=$1
. "$(dirname "$0")/cli/report.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/quire-exports-XXXXXX")
trap 'rm -rf "$T"' EXIT
declared() { # declared HEADER...: the quire_ functions they declare (comments and macros left out)
	perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{^[ \t]*#[ \t]*define(?:[^\n]*\\\n)*[^\n]*}{}gm' "$@" | tr '\n' ' ' |
		grep -o '[a-z_0-9 *]\bquire_[a-z0-9_]* *(' | sed 's/.*\(quire_[a-z0-9_]*\).*/\1/' | sort -u
}
exported() { # exported LIBRARY: the symbols it defines for others
	nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRW]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u
}
check() { # check NAME LIBRARY HEADER...
	name=$1
	lib=$2
	shift 2
	declared "$@" >"$T/declared"
	exported "$lib" >"$T/exported"
	extra=$(comm -13 "$T/declared" "$T/exported" | tr '\n' ' ')
	missing=$(comm -23 "$T/declared" "$T/exported" | tr '\n' ' ')
	if [ -z "$extra" ] && [ -z "$missing" ]; then
		ok "$name exports exactly its $(wc -l <"$T/exported") public functions"
	else
		ko "$name: exported but not public: ${extra:-none}; public but not exported: ${missing:-none}"
	fi
}
check libquire.so "$B/lib/libquire.so" host/include/quire.h \
	$(sed -n 's|^#include <\(quire/[a-z_]*\.h\)>.*|include/\1|p' host/include/quire.h)
# Sharing buffers as dma-bufs is public API (kdrv has it; the other backends say not supported).
for f in quire_buf_export quire_buf_import; do
	if exported "$B/lib/libquire.so" | grep -qx "$f"; then
		ok "libquire.so exports $f"
	else
		ko "libquire.so does not export $f"
	fi
done
# The card model is not in the production library: libquire loads libquire_sim for sim:inproc.
model=$(nm "$B/lib/libquire.so" | grep -c -w -e quire_emu_create -e quire_fw_poll -e quire_netport_read)
if [ "$model" -eq 0 ]; then
	ok "libquire.so carries no card model (emu, native firmware, network port)"
else
	ko "libquire.so carries the card model ($model of its functions)"
fi
sim=$(exported "$B/lib/libquire_sim.so.0" | tr '\n' ' ')
if [ "$sim" = "quire_sim_inproc_open " ]; then
	ok "libquire_sim.so exports only quire_sim_inproc_open"
else
	ko "libquire_sim.so exports: $sim"
fi
if ! has_mpi; then
	missing_pkg "no MPI: libquire_mpi.so's exports not checked" openmpi-bin libopenmpi-dev
elif [ ! -e "$B/lib/libquire_mpi.so" ]; then
	ko "no $B/lib/libquire_mpi.so with MPI installed: run make test (it builds what it runs)"
else
	check libquire_mpi.so "$B/lib/libquire_mpi.so" host/include/quire_mpi.h
fi
summary "exports"
[ "$fail" -eq 0 ]
