# SPDX-License-Identifier: MIT
# make test-driver: quire.ko in a QEMU TCG guest (tests/driver/qemu_test.sh), built first
# by make driver, with the simulated card (quire-sim --ivshmem) and the quire CLI and
# libquire in the guest. QUIRE_QEMU_REQUIRED=1 makes a missing package a failure, not a
# skip (CI).
.PHONY: test-driver

test-driver: driver $(QUIRE_SIM) $(QUIRE_CLI) $(LIBQUIRE_SO)
	sh tests/driver/qemu_test.sh $(BUILD)

# A quire card's register window as a file, for an ivshmem-plain device (no MSI-X).
QEMU_CARD_IMAGE := $(BUILD)/tests/driver/card_image
$(QEMU_CARD_IMAGE): $(BUILD)/tests/driver/card_image.o
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $<
test-driver test: $(QEMU_CARD_IMAGE)
