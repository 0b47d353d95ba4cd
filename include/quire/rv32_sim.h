/* SPDX-License-Identifier: MIT */
/*
 * The bare-metal test machine of the rv32im core (rtl/core/, sim/rtl/): its
 * memory map, the one place it is written. The RTL reads it through a
 * package generated from this file (rtl/gen/gen_pkg.sh), the runner
 * quire-rv32-run includes it, and the tests' linker script is this file run
 * through the C preprocessor (tests/rtl/link.ld.S); the tests' assembly
 * includes it too. Every value is `QUIRE_RV32_SIM_U32(0x........)`, one a
 * line, so that the generator can read it: unsigned in C, a bare number for
 * the assembler and the linker, which know no `u` suffix.
 *
 *   0x0000_0000  RAM, 128 KiB: the firmware's IMEM (64 KiB at 0) and DMEM
 *                (8 KiB at 0x1_0000) lie inside it; fetch and data ports reach all of it
 *   0x2000_0000  simulation I/O: console, sim-exit, interrupt line, timer
 *
 * Any other address is an access fault (mcause 1, 5 or 7).
 */
#ifndef QUIRE_RV32_SIM_H
#define QUIRE_RV32_SIM_H

#ifdef __ASSEMBLER__
#define QUIRE_RV32_SIM_U32(hex) hex
#else
#define QUIRE_RV32_SIM_U32(hex) hex##u
#endif

/* The first instruction fetched after reset; mtvec's value at reset, too. */
#define QUIRE_RV32_SIM_RESET_ADDR QUIRE_RV32_SIM_U32(0x00000000)

#define QUIRE_RV32_SIM_RAM_BASE  QUIRE_RV32_SIM_U32(0x00000000)
#define QUIRE_RV32_SIM_RAM_BYTES QUIRE_RV32_SIM_U32(0x00020000) /* 128 KiB */

#define QUIRE_RV32_SIM_IO_BASE  QUIRE_RV32_SIM_U32(0x20000000)
#define QUIRE_RV32_SIM_IO_BYTES QUIRE_RV32_SIM_U32(0x00001000)
/* Store a byte (low 8 bits of any store): the runner writes it to stdout. Reads 0. */
#define QUIRE_RV32_SIM_CONSOLE QUIRE_RV32_SIM_U32(0x20000000)
/* Store a word: the simulation ends and the runner exits with it (0 = pass). */
#define QUIRE_RV32_SIM_EXIT QUIRE_RV32_SIM_U32(0x20000004)
/* The external interrupt line (mip.MEIP): store 1 to raise it, 0 to lower; reads back. */
#define QUIRE_RV32_SIM_IRQ QUIRE_RV32_SIM_U32(0x20000008)
/* A 64-bit mtime counting clock cycles, and mtimecmp: mip.MTIP = (mtime >= mtimecmp). */
#define QUIRE_RV32_SIM_MTIME_LO    QUIRE_RV32_SIM_U32(0x20000010)
#define QUIRE_RV32_SIM_MTIME_HI    QUIRE_RV32_SIM_U32(0x20000014)
#define QUIRE_RV32_SIM_MTIMECMP_LO QUIRE_RV32_SIM_U32(0x20000018)
#define QUIRE_RV32_SIM_MTIMECMP_HI QUIRE_RV32_SIM_U32(0x2000001c)

#endif /* QUIRE_RV32_SIM_H */
