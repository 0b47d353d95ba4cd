// SPDX-License-Identifier: MIT
/*
 * The firmware finds its own BAR blocks as every part does: the chain walked from
 * offset 0 by the contract's walk (quire/regblock.h), and each block it serves looked
 * up with the version it implements.
 */
#include "hal.h"
#include "internal.h"
#include "quire/regblock.h"
#include "quire/status.h"

static uint32_t bar_read(void *fw, uint32_t offset)
{
	return hal_bar_read(fw, 0, offset);
}

int fw_find_blocks(struct quire_fw *fw)
{
	const struct quire_regblock_need need[] = {
	    {QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION, &fw->bar.id},
	    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, &fw->bar.cmdq},
	    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &fw->bar.cplq},
	    {QUIRE_RB_TYPE_IRQ, QUIRE_RB_IRQ_VERSION, &fw->bar.irq},
	    {QUIRE_RB_TYPE_ENGINES, QUIRE_RB_ENGINES_VERSION, &fw->bar.engines},
	    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION, &fw->bar.counters},
	};
	struct quire_regblock_chain chain;
	int st = quire_regblock_walk(bar_read, fw, &chain);
	if (st != QUIRE_OK)
		return st;
	return quire_regblock_find_all(&chain, need, sizeof(need) / sizeof(need[0]), NULL);
}
