/* SPDX-License-Identifier: MIT */
/*
 * The engines' driver (engines.c, docs/registers/engine-window.md): run an engine with its
 * top function's arguments. What the pipelined commands ask in their loop, whether a run
 * is done and the next run's START, is inline here, so that it costs no call.
 */
#ifndef QUIRE_FW_ENGINES_H
#define QUIRE_FW_ENGINES_H

#include <stdint.h>

#include "fw.h"
#include "hal.h"
#include "quire/regs.h"

/* Run it; its status. The parts: start it (a status other than QUIRE_OK: not started;
 * *faults for the finish), ask whether it is done, and wait for it (its status). */
int fw_engine_run(struct quire_fw *fw, uint32_t kind, const uint32_t *args, uint32_t nargs);
int fw_engine_start(struct quire_fw *fw, uint32_t kind, const uint32_t *args, uint32_t nargs,
		    uint32_t *faults);
int fw_engine_finish(struct quire_fw *fw, uint32_t kind, uint32_t faults);

static inline int fw_engine_done(struct quire_fw *fw, uint32_t kind)
{
	return (hal_read32(fw, QUIRE_CARD_ENGINE(kind) + QUIRE_ENGINE_CTRL) & QUIRE_ENGINE_DONE) !=
	       0;
}

/* Run it again after a start that succeeded: the arguments that change written anew (a
 * run takes them at its START, so while the run before works), then START. */
static inline void fw_engine_go(struct quire_fw *fw, uint32_t kind, uint32_t *faults)
{
	*faults = hal_access_faults(fw);
	hal_write32(fw, QUIRE_CARD_ENGINE(kind) + QUIRE_ENGINE_CTRL, QUIRE_ENGINE_START);
}

#endif /* QUIRE_FW_ENGINES_H */
