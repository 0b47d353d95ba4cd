# SPDX-License-Identifier: MIT
# The card models and quire-sim. The emu model and the native firmware also make
# libquire_sim (below), which libquire loads for sim:inproc.
SIM_SRCS := sim/emu/emu.c sim/emu/queue.c sim/emu/engines.c sim/emu/netport.c sim/reliable_link.c sim/wire.c sim/wire_udp.c \
	sim/wire_udp_rendezvous.c sim/wire_udp_rdv_auth.c sim/job_key.c sim/frame_auth.c sim/clock.c \
	sim/crc32_fast.c
# The UDP network's tags and the rendezvous' proofs: HMAC-SHA256 of OpenSSL's libcrypto
# (libssl-dev, mk/debian-packages.txt), in every program that links the card models.
LDLIBS += -lcrypto
SIM_OBJS := $(SIM_SRCS:%.c=$(BUILD)/%.o)
QUIRE_HW_BUILD := 0x$(shell git rev-parse --short=8 HEAD 2>/dev/null || echo 0)
EXTRA_CFLAGS_sim/emu/emu.c := -DQUIRE_FW_NATIVE -DQUIRE_HW_BUILD_ID=$(QUIRE_HW_BUILD)u
# The card's state (sim/emu/emu_state.h) holds the native firmware's struct quire_fw: every
# file that includes it sees the native build's.
EXTRA_CFLAGS_sim/emu/queue.c := -DQUIRE_FW_NATIVE
QUIRE_SIM := $(BUILD)/bin/quire-sim
QUIRE_CLUSTER := $(BUILD)/bin/quire-cluster

# libquire_sim: the card model in a process (inproc_card.c over the emu, its network port,
# the native firmware, the kernels and the CPU codec, which the emu's fast engines call), for
# sim:inproc and the tests; libquire loads it on demand (sim/inproc.h). It exports
# quire_sim_inproc_open alone (sim/libquire_sim.map) and needs no libquire to load.
LIBQUIRE_SIM_OBJS := $(BUILD)/sim/inproc_card.o $(SIM_OBJS) $(FW_NATIVE_OBJS) $(HLS_OBJS) $(CODEC_OBJS)
LIBQUIRE_SIM_A  := $(BUILD)/lib/libquire_sim.a
LIBQUIRE_SIM_SO := $(BUILD)/lib/libquire_sim.so.$(QUIRE_VERSION)
$(LIBQUIRE_SIM_A): $(LIBQUIRE_SIM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBQUIRE_SIM_SO): $(LIBQUIRE_SIM_OBJS) sim/libquire_sim.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libquire_sim.so.$(QUIRE_SOVERSION) \
		-Wl,--version-script=sim/libquire_sim.map $(SAN_FLAGS) $(LDFLAGS) -o $@ \
		$(LIBQUIRE_SIM_OBJS) $(LDLIBS)
	ln -sf libquire_sim.so.$(QUIRE_VERSION) $(BUILD)/lib/libquire_sim.so.$(QUIRE_SOVERSION)
all: $(LIBQUIRE_SIM_A) $(LIBQUIRE_SIM_SO)

# sim/ivshmem.c: the second front end, quire-sim --ivshmem (a card for a QEMU guest).
# It links no libquire: the status strings are the contract's (contract/build.mk).
QUIRE_SIM_OBJS := $(BUILD)/sim/server.o $(BUILD)/sim/ivshmem.o $(CONTRACT_OBJS)
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
$(QUIRE_CLUSTER): $(BUILD)/sim/cluster.o $(BUILD)/sim/wire_udp_rendezvous.o \
		$(BUILD)/sim/wire_udp_rdv_auth.o $(BUILD)/sim/job_key.o $(BUILD)/sim/frame_auth.o \
		$(BUILD)/sim/clock.o
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
all: $(QUIRE_CLUSTER)

# The emu's engines alone, golden beside fast (sim/bench_engines.c, docs/card.md).
QUIRE_BENCH_EMU := $(BUILD)/bin/quire-bench-emu
$(QUIRE_BENCH_EMU): $(BUILD)/sim/bench_engines.o $(LIBQUIRE_SIM_A)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $< $(LIBQUIRE_SIM_A) -lpthread $(LDLIBS)
all: $(QUIRE_BENCH_EMU)
