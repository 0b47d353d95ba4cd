# SPDX-License-Identifier: MIT
# The RTL: SystemVerilog sources, package first. `make rtl-lint` runs
# Verilator's linter over them with every warning on (needs verilator).
RTL_CORE_SRCS := rtl/core/quire_rv32_pkg.sv rtl/core/quire_rv32_decoder.sv \
	rtl/core/quire_rv32_alu.sv rtl/core/quire_rv32_regfile.sv rtl/core/quire_rv32_muldiv.sv \
	rtl/core/quire_rv32_csr.sv rtl/core/quire_rv32_core.sv
VERILATOR ?= verilator
HAVE_VERILATOR := $(if $(shell command -v $(VERILATOR) 2>/dev/null),1,)

# The constants of include/quire/ as SystemVerilog packages (rtl/gen/gen_pkg.sh): the
# C compiler evaluates the headers, so nothing is written twice.
RTL_GEN_PKG := rtl/gen/gen_pkg.sh
RTL_CARD_HEADERS := include/quire/regs.h include/quire/card.h include/quire/status.h
RTL_CARD_PKG := $(BUILD)/rtl/quire_card_pkg.sv
$(RTL_CARD_PKG): $(RTL_CARD_HEADERS) $(RTL_GEN_PKG)
	@mkdir -p $(dir $@)
	CC="$(CC)" sh $(RTL_GEN_PKG) quire_card_pkg QUIRE_ $(RTL_CARD_HEADERS) >$@.tmp
	mv $@.tmp $@

rtl-lint: $(RTL_CARD_PKG)
	$(VERILATOR) --lint-only -Wall --top-module quire_rv32_core $(RTL_CORE_SRCS)
.PHONY: rtl-lint
