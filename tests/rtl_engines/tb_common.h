// SPDX-License-Identifier: MIT
/*
 * What every engine testbench shares: the seeded generator, the fp32 vectors
 * that stress the codec (zeros, -0.0, subnormals, NaN/Inf, saturation, exponent
 * extremes, ties), the clock, lane access to Verilator's wide ports, and the
 * result lines that tests/rtl_engines/run.sh counts.
 *
 * An engine is driven as a stream: one beat offered per cycle (in_valid_i),
 * one result taken per cycle (out_ready_i). run_stream() can hold both high
 * (the throughput run) or drop them at random (the handshake run).
 */
#ifndef QUIRE_TB_COMMON_H
#define QUIRE_TB_COMMON_H

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <verilated.h>

extern "C" {
#include "quant.h"
#include "reduce.h"
#include "quire/format.h"
#include "quire/status.h"
}

namespace tb
{

struct Rng {
	uint64_t state;
	explicit Rng(uint64_t seed) : state(seed * 0x9e3779b97f4a7c15ull + 1)
	{
	}
	uint64_t next()
	{
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		return state;
	}
	uint32_t below(uint32_t n)
	{
		return (uint32_t)(next() % n);
	}
	bool chance(uint32_t percent)
	{
		return below(100) < percent;
	}
};

inline float from_bits(uint32_t b)
{
	float f;
	std::memcpy(&f, &b, sizeof f);
	return f;
}

inline uint32_t bits_of(float f)
{
	uint32_t b;
	std::memcpy(&b, &f, sizeof b);
	return b;
}

/* An fp32 pattern of a random kind: every class the codec treats apart. */
inline uint32_t special_bits(Rng &rng)
{
	uint32_t sign = (uint32_t)(rng.next() & 1) << 31;
	uint32_t frac = (uint32_t)rng.next() & 0x7fffffu;
	switch (rng.below(10)) {
	case 0:
		return sign; /* +0.0 or -0.0 */
	case 1:
		return sign | (frac ? frac : 1); /* subnormal */
	case 2:
		return sign | 0x7f800000u; /* Inf */
	case 3:
		return sign | 0x7f800000u | (frac ? frac : 1); /* NaN, any payload */
	case 4:
		return sign | (uint32_t)(253 + rng.below(2)) << 23 |
		       frac; /* 2^126 and up: saturates */
	case 5:
		return sign | 1u << 23 | frac; /* the smallest normals */
	case 6:
		return sign | 0x7f7fffffu; /* FLT_MAX */
	case 7:
		return sign | (uint32_t)(120 + rng.below(20)) << 23 | (frac & 0x7f0000u); /* ties */
	default:
		return sign | (uint32_t)(1 + rng.below(254)) << 23 | frac; /* any normal */
	}
}

/* Gradient-like values: one random binade span per block, some blocks special. */
inline void fill_values(Rng &rng, std::vector<float> &x, uint32_t special_percent)
{
	uint32_t centre = 0, spread = 1;
	for (size_t i = 0; i < x.size(); i++) {
		if (i % QUIRE_BFP_BLOCK == 0) {
			centre = 1 + rng.below(254);
			spread = 1 + rng.below(30);
		}
		if (rng.chance(special_percent)) {
			x[i] = from_bits(special_bits(rng));
			continue;
		}
		int e = (int)centre - (int)rng.below(spread);
		uint32_t biased = e < 0 ? 0 : (uint32_t)e;
		x[i] = from_bits((uint32_t)(rng.next() & 1) << 31 | biased << 23 |
				 ((uint32_t)rng.next() & 0x7fffffu));
	}
}

/* Whole blocks of one edge case each, then a short block of the last kind. */
inline std::vector<float> edge_blocks(Rng &rng)
{
	const float kinds[][4] = {
	    {0.0f, -0.0f, 0.0f, -0.0f},                 /* ZERO */
	    {1e-40f, -1e-45f, 5e-39f, 0.0f},            /* subnormal maximum: clamps to -125 */
	    {1.17549435e-38f, -1e-40f, 0.0f, 2e-38f},   /* the smallest normals: -125 */
	    {8.507059e37f, 1.0f, -3e38f, 1e38f},        /* 2^126 and up: clamp to 126, saturate */
	    {1.0f, 0.0390625f, 0.0546875f, 0.0078125f}, /* ties (docs/contract-bfp.md) */
	    {1.999f, -1.999f, 1.0f, 0.5f},              /* rounds above the limit: saturates */
	    {1.0f, -INFINITY, 2.0f, 0.0f},              /* NONFINITE */
	    {NAN, 1.0f, -2.0f, 3.0f},                   /* NONFINITE */
	    {-0.0f, -1e-45f, -0.0f, -1e-45f},           /* negative subnormals and -0.0 */
	};
	const size_t count = sizeof kinds / sizeof kinds[0];
	std::vector<float> x;
	for (size_t k = 0; k < count; k++)
		for (uint32_t j = 0; j < QUIRE_BFP_BLOCK; j++)
			x.push_back(kinds[k][rng.below(4)]);
	for (uint32_t j = 0; j < 37; j++) /* a short last block */
		x.push_back(kinds[3][j % 4]);
	return x;
}

/* Residuals for error feedback: small against x, sometimes -x (an exact zero),
 * sometimes x itself (a doubling, up to Inf), sometimes subnormal. */
inline std::vector<float> residuals_for(Rng &rng, const std::vector<float> &x)
{
	std::vector<float> r(x.size());
	for (size_t i = 0; i < x.size(); i++) {
		uint32_t xb = bits_of(x[i]);
		uint32_t e = (xb >> 23) & 0xff;
		switch (rng.below(8)) {
		case 0:
			r[i] = -x[i];
			break;
		case 1:
			r[i] = x[i];
			break;
		case 2:
			r[i] = from_bits((uint32_t)(rng.next() & 1) << 31 |
					 ((uint32_t)rng.next() & 0x7fffffu));
			break;
		case 3:
			r[i] = from_bits(special_bits(rng));
			break;
		default: {
			uint32_t drop = rng.below(30);
			uint32_t re = e > drop ? e - drop : 0;
			r[i] = from_bits((uint32_t)(rng.next() & 1) << 31 | re << 23 |
					 ((uint32_t)rng.next() & 0x7fffffu));
		}
		}
	}
	return r;
}

/* Lanes of Verilator's wide ports (arrays of 32-bit words, lane 0 in the low bits). */
template <typename W> void put32(W &port, unsigned lane, uint32_t v)
{
	port[lane] = v;
}
template <typename W> uint32_t get32(const W &port, unsigned lane)
{
	return port[lane];
}
template <typename W> void put64(W &port, unsigned lane, uint64_t v)
{
	port[2 * lane] = (uint32_t)v;
	port[2 * lane + 1] = (uint32_t)(v >> 32);
}
template <typename W> uint64_t get64(const W &port, unsigned lane)
{
	return (uint64_t)port[2 * lane] | (uint64_t)port[2 * lane + 1] << 32;
}
template <typename W> void put_bits(W &port, unsigned lane, unsigned width, uint32_t v)
{
	unsigned bit = lane * width;
	uint32_t mask = width == 32 ? 0xffffffffu : (1u << width) - 1;
	port[bit / 32] = (port[bit / 32] & ~(mask << bit % 32)) | (v & mask) << bit % 32;
}
template <typename W> uint32_t get_bits(const W &port, unsigned lane, unsigned width)
{
	unsigned bit = lane * width;
	uint32_t mask = width == 32 ? 0xffffffffu : (1u << width) - 1;
	return port[bit / 32] >> bit % 32 & mask;
}

/* One case's result line; the run's tally. */
struct Tally {
	unsigned passed = 0, failed = 0;
	void report(const char *name, uint64_t elements, double per_cycle, uint64_t mismatches)
	{
		if (per_cycle > 0)
			std::printf("rtl %s: %" PRIu64 " elements, %.2f elements/cycle, %" PRIu64
				    " mismatches\n",
				    name, elements, per_cycle, mismatches);
		else
			std::printf("rtl %s: %" PRIu64 " elements, %" PRIu64 " mismatches\n", name,
				    elements, mismatches);
		if (mismatches)
			failed++;
		else
			passed++;
	}
	void require(const char *name, bool ok, const char *what)
	{
		if (!ok) {
			std::printf("rtl %s: FAIL %s\n", name, what);
			failed++;
		}
	}
	int finish(const char *engine)
	{
		std::printf("%s: %u passed, %u failed\n", engine, passed, failed);
		return failed ? 1 : 0;
	}
};

/* Stream timing: elements per cycle between the first and the last beat taken. */
struct Timing {
	uint64_t first_in = 0, last_in = 0, beats = 0;
	double per_cycle(unsigned elements_per_beat) const
	{
		return beats ? (double)beats * elements_per_beat / (double)(last_in - first_in + 1)
			     : 0;
	}
};

/*
 * Drives one model: each cycle offer(beat) loads beat `next` into the input
 * ports, take() reads a result; both follow valid/ready. With stalls, a new input
 * beat is offered and the output taken on a random 70% of cycles; a beat offered
 * stays offered until it is taken, as every stream of the card keeps it
 * (rtl/assert/quire_assert_stream.sv checks that).
 */
template <typename Model>
Timing run_stream(Model &m, uint64_t beats, const std::function<void(uint64_t)> &offer,
		  const std::function<void()> &take, const std::function<uint64_t()> &taken,
		  uint64_t results, Rng *stalls)
{
	Timing t;
	uint64_t next = 0, cycle = 0;
	bool waiting = false; /* a beat offered and not yet taken */
	m.in_valid_i = 0;
	m.out_ready_i = 0;
	m.rst_ni = 0;
	m.clk_i = 0;
	m.eval();
	m.rst_ni = 1;
	m.eval();
	while (taken() < results) {
		bool offering = next < beats && (waiting || !stalls || stalls->chance(70));
		if (offering)
			offer(next);
		m.in_valid_i = offering;
		m.out_ready_i = !stalls || stalls->chance(70);
		m.eval();
		if (m.out_valid_o && m.out_ready_i)
			take();
		waiting = offering && !m.in_ready_o;
		if (offering && m.in_ready_o) {
			if (t.beats == 0)
				t.first_in = cycle;
			t.last_in = cycle;
			t.beats++;
			next++;
		}
		m.clk_i = 1;
		m.eval();
		m.clk_i = 0;
		m.eval();
		if (++cycle > 64 * beats + 1000) {
			std::printf("stream stuck after %" PRIu64 " cycles\n", cycle);
			break;
		}
	}
	return t;
}

} // namespace tb

#endif /* QUIRE_TB_COMMON_H */
