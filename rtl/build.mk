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
RTL_CARD_HEADERS := include/quire/regs.h include/quire/card.h include/quire/status.h \
	include/quire/cmd.h include/quire/frame.h
RTL_CARD_PKG := $(BUILD)/rtl/quire_card_pkg.sv
$(RTL_CARD_PKG): $(RTL_CARD_HEADERS) $(RTL_GEN_PKG) rtl/build.mk
	@mkdir -p $(dir $@)
	CC="$(CC)" sh $(RTL_GEN_PKG) quire_card_pkg QUIRE_ $(RTL_CARD_HEADERS) >$@.tmp
	mv $@.tmp $@

# The card top (rtl/card/): its IMEM and DMEM are placed and sized as firmware/link.ld
# declares, read from its MEMORY lines ("IMEM (rx) : ORIGIN = 0x..., LENGTH = 64K").
RTL_CARD_SRCS := $(RTL_CARD_PKG) $(RTLE_DIR)/quire_format_pkg.sv $(RTL_CORE_SRCS) \
	$(RTLE_LANE_SRCS) rtl/engines/quire_quant_exp.sv rtl/engines/quire_quant_encode.sv \
	rtl/engines/quire_quant_decode.sv rtl/engines/quire_reduce_sum.sv \
	rtl/engines/quire_reduce_max_exp.sv rtl/engines/quire_reduce_fp_sum.sv $(RTLE_MLP_PKG) $(RTLE_MLP_SRCS) \
	rtl/engines/quire_mlp.sv rtl/card/quire_crc32_pkg.sv rtl/card/quire_card_ram.sv rtl/card/quire_card_mem.sv \
	rtl/card/quire_card_net.sv rtl/card/quire_card_engine_regs.sv rtl/card/quire_card_line_mover.sv \
	rtl/card/quire_card_mean.sv rtl/card/quire_card_quant.sv rtl/card/quire_card_mlp.sv rtl/card/quire_card_reduce.sv \
	rtl/card/quire_card_bar.sv rtl/card/quire_card_ctl.sv rtl/card/quire_card_dma_decode.sv rtl/card/quire_card_dma.sv \
	rtl/card/quire_card_queue.sv \
	rtl/card/quire_card_top.sv
# The RTL card's board (boards/sim-rtl.toml, through <quire/boards.h>): the card top's memory
# size and clock are its QUIRE_BOARD_SIM_RTL_* constants.
RTL_BOARD_PKG := $(BUILD)/rtl/quire_board_pkg.sv
$(RTL_BOARD_PKG): $(BOARDS_H) $(RTL_GEN_PKG) rtl/build.mk
	@mkdir -p $(dir $@)
	CC="$(CC)" sh $(RTL_GEN_PKG) quire_board_pkg QUIRE_BOARD_SIM_RTL_ $(BOARDS_H) >$@.tmp
	mv $@.tmp $@
RTL_CARD_SRCS := $(RTL_BOARD_PKG) $(RTL_CARD_SRCS)
rtl_fw_mem = $(shell sed -n 's/^[[:space:]]*$(1)[[:space:]].*ORIGIN = \(0x[0-9a-fA-F]*\), LENGTH = \([0-9]*\)K.*/\1 \2/p' \
	firmware/link.ld | { read origin kib; printf -- '-G$(2)Base=%d -G$(2)Bytes=%d' $$origin $$((kib * 1024)); })
RTL_CARD_PARAMS := $(call rtl_fw_mem,IMEM,Imem) $(call rtl_fw_mem,DMEM,Dmem)

rtl-lint: $(RTL_CARD_SRCS)
	$(VERILATOR) --lint-only -Wall --top-module quire_rv32_core $(RTL_CORE_SRCS)
	$(VERILATOR) --lint-only -Wall $(RTL_CARD_PARAMS) --top-module quire_card_top $(RTL_CARD_SRCS)
.PHONY: rtl-lint
