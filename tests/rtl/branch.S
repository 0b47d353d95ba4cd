/* SPDX-License-Identifier: MIT */
/* RV32I control transfer: every branch taken and not taken, JAL and JALR. */
#include "test.h"

/* Branch `op a, b`: `taken` 1 if it must jump. */
.macro CHECK_BRANCH op, a, b, taken
	NEXT_CHECK
	li	a1, \a
	li	a2, \b
	li	a0, 0
	\op	a1, a2, 1f
	li	a0, 1          /* fell through */
	j	2f
1:	li	a0, 2          /* jumped */
2:	EXPECT	a0, (1 + \taken)
.endm

TEST_BEGIN
	CHECK_BRANCH beq, 0, 0, 1
	CHECK_BRANCH beq, 1, 0, 0
	CHECK_BRANCH beq, -1, -1, 1
	CHECK_BRANCH bne, 0, 0, 0
	CHECK_BRANCH bne, 1, 0, 1
	CHECK_BRANCH blt, -1, 0, 1
	CHECK_BRANCH blt, 0, -1, 0
	CHECK_BRANCH blt, 5, 5, 0
	CHECK_BRANCH blt, 0x80000000, 0x7fffffff, 1
	CHECK_BRANCH bge, -1, 0, 0
	CHECK_BRANCH bge, 0, -1, 1
	CHECK_BRANCH bge, 5, 5, 1
	CHECK_BRANCH bge, 0x7fffffff, 0x80000000, 1
	CHECK_BRANCH bltu, 0, -1, 1
	CHECK_BRANCH bltu, -1, 0, 0
	CHECK_BRANCH bltu, 5, 5, 0
	CHECK_BRANCH bltu, 0x7fffffff, 0x80000000, 1
	CHECK_BRANCH bgeu, 0, -1, 0
	CHECK_BRANCH bgeu, -1, 0, 1
	CHECK_BRANCH bgeu, 5, 5, 1
	CHECK_BRANCH bgeu, 0x80000000, 0x7fffffff, 1

	/* A backward branch: a loop of 10. */
	NEXT_CHECK
	li	a0, 0
	li	a1, 10
3:	addi	a0, a0, 1
	bne	a0, a1, 3b
	EXPECT	a0, 10

	/* JAL: jumps, and links the next instruction's address. */
	NEXT_CHECK
	li	ra, 0
	jal	ra, 4f
jal_link:
	j	fail
4:	la	a1, jal_link
	bne	ra, a1, fail_near
	/* JAL with x0: no link. */
	NEXT_CHECK
	j	5f
	j	fail
5:
	/* JALR: target rs1 + imm with bit 0 cleared, link in rd. */
	NEXT_CHECK
	la	a1, jalr_target - 4
	jalr	t1, 4(a1)
jalr_link:
	j	fail
jalr_target:
	la	a2, jalr_link
	bne	t1, a2, fail_near
	NEXT_CHECK
	la	a1, jalr_odd_target
	addi	a1, a1, 1      /* bit 0 is dropped */
	jalr	x0, 0(a1)
	j	fail
jalr_odd_target:
	/* rd = rs1: the target is taken from the old value. */
	NEXT_CHECK
	la	t2, jalr_same_target
	jalr	t2, 0(t2)
jalr_same_link:
	j	fail
jalr_same_target:
	la	a2, jalr_same_link
	bne	t2, a2, fail_near
	/* A call and return through a function. */
	NEXT_CHECK
	li	a0, 20
	call	double_it
	EXPECT	a0, 40
	j	done

double_it:
	add	a0, a0, a0
	ret

fail_near:
	j	fail
done:
TEST_END
