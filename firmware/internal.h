/* SPDX-License-Identifier: MIT */
/* Shared between the firmware's files; not part of its interface. */
#ifndef QUIRE_FW_INTERNAL_H
#define QUIRE_FW_INTERNAL_H

#include <stdint.h>

#include "fw.h"

/* bar.c */
int fw_find_blocks(struct quire_fw *fw);

/* dma.c: move len bytes between host address `host` and card memory `card`. */
int fw_dma(struct quire_fw *fw, uint64_t host, uint32_t card, uint32_t len, uint32_t dir);

/* engines.c: run an engine with its top function's arguments; returns its status. */
int fw_engine_run(struct quire_fw *fw, uint32_t kind, const uint32_t *args, uint32_t nargs);

/* ops.c: run a validated descriptor; *result is the completion's result field. */
int fw_execute(struct quire_fw *fw, const struct quire_cmd *cmd, uint32_t *result,
	       uint32_t *detail);

#endif
