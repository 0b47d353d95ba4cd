// SPDX-License-Identifier: MIT
/*
 * The simulated card's fast engines (sim/emu/engines.c: libquire's CPU codec)
 * against its golden ones (the hls/ C): one workload runs through both on two
 * copies of the same card memory, and after every call the statuses and every
 * byte of the two memories must be equal. Encode and decode of every format,
 * error feedback, shared exponents, exponents out of range, the mean; every
 * reduction format pair with and without an accumulator in (saturation
 * included), the exponent max, and bad arguments. And the simulated network's
 * folding CRC-32 against zlib's, every length to past a full frame.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>
#include <cmocka.h>

#include "test_util.h"
#include "hls/quant.h"
#include "hls/reduce.h"
#include "quire/status.h"
#include "quire/card.h"
#include "quire/format.h"
#include "sim/crc32_fast.h"
#include "sim/emu/engines.h"

enum {
	NMAX = 4113, /* 64 whole blocks and a tail */
	WMAX = 5,
	BLOCKS = NMAX / 64 + 1,
	OFF_X = 0,
	OFF_RESID = OFF_X + 4 * NMAX,
	OFF_EXP = OFF_RESID + 4 * NMAX,
	OFF_Q = (OFF_EXP + BLOCKS + 63) / 64 * 64,
	OFF_Y = OFF_Q + 4 * NMAX,
	OFF_IN = OFF_Y + 4 * NMAX,
	OFF_ACC_IN = OFF_IN + 8 * (NMAX + 2) * WMAX,
	OFF_OUT = OFF_ACC_IN + 8 * NMAX,
	MEM = OFF_OUT + 8 * NMAX,
};

/* Two card memories: [0] for the golden engines, [1] for the fast ones. */
struct rig {
	uint8_t *m[2];
	struct rng r;
	unsigned calls;
};

static void *at(struct rig *g, int k, size_t off)
{
	return g->m[k] + off;
}

/* The same random bytes into both memories. */
static void fill_bytes(struct rig *g, size_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		g->m[0][off + i] = (uint8_t)rng_next(&g->r);
	memcpy(g->m[1] + off, g->m[0] + off, len);
}

static void fill_gradients(struct rig *g, size_t off, size_t n, int nonfinite)
{
	fill_edge_gradients(&g->r, at(g, 0, off), n, nonfinite);
	memcpy(g->m[1] + off, g->m[0] + off, 4 * n);
}

static void same_memory(struct rig *g)
{
	assert_memory_equal(g->m[0], g->m[1], MEM);
	g->calls++;
}

static int quant(struct rig *g, uint32_t op, uint32_t fmt, uint32_t vf, uint32_t flags, uint32_t n,
		 uint32_t mean_w)
{
	int st[2];
	for (int k = 0; k < 2; k++)
		st[k] = quire_emu_quant(k == 0, op, fmt, vf, flags, n, mean_w, at(g, k, OFF_X),
					at(g, k, OFF_RESID), at(g, k, OFF_EXP), at(g, k, OFF_Q),
					at(g, k, OFF_Y));
	assert_int_equal(st[0], st[1]);
	same_memory(g);
	return st[0];
}

static int reduce(struct rig *g, uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t w,
		  uint32_t n, uint32_t stride, uint32_t flags)
{
	int st[2];
	for (int k = 0; k < 2; k++)
		st[k] = quire_emu_reduce(k == 0, op, in_fmt, acc_fmt, w, n, stride, flags,
					 at(g, k, OFF_IN), at(g, k, OFF_ACC_IN), at(g, k, OFF_OUT));
	assert_int_equal(st[0], st[1]);
	same_memory(g);
	return st[0];
}

static struct rig *rig_new(uint64_t seed)
{
	struct rig *g = calloc(1, sizeof(*g));
	assert_non_null(g);
	for (int k = 0; k < 2; k++) {
		g->m[k] = calloc(1, MEM);
		assert_non_null(g->m[k]);
	}
	g->r.s = seed;
	return g;
}

static void rig_free(struct rig *g)
{
	free(g->m[0]);
	free(g->m[1]);
	free(g);
}

static const uint32_t sizes[] = {0, 1, 63, 64, 65, 1000, NMAX};

static void test_engine_switch_reads(void **state)
{
	(void)state;
	/* tests/run.sh leaves QUIRE_EMU_ENGINES unset or valid */
	assert_true(quire_emu_engines_golden() >= 0);
}

static void test_bfp_encode_decode(void **state)
{
	(void)state;
	struct rig *g = rig_new(12);
	static const uint32_t fmts[] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16};
	static const uint32_t vals[] = {QUIRE_FMT_INT8, QUIRE_FMT_INT16, QUIRE_FMT_INT32};
	static const uint32_t means[] = {0, 1, 3, 4};
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		uint32_t n = sizes[si];
		for (int nonfinite = 0; nonfinite < 2; nonfinite++)
			for (size_t fi = 0; fi < 2; fi++)
				for (uint32_t ef = 0; ef <= QUIRE_QUANT_F_EF;
				     ef += QUIRE_QUANT_F_EF) {
					uint32_t fmt = fmts[fi];
					fill_gradients(g, OFF_X, n, nonfinite);
					fill_gradients(g, OFF_RESID, n, 0);
					fill_bytes(g, OFF_Q, 4 * NMAX);
					/* local exponents, then an encode with them */
					assert_int_equal(
					    quant(g, QUIRE_QUANT_OP_EXPONENTS, fmt, 0, ef, n, 0),
					    QUIRE_OK);
					assert_int_equal(
					    quant(g, QUIRE_QUANT_OP_ENCODE, fmt, 0, ef, n, 0),
					    QUIRE_OK);
					/* shared exponents: as a max over workers, up to 2 above */
					int8_t *e0 = at(g, 0, OFF_EXP);
					for (uint32_t b = 0; b < QUIRE_BFP_BLOCKS(n); b++) {
						int v = e0[b] + (int)rng_below(&g->r, 3);
						e0[b] = (int8_t)(v > 127 ? 127 : v);
					}
					memcpy(at(g, 1, OFF_EXP), e0, BLOCKS);
					assert_int_equal(
					    quant(g, QUIRE_QUANT_OP_ENCODE, fmt, 0, ef, n, 0),
					    QUIRE_OK);
					for (size_t vi = 0; vi < 3; vi++)
						for (size_t mi = 0; mi < 4; mi++) {
							/* an int32 value is any exact sum */
							if (vals[vi] == QUIRE_FMT_INT32)
								fill_bytes(g, OFF_Q, 4 * NMAX);
							assert_int_equal(
							    quant(g, QUIRE_QUANT_OP_DECODE, fmt,
								  vals[vi], 0, n, means[mi]),
							    QUIRE_OK);
						}
					if (n) { /* below QUIRE_BFP_EXP_ZERO: nothing written */
						e0[(n - 1) / 64] = INT8_MIN;
						memcpy(at(g, 1, OFF_EXP), e0, BLOCKS);
						assert_int_equal(quant(g, QUIRE_QUANT_OP_ENCODE,
								       fmt, 0, ef, n, 0),
								 QUIRE_ERR_RANGE);
						assert_int_equal(quant(g, QUIRE_QUANT_OP_DECODE,
								       fmt, QUIRE_FMT_INT16, 0, n,
								       0),
								 QUIRE_ERR_RANGE);
					}
				}
	}
	rig_free(g);
}

static void test_fp_encode_decode(void **state)
{
	(void)state;
	struct rig *g = rig_new(13);
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		uint32_t n = sizes[si];
		for (int nonfinite = 0; nonfinite < 2; nonfinite++) {
			fill_gradients(g, OFF_X, n, nonfinite);
			/* the fp16 encoder ignores error feedback, on both paths */
			for (uint32_t ef = 0; ef <= QUIRE_QUANT_F_EF; ef += QUIRE_QUANT_F_EF)
				assert_int_equal(
				    quant(g, QUIRE_QUANT_OP_ENCODE, QUIRE_FMT_FP16, 0, ef, n, 0),
				    QUIRE_OK);
			for (uint32_t mean = 0; mean < 5; mean += 2)
				assert_int_equal(quant(g, QUIRE_QUANT_OP_DECODE, QUIRE_FMT_FP16,
						       QUIRE_FMT_FP16, 0, n, mean),
						 QUIRE_OK);
			/* fp32 (the mean of an fp32 sum): the golden kernel on both paths */
			fill_gradients(g, OFF_Q, n, nonfinite);
			assert_int_equal(quant(g, QUIRE_QUANT_OP_DECODE, QUIRE_FMT_FP32,
					       QUIRE_FMT_FP32, 0, n, 3),
					 QUIRE_OK);
		}
	}
	/* every fp16 bit pattern, signalling NaNs with payloads included, sum and mean */
	for (int k = 0; k < 2; k++)
		for (uint32_t i = 0; i < 65536; i++)
			((uint16_t *)at(g, k, OFF_IN))[i] = (uint16_t)i;
	for (uint32_t i = 0; i < 65536; i += NMAX)
		for (uint32_t mean = 0; mean < 5; mean++) {
			uint32_t n = 65536 - i < NMAX ? 65536 - i : NMAX;
			for (int k = 0; k < 2; k++)
				memcpy(at(g, k, OFF_Q), (uint16_t *)at(g, k, OFF_IN) + i, 2 * n);
			assert_int_equal(quant(g, QUIRE_QUANT_OP_DECODE, QUIRE_FMT_FP16,
					       QUIRE_FMT_FP16, 0, n, mean),
					 QUIRE_OK);
		}
	/* bad arguments give the kernel's own statuses */
	assert_int_equal(quant(g, QUIRE_QUANT_OP_DECODE, QUIRE_FMT_FP16, QUIRE_FMT_INT8, 0, 64, 0),
			 QUIRE_ERR_FORMAT);
	assert_int_equal(quant(g, QUIRE_QUANT_OP_ENCODE, QUIRE_FMT_INT8, 0, 0, 64, 0),
			 QUIRE_ERR_FORMAT);
	assert_int_equal(quant(g, 9, QUIRE_FMT_BFP8, 0, 0, 64, 0), QUIRE_ERR_OPCODE);
	rig_free(g);
}

static void test_reductions(void **state)
{
	(void)state;
	struct rig *g = rig_new(14);
	static const uint32_t ins[] = {QUIRE_FMT_INT8, QUIRE_FMT_INT16, QUIRE_FMT_INT32,
				       QUIRE_FMT_FP16, QUIRE_FMT_FP32,  QUIRE_FMT_BFP8};
	static const uint32_t accs[] = {QUIRE_FMT_INT16, QUIRE_FMT_INT32, QUIRE_FMT_INT64,
					QUIRE_FMT_FP16,  QUIRE_FMT_FP32,  QUIRE_FMT_INT8};
	static const uint32_t ws[] = {1, 2, 4, WMAX};
	static const uint32_t ns[] = {0, 1, 65, 1000, NMAX};
	int saturated = 0;
	for (size_t ii = 0; ii < 6; ii++)
		for (size_t ai = 0; ai < 6; ai++)
			for (size_t wi = 0; wi < 4; wi++)
				for (size_t ni = 0; ni < 5; ni++)
					for (uint32_t fl = 0; fl <= QUIRE_REDUCE_ACC_IN;
					     fl += QUIRE_REDUCE_ACC_IN) {
						uint32_t n = ns[ni], w = ws[wi];
						uint32_t stride = n + rng_below(&g->r, 3);
						/* random bytes: int sums at the limits saturate */
						fill_bytes(g, OFF_IN, 8 * (size_t)stride * w);
						fill_bytes(g, OFF_ACC_IN, 8 * NMAX);
						saturated |= reduce(g, QUIRE_REDUCE_OP_SUM, ins[ii],
								    accs[ai], w, n, stride,
								    fl) == QUIRE_ERR_OVERFLOW;
					}
	assert_true(saturated);
	/* every worker at the int16 top: a saturated int16 sum */
	for (int k = 0; k < 2; k++)
		for (uint32_t i = 0; i < 4 * 128; i++)
			((int16_t *)at(g, k, OFF_IN))[i] = INT16_MAX;
	assert_int_equal(
	    reduce(g, QUIRE_REDUCE_OP_SUM, QUIRE_FMT_INT16, QUIRE_FMT_INT16, 4, 128, 128, 0),
	    QUIRE_ERR_OVERFLOW);
	assert_int_equal(
	    reduce(g, QUIRE_REDUCE_OP_SUM, QUIRE_FMT_INT16, QUIRE_FMT_INT32, 4, 128, 128, 0),
	    QUIRE_OK);
	/* inputs that overlap (stride < n) are refused by both */
	assert_int_equal(
	    reduce(g, QUIRE_REDUCE_OP_SUM, QUIRE_FMT_INT8, QUIRE_FMT_INT32, 2, 128, 64, 0),
	    QUIRE_ERR_SIZE);
	for (uint32_t w = 1; w <= WMAX; w += 2)
		for (uint32_t fl = 0; fl <= QUIRE_REDUCE_ACC_IN; fl += QUIRE_REDUCE_ACC_IN) {
			fill_bytes(g, OFF_IN, (size_t)w * BLOCKS);
			fill_bytes(g, OFF_ACC_IN, BLOCKS);
			assert_int_equal(
			    reduce(g, QUIRE_REDUCE_OP_MAX_EXP, 0, 0, w, BLOCKS, BLOCKS, fl),
			    QUIRE_OK);
		}
	assert_int_equal(reduce(g, 7, QUIRE_FMT_INT8, QUIRE_FMT_INT32, 1, 64, 64, 0),
			 QUIRE_ERR_OPCODE);
	rig_free(g);
}

/*
 * The fp32 and fp16 rings' steps as the firmware runs them: a partial sum that came in plus
 * this card's part, the accumulator in place (acc_in is the output), and the narrow first
 * step (two contributions side by side), on gradient data with NaNs, Infs, subnormals and
 * ties, golden against fast on two card memories.
 */
static void test_ring_fp_sums(void **state)
{
	(void)state;
	struct rig *g = rig_new(21);
	static const uint32_t fmts[] = {QUIRE_FMT_FP32, QUIRE_FMT_FP16};
	for (size_t fi = 0; fi < 2; fi++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			uint32_t f = fmts[fi], n = sizes[si];
			fill_gradients(g, OFF_IN, 2 * (size_t)n, 1);
			fill_gradients(g, OFF_OUT, n, 1);
			if (f == QUIRE_FMT_FP16) /* fp16 halves of the same gradients */
				for (int k = 0; k < 2; k++)
					assert_int_equal(quire_emu_quant(1, QUIRE_QUANT_OP_ENCODE,
									 QUIRE_FMT_FP16, 0, 0,
									 2 * n, 0, at(g, k, OFF_IN),
									 NULL, NULL,
									 at(g, k, OFF_IN), NULL),
							 QUIRE_OK);
			int st[2];
			for (int k = 0; k < 2; k++) /* in place: acc_in is acc_out */
				st[k] = quire_emu_reduce(k == 0, QUIRE_REDUCE_OP_SUM, f, f, 1, n, 0,
							 QUIRE_REDUCE_ACC_IN, at(g, k, OFF_IN),
							 at(g, k, OFF_OUT), at(g, k, OFF_OUT));
			assert_int_equal(st[0], st[1]);
			same_memory(g);
			assert_int_equal(reduce(g, QUIRE_REDUCE_OP_SUM, f, f, 2, n, n, 0),
					 QUIRE_OK);
		}
	rig_free(g);
}

static void test_frame_crc(void **state)
{
	(void)state;
	/* Where the CPU can fold, the fast CRC must (its self-check against zlib passed). */
#if defined(__x86_64__)
	__builtin_cpu_init();
	assert_int_equal(quire_sim_crc32_folds(),
			 __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"));
#endif
	enum { MAX = 65536 + 32 + 80 };
	uint8_t *buf = malloc(MAX);
	assert_non_null(buf);
	struct rng r = {.s = 99};
	for (size_t i = 0; i < MAX; i++)
		buf[i] = (uint8_t)rng_next(&r);
	for (size_t len = 0; len < 300; len++) /* every short length, every alignment */
		for (size_t off = 0; off < 16; off++) {
			uint32_t seed = (uint32_t)rng_next(&r);
			assert_int_equal(quire_sim_crc32(seed, buf + off, len),
					 (uint32_t)crc32(seed, buf + off, (uInt)len));
		}
	for (int t = 0; t < 200; t++) { /* frames: any length up to a full one */
		size_t off = rng_below(&r, 64), len = rng_below(&r, MAX - 64);
		if (t == 0)
			len = MAX - 64;
		uint32_t seed = t & 1 ? 0 : (uint32_t)rng_next(&r);
		assert_int_equal(quire_sim_crc32(seed, buf + off, len),
				 (uint32_t)crc32(seed, buf + off, (uInt)len));
	}
	/* all zeros and all ones, where a wrong constant shows as a wrong fold */
	memset(buf, 0, MAX);
	assert_int_equal(quire_sim_crc32(0, buf, 4096), (uint32_t)crc32(0, buf, 4096));
	memset(buf, 0xff, MAX);
	assert_int_equal(quire_sim_crc32(0, buf, 4096 + 17), (uint32_t)crc32(0, buf, 4096 + 17));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_engine_switch_reads), cmocka_unit_test(test_bfp_encode_decode),
	    cmocka_unit_test(test_fp_encode_decode),    cmocka_unit_test(test_reductions),
	    cmocka_unit_test(test_ring_fp_sums),        cmocka_unit_test(test_frame_crc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
