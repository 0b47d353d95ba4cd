/* SPDX-License-Identifier: MIT */
/*
 * The host side of the fuzz inputs, on any card behind sim/device.h: rings in a
 * 16 MiB host window, and one input run as fuzz_card.c defines it (a reloc byte,
 * then up to 8 descriptors of 64 bytes, each answered in order, then a NOP). The
 * libFuzzer target runs it on the emu (tests/fuzz/fuzz_card.c); the RTL replay runs
 * the corpus on the RTL card and on the emu and compares (tests/rtl/test_card_fuzz.c).
 */
#ifndef QUIRE_TESTS_FUZZ_HOST_H
#define QUIRE_TESTS_FUZZ_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "sim/device.h"
#include "quire/cmd.h"

#define FUZZ_MAX_CMDS 8

struct fuzz_host {
	struct quire_device *dev;
	uint8_t *host;
	uint32_t cmdq, cplq;
	uint32_t prod, cons, phase;
	unsigned timeout_ms; /* a completion later than this is a hang */
};

/* What one input did: the descriptors as posted, and their completions. */
struct fuzz_result {
	size_t n;
	struct quire_cmd cmds[FUZZ_MAX_CMDS];
	struct quire_cpl cpls[FUZZ_MAX_CMDS];
	struct quire_cpl nop; /* the NOP after them */
};

/* Attaches a host window to dev and enables the rings. 0, or -1 when out of memory. */
int fuzz_host_setup(struct fuzz_host *h, struct quire_device *dev, unsigned timeout_ms);
void fuzz_host_free(struct fuzz_host *h);

/*
 * Runs one input: a fresh communicator of one member, the input's descriptors, a NOP.
 * 0 when every completion came; -1 (with `why`) when one did not in time, or came out
 * of order or with the wrong seq.
 */
int fuzz_host_run(struct fuzz_host *h, const uint8_t *data, size_t size, struct fuzz_result *r,
		  const char **why);

#endif
