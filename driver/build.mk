# SPDX-License-Identifier: MIT
# driver/: quire.ko, by kbuild (driver/Makefile), in $(BUILD)/driver.
# make driver: with W=1 and sparse (C=1); the log is $(BUILD)/driver/build.log, and
# any warning fails the target. make install-driver: the module and its DKMS tree.
.PHONY: driver install-driver checkpatch

DRIVER_OUT := $(abspath $(BUILD)/driver)
DRIVER_MAKE = $(MAKE) --no-print-directory -f driver/Makefile OUT=$(DRIVER_OUT) \
	GEN=$(abspath $(BUILD)/gen) \
	$(if $(KDIR),KDIR=$(KDIR))
DKMS_VERSION := $(QUIRE_VERSION)
DKMS_DIR := $(DESTDIR)/usr/src/quire-$(DKMS_VERSION)

driver: $(BOARDS_H)
	@mkdir -p $(DRIVER_OUT)
	@$(DRIVER_MAKE) W=1 C=1 modules >$(DRIVER_OUT)/build.log 2>&1; st=$$?; \
		cat $(DRIVER_OUT)/build.log; [ $$st -eq 0 ] || exit $$st; \
		n=$$(grep -v -E '^make(\[[0-9]+\])?: ' $(DRIVER_OUT)/build.log | grep -c -E 'warning:|error:'); \
		echo "driver: $(DRIVER_OUT)/quire.ko, $$n warnings (W=1 C=1)"; [ $$n -eq 0 ]

# The module into /lib/modules/KVER/updates, and the sources as DKMS wants them
# (/usr/src/quire-VERSION, laid out as in the repository), so DKMS rebuilds it for
# every new kernel: dkms install quire/$(DKMS_VERSION).
install-driver: driver
	$(DRIVER_MAKE) install
	rm -rf $(DKMS_DIR)
	mkdir -p $(DKMS_DIR)/driver $(DKMS_DIR)/include/quire $(DKMS_DIR)/contract \
		$(DKMS_DIR)/build/gen/quire
	cp driver/Makefile driver/Kbuild driver/*.c driver/*.h $(DKMS_DIR)/driver/
	cp include/quire/*.h $(DKMS_DIR)/include/quire/
	cp contract/*.c $(DKMS_DIR)/contract/
	cp $(BOARDS_H) $(DKMS_DIR)/build/gen/quire/
	sed 's/@VERSION@/$(DKMS_VERSION)/' driver/dkms.conf >$(DKMS_DIR)/dkms.conf
	@echo "DKMS tree in $(DKMS_DIR): dkms install quire/$(DKMS_VERSION)"

# make checkpatch: Linux 6.1's scripts/checkpatch.pl --strict on the driver and its uAPI
# header. Debian's kernel headers do not ship checkpatch; linux-source-6.1 (a Debian
# package, mk/debian-packages.txt) holds it in its tarball, from which only checkpatch.pl
# and the two files it reads beside itself are extracted, once, into $(BUILD)/checkpatch.
# Any error or warning fails the target; --strict's checks are listed (driver/README.md
# says why each one stays). The one exception to the warnings: quire_compat.h, the driver's
# one place for kernel version differences, compares LINUX_VERSION_CODE by design (an
# out-of-tree module built for several kernels), which checkpatch reports as
# LINUX_VERSION_CODE and CONSTANT_COMPARISON; those two are ignored in that file only.
LINUX_SOURCE_TAR ?= /usr/src/linux-source-6.1.tar.xz
CHECKPATCH_DIR := $(BUILD)/checkpatch
CHECKPATCH := $(CHECKPATCH_DIR)/linux-source-6.1/scripts/checkpatch.pl
CHECKPATCH_FLAGS := --no-tree --strict --show-types --summary-file --color=never
CHECKPATCH_SRCS := $(filter-out driver/quire_compat.h,$(wildcard driver/*.c driver/*.h)) \
	include/quire/quire_drm.h

$(CHECKPATCH):
	@test -f $(LINUX_SOURCE_TAR) || { echo "checkpatch: $(LINUX_SOURCE_TAR) is missing: \
apt-get install linux-source-6.1 (mk/debian-packages.txt)"; exit 1; }
	@mkdir -p $(CHECKPATCH_DIR)
	tar -xJf $(LINUX_SOURCE_TAR) -C $(CHECKPATCH_DIR) \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

checkpatch: $(CHECKPATCH)
	@{ perl $(CHECKPATCH) $(CHECKPATCH_FLAGS) -f $(CHECKPATCH_SRCS); \
	   perl $(CHECKPATCH) $(CHECKPATCH_FLAGS) --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f driver/quire_compat.h; } >$(CHECKPATCH_DIR)/report.txt 2>&1; \
	e=$$(grep -c -E '^(ERROR|WARNING):' $(CHECKPATCH_DIR)/report.txt); \
	c=$$(grep -c -E '^CHECK:' $(CHECKPATCH_DIR)/report.txt); \
	n=$$(grep -c ' total: ' $(CHECKPATCH_DIR)/report.txt); \
	[ $$e -eq 0 ] && [ $$c -eq 0 ] || grep -A3 -E '^(ERROR|WARNING|CHECK):' $(CHECKPATCH_DIR)/report.txt; \
	echo "checkpatch (Linux 6.1, --strict): $$n files, $$e errors or warnings, $$c checks \
(driver/README.md says why each check stays)"; \
	[ $$e -eq 0 ] && [ $$n -eq $(words $(CHECKPATCH_SRCS) x) ]
