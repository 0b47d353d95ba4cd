// SPDX-License-Identifier: MIT
/*
 * The simulated network's CRC-32 (crc32_fast.h). Every frame is checksummed twice, by the
 * sending port and by the receiving one, so on loopback the CRC was a seventh of the
 * simulated cards' time (zlib's byte-wise tables). Folding: the running remainder is kept as
 * 128 bits; moving it 512 (or 128) bits further into the message is two carry-less products
 * of its halves with x^k mod P for the two distances, xored into the next bytes. What is left
 * after the last whole 16 bytes is 16 bytes whose CRC from a zero state, then the tail, zlib
 * finishes. The constants are those of the reflected IEEE polynomial (Intel's "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ" describes the method).
 */
#include "sim/crc32_fast.h"

#include <stdatomic.h>
#include <string.h>
#include <zlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define FOLD_ATTR __attribute__((target("pclmul,sse4.1")))

/* x^(k) mod P, bit-reflected, for folding 4 x 128 bits and 128 bits ahead. */
#define K_FOLD4_LO 0x154442bd4ull
#define K_FOLD4_HI 0x1c6e41596ull
#define K_FOLD1_LO 0x1751997d0ull
#define K_FOLD1_HI 0x0ccaa009eull

static FOLD_ATTR __m128i fold(__m128i x, __m128i k, __m128i next)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00), hi = _mm_clmulepi64_si128(x, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

static FOLD_ATTR __m128i load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/* zlib's crc32 for len >= 64. */
static FOLD_ATTR uint32_t crc_fold(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k4 = _mm_set_epi64x((long long)K_FOLD4_HI, (long long)K_FOLD4_LO);
	const __m128i k1 = _mm_set_epi64x((long long)K_FOLD1_HI, (long long)K_FOLD1_LO);
	/* zlib's crc is the complement of the remainder; the remainder goes into the first
	 * 32 bits of the message. */
	__m128i x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)~crc)), x1 = load(p + 16),
		x2 = load(p + 32), x3 = load(p + 48);
	p += 64;
	len -= 64;
	for (; len >= 64; p += 64, len -= 64) {
		x0 = fold(x0, k4, load(p));
		x1 = fold(x1, k4, load(p + 16));
		x2 = fold(x2, k4, load(p + 32));
		x3 = fold(x3, k4, load(p + 48));
	}
	x0 = fold(x0, k1, x1);
	x0 = fold(x0, k1, x2);
	x0 = fold(x0, k1, x3);
	for (; len >= 16; p += 16, len -= 16)
		x0 = fold(x0, k1, load(p));
	uint8_t rest[16];
	_mm_storeu_si128((__m128i *)rest, x0);
	/* The message is now these 16 bytes and then the tail, from a zero remainder: zlib
	 * starts from the complement of its argument, so 0xffffffff. */
	uLong c = crc32(0xffffffffu, rest, 16);
	return (uint32_t)crc32(c, p, (uInt)len);
}

static int have_pclmul(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#endif

/* 0: not decided yet, 1: fold, 2: zlib only. */
static atomic_int mode;

static int decide(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (have_pclmul()) {
		/* A pattern over a few lengths and offsets, folded against zlib's answer. */
		uint8_t buf[64 * 5 + 37];
		uint32_t v = 0x9e3779b9u;
		for (size_t i = 0; i < sizeof(buf); i++) {
			v = v * 1664525u + 1013904223u;
			buf[i] = (uint8_t)(v >> 24);
		}
		int same = 1;
		for (size_t len = 64; len <= sizeof(buf) - 3 && same; len += 23)
			for (size_t off = 0; off < 3 && same; off++) {
				uint32_t seed = (uint32_t)(len * 31 + off);
				same = crc_fold(seed, buf + off, len) ==
				       (uint32_t)crc32(seed, buf + off, (uInt)len);
			}
		if (same)
			return 1;
	}
#endif
	return 2;
}

int quire_sim_crc32_folds(void)
{
	int m = atomic_load(&mode);
	if (!m) {
		m = decide();
		atomic_store(&mode, m);
	}
	return m == 1;
}

uint32_t quire_sim_crc32(uint32_t crc, const uint8_t *p, size_t len)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (len >= 64 && quire_sim_crc32_folds())
		return crc_fold(crc, p, len);
#endif
	while (len > 0) { /* zlib takes uInt lengths */
		uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
		crc = (uint32_t)crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
}
