/* SPDX-License-Identifier: MIT */
/*
 * The M extension, with the corner cases the unprivileged spec defines:
 * division by zero (quotient all ones, remainder the dividend) and the signed
 * overflow INT_MIN / -1 (quotient INT_MIN, remainder 0); no trap for either.
 */
#include "test.h"

TEST_BEGIN
	CHECK_RR mul, 0x00000000, 0x00000000, 0x00000000
	CHECK_RR mul, 0x00000001, 0x00000001, 0x00000001
	CHECK_RR mul, 0x00000015, 0x00000003, 0x00000007
	CHECK_RR mul, 0xfffffff9, 0xffffffff, 0x00000007
	CHECK_RR mul, 0x00000001, 0xffffffff, 0xffffffff
	CHECK_RR mul, 0x00000000, 0x80000000, 0x00000002
	CHECK_RR mul, 0x80000000, 0x80000000, 0xffffffff
	CHECK_RR mul, 0x242d2080, 0x12345678, 0x9abcdef0

	CHECK_RR mulh, 0x00000000, 0x00000003, 0x00000007
	CHECK_RR mulh, 0xffffffff, 0xffffffff, 0x00000007
	CHECK_RR mulh, 0x00000000, 0xffffffff, 0xffffffff
	CHECK_RR mulh, 0x40000000, 0x80000000, 0x80000000   /* (-2^31)^2 = 2^62 */
	CHECK_RR mulh, 0xc0000000, 0x80000000, 0x7fffffff
	CHECK_RR mulh, 0x00000000, 0x80000000, 0xffffffff   /* -2^31 * -1 = 2^31 */
	CHECK_RR mulh, 0x3fffffff, 0x7fffffff, 0x7fffffff
	CHECK_RR mulh, 0xf8cc93d6, 0x12345678, 0x9abcdef0

	CHECK_RR mulhsu, 0x00000000, 0x00000003, 0x00000007
	CHECK_RR mulhsu, 0xffffffff, 0xffffffff, 0x00000007
	CHECK_RR mulhsu, 0xffffffff, 0xffffffff, 0xffffffff  /* -1 * (2^32-1) */
	CHECK_RR mulhsu, 0x80000000, 0x80000000, 0xffffffff
	CHECK_RR mulhsu, 0x7ffffffe, 0x7fffffff, 0xffffffff
	CHECK_RR mulhsu, 0x0b00ea4e, 0x12345678, 0x9abcdef0

	CHECK_RR mulhu, 0x00000000, 0x00000003, 0x00000007
	CHECK_RR mulhu, 0x00000006, 0xffffffff, 0x00000007
	CHECK_RR mulhu, 0xfffffffe, 0xffffffff, 0xffffffff
	CHECK_RR mulhu, 0x40000000, 0x80000000, 0x80000000
	CHECK_RR mulhu, 0x0b00ea4e, 0x12345678, 0x9abcdef0

	CHECK_RR div, 0x00000003, 20, 6
	CHECK_RR div, 0xfffffffd, -20, 6                   /* rounds toward zero */
	CHECK_RR div, 0xfffffffd, 20, -6
	CHECK_RR div, 0x00000003, -20, -6
	CHECK_RR div, 0x00000000, 5, 7
	CHECK_RR div, 0xffffffff, 0x12345678, 0            /* by zero: -1 */
	CHECK_RR div, 0xffffffff, 0x80000000, 0
	CHECK_RR div, 0xffffffff, 0, 0
	CHECK_RR div, 0x80000000, 0x80000000, 0xffffffff   /* overflow: INT_MIN */
	CHECK_RR div, 0xc0000000, 0x80000000, 2
	CHECK_RR div, 0x80000000, 0x80000000, 1
	CHECK_RR div, 0x00000001, 0x80000000, 0x80000000
	CHECK_RR div, 0x00000000, 0x7fffffff, 0x80000000

	CHECK_RR divu, 0x00000003, 20, 6
	CHECK_RR divu, 0x2aaaaaa7, -20, 6
	CHECK_RR divu, 0x00000000, 20, -6
	CHECK_RR divu, 0xffffffff, 0x12345678, 0           /* by zero: 2^32 - 1 */
	CHECK_RR divu, 0xffffffff, 0, 0
	CHECK_RR divu, 0x00000000, 0x80000000, 0xffffffff
	CHECK_RR divu, 0x00000001, 0xffffffff, 0xffffffff
	CHECK_RR divu, 0xffffffff, 0xffffffff, 1

	CHECK_RR rem, 0x00000002, 20, 6
	CHECK_RR rem, 0xfffffffe, -20, 6                   /* the dividend's sign */
	CHECK_RR rem, 0x00000002, 20, -6
	CHECK_RR rem, 0xfffffffe, -20, -6
	CHECK_RR rem, 0x12345678, 0x12345678, 0            /* by zero: the dividend */
	CHECK_RR rem, 0x80000000, 0x80000000, 0
	CHECK_RR rem, 0x00000000, 0x80000000, 0xffffffff   /* overflow: 0 */
	CHECK_RR rem, 0x00000000, 0x80000000, 1
	CHECK_RR rem, 0x7fffffff, 0x7fffffff, 0x80000000

	CHECK_RR remu, 0x00000002, 20, 6
	CHECK_RR remu, 0x00000002, -20, 6
	CHECK_RR remu, 0x00000014, 20, -6
	CHECK_RR remu, 0x12345678, 0x12345678, 0           /* by zero: the dividend */
	CHECK_RR remu, 0xffffffff, 0xffffffff, 0
	CHECK_RR remu, 0x80000000, 0x80000000, 0xffffffff
	CHECK_RR remu, 0x00000000, 0xffffffff, 0xffffffff

	/* rd = rs1 and rd = rs2: the operands are read before the result lands. */
	NEXT_CHECK
	li	a1, 100
	li	a2, 7
	div	a1, a1, a2
	EXPECT	a1, 14
	NEXT_CHECK
	li	a1, 100
	li	a2, 7
	rem	a2, a1, a2
	EXPECT	a2, 2
	NEXT_CHECK
	li	a1, 12
	mul	a1, a1, a1
	EXPECT	a1, 144
	/* rd = x0 discards. */
	NEXT_CHECK
	li	a1, 3
	mul	x0, a1, a1
	divu	x0, a1, a1
	EXPECT	x0, 0
TEST_END
