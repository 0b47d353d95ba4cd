# SPDX-License-Identifier: MIT
# The rv32im core's instruction tests: one bare-metal program per
# tests/rtl/*.S, linked with tests/rtl/link.ld.S (preprocessed: the map
# comes from include/quire/rv32_sim.h). tests/rtl/run.sh runs them. The
# assembler wants Zicsr and Zifencei named for CSR instructions and FENCE.I:
# the core has both (FENCE.I is a no-op: nothing is cached).
RTL_TEST_SRCS := $(filter-out tests/rtl/link.ld.S,$(wildcard tests/rtl/*.S))
RTL_TEST_ELFS := $(RTL_TEST_SRCS:tests/rtl/%.S=$(BUILD)/tests/rtl/%.elf)
RTL_LINK_LD := $(BUILD)/rtl/link.ld
RTL_TEST_FLAGS := -march=rv32im_zicsr_zifencei -mabi=ilp32 -nostdlib -nostartfiles \
	-Wl,--no-warn-rwx-segments -Iinclude -Itests/rtl

$(RTL_LINK_LD): tests/rtl/link.ld.S include/quire/rv32_sim.h
	@mkdir -p $(dir $@)
	$(RISCV_CC) -E -P -x assembler-with-cpp -Iinclude -o $@ $<

$(BUILD)/tests/rtl/%.elf: tests/rtl/%.S tests/rtl/test.h $(RTL_LINK_LD) include/quire/rv32_sim.h
	@mkdir -p $(dir $@)
	$(RISCV_CC) $(RTL_TEST_FLAGS) -T $(RTL_LINK_LD) -o $@ $<

rtl: $(RTL_TEST_ELFS)

# The card top running the firmware, against the emu (libquire_sim.a) in the same process.
RTL_CARD_TEST := $(BUILD)/tests/rtl/test_card_top
$(RTL_CARD_TEST): tests/rtl/test_card_top.cpp tests/rtl/card_dma.h $(RTL_CARD_HARNESS_SRCS) sim/rtl/card_harness.h \
		sim/rtl/elf_image.h $(RTL_CARD_MODEL) $(RTL_VERILATED_OBJS) $(LIBQUIRE_SIM_A) $(LIBQUIRE_A)
	@mkdir -p $(dir $@)
	$(CXX) $(RTL_CXXFLAGS) -I$(RTL_CARD_VDIR) -o $@ $< $(RTL_CARD_HARNESS_SRCS) $(RTL_CARD_MODEL) \
		$(RTL_VERILATED_OBJS) $(LIBQUIRE_SIM_A) $(LIBQUIRE_A) -lz -pthread $(LDLIBS)

# A bare-metal program for the card top, linked like the firmware: the DMA mover driven directly.
RTL_CARD_DMA_ELF := $(BUILD)/tests/rtl/card/card_dma.elf
$(RTL_CARD_DMA_ELF): tests/rtl/card_dma.c tests/rtl/card_dma.h tests/rtl/card_bare.h hls/quant.c hls/quant.h \
		firmware/crt0.S firmware/link.ld $(wildcard include/quire/*.h)
	@mkdir -p $(dir $@)
	$(RISCV_CC) $(FW_CROSS_FLAGS) -Wno-unknown-pragmas -Wno-unused-label -I. -T firmware/link.ld -o $@ \
		firmware/crt0.S $< hls/quant.c -lgcc

# Another: the MLP engine's window driven directly (its checks, in order, past the firmware's).
RTL_CARD_MLP_ELF := $(BUILD)/tests/rtl/card/card_mlp.elf
$(RTL_CARD_MLP_ELF): tests/rtl/card_mlp.c tests/rtl/card_bare.h hls/crc32.c firmware/crt0.S firmware/link.ld \
		$(wildcard include/quire/*.h) hls/crc32.h
	@mkdir -p $(dir $@)
	$(RISCV_CC) $(FW_CROSS_FLAGS) -I. -T firmware/link.ld -o $@ firmware/crt0.S $< hls/crc32.c -lgcc

# Another: the network port driven directly, its wire looped back by the harness.
RTL_CARD_NET_ELF := $(BUILD)/tests/rtl/card/card_net.elf
$(RTL_CARD_NET_ELF): tests/rtl/card_net.c tests/rtl/card_bare.h firmware/crt0.S firmware/link.ld $(wildcard include/quire/*.h)
	@mkdir -p $(dir $@)
	$(RISCV_CC) $(FW_CROSS_FLAGS) -I. -T firmware/link.ld -o $@ firmware/crt0.S $< -lgcc

# The card's programs, its firmware among them: `make rtl` leaves none stale.
rtl: $(RTL_CARD_TEST) $(FW_ELF) $(RTL_CARD_DMA_ELF) $(RTL_CARD_MLP_ELF) $(RTL_CARD_NET_ELF)

# `make test` runs them when verilator is installed (tests/run.sh says so otherwise).
ifeq ($(HAVE_VERILATOR),1)
test-programs: $(RTL_RUN) $(RTL_TEST_ELFS) $(RTL_CARD_TEST) $(FW_ELF) $(RTL_CARD_DMA_ELF) $(RTL_CARD_MLP_ELF) $(RTL_CARD_NET_ELF)
endif
rtl-test: $(RTL_RUN) $(RTL_TEST_ELFS) $(RTL_CARD_TEST) $(FW_ELF) $(RTL_CARD_DMA_ELF) $(RTL_CARD_MLP_ELF) $(RTL_CARD_NET_ELF)
	sh tests/rtl/run.sh $(BUILD)
	$(RTL_CARD_TEST) $(FW_ELF) $(RTL_CARD_DMA_ELF) $(RTL_CARD_MLP_ELF) $(RTL_CARD_NET_ELF)
.PHONY: rtl-test

# The fuzz corpus replayed on the RTL card (through its device, rtl_device.cpp) and on the emu.
RTL_CARD_FUZZ := $(BUILD)/tests/rtl/test_card_fuzz
$(BUILD)/tests/rtl/test_card_fuzz.o: tests/rtl/test_card_fuzz.c tests/fuzz/fuzz_host.h | $(BOARDS_H)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<
$(BUILD)/tests/fuzz/fuzz_host.o: tests/fuzz/fuzz_host.c tests/fuzz/fuzz_host.h
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<
$(RTL_CARD_FUZZ): $(BUILD)/tests/rtl/test_card_fuzz.o $(BUILD)/tests/fuzz/fuzz_host.o \
		$(RTL_DEVICE_SRCS) sim/rtl/rtl_device.h sim/rtl/card_harness.h sim/rtl/elf_image.h \
		$(RTL_CARD_MODEL) $(RTL_VERILATED_OBJS) $(LIBQUIRE_SIM_A) $(LIBQUIRE_A)
	@mkdir -p $(dir $@)
	$(CXX) $(RTL_CXXFLAGS) -I$(RTL_CARD_VDIR) $(LDFLAGS) -o $@ $(BUILD)/tests/rtl/test_card_fuzz.o \
		$(BUILD)/tests/fuzz/fuzz_host.o $(RTL_DEVICE_SRCS) $(RTL_CARD_MODEL) $(RTL_VERILATED_OBJS) \
		$(LIBQUIRE_SIM_A) $(LIBQUIRE_A) -lz -pthread $(LDLIBS)
rtl: $(RTL_CARD_FUZZ)
ifeq ($(HAVE_VERILATOR),1)
test-programs: $(RTL_CARD_FUZZ)
endif

# DECODE's mean (rtl/card/quire_card_mean.sv) alone against hls/, bit for bit.
RTL_MEAN_VDIR := $(BUILD)/rtl/verilated-mean
RTL_MEAN_TB := $(BUILD)/tests/rtl/tb_card_mean
$(RTL_MEAN_VDIR)/Vquire_card_mean.mk: rtl/card/quire_card_mean.sv
	@mkdir -p $(dir $@)
	$(VERILATOR) --cc -Wall -O3 --Mdir $(RTL_MEAN_VDIR) --top-module quire_card_mean $<
$(RTL_MEAN_VDIR)/Vquire_card_mean__ALL.a: $(RTL_MEAN_VDIR)/Vquire_card_mean.mk
	$(MAKE) -s -C $(RTL_MEAN_VDIR) -f Vquire_card_mean.mk OPT_FAST=-O2 Vquire_card_mean__ALL.a
$(RTL_MEAN_TB): tests/rtl/tb_card_mean.cpp $(RTL_MEAN_VDIR)/Vquire_card_mean__ALL.a \
		$(RTL_VERILATED_OBJS) $(BUILD)/hls/quant.o $(BUILD)/hls/reduce.o
	@mkdir -p $(dir $@)
	$(CXX) $(RTL_CXXFLAGS) -I$(RTL_MEAN_VDIR) -o $@ $< $(RTL_MEAN_VDIR)/Vquire_card_mean__ALL.a \
		$(RTL_VERILATED_OBJS) $(BUILD)/hls/quant.o $(BUILD)/hls/reduce.o -lz -pthread
rtl: $(RTL_MEAN_TB)
rtl-test: rtl-mean-test
rtl-mean-test: $(RTL_MEAN_TB)
	$(RTL_MEAN_TB)
.PHONY: rtl-mean-test
ifeq ($(HAVE_VERILATOR),1)
test-programs: $(RTL_MEAN_TB)
endif

# The network port's CRC-32 of a beat (rtl/card/quire_crc32_pkg.sv) alone against hls/crc32.c.
RTL_CRC_VDIR := $(BUILD)/rtl/verilated-crc32
RTL_CRC_TB := $(BUILD)/tests/rtl/tb_crc32
RTL_CRC_SRCS := rtl/card/quire_crc32_pkg.sv tests/rtl/tb_crc32_top.sv
# $(1): the model's directory, $(2): the testbench, $(3): the package it is built from
# (Crc32Init, unused by the wrapper, is the port's).
define rtl_crc_tb
$(1)/Vtb_crc32_top.mk: $(3) tests/rtl/tb_crc32_top.sv
	@mkdir -p $$(dir $$@)
	$$(VERILATOR) --cc -Wall -Wno-UNUSEDPARAM -O3 --Mdir $(1) --top-module tb_crc32_top $(3) tests/rtl/tb_crc32_top.sv
$(1)/Vtb_crc32_top__ALL.a: $(1)/Vtb_crc32_top.mk
	$$(MAKE) -s -C $(1) -f Vtb_crc32_top.mk OPT_FAST=-O2 Vtb_crc32_top__ALL.a
$(2): tests/rtl/tb_crc32.cpp $(1)/Vtb_crc32_top__ALL.a $$(RTL_VERILATED_OBJS) $$(BUILD)/hls/crc32.o
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(RTL_CXXFLAGS) -I$(1) -o $$@ $$< $(1)/Vtb_crc32_top__ALL.a \
		$$(RTL_VERILATED_OBJS) $$(BUILD)/hls/crc32.o -lz -pthread
endef
$(eval $(call rtl_crc_tb,$(RTL_CRC_VDIR),$(RTL_CRC_TB),rtl/card/quire_crc32_pkg.sv))
rtl: $(RTL_CRC_TB)
rtl-test: rtl-crc-test
rtl-crc-test: $(RTL_CRC_TB)
	$(RTL_CRC_TB)
.PHONY: rtl-crc-test
ifeq ($(HAVE_VERILATOR),1)
test-programs: $(RTL_CRC_TB)
endif
# `make rtl-crc-fault`: the same testbench on a copy of the package with one bit of its
# matrix flipped (row 7, beat bit 300); it must fail, or the target does.
RTL_CRC_FAULT_PKG := $(BUILD)/rtl/crc32-fault/quire_crc32_pkg.sv
$(RTL_CRC_FAULT_PKG): rtl/card/quire_crc32_pkg.sv
	@mkdir -p $(dir $@)
	sed 's/^\([[:space:]]*\)crc32_beat_rows = rows;/\1rows[512*7 + 300] = !rows[512*7 + 300];\n&/' $< >$@.tmp
	grep -q 'rows\[512\*7 + 300\] = !' $@.tmp
	mv $@.tmp $@
$(eval $(call rtl_crc_tb,$(BUILD)/rtl/crc32-fault/verilated,$(BUILD)/rtl/crc32-fault/tb_crc32,$(RTL_CRC_FAULT_PKG)))
rtl-crc-fault: $(BUILD)/rtl/crc32-fault/tb_crc32
	if $(BUILD)/rtl/crc32-fault/tb_crc32; then echo "rtl-crc-fault: the flipped bit went unseen"; exit 1; \
	else echo "rtl-crc-fault: the testbench caught the flipped matrix bit"; fi
.PHONY: rtl-crc-fault

# The checkers of rtl/assert/ alone (tests/rtl/tb_assert_top.sv): they stop what breaks
# their rules and let through what keeps them.
RTL_ASSERT_VDIR := $(BUILD)/rtl/verilated-assert
RTL_ASSERT_TB := $(BUILD)/tests/rtl/tb_assert
$(RTL_ASSERT_VDIR)/Vtb_assert_top.mk: tests/rtl/tb_assert_top.sv $(RTL_ASSERT_SRCS)
	@mkdir -p $(dir $@)
	$(VERILATOR) --cc -Wall -O3 $(RTL_ASSERT_FLAGS) --Mdir $(RTL_ASSERT_VDIR) \
		--top-module tb_assert_top $< $(filter-out rtl/assert/quire_binds.sv,$(RTL_ASSERT_SRCS))
$(RTL_ASSERT_VDIR)/Vtb_assert_top__ALL.a: $(RTL_ASSERT_VDIR)/Vtb_assert_top.mk
	$(MAKE) -s -C $(RTL_ASSERT_VDIR) -f Vtb_assert_top.mk OPT_FAST=-O2 Vtb_assert_top__ALL.a
$(RTL_ASSERT_TB): tests/rtl/tb_assert.cpp $(RTL_ASSERT_VDIR)/Vtb_assert_top__ALL.a $(RTL_VERILATED_OBJS)
	@mkdir -p $(dir $@)
	$(CXX) $(RTL_CXXFLAGS) -I$(RTL_ASSERT_VDIR) -o $@ $< $(RTL_ASSERT_VDIR)/Vtb_assert_top__ALL.a \
		$(RTL_VERILATED_OBJS) -lz -pthread
rtl: $(RTL_ASSERT_TB)
ifeq ($(HAVE_VERILATOR),1)
test-programs: $(RTL_ASSERT_TB)
endif
