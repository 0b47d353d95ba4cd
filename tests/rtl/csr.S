/* SPDX-License-Identifier: MIT */
/*
 * The CSR instructions (all six forms), the machine CSRs' fixed bits, and the
 * counters: mcycle counts cycles, minstret retired instructions.
 */
#include "test.h"

TEST_BEGIN
	/* CSRRW / CSRRS / CSRRC on mscratch: rd gets the old value. */
	NEXT_CHECK
	li	a1, 0x0f0f0f0f
	csrw	mscratch, a1
	li	a2, 0x12340000
	csrrw	a0, mscratch, a2
	EXPECT	a0, 0x0f0f0f0f
	NEXT_CHECK
	li	a2, 0x000000ff
	csrrs	a0, mscratch, a2
	EXPECT	a0, 0x12340000
	csrr	a0, mscratch
	EXPECT	a0, 0x123400ff
	NEXT_CHECK
	li	a2, 0x12000f0f
	csrrc	a0, mscratch, a2
	EXPECT	a0, 0x123400ff
	csrr	a0, mscratch
	EXPECT	a0, 0x003400f0
	/* The immediate forms: 5-bit zero-extended. */
	NEXT_CHECK
	csrrwi	a0, mscratch, 31
	EXPECT	a0, 0x003400f0
	csrrsi	a0, mscratch, 0
	EXPECT	a0, 31
	NEXT_CHECK
	csrrci	a0, mscratch, 0x5
	EXPECT	a0, 31
	csrrsi	a0, mscratch, 0x10
	EXPECT	a0, 26
	/* rd = rs1: the old value lands, the operand is the register's old value. */
	NEXT_CHECK
	li	a1, 77
	csrrw	a1, mscratch, a1
	EXPECT	a1, 26
	csrr	a0, mscratch
	EXPECT	a0, 77

	/* Identity and fixed bits. */
	NEXT_CHECK
	csrr	a0, misa
	EXPECT	a0, 0x40001100               /* RV32, I and M */
	NEXT_CHECK
	csrr	a0, mhartid
	EXPECT	a0, 0
	csrr	a0, mvendorid
	EXPECT	a0, 0
	csrr	a0, marchid
	EXPECT	a0, 0
	csrr	a0, mimpid
	EXPECT	a0, 0
	NEXT_CHECK
	csrr	a0, mstatus
	EXPECT	a0, 0x00001800               /* MPP = M, interrupts off */
	NEXT_CHECK
	li	a1, -1
	csrw	mtvec, a1
	csrr	a0, mtvec
	EXPECT	a0, 0xfffffffc               /* direct mode only */
	la	t0, unexpected_trap
	csrw	mtvec, t0
	NEXT_CHECK
	csrw	mepc, a1
	csrr	a0, mepc
	EXPECT	a0, 0xfffffffc
	NEXT_CHECK
	csrw	mcause, a1
	csrr	a0, mcause
	EXPECT	a0, 0xffffffff
	csrw	mtval, a1
	csrr	a0, mtval
	EXPECT	a0, 0xffffffff
	NEXT_CHECK
	csrw	mie, a1
	csrr	a0, mie
	EXPECT	a0, 0x00000880               /* MEIE and MTIE */
	csrw	mie, zero
	NEXT_CHECK
	csrw	misa, zero                   /* writable address, fixed value */
	csrr	a0, misa
	EXPECT	a0, 0x40001100
	NEXT_CHECK
	csrr	a0, mip
	EXPECT	a0, 0

	/* minstret: between two reads, exactly the instructions in between retire. */
	NEXT_CHECK
	csrr	a1, minstret
	nop
	nop
	nop
	csrr	a2, minstret
	sub	a0, a2, a1
	EXPECT	a0, 4
	/* mcycle: a CSR instruction takes two cycles (the next fetch waits for it), an ALU
	 * instruction one (the next fetch overlaps it). */
	NEXT_CHECK
	csrr	a1, mcycle
	nop
	nop
	csrr	a2, mcycle
	sub	a0, a2, a1
	EXPECT	a0, 4
	/* A divide costs its documented cycles: 34 (and the csrr before it 2). */
	NEXT_CHECK
	li	a3, 100
	li	a4, 7
	csrr	a1, mcycle
	div	a5, a3, a4
	csrr	a2, mcycle
	sub	a0, a2, a1
	EXPECT	a0, 36
	/* The user aliases read the same counters. */
	NEXT_CHECK
	csrr	a1, minstret
	csrr	a2, instret
	sub	a0, a2, a1
	EXPECT	a0, 1
	NEXT_CHECK
	csrr	a1, mcycle
	csrr	a2, cycle
	sub	a0, a2, a1
	EXPECT	a0, 2
	NEXT_CHECK
	csrr	a1, cycleh
	csrr	a2, mcycleh
	EXPECT	a1, 0
	EXPECT	a2, 0
	csrr	a1, instreth
	csrr	a2, minstreth
	EXPECT	a1, 0
	EXPECT	a2, 0
	/* Writes: mcycle and minstret take a value and count on from it. */
	NEXT_CHECK
	li	a1, 1000
	csrw	minstret, a1
	csrr	a0, minstret
	EXPECT	a0, 1000
	NEXT_CHECK
	li	a1, 0xfffffffe
	csrw	mcycle, a1
	nop
	csrr	a0, mcycleh                  /* the low half carried into the high one */
	EXPECT	a0, 1
	csrw	mcycleh, zero
	NEXT_CHECK
	li	a1, 0xffffffff
	csrw	minstreth, zero
	csrw	minstret, a1                 /* a write wins over its own instruction's count */
	nop
	csrr	a0, minstreth
	EXPECT	a0, 1
TEST_END
