/* SPDX-License-Identifier: MIT */
/* RV32I register-register and register-immediate arithmetic, LUI and AUIPC. */
#include "test.h"

TEST_BEGIN
	CHECK_RR add, 0x00000000, 0x00000000, 0x00000000
	CHECK_RR add, 0x00000003, 0x00000001, 0x00000002
	CHECK_RR add, 0x80000000, 0x7fffffff, 0x00000001   /* wraps, no trap */
	CHECK_RR add, 0x00000000, 0xffffffff, 0x00000001
	CHECK_RR sub, 0xffffffff, 0x00000000, 0x00000001
	CHECK_RR sub, 0x7fffffff, 0x80000000, 0x00000001
	CHECK_RR sub, 0x00000000, 0x12345678, 0x12345678
	CHECK_RR sll, 0x00000002, 0x00000001, 0x00000001
	CHECK_RR sll, 0x80000000, 0x00000001, 0x0000001f
	CHECK_RR sll, 0x00000001, 0x00000001, 0x00000020   /* only rs2[4:0] counts */
	CHECK_RR sll, 0x1a2b3c00, 0x12345678, 0xffffffe7
	CHECK_RR srl, 0x7fffffff, 0xffffffff, 0x00000001
	CHECK_RR srl, 0x00000001, 0x80000000, 0x0000001f
	CHECK_RR srl, 0x80000000, 0x80000000, 0x00000040
	CHECK_RR sra, 0xffffffff, 0x80000000, 0x0000001f
	CHECK_RR sra, 0xc0000000, 0x80000000, 0x00000001
	CHECK_RR sra, 0x3fffffff, 0x7fffffff, 0x00000001
	CHECK_RR sra, 0x81234567, 0x81234567, 0xffffffe0
	CHECK_RR slt, 0x00000001, 0xffffffff, 0x00000000
	CHECK_RR slt, 0x00000000, 0x00000000, 0xffffffff
	CHECK_RR slt, 0x00000001, 0x80000000, 0x7fffffff
	CHECK_RR slt, 0x00000000, 0x00000005, 0x00000005
	CHECK_RR sltu, 0x00000000, 0xffffffff, 0x00000000
	CHECK_RR sltu, 0x00000001, 0x00000000, 0xffffffff
	CHECK_RR sltu, 0x00000000, 0x80000000, 0x7fffffff
	CHECK_RR sltu, 0x00000000, 0x00000005, 0x00000005
	CHECK_RR xor, 0xf0f0f0f0, 0xff00ff00, 0x0ff00ff0
	CHECK_RR or,  0xfff0fff0, 0xff00ff00, 0x0ff00ff0
	CHECK_RR and, 0x0f000f00, 0xff00ff00, 0x0ff00ff0

	CHECK_RI addi, 0x00000000, 0x00000001, -1
	CHECK_RI addi, 0x800007fe, 0x7fffffff, 0x7ff
	CHECK_RI addi, 0x7ffff7ff, 0x7fffffff, -0x800
	CHECK_RI slti, 0x00000001, 0xfffffff0, -1
	CHECK_RI slti, 0x00000000, 0x00000000, -1
	CHECK_RI sltiu, 0x00000001, 0x00000000, -1         /* -1 is 0xffffffff unsigned */
	CHECK_RI sltiu, 0x00000000, 0xffffffff, -1
	CHECK_RI sltiu, 0x00000001, 0x00000000, 1          /* seqz */
	CHECK_RI xori, 0xff00f00f, 0x00ff0ff0, -1          /* not, sign-extended immediate */
	CHECK_RI xori, 0x00ff0f0f, 0x00ff0ff0, 0x0ff
	CHECK_RI ori,  0xffffffff, 0x00000000, -1
	CHECK_RI ori,  0x00ff07f0, 0x00ff0000, 0x7f0
	CHECK_RI andi, 0x000007f0, 0xff00fff0, 0x7f0
	CHECK_RI andi, 0xff00fff0, 0xff00fff0, -16
	CHECK_RI slli, 0x80000000, 0x00000001, 31
	CHECK_RI slli, 0x23456780, 0x12345678, 4
	CHECK_RI srli, 0x00000001, 0x80000000, 31
	CHECK_RI srli, 0x08000000, 0x80000000, 4
	CHECK_RI srai, 0xf8000000, 0x80000000, 4
	CHECK_RI srai, 0x07ffffff, 0x7fffffff, 4
	CHECK_RI srai, 0xffffffff, 0x80000000, 31

	/* LUI and AUIPC */
	NEXT_CHECK
	lui	a0, 0xfffff
	EXPECT	a0, 0xfffff000
	NEXT_CHECK
	lui	a0, 0x12345
	addi	a0, a0, 0x678
	EXPECT	a0, 0x12345678
	NEXT_CHECK
auipc_here:
	auipc	a0, 0
	la	a1, auipc_here
	sub	a0, a0, a1
	EXPECT	a0, 0
	NEXT_CHECK
auipc_up:
	auipc	a0, 1
	la	a1, auipc_up
	sub	a0, a0, a1
	EXPECT	a0, 0x1000

	/* x0 stays zero; an instruction may read and write the same register. */
	NEXT_CHECK
	li	a1, 5
	add	x0, a1, a1
	addi	x0, x0, 7
	lui	x0, 0x1
	EXPECT	x0, 0
	NEXT_CHECK
	li	a1, 21
	add	a1, a1, a1
	EXPECT	a1, 42
	NEXT_CHECK
	li	a1, 0x0f0
	sub	a1, x0, a1
	EXPECT	a1, -0x0f0
	/* NOP and FENCE do nothing visible. */
	NEXT_CHECK
	li	a0, 9
	nop
	fence
	fence.i
	EXPECT	a0, 9
TEST_END
