# SPDX-License-Identifier: MIT
# sched/: the trace replay and the placement policies, linked into the quire CLI and
# test_sched (not part of libquire: a scheduler's own code). test_sched also runs the
# neural policy's scorer (cli/sched_mlp.c) on libquire's cpu backend.
SCHED_SRCS := sched/trace.c sched/place_input.c sched/policy.c sched/replay.c sched/neural.c
SCHED_OBJS := $(SCHED_SRCS:%.c=$(BUILD)/%.o)
# `quire sched place` reads its JSON input with Jansson (libjansson-dev).
SCHED_LIBS := -ljansson
SCHED_TEST := $(BUILD)/tests/test_sched
# (Included before host/build.mk: its variables are not set yet where prerequisites are read.)
$(SCHED_TEST): $(BUILD)/tests/test_sched.o $(SCHED_OBJS) $(BUILD)/cli/sched_mlp.o \
		$(BUILD)/lib/libquire.a $(BUILD)/lib/libquire_sim.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) $(TEST_RPATH) -o $@ $(BUILD)/tests/test_sched.o \
		$(SCHED_OBJS) $(BUILD)/cli/sched_mlp.o $(LIBQUIRE_A) $(LIBQUIRE_SIM_A) \
		-lcmocka $(SCHED_LIBS) $(LDLIBS)

# The neural policy's model (docs/sched.md, "Training"): the pods file cut by time
# (`quire sched split`) into the train and select parts only, lookahead-rollout labels of the
# train part, training and int8 export with Debian's Python and torch, selection on the
# select part. No step is given the pods file itself or an eval part: the latest 20% of the
# trace is in no file of $(SCHED_TRAIN_DIR). `make sched-train` rewrites sched/model/;
# `make sched-train-check` trains into build/ and compares with the shipped model byte for byte.
SCHED_DATA ?= ../shared/data/alibaba-gpu-v2023
SCHED_PYTHON ?= /usr/bin/python3
SCHED_MODEL_OUT ?= sched/model
SCHED_TRAIN_DIR := $(BUILD)/sched-train
.PHONY: sched-train sched-train-check
sched-train: $(BUILD)/bin/quire
	@mkdir -p $(SCHED_TRAIN_DIR)
	rm -rf $(SCHED_TRAIN_DIR)/split
	$(QUIRE_CLI) sched split --pods $(SCHED_DATA)/pods.csv --parts train,select \
		--out $(SCHED_TRAIN_DIR)/split
	$(QUIRE_CLI) sched dataset --pods $(SCHED_TRAIN_DIR)/split/train.csv --part all \
		--nodes $(SCHED_DATA)/nodes-gpu.csv --out $(SCHED_TRAIN_DIR)/train.qsds
	$(SCHED_PYTHON) sched/train/train.py --data $(SCHED_TRAIN_DIR)/train.qsds \
		--quire $(QUIRE_CLI) --pods $(SCHED_TRAIN_DIR)/split/select.csv \
		--nodes $(SCHED_DATA)/nodes-gpu.csv --work $(SCHED_TRAIN_DIR) --out $(SCHED_MODEL_OUT)
sched-train-check: $(BUILD)/bin/quire
	$(MAKE) --no-print-directory sched-train SCHED_MODEL_OUT=$(BUILD)/sched-check
	for f in sched.qmlp sched.fp32 train.txt; do \
		cmp $(BUILD)/sched-check/$$f sched/model/$$f || exit 1; done
	@echo "sched-train-check: the model is reproduced bit for bit"
