# SPDX-License-Identifier: MIT
# The engines' RTL (rtl/engines/), each top verilated single-threaded into its
# own model, and its Verilator testbench (tests/rtl_engines/), which runs the
# hls/ kernels beside it as the golden model. Verilator's generated C++ is
# built by its own makefile with its flags; the testbenches are ours and get
# -Wall -Wextra -Werror, with Verilator's headers as system headers.
#   make rtl-engines        the testbenches
#   make rtl-engines-test   run them (tests/rtl_engines/run.sh)
#   make rtl-engines-lint   verilator --lint-only -Wall over every engine
VERILATOR ?= verilator
CXX ?= g++
RTLE_HAVE_VERILATOR := $(if $(shell command -v $(VERILATOR) 2>/dev/null),1,)
RTLE_DIR := $(BUILD)/rtl/engines

# The contract's constants, written once in include/quire/: packages generated at build time
# by rtl/gen/gen_pkg.sh (the C compiler evaluates the header), names kept whole (-k).
RTLE_PKGS := $(RTLE_DIR)/quire_format_pkg.sv $(RTLE_DIR)/quire_card_pkg.sv \
	$(RTLE_DIR)/quire_regs_pkg.sv
$(RTLE_DIR)/quire_%_pkg.sv: include/quire/%.h rtl/gen/gen_pkg.sh
	@mkdir -p $(dir $@)
	CC="$(CC)" sh rtl/gen/gen_pkg.sh -k quire_$*_pkg QUIRE_ $< >$@.tmp
	mv $@.tmp $@

RTLE_LANE_SRCS := rtl/engines/quire_fp32_add.sv rtl/engines/quire_fp32_add_lanes.sv rtl/engines/quire_bfp_quantize.sv \
	rtl/engines/quire_bfp_scale.sv rtl/engines/quire_fp16_from_fp32.sv \
	rtl/engines/quire_fp16_to_fp32.sv
RTLE_SRCS := $(RTLE_PKGS) $(RTLE_LANE_SRCS)
# The checkers of rtl/assert/ and where they are bound: read by every Verilator build of a
# model (not by the lint targets, nor by Yosys), and checked (--assert).
RTL_ASSERT_SRCS := rtl/assert/quire_assert_stream.sv rtl/assert/quire_assert_req_rsp.sv \
	rtl/assert/quire_binds.sv
RTL_ASSERT_FLAGS := --assert
RTLE_TOPS := quire_quant_exp quire_quant_encode quire_quant_decode quire_reduce_sum \
	quire_reduce_max_exp quire_reduce_fp_sum quire_mlp

# The MLP engine: its own package (the model image's constants and the statuses it
# answers, by rtl/gen/gen_pkg.sh, which evaluates status.h's X() list), its submodules,
# and its golden model.
RTLE_MLP_PKG := $(RTLE_DIR)/quire_mlp_pkg.sv
$(RTLE_MLP_PKG): include/quire/mlp.h include/quire/status.h rtl/gen/gen_pkg.sh
	@mkdir -p $(dir $@)
	CC="$(CC)" sh rtl/gen/gen_pkg.sh quire_mlp_pkg QUIRE_ include/quire/mlp.h include/quire/status.h >$@.tmp
	mv $@.tmp $@
RTLE_MLP_SRCS := rtl/engines/quire_mlp_requant.sv rtl/engines/quire_mlp_dot.sv \
	rtl/engines/quire_mlp_load.sv
RTLE_EXTRA_quire_mlp := $(RTLE_MLP_PKG) $(RTLE_MLP_SRCS)
RTLE_GOLDEN_quire_mlp := $(BUILD)/hls/mlp.o $(BUILD)/hls/crc32.o
RTLE_TBS := $(RTLE_TOPS:quire_%=$(BUILD)/tests/rtl_engines/tb_%)
RTLE_VERILATOR_INC = $(shell $(VERILATOR) --getenv VERILATOR_ROOT)/include
RTLE_GOLDEN := $(BUILD)/hls/quant.o $(BUILD)/hls/reduce.o

# One model per top: $(1) the top module.
define rtle_model
$(RTLE_DIR)/$(1)/V$(1).mk: $(RTLE_SRCS) $(RTLE_EXTRA_$(1)) rtl/engines/$(1).sv $(RTL_ASSERT_SRCS)
	@mkdir -p $$(dir $$@)
	$(VERILATOR) --cc -Wall -O3 --x-assign fast --x-initial fast $(RTL_ASSERT_FLAGS) \
		--Mdir $(RTLE_DIR)/$(1) --top-module $(1) $(RTLE_SRCS) $(RTLE_EXTRA_$(1)) \
		rtl/engines/$(1).sv $(RTL_ASSERT_SRCS)
$(RTLE_DIR)/$(1)/V$(1)__ALL.a: $(RTLE_DIR)/$(1)/V$(1).mk
	$$(MAKE) -s -C $(RTLE_DIR)/$(1) -f V$(1).mk OPT_FAST=-O2 V$(1)__ALL.a verilated.o \
		verilated_threads.o
$(BUILD)/tests/rtl_engines/tb_$(1:quire_%=%): tests/rtl_engines/tb_$(1:quire_%=%).cpp \
		tests/rtl_engines/tb_common.h $(RTLE_DIR)/$(1)/V$(1)__ALL.a $(RTLE_GOLDEN) \
		$(RTLE_GOLDEN_$(1))
	@mkdir -p $$(dir $$@)
	$(CXX) -std=c++17 -O2 $(WARN) $(SAN_FLAGS) -Iinclude -Ihls -I$(RTLE_DIR)/$(1) \
		-isystem $(RTLE_VERILATOR_INC) -isystem $(RTLE_VERILATOR_INC)/vltstd -o $$@ $$< \
		$(RTLE_DIR)/$(1)/V$(1)__ALL.a $(RTLE_DIR)/$(1)/verilated.o \
		$(RTLE_DIR)/$(1)/verilated_threads.o $(RTLE_GOLDEN) $(RTLE_GOLDEN_$(1)) -pthread
endef
$(foreach t,$(RTLE_TOPS),$(eval $(call rtle_model,$(t))))

rtl-engines: $(RTLE_TBS)
rtl-engines-test: $(RTLE_TBS)
	sh tests/rtl_engines/run.sh $(BUILD)
rtl-engines-lint: $(RTLE_SRCS) $(RTLE_MLP_PKG)
	for top in $(RTLE_TOPS); do \
		$(VERILATOR) --lint-only -Wall --top-module $$top $(RTLE_SRCS) \
			$$(test $$top = quire_mlp && echo $(RTLE_EXTRA_quire_mlp)) rtl/engines/$$top.sv \
			|| exit 1; \
	done
.PHONY: rtl-engines rtl-engines-test rtl-engines-lint

# `make test` runs them where Verilator is installed (tests/run.sh says so where not).
ifeq ($(RTLE_HAVE_VERILATOR),1)
test-programs: $(RTLE_TBS)
endif
