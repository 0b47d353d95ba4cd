// SPDX-License-Identifier: MIT
// The network port's CRC-32 of a beat (rtl/card/quire_crc32_pkg.sv, through
// tests/rtl/tb_crc32_top.sv) against hls/crc32.c, the golden: every byte count 0 to 64 and
// the counts above 64 (taken as 64) on seeded beats and running values; every one of the
// 512 bits of a beat alone, at every byte count that includes it (so each bit of the matrix
// is seen on its own); and whole frames of seeded lengths cut into beats, the running value
// carried from beat to beat as the port carries it. Prints "rtl crc32: N passed, N failed".
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "Vtb_crc32_top.h"
#include "verilated.h"

extern "C" {
#include "hls/crc32.h"
}

namespace {

uint64_t state = 0x9e3779b97f4a7c15ull;
uint32_t rnd()
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return uint32_t(state);
}

// The running value after `bytes` bytes of beat (at most 64 count) from crc, as the RTL
// keeps it: hls/ takes and gives the complement.
uint32_t golden(uint32_t crc, const uint8_t *beat, unsigned bytes)
{
	return ~quire_crc32(~crc, beat, bytes > 64 ? 64 : bytes);
}

uint32_t rtl(Vtb_crc32_top &m, uint32_t crc, const uint8_t *beat, unsigned bytes)
{
	m.crc_i = crc;
	for (int w = 0; w < 16; w++) {
		uint32_t v;
		std::memcpy(&v, beat + 4 * w, 4);
		m.data_i[w] = v; // byte 0 of the beat in bits 7:0, as the port's lines hold it
	}
	m.bytes_i = bytes;
	m.eval();
	return m.crc_o;
}

struct tally {
	const char *what;
	unsigned cases = 0, bad = 0;
	void check(uint32_t got, uint32_t want, uint32_t crc, unsigned bytes, const char *note)
	{
		cases++;
		if (got != want && bad++ < 5)
			std::printf("     %s: crc 0x%08" PRIx32 ", %u bytes%s: rtl 0x%08" PRIx32
				    ", hls 0x%08" PRIx32 "\n",
				    what, crc, bytes, note, got, want);
	}
	int report() const
	{
		std::printf("%s %s: %u cases, %u differ\n", bad ? "FAIL" : "ok  ", what, cases, bad);
		return bad ? 1 : 0;
	}
};

} // namespace

int main()
{
	Vtb_crc32_top m;
	int failed = 0, passed = 0;
	uint8_t beat[64];

	// Seeded beats and running values at every byte count: the bytes past the count must
	// not matter, so they are random too.
	tally lengths{"every byte count 0..127, seeded beats"};
	for (int round = 0; round < 200; round++) {
		for (unsigned bytes = 0; bytes < 128; bytes++) {
			for (auto &b : beat)
				b = uint8_t(rnd());
			uint32_t crc = round == 0 ? 0xffffffffu : round == 1 ? 0 : rnd();
			lengths.check(rtl(m, crc, beat, bytes), golden(crc, beat, bytes), crc, bytes, "");
		}
	}
	(lengths.report() ? failed : passed)++;

	// Each bit of a beat alone (with a running value of 0, then of a seeded one), at every
	// byte count that takes it in: one column of the matrix at a time.
	tally bits{"each beat bit alone, every count that includes it"};
	for (unsigned bit = 0; bit < 512; bit++) {
		std::memset(beat, 0, sizeof beat);
		beat[bit / 8] = uint8_t(1u << (bit % 8));
		for (unsigned bytes = bit / 8 + 1; bytes <= 64; bytes++) {
			uint32_t crc = bytes & 1 ? 0 : rnd();
			bits.check(rtl(m, crc, beat, bytes), golden(crc, beat, bytes), crc, bytes,
				   " (one bit)");
		}
	}
	// And each bit of the running value alone, on a zero beat of every count.
	std::memset(beat, 0, sizeof beat);
	for (unsigned bit = 0; bit < 32; bit++)
		for (unsigned bytes = 0; bytes <= 64; bytes++)
			bits.check(rtl(m, 1u << bit, beat, bytes), golden(1u << bit, beat, bytes),
				   1u << bit, bytes, " (zero beat)");
	(bits.report() ? failed : passed)++;

	// Whole frames, cut into 64-byte beats with a partial last one, the running value
	// carried across beats from 0xffffffff; the CRC is its complement at the end.
	tally frames{"frames of 1..4200 bytes, beat after beat"};
	std::vector<uint8_t> frame;
	for (int f = 0; f < 400; f++) {
		size_t len = f < 130 ? size_t(f + 1) : 1 + rnd() % 4200;
		frame.resize(len);
		for (auto &b : frame)
			b = uint8_t(rnd());
		uint32_t crc = 0xffffffffu;
		for (size_t off = 0; off < len; off += 64) {
			unsigned bytes = unsigned(len - off < 64 ? len - off : 64);
			std::memset(beat, 0xa5, sizeof beat); // past the frame's end: not counted
			std::memcpy(beat, frame.data() + off, bytes);
			crc = rtl(m, crc, beat, bytes);
		}
		frames.check(~crc, quire_crc32(0, frame.data(), uint32_t(len)), 0xffffffffu,
			     unsigned(len), " (a frame)");
	}
	(frames.report() ? failed : passed)++;

	m.final();
	std::printf("rtl crc32: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
