// SPDX-License-Identifier: MIT
/*
 * quire_quant_encode (rtl/engines/) against quire_quant_encode (hls/quant.c):
 * bfp8, bfp16 (with and without error feedback) and fp16 values, and the
 * updated residuals, of seeded random and edge-case vectors, bit for bit; and
 * the steady-state rate.
 */
#include "Vquire_quant_encode.h"
#include "tb_common.h"

namespace {

const unsigned kLanes = 16;

/*
 * The exponents an encode is given: the vector's own, or (shared) exponents of
 * a reduction, at least the local ones, up to the extremes -125 and 126; and
 * now and then a finite one over a NONFINITE block (a host's bad exponent: the
 * NaNs and Infs are quantized and error feedback's residuals carry NaN payloads).
 */
std::vector<int8_t> shared_exponents(tb::Rng &rng, const std::vector<float> &x,
				     const std::vector<float> &resid, bool ef, bool raise)
{
	uint32_t n = (uint32_t)x.size();
	std::vector<int8_t> exp(QUIRE_BFP_BLOCKS(n));
	quire_quant_exponents(n, ef ? QUIRE_QUANT_EF : 0, x.data(), resid.data(), exp.data());
	for (int8_t &e : exp) {
		if (!raise || rng.chance(50))
			continue;
		if (e == QUIRE_BFP_EXP_NONFINITE) {
			if (rng.chance(30))
				e = (int8_t)(QUIRE_BFP_EXP_MIN + (int)rng.below(QUIRE_BFP_EXP_MAX -
									 QUIRE_BFP_EXP_MIN + 1));
			continue;
		}
		int higher = e + (int)rng.below(20);
		if (rng.chance(10))
			higher = QUIRE_BFP_EXP_MAX;
		e = (int8_t)(higher > QUIRE_BFP_EXP_MAX ? QUIRE_BFP_EXP_MAX : higher);
	}
	return exp;
}

void check(tb::Tally &tally, const char *name, uint32_t fmt, bool ef, const std::vector<float> &x,
	   const std::vector<float> &resid, const std::vector<int8_t> &exp, tb::Rng *stalls,
	   bool timed)
{
	uint32_t n = (uint32_t)x.size();
	unsigned q_bytes = fmt == QUIRE_FMT_BFP8 ? 1 : 2;
	std::vector<uint8_t> want_q(n * q_bytes);
	std::vector<float> want_resid = resid;
	int status = quire_quant_encode(fmt, n, ef ? QUIRE_QUANT_EF : 0, x.data(),
					want_resid.data(), exp.data(), want_q.data());
	tally.require(name, status == QUIRE_OK, "the hls encode refused the vector");

	Vquire_quant_encode m;
	m.fmt_i = fmt;
	m.ef_i = ef;
	uint64_t beats = (n + kLanes - 1) / kLanes;
	std::vector<uint8_t> got_q(beats * kLanes * q_bytes);
	std::vector<uint32_t> got_resid(beats * kLanes);
	uint64_t results = 0;
	auto offer = [&](uint64_t beat) {
		for (unsigned lane = 0; lane < kLanes; lane++) {
			uint64_t i = beat * kLanes + lane;
			tb::put32(m.in_x_i, lane, i < n ? tb::bits_of(x[i]) : 0);
			tb::put32(m.in_resid_i, lane, i < n ? tb::bits_of(resid[i]) : 0);
		}
		m.in_exp_i = (uint8_t)exp[beat * kLanes / QUIRE_BFP_BLOCK];
	};
	auto take = [&]() {
		for (unsigned lane = 0; lane < kLanes; lane++) {
			uint64_t i = results * kLanes + lane;
			uint32_t q = tb::get_bits(m.out_q_o, lane, 8 * q_bytes);
			for (unsigned byte = 0; byte < q_bytes; byte++)
				got_q[i * q_bytes + byte] = (uint8_t)(q >> 8 * byte);
			got_resid[i] = tb::get32(m.out_resid_o, lane);
		}
		results++;
	};
	auto taken = [&]() { return results; };
	tb::Timing t = tb::run_stream(m, beats, offer, take, taken, beats, stalls);

	uint64_t mismatches = 0;
	for (uint32_t i = 0; i < n; i++) {
		bool q_ok = std::memcmp(&got_q[i * q_bytes], &want_q[i * q_bytes], q_bytes) == 0;
		bool r_ok = got_resid[i] == tb::bits_of(want_resid[i]);
		if (q_ok && r_ok)
			continue;
		if (mismatches++ < 5)
			std::printf("  element %u: x %08x resid %08x exp %d: rtl q %02x%02x r %08x, "
				    "hls q %02x%02x r %08x\n",
				    i, tb::bits_of(x[i]), tb::bits_of(resid[i]),
				    exp[i / QUIRE_BFP_BLOCK], q_bytes > 1 ? got_q[2 * i + 1] : 0,
				    got_q[i * q_bytes], got_resid[i],
				    q_bytes > 1 ? want_q[2 * i + 1] : 0, want_q[i * q_bytes],
				    tb::bits_of(want_resid[i]));
	}
	tally.report(name, n, timed ? t.per_cycle(kLanes) : 0, mismatches);
}

/* fp16 near its limits: 65504, the overflow threshold, its subnormals, NaN payloads. */
std::vector<float> fp16_edges(tb::Rng &rng, size_t count)
{
	std::vector<float> x(count);
	for (float &v : x) {
		uint32_t sign = (uint32_t)(rng.next() & 1) << 31;
		uint32_t frac = (uint32_t)rng.next() & 0x7fffffu;
		if (rng.chance(50))
			v = tb::from_bits(sign | (uint32_t)(101 + rng.below(42)) << 23 | frac);
		else
			v = tb::from_bits(tb::special_bits(rng));
	}
	return x;
}

/*
 * Operand pairs for the fp32 adder: mostly finite, of nearby binades (alignment,
 * cancellation, exact zeros, subnormal sums, overflow to Inf); and about 1 in 25
 * with NaNs of any payload and sign (quiet and signalling) on either side or both,
 * Inf + Inf and Inf - Inf, Inf against a finite value.
 */
void adder_operands(tb::Rng &rng, std::vector<float> &a, std::vector<float> &b)
{
	for (size_t i = 0; i < a.size(); i++) {
		uint32_t ab = (uint32_t)(rng.next() & 1) << 31 | rng.below(255) << 23 |
			      ((uint32_t)rng.next() & 0x7fffffu);
		if (rng.chance(20))
			ab &= 0x807fffffu; /* subnormal */
		int e = (int)(ab >> 23 & 0xff) + (int)rng.below(61) - 30;
		e = e < 0 ? 0 : e > 254 ? 254 : e;
		uint32_t bb = (uint32_t)(rng.next() & 1) << 31 | (uint32_t)e << 23 |
			      ((uint32_t)rng.next() & 0x7fffffu);
		if (rng.chance(20)) /* nearly -a: cancels to a few bits, or to zero */
			bb = (ab ^ 0x80000000u) + rng.below(7) - 3;
		if ((bb & 0x7f800000u) == 0x7f800000u)
			bb &= 0xff7fffffu;
		if (rng.chance(4)) {
			uint32_t sa = (uint32_t)(rng.next() & 1) << 31;
			uint32_t sb = (uint32_t)(rng.next() & 1) << 31;
			uint32_t fa = (uint32_t)rng.next() & 0x7fffffu;
			uint32_t fb = (uint32_t)rng.next() & 0x7fffffu;
			switch (rng.below(5)) {
			case 0: /* a NaN first */
				ab = sa | 0x7f800000u | (fa ? fa : 1);
				break;
			case 1: /* a NaN second */
				bb = sb | 0x7f800000u | (fb ? fb : 1);
				break;
			case 2: /* both NaN */
				ab = sa | 0x7f800000u | (fa ? fa : 1);
				bb = sb | 0x7f800000u | (fb ? fb : 1);
				break;
			case 3: /* Inf + Inf or Inf - Inf */
				ab = sa | 0x7f800000u;
				bb = sb | 0x7f800000u;
				break;
			default: /* Inf and a finite value, either side */
				if (rng.chance(50))
					ab = sa | 0x7f800000u;
				else
					bb = sb | 0x7f800000u;
				break;
			}
		}
		a[i] = tb::from_bits(ab);
		b[i] = tb::from_bits(bb);
	}
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	tb::Tally tally;
	tb::Rng rng(3);
	tb::Rng stalls(4);

	std::vector<float> x(1u << 20);
	tb::fill_values(rng, x, 1);
	std::vector<float> zero(x.size(), 0.0f);
	std::vector<int8_t> own = shared_exponents(rng, x, zero, false, false);
	check(tally, "quant encode bfp8", QUIRE_FMT_BFP8, false, x, zero, own, nullptr, true);
	check(tally, "quant encode bfp16", QUIRE_FMT_BFP16, false, x, zero, own, nullptr, true);
	check(tally, "quant encode fp16", QUIRE_FMT_FP16, false, x, zero, own, nullptr, true);

	/* Error feedback, shared exponents, a short last block, stalls. */
	std::vector<float> y(100003);
	tb::fill_values(rng, y, 5);
	std::vector<float> r = tb::residuals_for(rng, y);
	for (uint32_t fmt : {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16}) {
		bool bfp8 = fmt == QUIRE_FMT_BFP8;
		std::vector<int8_t> shared = shared_exponents(rng, y, r, true, true);
		check(tally, bfp8 ? "quant encode bfp8 ef" : "quant encode bfp16 ef", fmt, true, y,
		      r, shared, nullptr, true);
		check(tally, bfp8 ? "quant encode bfp8 ef, stalls" : "quant encode bfp16 ef, stalls",
		      fmt, true, y, r, shared, &stalls, false);
		std::vector<int8_t> raised = shared_exponents(rng, y, zero, false, true);
		check(tally, bfp8 ? "quant encode bfp8 shared" : "quant encode bfp16 shared", fmt,
		      false, y, std::vector<float>(y.size(), 0.0f), raised, nullptr, false);
	}

	std::vector<float> edges = tb::edge_blocks(rng);
	std::vector<float> edge_resid = tb::residuals_for(rng, edges);
	std::vector<float> edge_zero(edges.size(), 0.0f);
	for (uint32_t fmt : {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16}) {
		bool bfp8 = fmt == QUIRE_FMT_BFP8;
		check(tally, bfp8 ? "quant encode bfp8 edge cases" : "quant encode bfp16 edge cases",
		      fmt, false, edges, edge_zero, shared_exponents(rng, edges, edge_zero, false, true),
		      &stalls, false);
		check(tally,
		      bfp8 ? "quant encode bfp8 edge cases ef" : "quant encode bfp16 edge cases ef",
		      fmt, true, edges, edge_resid,
		      shared_exponents(rng, edges, edge_resid, true, true), nullptr, false);
	}
	std::vector<float> halves = fp16_edges(rng, 200003);
	check(tally, "quant encode fp16 edge cases", QUIRE_FMT_FP16, false, halves,
	      std::vector<float>(halves.size(), 0.0f), std::vector<int8_t>(QUIRE_BFP_BLOCKS(200003u), 0),
	      &stalls, false);

	/* With every exponent ZERO, q = 0 and resid' = fp32(x + resid) - 0: the adder alone. */
	std::vector<float> a(1u << 20), b(1u << 20);
	adder_operands(rng, a, b);
	check(tally, "quant encode ef fp32 add", QUIRE_FMT_BFP8, true, a, b,
	      std::vector<int8_t>(QUIRE_BFP_BLOCKS(1u << 20), QUIRE_BFP_EXP_ZERO), nullptr, false);
	return tally.finish("rtl quant encode");
}
