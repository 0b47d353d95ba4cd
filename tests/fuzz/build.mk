# SPDX-License-Identifier: MIT
# `make fuzz`: libFuzzer (clang), FUZZ_SECONDS for each target, each starting from its corpus:
# fuzz_card, the firmware's validator and command loop on the card model (tests/fuzz/corpus);
# fuzz_encoded, the encoded-file reader (tests/fuzz/corpus-encoded); fuzz_model, the model
# image loader (seeds: the golden models, tests/data/mlp_golden); fuzz_place, the input of
# quire sched place, CSV or JSON (tests/fuzz/corpus-place); fuzz_serve, quire sched serve's
# JSON (seeds: its recorded requests, tests/data/sched_serve).
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
comma := ,
FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-label -Iinclude -I. -I$(BUILD)/gen
FUZZ_BIN := build-fuzz/fuzz_card
FUZZ_SRCS := tests/fuzz/fuzz_card.c tests/fuzz/fuzz_host.c $(SIM_SRCS) $(FW_SRCS) $(CONTRACT_SRCS) hls/quant.c hls/reduce.c hls/mlp.c hls/crc32.c
# The card model's fast engines call the CPU codec (sim/emu/engines.c, codec/): its files need
# their own ISA flags (runtime dispatch), so they are compiled one by one, instrumented alike.
FUZZ_CODEC_OBJS := $(CODEC_SRCS:%.c=build-fuzz/obj/%.o)
build-fuzz/obj/%.o: %.c $(wildcard include/quire/*.h host/include/*.h codec/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_FLAGS)) \
		-Ihost/include $(EXTRA_CFLAGS_$<) -c -o $@ $<
FUZZ_ENCODED_BIN := build-fuzz/fuzz_encoded
FUZZ_ENCODED_SRCS := tests/fuzz/fuzz_encoded.c host/src/codec/encoded_file.c host/src/format.c \
	contract/status.c
FUZZ_MODEL_BIN := build-fuzz/fuzz_model
FUZZ_MODEL_SRCS := tests/fuzz/fuzz_model.c host/src/core/model_check.c hls/mlp.c hls/crc32.c \
	host/src/format.c contract/status.c
FUZZ_PLACE_BIN := build-fuzz/fuzz_place
FUZZ_PLACE_SRCS := tests/fuzz/fuzz_place.c sched/place_input.c sched/trace.c
FUZZ_SERVE_BIN := build-fuzz/fuzz_serve
FUZZ_SERVE_SRCS := tests/fuzz/fuzz_serve.c cli/sched_serve_json.c cli/sched_decide.c $(SCHED_SRCS)

$(FUZZ_BIN): $(FUZZ_SRCS) $(FUZZ_CODEC_OBJS) $(BOARDS_H) $(wildcard include/quire/*.h firmware/*.h hls/*.h codec/*.h sim/*.h sim/emu/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ihost/include -DQUIRE_FW_NATIVE -o $@ $(FUZZ_SRCS) $(FUZZ_CODEC_OBJS) \
		-lz -lpthread -lcrypto

$(FUZZ_ENCODED_BIN): $(FUZZ_ENCODED_SRCS) $(wildcard include/quire/*.h host/include/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ihost/include -o $@ $(FUZZ_ENCODED_SRCS) -lz

$(FUZZ_MODEL_BIN): $(FUZZ_MODEL_SRCS) $(wildcard include/quire/*.h host/include/*.h hls/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ihost/include -o $@ $(FUZZ_MODEL_SRCS)

$(FUZZ_PLACE_BIN): $(FUZZ_PLACE_SRCS) sched/sched.h sched/internal.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(FUZZ_PLACE_SRCS) $(SCHED_LIBS)

$(FUZZ_SERVE_BIN): $(FUZZ_SERVE_SRCS) cli/sched_serve.h cli/sched_decide.h sched/sched.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(FUZZ_SERVE_SRCS) $(SCHED_LIBS) -lm

fuzz: $(FUZZ_BIN) $(FUZZ_ENCODED_BIN) $(FUZZ_MODEL_BIN) $(FUZZ_PLACE_BIN) $(FUZZ_SERVE_BIN)
	@mkdir -p build-fuzz/corpus build-fuzz/corpus-encoded build-fuzz/corpus-model \
		build-fuzz/corpus-place build-fuzz/corpus-serve
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=1 \
		build-fuzz/corpus tests/fuzz/corpus
	$(FUZZ_ENCODED_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=1 \
		build-fuzz/corpus-encoded tests/fuzz/corpus-encoded
	$(FUZZ_MODEL_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=1 \
		build-fuzz/corpus-model tests/data/mlp_golden
	$(FUZZ_PLACE_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=1 \
		build-fuzz/corpus-place tests/fuzz/corpus-place
	$(FUZZ_SERVE_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=1 \
		-max_len=65536 build-fuzz/corpus-serve tests/data/sched_serve
.PHONY: fuzz
