/* SPDX-License-Identifier: MIT */
/*
 * Links a bare-metal program for the rv32im core's test machine
 * (docs/rtl-core.md). Run through the C preprocessor so that the map comes
 * from include/quire/rv32_sim.h; `make rtl` writes build/rtl/link.ld.
 * Everything lives in the one RAM: code from the reset address (sections
 * .text.init and .text.start first, so that _start is there), then
 * constants, data, bss, and the stack at the top of RAM, growing down.
 */
#include "quire/rv32_sim.h"

OUTPUT_ARCH(riscv)
ENTRY(_start)

MEMORY
{
	RAM (rwx) : ORIGIN = QUIRE_RV32_SIM_RAM_BASE, LENGTH = QUIRE_RV32_SIM_RAM_BYTES
}

SECTIONS
{
	. = QUIRE_RV32_SIM_RESET_ADDR;
	.text : {
		KEEP(*(.text.init))
		KEEP(*(.text.start))
		*(.text .text.*)
	} > RAM
	.rodata : { *(.rodata .rodata.* .srodata .srodata.*) } > RAM
	.data : ALIGN(4) {
		*(.data .data.* .sdata .sdata.*)
		/* riscv-tests style programs may keep tohost/fromhost here. */
		*(.tohost)
	} > RAM
	.bss (NOLOAD) : ALIGN(4) {
		__bss_start = .;
		*(.bss .bss.* .sbss .sbss.* COMMON)
		. = ALIGN(4);
		__bss_end = .;
	} > RAM
	__stack_top = ORIGIN(RAM) + LENGTH(RAM);
	/DISCARD/ : { *(.comment) *(.riscv.attributes) *(.note*) *(.eh_frame*) }
}
