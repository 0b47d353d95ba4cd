# SPDX-License-Identifier: MIT
# cli/: the quire command, its all-reduce benchmark's ranks (an MPI program) and Gloo's
# all-reduce for `quire bench allreduce --link`. Included after host/build.mk and
# sim/build.mk: it links libquire (and libquire_mpi) and runs quire-cluster. The ranks are
# built on their own, below.
BENCH_ALLREDUCE_SRCS := cli/bench_allreduce_mpi.c cli/bench_goals.c
CLI_SRCS := $(filter-out $(BENCH_ALLREDUCE_SRCS),$(wildcard cli/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
QUIRE_CLI := $(BUILD)/bin/quire

all: $(QUIRE_CLI)

# The CLI links the shared library and finds it beside itself, built or installed, and the
# scheduler's replay (sched/, not part of libquire); `quire sched serve` libmicrohttpd, and
# `quire bench sched-serve`'s clients libcurl (mk/debian-packages.txt).
SERVE_LIBS := -lmicrohttpd -lcurl -lpthread
$(QUIRE_CLI): $(CLI_OBJS) $(SCHED_OBJS) $(LIBQUIRE_SO)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(SCHED_OBJS) -L$(BUILD)/lib -lquire \
		-Wl,-rpath,'$$ORIGIN/../lib' $(SCHED_LIBS) $(SERVE_LIBS) $(LDLIBS)

install: install-cli
install-cli: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(QUIRE_CLI) $(DESTDIR)$(PREFIX)/bin/
.PHONY: install-cli

# The codec's figures, quoted by README.md and docs/codec.md from this one file: a line naming the
# date, CPU and commit, then what the bench prints. BENCH_OUT= writes them elsewhere.
BENCH_OUT ?= docs/figures/codec.txt
bench: $(QUIRE_CLI)
	@mkdir -p $(dir $(BENCH_OUT))
	@{ printf 'make bench, %s, %s, %s cores, commit %s\n' "$$(date -u +%Y-%m-%d)" \
		"$$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)" \
		"$$(nproc)" "$$(git rev-parse --short HEAD 2>/dev/null || echo none)" && \
		$(QUIRE_CLI) bench codec --size 64MiB; } >$(BENCH_OUT).tmp && \
		mv $(BENCH_OUT).tmp $(BENCH_OUT) && cat $(BENCH_OUT) || { rm -f $(BENCH_OUT).tmp; exit 1; }

# The all-reduce benchmark runs under mpirun, where MPI is installed (libquire_mpi, host/build.mk);
# `quire bench allreduce` starts it.
ifneq ($(MPI_LIBS),)
BENCH_ALLREDUCE := $(BUILD)/bin/quire-bench-allreduce
EXTRA_CFLAGS_cli/bench_allreduce_mpi.c := $(MPI_CFLAGS)
$(BENCH_ALLREDUCE): $(BENCH_ALLREDUCE_SRCS:%.c=$(BUILD)/%.o) $(LIBQUIRE_MPI_SO)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(BUILD)/lib -lquire_mpi -lquire \
		-Wl,-rpath,'$$ORIGIN/../lib' $(MPI_LIBS) $(LDLIBS)
all: $(BENCH_ALLREDUCE)
install-cli: install-bench-allreduce
install-bench-allreduce: $(BENCH_ALLREDUCE)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BENCH_ALLREDUCE) $(DESTDIR)$(PREFIX)/bin/
.PHONY: install-bench-allreduce

# Gloo's ring all-reduce beside quire's under `quire bench allreduce --link`, where
# libgloo-dev is installed.
ifneq ($(wildcard /usr/include/gloo/allreduce_ring_chunked.h),)
BENCH_GLOO := $(BUILD)/bin/quire-bench-gloo
$(BENCH_GLOO): cli/bench_allreduce_gloo.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -Wall -Wextra -Werror $(SAN_FLAGS) $(LDFLAGS) -o $@ $< -lgloo
all: $(BENCH_GLOO)
endif
endif
