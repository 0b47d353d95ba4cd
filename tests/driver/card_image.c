// SPDX-License-Identifier: MIT
/*
 * card_image: writes FILE, BYTES long, that looks like a quire card's register window
 * to a driver's walk: the block chain from offset 0 (ID, CMDQ, CPLQ, IRQ, COUNTERS, at
 * the versions of include/quire/regs.h), the ID block's magic and interface version,
 * firmware RUNNING. tests/driver/qemu_test.sh gives it to the guest as ivshmem-plain's
 * memory: a quire card on a device without MSI-X, which the driver must refuse after the
 * walk (plain ivshmem has no MSI-X table), leaving nothing behind.
 * Usage: card_image FILE BYTES
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quire/regs.h"

static void put32(uint8_t *w, uint32_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		w[off + i] = (uint8_t)(v >> (8 * i)); /* registers are little-endian */
}

int main(int argc, char **argv)
{
	static const uint32_t blocks[][2] = {
	    {QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION},
	    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION},
	    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION},
	    {QUIRE_RB_TYPE_IRQ, QUIRE_RB_IRQ_VERSION},
	    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION},
	};
	const uint32_t step = 0x100, n = sizeof(blocks) / sizeof(blocks[0]);
	char *end;
	unsigned long bytes = argc == 3 ? strtoul(argv[2], &end, 0) : 0;
	if (argc != 3 || !*argv[2] || *end || bytes < QUIRE_BAR0_BYTES || bytes > (1ul << 30)) {
		fprintf(stderr, "usage: card_image FILE BYTES (BYTES from %u to 1 GiB)\n",
			QUIRE_BAR0_BYTES);
		return 2;
	}
	uint8_t *w = calloc(1, bytes);
	if (!w)
		return perror("card_image"), 1;
	for (uint32_t i = 0; i < n; i++) {
		put32(w, i * step + QUIRE_RB_TYPE, blocks[i][0]);
		put32(w, i * step + QUIRE_RB_VERSION, blocks[i][1]);
		put32(w, i * step + QUIRE_RB_NEXT, i + 1 < n ? (i + 1) * step : 0);
	}
	put32(w, QUIRE_ID_MAGIC, QUIRE_ID_MAGIC_VALUE);
	put32(w, QUIRE_ID_IF_VERSION, QUIRE_INTERFACE_VERSION);
	put32(w, QUIRE_ID_BOARD, QUIRE_BOARD_SIM);
	put32(w, QUIRE_ID_FW_STATE, QUIRE_FW_STATE_RUNNING);
	FILE *f = fopen(argv[1], "wb");
	int ok = f && fwrite(w, 1, bytes, f) == bytes;
	if (f && fclose(f) != 0)
		ok = 0;
	free(w);
	if (!ok) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
