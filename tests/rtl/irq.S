/* SPDX-License-Identifier: MIT */
/*
 * Interrupts: the timer (mtime >= mtimecmp) and the external line, taken
 * only with mstatus.MIE and their mie bit set, between instructions (mepc is
 * the next instruction to run); the external one first when both are
 * pending; WFI waking on an enabled pending interrupt, even with MIE clear.
 *
 * The handler records mcause in s2 and mepc in s3, counts in s5, and
 * silences the one source it took: mtimecmp to the far future, or the
 * IRQ line low.
 */
#include "test.h"

/* mtimecmp = mtime + cycles (the high halves stay 0 in a run this short). */
.macro TIMER_IN cycles
	li	t0, QUIRE_RV32_SIM_MTIME_LO
	lw	t1, 0(t0)
	addi	t1, t1, \cycles
	li	t0, QUIRE_RV32_SIM_MTIMECMP_HI
	sw	zero, 0(t0)
	li	t0, QUIRE_RV32_SIM_MTIMECMP_LO
	sw	t1, 0(t0)
.endm

.macro IRQ_LINE value
	li	t0, QUIRE_RV32_SIM_IRQ
	li	t1, \value
	sw	t1, 0(t0)
.endm

TEST_BEGIN
	la	t0, handler
	csrw	mtvec, t0
	li	s5, 0
	li	s2, 0

	/* Timer: enabled in mie and mstatus, it interrupts a busy loop. */
	NEXT_CHECK
	li	t0, 0x80
	csrw	mie, t0
	TIMER_IN 50
	csrsi	mstatus, 8
	li	a0, 0
1:	addi	a0, a0, 1
	beqz	s5, 1b
	csrci	mstatus, 8
	EXPECT	s2, 0x80000007
	EXPECT	s5, 1
	/* mepc pointed into the loop. */
	la	t5, 1b
	blt	s3, t5, fail
	addi	t5, t5, 8
	bge	s3, t5, fail

	/* Pending but masked by mstatus.MIE: not taken, yet visible in mip. */
	NEXT_CHECK
	TIMER_IN 0
	nop
	csrr	a0, mip
	EXPECT	a0, 0x80
	EXPECT	s5, 1
	/* Taken as soon as MIE is set: mepc is the instruction after the csrs. */
	NEXT_CHECK
	csrsi	mstatus, 8
after_enable:
	nop
	csrci	mstatus, 8
	EXPECT	s5, 2
	la	t5, after_enable
	bne	s3, t5, fail

	/* Pending, MIE set, but masked in mie: not taken. */
	NEXT_CHECK
	csrw	mie, zero
	TIMER_IN 0
	csrsi	mstatus, 8
	nop
	nop
	csrci	mstatus, 8
	EXPECT	s5, 2
	li	t0, QUIRE_RV32_SIM_MTIMECMP_HI
	li	t1, -1
	sw	t1, 0(t0)

	/* External: the line raised by a store, taken with MEIE. */
	NEXT_CHECK
	li	t0, 0x800
	csrw	mie, t0
	csrsi	mstatus, 8
	IRQ_LINE 1
	nop
	nop
	csrci	mstatus, 8
	EXPECT	s5, 3
	EXPECT	s2, 0x8000000b
	li	t0, QUIRE_RV32_SIM_IRQ
	lw	a0, 0(t0)
	EXPECT	a0, 0                        /* the handler lowered it */

	/* Both pending: external first, then the timer. */
	NEXT_CHECK
	li	t0, 0x880
	csrw	mie, t0
	li	s4, 0
	IRQ_LINE 1
	TIMER_IN 0
	nop
	csrsi	mstatus, 8
	nop
	nop
	csrci	mstatus, 8
	EXPECT	s5, 5
	EXPECT	s4, 0x8000000b              /* the first of the two */
	EXPECT	s2, 0x80000007              /* the second */

	/* WFI with MIE clear: wakes on the timer, runs on with no trap. */
	NEXT_CHECK
	li	t0, 0x80
	csrw	mie, t0
	TIMER_IN 200
	csrr	a1, mcycle
	wfi
	csrr	a2, mcycle
	EXPECT	s5, 5
	sub	a0, a2, a1
	li	t5, 150
	blt	a0, t5, fail                 /* it waited */
	csrr	a0, mip
	EXPECT	a0, 0x80
	li	t0, QUIRE_RV32_SIM_MTIMECMP_HI
	li	t1, -1
	sw	t1, 0(t0)
	/* WFI with MIE set: the interrupt is taken, mepc the instruction after wfi. */
	NEXT_CHECK
	TIMER_IN 100
	csrsi	mstatus, 8
	wfi
after_wfi:
	csrci	mstatus, 8
	EXPECT	s5, 6
	EXPECT	s2, 0x80000007
	la	t5, after_wfi
	bne	s3, t5, fail
	/* minstret counts wfi once, not per waiting cycle. */
	NEXT_CHECK
	TIMER_IN 100
	csrr	a1, minstret
	wfi
	csrr	a2, minstret
	sub	a0, a2, a1
	EXPECT	a0, 2
	j	done

	.align	2
handler:
	csrr	s2, mcause
	csrr	s3, mepc
	addi	s5, s5, 1
	bnez	s4, 1f
	mv	s4, s2
1:	li	t0, 0x80000007
	bne	s2, t0, 2f
	li	t0, QUIRE_RV32_SIM_MTIMECMP_HI
	li	t1, -1
	sw	t1, 0(t0)
	mret
2:	li	t0, QUIRE_RV32_SIM_IRQ
	sw	zero, 0(t0)
	mret
done:
TEST_END
