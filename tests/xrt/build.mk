# SPDX-License-Identifier: MIT
# The fake XRT the xrt backend's tests load in place of libxrt_coreutil.so.2 (tests/xrt/
# fake_xrt.c), and the XILINX_XRT directory it is found under: root/lib/libxrt_core.so.2.
XRT_FAKE_DIR := $(BUILD)/tests/xrt
XRT_FAKE := $(XRT_FAKE_DIR)/lib/libxrt_coreutil.so.2
XRT_FAKE_ROOT := $(XRT_FAKE_DIR)/root
EXTRA_CFLAGS_tests/xrt/fake_xrt.c := $(XRT_CFLAGS)
$(XRT_FAKE): $(BUILD)/tests/xrt/fake_xrt.o
	@mkdir -p $(dir $@) $(XRT_FAKE_ROOT)/lib
	$(CC) -shared -Wl,-soname,libxrt_coreutil.so.2 $(SAN_FLAGS) $(LDFLAGS) -o $@ $< -ldl
	ln -sf ../../lib/libxrt_coreutil.so.2 $(XRT_FAKE_ROOT)/lib/libxrt_core.so.2
all: $(XRT_FAKE)

# test_xrt loads it, and the card model it runs behind it, by these paths.
EXTRA_CFLAGS_tests/test_xrt.c += -DQUIRE_TEST_XRT_FAKE='"$(CURDIR)/$(XRT_FAKE)"' \
	-DQUIRE_TEST_XRT_ROOT='"$(CURDIR)/$(XRT_FAKE_ROOT)"' \
	-DQUIRE_TEST_SIM_LIB='"$(CURDIR)/$(BUILD)/lib/libquire_sim.so.0"'
$(BUILD)/tests/test_xrt: | $(XRT_FAKE) $(LIBQUIRE_SIM_SO)
test-programs: $(XRT_FAKE)
