// SPDX-License-Identifier: MIT
/*
 * quire_quant_decode (rtl/engines/) against quire_quant_decode (hls/quant.c,
 * mean_w = 1): bfp8 and bfp16 values as INT8, INT16 and INT32 (single
 * encodings and exact sums) under every block exponent from ZERO to NONFINITE,
 * and every binary16 pattern, bit for bit; and the steady-state rate.
 */
#include "Vquire_quant_decode.h"
#include "tb_common.h"

namespace {

const unsigned kLanes = 16;

void check(tb::Tally &tally, const char *name, uint32_t fmt, uint32_t val_fmt,
	   const std::vector<uint8_t> &vals, uint32_t n, const std::vector<int8_t> &exp,
	   tb::Rng *stalls, bool timed)
{
	unsigned val_bytes = val_fmt == QUIRE_FMT_INT8 ? 1 : val_fmt == QUIRE_FMT_INT32 ? 4 : 2;
	std::vector<float> want(n);
	int status = quire_quant_decode(fmt, val_fmt, n, 1, vals.data(), exp.data(), want.data());
	tally.require(name, status == QUIRE_OK, "the hls decode refused the vector");

	Vquire_quant_decode m;
	m.fmt_i = fmt;
	m.val_fmt_i = val_fmt;
	uint64_t beats = (n + kLanes - 1) / kLanes;
	std::vector<uint32_t> got(beats * kLanes);
	uint64_t results = 0;
	auto offer = [&](uint64_t beat) {
		for (unsigned lane = 0; lane < kLanes; lane++) {
			uint64_t i = beat * kLanes + lane;
			uint32_t v = 0;
			for (unsigned byte = 0; byte < val_bytes && i < n; byte++)
				v |= (uint32_t)vals[i * val_bytes + byte] << 8 * byte;
			tb::put_bits(m.in_vals_i, lane, 8 * val_bytes, v);
		}
		m.in_exp_i = (uint8_t)exp[beat * kLanes / QUIRE_BFP_BLOCK];
	};
	auto take = [&]() {
		for (unsigned lane = 0; lane < kLanes; lane++)
			got[results * kLanes + lane] = tb::get32(m.out_y_o, lane);
		results++;
	};
	auto taken = [&]() { return results; };
	tb::Timing t = tb::run_stream(m, beats, offer, take, taken, beats, stalls);

	uint64_t mismatches = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (got[i] == tb::bits_of(want[i]))
			continue;
		if (mismatches++ < 5)
			std::printf("  element %u: exp %d: rtl %08x, hls %08x\n", i,
				    exp[i / QUIRE_BFP_BLOCK], got[i], tb::bits_of(want[i]));
	}
	tally.report(name, n, timed ? t.per_cycle(kLanes) : 0, mismatches);
}

/* Values of a width: random, the extremes, and sums at the edge of 24 bits. */
std::vector<uint8_t> random_values(tb::Rng &rng, uint32_t n, unsigned bytes)
{
	std::vector<uint8_t> vals(n * bytes);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = rng.next();
		switch (rng.below(8)) {
		case 0:
			v = rng.chance(50) ? 0x80000000u : 0x7fffffffu; /* the extremes */
			break;
		case 1:
			v = (1u << 24) + rng.below(8) - 4; /* ties at 24 significant bits */
			if (rng.chance(50))
				v = (uint64_t)(-(int64_t)v);
			break;
		case 2:
			v &= 0x7; /* small values, and 0 */
			break;
		default:
			v >>= rng.below(32); /* any magnitude */
		}
		if (bytes < 4 && rng.chance(10))
			v = rng.chance(50) ? (1u << (8 * bytes - 1)) : (1u << (8 * bytes - 1)) - 1;
		for (unsigned byte = 0; byte < bytes; byte++)
			vals[i * bytes + byte] = (uint8_t)(v >> 8 * byte);
	}
	return vals;
}

/* Every exponent a block may have, the extremes more often. */
std::vector<int8_t> random_exponents(tb::Rng &rng, uint32_t n)
{
	std::vector<int8_t> exp(QUIRE_BFP_BLOCKS(n));
	const int8_t extremes[] = {QUIRE_BFP_EXP_ZERO, QUIRE_BFP_EXP_MIN, QUIRE_BFP_EXP_MIN + 1,
				   QUIRE_BFP_EXP_MAX - 1, QUIRE_BFP_EXP_MAX,
				   QUIRE_BFP_EXP_NONFINITE};
	for (int8_t &e : exp)
		e = rng.chance(30) ? extremes[rng.below(6)]
				   : (int8_t)(QUIRE_BFP_EXP_ZERO + (int)rng.below(254));
	return exp;
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	tb::Tally tally;
	tb::Rng rng(5);
	tb::Rng stalls(6);
	const uint32_t n = 1u << 20;
	const uint32_t short_n = 100003;

	struct {
		const char *name;
		uint32_t fmt, val_fmt;
		unsigned bytes;
	} cases[] = {
	    {"quant decode bfp8 int8", QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 1},
	    {"quant decode bfp8 int16", QUIRE_FMT_BFP8, QUIRE_FMT_INT16, 2},
	    {"quant decode bfp8 int32", QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 4},
	    {"quant decode bfp16 int16", QUIRE_FMT_BFP16, QUIRE_FMT_INT16, 2},
	    {"quant decode bfp16 int32", QUIRE_FMT_BFP16, QUIRE_FMT_INT32, 4},
	};
	for (const auto &c : cases) {
		check(tally, c.name, c.fmt, c.val_fmt, random_values(rng, n, c.bytes), n,
		      random_exponents(rng, n), nullptr, true);
		std::string stalled = std::string(c.name) + ", short, stalls";
		check(tally, stalled.c_str(), c.fmt, c.val_fmt,
		      random_values(rng, short_n, c.bytes), short_n,
		      random_exponents(rng, short_n), &stalls, false);
	}

	/* Every binary16 pattern, twice over to fill whole beats either way. */
	std::vector<uint8_t> halves(2 * 65536 * 2);
	for (uint32_t i = 0; i < 2 * 65536; i++) {
		halves[2 * i] = (uint8_t)i;
		halves[2 * i + 1] = (uint8_t)(i >> 8);
	}
	check(tally, "quant decode fp16 (every pattern)", QUIRE_FMT_FP16, QUIRE_FMT_FP16, halves,
	      2 * 65536, std::vector<int8_t>(QUIRE_BFP_BLOCKS(2 * 65536u), 0), &stalls, false);
	check(tally, "quant decode fp16", QUIRE_FMT_FP16, QUIRE_FMT_FP16, halves, 2 * 65536,
	      std::vector<int8_t>(QUIRE_BFP_BLOCKS(2 * 65536u), 0), nullptr, true);
	return tally.finish("rtl quant decode");
}
