# SPDX-License-Identifier: MIT
# sched/: the trace replay and the placement policies, linked into the quire CLI and
# test_sched (not part of libquire: a scheduler's own code).
SCHED_SRCS := sched/trace.c sched/policy.c sched/replay.c sched/neural.c
SCHED_OBJS := $(SCHED_SRCS:%.c=$(BUILD)/%.o)
SCHED_TEST := $(BUILD)/tests/test_sched
$(SCHED_TEST): $(BUILD)/tests/test_sched.o $(SCHED_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
