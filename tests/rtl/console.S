/* SPDX-License-Identifier: MIT */
/* The console: bytes stored to it appear on the runner's stdout. */
#include "test.h"

TEST_BEGIN
	la	a0, message
	li	a1, QUIRE_RV32_SIM_CONSOLE
1:	lbu	a2, 0(a0)
	beqz	a2, 2f
	sb	a2, 0(a1)
	addi	a0, a0, 1
	j	1b
2:
TEST_END

	.section .rodata
message:
	.string "hello from rv32im\n"
