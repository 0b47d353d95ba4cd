/* SPDX-License-Identifier: MIT */
/*
 * Synchronous traps: illegal instruction, ecall, ebreak, misaligned and
 * faulting loads, stores and jumps; mcause, mepc and mtval for each; mret and
 * the mstatus MIE/MPIE stack.
 *
 * The handler here records mcause, mepc and mtval in s2, s3, s4, counts in s5,
 * and resumes at the address in s6 (set before each trap).
 */
#include "test.h"

/* Arm the handler to resume at `label`. */
.macro EXPECT_TRAP_TO label
	la	s6, \label
	li	s2, -1
.endm

/* After a trap: the cause, and mepc = the label of the trapping instruction. */
.macro CHECK_TRAP cause, epc_label
	EXPECT	s2, \cause
	la	t5, \epc_label
	beq	s3, t5, 97f
	j	fail
97:
.endm

/* `op reg, offset(s7)` traps with `cause`, mtval the address. */
.macro CHECK_ACCESS_TRAP cause, op, reg, offset
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
2:	\op	\reg, \offset(s7)
1:	CHECK_TRAP \cause, 2b
	addi	t5, s7, \offset
	bne	s4, t5, fail
.endm

TEST_BEGIN
	la	t0, handler
	csrw	mtvec, t0
	li	s5, 0

	/* Illegal instruction: mtval holds its bits. */
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
illegal_zero:
	.word	0x00000000
1:	CHECK_TRAP 2, illegal_zero
	EXPECT	s4, 0
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
illegal_ones:
	.word	0xffffffff
1:	CHECK_TRAP 2, illegal_ones
	EXPECT	s4, 0xffffffff
	/* Encodings close to real ones. */
	.irp word, 0x02001013, 0x40001033, 0x40006033, 0x0000302b, 0x00003023, 0x00006003, 0x00002063, 0x00001067, 0x00004073, 0x30200072, 0x10200073, 0x00000007, 0x0200107f, 0x42005013
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
	.word	\word
1:	EXPECT	s2, 2
	EXPECT	s4, \word
	.endr
	/* CSRs: one that does not exist, and a write to a read-only one. */
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
csr_unknown:
	csrr	a0, 0x7c0
1:	CHECK_TRAP 2, csr_unknown
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
csr_readonly:
	csrw	cycle, a0
1:	CHECK_TRAP 2, csr_readonly
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
csr_readonly_hartid:
	csrrwi	zero, mhartid, 1
1:	CHECK_TRAP 2, csr_readonly_hartid
	/* Reading a read-only CSR with CSRRS x0 is no write: no trap. */
	NEXT_CHECK
	li	s2, 0
	csrrs	a0, cycle, zero
	EXPECT	s2, 0

	/* ecall and ebreak. */
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
do_ecall:
	ecall
1:	CHECK_TRAP 11, do_ecall
	EXPECT	s4, 0
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
do_ebreak:
	ebreak
1:	CHECK_TRAP 3, do_ebreak
	la	t5, do_ebreak               /* mtval of ebreak: its pc */
	bne	s4, t5, fail

	/* Misaligned loads: mtval is the address; rd is untouched. */
	la	s7, data
	li	a0, 0x5a5a
	CHECK_ACCESS_TRAP 4, lh, a0, 1
	EXPECT	a0, 0x5a5a
	CHECK_ACCESS_TRAP 4, lhu, a0, 3
	CHECK_ACCESS_TRAP 4, lw, a0, 1
	CHECK_ACCESS_TRAP 4, lw, a0, 2
	CHECK_ACCESS_TRAP 4, lw, a0, 3
	/* Bytes never misalign; halves at 2 do not. */
	NEXT_CHECK
	li	s2, 0
	lb	a0, 3(s7)
	lh	a0, 2(s7)
	EXPECT	s2, 0

	/* Misaligned stores: the memory is not written. */
	li	a1, 0x11223344
	sw	a1, 0(s7)
	li	a2, -1
	CHECK_ACCESS_TRAP 6, sh, a2, 1
	CHECK_ACCESS_TRAP 6, sw, a2, 2
	CHECK_ACCESS_TRAP 6, sw, a2, 3
	NEXT_CHECK
	lw	a0, 0(s7)
	EXPECT	a0, 0x11223344

	/* Misaligned jumps: the trap is at the jump, mtval the target, no link. */
	NEXT_CHECK
	la	a1, jump_pad
	addi	a1, a1, 2
	li	ra, 0x77
	EXPECT_TRAP_TO 1f
j_jalr:	jalr	ra, 0(a1)
1:	CHECK_TRAP 0, j_jalr
	bne	s4, a1, fail
	EXPECT	ra, 0x77
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
j_jal:	.word	0x0060006f           /* jal x0, .+6 */
1:	CHECK_TRAP 0, j_jal
	la	t5, j_jal
	addi	t5, t5, 6
	bne	s4, t5, fail
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
j_beq:	.word	0x00000363           /* beq x0, x0, .+6 */
1:	CHECK_TRAP 0, j_beq
	/* A branch not taken to a misaligned target does not trap. */
	NEXT_CHECK
	li	s2, 0
	.word	0x00001363           /* bne x0, x0, .+6 */
	EXPECT	s2, 0

	/* Access faults: loads, stores and fetches outside the map. */
	NEXT_CHECK
	li	a1, 0x10000000
	EXPECT_TRAP_TO 1f
f_load:	lw	a0, 0(a1)
1:	CHECK_TRAP 5, f_load
	bne	s4, a1, fail
	NEXT_CHECK
	EXPECT_TRAP_TO 1f
f_store: sw	a0, 4(a1)
1:	CHECK_TRAP 7, f_store
	NEXT_CHECK
	li	a1, 0x30000000
	li	s2, -1
	la	s6, 1f
	jalr	zero, 0(a1)
1:	EXPECT	s2, 1
	li	t5, 0x30000000
	bne	s3, t5, fail
	bne	s4, t5, fail

	/* mstatus across a trap: MIE -> MPIE, MIE cleared; mret restores. */
	NEXT_CHECK
	csrsi	mstatus, 8                  /* MIE on; no interrupt is enabled in mie */
	EXPECT_TRAP_TO 1f
	ecall
1:	EXPECT	s8, 0x1880                  /* mstatus seen in the handler: MPIE, MPP */
	csrr	a0, mstatus
	EXPECT	a0, 0x1888                  /* after mret: MIE back, MPIE 1 */
	csrci	mstatus, 8
	NEXT_CHECK
	EXPECT	s5, 36                      /* the traps taken, all counted */
	j	done

	.align	2
handler:
	csrr	s2, mcause
	csrr	s3, mepc
	csrr	s4, mtval
	csrr	s8, mstatus
	addi	s5, s5, 1
	csrw	mepc, s6
	mret

jump_pad:
	nop
	nop
done:
TEST_END

	.data
	.align	2
data:
	.word	0
	.word	0
