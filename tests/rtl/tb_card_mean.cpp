// SPDX-License-Identifier: MIT
// DECODE's mean in the RTL card (rtl/card/quire_card_mean.sv) against hls/:
// quire_quant_decode of fp32 values with mean_w (y / (float)mean_w), bit for
// bit, on seeded beats of 16 lanes full of edges (zeros, subnormals, the
// smallest normals, values near the top, NaN with payloads, Inf) and divisors
// of five kinds: small, up to 2^16, any 32-bit, powers of two, and above 2^24
// (where (float)mean_w rounds). Prints the cycles a beat and
// "rtl mean: N passed, N failed" (one case per kind of divisor).
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "Vquire_card_mean.h"
#include "verilated.h"

extern "C" {
#include "hls/quant.h"
#include "quire/format.h"
}

namespace {

uint64_t state = 88172645463325252ull;
uint32_t rnd()
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return uint32_t(state);
}

uint32_t edgy()
{
	uint32_t sign = rnd() & 0x80000000u;
	switch (rnd() % 12) {
	case 0:
		return sign | (rnd() & 0x7fffffu); // subnormal (or zero)
	case 1:
		return sign | 0x7f800000u | (rnd() % 3 ? rnd() & 0x7fffffu : 0); // NaN or Inf
	case 2:
		return sign; // a zero
	case 3:
		return sign | 1u << 23 | (rnd() & 0x7fffffu); // the smallest normals
	case 4:
		return sign | 0x7f000000u | (rnd() & 0x7fffffu); // near the top
	case 5:
		return sign | (1 + rnd() % 30) << 23 | (rnd() & 0x7fffffu); // quotients go subnormal
	default:
		return rnd();
	}
}

uint32_t divisor(int kind)
{
	switch (kind) {
	case 0:
		return 2 + rnd() % 30;
	case 1:
		return 2 + rnd() % 65534;
	case 2:
		return rnd() | 2u;
	case 3:
		return 1u << (1 + rnd() % 31);
	default:
		return (1u << 24) + 1 + rnd() % 100000;
	}
}

} // namespace

int main()
{
	Vquire_card_mean m;
	m.clk_i = 0;
	m.rst_ni = 0;
	m.start_i = 0;
	m.eval();
	m.rst_ni = 1;
	m.eval();
	auto tick = [&m] {
		m.clk_i = 0;
		m.eval();
		m.clk_i = 1;
		m.eval();
	};
	const char *kinds[] = {"2..31", "2..65535", "any 32-bit", "powers of two", "above 2^24"};
	int passed = 0, failed = 0;
	unsigned cycles = 0;
	for (int kind = 0; kind < 5; kind++) {
		unsigned lanes = 0, bad = 0;
		for (int beat = 0; beat < 2000; beat++) {
			uint32_t w = divisor(kind), y[16];
			float want[16];
			for (int l = 0; l < 16; l++) {
				y[l] = edgy();
				m.y_i[l] = y[l];
			}
			if (quire_quant_decode(QUIRE_FMT_FP32, QUIRE_FMT_FP32, 16, w,
					       reinterpret_cast<const uint8_t *>(y), nullptr, want) != 0)
				return std::printf("FAIL hls/ refused the decode\n"), 1;
			m.w_i = w;
			m.start_i = 1;
			tick();
			m.start_i = 0;
			unsigned c = 1;
			for (; !m.done_o && c < 1000; c++)
				tick();
			cycles = c;
			for (int l = 0; l < 16; l++) {
				uint32_t wb;
				std::memcpy(&wb, &want[l], 4);
				lanes++;
				if (m.y_o[l] != wb && bad++ < 5)
					std::printf("     y 0x%08" PRIx32 " / %" PRIu32 ": rtl 0x%08" PRIx32
						    ", hls 0x%08" PRIx32 "\n",
						    y[l], w, uint32_t(m.y_o[l]), wb);
			}
		}
		std::printf("%s divisors %s: %u lanes, %u differ\n", bad ? "FAIL" : "ok  ", kinds[kind],
			    lanes, bad);
		(bad ? failed : passed)++;
	}
	m.final();
	std::printf("     quire_card_mean: %u cycles a beat of 16 lanes, start to done\n", cycles);
	std::printf("rtl mean: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
