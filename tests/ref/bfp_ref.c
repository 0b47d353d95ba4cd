// SPDX-License-Identifier: MIT
/* The reference of tests/ref/bfp_ref.h: the contract's rules (docs/contract-bfp.md), one by one. */
#include "bfp_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ref_block_exponent(const float *v, size_t len)
{
	double m = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isfinite(v[i]))
			return 127;
		if (fabs((double)v[i]) > m)
			m = fabs((double)v[i]);
	}
	if (m == 0)
		return -126;
	int e = ilogb(m) + 1;
	return e < -125 ? -125 : e > 126 ? 126 : e;
}

int32_t ref_quantize(float x, int eg, int mant_bits)
{
	if (eg == 127 || eg == -126)
		return 0;
	double limit = mant_bits == 7 ? 127 : 32767;
	double v = nearbyint(ldexp((double)x, mant_bits - eg)); /* exact product, then RNE */
	return (int32_t)(v > limit ? limit : v < -limit ? -limit : v);
}

float ref_decode(int32_t s, int eg, int mant_bits)
{
	if (eg == 127) {
		float nan;
		uint32_t bits = 0x7fc00000u;
		memcpy(&nan, &bits, 4);
		return nan;
	}
	if (eg == -126)
		return 0.0f;
	return (float)ldexp((double)s, eg - mant_bits); /* exact in double, one rounding to fp32 */
}

void ref_encode(int mant_bits, size_t n, const float *x, float *resid, const int8_t *shared,
		int8_t *exp_out, int32_t *q)
{
	float *v = malloc(n * sizeof(float) + 1);
	for (size_t i = 0; i < n; i++)
		v[i] = resid ? x[i] + resid[i] : x[i];
	for (size_t b = 0; b * 64 < n; b++) {
		size_t len = n - b * 64 < 64 ? n - b * 64 : 64;
		int eg = shared ? shared[b] : ref_block_exponent(v + b * 64, len);
		if (exp_out)
			exp_out[b] = (int8_t)eg;
		for (size_t j = 0; j < len; j++) {
			size_t i = b * 64 + j;
			q[i] = ref_quantize(v[i], eg, mant_bits);
			if (resid && eg != 127)
				resid[i] = v[i] - (float)ldexp(q[i], eg - mant_bits);
		}
	}
	free(v);
}

void ref_allreduce(int mant_bits, int mean, size_t w, size_t n, const float *const *x, float *y)
{
	ref_allreduce_ef(mant_bits, mean, w, n, 0, x, NULL, NULL, y);
}

void ref_allreduce_ef(int mant_bits, int mean, size_t w, size_t n, int requant,
		      const float *const *x, float *const *resid, float *const *owner, float *y)
{
	size_t nb = (n + 63) / 64;
	int8_t *shared = malloc(nb + 1), *e = malloc(nb + 1);
	int32_t *q = malloc(n * sizeof(int32_t) + 1);
	int64_t *s = calloc(n + 1, sizeof(int64_t));
	float *v = malloc(n * sizeof(float) + 1);
	for (size_t b = 0; b < nb; b++)
		shared[b] = -128;
	for (size_t k = 0; k < w; k++) { /* exponents of v = x + r, their max */
		for (size_t i = 0; i < n; i++)
			v[i] = resid ? x[k][i] + resid[k][i] : x[k][i];
		ref_encode(mant_bits, n, v, NULL, NULL, e, q);
		for (size_t b = 0; b < nb; b++)
			shared[b] = e[b] > shared[b] ? e[b] : shared[b];
	}
	for (size_t k = 0; k < w; k++) {
		ref_encode(mant_bits, n, x[k], resid ? resid[k] : NULL, shared, NULL, q);
		for (size_t i = 0; i < n; i++)
			s[i] += q[i];
	}
	for (size_t i = 0; i < n; i++) {
		y[i] = ref_decode((int32_t)s[i], shared[i / 64], mant_bits);
		if (mean)
			y[i] = y[i] / (float)w;
	}
	for (size_t k = 0; requant && k < w; k++) { /* segment k: blocks [first, first + len) */
		size_t per = nb / w, extra = nb % w;
		size_t first = k * per + (k < extra ? k : extra), len = per + (k < extra);
		size_t off = first * 64, end = (first + len) * 64 < n ? (first + len) * 64 : n;
		if (off >= n)
			continue;
		ref_encode(mant_bits, end - off, y + off, owner ? owner[k] : NULL, NULL, e, q);
		for (size_t i = off; i < end; i++)
			y[i] = ref_decode(q[i - off], e[(i - off) / 64], mant_bits);
	}
	free(shared);
	free(e);
	free(q);
	free(s);
	free(v);
}

uint16_t ref_fp16(float x)
{
	/* _Float16 conversion is IEEE binary16 with round to nearest even (GCC, x86-64). */
	_Float16 h = (_Float16)x;
	uint16_t bits;
	memcpy(&bits, &h, 2);
	return bits;
}
