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
#define FW_COLL_EXP 0x04000000u /* up to 4 Mi blocks (2^28 elements) */
#define FW_COLL_X   0x04400000u /* input, fp32 or int32 */
#define FW_COLL_R   0x04420000u /* residual (error feedback) */
#define FW_COLL_TX  0x0447ffe0u /* the frame being sent: header, then payload on a line */
#define FW_COLL_T   0x044c0000u /* an int64 sum before it is narrowed */

/* The network port's rings and the receive buffers it fills (firmware/net.c). The buffers
 * are half a line in, so that a frame's payload, after its 32-byte header, is on a line:
 * the engines stream it from there (a REDUCE of a received partial sum, a DECODE). */
#define FW_NET_TX_RING     0x04500000u /* 2^FW_NET_TX_LOG2 transmit descriptors */
#define FW_NET_RX_RING     0x04500400u /* 2^FW_NET_RX_LOG2 receive descriptors */
#define FW_NET_RX_BUF      0x04501020u /* QUIRE_FW_NET_BUFS (fw.h) buffers of a whole frame, */
#define FW_NET_RX_BUF_STEP 0x00010040u /* a header and 64 KiB, rounded up to lines */
#define FW_NET_TX_LOG2     4u
#define FW_NET_RX_LOG2     5u

/* Frames of one segment a collective sends at a step before it goes on to the next step:
 * the ring collectives run in rounds of this many frames of every segment (allreduce.c,
 * gather.c), so that a card's frames sent run ahead of its frames received by at most this
 * many, which the next card's receive ring (2^FW_NET_RX_LOG2 buffers posted) has room
 * for: cards that send to each other never all wait on full receive rings, whatever the
 * size. Smaller rounds would leave a card waiting for frames still on their hop. */
#define FW_RING_WINDOW 16u
_Static_assert(FW_RING_WINDOW < (1u << FW_NET_RX_LOG2), "a round fits a receive ring");

/* This card's contribution to a collective, encoded: above every receive buffer, so that a
 * REDUCE of a received payload (input 0) and it (input 1, a whole number of lines further)
 * spans no other buffer of the collective, and the engine streams. */
#define FW_COLL_L 0x04810000u
/* Two slots of it, a frame's worth each: one chunk's contribution is added from one while
 * the next one's is encoded into the other. */
#define FW_COLL_L_SLOT 0x00010000u
/* A collective's other frame being sent (as FW_COLL_TX): the engines fill one while the
 * port sends the other. */
#define FW_COLL_TX2 0x0483ffe0u
/* A collective's results, in a ring of FW_COLL_Y_BUFS buffers of a frame's worth each that
 * go to the host in turn on a DMA channel's queue: a result is decoded into the next buffer
 * while the ones before it still go, so an all-gather runs at the engine's pace, not the
 * host link's, and what is left goes while the next part's reduce-scatter runs
 * (allreduce.c). Where the mover decodes on the way out, a buffer holds the card's own
 * finished sums instead, a frame's payload (its header before it) sent from there. */
#define FW_COLL_Y       0x04850000u
#define FW_COLL_Y_BYTES 0x00020000u /* 32 Ki fp32: a frame's worth of int16 */
#define FW_COLL_Y_BUFS  16u         /* QUIRE_DMA_QUEUE_DEPTH: a transfer each */
#define FW_MEM_NEEDED   0x04a50000u /* 74.3 MiB of card memory */
_Static_assert(FW_COLL_Y + FW_COLL_Y_BUFS * FW_COLL_Y_BYTES <= FW_MEM_NEEDED, "the results fit");
_Static_assert(FW_COLL_L + 2u * FW_COLL_L_SLOT <= FW_COLL_TX2, "two slots of contributions");

/* ENCODE, EXPONENTS, DECODE and REDUCE run pipelined (pipe.c): chunks of up to
 * FW_PIPE_ELEMS elements, chunk k in set k % FW_PIPE_SETS of buffers, so that while an
 * engine works on chunk k, the next chunks come in (DMA channel 0) and the ones before go
 * out (channel 1); a chunk comes in once the set's chunk before it has gone out. Set s's
 * buffers are FW_BUF_A/B/C/E + s * FW_PIPE_SET_BYTES (x or values, residual, output,
 * exponents) and REDUCE's W inputs FW_REDUCE_IN + s * FW_PIPE_REDUCE_IN_BYTES. DECODE's
 * first chunk is FW_PIPE_FIRST elements, so that its transfers out, which bound it, start
 * soon; towards the end the chunks shrink (pipe_len) down to FW_PIPE_TAIL, the last to
 * FW_PIPE_STEP, so that the last run and transfers out, which no transfer in overlaps, are
 * short. A chunk is a whole number of FW_PIPE_STEP elements, a 64-byte line of exponents (a
 * byte a block of QUIRE_BFP_BLOCK); fewer chunks cost less of the control core's time
 * (docs/rtl-card.md). */
#define FW_PIPE_ELEMS           32768u
#define FW_PIPE_STEP            4096u
#define FW_PIPE_FIRST           16384u
#define FW_PIPE_TAIL            12288u
#define FW_PIPE_SETS            8u
#define FW_PIPE_SET_BYTES       (8u * FW_PIPE_ELEMS) /* an int64 output: the widest */
#define FW_PIPE_REDUCE_IN_BYTES 0x00400000u          /* 8 x 4 MiB: FW_REDUCE_IN */
_Static_assert(FW_PIPE_FIRST % FW_PIPE_STEP == 0 && FW_PIPE_TAIL % FW_PIPE_STEP == 0 &&
		   FW_PIPE_ELEMS % FW_PIPE_STEP == 0,
	       "chunks of whole lines of exponents");
_Static_assert((FW_PIPE_SETS * FW_PIPE_SET_BYTES) <= FW_BUF_BYTES, "the sets fit a buffer");
_Static_assert((FW_PIPE_SETS * FW_PIPE_REDUCE_IN_BYTES) <= FW_REDUCE_IN_BYTES,
	       "REDUCE's sets fit its input buffer");

/* FW_COLL_TX's payload starts on a line because the engines stream only line-aligned buffers. */

/* Elements per chunk: 2 Mi fp32 fill a staging buffer. */
#define FW_CHUNK_ELEMS (FW_BUF_BYTES / 4u)

/* Units per frame: a full payload of the wire format's elements (8 Ki int64 to 32 Ki int16;
 * whole blocks, so a frame's exponents are whole too), or 64 Ki block exponents. The
 * FW_COLL_* buffers hold one frame's worth of fp32. */
#define FW_FRAME_BLOCKS 65536u

#endif /* QUIRE_FW_LAYOUT_H */
