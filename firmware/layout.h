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
#define FW_ABORT_FRAME     0x00001800u /* an ABORT frame being sent (32 B) */
#define FW_KEEPALIVE_FRAME 0x00001840u /* a KEEPALIVE frame being sent (32 B) */
#define FW_COMM_ADDRS      0x00002000u /* members' addresses, one table per communicator */
#define FW_COMM_ADDRS_STEP 0x00000800u /* 1024 members x 2 bytes */
#define FW_COMM_DESC       0x00004000u /* COMM_INIT's descriptor, as read */
#define FW_MODEL           0x00010000u /* MLP_LOAD's image */
#define FW_MODEL_BYTES     0x00070000u /* 448 KiB: the largest valid image is ~200 KiB */
#define FW_BUF_A           0x00100000u /* staging buffers, 8 MiB each */
#define FW_BUF_B           0x00900000u
#define FW_BUF_C           0x01100000u
#define FW_BUF_E           0x01900000u /* block exponents */
#define FW_BUF_BYTES       0x00800000u
#define FW_REDUCE_IN       0x02000000u /* REDUCE's W inputs, 32 MiB */
#define FW_REDUCE_IN_BYTES 0x02000000u
/* Collectives: the block exponents of a whole vector, then one chunk of everything. */
#define FW_COLL_EXP   0x04000000u /* up to 4 Mi blocks (2^28 elements) */
#define FW_COLL_X     0x04400000u /* input, fp32 or int32 */
#define FW_COLL_R     0x04420000u /* residual (error feedback) */
#define FW_COLL_L     0x04440000u /* this card's contribution, encoded */
#define FW_COLL_RX    0x04460000u /* a received partial sum */
#define FW_COLL_TX    0x04480000u /* the frame being sent: header, then payload */
#define FW_COLL_Y     0x044a0000u /* result, fp32 */
#define FW_COLL_T     0x044c0000u /* an int64 sum before it is narrowed */
#define FW_MEM_NEEDED 0x04500000u /* 69 MiB of card memory */

/* Elements per chunk: 2 Mi fp32 fill a staging buffer. */
#define FW_CHUNK_ELEMS (FW_BUF_BYTES / 4u)

/* Units per frame: a full payload of the wire format's elements (8 Ki int64 to 32 Ki int16;
 * whole blocks, so a frame's exponents are whole too), or 64 Ki block exponents. The
 * FW_COLL_* buffers hold one frame's worth of fp32. */
#define FW_FRAME_BLOCKS 65536u

#endif /* QUIRE_FW_LAYOUT_H */
