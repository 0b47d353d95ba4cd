// SPDX-License-Identifier: MIT
// Reading a bare-metal rv32 ELF into what a Verilator harness loads: the
// loadable segments at their physical (load) addresses, as 32-bit words.
// Shared by quire-rv32-run (the core's test machine) and the card harness.
#ifndef QUIRE_SIM_RTL_ELF_IMAGE_H
#define QUIRE_SIM_RTL_ELF_IMAGE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace quire_rtl {

struct ElfSegment {
	uint32_t paddr = 0;
	uint32_t memsz = 0;
	std::vector<uint8_t> bytes; // the file's bytes (filesz); the rest up to memsz is zero
};

struct ElfImage {
	uint32_t entry = 0;
	std::vector<ElfSegment> segments; // PT_LOAD segments with memsz > 0
};

// Reads an ELF32 little-endian RISC-V executable. On failure returns false
// with `error` saying why (e.g. "not an ELF file").
bool read_elf(const char *path, ElfImage &image, std::string &error);

// The words of [base, base + bytes) that the segments touch, as (address, value):
// what a loader writes. False with `error` when a segment lies outside it.
bool elf_words(const ElfImage &image, uint32_t base, uint32_t bytes,
	       std::vector<std::pair<uint32_t, uint32_t>> &words, std::string &error);

} // namespace quire_rtl

#endif
