/* SPDX-License-Identifier: MIT */
/*
 * Command descriptors and completion records.
 *
 * The host writes 64-byte descriptors into the command ring (host memory,
 * 64-byte aligned) and rings the doorbell (CMDQ PRODUCER). The card fetches
 * them by DMA, checks every field, runs them, and writes a 32-byte completion
 * record per descriptor into the completion ring, in order. A record is new
 * when its phase bit equals the pass the host is on (it flips at every wrap
 * of the ring, starting at 1), so the host never reads a card register to
 * find completions. The card writes the phase word after the rest of the record. See
 * docs/commands.md.
 *
 * Addresses in descriptors are host DMA addresses. Fields a command does not
 * use, and all reserved fields, must be zero. Every field is little-endian.
 */
#ifndef QUIRE_CMD_H
#define QUIRE_CMD_H

#if defined(__KERNEL__) || defined(__linux__)
#include <linux/types.h> /* the kernel's fixed-size types, in the driver and in user space */
#else                    /* the card's bare-metal firmware */
#include <stdint.h>
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;
#endif

/*
 * Byte order. Everything the card reads or writes in host memory (descriptors,
 * completions, the communicator descriptor, INFO's record) is little-endian on
 * every host, so its fields are __le16, __le32 and __le64, and code reads and
 * writes them through these conversions. In the kernel they are the kernel's own,
 * which sparse checks (a __le field used unconverted is a warning); elsewhere
 * (libquire, the card models, the firmware) nothing on a little-endian machine and a
 * byte swap on a big-endian one. Under sparse, <linux/types.h> makes __le32 a type of
 * its own in user space too, and the casts below are what sparse checks.
 */
#ifdef __KERNEL__
#include <asm/byteorder.h>
#define quire_le16_to_cpu(x) le16_to_cpu(x)
#define quire_le32_to_cpu(x) le32_to_cpu(x)
#define quire_le64_to_cpu(x) le64_to_cpu(x)
#define quire_cpu_to_le16(x) cpu_to_le16(x)
#define quire_cpu_to_le32(x) cpu_to_le32(x)
#define quire_cpu_to_le64(x) cpu_to_le64(x)
#else
#ifdef __CHECKER__
#define quire_force __attribute__((force))
#else
#define quire_force
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define quire_swap16(x) __builtin_bswap16(x)
#define quire_swap32(x) __builtin_bswap32(x)
#define quire_swap64(x) __builtin_bswap64(x)
#else
#define quire_swap16(x) (x)
#define quire_swap32(x) (x)
#define quire_swap64(x) (x)
#endif
#define quire_le16_to_cpu(x) quire_swap16((quire_force __u16)(__le16)(x))
#define quire_le32_to_cpu(x) quire_swap32((quire_force __u32)(__le32)(x))
#define quire_le64_to_cpu(x) quire_swap64((quire_force __u64)(__le64)(x))
#define quire_cpu_to_le16(x) ((quire_force __le16)quire_swap16((__u16)(x)))
#define quire_cpu_to_le32(x) ((quire_force __le32)quire_swap32((__u32)(x)))
#define quire_cpu_to_le64(x) ((quire_force __le64)quire_swap64((__u64)(x)))
#endif

enum quire_opcode {
	QUIRE_OPC_NOP = 1,       /* nothing: measures the round trip */
	QUIRE_OPC_INFO = 2,      /* dst <- struct quire_card_info */
	QUIRE_OPC_EXPONENTS = 3, /* exp <- local block exponents of src (+ aux residual with EF) */
	QUIRE_OPC_ENCODE = 4,    /* dst <- encode(src), see QUIRE_CMD_F_* */
	QUIRE_OPC_DECODE = 5,    /* dst (fp32) <- decode(src values, exp) */
	QUIRE_OPC_REDUCE = 6, /* dst <- exact sum of `workers` vectors at src, stride bytes apart */
	QUIRE_OPC_MLP_LOAD = 7,  /* model image of `count` bytes at src into the MLP engine */
	QUIRE_OPC_MLP_SCORE = 8, /* dst (int32 scores) <- MLP(src features); aux: feasible bytes */
	/* Collectives over the card network (docs/collectives.md). `workers` names the
	 * communicator; every member card runs the same collectives in the same order. */
	QUIRE_OPC_COMM_INIT =
	    9, /* join communicator: struct quire_comm_desc of `count` bytes at src */
	QUIRE_OPC_COMM_FREE = 10,      /* leave communicator `workers` */
	QUIRE_OPC_ALLREDUCE = 11,      /* dst (fp32, int32) <- sum over the members of src */
	QUIRE_OPC_BARRIER = 12,        /* completes when every member has reached it */
	QUIRE_OPC_REDUCE_SCATTER = 13, /* as ALLREDUCE; dst <- this member's segment alone
					* (stride: its length, in elements) */
	QUIRE_OPC_ALLGATHER =
	    14, /* dst (stride bytes = members x count) <- every src, in rank order */
	QUIRE_OPC_BROADCAST = 15, /* dst (count bytes) <- member `stride`'s dst */
};
#define QUIRE_OPC_COUNT 16 /* one past the largest */

/*
 * The collectives' split of a vector of `blocks` 64-element blocks over `size`
 * members: member k owns blocks [FIRST, FIRST + BLOCKS), the first (blocks %
 * size) members one block more. REDUCE_SCATTER's stride is BLOCKS' elements.
 */
#define QUIRE_RING_SEG_BLOCKS(blocks, size, k)                                                     \
	QUIRE_RING_SEG_BLOCKS_OF((blocks) / (size), (blocks) % (size), k)
#define QUIRE_RING_SEG_FIRST(blocks, size, k)                                                      \
	QUIRE_RING_SEG_FIRST_OF((blocks) / (size), (blocks) % (size), k)
/* The same from the split's quotient (base: blocks / size) and remainder (spare), for a
 * caller that divides once for every member (the card's core divides a bit a cycle). */
#define QUIRE_RING_SEG_BLOCKS_OF(base, spare, k) ((base) + ((k) < (spare)))
#define QUIRE_RING_SEG_FIRST_OF(base, spare, k)  ((k) * (base) + ((k) < (spare) ? (k) : (spare)))

/*
 * The ring's schedule, shared by the cards' firmware and the host's ring
 * (host/src/comm/ring_collective.c). Reduce-scatter step s (and all-gather step s) of
 * member r sends segment STEP_SEG, so segment k adds the members in the order
 * k+1, k+2, ..., k. On the wire (enum quire_format): step 0 carries one
 * contribution (VAL), later reduce-scatter steps partial sums (PART, the
 * narrowest integer that cannot overflow), the all-gather finished sums (FIN).
 */
#define QUIRE_RING_STEP_SEG(r, size, s) (((r) + (size)-1 - (s)) % (size))
#define QUIRE_RING_VAL(fmt)                                                                        \
	((fmt) == QUIRE_FMT_BFP8    ? QUIRE_FMT_INT8                                               \
	 : (fmt) == QUIRE_FMT_BFP16 ? QUIRE_FMT_INT16                                              \
				    : (fmt))
#define QUIRE_RING_PART(fmt, size)                                                                 \
	((fmt) == QUIRE_FMT_BFP8                                                                   \
	     ? ((size) <= QUIRE_BFP8_INT16_MAX_WORKERS ? QUIRE_FMT_INT16 : QUIRE_FMT_INT32)        \
	 : (fmt) == QUIRE_FMT_BFP16 ? QUIRE_FMT_INT32                                              \
	 : (fmt) == QUIRE_FMT_INT32 ? QUIRE_FMT_INT64                                              \
				    : (fmt))
#define QUIRE_RING_FIN(fmt, size) ((fmt) == QUIRE_FMT_INT32 ? (fmt) : QUIRE_RING_PART(fmt, size))

/* flags */
#define QUIRE_CMD_F_EF 0x01 /* ENCODE, EXPONENTS: error feedback with the residual at aux */
#define QUIRE_CMD_F_SHARED_EXP                                                                     \
	0x02                  /* ENCODE: exp is an input (agreed exponents), not an output         \
			       */
#define QUIRE_CMD_F_MEAN 0x04 /* ALLREDUCE: the mean (the sum divided by W in fp32) */
/* ALLREDUCE of bfp8, bfp16: each segment's owner requantizes it for the all-gather
 * (docs/contract-bfp.md, "Requantized all-gather"); stride: this member's segment, in
 * elements; with EF, aux and exp hold count + stride fp32 (the owner's residual after the
 * worker's). Every member must set it alike, else every member fails QUIRE_ERR_MISMATCH. */
#define QUIRE_CMD_F_REQUANT 0x08
#define QUIRE_CMD_F_MASK    0x0f

/* Largest element count of one command: 2^28 (1 GiB of fp32). */
#define QUIRE_CMD_MAX_ELEMS   (1u << 28)
#define QUIRE_CMD_MAX_WORKERS 1024u
#define QUIRE_CMD_BYTES       64u
#define QUIRE_CPL_BYTES       32u

struct quire_cmd {
	__u8 opcode;
	__u8 flags;
	__le16 format; /* ENCODE/EXPONENTS/DECODE: fp16, bfp8, bfp16; REDUCE: the sum's format */
	__le32 seq;    /* echoed in the completion */
	__le32 count;  /* elements; MLP_LOAD: bytes; MLP_SCORE: candidates */
	__le16 val_format; /* DECODE, REDUCE: format of the input values */
	__le16 workers;    /* REDUCE: input vectors; DECODE: mean over this many (0, 1: sum) */
	__le64 src;
	__le64 dst;
	__le64 exp;    /* block exponents, int8; ALLREDUCE with EF: where the new residual goes */
	__le64 aux;    /* residual (EF); feasible bytes (MLP_SCORE) */
	__le64 stride; /* REDUCE: bytes from one input vector to the next */
	__le32 reserved[2];
};

struct quire_cpl {
	__le32 seq;
	__le16 status; /* enum quire_status */
	__u8 opcode;
	__u8 reserved0;
	__le32 result; /* MLP_SCORE: the chosen candidate; INFO: bytes written */
	__le32 cycles; /* card cycles from fetch to completion */
	__le32 detail; /* on error: QUIRE_DETAIL_* naming the field at fault */
	__le32 reserved[2];
	/* QUIRE_CPL_F_PHASE. The last word, and written last (a second transfer), so a
	 * host that sees the new phase sees the whole record. */
	__le32 flags;
};

/*
 * The records as 32-bit little-endian words, for parts that move them word by word (the
 * firmware, RTL, testbenches): the index of each field's first word. Asserted below
 * against the structs.
 */
#define QUIRE_CMD_W_OPCODE   0 /* opcode | flags << 8 | format << 16 */
#define QUIRE_CMD_W_SEQ      1
#define QUIRE_CMD_W_COUNT    2
#define QUIRE_CMD_W_FORMATS  3 /* val_format | workers << 16 */
#define QUIRE_CMD_W_SRC      4 /* 64-bit fields: low word, then high word */
#define QUIRE_CMD_W_DST      6
#define QUIRE_CMD_W_EXP      8
#define QUIRE_CMD_W_AUX      10
#define QUIRE_CMD_W_STRIDE   12
#define QUIRE_CMD_W_RESERVED 14
#define QUIRE_CMD_WORDS      16

#define QUIRE_CPL_W_SEQ      0
#define QUIRE_CPL_W_STATUS   1 /* status | opcode << 16 */
#define QUIRE_CPL_W_RESULT   2
#define QUIRE_CPL_W_CYCLES   3
#define QUIRE_CPL_W_DETAIL   4
#define QUIRE_CPL_W_FLAGS    7 /* the phase word, written last */
#define QUIRE_CPL_WORDS      8

#define QUIRE_CPL_F_PHASE    0x01
#define QUIRE_SEQ_UNKNOWN    0xffffffffu /* a completion for descriptors lost to a ring overrun */

/* Which descriptor field an error completion is about. */
enum quire_detail {
	QUIRE_DETAIL_NONE = 0,
	QUIRE_DETAIL_OPCODE = 1,
	QUIRE_DETAIL_FLAGS = 2,
	QUIRE_DETAIL_FORMAT = 3,
	QUIRE_DETAIL_COUNT = 4,
	QUIRE_DETAIL_VAL_FORMAT = 5,
	QUIRE_DETAIL_WORKERS = 6,
	QUIRE_DETAIL_SRC = 7,
	QUIRE_DETAIL_DST = 8,
	QUIRE_DETAIL_EXP = 9,
	QUIRE_DETAIL_AUX = 10,
	QUIRE_DETAIL_STRIDE = 11,
	QUIRE_DETAIL_RESERVED = 12,
	QUIRE_DETAIL_ENGINE = 13, /* an engine reported the status */
	QUIRE_DETAIL_RING = 14,   /* ring overrun */
	QUIRE_DETAIL_NET = 15,    /* the card network: a peer, a frame, a timeout */
	QUIRE_DETAIL_COMM = 16,   /* no such communicator, or it failed earlier */
};

/*
 * What COMM_INIT reads: the communicator's id (the same on every member, not
 * in use on this card), this card's rank, the members' network addresses in
 * rank order (the card's own at its rank), and how long a collective may wait
 * for a peer before it fails with QUIRE_ERR_TIMEOUT.
 */
struct quire_comm_desc {
	__le16 comm;
	__le16 rank;
	__le16 size; /* 1 .. QUIRE_CMD_MAX_WORKERS */
	__le16 reserved0;
	__le32 timeout_ms; /* 0: QUIRE_COMM_TIMEOUT_DEFAULT_MS */
	__le32 reserved[5];
	__le16 addr[]; /* size entries */
};
#define QUIRE_COMM_DESC_BYTES(size)   (32u + 2u * (size))
#define QUIRE_COMM_TIMEOUT_DEFAULT_MS 5000u
#define QUIRE_COMM_TIMEOUT_MAX_MS     600000u

/* What INFO writes at dst (64 bytes). */
struct quire_card_info {
	__le32 magic; /* QUIRE_ID_MAGIC_VALUE */
	__le32 if_version;
	__le32 fw_build;
	__le32 caps;
	__le64 mem_bytes;
	__le32 clock_hz;
	__le32 cmds_ok;
	__le32 cmds_err;
	__le32 reserved[7];
};

#ifndef __KERNEL__
#include <stddef.h>

#include "quire/static_assert.h"
#define QUIRE_CMD_WORD_AT(field, w) (offsetof(struct quire_cmd, field) == 4 * (w))
QUIRE_STATIC_ASSERT(
    QUIRE_CMD_WORD_AT(opcode, QUIRE_CMD_W_OPCODE) && QUIRE_CMD_WORD_AT(seq, QUIRE_CMD_W_SEQ) &&
	QUIRE_CMD_WORD_AT(count, QUIRE_CMD_W_COUNT) &&
	QUIRE_CMD_WORD_AT(val_format, QUIRE_CMD_W_FORMATS) &&
	QUIRE_CMD_WORD_AT(src, QUIRE_CMD_W_SRC) && QUIRE_CMD_WORD_AT(dst, QUIRE_CMD_W_DST) &&
	QUIRE_CMD_WORD_AT(exp, QUIRE_CMD_W_EXP) && QUIRE_CMD_WORD_AT(aux, QUIRE_CMD_W_AUX) &&
	QUIRE_CMD_WORD_AT(stride, QUIRE_CMD_W_STRIDE) &&
	QUIRE_CMD_WORD_AT(reserved, QUIRE_CMD_W_RESERVED) && 4 * QUIRE_CMD_WORDS == QUIRE_CMD_BYTES,
    "descriptor words");
#define QUIRE_CPL_WORD_AT(field, w) (offsetof(struct quire_cpl, field) == 4 * (w))
QUIRE_STATIC_ASSERT(QUIRE_CPL_WORD_AT(seq, QUIRE_CPL_W_SEQ) &&
			QUIRE_CPL_WORD_AT(status, QUIRE_CPL_W_STATUS) &&
			offsetof(struct quire_cpl, opcode) == 4 * QUIRE_CPL_W_STATUS + 2 &&
			QUIRE_CPL_WORD_AT(result, QUIRE_CPL_W_RESULT) &&
			QUIRE_CPL_WORD_AT(cycles, QUIRE_CPL_W_CYCLES) &&
			QUIRE_CPL_WORD_AT(detail, QUIRE_CPL_W_DETAIL) &&
			QUIRE_CPL_WORD_AT(flags, QUIRE_CPL_W_FLAGS) &&
			4 * QUIRE_CPL_WORDS == QUIRE_CPL_BYTES,
		    "completion words");
QUIRE_STATIC_ASSERT(sizeof(struct quire_cmd) == QUIRE_CMD_BYTES, "descriptor size");
QUIRE_STATIC_ASSERT(sizeof(struct quire_cpl) == QUIRE_CPL_BYTES, "completion size");
QUIRE_STATIC_ASSERT(sizeof(struct quire_card_info) == 64, "info size");
QUIRE_STATIC_ASSERT(sizeof(struct quire_comm_desc) == 32, "communicator descriptor size");
#endif

#endif /* QUIRE_CMD_H */
