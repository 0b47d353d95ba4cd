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
 * Network port. Transmit: the frame (header, then payload) lies in card memory
 * at TX_CARD; writing QUIRE_NET_GO to TX_CTRL sends it whole (the port fills
 * the header's crc32) or not at all, and TX_STATUS says which: QUIRE_ERR_BUSY
 * when the peer cannot take it now (flow control: try again), QUIRE_ERR_PEER
 * when no port has that address. Receive: frames wait in the port's buffer in
 * arrival order; RX_COMM steers (0: every frame; N: only communicator N's, and
 * frames that failed the checks), so one communicator's frames never wait behind
 * another's. The first frame the filter passes is the head: its header is
 * readable at RX_HDR; QUIRE_NET_RX_POP copies its payload to card memory at
 * RX_DEST, QUIRE_NET_RX_DROP discards it.
 */
#define QUIRE_NET_PORT_ADDR    0x00 /* this port's address on the card network */
#define QUIRE_NET_PORT_LINK    0x04 /* 1 when attached to a network */
#define QUIRE_NET_TX_CARD      0x10
#define QUIRE_NET_TX_LEN       0x14 /* header + payload bytes */
#define QUIRE_NET_TX_CTRL      0x18
#define QUIRE_NET_TX_STATUS    0x1c
#define QUIRE_NET_RX_PENDING   0x20 /* frames waiting that the filter passes */
#define QUIRE_NET_RX_FLAGS     0x24 /* of the head frame: QUIRE_NET_RX_F_* */
#define QUIRE_NET_RX_DEST      0x28
#define QUIRE_NET_RX_CTRL      0x2c
#define QUIRE_NET_RX_STATUS    0x30 /* of the last POP */
#define QUIRE_NET_RX_COMM      0x34 /* the receive filter: a communicator id, 0: all */
#define QUIRE_NET_RX_HDR0      0x40 /* the head frame's header, */
#define QUIRE_NET_RX_HDR(i)    (QUIRE_NET_RX_HDR0 + 4 * (i)) /* 8 words */
#define QUIRE_NET_GO           1u
#define QUIRE_NET_RX_POP       1u
#define QUIRE_NET_RX_DROP      2u
#define QUIRE_NET_RX_F_BAD_CRC 1u /* failed the CRC check: its header cannot be trusted */
#define QUIRE_NET_RX_F_BAD_LEN 2u /* shorter than a header, or not as long as it says */

/* Simulation I/O (the RTL card under Verilator): for bare-metal programs and debugging. */
#define QUIRE_SIM_IO_CONSOLE 0x00 /* store a byte (low 8 bits): the harness prints it */
#define QUIRE_SIM_IO_EXIT    0x04 /* store a word: the simulation ends with it (0 = pass) */

/* DMA mover. */
#define QUIRE_DMA_HOST_LO 0x00
#define QUIRE_DMA_HOST_HI 0x04
#define QUIRE_DMA_CARD    0x08 /* card memory offset */
#define QUIRE_DMA_LEN     0x0c /* bytes */
#define QUIRE_DMA_DIR     0x10 /* QUIRE_DMA_TO_CARD or QUIRE_DMA_TO_HOST */
#define QUIRE_DMA_CTRL    0x14 /* write QUIRE_DMA_START; reads QUIRE_DMA_DONE when finished */
#define QUIRE_DMA_STATUS  0x18 /* enum quire_status of the last transfer */
/* The queue epoch (QUIRE_CTL_QUEUE_EPOCH) of the command a transfer serves: the mover
 * refuses it with QUIRE_ERR_PEER once the epoch has moved on, so nothing of a host that
 * left ever reaches the memory of the next one. */
#define QUIRE_DMA_EPOCH   0x1c
#define QUIRE_DMA_TO_CARD 0u
#define QUIRE_DMA_TO_HOST 1u
#define QUIRE_DMA_START   1u
#define QUIRE_DMA_DONE    2u

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
#define QUIRE_QUANT_F_EF      1u /* error feedback: encode fp32(x + resid), update resid */
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
