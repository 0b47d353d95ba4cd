// SPDX-License-Identifier: MIT
/*
 * Engine driver: the s_axilite protocol of a Vitis HLS kernel. Write the
 * arguments, set START, poll DONE, read the return value. The start and the
 * wait are separate calls, so the firmware moves data while an engine runs.
 *
 * An engine the card's caps do not name is never touched (QUIRE_ERR_NOT_SUPPORTED).
 * On the card, a window that answers with an access fault anyway costs the command,
 * not the card: the trap handler (crt0.S) reads such a register as all ones, which
 * ends the DONE poll, and counts the fault (hal_access_faults).
 */
#include "engines.h"
#include "hal.h"
#include "internal.h"
#include "quire/regs.h"
#include "quire/status.h"

static uint32_t engine_cap(uint32_t kind)
{
	switch (kind) {
	case QUIRE_ENGINE_QUANT:
		return QUIRE_CAP_CODEC;
	case QUIRE_ENGINE_REDUCE:
		return QUIRE_CAP_REDUCE;
	case QUIRE_ENGINE_MLP:
		return QUIRE_CAP_MLP;
	default:
		return 0;
	}
}

/* Inlined into fw_engine_run too: an MLP decision's run pays no calls. */
static inline __attribute__((always_inline)) int engine_start(struct quire_fw *fw, uint32_t kind,
							      const uint32_t *args, uint32_t nargs,
							      uint32_t *faults)
{
	uint32_t base = QUIRE_CARD_ENGINE(kind);
	if (nargs > QUIRE_ENGINE_MAX_ARGS)
		return QUIRE_ERR_INTERNAL;
	uint32_t cap = engine_cap(kind);
	if (!cap || !(fw->caps & cap))
		return QUIRE_ERR_NOT_SUPPORTED;
	*faults = hal_access_faults(fw);
	/* Unrolled: a scheduler's decision writes 16 words here (docs/sched-api.md). */
#pragma GCC unroll 12
	for (uint32_t i = 0; i < nargs; i++) {
		hal_write32(fw, base + QUIRE_ENGINE_ARG(i), args[i]);
		hal_write32(fw, base + QUIRE_ENGINE_ARG(i) + 4, 0);
	}
	hal_write32(fw, base + QUIRE_ENGINE_CTRL, QUIRE_ENGINE_START);
	return QUIRE_OK;
}

static inline __attribute__((always_inline)) int engine_finish(struct quire_fw *fw, uint32_t kind,
							       uint32_t faults)
{
	while (!fw_engine_done(fw, kind))
		;
	int st = (int)hal_read32(fw, QUIRE_CARD_ENGINE(kind) + QUIRE_ENGINE_RETURN);
	return hal_access_faults(fw) == faults ? st : QUIRE_ERR_NOT_SUPPORTED;
}

int fw_engine_start(struct quire_fw *fw, uint32_t kind, const uint32_t *args, uint32_t nargs,
		    uint32_t *faults)
{
	return engine_start(fw, kind, args, nargs, faults);
}

int fw_engine_finish(struct quire_fw *fw, uint32_t kind, uint32_t faults)
{
	return engine_finish(fw, kind, faults);
}

int fw_engine_run(struct quire_fw *fw, uint32_t kind, const uint32_t *args, uint32_t nargs)
{
	uint32_t faults;
	int st = engine_start(fw, kind, args, nargs, &faults);
	return st ? st : engine_finish(fw, kind, faults);
}
