# SPDX-License-Identifier: MIT
# Examples: programs that use libquire the way its users do.
DEMO_SRCS := examples/codec_demo.c examples/fmnist/idx.c examples/fmnist/mlp.c
DEMO_OBJS := $(DEMO_SRCS:%.c=$(BUILD)/%.o)
CODEC_DEMO := $(BUILD)/bin/quire-codec-demo
$(foreach s,$(DEMO_SRCS),$(eval EXTRA_CFLAGS_$(s) := -Iexamples -O3))

$(CODEC_DEMO): $(DEMO_OBJS) $(LIBQUIRE_SO)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(DEMO_OBJS) -L$(BUILD)/lib -lquire \
		-Wl,-rpath,'$$ORIGIN/../lib' $(LDLIBS)

all: $(CODEC_DEMO)

# The main job. Until the simulated multi-card trainer exists, it is the codec on real training.
DEMO_ARGS ?=
demo: $(CODEC_DEMO)
	$(CODEC_DEMO) $(DEMO_ARGS)
