# SPDX-License-Identifier: MIT
# The HLS kernels, compiled as plain C: the golden model and the scalar codec.
# Loop labels name the loops in Vitis reports, so unused labels are expected here.
HLS_SRCS := hls/quant.c hls/reduce.c hls/mlp.c hls/crc32.c
HLS_OBJS := $(HLS_SRCS:%.c=$(BUILD)/%.o)
HLS_CFLAGS := -Wno-unknown-pragmas -Wno-unused-label
$(foreach s,$(HLS_SRCS),$(eval EXTRA_CFLAGS_$(s) := $(HLS_CFLAGS)))
