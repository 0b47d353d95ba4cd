# SPDX-License-Identifier: MIT
# quire-rv32-run: the rv32im core's test machine (quire_rv32_sim_top.sv)
# verilated single-threaded, with the C++ runner around it. The model's
# generated C++ is compiled by Verilator's own makefile with its flags; the
# runner is ours and gets -Wall -Wextra -Werror, with Verilator's headers as
# system headers.
RTL_MAP_PKG := $(BUILD)/rtl/quire_rv32_sim_map_pkg.sv
RTL_SIM_SRCS := $(RTL_MAP_PKG) $(RTL_CORE_SRCS) sim/rtl/quire_rv32_sim_top.sv
RTL_VDIR := $(BUILD)/rtl/verilated
RTL_MODEL := $(RTL_VDIR)/Vquire_rv32_sim_top__ALL.a
RTL_RUN := $(BUILD)/bin/quire-rv32-run
CXX ?= g++
RTL_VERILATOR_INC = $(shell $(VERILATOR) --getenv VERILATOR_ROOT)/include
RTL_VERILATED_OBJS := $(RTL_VDIR)/verilated.o $(RTL_VDIR)/verilated_fst_c.o \
	$(RTL_VDIR)/verilated_threads.o

# The memory map, written once in include/quire/rv32_sim.h.
$(RTL_MAP_PKG): include/quire/rv32_sim.h $(RTL_GEN_PKG)
	@mkdir -p $(dir $@)
	CC="$(CC)" sh $(RTL_GEN_PKG) quire_rv32_sim_map_pkg QUIRE_RV32_SIM_ $< >$@.tmp
	mv $@.tmp $@

$(RTL_VDIR)/Vquire_rv32_sim_top.mk: $(RTL_SIM_SRCS)
	@mkdir -p $(dir $@)
	$(VERILATOR) --cc -Wall --trace-fst -O3 --x-assign fast --x-initial fast \
		--Mdir $(RTL_VDIR) --top-module quire_rv32_sim_top $(RTL_SIM_SRCS)

# Both outputs of one recursive make: the model and Verilator's run-time objects.
$(RTL_MODEL): $(RTL_VDIR)/Vquire_rv32_sim_top.mk
	$(MAKE) -s -C $(RTL_VDIR) -f Vquire_rv32_sim_top.mk OPT_FAST=-O2 \
		Vquire_rv32_sim_top__ALL.a $(notdir $(RTL_VERILATED_OBJS))
$(RTL_VERILATED_OBJS): $(RTL_MODEL)

RTL_CXXFLAGS = -std=c++17 -O2 $(WARN) $(SAN_FLAGS) -Iinclude -I. -isystem $(RTL_VERILATOR_INC) \
	-isystem $(RTL_VERILATOR_INC)/vltstd
RTL_ELF_SRCS := sim/rtl/elf_image.cpp sim/rtl/elf_image.h

$(RTL_RUN): sim/rtl/run_main.cpp $(RTL_ELF_SRCS) $(RTL_MODEL) $(RTL_VERILATED_OBJS) include/quire/rv32_sim.h
	@mkdir -p $(dir $@)
	$(CXX) $(RTL_CXXFLAGS) -I$(RTL_VDIR) -o $@ $< sim/rtl/elf_image.cpp $(RTL_MODEL) \
		$(RTL_VERILATED_OBJS) -lz -pthread

rtl: $(RTL_RUN)
.PHONY: rtl

# The card top (rtl/card/) verilated the same way, and its harness (card_harness.cpp):
# host memory and BAR0 accesses for a C++ program (tests/rtl/test_card_top.cpp).
RTL_CARD_VDIR := $(BUILD)/rtl/verilated-card
RTL_CARD_MODEL := $(RTL_CARD_VDIR)/Vquire_card_top__ALL.a
RTL_CARD_HARNESS_SRCS := sim/rtl/card_harness.cpp sim/rtl/elf_image.cpp

# sim/rtl/card_public.vlt makes public the few signals the harness looks at to let an idle
# card sleep (the core in WFI, the wake-up time, the cycle counter).
RTL_CARD_VLT := sim/rtl/card_public.vlt
# The checkers of rtl/assert/ ride along (RTL_ASSERT_SRCS, rtl/engines/build.mk): a card
# whose streams or host port break their rules stops with the rule's name.
$(RTL_CARD_VDIR)/Vquire_card_top.mk: $(RTL_CARD_SRCS) $(RTL_CARD_VLT) firmware/link.ld \
		$(RTL_ASSERT_SRCS)
	@mkdir -p $(dir $@)
	$(VERILATOR) --cc -Wall -O3 --x-assign fast --x-initial fast $(RTL_ASSERT_FLAGS) \
		$(RTL_CARD_PARAMS) --Mdir $(RTL_CARD_VDIR) --top-module quire_card_top $(RTL_CARD_VLT) \
		$(RTL_CARD_SRCS) $(RTL_ASSERT_SRCS)

$(RTL_CARD_MODEL): $(RTL_CARD_VDIR)/Vquire_card_top.mk
	$(MAKE) -s -C $(RTL_CARD_VDIR) -f Vquire_card_top.mk OPT_FAST=-O2 Vquire_card_top__ALL.a

# quire-sim-rtl: quire-sim (sim/server.c, QUIRE_SIM_RTL defined) with the RTL card behind
# sim/device.h (rtl_device.cpp) linked beside the emu; `quire-sim --model rtl` runs it.
# Built by `make rtl` (and for `make test`) where verilator is installed, never by `make`:
# quire-sim itself needs no Verilator.
QUIRE_SIM_RTL := $(BUILD)/bin/quire-sim-rtl
RTL_DEVICE_SRCS := sim/rtl/rtl_device.cpp $(RTL_CARD_HARNESS_SRCS)

$(BUILD)/sim/server-rtl.o: sim/server.c | $(BOARDS_H)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -DQUIRE_SIM_RTL -c -o $@ $<

$(QUIRE_SIM_RTL): $(BUILD)/sim/server-rtl.o $(BUILD)/sim/ivshmem.o $(RTL_DEVICE_SRCS) sim/rtl/rtl_device.h \
		sim/rtl/card_harness.h sim/rtl/elf_image.h $(RTL_CARD_MODEL) $(RTL_VERILATED_OBJS) \
		$(LIBQUIRE_SIM_A) $(LIBQUIRE_A)
	@mkdir -p $(dir $@)
	$(CXX) $(RTL_CXXFLAGS) -I$(RTL_CARD_VDIR) $(LDFLAGS) -o $@ $(BUILD)/sim/server-rtl.o \
		$(BUILD)/sim/ivshmem.o $(RTL_DEVICE_SRCS) $(RTL_CARD_MODEL) $(RTL_VERILATED_OBJS) $(LIBQUIRE_SIM_A) \
		$(LIBQUIRE_A) -lz -pthread $(LDLIBS)

rtl: $(QUIRE_SIM_RTL)
ifeq ($(HAVE_VERILATOR),1)
test-programs: $(QUIRE_SIM_RTL)
endif

# quire-bench-rtl: the RTL card's figures in card cycles (`quire bench card --model rtl`);
# with --ring N, the all-reduce on N cards in lockstep (card_ring.cpp, ring_bench.cpp),
# checked against the golden model (HLS_GOLDEN_OBJ).
QUIRE_BENCH_RTL := $(BUILD)/bin/quire-bench-rtl
RTL_RING_SRCS := sim/rtl/card_ring.cpp sim/rtl/ring_bench.cpp
$(QUIRE_BENCH_RTL): sim/rtl/bench_main.cpp $(RTL_CARD_HARNESS_SRCS) $(RTL_RING_SRCS) \
		sim/rtl/card_harness.h sim/rtl/card_ring.h sim/rtl/ring_bench.h sim/rtl/elf_image.h \
		$(RTL_CARD_MODEL) $(RTL_VERILATED_OBJS) $(HLS_GOLDEN_OBJ) $(LIBQUIRE_A)
	@mkdir -p $(dir $@)
	$(CXX) $(RTL_CXXFLAGS) -I$(RTL_CARD_VDIR) $(LDFLAGS) -o $@ $< $(RTL_CARD_HARNESS_SRCS) \
		$(RTL_RING_SRCS) $(RTL_CARD_MODEL) $(RTL_VERILATED_OBJS) $(HLS_GOLDEN_OBJ) \
		$(LIBQUIRE_A) -lz -pthread $(LDLIBS)
rtl: $(QUIRE_BENCH_RTL)
ifeq ($(HAVE_VERILATOR),1)
test-programs: $(QUIRE_BENCH_RTL)
endif

# Its network program (--net-elf, or found beside the firmware): bare metal, linked like it.
QUIRE_NET_RATE_ELF := $(BUILD)/firmware/quire-net-rate.elf
$(QUIRE_NET_RATE_ELF): sim/rtl/net_rate.c firmware/crt0.S firmware/link.ld $(wildcard include/quire/*.h)
	@mkdir -p $(dir $@)
	$(RISCV_CC) $(FW_CROSS_FLAGS) -I. -T firmware/link.ld -o $@ firmware/crt0.S $< -lgcc
rtl: $(QUIRE_NET_RATE_ELF)
ifeq ($(HAVE_VERILATOR),1)
test-programs: $(QUIRE_NET_RATE_ELF)
endif

# make install: the RTL card's programs and the firmware they run (quire_fw_locate finds it in
# ../share/quire from the programs), where verilator and the cross compiler built them.
ifeq ($(HAVE_VERILATOR),1)
ifneq ($(shell command -v $(RISCV_CC) 2>/dev/null),)
install: install-rtl
endif
endif
install-rtl: $(QUIRE_SIM_RTL) $(QUIRE_BENCH_RTL) $(FW_ELF) $(QUIRE_NET_RATE_ELF)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/quire
	install -m 755 $(QUIRE_SIM_RTL) $(QUIRE_BENCH_RTL) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(FW_ELF) $(QUIRE_NET_RATE_ELF) $(DESTDIR)$(PREFIX)/share/quire/
uninstall: uninstall-rtl
uninstall-rtl:
	rm -f $(DESTDIR)$(PREFIX)/bin/quire-sim-rtl $(DESTDIR)$(PREFIX)/bin/quire-bench-rtl \
		$(DESTDIR)$(PREFIX)/share/quire/quire-fw.elf $(DESTDIR)$(PREFIX)/share/quire/quire-net-rate.elf
	-rmdir $(DESTDIR)$(PREFIX)/share/quire 2>/dev/null
.PHONY: install-rtl uninstall-rtl
