# SPDX-License-Identifier: MIT
# The RTL: SystemVerilog sources, package first. `make rtl-lint` runs
# Verilator's linter over them with every warning on (needs verilator).
RTL_CORE_SRCS := rtl/core/quire_rv32_pkg.sv rtl/core/quire_rv32_decoder.sv \
	rtl/core/quire_rv32_alu.sv rtl/core/quire_rv32_regfile.sv rtl/core/quire_rv32_muldiv.sv \
	rtl/core/quire_rv32_csr.sv rtl/core/quire_rv32_core.sv
VERILATOR ?= verilator
HAVE_VERILATOR := $(if $(shell command -v $(VERILATOR) 2>/dev/null),1,)

rtl-lint:
	$(VERILATOR) --lint-only -Wall --top-module quire_rv32_core $(RTL_CORE_SRCS)
.PHONY: rtl-lint
