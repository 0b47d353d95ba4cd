// SPDX-License-Identifier: MIT
/*
 * quire_quant_exp (rtl/engines/) against quire_quant_exponents (hls/quant.c):
 * the block exponents of seeded random and edge-case vectors, with and
 * without error feedback, bit for bit; and its steady-state rate.
 */
#include "Vquire_quant_exp.h"
#include "tb_common.h"

namespace {

const unsigned kLanes = 16;

/* Runs the engine over x (and resid with error feedback); returns mismatches. */
uint64_t check(tb::Tally &tally, const char *name, const std::vector<float> &x,
	       const std::vector<float> &resid, bool ef, tb::Rng *stalls, bool timed)
{
	uint32_t n = (uint32_t)x.size();
	uint32_t blocks = QUIRE_BFP_BLOCKS(n);
	std::vector<int8_t> want(blocks), got;
	quire_quant_exponents(n, ef ? QUIRE_QUANT_EF : 0, x.data(), resid.data(), want.data());

	Vquire_quant_exp m;
	m.ef_i = ef;
	/* Beats never cross a block: a short last block ends in a short beat. */
	std::vector<uint32_t> beat_first, beat_end;
	for (uint32_t first = 0; first < n;) {
		uint32_t block_end = std::min(n, (first / QUIRE_BFP_BLOCK + 1) * QUIRE_BFP_BLOCK);
		beat_first.push_back(first);
		beat_end.push_back(std::min(first + kLanes, block_end));
		first = beat_end.back();
	}
	auto offer = [&](uint64_t beat) {
		uint32_t keep = 0;
		for (unsigned lane = 0; lane < kLanes; lane++) {
			uint32_t i = beat_first[beat] + lane;
			bool is_element = i < beat_end[beat];
			/* Lanes that are no element carry a NaN: it must not count. */
			tb::put32(m.in_x_i, lane, is_element ? tb::bits_of(x[i]) : 0x7fc00000u);
			tb::put32(m.in_resid_i, lane, is_element ? tb::bits_of(resid[i]) : 0);
			keep |= (uint32_t)is_element << lane;
		}
		m.in_keep_i = keep;
		m.in_last_i = beat_end[beat] % QUIRE_BFP_BLOCK == 0 || beat_end[beat] == n;
	};
	auto take = [&]() { got.push_back((int8_t)m.out_exp_o); };
	auto taken = [&]() { return (uint64_t)got.size(); };
	tb::Timing t = tb::run_stream(m, beat_first.size(), offer, take, taken, blocks, stalls);
	uint64_t mismatches = 0;
	for (uint32_t b = 0; b < blocks; b++) {
		if (b >= got.size() || got[b] != want[b]) {
			if (mismatches++ < 5)
				std::printf("  block %u: rtl %d, hls %d\n", b,
					    b < got.size() ? got[b] : 999, want[b]);
		}
	}
	tally.report(name, n, timed ? t.per_cycle(kLanes) : 0, mismatches);
	return mismatches;
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	tb::Tally tally;
	tb::Rng rng(1);

	std::vector<float> x(1u << 20);
	tb::fill_values(rng, x, 1);
	std::vector<float> no_resid(x.size(), 0.0f);
	check(tally, "quant exponents", x, no_resid, false, nullptr, true);

	std::vector<float> y(100003);
	tb::fill_values(rng, y, 5);
	std::vector<float> r = tb::residuals_for(rng, y);
	check(tally, "quant exponents ef", y, r, true, nullptr, true);
	tb::Rng stalls(2);
	check(tally, "quant exponents ef, stalls", y, r, true, &stalls, false);

	std::vector<float> edges = tb::edge_blocks(rng);
	std::vector<float> edge_resid = tb::residuals_for(rng, edges);
	check(tally, "quant exponents edge cases", edges,
	      std::vector<float>(edges.size(), 0.0f), false, &stalls, false);
	check(tally, "quant exponents edge cases ef", edges, edge_resid, true, nullptr, false);
	return tally.finish("rtl quant exponents");
}
