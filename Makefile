# SPDX-License-Identifier: MIT
# quire: top-level build. Plain, non-recursive make; each folder adds its part
# in its own build.mk. `make help` lists the targets.

PREFIX  ?= /usr/local
DESTDIR ?=
LIBDIR  ?= $(PREFIX)/lib
SANITIZE ?= 0

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD ?= build
SAN_FLAGS :=
endif

CC      ?= gcc
AR      ?= ar
PYTHON  ?= python3
# -ffp-contract=off: no fused multiply-add; the codec's bits are the contract (docs/contract-bfp.md).
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
# Include roots: include/ (the contract, <quire/...>), host/include/ (<quire.h>) and the
# repository itself, so that a header of another folder is named by its path from the top
# ("hls/quant.h"), never by "../"; tests/include_rules.py checks who may include what.
# $(BUILD)/gen holds what the build generates: <quire/boards.h> (boards/build.mk).
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -ffp-contract=off $(WARN) $(SAN_FLAGS) \
	-Iinclude -Ihost/include -I. -I$(BUILD)/gen -MMD -MP
LDFLAGS ?=
LDLIBS  := -lz -lm -lpthread

QUIRE_SOVERSION := 0
QUIRE_VERSION   := 0.1.0

.PHONY: all test test-programs bench demo demo-programs deps install uninstall clean help \
	valgrind format fuzz
# Objects built through pattern chains are kept: no rebuild on the next run.
.SECONDARY:
all:

# `make test` and `make demo` are the README's two commands: on a clean tree they build
# everything they run (test-programs, demo-programs: each folder's build.mk adds its part),
# on every CPU unless the caller chose -j, and refuse to start while a package of
# mk/debian-packages.txt is missing, naming it, rather than fail later on a missing tool.
NPROC := $(shell nproc 2>/dev/null || echo 1)
PARALLEL_J = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(NPROC))
ifneq ($(filter test demo,$(MAKECMDGOALS)),)
MISSING_PACKAGES := $(shell sh mk/deps.sh --missing)
ifneq ($(MISSING_PACKAGES),)
$(error missing Debian packages: $(MISSING_PACKAGES). Install them: sh mk/deps.sh (as root))
endif
endif

include boards/build.mk
include hls/build.mk
include contract/build.mk
include firmware/build.mk
include sched/build.mk
include codec/build.mk
include host/build.mk
include sim/build.mk
include cli/build.mk
include tests/build.mk
include tests/xrt/build.mk
include rtl/engines/build.mk
include examples/build.mk
include python/build.mk
include tests/fuzz/build.mk
include rtl/build.mk
include rtl/report/build.mk
include sim/rtl/build.mk
include tests/rtl/build.mk
include driver/build.mk
include tests/driver/build.mk

$(BUILD)/%.o: %.c | $(BOARDS_H)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS_$<) -c -o $@ $<

deps:
	sh mk/deps.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

help:
	@echo "make [all]          build libquire (+ libquire_mpi), the CLI, quire-sim, quire-cluster, firmware, examples, tests into $(BUILD)/"
	@echo "make test           the test suite (SANITIZE=1: under ASan + UBSan, in build-san/)"
	@echo "make valgrind       the unit tests under valgrind memcheck"
	@echo "make fuzz           libFuzzer over the firmware's validator and command loop, the encoded-file reader and the model loader (FUZZ_SECONDS=60 each)"
	@echo "make bench          codec throughput against memcpy (quire bench codec, 64 MiB), written to docs/figures/codec.txt"
	@echo "make demo           the main job: data-parallel training, 4 MPI ranks on 4 simulated cards (DEMO_ARGS=...),"
	@echo "                    into results/demo; QUIRE_DEMO_BACKEND=cpu: MPI carries the gradients, into results/demo-cpu;"
	@echo "                    QUIRE_DEMO_OUT=DIR: results elsewhere"
	@echo "make demo-codec     the codec on the same training, workers simulated in one process"
	@echo "make boards         validate boards/*.toml and write $(BUILD)/gen/quire/boards.h"
	@echo "make firmware       the card firmware (rv32im), with its size report"
	@echo "make rtl            the rv32im core: quire-rv32-run (Verilator) and its instruction tests; rtl-test runs them, rtl-lint lints"
	@echo "make rtl-engines-test  the QUANT and REDUCE datapaths in RTL (Verilator) against hls/, bit for bit, with their rates"
	@echo "make rtl-engines-lint  verilator --lint-only -Wall over the engines"
	@echo "make rtl-report     resource estimate of the RTL (Yosys synth_xilinx, UltraScale+): LUT/FF/DSP/BRAM, share of a VU9P and a U55C"
	@echo "make driver        quire.ko, the kernel driver (kbuild, W=1 + sparse C=1: no warning allowed; KDIR=...)"
	@echo "make checkpatch    Linux 6.1's checkpatch.pl --strict on the driver (from linux-source-6.1)"
	@echo "make test-driver    quire.ko loaded in a QEMU TCG guest (Debian's kernel, busybox initramfs), ivshmem devices"
	@echo "make install-driver  the module into /lib/modules, its sources into /usr/src/quire-VERSION for DKMS"
	@echo "make deps           install the missing Debian packages (mk/debian-packages.txt)"
	@echo "make install        PREFIX=$(PREFIX) DESTDIR=: libraries, headers, pkg-config, quire, quire-sim, quire-cluster"
	@echo "make format         clang-format every C file"
	@echo "make clean"

clean:
	rm -rf build build-san build-fuzz results

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
