/* SPDX-License-Identifier: MIT */
/* Start-up of the card build: stack, .data from IMEM to DMEM, zeroed .bss, main. */
	.section .text.start, "ax"
	.globl _start
_start:
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
