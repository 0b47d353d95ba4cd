// SPDX-License-Identifier: MIT
// Reading a bare-metal rv32 ELF for the Verilator harnesses (elf_image.h).
#include "elf_image.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace quire_rtl {
namespace {

uint32_t read_u32(const std::vector<uint8_t> &b, size_t at)
{
	return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
	       uint32_t(b[at + 3]) << 24;
}

uint16_t read_u16(const std::vector<uint8_t> &b, size_t at)
{
	return uint16_t(b[at] | b[at + 1] << 8);
}

} // namespace

bool read_elf(const char *path, ElfImage &image, std::string &error)
{
	FILE *f = std::fopen(path, "rb");
	if (!f) {
		error = std::strerror(errno);
		return false;
	}
	std::vector<uint8_t> bytes;
	uint8_t chunk[65536];
	size_t n;
	while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
		bytes.insert(bytes.end(), chunk, chunk + n);
	std::fclose(f);

	const size_t ehdr_size = 52, phdr_size = 32;
	if (bytes.size() < ehdr_size || std::memcmp(bytes.data(), "\x7f"
							       "ELF",
						    4) != 0) {
		error = "not an ELF file";
		return false;
	}
	if (bytes[4] != 1 || bytes[5] != 1) {
		error = "not a 32-bit little-endian ELF (build with -march=rv32im -mabi=ilp32)";
		return false;
	}
	if (read_u16(bytes, 16) != 2) {
		error = "not an executable (ELF type EXEC)";
		return false;
	}
	if (read_u16(bytes, 18) != 243) {
		error = "not a RISC-V ELF";
		return false;
	}
	image.entry = read_u32(bytes, 24);
	uint32_t phoff = read_u32(bytes, 28);
	uint16_t phentsize = read_u16(bytes, 42), phnum = read_u16(bytes, 44);
	if (phentsize < phdr_size || uint64_t(phoff) + uint64_t(phnum) * phentsize > bytes.size()) {
		error = "program headers out of the file";
		return false;
	}
	for (unsigned i = 0; i < phnum; i++) {
		size_t ph = phoff + size_t(i) * phentsize;
		if (read_u32(bytes, ph) != 1) // PT_LOAD
			continue;
		uint32_t offset = read_u32(bytes, ph + 4), paddr = read_u32(bytes, ph + 12);
		uint32_t filesz = read_u32(bytes, ph + 16), memsz = read_u32(bytes, ph + 20);
		if (memsz == 0)
			continue;
		if (filesz > memsz || uint64_t(offset) + filesz > bytes.size()) {
			error = "a segment lies outside the file";
			return false;
		}
		ElfSegment seg;
		seg.paddr = paddr;
		seg.memsz = memsz;
		seg.bytes.assign(bytes.begin() + offset, bytes.begin() + offset + filesz);
		image.segments.push_back(std::move(seg));
	}
	if (image.segments.empty()) {
		error = "no loadable segment";
		return false;
	}
	return true;
}

bool elf_words(const ElfImage &image, uint32_t base, uint32_t bytes,
	       std::vector<std::pair<uint32_t, uint32_t>> &words, std::string &error)
{
	std::vector<uint8_t> mem(bytes, 0);
	std::vector<bool> touched(bytes / 4, false);
	for (size_t i = 0; i < image.segments.size(); i++) {
		const ElfSegment &seg = image.segments[i];
		// An offset that wraps below the base is huge: one test covers both ends.
		uint32_t at = seg.paddr - base;
		if (uint64_t(at) + seg.memsz > bytes) {
			char where[128];
			std::snprintf(where, sizeof where,
				      "segment %zu (0x%08" PRIx32 "..0x%08" PRIx64
				      ") is outside 0x%08" PRIx32 "..0x%08" PRIx64,
				      i, seg.paddr, uint64_t(seg.paddr) + seg.memsz, base,
				      uint64_t(base) + bytes);
			error = where;
			return false;
		}
		if (!seg.bytes.empty()) /* a .bss-only segment has no bytes (and no data()) */
			std::memcpy(&mem[at], seg.bytes.data(), seg.bytes.size());
		for (uint64_t a = at & ~3u; a < uint64_t(at) + seg.memsz; a += 4)
			touched[a / 4] = true;
	}
	for (size_t w = 0; w < touched.size(); w++)
		if (touched[w])
			words.emplace_back(base + 4 * uint32_t(w),
					   read_u32(mem, 4 * w));
	return true;
}

} // namespace quire_rtl
