# SPDX-License-Identifier: MIT
# libquire (static and shared) and libquire_mpi.
LIB_SRCS := host/src/format.c host/src/codec/api.c host/src/codec/allreduce.c \
	host/src/codec/encoded_file.c \
	host/src/core/context.c host/src/core/request.c host/src/core/model.c host/src/core/model_check.c host/src/backend/cpu.c \
	host/src/backend/sim.c host/src/backend/window.c host/src/backend/transport_inproc.c \
	host/src/backend/transport_socket.c host/src/backend/kdrv.c host/src/backend/xrt.c host/src/backend/opencl.c host/src/comm/collective.c host/src/comm/ring_collective.c host/src/comm/card.c \
	host/src/comm/rendezvous.c host/src/comm/requant.c
# The CPU codec (codec/build.mk), the kernels' C (the scalar codec, the cpu backend's engines)
# and the contract's code (contract/: descriptor rules, register-block walk, status strings)
# are part of it; the card model is not (libquire_sim, sim/build.mk).
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(HLS_OBJS) $(CONTRACT_OBJS) $(CODEC_OBJS)
# The ring's partial sums are plain loops, one chain per element: -O3 vectorizes them (same bits).
EXTRA_CFLAGS_host/src/comm/ring_collective.c := -O3
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

all: $(LIBQUIRE_A) $(LIBQUIRE_SO)

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

# The contract headers a program of libquire's users may include (<quire.h> includes some
# of them; quire_drm.h is the driver's uAPI): all of include/quire/ but what only the card,
# its models and the driver use. tests/public_headers.sh checks these (make public-headers).
QUIRE_INTERNAL_HEADERS := include/quire/card.h include/quire/ivshmem.h include/quire/rv32_sim.h \
	include/quire/validate.h include/quire/regblock.h include/quire/types.h
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

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libquire.* $(DESTDIR)$(LIBDIR)/libquire_mpi.* \
		$(DESTDIR)$(LIBDIR)/libquire_sim.* \
		$(DESTDIR)$(LIBDIR)/pkgconfig/quire.pc $(DESTDIR)$(LIBDIR)/pkgconfig/quire_mpi.pc \
		$(DESTDIR)$(PREFIX)/include/quire.h \
		$(DESTDIR)$(PREFIX)/include/quire_mpi.h $(DESTDIR)$(PREFIX)/bin/quire \
		$(DESTDIR)$(PREFIX)/bin/quire-sim $(DESTDIR)$(PREFIX)/bin/quire-cluster \
		$(DESTDIR)$(PREFIX)/bin/quire-bench-allreduce
	rm -rf $(DESTDIR)$(PREFIX)/include/quire

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
.PHONY: install-mpi
else
$(info note: MPI not found: libquire_mpi is not built (install libopenmpi-dev))
endif
