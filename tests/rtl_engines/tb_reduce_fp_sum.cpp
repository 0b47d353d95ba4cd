// SPDX-License-Identifier: MIT
/*
 * quire_reduce_fp_sum (rtl/engines/) against quire_reduce_sum (hls/reduce.c),
 * FP formats: the fixed-order sums of W workers' FP32 or FP16 vectors into FP32
 * or FP16, with and without an accumulator input, on seeded values and on every
 * kind of edge value (zeros of both signs, subnormals, Inf, NaN with payloads,
 * FLT_MAX and sums that overflow to Inf, Inf - Inf); bit for bit; and the
 * steady-state rate (a 512-bit beat a cycle).
 */
#include "Vquire_reduce_fp_sum.h"
#include "tb_common.h"

namespace
{

const unsigned kBeatBytes = 64;

uint32_t load(const std::vector<uint8_t> &buf, unsigned bytes, uint64_t i)
{
	uint32_t v = 0;
	for (unsigned byte = 0; byte < bytes; byte++)
		v |= (uint32_t)buf[i * bytes + byte] << 8 * byte;
	return v;
}

/* An fp16 pattern of a random kind, as special_bits for fp32. */
uint16_t special_half(tb::Rng &rng)
{
	uint16_t sign = (uint16_t)((rng.next() & 1) << 15), frac = (uint16_t)(rng.next() & 0x3ff);
	switch (rng.below(7)) {
	case 0:
		return sign; /* zeros */
	case 1:
		return (uint16_t)(sign | (frac ? frac : 1)); /* subnormal */
	case 2:
		return (uint16_t)(sign | 0x7c00); /* Inf */
	case 3:
		return (uint16_t)(sign | 0x7c00 | (frac ? frac : 1)); /* NaN, any payload */
	case 4:
		return (uint16_t)(sign | 0x7bff); /* the largest half */
	default:
		return (uint16_t)(sign | (1 + rng.below(30)) << 10 | frac); /* any normal */
	}
}

/* Values of a format: ordinary ones of a few binades (sums that round), `special`
 * percent of edge values. */
std::vector<uint8_t> random_fp(tb::Rng &rng, uint64_t count, unsigned bytes, uint32_t special)
{
	std::vector<uint8_t> buf(count * bytes);
	for (uint64_t i = 0; i < count; i++) {
		uint32_t v;
		if (bytes == 4)
			v = rng.chance(special) ? tb::special_bits(rng)
						: (uint32_t)(rng.next() & 1) << 31 |
						      (uint32_t)(120 + rng.below(16)) << 23 |
						      ((uint32_t)rng.next() & 0x7fffffu);
		else
			v = rng.chance(special) ? special_half(rng)
						: (uint32_t)(rng.next() & 1) << 15 |
						      (uint32_t)(10 + rng.below(8)) << 10 |
						      ((uint32_t)rng.next() & 0x3ffu);
		for (unsigned byte = 0; byte < bytes; byte++)
			buf[i * bytes + byte] = (uint8_t)(v >> 8 * byte);
	}
	return buf;
}

struct Case {
	const char *name;
	uint32_t in_fmt, acc_fmt, workers, n;
	bool acc_in;
	uint32_t special_percent;
	bool stalls, timed;
};

void check(tb::Tally &tally, tb::Rng &rng, tb::Rng &stall_rng, const Case &c)
{
	unsigned in_bytes = quire_reduce_format_bytes(c.in_fmt);
	unsigned acc_bytes = quire_reduce_format_bytes(c.acc_fmt);
	unsigned lanes = kBeatBytes / in_bytes;
	std::vector<uint8_t> in =
	    random_fp(rng, (uint64_t)c.workers * c.n, in_bytes, c.special_percent);
	std::vector<uint8_t> acc = random_fp(rng, c.n, acc_bytes, c.special_percent);
	std::vector<uint8_t> want(c.n * acc_bytes);
	int status = quire_reduce_sum(c.in_fmt, c.acc_fmt, c.workers, c.n, c.n,
				      c.acc_in ? QUIRE_REDUCE_ACC_IN : 0, in.data(), acc.data(),
				      want.data());

	Vquire_reduce_fp_sum m;
	m.in_fmt_i = c.in_fmt;
	m.acc_fmt_i = c.acc_fmt;
	m.acc_in_i = c.acc_in;
	uint64_t chunks = (c.n + lanes - 1) / lanes;
	std::vector<uint32_t> got(chunks * lanes);
	uint64_t results = 0;
	auto offer = [&](uint64_t beat) {
		uint64_t chunk = beat / c.workers;
		uint32_t worker = (uint32_t)(beat % c.workers);
		for (unsigned lane = 0; lane < lanes; lane++) {
			uint64_t i = chunk * lanes + lane;
			bool is_element = i < c.n;
			tb::put_bits(m.in_beat_i, lane, 8 * in_bytes,
				     is_element ? load(in, in_bytes, (uint64_t)worker * c.n + i)
						: 0);
			tb::put_bits(m.in_acc_i, lane, 8 * acc_bytes,
				     is_element ? load(acc, acc_bytes, i) : 0);
		}
		m.in_first_i = worker == 0;
		m.in_last_i = worker == c.workers - 1;
	};
	auto take = [&]() {
		for (unsigned lane = 0; lane < lanes; lane++)
			got[results * lanes + lane] =
			    tb::get_bits(m.out_acc_o, lane, 8 * acc_bytes);
		results++;
	};
	auto taken = [&]() { return results; };
	tb::Timing t = tb::run_stream(m, chunks * c.workers, offer, take, taken, chunks,
				      c.stalls ? &stall_rng : nullptr);

	uint64_t mismatches = status != QUIRE_OK;
	for (uint32_t i = 0; i < c.n; i++) {
		uint32_t w = load(want, acc_bytes, i);
		if (got[i] == w)
			continue;
		if (mismatches++ < 5)
			std::printf("  element %u: rtl 0x%08x, hls 0x%08x\n", i, got[i], w);
	}
	std::string name = std::string("reduce ") + c.name;
	tally.report(name.c_str(), (uint64_t)c.workers * c.n, c.timed ? t.per_cycle(lanes) : 0,
		     mismatches);
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	tb::Tally tally;
	tb::Rng rng(11);
	tb::Rng stalls(12);
	const uint32_t F32 = QUIRE_FMT_FP32, F16 = QUIRE_FMT_FP16;
	const Case cases[] = {
	    /* name, in, acc, W, n, acc_in, specials %, stalls, timed */
	    {"sum fp32 -> fp32, W=4", F32, F32, 4, 65536, false, 0, false, true},
	    {"sum fp32 -> fp32, W=1, acc_in (a ring step)", F32, F32, 1, 100003, true, 0, false,
	     true},
	    {"sum fp32 -> fp32, W=8, edge values", F32, F32, 8, 10007, false, 30, true, false},
	    {"sum fp32 -> fp32, W=3, acc_in, edge values", F32, F32, 3, 10007, true, 60, true,
	     false},
	    {"sum fp32 -> fp16, W=5, acc_in", F32, F16, 5, 10007, true, 10, true, false},
	    {"sum fp16 -> fp32, W=4", F16, F32, 4, 65536, false, 0, false, true},
	    {"sum fp16 -> fp32, W=2, acc_in, edge values", F16, F32, 2, 10007, true, 40, true,
	     false},
	    {"sum fp16 -> fp16, W=7, acc_in, edge values", F16, F16, 7, 10007, true, 30, true,
	     false},
	    {"sum fp16 -> fp16, W=1", F16, F16, 1, 1001, false, 50, false, false},
	};

	for (const Case &c : cases)
		check(tally, rng, stalls, c);
	return tally.finish("rtl reduce fp sum");
}
