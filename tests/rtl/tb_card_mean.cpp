// SPDX-License-Identifier: MIT
// DECODE's mean in the RTL card (rtl/card/quire_card_mean.sv) against hls/:
// quire_quant_decode of fp32 values with mean_w (y / (float)mean_w), bit for
// bit, on seeded beats of 16 lanes full of edges (zeros, subnormals, the
// smallest normals, values near the top, NaN with payloads, Inf) and divisors
// of five kinds: small, up to 2^16, any 32-bit, powers of two, and above 2^24
// (where (float)mean_w rounds), a beat a cycle, each with its own divisor. Prints
// the latency and "rtl mean: N passed, N failed" (one case per kind of divisor).
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

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
	m.in_valid_i = 0;
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
	const int beats = 2000;
	int passed = 0, failed = 0;
	unsigned latency = 0, span = 0;
	for (int kind = 0; kind < 5; kind++) {
		// Every beat with a divisor of its own, one beat a cycle: the stages must not mix them.
		std::vector<std::array<uint32_t, 16>> y(beats), want(beats);
		std::vector<uint32_t> w(beats);
		for (int b = 0; b < beats; b++) {
			w[b] = divisor(kind);
			for (int l = 0; l < 16; l++)
				y[b][l] = edgy();
			float f[16];
			if (quire_quant_decode(QUIRE_FMT_FP32, QUIRE_FMT_FP32, 16, w[b],
					       reinterpret_cast<const uint8_t *>(y[b].data()), nullptr,
					       f) != 0)
				return std::printf("FAIL hls/ refused the decode\n"), 1;
			std::memcpy(want[b].data(), f, sizeof f);
		}
		unsigned lanes = 0, bad = 0, cycle = 0, first_out = 0;
		int in = 0, out = 0;
		while (out < beats && cycle < unsigned(beats) + 1000) {
			m.in_valid_i = in < beats;
			if (in < beats) {
				m.w_i = w[in];
				for (int l = 0; l < 16; l++)
					m.y_i[l] = y[in][l];
				in++;
			}
			tick();
			cycle++;
			if (!m.out_valid_o)
				continue;
			if (out == 0)
				first_out = cycle;
			for (int l = 0; l < 16; l++) {
				lanes++;
				if (m.y_o[l] != want[out][l] && bad++ < 5)
					std::printf("     y 0x%08" PRIx32 " / %" PRIu32 ": rtl 0x%08" PRIx32
						    ", hls 0x%08" PRIx32 "\n",
						    y[out][l], w[out], uint32_t(m.y_o[l]), want[out][l]);
			}
			out++;
		}
		if (out < beats)
			bad++, std::printf("     %d of %d beats came out\n", out, beats);
		latency = first_out;
		span = cycle - first_out + 1;
		std::printf("%s divisors %s: %u lanes, %u differ\n", bad ? "FAIL" : "ok  ", kinds[kind],
			    lanes, bad);
		(bad ? failed : passed)++;
	}
	m.final();
	std::printf("     quire_card_mean: %u cycles from a beat in to its quotients, %d beats out in "
		    "%u cycles\n",
		    latency, beats, span);
	std::printf("rtl mean: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
