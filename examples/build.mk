# SPDX-License-Identifier: MIT
# Examples: programs that use libquire the way its users do.
DEMO_SRCS := examples/codec_demo.c examples/fmnist/idx.c examples/fmnist/mlp.c examples/fmnist/loop.c
DEMO_OBJS := $(DEMO_SRCS:%.c=$(BUILD)/%.o)
CODEC_DEMO := $(BUILD)/bin/quire-codec-demo
$(foreach s,$(DEMO_SRCS),$(eval EXTRA_CFLAGS_$(s) := -Iexamples -O3))

$(CODEC_DEMO): $(DEMO_OBJS) $(LIBQUIRE_SO)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(DEMO_OBJS) -L$(BUILD)/lib -lquire \
		-Wl,-rpath,'$$ORIGIN/../lib' $(LDLIBS)

all: $(CODEC_DEMO)

DEMO_ARGS ?=
# The codec on real training, W workers simulated in one process, every format.
demo-codec: $(CODEC_DEMO)
	$(CODEC_DEMO) $(DEMO_ARGS)

ifneq ($(MPI_LIBS),)
# The data-parallel trainer: one process per rank, gradients through quire_allreduce.
TRAIN_DP := $(BUILD)/bin/quire-train-dp
TRAIN_DP_OBJS := $(BUILD)/examples/train_dp.o $(BUILD)/examples/fmnist/idx.o $(BUILD)/examples/fmnist/mlp.o \
	$(BUILD)/examples/fmnist/loop.o
EXTRA_CFLAGS_examples/train_dp.c := -Iexamples -O3 $(MPI_CFLAGS)
$(TRAIN_DP): $(TRAIN_DP_OBJS) $(LIBQUIRE_SO) $(LIBQUIRE_MPI_SO)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(TRAIN_DP_OBJS) -L$(BUILD)/lib -lquire_mpi -lquire \
		-Wl,-rpath,'$$ORIGIN/../lib' $(MPI_LIBS) $(LDLIBS)
all: $(TRAIN_DP)

# The main job: W = 4 ranks, fp32, fp16 and bfp8 with error feedback (examples/run_demo.sh).
demo-programs: $(TRAIN_DP) $(QUIRE_SIM) $(QUIRE_CLUSTER)
demo:
	@$(MAKE) --no-print-directory $(PARALLEL_J) demo-programs
	sh examples/run_demo.sh $(BUILD) $(DEMO_ARGS)
else
demo:
	@echo "make demo needs MPI: apt-get install openmpi-bin libopenmpi-dev (or: sh mk/deps.sh)"; exit 1
endif
.PHONY: demo-codec

# PyTorch: a small CNN (or --model mlp) under DDP, 4 processes over Gloo, fp32 / PyTorch's
# fp16 and PowerSGD hooks / quire bfp8 with error feedback, exact and requantized (cpu
# backend) and on simulated cards; examples/torch_ddp.py. LINK=RATE (root, e.g. LINK=2gbit):
# each rank in its own network namespace on tc-shaped links (quire link run,
# docs/torch-link.md). DEMO_TORCH_ARGS: e.g. --full (all 60000 images, 10 epochs), --no-sim,
# --epochs 1, --model mlp.
DEMO_TORCH_ARGS ?=
LINK ?=
# (python-pkg: python/build.mk, read after this file, knows the package's files.)
demo-torch: python-pkg $(LIBQUIRE_SO) $(QUIRE_SIM) $(QUIRE_CLUSTER) $(QUIRE_CLI)
	$(QUIRE_PYTHON) examples/torch_ddp.py $(BUILD) $(if $(LINK),--link $(LINK)) $(DEMO_TORCH_ARGS)
.PHONY: demo-torch
