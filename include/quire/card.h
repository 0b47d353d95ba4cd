/* SPDX-License-Identifier: MIT */
/*
 * Inside the card: the address map of the control core.
 *
 * The firmware reaches everything through 32-bit loads and stores at these
 * addresses (its HAL); the card models (emu, rtl) implement the same map.
 *
 *   0x1000_0000  BAR0 register blocks (the host's view, include/quire/regs.h)
 *   0x1001_0000  control block, private to the firmware
 *   0x1002_0000  DMA mover: host memory <-> card memory
 *   0x1003_0000  engines, 0x1000 apart, in enum quire_engine_kind order
 *   0x1004_0000  network port (frames to and from other cards, include/quire/frame.h)
 *   0x1005_0000  simulation I/O of the RTL card (console, sim-exit); no real card has it
 *   0x1006_0000  queue engine: descriptor fetcher and completion writer
 *   0x8000_0000  card memory (engines and the DMA mover address it from 0)
 */
#ifndef QUIRE_CARD_H
#define QUIRE_CARD_H

#include "quire/regs.h"

#define QUIRE_CARD_BAR          0x10000000u
#define QUIRE_CARD_CTL          0x10010000u
#define QUIRE_CARD_DMA          0x10020000u
#define QUIRE_CARD_ENGINES      0x10030000u /* engine kind 1's window; one per kind */
#define QUIRE_CARD_ENGINE_BYTES 0x1000u
#define QUIRE_CARD_ENGINE(kind) (QUIRE_CARD_ENGINES + QUIRE_CARD_ENGINE_BYTES * ((kind)-1))
#define QUIRE_CARD_NET          0x10040000u
#define QUIRE_CARD_SIM_IO       0x10050000u
#define QUIRE_CARD_QUEUE        0x10060000u
#define QUIRE_CARD_MEM          0x80000000u

/* Control block. */
#define QUIRE_CTL_QUEUE_EPOCH 0x00 /* bumped by the card each time the host enables the queues */
#define QUIRE_CTL_IRQ_RAISE                                                                        \
	0x04 /* write causes (QUIRE_IRQ_*): they become pending in the IRQ block */
#define QUIRE_CTL_CYCLES_LO 0x08 /* free-running cycle counter; reading LO latches HI */
#define QUIRE_CTL_CYCLES_HI 0x0c
/*
 * The host memory window: the only host addresses the DMA mover reaches (set by
 * the host side of the card, as an address translation table would be). The
 * firmware checks every buffer against it before a command moves anything, so
 * a command either runs whole or fails without writing.
 */
#define QUIRE_CTL_HOST_WIN_BASE_LO 0x10
#define QUIRE_CTL_HOST_WIN_BASE_HI 0x14
#define QUIRE_CTL_HOST_WIN_SIZE_LO 0x18
#define QUIRE_CTL_HOST_WIN_SIZE_HI 0x1c
/* The firmware's timer: waiting for an event ends at the latest when the cycle
 * counter reaches this (0: no limit). How collectives time out. */
#define QUIRE_CTL_WAKE_AT_LO 0x20
#define QUIRE_CTL_WAKE_AT_HI 0x24

/*
 * Network port: frames move between card memory and the wire through two rings of
 * descriptors in card memory (docs/registers/net-rings.md). A ring is 2^LOG2 descriptors
 * of QUIRE_NET_DESC_BYTES at BASE (16-byte aligned, wholly inside card memory, or the
 * ring's STATE is QUIRE_ERR_RANGE and the port takes nothing from it); writing LOG2 sets
 * the ring up again with PROD and CONS at 0. PROD and CONS count descriptors from then on
 * (32-bit, wrapping); descriptor i is at BASE + 16 * (i mod 2^LOG2). The firmware fills
 * descriptors and moves PROD on; the port works through them in order, writes each one's
 * LEN and STATUS back and moves CONS on, so descriptors [CONS, PROD) are the port's.
 *   transmit: a descriptor names a frame (header, then payload; CARD 4-byte aligned, LEN
 *     from a header to a header and QUIRE_FRAME_MAX_PAYLOAD bytes); the port stamps its
 *     own address as the source, fills the header's crc32 and sends it whole or not at
 *     all. STATUS: QUIRE_OK (sent; DESC_F_NOBODY when no port had the address and it was
 *     lost), QUIRE_ERR_BUSY (the peer cannot take it now: queue it again later),
 *     QUIRE_ERR_SIZE or QUIRE_ERR_RANGE (nothing sent).
 *   receive: a descriptor posts a buffer (CARD 64-byte aligned, LEN its bytes, at least a
 *     header); a frame is written there whole as it came (header, then payload) and LEN
 *     becomes the frame's bytes. STATUS: QUIRE_OK; QUIRE_ERR_SIZE with DESC_F_TRUNC when the
 *     frame was longer than the buffer (its first LEN-as-posted bytes written); a buffer
 *     outside card memory is given back at once with QUIRE_ERR_RANGE and nothing written.
 *     A frame that fails the CRC or length check is counted (RX_ERRORS of the NETPORT
 *     record) and never completes a descriptor: its buffer takes the next frame. With no
 *     buffer posted the port takes no frame (the network pushes back on the sender);
 *     RX_NOBUF counts the frames that took the last buffer posted.
 * Every descriptor the port completes has DESC_F_DONE in FLAGS; a frame received wakes
 * the core.
 */
#define QUIRE_NET_PORT_ADDR     0x00 /* this port's address on the card network */
#define QUIRE_NET_PORT_LINK     0x04 /* 1 when attached to a network */
#define QUIRE_NET_TX_BASE       0x10 /* the transmit ring */
#define QUIRE_NET_TX_LOG2       0x14 /* 0..QUIRE_NET_RING_LOG2_MAX; a write resets PROD, CONS */
#define QUIRE_NET_TX_PROD       0x18 /* the firmware's: descriptors queued */
#define QUIRE_NET_TX_CONS       0x1c /* the port's: descriptors done */
#define QUIRE_NET_TX_STATE      0x20 /* QUIRE_OK, or QUIRE_ERR_RANGE: the ring is not in memory */
#define QUIRE_NET_RX_BASE       0x30 /* the receive ring */
#define QUIRE_NET_RX_LOG2       0x34
#define QUIRE_NET_RX_PROD       0x38 /* the firmware's: buffers posted */
#define QUIRE_NET_RX_CONS       0x3c /* the port's: descriptors completed */
#define QUIRE_NET_RX_STATE      0x40
#define QUIRE_NET_RX_NOBUF      0x44 /* frames that took the last buffer posted */
#define QUIRE_NET_RX_BAD        0x48 /* frames dropped: CRC or length check failed */
#define QUIRE_NET_RING_LOG2_MAX 12u
/* A descriptor: four little-endian 32-bit words. */
#define QUIRE_NET_DESC_BYTES    16u
#define QUIRE_NET_DESC_CARD     0x0  /* card memory byte address of the frame or buffer */
#define QUIRE_NET_DESC_LEN      0x4  /* frame bytes (transmit, received) or buffer bytes (posted) */
#define QUIRE_NET_DESC_STATUS   0x8  /* low 16 bits: a QUIRE_ status; high 16: QUIRE_NET_DESC_F_* */
#define QUIRE_NET_DESC_PAD      0xc  /* 0 */
#define QUIRE_NET_DESC_F_DONE   0x1u /* the port completed it */
#define QUIRE_NET_DESC_F_TRUNC  0x2u /* received: longer than the buffer, cut */
#define QUIRE_NET_DESC_F_NOBODY 0x4u /* sent: no port had the address, the frame is lost */

/* Simulation I/O (the RTL card under Verilator): for bare-metal programs and debugging. */
#define QUIRE_SIM_IO_CONSOLE 0x00 /* store a byte (low 8 bits): the harness prints it */
#define QUIRE_SIM_IO_EXIT    0x04 /* store a word: the simulation ends with it (0 = pass) */

/* DMA mover: QUIRE_DMA_CHANNELS channels, each the registers below at
 * QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(c). A START posts a copy of the registers to the
 * channel's queue of up to QUIRE_DMA_QUEUE_DEPTH transfers, which it runs in order, each
 * checked as it begins; the firmware counts them done with DONE_COUNT, so the channel goes
 * from one transfer to the next without waiting for it (a START with the queue full is
 * refused at once: QUIRE_ERR_BUSY, counted). The channels run at once (on the
 * RTL card each has a host port and a card memory port of its own), so transfers to the
 * card and to the host overlap. The queue engine shares channel 0's host port.
 * docs/registers/dma.md. */
#define QUIRE_DMA_CHANNELS      2u
#define QUIRE_DMA_CHANNEL_BYTES 0x40u
#define QUIRE_DMA_CHANNEL(c)    (QUIRE_DMA_CHANNEL_BYTES * (c))
#define QUIRE_DMA_QUEUE_DEPTH   16u
#define QUIRE_DMA_HOST_LO       0x00
#define QUIRE_DMA_HOST_HI       0x04
#define QUIRE_DMA_CARD          0x08 /* card memory offset */
#define QUIRE_DMA_LEN           0x0c /* bytes */
#define QUIRE_DMA_DIR           0x10 /* one of the QUIRE_DMA_TO_* below */
/* CTRL: write QUIRE_DMA_START to post a transfer; reads QUIRE_DMA_DONE once the queue is
 * empty (0 from a START until then). STATUS: the status of the last transfer finished. */
#define QUIRE_DMA_CTRL   0x14
#define QUIRE_DMA_STATUS 0x18
/* The queue epoch (QUIRE_CTL_QUEUE_EPOCH) of the command a transfer serves: the mover
 * refuses it with QUIRE_ERR_PEER once the epoch has moved on, so nothing of a host that
 * left ever reaches the memory of the next one. */
#define QUIRE_DMA_EPOCH 0x1c
/* Read only: transfers finished since reset (mod 2^32, refused ones too); of those, the
 * ones whose status is not QUIRE_OK, and the status of the last of them (QUIRE_OK before
 * any); transfers posted and not finished (0 to QUIRE_DMA_QUEUE_DEPTH); the bytes of the
 * transfers finished QUIRE_OK (mod 2^32). */
#define QUIRE_DMA_DONE_COUNT    0x20
#define QUIRE_DMA_FAILED_COUNT  0x24
#define QUIRE_DMA_FAILED_STATUS 0x28
#define QUIRE_DMA_QUEUED        0x2c
#define QUIRE_DMA_BYTES_DONE    0x30
/* TO_CARD_EXPS: the card memory offset where the transfer's block exponents go;
 * TO_HOST_DECODE: where they are read. */
#define QUIRE_DMA_EXP 0x34
/* TO_HOST_DECODE: what is decoded, QUIRE_DMA_DECODE_WORD(format, value format, mean). */
#define QUIRE_DMA_DECODE                  0x38
#define QUIRE_DMA_DECODE_WORD(f, vf, w)   ((uint32_t)(f) | (uint32_t)(vf) << 8 | (uint32_t)(w) << 16)
#define QUIRE_DMA_DECODE_FORMAT(word)     ((word)&0xffu)
#define QUIRE_DMA_DECODE_VAL_FORMAT(word) ((word) >> 8 & 0xffu)
#define QUIRE_DMA_DECODE_MEAN(word)       ((word) >> 16)

#define QUIRE_DMA_TO_CARD                 0u
#define QUIRE_DMA_TO_HOST                 1u
/* To the card, fp32 from and to a 64-byte line, and besides, the exponent of each block of
 * QUIRE_BFP_BLOCK fp32 it carries (as quire_quant_exponents without error feedback) at
 * EXP + k for block k: the block exponents of an input, computed as it comes. */
#define QUIRE_DMA_TO_CARD_EXPS 2u
/* To the host, on channel QUIRE_DMA_DECODE_CHANNEL only: LEN bytes of fp32 decoded from the
 * values at CARD (and, for a block format, the exponents at EXP), as quire_quant_decode with
 * the DECODE register's format, value format and mean, from and to a 64-byte line: a
 * DECODE whose output goes straight to the host, with no engine run. */
#define QUIRE_DMA_TO_HOST_DECODE 3u
#define QUIRE_DMA_DECODE_CHANNEL 1u

#define QUIRE_DMA_START          1u
#define QUIRE_DMA_DONE           2u

/*
 * Queue engine: the host's rings in hardware, beside the DMA mover. The descriptor
 * fetcher: once armed with the epoch's rings, whenever the command queue's PRODUCER is
 * ahead of its CONSUMER (the host rang the doorbell) it fetches the descriptor at
 * CONSUMER into DESC, with the DMA mover's checks (the epoch, then the host window), while
 * the firmware wakes; a new CONSUMER, a new queue epoch or a new setup lets it go.
 * DESC_NONZERO says which words of DESC are not 0, so the firmware reads only those (a
 * plain NOP: two). The completion writer: the firmware puts a record's words in CPL and
 * writes its ring index to CPL_POST; the engine writes the 32 bytes at that slot, the
 * phase word (from the index) last, with the same checks. The block starts with the
 * common header of regs.h (QUIRE_RB_TYPE, QUIRE_RB_VERSION, QUIRE_RB_NEXT = 0), so the
 * firmware finds out whether a card has one; without it the firmware moves descriptors
 * and records with the DMA mover. docs/registers/queue-engine.md.
 */
#define QUIRE_QE_TYPE         0x51430001u /* "QC": a block inside the card, not in BAR0 */
#define QUIRE_QE_VERSION      QUIRE_RB_MAKE_VERSION(1, 1)
#define QUIRE_QE_CTRL         0x10 /* QUIRE_QE_ARM: fetch descriptors; 0: stop */
#define QUIRE_QE_EPOCH        0x14 /* the queue epoch of the rings below (as QUIRE_DMA_EPOCH) */
#define QUIRE_QE_CMD_BASE_LO  0x18 /* the command ring, as the firmware read it at the epoch */
#define QUIRE_QE_CMD_BASE_HI  0x1c
#define QUIRE_QE_CMD_LOG2     0x20
#define QUIRE_QE_CPL_BASE_LO  0x24 /* the completion ring */
#define QUIRE_QE_CPL_BASE_HI  0x28
#define QUIRE_QE_CPL_LOG2     0x2c
#define QUIRE_QE_DESC_STATE   0x30 /* QUIRE_QE_IDLE, _BUSY (fetching), _HELD (DESC is CONSUMER's) */
#define QUIRE_QE_DESC_STATUS  0x34 /* of the held descriptor's fetch: OK, ERR_PEER, ERR_RANGE */
#define QUIRE_QE_CPL_POST     0x38 /* write a ring index: post CPL there; reads _BUSY or _DONE */
#define QUIRE_QE_CPL_STATUS   0x3c /* of the last post: OK, ERR_PEER, ERR_RANGE */
#define QUIRE_QE_CPL0         0x40 /* the record's 8 words (QUIRE_CPL_W_*); FLAGS is the phase */
#define QUIRE_QE_DESC_NONZERO 0x60 /* bit i set: DESC word i is not 0 (unpack only what is set) */
#define QUIRE_QE_SERVE        0x64 /* QUIRE_QE_SERVE_SCORE: MLP_SCOREs served here; reads 0 without */
#define QUIRE_QE_SERVED       0x68 /* MLP_SCOREs served here since reset (wraps) */
#define QUIRE_QE_DESC0        0x80 /* the held descriptor's 16 words (QUIRE_CMD_W_*) */
#define QUIRE_QE_BYTES        0x100
#define QUIRE_QE_ARM          1u
#define QUIRE_QE_SERVE_SCORE  1u
#define QUIRE_QE_IDLE         0u
#define QUIRE_QE_BUSY         1u
#define QUIRE_QE_HELD         2u
#define QUIRE_QE_SERVED_SINCE 4u /* DESC_STATE: MLP_SCOREs served here since the last read */
#define QUIRE_QE_DONE         2u

/*
 * Engines: the control registers Vitis HLS generates for an s_axilite top
 * function, simplified: CTRL (start, done, idle), the top function's return
 * value, then one 64-bit register per argument, in the order of the top
 * function's parameters (hls/quant.h, hls/reduce.h, hls/mlp.h). Pointer
 * arguments are card memory offsets.
 */
#define QUIRE_ENGINE_CTRL     0x00
#define QUIRE_ENGINE_RETURN   0x08
#define QUIRE_ENGINE_ARG0     0x10
#define QUIRE_ENGINE_ARG_STEP 8
#define QUIRE_ENGINE_ARG(i)                                                                        \
	(QUIRE_ENGINE_ARG0 + QUIRE_ENGINE_ARG_STEP * (i)) /* low word; high word at +4 */
#define QUIRE_ENGINE_START    1u
#define QUIRE_ENGINE_DONE     2u
#define QUIRE_ENGINE_IDLE     4u
#define QUIRE_ENGINE_MAX_ARGS 12

/* The OP argument of each engine. */
enum quire_quant_op {
	QUIRE_QUANT_OP_EXPONENTS = 1,
	QUIRE_QUANT_OP_ENCODE = 2,
	QUIRE_QUANT_OP_DECODE = 3,
};
enum quire_reduce_kernel_op {
	QUIRE_REDUCE_OP_SUM = 1,
	QUIRE_REDUCE_OP_MAX_EXP = 2,
};
enum quire_mlp_op {
	QUIRE_MLP_OP_LOAD = 1,
	QUIRE_MLP_OP_SCORE = 2,
};

/* The FLAGS arguments. */
#define QUIRE_QUANT_F_EF 1u /* error feedback: encode fp32(x + resid), update resid */
/* ENCODE of bfp8 or bfp16: the block exponents too, as EXPONENTS with the same flags would
 * write them to exp, then the elements encoded with them: one pass over x on the card. */
#define QUIRE_QUANT_F_EXPS    2u
#define QUIRE_REDUCE_F_ACC_IN 1u /* acc_in holds a partial sum to add first */

/* Arguments of each engine, as their top functions take them. */
enum quire_quant_arg {
	QUIRE_QUANT_ARG_OP,
	QUIRE_QUANT_ARG_FMT,
	QUIRE_QUANT_ARG_VAL_FMT,
	QUIRE_QUANT_ARG_FLAGS,
	QUIRE_QUANT_ARG_N,
	QUIRE_QUANT_ARG_MEAN_W,
	QUIRE_QUANT_ARG_X,
	QUIRE_QUANT_ARG_RESID,
	QUIRE_QUANT_ARG_EXP,
	QUIRE_QUANT_ARG_Q,
	QUIRE_QUANT_ARG_Y,
	QUIRE_QUANT_ARGS
};
enum quire_reduce_arg {
	QUIRE_REDUCE_ARG_OP,
	QUIRE_REDUCE_ARG_IN_FMT,
	QUIRE_REDUCE_ARG_ACC_FMT,
	QUIRE_REDUCE_ARG_W,
	QUIRE_REDUCE_ARG_N,
	QUIRE_REDUCE_ARG_STRIDE,
	QUIRE_REDUCE_ARG_FLAGS,
	QUIRE_REDUCE_ARG_IN,
	QUIRE_REDUCE_ARG_ACC_IN,
	QUIRE_REDUCE_ARG_ACC_OUT,
	QUIRE_REDUCE_ARGS
};
enum quire_mlp_arg {
	QUIRE_MLP_ARG_OP,
	QUIRE_MLP_ARG_LEN,
	QUIRE_MLP_ARG_C,
	QUIRE_MLP_ARG_IMAGE,
	QUIRE_MLP_ARG_FEATURES,
	QUIRE_MLP_ARG_FEASIBLE,
	QUIRE_MLP_ARG_SCORES,
	QUIRE_MLP_ARG_CHOICE,
	QUIRE_MLP_ARGS
};

#endif /* QUIRE_CARD_H */
