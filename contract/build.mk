# SPDX-License-Identifier: MIT
# contract/: the contract's code, built once here for user space and linked into libquire,
# libquire_sim (with the native firmware, firmware/build.mk) and quire-sim. The card image
# (firmware/build.mk) and quire.ko (driver/Kbuild) compile the same sources themselves.
CONTRACT_SRCS := contract/validate.c contract/regblock.c contract/status.c
CONTRACT_OBJS := $(CONTRACT_SRCS:%.c=$(BUILD)/%.o)
