# SPDX-License-Identifier: MIT
# `make rtl-report`: a resource estimate of the RTL, Yosys synth_xilinx for
# UltraScale+ (-family xcup) on each engine top, the core and the card top,
# with the share of the devices of the boards quire names (AWS F1's VU9P, the
# Alveo U250's and U55C's; rtl/report/rtl_report.py, docs/rtl-report.md). A Yosys
# estimate, not a vendor synthesis; no Fmax claimed. Needs yosys; not part of `make
# test`. Each distinct module is synthesized once, on its own (its submodules as
# boxes), RTL_REPORT_JOBS at once, and kept in $(BUILD)/rtl/report/cache: a run after
# a change synthesizes only the modules it changed. Written to $(BUILD)/rtl-report.txt.
# RTL_REPORT_TIMEOUT bounds each module's synthesis (seconds).
YOSYS ?= yosys
RTL_REPORT_TIMEOUT ?= 5400
RTL_REPORT_JOBS ?= 2
# The card top's card memory size is a parameter (128 MiB in the RTL); the report
# gives it RTL_REPORT_CARD_MEM bytes, which only sizes the card's line addresses here.
RTL_REPORT_CARD_MEM ?= 65536
# Card memory (quire_card_mem: a port a master, the model of the board's DRAM behind an
# interconnect) is no block RAM of any FPGA at any size: the card top is synthesized
# with it as an empty box, not counted (docs/rtl-report.md). The core and the engine
# tops, synthesized above, are boxes too (each is in the card once with its defaults, but
# quire_quant_exp three times: QUANT's and each DMA channel's; quire_quant_decode twice:
# QUANT's and DMA channel 1's), and the card's line is the
# sum: the card top's own modules plus those tops' lines.
# Past RTL_REPORT_TIMEOUT the card top is reported as not synthesized without failing.
RTL_REPORT_BOXES := $(RTLE_TOPS) quire_rv32_core
RTL_REPORT_ARGS = --yosys $(YOSYS) --timeout $(RTL_REPORT_TIMEOUT) --jobs $(RTL_REPORT_JOBS) --work $(BUILD)/rtl/report \
	--out $(BUILD)/rtl-report.txt \
	$(foreach t,$(RTLE_TOPS),--top $(t) $(RTLE_SRCS) $(RTLE_EXTRA_$(t)) rtl/engines/$(t).sv) \
	--top quire_rv32_core $(RTL_CORE_SRCS) \
	--top quire_card_top $(RTL_CARD_SRCS) \
	$(foreach p,$(RTL_CARD_PARAMS),--param quire_card_top:$(subst -G,,$(p))) \
	--param quire_card_top:MemBytes=$(RTL_REPORT_CARD_MEM) --blackbox quire_card_top:quire_card_mem \
	$(foreach t,$(RTL_REPORT_BOXES),--blackbox quire_card_top:$(t)) \
	--sum "card in all=quire_card_top$(foreach t,$(RTL_REPORT_BOXES),+$(t))+quire_quant_exp+quire_quant_exp+quire_quant_decode" \
	--optional quire_card_top

rtl-report: $(RTLE_PKGS) $(RTLE_MLP_PKG) $(RTL_CARD_PKG) $(RTL_BOARD_PKG)
	$(PYTHON) rtl/report/rtl_report.py $(RTL_REPORT_ARGS)
.PHONY: rtl-report
