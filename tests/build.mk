# SPDX-License-Identifier: MIT
# Unit tests (CMocka), each its own program linked with libquire.a, and the CLI tests.
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
TEST_REF_OBJS := $(BUILD)/tests/ref/bfp_ref.o $(HLS_GOLDEN_OBJ)
TEST_CFLAGS := -DQUIRE_TEST_DATA='"$(CURDIR)/tests/data"' -Wno-unknown-pragmas \
	-DQUIRE_TEST_SIM='"$(CURDIR)/$(QUIRE_SIM)"'
# test_freeze starts (and stops) a card process of its own.
$(BUILD)/tests/test_freeze: $(QUIRE_SIM)

$(foreach s,$(TEST_SRCS) tests/ref/bfp_ref.c,$(eval EXTRA_CFLAGS_$(s) := $(TEST_CFLAGS)))

# Tests reach the card model directly (libquire_sim.a) and, through sim:inproc, as libquire
# does: libquire_sim.so, found by the run path.
TEST_RPATH := -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/../../lib'
$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_REF_OBJS) $(LIBQUIRE_A) $(LIBQUIRE_SIM_A) | $(LIBQUIRE_SIM_SO)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) $(TEST_RPATH) -o $@ $< $(TEST_REF_OBJS) $(LIBQUIRE_A) \
		$(LIBQUIRE_SIM_A) -lcmocka $(LDLIBS)

all: $(TEST_BINS)

# tests/run.sh runs every test program and the CLI checks and prints one summary line.
# test-programs is everything it runs: the whole build, the RTL models, quire.ko and the
# driver test's guest programs (tests/driver/build.mk), each folder adding its own.
test-programs: all rtl driver $(TEST_BINS) $(HLS_TBS) $(QUIRE_CLI) $(QUIRE_SIM) $(QUIRE_CLUSTER)
test:
	@$(MAKE) --no-print-directory $(PARALLEL_J) test-programs
	BUILD=$(BUILD) PYTHON=$(PYTHON) sh tests/run.sh $(TEST_BINS) $(HLS_TBS)

valgrind: $(TEST_BINS) $(HLS_TBS)
	BUILD=$(BUILD) QUIRE_VALGRIND=1 VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full" \
		sh tests/run.sh --unit-only $(TEST_BINS) $(HLS_TBS)

# Collectives over MPI: one program, run by tests/run.sh under mpirun with W = 2, 3, 4, 8.
ifneq ($(MPI_LIBS),)
MPI_TEST := $(BUILD)/tests/mpi/test_comm_mpi
EXTRA_CFLAGS_tests/mpi/test_comm_mpi.c := $(MPI_CFLAGS) $(TEST_CFLAGS)
$(MPI_TEST): $(BUILD)/tests/mpi/test_comm_mpi.o $(BUILD)/host/src/comm/mpi.o $(HLS_GOLDEN_OBJ) $(LIBQUIRE_A) | $(LIBQUIRE_SIM_SO)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) $(TEST_RPATH) -o $@ $^ $(MPI_LIBS) $(LDLIBS)
FAULT_TEST := $(BUILD)/tests/mpi/test_card_fault
EXTRA_CFLAGS_tests/mpi/test_card_fault.c := $(MPI_CFLAGS) $(TEST_CFLAGS)
$(FAULT_TEST): $(BUILD)/tests/mpi/test_card_fault.o $(BUILD)/host/src/comm/mpi.o $(LIBQUIRE_A) | $(LIBQUIRE_SIM_SO)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) $(TEST_RPATH) -o $@ $^ $(MPI_LIBS) $(LDLIBS)
all: $(MPI_TEST) $(FAULT_TEST)
test-programs: $(MPI_TEST) $(FAULT_TEST) $(QUIRE_CLUSTER) $(BENCH_ALLREDUCE)
endif

# A rank that meets the others without MPI (quire_comm_rendezvous), for test_cluster.sh.
MEET := $(BUILD)/tests/cli/meet
$(MEET): $(BUILD)/tests/cli/meet.o $(LIBQUIRE_A) | $(LIBQUIRE_SIM_SO)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) $(TEST_RPATH) -o $@ $^ $(LDLIBS)
all: $(MEET)
test-programs: $(MEET)

# A rank whose all-reduce results go to a file: emu cards against RTL cards (test_net_rtl.sh).
RING_DUMP := $(BUILD)/tests/cli/ring_dump
$(RING_DUMP): $(BUILD)/tests/cli/ring_dump.o $(HLS_GOLDEN_OBJ) $(LIBQUIRE_A) | $(LIBQUIRE_SIM_SO)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) $(TEST_RPATH) -o $@ $^ $(LDLIBS)
all: $(RING_DUMP)
test-programs: $(RING_DUMP)
