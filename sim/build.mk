# SPDX-License-Identifier: MIT
# The card models and quire-sim. The emu model and the native firmware also make
# libquire_sim (host/build.mk), which libquire loads for sim:inproc.
SIM_SRCS := sim/emu/emu.c sim/emu/queue.c sim/emu/engines.c sim/emu/netport.c sim/reliable_link.c sim/wire.c sim/wire_udp.c \
	sim/wire_udp_rendezvous.c sim/clock.c sim/crc32_fast.c \
	sim/locate.c
SIM_OBJS := $(SIM_SRCS:%.c=$(BUILD)/%.o)
QUIRE_HW_BUILD := 0x$(shell git rev-parse --short=8 HEAD 2>/dev/null || echo 0)
EXTRA_CFLAGS_sim/emu/emu.c := -DQUIRE_FW_NATIVE -DQUIRE_HW_BUILD_ID=$(QUIRE_HW_BUILD)u
# The card's state (sim/emu/emu_state.h) holds the native firmware's struct quire_fw: every
# file that includes it sees the native build's.
EXTRA_CFLAGS_sim/emu/queue.c := -DQUIRE_FW_NATIVE
QUIRE_SIM := $(BUILD)/bin/quire-sim
QUIRE_CLUSTER := $(BUILD)/bin/quire-cluster

# sim/ivshmem.c: the second front end, quire-sim --ivshmem (a card for a QEMU guest).
$(QUIRE_SIM): $(BUILD)/sim/server.o $(BUILD)/sim/ivshmem.o $(LIBQUIRE_SIM_A) $(LIBQUIRE_A)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/sim/ivshmem.o $(LIBQUIRE_SIM_A) $(LIBQUIRE_A) -lpthread $(LDLIBS)

all: $(QUIRE_SIM)

install: install-sim
install-sim: $(QUIRE_SIM) $(QUIRE_CLUSTER)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(QUIRE_SIM) $(QUIRE_CLUSTER) $(DESTDIR)$(PREFIX)/bin/
.PHONY: install-sim

# The simulated cluster's launcher: W quire-sim cards around one command.
$(QUIRE_CLUSTER): $(BUILD)/sim/cluster.o $(BUILD)/sim/locate.o \
		$(BUILD)/sim/wire_udp_rendezvous.o $(BUILD)/sim/clock.o
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
all: $(QUIRE_CLUSTER)

# The emu's engines alone, golden beside fast (sim/bench_engines.c, docs/card.md).
QUIRE_BENCH_EMU := $(BUILD)/bin/quire-bench-emu
$(QUIRE_BENCH_EMU): $(BUILD)/sim/bench_engines.o $(LIBQUIRE_SIM_A)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $< $(LIBQUIRE_SIM_A) -lpthread $(LDLIBS)
all: $(QUIRE_BENCH_EMU)
