// SPDX-License-Identifier: MIT
/*
 * Engine driver: the s_axilite protocol of a Vitis HLS kernel. Write the
 * arguments, set START, poll DONE, read the return value.
 */
#include "hal.h"
#include "internal.h"
#include "quire/status.h"

int fw_engine_run(struct quire_fw *fw, uint32_t kind, const uint32_t *args, uint32_t nargs)
{
	uint32_t base = QUIRE_CARD_ENGINE(kind);
	if (nargs > QUIRE_ENGINE_MAX_ARGS)
		return QUIRE_ERR_INTERNAL;
	for (uint32_t i = 0; i < nargs; i++) {
		hal_write32(fw, base + QUIRE_ENGINE_ARG(i), args[i]);
		hal_write32(fw, base + QUIRE_ENGINE_ARG(i) + 4, 0);
	}
	hal_write32(fw, base + QUIRE_ENGINE_CTRL, QUIRE_ENGINE_START);
	while (!(hal_read32(fw, base + QUIRE_ENGINE_CTRL) & QUIRE_ENGINE_DONE))
		;
	return (int)hal_read32(fw, base + QUIRE_ENGINE_RETURN);
}
