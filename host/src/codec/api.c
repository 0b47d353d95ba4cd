// SPDX-License-Identifier: MIT
/*
 * libquire's public codec functions (quire_codec_* in quire.h): each hands its call to the
 * CPU codec of codec/, which makes every argument check and holds every routine, so that
 * libquire and the emu's engines run the same code.
 */
#include "quire.h"
#include "codec/codec.h"

_Static_assert(QUIRE_CODEC_AUTO == (int)QUIRE_CPU_CODEC_AUTO &&
		   QUIRE_CODEC_SCALAR == (int)QUIRE_CPU_CODEC_SCALAR &&
		   QUIRE_CODEC_AVX2 == (int)QUIRE_CPU_CODEC_AVX2 &&
		   QUIRE_CODEC_AVX512 == (int)QUIRE_CPU_CODEC_AVX512,
	       "quire.h's enum quire_codec_impl numbers the implementations as codec/codec.h");
_Static_assert(QUIRE_MAX_WORKERS == QUIRE_CMD_MAX_WORKERS,
	       "a codec sum takes as many workers as a card's reduction");

int quire_codec_use(enum quire_codec_impl impl)
{
	return quire_cpu_codec_use((enum quire_cpu_codec_impl)impl);
}

const char *quire_codec_impl_name(void)
{
	return quire_cpu_codec_impl_name();
}

int quire_codec_impl_parse(const char *name)
{
	return quire_cpu_codec_impl_parse(name);
}

int quire_codec_exponents(enum quire_format fmt, size_t n, const float *x, const float *resid,
			  int8_t *exp)
{
	return quire_cpu_codec_exponents(fmt, n, x, resid, exp);
}

int quire_codec_encode(enum quire_format fmt, size_t n, const float *x, float *resid,
		       const int8_t *shared_exp, int8_t *exp_out, void *q)
{
	return quire_cpu_codec_encode(fmt, n, x, resid, shared_exp, exp_out, q);
}

int quire_codec_decode(enum quire_format fmt, enum quire_format val_fmt, size_t n, const void *vals,
		       const int8_t *exp, uint32_t mean_w, float *y)
{
	return quire_cpu_codec_decode(fmt, val_fmt, n, vals, exp, mean_w, y);
}

int quire_codec_sum(enum quire_format in_fmt, enum quire_format acc_fmt, uint32_t w, size_t n,
		    const void *const *in, const void *acc_in, void *acc_out)
{
	return quire_cpu_codec_sum(in_fmt, acc_fmt, w, n, in, acc_in, acc_out);
}

int quire_codec_max_exponents(uint32_t w, size_t blocks, const int8_t *const *in, int8_t *out)
{
	return quire_cpu_codec_max_exponents(w, blocks, in, out);
}
