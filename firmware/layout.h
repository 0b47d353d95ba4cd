/* SPDX-License-Identifier: MIT */
/*
 * How the firmware uses card memory. Commands larger than a staging buffer
 * are run in chunks of whole 64-element blocks.
 */
#ifndef QUIRE_FW_LAYOUT_H
#define QUIRE_FW_LAYOUT_H

#define FW_MAILBOX         0x00000000u /* the descriptor being served (64 B) */
#define FW_CPL             0x00000040u /* the completion being posted (32 B) */
#define FW_INFO            0x00000080u /* INFO's answer (64 B) */
#define FW_SMALL           0x00001000u /* the chosen candidate of MLP_SCORE */
#define FW_MODEL           0x00010000u /* MLP_LOAD's image */
#define FW_MODEL_BYTES     0x00070000u /* 448 KiB: the largest valid image is ~200 KiB */
#define FW_BUF_A           0x00100000u /* staging buffers, 8 MiB each */
#define FW_BUF_B           0x00900000u
#define FW_BUF_C           0x01100000u
#define FW_BUF_E           0x01900000u /* block exponents */
#define FW_BUF_BYTES       0x00800000u
#define FW_REDUCE_IN       0x02000000u /* REDUCE's W inputs, 32 MiB */
#define FW_REDUCE_IN_BYTES 0x02000000u
#define FW_MEM_NEEDED      0x04000000u /* 64 MiB of card memory */

/* Elements per chunk: 2 Mi fp32 fill a staging buffer. */
#define FW_CHUNK_ELEMS (FW_BUF_BYTES / 4u)

#endif /* QUIRE_FW_LAYOUT_H */
