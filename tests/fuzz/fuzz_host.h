/* SPDX-License-Identifier: MIT */
/*
 * The host side of the fuzz inputs, on any card behind sim/device.h: rings in a
 * 16 MiB host window, and one input run as fuzz_card.c defines it (a reloc byte,
 * then up to 8 descriptors of 64 bytes, each answered in order, then a NOP). The
 * libFuzzer target runs it on the emu (tests/fuzz/fuzz_card.c); the RTL replay runs
 * the corpus on the RTL card and on the emu and compares (tests/rtl/test_card_fuzz.c).
 *
 * A hang is measured in the card's own time, its free-running cycle counter
 * (QUIRE_CNT_CYCLES): a completion the card has not posted after its clock moved
 * FUZZ_HANG_CYCLES is never coming. A simulated card runs at whatever speed the
 * machine gives it (the RTL card between about 12,000 and 200,000 cycles a second),
 * so a bound in wall time would fail the same input on a loaded machine only; in its
 * cycles an input passes or fails alike everywhere. (The emu's clock is wall time:
 * FUZZ_HANG_CYCLES_EMU.)
 */
#ifndef QUIRE_TESTS_FUZZ_HOST_H
#define QUIRE_TESTS_FUZZ_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "sim/device.h"
#include "quire/cmd.h"

#define FUZZ_MAX_CMDS 8

/*
 * Card cycles a completion may take, counted from the doorbell or from the completion
 * before it: 2^26, about 268 ms of a 250 MHz card. The longest wait in the corpus on the
 * RTL card is 3.6 million cycles (input ccbfb315..., two ENCODEs of 196,840 elements,
 * about 9 cycles an element; test_card_fuzz prints the figure each run): the bound is
 * 18 times that, and above the 38 million cycles a single command over the whole 16 MiB
 * window (4 Mi fp32 elements) would take at that rate, so no legitimate input comes near
 * it. A card asleep with a completion owed (its clock then runs in real time) shows the
 * hang within about a quarter of a second; a card spinning, within 2^26 simulated cycles.
 */
#define FUZZ_HANG_CYCLES (1ull << 26)
/*
 * The bound for the emu, whose cycle counter is the machine's monotonic clock at 250 MHz
 * (sim/emu/emu.c): its card time is wall time, so any bound on it is one in wall time,
 * and this one is wide enough for a loaded machine: 10 s, thousands of times what the
 * corpus's longest input takes the emu, and below libFuzzer's -timeout (20 s,
 * tests/fuzz/build.mk), so that a hang is reported as one.
 */
#define FUZZ_HANG_CYCLES_EMU (10ull * 250000000ull)

struct fuzz_host {
	struct quire_device *dev;
	uint8_t *host;
	uint32_t cmdq, cplq, counters;
	uint32_t prod, cons, phase;
	uint64_t hang_cycles;  /* a completion later than this, in card cycles, is a hang */
	uint64_t longest_wait; /* the most card cycles a completion took so far */
};

/* What one input did: the descriptors as posted, and their completions. */
struct fuzz_result {
	size_t n;
	struct quire_cmd cmds[FUZZ_MAX_CMDS];
	struct quire_cpl cpls[FUZZ_MAX_CMDS];
	struct quire_cpl nop; /* the NOP after them */
};

/* Attaches a host window to dev and enables the rings; a completion that takes more than
 * hang_cycles of the card's clock is a hang. 0, or -1 when out of memory or when the card
 * lacks a block the harness needs (queues, counters). */
int fuzz_host_setup(struct fuzz_host *h, struct quire_device *dev, uint64_t hang_cycles);
void fuzz_host_free(struct fuzz_host *h);

/*
 * Runs one input: a fresh communicator of one member, the input's descriptors, a NOP.
 * 0 when every completion came; -1 (with `why`) when one did not within hang_cycles of
 * the card's clock, or came out of order or with the wrong seq.
 */
int fuzz_host_run(struct fuzz_host *h, const uint8_t *data, size_t size, struct fuzz_result *r,
		  const char **why);

#endif
