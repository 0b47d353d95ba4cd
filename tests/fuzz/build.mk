# SPDX-License-Identifier: MIT
# `make fuzz`: libFuzzer (clang) over the firmware's validator and command loop on
# the card model, for FUZZ_SECONDS, starting from the corpus in tests/fuzz/corpus.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_BIN := build-fuzz/fuzz_card
FUZZ_SRCS := tests/fuzz/fuzz_card.c $(SIM_SRCS) $(FW_SRCS) hls/quant.c hls/reduce.c hls/mlp.c hls/crc32.c

$(FUZZ_BIN): $(FUZZ_SRCS) $(wildcard include/quire/*.h firmware/*.h hls/*.h sim/*.h sim/emu/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
		-Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-label -Iinclude \
		-DQUIRE_FW_NATIVE -o $@ $(FUZZ_SRCS) -lz -lpthread

fuzz: $(FUZZ_BIN)
	@mkdir -p build-fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=1 \
		build-fuzz/corpus tests/fuzz/corpus
.PHONY: fuzz
