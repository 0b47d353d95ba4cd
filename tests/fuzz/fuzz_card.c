// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the descriptor validator and the command loop of the real
 * firmware, on the functional card model.
 *
 * An input is up to 8 descriptors of 64 bytes; its first byte chooses which
 * address fields are moved into the card's DMA window (so fuzzing reaches the
 * engines, not only the validator). Each descriptor goes through the ring
 * (tests/fuzz/fuzz_host.c); the card must answer every one, in order, with a
 * known status, the status the validator gives whenever the validator refuses
 * it, and still serve a NOP afterwards. Descriptors never point at the rings'
 * pages. Build and run: make fuzz. tests/rtl/test_card_fuzz.c replays the corpus
 * on the RTL card.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "firmware/fw.h"
#include "sim/emu/emu.h"
#include "tests/fuzz/fuzz_host.h"
#include "quire/status.h"

static struct fuzz_host card;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!card.dev) {
		struct quire_device *dev = quire_emu_create(NULL);
		if (!dev || fuzz_host_setup(&card, dev, FUZZ_HANG_CYCLES_EMU))
			abort();
	}
	struct fuzz_result r;
	const char *why = NULL;
	if (fuzz_host_run(&card, data, size, &r, &why)) {
		fprintf(stderr, "%s\n", why);
		abort(); /* a hang, or completions out of order: bugs */
	}
	for (size_t i = 0; i < r.n; i++) {
		uint32_t detail;
		int verdict = quire_cmd_validate(&r.cmds[i], &detail);
		uint32_t status = quire_le16_to_cpu(r.cpls[i].status),
			 done_detail = quire_le32_to_cpu(r.cpls[i].detail);
		if (status >= QUIRE_STATUS_COUNT) {
			fprintf(stderr, "descriptor %zu (opcode %u): status %u\n", i,
				r.cmds[i].opcode, status);
			abort(); /* a status nobody knows */
		}
		if (verdict != QUIRE_OK && (status != (uint32_t)verdict || done_detail != detail)) {
			fprintf(stderr,
				"descriptor %zu (opcode %u): card says %u detail %u, validator %d "
				"detail %u\n",
				i, r.cmds[i].opcode, status, done_detail, verdict, detail);
			abort(); /* the card and the validator disagree */
		}
	}
	return 0;
}
