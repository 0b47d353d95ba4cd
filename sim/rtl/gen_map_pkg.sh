#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the SystemVerilog package of the test machine's memory map from
# include/quire/rv32_sim.h, so that the map is written once: every
# `#define QUIRE_RV32_SIM_NAME QUIRE_RV32_SIM_U32(0x...)` becomes
# `localparam logic [31:0] NAME`.
# Usage: gen_map_pkg.sh HEADER > quire_rv32_sim_map_pkg.sv
set -eu
header=$1
echo "// SPDX-License-Identifier: MIT"
echo "// Generated from $header by sim/rtl/gen_map_pkg.sh: do not edit."
echo "package quire_rv32_sim_map_pkg;"
sed -n 's/^#define QUIRE_RV32_SIM_\([A-Z0-9_]*\)[[:space:]]*QUIRE_RV32_SIM_U32(0x\([0-9a-fA-F]\{8\}\)).*/  localparam logic [31:0] \1 = 32'"'"'h\2;/p' "$header"
echo "endpackage"
