/* SPDX-License-Identifier: MIT */
/*
 * The golden model of a whole bfp all-reduce over W ranks, exact or with the requantized
 * all-gather (docs/contract-bfp.md): the QUANT and REDUCE kernels' C composed in the
 * contract's order. Not a kernel: the oracle the card, emu, RTL and CPU rings are tested
 * against.
 */
#ifndef QUIRE_HLS_ALLREDUCE_GOLDEN_H
#define QUIRE_HLS_ALLREDUCE_GOLDEN_H

#include <stdint.h>

/* Bytes of scratch quire_golden_allreduce needs for w ranks and n elements. */
uint64_t quire_golden_scratch_bytes(uint32_t w, uint32_t n);

/*
 * y <- the all-reduce of x[0..w-1] (n fp32 each) in fmt (BFP8 or BFP16), the sum or with
 * mean the mean, the same bits every rank gets. resid: NULL, or each rank's worker residual
 * (n fp32, read and updated: error feedback). requant: the requantized all-gather, where
 * owner (NULL, or one pointer per rank) holds rank k's owner residual, quire_comm_chunk's
 * segment k long, read and updated. scratch: quire_golden_scratch_bytes, 8-byte aligned.
 * Returns QUIRE_OK or the first kernel's error.
 */
int quire_golden_allreduce(uint32_t fmt, int mean, uint32_t w, uint32_t n, int requant,
			   const float *const *x, float *const *resid, float *const *owner,
			   float *y, void *scratch);

#endif /* QUIRE_HLS_ALLREDUCE_GOLDEN_H */
