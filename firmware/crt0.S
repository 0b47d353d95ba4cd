/* SPDX-License-Identifier: MIT */
/*
 * Start-up of the card build: trap vector, stack, .data from IMEM to DMEM, zeroed .bss,
 * main; and the trap handler.
 */
	.section .text.start, "ax"
	.globl _start
_start:
	.option	push
	.option	arch, +zicsr		/* the core has Zicsr; the C needs only rv32im */
	la	t0, fw_trap
	csrw	mtvec, t0
	.option	pop
	la	sp, __stack_top
	la	t0, __data_load
	la	t1, __data_start
	la	t2, __data_end
1:	bgeu	t1, t2, 2f
	lw	t3, 0(t0)
	sw	t3, 0(t1)
	addi	t0, t0, 4
	addi	t1, t1, 4
	j	1b
2:	la	t0, __bss_start
	la	t1, __bss_end
3:	bgeu	t0, t1, 4f
	sw	zero, 0(t0)
	addi	t0, t0, 4
	j	3b
	/* The HAL waits with WFI, which ends only on an interrupt enabled in mie: enable the
	 * card's event (external) and timer lines there. mstatus.MIE stays clear, so they
	 * wake the core without ever trapping. */
4:	li	t0, 0x880		/* mie.MEIE | mie.MTIE */
	.option	push
	.option	arch, +zicsr		/* the core has Zicsr; the C needs only rv32im */
	csrw	mie, t0
	.option	pop
	call	main
5:	wfi
	j	5b

/*
 * Exceptions (interrupts never trap: mstatus.MIE stays clear). A load or store access
 * fault (mcause 5, 7: an address nothing answers, such as the window of an engine the
 * card does not have) is counted in fw_access_faults and skipped; a faulting load's
 * destination reads all ones, as an absent register does on the host's side, so a poll
 * for DONE ends. Anything else is a firmware bug: fw_fatal_trap (when linked) says so to
 * the host, then the core waits for ever.
 */
	.option	push
	.option	arch, +zicsr
	.balign	4
fw_trap:
	addi	sp, sp, -128		/* x1..x31 at 4 * n(sp); x2 as it was before the trap */
	sw	x1, 4(sp)
	sw	x3, 12(sp)
	sw	x4, 16(sp)
	sw	x5, 20(sp)
	sw	x6, 24(sp)
	sw	x7, 28(sp)
	sw	x8, 32(sp)
	sw	x9, 36(sp)
	sw	x10, 40(sp)
	sw	x11, 44(sp)
	sw	x12, 48(sp)
	sw	x13, 52(sp)
	sw	x14, 56(sp)
	sw	x15, 60(sp)
	sw	x16, 64(sp)
	sw	x17, 68(sp)
	sw	x18, 72(sp)
	sw	x19, 76(sp)
	sw	x20, 80(sp)
	sw	x21, 84(sp)
	sw	x22, 88(sp)
	sw	x23, 92(sp)
	sw	x24, 96(sp)
	sw	x25, 100(sp)
	sw	x26, 104(sp)
	sw	x27, 108(sp)
	sw	x28, 112(sp)
	sw	x29, 116(sp)
	sw	x30, 120(sp)
	sw	x31, 124(sp)
	addi	t0, sp, 128
	sw	t0, 8(sp)
	csrr	t0, mcause
	li	t1, 7			/* store access fault: nothing to write back */
	beq	t0, t1, 6f
	li	t1, 5			/* load access fault: rd reads all ones */
	bne	t0, t1, 8f
	csrr	t0, mepc
	lw	t1, 0(t0)		/* the load itself (the data port reads IMEM) */
	srli	t1, t1, 7
	andi	t1, t1, 31
	beqz	t1, 6f
	slli	t1, t1, 2
	add	t1, t1, sp
	li	t2, -1
	sw	t2, 0(t1)
6:	la	t0, fw_access_faults
	lw	t1, 0(t0)
	addi	t1, t1, 1
	sw	t1, 0(t0)
	csrr	t0, mepc
	addi	t0, t0, 4		/* rv32im: every instruction is 4 bytes */
	csrw	mepc, t0
	lw	x1, 4(sp)
	lw	x3, 12(sp)
	lw	x4, 16(sp)
	lw	x5, 20(sp)
	lw	x6, 24(sp)
	lw	x7, 28(sp)
	lw	x8, 32(sp)
	lw	x9, 36(sp)
	lw	x10, 40(sp)
	lw	x11, 44(sp)
	lw	x12, 48(sp)
	lw	x13, 52(sp)
	lw	x14, 56(sp)
	lw	x15, 60(sp)
	lw	x16, 64(sp)
	lw	x17, 68(sp)
	lw	x18, 72(sp)
	lw	x19, 76(sp)
	lw	x20, 80(sp)
	lw	x21, 84(sp)
	lw	x22, 88(sp)
	lw	x23, 92(sp)
	lw	x24, 96(sp)
	lw	x25, 100(sp)
	lw	x26, 104(sp)
	lw	x27, 108(sp)
	lw	x28, 112(sp)
	lw	x29, 116(sp)
	lw	x30, 120(sp)
	lw	x31, 124(sp)
	lw	x2, 8(sp)		/* last: a load into sp took its value from the frame */
	mret
8:	.weak	fw_fatal_trap
	la	t2, fw_fatal_trap
	beqz	t2, 9f
	mv	a0, t0			/* mcause */
	csrr	a1, mtval
	jalr	t2
9:	wfi
	j	9b
	.option	pop

	.section .bss.fw_access_faults, "aw", @nobits
	.balign	4
	.globl	fw_access_faults
fw_access_faults:
	.zero	4
