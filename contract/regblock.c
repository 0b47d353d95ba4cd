// SPDX-License-Identifier: MIT
/*
 * The register-block walk (quire/regblock.h): BAR0's chain read header by header,
 * with one bound for every header, and the blocks a part needs looked up in the chain by
 * their type and major version.
 */
#include "quire/regblock.h"
#include "quire/status.h"

int quire_regblock_walk(quire_regblock_read_fn read32, void *ctx,
			struct quire_regblock_chain *chain)
{
	uint32_t off = 0;

	chain->count = 0;
	for (;;) {
		struct quire_regblock *b;
		uint32_t next;

		/* The whole header inside the BAR, and room to record it. */
		if (off > QUIRE_BAR0_BYTES - QUIRE_RB_HEADER_BYTES ||
		    chain->count == QUIRE_RB_MAX_BLOCKS)
			return QUIRE_ERR_CORRUPT;
		b = &chain->block[chain->count];
		b->offset = off;
		b->type = read32(ctx, off + QUIRE_RB_TYPE);
		if (b->type == QUIRE_RB_TYPE_NONE)
			return QUIRE_ERR_NO_DEVICE;
		b->version = read32(ctx, off + QUIRE_RB_VERSION);
		chain->count++;
		next = read32(ctx, off + QUIRE_RB_NEXT);
		if (next == 0)
			return QUIRE_OK;
		if (next <= off)
			return QUIRE_ERR_CORRUPT; /* a loop, or a block over its predecessor */
		off = next;
	}
}

int quire_regblock_find(const struct quire_regblock_chain *chain, uint32_t type, uint32_t version,
			uint32_t *offset)
{
	uint32_t i;

	for (i = 0; i < chain->count; i++) {
		if (chain->block[i].type != type)
			continue;
		*offset = chain->block[i].offset;
		if (QUIRE_RB_VERSION_MAJOR(chain->block[i].version) !=
		    QUIRE_RB_VERSION_MAJOR(version))
			return QUIRE_ERR_VERSION;
		return QUIRE_OK;
	}
	return QUIRE_ERR_NO_DEVICE;
}

int quire_regblock_find_all(const struct quire_regblock_chain *chain,
			    const struct quire_regblock_need *need, uint32_t n, uint32_t *failed)
{
	uint32_t i;
	int st;

	for (i = 0; i < n; i++) {
		st = quire_regblock_find(chain, need[i].type, need[i].version, need[i].offset);
		if (st != QUIRE_OK) {
			if (failed)
				*failed = i;
			return st;
		}
	}
	return QUIRE_OK;
}
