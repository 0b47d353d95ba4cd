/* SPDX-License-Identifier: MIT */
/*
 * The walk of BAR0's register-block chain (quire/regs.h), one routine for every part
 * that looks for a block: the firmware, the driver, libquire and quire-sim. The walk
 * reads through the caller's 32-bit read function, so it serves an MMIO mapping, a
 * card model or a test's array alike. Implemented once, in contract/regblock.c.
 */
#ifndef QUIRE_REGBLOCK_H
#define QUIRE_REGBLOCK_H

#include "quire/regs.h"
#include "quire/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most blocks a chain may hold; a longer chain is refused as corrupt. */
#define QUIRE_RB_MAX_BLOCKS 16u

/* A type that reads all ones: no card answers (a PCI read of a device that is gone). */
#define QUIRE_RB_TYPE_NONE 0xffffffffu

/* One block of the chain, as its header says. */
struct quire_regblock {
	uint32_t offset;  /* from the start of BAR0 */
	uint32_t type;    /* QUIRE_RB_TYPE_* */
	uint32_t version; /* QUIRE_RB_MAKE_VERSION(major, minor) */
};

/* The chain in BAR order, from offset 0. */
struct quire_regblock_chain {
	uint32_t count;
	struct quire_regblock block[QUIRE_RB_MAX_BLOCKS];
};

/* Reads the 32-bit register at BAR0 offset `offset`; ctx is the walk's caller's. */
typedef uint32_t (*quire_regblock_read_fn)(void *ctx, uint32_t offset);

/*
 * Walk the chain from BAR0 offset 0 into *chain. Every block's header lies inside BAR0
 * (offset + QUIRE_RB_HEADER_BYTES <= QUIRE_BAR0_BYTES) and every next offset points past
 * its block's, so the walk ends on any card. QUIRE_OK; QUIRE_ERR_NO_DEVICE when a type
 * reads QUIRE_RB_TYPE_NONE; QUIRE_ERR_CORRUPT for a header that does not fit, a next
 * offset not past its block's (a loop, or a block of no size) or more than
 * QUIRE_RB_MAX_BLOCKS blocks. On a fault, *chain holds the blocks walked before it, each
 * with a header inside the BAR.
 */
int quire_regblock_walk(quire_regblock_read_fn read32, void *ctx,
			struct quire_regblock_chain *chain);

/*
 * The first block of `type` in a walked chain, for a part written against `version` of
 * it: QUIRE_OK and its *offset; QUIRE_ERR_VERSION, with *offset naming the block, when its
 * major version is not the part's; QUIRE_ERR_NO_DEVICE when the chain has none (*offset
 * is left as it was).
 */
int quire_regblock_find(const struct quire_regblock_chain *chain, uint32_t type, uint32_t version,
			uint32_t *offset);

/* A block a part needs: its type, the version the part implements, where its offset goes. */
struct quire_regblock_need {
	uint32_t type;
	uint32_t version;
	uint32_t *offset;
};

/*
 * quire_regblock_find for each of need[0 .. n): QUIRE_OK when all are there; else the
 * status of the first that is not, and its index in *failed (when failed is not NULL).
 */
int quire_regblock_find_all(const struct quire_regblock_chain *chain,
			    const struct quire_regblock_need *need, uint32_t n, uint32_t *failed);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_REGBLOCK_H */
