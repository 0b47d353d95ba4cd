# SPDX-License-Identifier: MIT
# The HLS kernels, compiled as plain C: the golden model and the scalar codec.
# Loop labels name the loops in Vitis reports, so unused labels are expected here.
HLS_SRCS := hls/quant.c hls/reduce.c hls/mlp.c hls/crc32.c
HLS_OBJS := $(HLS_SRCS:%.c=$(BUILD)/%.o)
HLS_CFLAGS := -Wno-unknown-pragmas -Wno-unused-label
$(foreach s,$(HLS_SRCS),$(eval EXTRA_CFLAGS_$(s) := $(HLS_CFLAGS)))

# The golden model of a whole bfp all-reduce (the kernels composed): linked into the tests
# that compare the rings with it, not into libquire.
HLS_GOLDEN_OBJ := $(BUILD)/hls/allreduce_golden.o
EXTRA_CFLAGS_hls/allreduce_golden.c := $(HLS_CFLAGS)

# The Vitis testbenches, compiled with the same kernel C and run by `make test`
# (what csim does, with gcc instead of the vendor's compiler).
HLS_TBS := $(BUILD)/hls/vitis/tb_quant $(BUILD)/hls/vitis/tb_reduce $(BUILD)/hls/vitis/tb_mlp
$(foreach s,hls/vitis/tb_quant.c hls/vitis/tb_reduce.c hls/vitis/tb_mlp.c,\
	$(eval EXTRA_CFLAGS_$(s) := $(HLS_CFLAGS) -DQUIRE_TB_DATA='"$(CURDIR)/tests/data/mlp_golden"'))
$(BUILD)/hls/vitis/tb_quant: $(BUILD)/hls/vitis/tb_quant.o $(BUILD)/hls/quant.o
$(BUILD)/hls/vitis/tb_reduce: $(BUILD)/hls/vitis/tb_reduce.o $(BUILD)/hls/reduce.o $(BUILD)/hls/quant.o
$(BUILD)/hls/vitis/tb_mlp: $(BUILD)/hls/vitis/tb_mlp.o $(BUILD)/hls/mlp.o $(BUILD)/hls/crc32.o
$(HLS_TBS):
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ -lm
all: $(HLS_TBS)

# The same kernels as the opencl backend's OpenCL C program, embedded in libquire.
OPENCL_SOURCE_H := $(BUILD)/gen/hls/opencl_source.h
$(OPENCL_SOURCE_H): hls/gen_opencl.py $(HLS_SRCS) $(wildcard hls/*.h) $(wildcard include/quire/*.h)
	@mkdir -p $(dir $@)
	$(PYTHON) hls/gen_opencl.py $@

# The Vitis flow's generated inputs (hls/vitis/gen_vitis.py, from the top functions and
# boards/*.toml): the kernels quire_quant/reduce/mlp, compiled here with gcc so that they
# are known to compile, and per-board v++ configurations. `make xclbin BOARD=aws-f1` runs
# v++ on them (vendor tools: docs/xclbin.md); `make test` checks the kernel interfaces.
VITIS_DIR := $(BUILD)/hls/vitis
VITIS_KERNELS := $(VITIS_DIR)/gen/kernel_quant.c $(VITIS_DIR)/gen/kernel_reduce.c \
	$(VITIS_DIR)/gen/kernel_mlp.c
# The Vitis platforms: the boards reached through XRT (an [xrt] table), not the simulated ones.
VITIS_BOARDS := $(basename $(notdir $(shell grep -l '^\[xrt\]' boards/*.toml)))
VITIS_CFGS := $(foreach b,$(VITIS_BOARDS),$(VITIS_DIR)/$(b)/link.cfg)
$(VITIS_KERNELS) &: hls/vitis/gen_vitis.py $(HLS_SRCS)
	$(PYTHON) hls/vitis/gen_vitis.py --kernels $(VITIS_DIR)/gen
$(VITIS_DIR)/%/link.cfg: boards/%.toml hls/vitis/gen_vitis.py boards/gen_boards.py $(HLS_SRCS)
	$(PYTHON) hls/vitis/gen_vitis.py --board $< --out $(@D)
$(VITIS_DIR)/gen/%.o: $(VITIS_DIR)/gen/%.c
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(HLS_CFLAGS) -c -o $@ $<
all: $(VITIS_KERNELS:.c=.o) $(VITIS_CFGS)

BOARD ?=
TARGET ?= hw
VPP ?= v++
XCLBIN_DIR := $(BUILD)/xclbin/$(BOARD)-$(TARGET)
.PHONY: xclbin
xclbin:
	@test -n "$(BOARD)" || { echo "make xclbin: say which board: BOARD=, one of: $(VITIS_BOARDS)"; exit 2; }
	@test -f boards/$(BOARD).toml -a "$(BOARD)" != sim || { echo "make xclbin: no Vitis board '$(BOARD)' (boards: $(VITIS_BOARDS))"; exit 2; }
	@command -v $(VPP) >/dev/null 2>&1 || { echo "make xclbin: $(VPP) not found: source the Vitis settings64.sh (and XRT's setup.sh) first; docs/xclbin.md"; exit 2; }
	$(MAKE) $(VITIS_DIR)/$(BOARD)/link.cfg $(VITIS_KERNELS)
	@mkdir -p $(XCLBIN_DIR)
	for k in quant reduce mlp; do \
		case $$k in quant) srcs=quant.c;; reduce) srcs="reduce.c quant.c";; mlp) srcs="mlp.c crc32.c";; esac; \
		(cd $(XCLBIN_DIR) && $(VPP) -c -t $(TARGET) --config $(CURDIR)/$(VITIS_DIR)/$(BOARD)/compile.cfg \
			-k quire_$$k -I$(CURDIR)/include -I$(CURDIR) -o quire_$$k.xo \
			$(CURDIR)/$(VITIS_DIR)/gen/kernel_$$k.c $$(for s in $$srcs; do echo $(CURDIR)/hls/$$s; done)) \
			|| exit 1; \
	done
	cd $(XCLBIN_DIR) && $(VPP) -l -t $(TARGET) --config $(CURDIR)/$(VITIS_DIR)/$(BOARD)/link.cfg \
		-o quire.xclbin quire_quant.xo quire_reduce.xo quire_mlp.xo
	@echo "make xclbin: $(XCLBIN_DIR)/quire.xclbin (QUIRE_OPENCL_XCLBIN for the opencl backend; docs/xclbin.md)"
