# SPDX-License-Identifier: MIT
# The card models and quire-sim. The emu model and the native firmware also make
# libquire_sim (host/build.mk), which libquire loads for sim:inproc.
SIM_SRCS := sim/emu/emu.c sim/emu/engines.c sim/emu/netport.c sim/netlink.c sim/netudp.c sim/netboot.c sim/crc32_fast.c \
	sim/locate.c
SIM_OBJS := $(SIM_SRCS:%.c=$(BUILD)/%.o)
QUIRE_HW_BUILD := 0x$(shell git rev-parse --short=8 HEAD 2>/dev/null || echo 0)
EXTRA_CFLAGS_sim/emu/emu.c := -DQUIRE_FW_NATIVE -DQUIRE_HW_BUILD_ID=$(QUIRE_HW_BUILD)u
QUIRE_SIM := $(BUILD)/bin/quire-sim
QUIRE_CLUSTER := $(BUILD)/bin/quire-cluster

# sim/ivshmem.c: the second front end, quire-sim --ivshmem (a card for a QEMU guest).
# It links no libquire: the status strings are the contract's (contract/build.mk), and
# sim/locate.c finds the RTL model's program beside it.
QUIRE_SIM_OBJS := $(BUILD)/sim/server.o $(BUILD)/sim/ivshmem.o $(BUILD)/sim/locate.o \
	$(CONTRACT_OBJS)
$(QUIRE_SIM): $(QUIRE_SIM_OBJS) $(LIBQUIRE_SIM_A)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(QUIRE_SIM_OBJS) $(LIBQUIRE_SIM_A) -lpthread $(LDLIBS)

all: $(QUIRE_SIM)

install: install-sim
install-sim: $(QUIRE_SIM) $(QUIRE_CLUSTER)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(QUIRE_SIM) $(QUIRE_CLUSTER) $(DESTDIR)$(PREFIX)/bin/
.PHONY: install-sim

# The simulated cluster's launcher: W quire-sim cards around one command.
$(QUIRE_CLUSTER): $(BUILD)/sim/cluster.o $(BUILD)/sim/locate.o $(BUILD)/sim/netboot.o
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
all: $(QUIRE_CLUSTER)

# The emu's engines alone, golden beside fast (sim/bench_engines.c, docs/card.md).
QUIRE_BENCH_EMU := $(BUILD)/bin/quire-bench-emu
$(QUIRE_BENCH_EMU): $(BUILD)/sim/bench_engines.o $(LIBQUIRE_SIM_A)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $< $(LIBQUIRE_SIM_A) -lpthread $(LDLIBS)
all: $(QUIRE_BENCH_EMU)
