# SPDX-License-Identifier: MIT
# `make rtl-report`: a resource estimate of the RTL, Yosys synth_xilinx for
# UltraScale+ (-family xcup) on each engine top, the core and the card top,
# with the share of an AWS F1 VU9P and of an Alveo U55C (rtl/report/rtl_report.py,
# docs/rtl-report.md). A Yosys estimate, not a vendor synthesis; no Fmax claimed.
# Needs yosys; not part of `make test` (a few minutes). Written to $(BUILD)/rtl-report.txt.
YOSYS ?= yosys
RTL_REPORT_TIMEOUT ?= 900
# The card top's card memory is a parameter; at its real size (128 MiB) it is no
# block RAM of any FPGA (it is the board's DRAM), so the report synthesizes the
# top with a small one, RTL_REPORT_CARD_MEM bytes, and says so.
RTL_REPORT_CARD_MEM ?= 65536
# The card top is optional: it now reads in Yosys 0.23, but its synthesis (every
# engine again, the BAR's 448 words, the network's frame slots as registers) is the
# longest and may exceed RTL_REPORT_TIMEOUT; it is then reported as not synthesized
# without failing the target.
RTL_REPORT_ARGS = --yosys $(YOSYS) --timeout $(RTL_REPORT_TIMEOUT) --work $(BUILD)/rtl/report \
	--out $(BUILD)/rtl-report.txt \
	$(foreach t,$(RTLE_TOPS),--top $(t) $(RTLE_SRCS) $(RTLE_EXTRA_$(t)) rtl/engines/$(t).sv) \
	--top quire_rv32_core $(RTL_CORE_SRCS) \
	--top quire_card_top $(RTL_CARD_SRCS) \
	$(foreach p,$(RTL_CARD_PARAMS),--param quire_card_top:$(subst -G,,$(p))) \
	--param quire_card_top:MemBytes=$(RTL_REPORT_CARD_MEM) --optional quire_card_top

rtl-report: $(RTLE_PKGS) $(RTLE_MLP_PKG) $(RTL_CARD_PKG) $(RTL_BOARD_PKG)
	$(PYTHON) rtl/report/rtl_report.py $(RTL_REPORT_ARGS)
.PHONY: rtl-report
