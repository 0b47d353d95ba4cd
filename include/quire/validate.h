/* SPDX-License-Identifier: MIT */
/*
 * The descriptor rules every part checks the same way: the card's firmware before it
 * runs a descriptor, libquire before it posts one, and a kernel driver before the card
 * sees one. One implementation, contract/validate.c, plain C with no dependencies
 * beyond this contract, is compiled into each of them; libquire does not export it.
 */
#ifndef QUIRE_VALIDATE_H
#define QUIRE_VALIDATE_H

#include "quire/cmd.h"
#include "quire/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one element of a format id (quire/format.h); 0 for an unknown id. */
uint32_t quire_format_elem_bytes(uint32_t fmt);

/* Check every field of a descriptor; QUIRE_OK or a status, *detail names the field. */
int quire_cmd_validate(const struct quire_cmd *cmd, uint32_t *detail);

/*
 * Bytes each host buffer of a valid descriptor spans, in the order src, dst,
 * exp, aux (0: not used). mlp_width0: input width of the loaded model, for
 * MLP_SCORE. The firmware checks these against its DMA window, libquire
 * against the caller's buffers: one rule for both.
 */
void quire_cmd_extents(const struct quire_cmd *cmd, uint32_t mlp_width0, uint64_t ext[4]);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_VALIDATE_H */
