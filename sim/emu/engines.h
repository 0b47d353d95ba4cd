/* SPDX-License-Identifier: MIT */
/*
 * The emu's QUANT and REDUCE engines: the golden model (the hls/ C, as the card's
 * kernels are written) or the fast one (libquire's CPU codec, whose SIMD paths
 * tests/test_codec.c proves bit-identical to hls/). Same arguments, same
 * statuses, same bytes; only the speed differs. QUIRE_EMU_ENGINES=golden in the
 * environment of a card process (or of a program using sim:inproc) picks the
 * golden engines; unset or "fast", the fast ones. docs/card.md.
 */
#ifndef QUIRE_SIM_EMU_ENGINES_H
#define QUIRE_SIM_EMU_ENGINES_H

#include <stdint.h>

/* 1: golden engines, 0: fast, -1: QUIRE_EMU_ENGINES names neither (said on stderr). */
int quire_emu_engines_golden(void);

/* quire_quant_top's arguments and result; golden != 0 runs quire_quant_top itself. */
int quire_emu_quant(int golden, uint32_t op, uint32_t fmt, uint32_t val_fmt, uint32_t flags,
		    uint32_t n, uint32_t mean_w, const float *x, float *resid, int8_t *exp,
		    uint8_t *q, float *y);

/* quire_reduce_top's arguments and result; golden != 0 runs quire_reduce_top itself. */
int quire_emu_reduce(int golden, uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t w,
		     uint32_t n, uint32_t stride, uint32_t flags, const uint8_t *in,
		     const uint8_t *acc_in, uint8_t *acc_out);

#endif
