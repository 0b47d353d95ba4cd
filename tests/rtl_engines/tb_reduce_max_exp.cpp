// SPDX-License-Identifier: MIT
/*
 * quire_reduce_max_exp (rtl/engines/) against quire_reduce_max_exp
 * (hls/reduce.c): the shared block exponents of W workers, with and without an
 * accumulator input, every exponent from ZERO to NONFINITE, bit for bit; and
 * the steady-state rate (64 exponents a cycle).
 */
#include "Vquire_reduce_max_exp.h"
#include "tb_common.h"

namespace {

const unsigned kLanes = 64;

void check(tb::Tally &tally, tb::Rng &rng, tb::Rng *stalls, const char *name, uint32_t workers,
	   uint32_t blocks, bool acc_in, bool timed)
{
	/* Exponents as workers make them: ZERO and NONFINITE often, any other valid one. */
	auto random_exp = [&]() {
		uint32_t kind = rng.below(10);
		return (int8_t)(kind == 0 ? QUIRE_BFP_EXP_ZERO
				: kind == 1 ? QUIRE_BFP_EXP_NONFINITE
				: kind == 2 ? (rng.chance(50) ? QUIRE_BFP_EXP_MIN : QUIRE_BFP_EXP_MAX)
					    : QUIRE_BFP_EXP_MIN + (int)rng.below(252));
	};
	std::vector<int8_t> in((uint64_t)workers * blocks), acc(blocks), want(blocks);
	for (int8_t &e : in)
		e = random_exp();
	for (int8_t &e : acc)
		e = random_exp();
	quire_reduce_max_exp(workers, blocks, blocks, acc_in ? QUIRE_REDUCE_ACC_IN : 0, in.data(),
			     acc.data(), want.data());

	Vquire_reduce_max_exp m;
	m.acc_in_i = acc_in;
	uint64_t chunks = (blocks + kLanes - 1) / kLanes;
	std::vector<int8_t> got(chunks * kLanes);
	uint64_t results = 0;
	auto offer = [&](uint64_t beat) {
		uint64_t chunk = beat / workers;
		uint32_t worker = (uint32_t)(beat % workers);
		for (unsigned lane = 0; lane < kLanes; lane++) {
			uint64_t b = chunk * kLanes + lane;
			tb::put_bits(m.in_exps_i, lane, 8,
				     b < blocks ? (uint8_t)in[(uint64_t)worker * blocks + b] : 0);
			tb::put_bits(m.in_acc_i, lane, 8, b < blocks ? (uint8_t)acc[b] : 0);
		}
		m.in_first_i = worker == 0;
		m.in_last_i = worker == workers - 1;
	};
	auto take = [&]() {
		for (unsigned lane = 0; lane < kLanes; lane++)
			got[results * kLanes + lane] = (int8_t)tb::get_bits(m.out_exps_o, lane, 8);
		results++;
	};
	auto taken = [&]() { return results; };
	tb::Timing t = tb::run_stream(m, chunks * workers, offer, take, taken, chunks, stalls);

	uint64_t mismatches = 0;
	for (uint32_t b = 0; b < blocks; b++) {
		if (got[b] == want[b])
			continue;
		if (mismatches++ < 5)
			std::printf("  block %u: rtl %d, hls %d\n", b, got[b], want[b]);
	}
	tally.report(name, (uint64_t)workers * blocks, timed ? t.per_cycle(kLanes) : 0, mismatches);
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	tb::Tally tally;
	tb::Rng rng(9);
	tb::Rng stalls(10);
	check(tally, rng, nullptr, "reduce max exp, W=4", 4, 262144, false, true);
	check(tally, rng, &stalls, "reduce max exp, W=3, acc_in, stalls", 3, 16411, true, false);
	check(tally, rng, nullptr, "reduce max exp, W=1, acc_in (a ring step)", 1, 100003, true,
	      true);
	check(tally, rng, &stalls, "reduce max exp, W=64", 64, 1001, false, false);
	return tally.finish("rtl reduce max exp");
}
