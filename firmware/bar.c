// SPDX-License-Identifier: MIT
/*
 * The firmware finds its own BAR blocks the way every consumer does: by
 * walking the chain from offset 0 and checking each version.
 */
#include "hal.h"
#include "internal.h"
#include "quire/regs.h"
#include "quire/status.h"

int fw_find_blocks(struct quire_fw *fw)
{
	static const struct {
		uint32_t type, version;
	} want[] = {
	    {QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION},
	    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION},
	    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION},
	    {QUIRE_RB_TYPE_IRQ, QUIRE_RB_IRQ_VERSION},
	    {QUIRE_RB_TYPE_ENGINES, QUIRE_RB_ENGINES_VERSION},
	    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION},
	};
	uint32_t *slot[] = {&fw->bar.id,  &fw->bar.cmdq,    &fw->bar.cplq,
			    &fw->bar.irq, &fw->bar.engines, &fw->bar.counters};
	uint32_t found = 0, off = 0;
	for (int hops = 0; hops < 32; hops++) {
		uint32_t type = hal_bar_read(fw, off, QUIRE_RB_TYPE);
		uint32_t version = hal_bar_read(fw, off, QUIRE_RB_VERSION);
		for (uint32_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			if (type != want[i].type)
				continue;
			if (QUIRE_RB_VERSION_MAJOR(version) !=
			    QUIRE_RB_VERSION_MAJOR(want[i].version))
				return QUIRE_ERR_VERSION;
			*slot[i] = off;
			found |= 1u << i;
		}
		uint32_t next = hal_bar_read(fw, off, QUIRE_RB_NEXT);
		if (next == 0)
			break;
		if (next <= off || next >= QUIRE_BAR0_BYTES)
			return QUIRE_ERR_CORRUPT; /* a loop or a jump out of the BAR */
		off = next;
	}
	return found == (1u << (sizeof(want) / sizeof(want[0]))) - 1 ? QUIRE_OK
								     : QUIRE_ERR_NO_DEVICE;
}
