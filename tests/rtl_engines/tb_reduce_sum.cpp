// SPDX-License-Identifier: MIT
/*
 * quire_reduce_sum (rtl/engines/) against quire_reduce_sum (hls/reduce.c):
 * exact sums of W workers' INT8/INT16/INT32/INT64 vectors into INT16/INT32/
 * INT64, with and without an accumulator input, including sums that overflow
 * (saturated and reported) and int64 sums that wrap; bit for bit, the overflow
 * status too; and the steady-state rate (a 512-bit beat a cycle).
 */
#include "Vquire_reduce_sum.h"
#include "tb_common.h"

namespace {

const unsigned kBeatBytes = 64;

int64_t load(const std::vector<uint8_t> &buf, unsigned bytes, uint64_t i)
{
	uint64_t v = 0;
	for (unsigned byte = 0; byte < bytes; byte++)
		v |= (uint64_t)buf[i * bytes + byte] << 8 * byte;
	unsigned shift = 64 - 8 * bytes;
	return (int64_t)(v << shift) >> shift; /* sign-extend */
}

/*
 * Integers of a width: any magnitude that leaves `headroom` bits free, and the
 * extremes, so that sums overflow: both ways, or (all extremes) mostly the largest.
 */
std::vector<uint8_t> random_ints(tb::Rng &rng, uint64_t count, unsigned bytes, uint32_t extreme,
				 unsigned headroom)
{
	std::vector<uint8_t> buf(count * bytes);
	const unsigned bits = 8 * bytes;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v = (uint64_t)((int64_t)rng.next() >>
					(64 - bits + headroom + rng.below(bits - headroom)));
		if (rng.chance(extreme))
			v = rng.chance(extreme == 100 ? 5 : 40) ? UINT64_C(1) << (bits - 1)
					   : (UINT64_C(1) << (bits - 1)) - 1;
		for (unsigned byte = 0; byte < bytes; byte++)
			buf[i * bytes + byte] = (uint8_t)(v >> 8 * byte);
	}
	return buf;
}

struct Case {
	const char *name;
	uint32_t in_fmt, acc_fmt, workers, n;
	bool acc_in;
	uint32_t extreme_percent;
	unsigned headroom; /* bits every value leaves free */
	bool stalls, timed;
};

void check(tb::Tally &tally, tb::Rng &rng, tb::Rng &stall_rng, const Case &c)
{
	unsigned in_bytes = quire_reduce_format_bytes(c.in_fmt);
	unsigned acc_bytes = quire_reduce_format_bytes(c.acc_fmt);
	unsigned lanes = kBeatBytes / in_bytes;
	std::vector<uint8_t> in = random_ints(rng, (uint64_t)c.workers * c.n, in_bytes,
					      c.extreme_percent, c.headroom);
	std::vector<uint8_t> acc = random_ints(rng, c.n, acc_bytes, c.extreme_percent, c.headroom);
	std::vector<uint8_t> want(c.n * acc_bytes);
	int status = quire_reduce_sum(c.in_fmt, c.acc_fmt, c.workers, c.n, c.n,
				      c.acc_in ? QUIRE_REDUCE_ACC_IN : 0, in.data(), acc.data(),
				      want.data());

	Vquire_reduce_sum m;
	m.in_fmt_i = c.in_fmt;
	m.acc_fmt_i = c.acc_fmt;
	m.acc_in_i = c.acc_in;
	uint64_t chunks = (c.n + lanes - 1) / lanes;
	std::vector<int64_t> got(chunks * lanes);
	bool overflow = false;
	uint64_t results = 0;
	auto offer = [&](uint64_t beat) {
		uint64_t chunk = beat / c.workers;
		uint32_t worker = (uint32_t)(beat % c.workers);
		uint64_t keep = 0;
		for (unsigned lane = 0; lane < lanes; lane++) {
			uint64_t i = chunk * lanes + lane;
			bool is_element = i < c.n;
			int64_t v = is_element ? load(in, in_bytes, (uint64_t)worker * c.n + i) : 0;
			if (in_bytes == 8)
				tb::put64(m.in_beat_i, lane, (uint64_t)v);
			else
				tb::put_bits(m.in_beat_i, lane, 8 * in_bytes, (uint32_t)v);
			tb::put64(m.in_acc_i, lane, is_element ? (uint64_t)load(acc, acc_bytes, i) : 0);
			keep |= (uint64_t)is_element << lane;
		}
		m.in_keep_i = keep;
		m.in_first_i = worker == 0;
		m.in_last_i = worker == c.workers - 1;
	};
	auto take = [&]() {
		for (unsigned lane = 0; lane < lanes; lane++)
			got[results * lanes + lane] = (int64_t)tb::get64(m.out_acc_o, lane);
		overflow = overflow || m.out_overflow_o;
		results++;
	};
	auto taken = [&]() { return results; };
	tb::Timing t = tb::run_stream(m, chunks * c.workers, offer, take, taken, chunks,
				      c.stalls ? &stall_rng : nullptr);

	uint64_t mismatches = 0;
	for (uint32_t i = 0; i < c.n; i++) {
		int64_t w = load(want, acc_bytes, i);
		if (got[i] == w)
			continue;
		if (mismatches++ < 5)
			std::printf("  element %u: rtl %" PRId64 ", hls %" PRId64 "\n", i, got[i], w);
	}
	if (overflow != (status == QUIRE_ERR_OVERFLOW)) {
		std::printf("  overflow: rtl %d, hls status %d\n", overflow, status);
		mismatches++;
	}
	std::string name = std::string("reduce ") + c.name +
			   (status == QUIRE_ERR_OVERFLOW ? " (overflow)" : "");
	tally.report(name.c_str(), (uint64_t)c.workers * c.n, c.timed ? t.per_cycle(lanes) : 0,
		     mismatches);
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	tb::Tally tally;
	tb::Rng rng(7);
	tb::Rng stalls(8);
	const Case cases[] = {
	    /* name, in, acc, W, n, acc_in, extremes %, headroom, stalls, timed */
	    {"sum int8 -> int16, W=4", QUIRE_FMT_INT8, QUIRE_FMT_INT16, 4, 262144, false, 0, 0,
	     false, true},
	    {"sum int8 -> int32, W=3, acc_in", QUIRE_FMT_INT8, QUIRE_FMT_INT32, 3, 100003, true, 5,
	     2, true, false},
	    {"sum int8 -> int16, W=300", QUIRE_FMT_INT8, QUIRE_FMT_INT16, 300, 1001, false, 100, 0,
	     false, false},
	    {"sum int8 -> int16, W=258", QUIRE_FMT_INT8, QUIRE_FMT_INT16, 258, 1001, false, 0, 1,
	     false, false},
	    {"sum int8 -> int16, W=1, acc_in (a ring step)", QUIRE_FMT_INT8, QUIRE_FMT_INT16, 1,
	     100003, true, 20, 0, false, true},
	    {"sum int16 -> int32, W=5, acc_in", QUIRE_FMT_INT16, QUIRE_FMT_INT32, 5, 100003, true, 5,
	     0, false, true},
	    {"sum int16 -> int16, W=2, acc_in", QUIRE_FMT_INT16, QUIRE_FMT_INT16, 2, 10007, true, 30,
	     0, true, false},
	    {"sum int32 -> int32, W=3, acc_in", QUIRE_FMT_INT32, QUIRE_FMT_INT32, 3, 100003, true, 10,
	     0, false, true},
	    {"sum int32 -> int32, W=3, acc_in, in range", QUIRE_FMT_INT32, QUIRE_FMT_INT32, 3, 10007,
	     true, 0, 2, true, false},
	    {"sum int32 -> int64, W=8", QUIRE_FMT_INT32, QUIRE_FMT_INT64, 8, 10007, false, 30, 0,
	     true, false},
	    {"sum int64 -> int64, W=4, acc_in", QUIRE_FMT_INT64, QUIRE_FMT_INT64, 4, 100003, true, 40,
	     0, false, true},
	    {"sum int64 -> int32, W=2", QUIRE_FMT_INT64, QUIRE_FMT_INT32, 2, 10007, false, 10, 0, true,
	     false},
	};

	for (const Case &c : cases)
		check(tally, rng, stalls, c);
	return tally.finish("rtl reduce sum");
}
