# SPDX-License-Identifier: MIT
# make test-driver: quire.ko in a QEMU TCG guest (tests/driver/qemu_test.sh), built first
# by make driver, with the simulated card (quire-sim --ivshmem) and the quire CLI and
# libquire in the guest. A missing package is a failure that names it. `make test` runs the
# same test (tests/run.sh).
.PHONY: test-driver

# The guest's own programs: static (the initramfs has no C library), without sanitizers
# (they do not link static), with the project's warnings and -ffp-contract=off (hls/'s bits).
DRIVER_GUEST := $(BUILD)/tests/driver/guest
DRIVER_GUEST_BINS := $(DRIVER_GUEST)/ioctl_fuzz $(DRIVER_GUEST)/ioctl_race \
	$(DRIVER_GUEST)/prime_check $(DRIVER_GUEST)/pin_cap
DRIVER_GUEST_CFLAGS := -std=c11 -D_GNU_SOURCE -ffp-contract=off $(WARN) -O2 -static \
	-Iinclude -Ihost/include -I. $(LIBDRM_CFLAGS)
DRIVER_GUEST_DEPS := tests/driver/guest_util.h include/quire/quire_drm.h

$(DRIVER_GUEST)/ioctl_fuzz: tests/driver/ioctl_fuzz.c $(DRIVER_GUEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(DRIVER_GUEST_CFLAGS) -o $@ $<
$(DRIVER_GUEST)/ioctl_race: tests/driver/ioctl_race.c $(DRIVER_GUEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(DRIVER_GUEST_CFLAGS) -pthread -o $@ $<
$(DRIVER_GUEST)/pin_cap: tests/driver/pin_cap.c $(DRIVER_GUEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(DRIVER_GUEST_CFLAGS) -o $@ $<
$(DRIVER_GUEST)/prime_check: tests/driver/prime_check.c hls/quant.c $(DRIVER_GUEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(DRIVER_GUEST_CFLAGS) $(HLS_CFLAGS) -o $@ tests/driver/prime_check.c hls/quant.c -lm

# And one on libquire (its public API, kdrv), linked like the quire CLI: the guest has
# libquire.so and the C library for the CLI. Run paths: the guest's /bin/../lib, and
# build/lib from build/tests/driver/guest (a run on this host).
$(DRIVER_GUEST)/prime_api: $(BUILD)/tests/driver/prime_api.o $(LIBQUIRE_SO)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $< -L$(BUILD)/lib -lquire \
		-Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/../../../lib' $(LDLIBS)
DRIVER_GUEST_BINS += $(DRIVER_GUEST)/prime_api
EXTRA_CFLAGS_tests/driver/prime_api.c := $(LIBDRM_CFLAGS)

all: $(DRIVER_GUEST_BINS)
test-programs: $(DRIVER_GUEST_BINS)

test-driver: driver $(QUIRE_SIM) $(QUIRE_CLI) $(LIBQUIRE_SO) $(DRIVER_GUEST_BINS)
	sh tests/driver/qemu_test.sh $(BUILD)

# A quire card's register window as a file, for an ivshmem-plain device (no MSI-X).
QEMU_CARD_IMAGE := $(BUILD)/tests/driver/card_image
$(QEMU_CARD_IMAGE): $(BUILD)/tests/driver/card_image.o
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $<
test-driver test-programs: $(QEMU_CARD_IMAGE)
