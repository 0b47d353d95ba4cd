# SPDX-License-Identifier: MIT
# make test-driver: quire.ko in a QEMU TCG guest (tests/driver/qemu_test.sh), built first
# by make driver. QUIRE_QEMU_REQUIRED=1 makes a missing package a failure, not a skip (CI).
.PHONY: test-driver

test-driver: driver
	sh tests/driver/qemu_test.sh $(BUILD)
