/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the HLS kernels: fp32 bit views, little-endian lanes of
 * byte-addressed ports, and round-to-nearest-even right shifts.
 *
 * Kernel ports are byte arrays with explicit little-endian lanes, so the
 * C model, the card memory and the wire agree on layout on any host.
 */
#ifndef QUIRE_HLS_UTIL_H
#define QUIRE_HLS_UTIL_H

#include "hls_cl.h" /* <stdint.h>, or its OpenCL C stand-in */

/* Upper bound of every element loop: 2^32 - 1 elements in 64-element blocks. */
#define QUIRE_HLS_MAX_BLOCKS (1u << 26)

static inline uint32_t quire_f32_bits(float f)
{
	union {
		float f;
		uint32_t u;
	} c = {.f = f};
	return c.u;
}

static inline float quire_f32_from_bits(uint32_t u)
{
	union {
		uint32_t u;
		float f;
	} c = {.u = u};
	return c.f;
}

static inline int16_t quire_ld16(QUIRE_GMEM const uint8_t *p, uint32_t i)
{
	return (int16_t)(uint16_t)(p[2 * i] | (uint16_t)p[2 * i + 1] << 8);
}

static inline int32_t quire_ld32(QUIRE_GMEM const uint8_t *p, uint32_t i)
{
	QUIRE_GMEM const uint8_t *b = p + 4 * (uint64_t)i;
	return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			 (uint32_t)b[3] << 24);
}

static inline void quire_st16(QUIRE_GMEM uint8_t *p, uint32_t i, uint16_t v)
{
	p[2 * i] = (uint8_t)v;
	p[2 * i + 1] = (uint8_t)(v >> 8);
}

static inline void quire_st32(QUIRE_GMEM uint8_t *p, uint32_t i, uint32_t v)
{
	QUIRE_GMEM uint8_t *b = p + 4 * (uint64_t)i;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline int64_t quire_ld64(QUIRE_GMEM const uint8_t *p, uint32_t i)
{
	QUIRE_GMEM const uint8_t *b = p + 8 * (uint64_t)i;
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | b[k];
	return (int64_t)v;
}

static inline void quire_st64(QUIRE_GMEM uint8_t *p, uint32_t i, uint64_t v)
{
	QUIRE_GMEM uint8_t *b = p + 8 * (uint64_t)i;
	for (int k = 0; k < 8; k++)
		b[k] = (uint8_t)(v >> (8 * k));
}

/* An integer element of format INT8/INT16/INT32/INT64 at index i, widened. */
static inline int64_t quire_ld_int(QUIRE_GMEM const uint8_t *p, uint32_t fmt_bytes, uint32_t i)
{
	if (fmt_bytes == 1)
		return (int8_t)p[i];
	if (fmt_bytes == 2)
		return quire_ld16(p, i);
	if (fmt_bytes == 4)
		return quire_ld32(p, i);
	return quire_ld64(p, i);
}

/* v >> sh rounded to nearest, ties to even; any sh >= 0. */
static inline uint64_t quire_rne_shift(uint64_t v, uint32_t sh)
{
	if (sh == 0)
		return v;
	if (sh > 64)
		return 0;
	uint64_t q = sh == 64 ? 0 : v >> sh;
	uint64_t rem = sh == 64 ? v : v & ((UINT64_C(1) << sh) - 1);
	uint64_t tie = UINT64_C(1) << (sh - 1); /* not "half": a type in OpenCL C */
	if (rem > tie || (rem == tie && (q & 1)))
		q++;
	return q;
}

/* Index of the most significant set bit of v != 0: a 5-level priority encoder. */
static inline int quire_msb(uint32_t v)
{
	int p = 0;
	if (v >> 16) {
		v >>= 16;
		p += 16;
	}
	if (v >> 8) {
		v >>= 8;
		p += 8;
	}
	if (v >> 4) {
		v >>= 4;
		p += 4;
	}
	if (v >> 2) {
		v >>= 2;
		p += 2;
	}
	return p + (int)(v >> 1);
}

#endif /* QUIRE_HLS_UTIL_H */
