/* SPDX-License-Identifier: MIT */
/* Loads and stores of every width, at every offset, with sign and zero extension. */
#include "test.h"

/* rd = load at label + offset. */
.macro CHECK_LOAD op, expected, label, offset
	NEXT_CHECK
	la	a1, \label
	\op	a0, \offset(a1)
	EXPECT	a0, \expected
.endm

TEST_BEGIN
	CHECK_LOAD lw,  0x80ff017f, words, 0
	CHECK_LOAD lw,  0x12345678, words, 4
	CHECK_LOAD lb,  0x0000007f, words, 0
	CHECK_LOAD lb,  0x00000001, words, 1
	CHECK_LOAD lb,  0xffffffff, words, 2
	CHECK_LOAD lb,  0xffffff80, words, 3
	CHECK_LOAD lbu, 0x0000007f, words, 0
	CHECK_LOAD lbu, 0x00000001, words, 1
	CHECK_LOAD lbu, 0x000000ff, words, 2
	CHECK_LOAD lbu, 0x00000080, words, 3
	CHECK_LOAD lh,  0x0000017f, words, 0
	CHECK_LOAD lh,  0xffff80ff, words, 2
	CHECK_LOAD lhu, 0x0000017f, words, 0
	CHECK_LOAD lhu, 0x000080ff, words, 2
	CHECK_LOAD lw,  0x80ff017f, words_end, -8   /* negative offsets */
	CHECK_LOAD lb,  0x00000012, words_end, -1
	CHECK_LOAD lhu, 0x00001234, words_end, -2

	/* Stores: each width into a cleared word, read back whole. */
	NEXT_CHECK
	la	a1, scratch
	sw	zero, 0(a1)
	li	a2, 0xaabbcc11
	sb	a2, 0(a1)
	li	a2, 0x22
	sb	a2, 1(a1)
	li	a2, 0x33
	sb	a2, 2(a1)
	li	a2, 0x44
	sb	a2, 3(a1)
	lw	a0, 0(a1)
	EXPECT	a0, 0x44332211
	NEXT_CHECK
	li	a2, 0xffff5566
	sh	a2, 0(a1)
	lw	a0, 0(a1)
	EXPECT	a0, 0x44335566
	NEXT_CHECK
	li	a2, 0x00007788
	sh	a2, 2(a1)
	lw	a0, 0(a1)
	EXPECT	a0, 0x77885566
	NEXT_CHECK
	li	a2, 0xdeadbeef
	sw	a2, 4(a1)
	lw	a0, 4(a1)
	EXPECT	a0, 0xdeadbeef
	NEXT_CHECK
	lw	a0, 0(a1)                      /* the neighbour word is untouched */
	EXPECT	a0, 0x77885566
	NEXT_CHECK
	sb	a2, -1(a1)                     /* negative store offset */
	lbu	a0, -1(a1)
	EXPECT	a0, 0xef
	/* A load into its own base register. */
	NEXT_CHECK
	la	a1, words
	lw	a1, 4(a1)
	EXPECT	a1, 0x12345678
	/* A load into x0 is discarded. */
	NEXT_CHECK
	la	a1, words
	lw	x0, 0(a1)
	EXPECT	x0, 0
	/* The stack at the top of RAM works. */
	NEXT_CHECK
	addi	sp, sp, -16
	li	a2, 0x600d
	sw	a2, 12(sp)
	lw	a0, 12(sp)
	addi	sp, sp, 16
	EXPECT	a0, 0x600d
	/* mtime counts up; mtimecmp reads back what was written. */
	NEXT_CHECK
	li	a1, QUIRE_RV32_SIM_MTIME_LO
	lw	a2, 0(a1)
	lw	a3, 0(a1)
	sub	a0, a3, a2
	EXPECT	a0, 2                          /* a load is 2 cycles (its next fetch overlaps) */
	NEXT_CHECK
	li	a1, QUIRE_RV32_SIM_MTIMECMP_LO
	li	a2, 0x12345678
	sw	a2, 0(a1)
	lw	a0, 0(a1)
	EXPECT	a0, 0x12345678
	li	a2, -1
	sw	a2, 0(a1)
TEST_END

	.data
	.align 2
words:
	.word	0x80ff017f
	.word	0x12345678
words_end:
	.word	0
	.word	0
scratch:
	.word	0
	.word	0
