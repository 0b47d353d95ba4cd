# SPDX-License-Identifier: MIT
# driver/: quire.ko, by kbuild (driver/Makefile), in $(BUILD)/driver.
# make driver: with W=1 and sparse (C=1); the log is $(BUILD)/driver/build.log, and
# any warning fails the target. make install-driver: the module and its DKMS tree.
.PHONY: driver install-driver driver-checkpatch

DRIVER_OUT := $(abspath $(BUILD)/driver)
DRIVER_MAKE = $(MAKE) --no-print-directory -f driver/Makefile OUT=$(DRIVER_OUT) \
	$(if $(KDIR),KDIR=$(KDIR))
DKMS_VERSION := $(QUIRE_VERSION)
DKMS_DIR := $(DESTDIR)/usr/src/quire-$(DKMS_VERSION)

driver:
	@mkdir -p $(DRIVER_OUT)
	@$(DRIVER_MAKE) W=1 C=1 modules >$(DRIVER_OUT)/build.log 2>&1; st=$$?; \
		cat $(DRIVER_OUT)/build.log; [ $$st -eq 0 ] || exit $$st; \
		n=$$(grep -c -E 'warning:|error:' $(DRIVER_OUT)/build.log); \
		echo "driver: $(DRIVER_OUT)/quire.ko, $$n warnings (W=1 C=1)"; [ $$n -eq 0 ]

# The module into /lib/modules/KVER/updates, and the sources as DKMS wants them
# (/usr/src/quire-VERSION, laid out as in the repository), so DKMS rebuilds it for
# every new kernel: dkms install quire/$(DKMS_VERSION).
install-driver: driver
	$(DRIVER_MAKE) install
	rm -rf $(DKMS_DIR)
	mkdir -p $(DKMS_DIR)/driver/fw_shim $(DKMS_DIR)/include/quire $(DKMS_DIR)/firmware
	cp driver/Makefile driver/Kbuild driver/*.c driver/*.h $(DKMS_DIR)/driver/
	cp driver/fw_shim/stdint.h $(DKMS_DIR)/driver/fw_shim/
	cp include/quire/*.h $(DKMS_DIR)/include/quire/
	cp firmware/validate.c firmware/fw.h $(DKMS_DIR)/firmware/
	sed 's/@VERSION@/$(DKMS_VERSION)/' driver/dkms.conf >$(DKMS_DIR)/dkms.conf
	@echo "DKMS tree in $(DKMS_DIR): dkms install quire/$(DKMS_VERSION)"
