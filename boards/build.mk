# SPDX-License-Identifier: MIT
# The board descriptions (boards/*.toml), validated and compiled into <quire/boards.h>
# under $(BUILD)/gen: the driver, libquire and the card models compile against it. Every
# object waits for it (the pattern rules' order-only prerequisite), and the .d files then
# rebuild what includes it when a board file changes.
BOARD_FILES := $(sort $(wildcard boards/*.toml))
BOARDS_H := $(BUILD)/gen/quire/boards.h
BOARDS_GEN := $(PYTHON) boards/gen_boards.py --regs include/quire/regs.h --link-ld firmware/link.ld

$(BOARDS_H): boards/gen_boards.py $(BOARD_FILES) include/quire/regs.h firmware/link.ld
	@mkdir -p $(dir $@)
	$(BOARDS_GEN) -o $@ $(BOARD_FILES)

boards: $(BOARDS_H)
all: boards
.PHONY: boards
