/* SPDX-License-Identifier: MIT */
/*
 * Data formats, reduction operations and block floating point constants.
 *
 * Part of the hardware/software contract: firmware, driver, libquire, the card
 * models and the HLS/RTL testbenches all use these numbers. See docs/formats.md
 * and the numeric contract, docs/contract-bfp.md.
 */
#ifndef QUIRE_FORMAT_H
#define QUIRE_FORMAT_H

/* Format ids. 0 is never valid, so a zeroed descriptor field is caught. */
enum quire_format {
	QUIRE_FMT_FP32 = 1,  /* IEEE binary32 */
	QUIRE_FMT_FP16 = 2,  /* IEEE binary16, RNE from fp32, overflow to Inf */
	QUIRE_FMT_BFP8 = 3,  /* int8 values + one int8 exponent per block */
	QUIRE_FMT_BFP16 = 4, /* int16 values + one int8 exponent per block */
	QUIRE_FMT_INT8 = 5,
	QUIRE_FMT_INT16 = 6,
	QUIRE_FMT_INT32 = 7,
	QUIRE_FMT_INT64 = 8, /* partial sums of int32 on the card network */
};
#define QUIRE_FMT_COUNT 9 /* one past the largest id */

/* Reduction operations. */
enum quire_reduce_op {
	QUIRE_OP_SUM = 1,
	QUIRE_OP_MEAN = 2, /* the sum, decoded, then divided by W in fp32 */
	QUIRE_OP_MAX = 3,  /* element-wise max (block exponents) */
};

/* Block floating point: B consecutive elements share one exponent. */
#define QUIRE_BFP_BLOCK         64u
#define QUIRE_BFP_EXP_MIN       (-125) /* smallest exponent of a finite non-zero block */
#define QUIRE_BFP_EXP_MAX       126    /* largest exponent of a finite block */
#define QUIRE_BFP_EXP_ZERO      (-126) /* every element is +-0 */
#define QUIRE_BFP_EXP_NONFINITE 127    /* some element is NaN or +-Inf */
#define QUIRE_BFP8_MANT_BITS    7      /* q = sat(rne(x * 2^(7 - E)), 127) */
#define QUIRE_BFP16_MANT_BITS   15     /* q = sat(rne(x * 2^(15 - E)), 32767) */
#define QUIRE_BFP8_LIMIT        127
#define QUIRE_BFP16_LIMIT       32767
#define QUIRE_NAN_BITS          0x7fc00000u /* what a NONFINITE block decodes to */
/* Largest W whose bfp8 sum fits an int16 partial sum: 258 * 127 = 32766. */
#define QUIRE_BFP8_INT16_MAX_WORKERS 258u

/* Number of blocks of an n-element tensor. */
#define QUIRE_BFP_BLOCKS(n) (((n) + QUIRE_BFP_BLOCK - 1) / QUIRE_BFP_BLOCK)

#endif /* QUIRE_FORMAT_H */
