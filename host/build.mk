# SPDX-License-Identifier: MIT
# libquire (static and shared) and the quire CLI.
LIB_SRCS := host/src/status.c host/src/codec/codec.c host/src/codec/allreduce.c \
	host/src/codec/encoded_file.c host/src/codec/simd_avx2.c host/src/codec/simd_avx512.c \
	host/src/core/context.c host/src/core/request.c host/src/core/model.c host/src/core/model_check.c host/src/backend/cpu.c \
	host/src/backend/sim.c host/src/backend/window.c host/src/backend/transport_inproc.c \
	host/src/backend/transport_socket.c host/src/backend/kdrv.c host/src/backend/xrt.c host/src/backend/opencl.c host/src/comm/collective.c host/src/comm/ring.c host/src/comm/card.c \
	host/src/comm/rendezvous.c host/src/comm/requant.c
# The kernels' C (the scalar codec, the cpu backend's engines) and the firmware's descriptor
# rules (include/quire/validate.h) are part of it; the card model is not (libquire_sim).
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(HLS_OBJS) $(BUILD)/fw-native/firmware/validate.o \
	$(BUILD)/sim/locate.o
EXTRA_CFLAGS_host/src/codec/simd_avx2.c := -mavx2 -mf16c
EXTRA_CFLAGS_host/src/codec/simd_avx512.c := -mavx512f
# The ring's partial sums are plain loops, one chain per element: -O3 vectorizes them (same bits).
EXTRA_CFLAGS_host/src/comm/ring.c := -O3
# kdrv builds against libdrm's headers (libdrm-dev) but loads libdrm.so.2 with dlopen when a
# context asks for it: libquire itself runs where libdrm is not installed.
LIBDRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null)
ifeq ($(LIBDRM_CFLAGS),)
LIBDRM_CFLAGS := -I/usr/include/libdrm
endif
EXTRA_CFLAGS_host/src/backend/kdrv.c := $(LIBDRM_CFLAGS)
# xrt builds against XRT's headers (libxrt-dev) and loads libxrt_coreutil.so.2 with dlopen
# when a context asks for it, the same way.
XRT_CFLAGS := -I/usr/include/xrt
EXTRA_CFLAGS_host/src/backend/xrt.c := $(XRT_CFLAGS)
# opencl builds against the OpenCL headers (ocl-icd-opencl-dev) and loads libOpenCL.so.1 with
# dlopen; the kernels' C is embedded, generated from hls/ (hls/build.mk).
$(BUILD)/host/src/backend/opencl.o: $(OPENCL_SOURCE_H)

LIBQUIRE_A  := $(BUILD)/lib/libquire.a
LIBQUIRE_SO := $(BUILD)/lib/libquire.so.$(QUIRE_VERSION)

# libquire_sim: the card model in a process (the emu, its network port, the native firmware
# and the kernels), for sim:inproc and the tests; libquire loads it on demand. It exports
# quire_sim_inproc_open alone (host/libquire_sim.map). The emu's fast engines call the CPU
# codec through libquire's public API, so the codec's objects (built once, from the one
# copy in src/codec/) go into libquire_sim too: it needs no libquire to load.
CODEC_OBJS := $(BUILD)/host/src/codec/codec.o $(BUILD)/host/src/codec/simd_avx2.o \
	$(BUILD)/host/src/codec/simd_avx512.o
LIBQUIRE_SIM_OBJS := $(BUILD)/host/src/backend/inproc_card.o $(BUILD)/sim/emu/emu.o \
	$(BUILD)/sim/emu/engines.o $(BUILD)/sim/emu/netport.o $(BUILD)/sim/netlink.o $(BUILD)/sim/netudp.o \
	$(BUILD)/sim/netboot.o \
	$(BUILD)/sim/crc32_fast.o \
	$(FW_NATIVE_OBJS) $(HLS_OBJS) $(CODEC_OBJS)
LIBQUIRE_SIM_A  := $(BUILD)/lib/libquire_sim.a
LIBQUIRE_SIM_SO := $(BUILD)/lib/libquire_sim.so.$(QUIRE_VERSION)
$(LIBQUIRE_SIM_A): $(LIBQUIRE_SIM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(LIBQUIRE_SIM_SO): $(LIBQUIRE_SIM_OBJS) host/libquire_sim.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libquire_sim.so.$(QUIRE_SOVERSION) \
		-Wl,--version-script=host/libquire_sim.map $(SAN_FLAGS) $(LDFLAGS) -o $@ \
		$(LIBQUIRE_SIM_OBJS) $(LDLIBS)
	ln -sf libquire_sim.so.$(QUIRE_VERSION) $(BUILD)/lib/libquire_sim.so.$(QUIRE_SOVERSION)
all: $(LIBQUIRE_SIM_A) $(LIBQUIRE_SIM_SO)

# The all-reduce benchmark's ranks (an MPI program) are built on their own, below.
BENCH_ALLREDUCE_SRCS := host/cli/bench_allreduce_mpi.c host/cli/bench_goals.c
CLI_SRCS := $(filter-out $(BENCH_ALLREDUCE_SRCS),$(wildcard host/cli/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
QUIRE_CLI := $(BUILD)/bin/quire

all: $(LIBQUIRE_A) $(LIBQUIRE_SO) $(QUIRE_CLI)

$(LIBQUIRE_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# Only the public API is exported (host/libquire.map). Its run path is its own directory,
# where it finds libquire_sim when a context asks for sim:inproc.
$(LIBQUIRE_SO): $(LIB_OBJS) host/libquire.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libquire.so.$(QUIRE_SOVERSION) -Wl,--version-script=host/libquire.map \
		-Wl,-rpath,'$$ORIGIN' $(SAN_FLAGS) $(LDFLAGS) -o $@ $(LIB_OBJS) $(LDLIBS)
	ln -sf libquire.so.$(QUIRE_VERSION) $(BUILD)/lib/libquire.so.$(QUIRE_SOVERSION)
	ln -sf libquire.so.$(QUIRE_SOVERSION) $(BUILD)/lib/libquire.so

# The CLI links the shared library and finds it beside itself, built or installed, and the
# scheduler's replay (sched/, not part of libquire).
$(QUIRE_CLI): $(CLI_OBJS) $(SCHED_OBJS) $(LIBQUIRE_SO)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(SCHED_OBJS) -L$(BUILD)/lib -lquire \
		-Wl,-rpath,'$$ORIGIN/../lib' $(SCHED_LIBS) $(LDLIBS)

# The contract headers a program of libquire's users may include (<quire.h> includes some
# of them; quire_drm.h is the driver's uAPI): all of include/quire/ but what only the card,
# its models and the driver use. tests/public_headers.sh checks these (make public-headers).
QUIRE_INTERNAL_HEADERS := include/quire/card.h include/quire/ivshmem.h include/quire/rv32_sim.h \
	include/quire/validate.h
QUIRE_PUBLIC_HEADERS := $(filter-out $(QUIRE_INTERNAL_HEADERS),$(wildcard include/quire/*.h))
public-headers:
	@echo $(notdir $(wildcard host/include/*.h)) $(QUIRE_PUBLIC_HEADERS:include/%=%)
.PHONY: public-headers

install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include/quire $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LIBQUIRE_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBQUIRE_SO) $(LIBQUIRE_SIM_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libquire_sim.so.$(QUIRE_VERSION) $(DESTDIR)$(LIBDIR)/libquire_sim.so.$(QUIRE_SOVERSION)
	ln -sf libquire.so.$(QUIRE_VERSION) $(DESTDIR)$(LIBDIR)/libquire.so.$(QUIRE_SOVERSION)
	ln -sf libquire.so.$(QUIRE_SOVERSION) $(DESTDIR)$(LIBDIR)/libquire.so
	install -m 644 host/include/quire.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(QUIRE_PUBLIC_HEADERS) $(BOARDS_H) $(DESTDIR)$(PREFIX)/include/quire/
	# quire.pc is written here, from the PREFIX and LIBDIR of this very install.
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(QUIRE_VERSION)|' \
		host/quire.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/quire.pc
	install -m 755 $(QUIRE_CLI) $(DESTDIR)$(PREFIX)/bin/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libquire.* $(DESTDIR)$(LIBDIR)/libquire_mpi.* \
		$(DESTDIR)$(LIBDIR)/libquire_sim.* \
		$(DESTDIR)$(LIBDIR)/pkgconfig/quire.pc $(DESTDIR)$(LIBDIR)/pkgconfig/quire_mpi.pc \
		$(DESTDIR)$(PREFIX)/include/quire.h \
		$(DESTDIR)$(PREFIX)/include/quire_mpi.h $(DESTDIR)$(PREFIX)/bin/quire \
		$(DESTDIR)$(PREFIX)/bin/quire-sim $(DESTDIR)$(PREFIX)/bin/quire-cluster \
		$(DESTDIR)$(PREFIX)/bin/quire-bench-allreduce
	rm -rf $(DESTDIR)$(PREFIX)/include/quire

# The codec's figures, quoted by README.md and docs/codec.md from this one file: a line naming the
# date, CPU and commit, then what the bench prints. BENCH_OUT= writes them elsewhere.
BENCH_OUT ?= docs/figures/codec.txt
bench: $(QUIRE_CLI)
	@mkdir -p $(dir $(BENCH_OUT))
	@{ printf 'make bench, %s, %s, %s cores, commit %s\n' "$$(date -u +%Y-%m-%d)" \
		"$$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)" \
		"$$(nproc)" "$$(git rev-parse --short HEAD 2>/dev/null || echo none)" && \
		$(QUIRE_CLI) bench codec --size 64MiB; } >$(BENCH_OUT).tmp && \
		mv $(BENCH_OUT).tmp $(BENCH_OUT) && cat $(BENCH_OUT) || { rm -f $(BENCH_OUT).tmp; exit 1; }

# libquire_mpi: communicators over MPI for the cpu backend, built where MPI is installed.
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS := $(shell pkg-config --libs ompi-c 2>/dev/null)
MPIRUN ?= mpirun
ifneq ($(MPI_LIBS),)
LIBQUIRE_MPI_SO := $(BUILD)/lib/libquire_mpi.so.$(QUIRE_VERSION)
EXTRA_CFLAGS_host/src/comm/mpi.c := $(MPI_CFLAGS)
$(LIBQUIRE_MPI_SO): $(BUILD)/host/src/comm/mpi.o $(LIBQUIRE_SO)
	$(CC) -shared -Wl,-soname,libquire_mpi.so.$(QUIRE_SOVERSION) $(SAN_FLAGS) $(LDFLAGS) -o $@ $< \
		-L$(BUILD)/lib -lquire $(MPI_LIBS)
	ln -sf libquire_mpi.so.$(QUIRE_VERSION) $(BUILD)/lib/libquire_mpi.so.$(QUIRE_SOVERSION)
	ln -sf libquire_mpi.so.$(QUIRE_SOVERSION) $(BUILD)/lib/libquire_mpi.so
all: $(LIBQUIRE_MPI_SO)

# The all-reduce benchmark runs under mpirun; `quire bench allreduce` starts it.
BENCH_ALLREDUCE := $(BUILD)/bin/quire-bench-allreduce
EXTRA_CFLAGS_host/cli/bench_allreduce_mpi.c := $(MPI_CFLAGS)
$(BENCH_ALLREDUCE): $(BENCH_ALLREDUCE_SRCS:%.c=$(BUILD)/%.o) $(LIBQUIRE_MPI_SO)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(BUILD)/lib -lquire_mpi -lquire \
		-Wl,-rpath,'$$ORIGIN/../lib' $(MPI_LIBS) $(LDLIBS)
all: $(BENCH_ALLREDUCE)

# Gloo's ring all-reduce beside quire's under `quire bench allreduce --link`, where
# libgloo-dev is installed.
ifneq ($(wildcard /usr/include/gloo/allreduce_ring_chunked.h),)
BENCH_GLOO := $(BUILD)/bin/quire-bench-gloo
$(BENCH_GLOO): host/cli/bench_allreduce_gloo.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -Wall -Wextra -Werror $(SAN_FLAGS) $(LDFLAGS) -o $@ $< -lgloo
all: $(BENCH_GLOO)
endif
install: install-mpi
install-mpi: $(LIBQUIRE_MPI_SO)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(LIBQUIRE_MPI_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libquire_mpi.so.$(QUIRE_VERSION) $(DESTDIR)$(LIBDIR)/libquire_mpi.so.$(QUIRE_SOVERSION)
	ln -sf libquire_mpi.so.$(QUIRE_SOVERSION) $(DESTDIR)$(LIBDIR)/libquire_mpi.so
	install -m 644 host/include/quire_mpi.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(QUIRE_VERSION)|' \
		host/quire_mpi.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/quire_mpi.pc
	install -m 755 $(BENCH_ALLREDUCE) $(DESTDIR)$(PREFIX)/bin/
.PHONY: install-mpi
else
$(info note: MPI not found: libquire_mpi is not built (install libopenmpi-dev))
endif
