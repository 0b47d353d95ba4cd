/* SPDX-License-Identifier: MIT */
/*
 * Assembler macros of the core's instruction tests. gp counts the checks:
 * the first failing one stores its number to sim-exit, so the runner exits
 * with it (0 is a pass). An unexpected trap writes "trap" to the console and
 * exits with 128 + the check's number.
 */
#include "quire/rv32_sim.h"

/* The program's start: stack, the trap handler for unexpected traps, gp = 0. */
.macro TEST_BEGIN
	.section .text.start, "ax"
	.globl _start
_start:
	la	sp, __stack_top
	la	t0, unexpected_trap
	csrw	mtvec, t0
	li	gp, 0
.endm

/* Every check starts with the next number. */
.macro NEXT_CHECK
	addi	gp, gp, 1
.endm

/* reg == expected, or fail (a far jump: tests grow past a branch's reach). */
.macro EXPECT reg, expected
	li	t6, \expected
	beq	\reg, t6, 99f
	j	fail
99:
.endm

/* rd = a op b, through registers a1, a2 -> a0. */
.macro CHECK_RR op, expected, a, b
	NEXT_CHECK
	li	a1, \a
	li	a2, \b
	\op	a0, a1, a2
	EXPECT	a0, \expected
.endm

/* rd = a op imm. */
.macro CHECK_RI op, expected, a, imm
	NEXT_CHECK
	li	a1, \a
	\op	a0, a1, \imm
	EXPECT	a0, \expected
.endm

/* The pass, the failure, and the unexpected trap: once, at the end. */
.macro TEST_END
	li	t0, QUIRE_RV32_SIM_EXIT
	sw	zero, 0(t0)
98:	j	98b
fail:
	li	t0, QUIRE_RV32_SIM_EXIT
	sw	gp, 0(t0)
	j	98b
	.align	2
unexpected_trap:
	li	t0, QUIRE_RV32_SIM_CONSOLE
	li	t1, 't'
	sb	t1, 0(t0)
	li	t1, 'r'
	sb	t1, 0(t0)
	li	t1, 'a'
	sb	t1, 0(t0)
	li	t1, 'p'
	sb	t1, 0(t0)
	li	t1, '\n'
	sb	t1, 0(t0)
	addi	gp, gp, 128
	j	fail
.endm
