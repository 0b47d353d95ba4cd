# SPDX-License-Identifier: MIT
# The HLS kernels, compiled as plain C: the golden model and the scalar codec.
# Loop labels name the loops in Vitis reports, so unused labels are expected here.
HLS_SRCS := hls/quant.c hls/reduce.c hls/mlp.c hls/crc32.c
HLS_OBJS := $(HLS_SRCS:%.c=$(BUILD)/%.o)
HLS_CFLAGS := -Wno-unknown-pragmas -Wno-unused-label
$(foreach s,$(HLS_SRCS),$(eval EXTRA_CFLAGS_$(s) := $(HLS_CFLAGS)))

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
