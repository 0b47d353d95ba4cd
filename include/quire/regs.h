/* SPDX-License-Identifier: MIT */
/*
 * BAR register blocks: what the host sees of a card.
 *
 * BAR0 holds a chain of self-describing blocks. Every block starts with the
 * same header (type, version, offset of the next block, 0 for the last), and
 * every consumer (driver, libquire, tests) walks the chain from offset 0 and
 * checks each version instead of assuming offsets, all with one walk
 * (quire/regblock.h). Registers are 32 bits,
 * little-endian. See docs/registers.md for each block.
 */
#ifndef QUIRE_REGS_H
#define QUIRE_REGS_H

/* Common block header. */
#define QUIRE_RB_TYPE                       0x00
#define QUIRE_RB_VERSION                    0x04 /* major << 16 | minor; consumers require their major */
#define QUIRE_RB_NEXT                       0x08 /* BAR offset of the next block, 0 = end of chain */
#define QUIRE_RB_HEADER_BYTES               0x10

#define QUIRE_RB_VERSION_MAJOR(v)           ((v) >> 16)
#define QUIRE_RB_VERSION_MINOR(v)           ((v)&0xffffu)
#define QUIRE_RB_MAKE_VERSION(major, minor) ((major) << 16 | (minor))

/* Block types: "QB" and a number, so a stray value is unlikely to match. */
#define QUIRE_RB_TYPE_ID       0x51420001u
#define QUIRE_RB_TYPE_CMDQ     0x51420002u
#define QUIRE_RB_TYPE_CPLQ     0x51420003u
#define QUIRE_RB_TYPE_IRQ      0x51420004u
#define QUIRE_RB_TYPE_ENGINES  0x51420005u
#define QUIRE_RB_TYPE_NETPORT  0x51420006u
#define QUIRE_RB_TYPE_COUNTERS 0x51420007u

#define QUIRE_BAR0_BYTES       0x10000u

/* ID block (version 1.0). */
#define QUIRE_RB_ID_VERSION     QUIRE_RB_MAKE_VERSION(1, 0)
#define QUIRE_ID_MAGIC          0x10 /* QUIRE_ID_MAGIC_VALUE */
#define QUIRE_ID_IF_VERSION     0x14 /* QUIRE_INTERFACE_VERSION of the contract the card implements */
#define QUIRE_ID_BOARD          0x18 /* enum quire_board */
#define QUIRE_ID_CAPS           0x1c /* QUIRE_CAP_* */
#define QUIRE_ID_BUILD_LO       0x20 /* hardware build id (git commit, 64 bits) */
#define QUIRE_ID_BUILD_HI       0x24
#define QUIRE_ID_FW_BUILD       0x28 /* firmware build id, written by the firmware at boot */
#define QUIRE_ID_FW_STATE       0x2c /* QUIRE_FW_STATE_* */
#define QUIRE_ID_MEM_LO         0x30 /* card memory bytes */
#define QUIRE_ID_MEM_HI         0x34
#define QUIRE_ID_CLOCK_HZ       0x38 /* clock of the engines and the cycle counters */

#define QUIRE_ID_MAGIC_VALUE    0x45524951u /* "QIRE" */
#define QUIRE_INTERFACE_VERSION 1u

/* Each board's facts (PCI IDs, BARs, memory, clocks, ports): boards/NAME.toml, compiled
 * into <quire/boards.h>. */
enum quire_board {
	QUIRE_BOARD_SIM = 1,
	QUIRE_BOARD_AWS_F1 = 2,
	QUIRE_BOARD_ALVEO_U250 = 3,
	QUIRE_BOARD_ALVEO_U280 = 4, /* no description in boards/ yet */
	QUIRE_BOARD_ALVEO_U55C = 5,
	QUIRE_BOARD_SIM_RTL = 6, /* the RTL card under Verilator (quire-sim --model rtl) */
};

#define QUIRE_CAP_CODEC        (1u << 0) /* QUANT engine: bfp8, bfp16, fp16 */
#define QUIRE_CAP_REDUCE       (1u << 1) /* REDUCE engine */
#define QUIRE_CAP_MLP          (1u << 2) /* MLP engine */
#define QUIRE_CAP_NET          (1u << 3) /* network port(s) for collectives */

#define QUIRE_FW_STATE_BOOTING 0u
#define QUIRE_FW_STATE_RUNNING 1u
#define QUIRE_FW_STATE_HALTED  2u

/* Command queue block (version 1.0): the host's descriptors. */
#define QUIRE_RB_CMDQ_VERSION QUIRE_RB_MAKE_VERSION(1, 0)
/* Completion queue block (version 1.0): the card's completion records. */
#define QUIRE_RB_CPLQ_VERSION QUIRE_RB_MAKE_VERSION(1, 0)
/* Both queues have the same registers. */
#define QUIRE_Q_BASE_LO   0x10 /* host DMA address of the ring, 64-byte aligned */
#define QUIRE_Q_BASE_HI   0x14
#define QUIRE_Q_SIZE_LOG2 0x18 /* entries = 2^n, QUIRE_Q_MIN_LOG2 .. QUIRE_Q_MAX_LOG2 */
#define QUIRE_Q_CTRL      0x1c /* QUIRE_Q_CTRL_ENABLE; clearing it resets both indices */
#define QUIRE_Q_PRODUCER                                                                           \
	0x20 /* free-running index: CMDQ written by the host (doorbell), CPLQ by the card */
#define QUIRE_Q_CONSUMER        0x24 /* free-running index: CMDQ written by the card, CPLQ by the host */
#define QUIRE_Q_STATUS          0x28 /* QUIRE_Q_STATUS_* */

#define QUIRE_Q_CTRL_ENABLE     1u
#define QUIRE_Q_STATUS_ENABLED  1u
#define QUIRE_Q_STATUS_OVERRUN  2u /* the host wrote more than the ring holds (sticky) */
#define QUIRE_Q_STATUS_BAD_RING 4u /* base or size unusable: the queue stays disabled */
#define QUIRE_Q_MIN_LOG2        1u
#define QUIRE_Q_MAX_LOG2        12u

/* Interrupt block (version 1.0). */
#define QUIRE_RB_IRQ_VERSION QUIRE_RB_MAKE_VERSION(1, 0)
#define QUIRE_IRQ_STATUS     0x10      /* pending causes, write 1 to clear */
#define QUIRE_IRQ_MASK       0x14      /* enabled causes */
#define QUIRE_IRQ_COUNT      0x18      /* interrupts raised since reset */
#define QUIRE_IRQ_CPL        (1u << 0) /* a completion was posted */
#define QUIRE_IRQ_ERROR      (1u << 1) /* the firmware halted or a queue went bad */

/* Engines block (version 1.0): one 16-byte record per engine from 0x20. */
#define QUIRE_RB_ENGINES_VERSION QUIRE_RB_MAKE_VERSION(1, 0)
#define QUIRE_ENG_COUNT          0x10
#define QUIRE_ENG_RECORD0        0x20
#define QUIRE_ENG_RECORD_STEP    0x10
#define QUIRE_ENG_RECORD(i)      (QUIRE_ENG_RECORD0 + QUIRE_ENG_RECORD_STEP * (i))
#define QUIRE_ENG_KIND           0x0 /* enum quire_engine_kind */
#define QUIRE_ENG_STATE          0x4 /* 0 idle, 1 busy */
#define QUIRE_ENG_OPS            0x8 /* operations completed */
#define QUIRE_ENG_CYCLES         0xc /* busy cycles, low 32 bits */

enum quire_engine_kind {
	QUIRE_ENGINE_QUANT = 1,
	QUIRE_ENGINE_REDUCE = 2,
	QUIRE_ENGINE_MLP = 3,
};

/* Network port block (version 1.1): one 32-byte record per port from 0x20. Version 1.2 adds
 * RETRANSMITS, on a card whose ports' link sends lost frames again (the emu's). */
#define QUIRE_RB_NETPORT_VERSION      QUIRE_RB_MAKE_VERSION(1, 1)
#define QUIRE_RB_NETPORT_VERSION_RETX QUIRE_RB_MAKE_VERSION(1, 2)
#define QUIRE_NET_COUNT               0x10
#define QUIRE_NET_RETRANSMITS         0x14 /* 1.2: frames the ports' link sent again */
#define QUIRE_NET_RECORD0             0x20
#define QUIRE_NET_RECORD(i)           (QUIRE_NET_RECORD0 + 0x20 * (i))
#define QUIRE_NET_LINK                0x00 /* 1 up, 0 down */
#define QUIRE_NET_ADDR                0x04 /* the port's address on the card network */
#define QUIRE_NET_TX_FRAMES           0x08
#define QUIRE_NET_RX_FRAMES           0x0c
#define QUIRE_NET_RX_ERRORS           0x10 /* frames that failed the CRC or length check */
#define QUIRE_NET_TX_BYTES_LO         0x14 /* 1.1: frame bytes sent, headers included */
#define QUIRE_NET_TX_BYTES_HI         0x18
#define QUIRE_NET_TX_DROPS            0x1c /* 1.1: frames sent to an address no port has */

/* Counters block (version 1.1). */
#define QUIRE_RB_COUNTERS_VERSION QUIRE_RB_MAKE_VERSION(1, 1)
#define QUIRE_CNT_CMDS_OK         0x10
#define QUIRE_CNT_CMDS_ERR        0x14
#define QUIRE_CNT_DMA_BYTES_LO    0x18
#define QUIRE_CNT_DMA_BYTES_HI    0x1c
#define QUIRE_CNT_CYCLES_LO       0x20 /* free-running card clock */
#define QUIRE_CNT_CYCLES_HI       0x24
/*
 * 1.1: the firmware's heartbeat. It advances at least every QUIRE_HEARTBEAT_MS while the
 * card has work (a command, or a wait inside one for its peers), so a host tells a card
 * that is slow from one that has stopped: no advance for its timeout means stopped.
 */
#define QUIRE_CNT_HEARTBEAT 0x28
#define QUIRE_HEARTBEAT_MS  100u

#endif /* QUIRE_REGS_H */
