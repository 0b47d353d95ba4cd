# SPDX-License-Identifier: MIT
# The firmware, built twice from one source, each time with the contract's code (contract/):
# - native objects (QUIRE_FW_NATIVE) that the card models link, and contract/build.mk's;
# - the card image for the rv32im control core, with its size checked against
#   the on-chip memories of firmware/link.ld (the link fails past them).
FW_SRCS := firmware/cmdloop.c firmware/ops.c firmware/pipe.c firmware/dma.c \
	firmware/engines.c firmware/bar.c firmware/net.c firmware/comm.c firmware/allreduce.c \
	firmware/gather.c firmware/alive.c
FW_BUILD_ID := 0x$(shell git rev-parse --short=8 HEAD 2>/dev/null || echo 0)
FW_NATIVE_OBJS := $(FW_SRCS:%.c=$(BUILD)/fw-native/%.o) $(CONTRACT_OBJS)
FW_NATIVE_FLAGS := -DQUIRE_FW_NATIVE -DQUIRE_FW_BUILD_ID=$(FW_BUILD_ID)u

$(BUILD)/fw-native/%.o: %.c | $(BOARDS_H)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(FW_NATIVE_FLAGS) -c -o $@ $<

RISCV_CC ?= riscv64-unknown-elf-gcc
RISCV_SIZE ?= riscv64-unknown-elf-size
FW_CROSS_FLAGS := -march=rv32im -mabi=ilp32 -Os -g -std=c11 -ffreestanding -nostdlib \
	-ffunction-sections -fdata-sections $(WARN) -Iinclude -DQUIRE_FW_BUILD_ID=$(FW_BUILD_ID)u
FW_ELF := $(BUILD)/firmware/quire-fw.elf
FW_CROSS_SRCS := $(FW_SRCS) $(CONTRACT_SRCS) firmware/main_card.c firmware/lib.c firmware/crt0.S

ifneq ($(shell command -v $(RISCV_CC) 2>/dev/null),)
all: firmware
else
$(info note: $(RISCV_CC) not found: the card firmware is not built (install gcc-riscv64-unknown-elf))
endif

$(FW_ELF): $(FW_CROSS_SRCS) firmware/link.ld $(wildcard firmware/*.h include/quire/*.h)
	@mkdir -p $(dir $@)
	$(RISCV_CC) $(FW_CROSS_FLAGS) -T firmware/link.ld -Wl,--gc-sections -o $@ $(FW_CROSS_SRCS) -lgcc

# The size report, on every `make firmware` (and `make`), built just now or not.
firmware: $(FW_ELF)
	@echo "firmware $(notdir $<) (rv32im) against its memories, IMEM 64 KiB and DMEM 8 KiB:"
	@$(RISCV_SIZE) $<
.PHONY: firmware
