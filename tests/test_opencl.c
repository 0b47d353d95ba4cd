// SPDX-License-Identifier: MIT
/*
 * The opencl backend against cpu where inputs are bad: the same status and the same bytes
 * in every buffer (quire selftest covers the good inputs). Each case spans several
 * work-items, with the fault in a late slice, so the first-status rule and the exponent
 * pre-check are what is tested. Without an OpenCL platform (asked of the ICD loader, not of
 * the backend: tests/ocl_present.h) it fails, naming the package; it skips itself, saying
 * why, only under `make valgrind` (QUIRE_VALGRIND): PoCL's kernel compiler leaks there
 * (docs/backend-opencl.md), libquire does not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ocl_present.h"
#include "quire.h"

#define N 300000u /* elements: several 64 Ki-element work-items */

struct pair {
	struct quire_ctx *ctx[2]; /* opencl, cpu */
	struct quire_buf *buf[2][4];
};

/* Both backends, each with the same four buffers of `bytes[i]` bytes filled from init[i].
 * main() found a platform apart from the backend: opencl must open, or the test fails. */
static void pair_open(struct pair *p, const size_t bytes[4], const void *const init[4])
{
	memset(p, 0, sizeof(*p));
	assert_int_equal(quire_open("opencl", &p->ctx[0]), QUIRE_OK);
	assert_int_equal(quire_open("cpu", &p->ctx[1]), QUIRE_OK);
	for (int b = 0; b < 2; b++)
		for (int i = 0; i < 4; i++) {
			if (!bytes[i])
				continue;
			assert_int_equal(quire_buf_alloc(p->ctx[b], bytes[i], &p->buf[b][i]),
					 QUIRE_OK);
			if (init[i])
				memcpy(quire_buf_ptr(p->buf[b][i]), init[i], bytes[i]);
			else
				memset(quire_buf_ptr(p->buf[b][i]), 0x5a, bytes[i]);
		}
}

/* Run op (its refs' buffers set per backend) on both; same status, same bytes everywhere. */
static int pair_run(struct pair *p, struct quire_op op, const size_t bytes[4])
{
	int st[2];
	for (int b = 0; b < 2; b++) {
		struct quire_ref *ref[4] = {&op.src, &op.dst, &op.exp, &op.aux};
		for (int i = 0; i < 4; i++)
			*ref[i] = (struct quire_ref){p->buf[b][i], 0};
		st[b] = quire_run(p->ctx[b], &op, NULL);
	}
	assert_int_equal(st[0], st[1]);
	for (int i = 0; i < 4; i++)
		if (bytes[i])
			assert_memory_equal(quire_buf_ptr(p->buf[0][i]),
					    quire_buf_ptr(p->buf[1][i]), bytes[i]);
	return st[0];
}

static void pair_close(struct pair *p)
{
	quire_close(p->ctx[0]);
	quire_close(p->ctx[1]);
}

/* 0: run; 1: skip (said, and counted by tests/run.sh as "skip:"); 2: fail. */
static int skip_reason(void)
{
	char why[256];
	if (getenv("QUIRE_VALGRIND")) {
		printf("skip: opencl: under valgrind PoCL's LLVM leaks (docs/backend-opencl.md)\n");
		return 1;
	}
	if (!ocl_platform_present(why, sizeof(why))) {
		printf("FAIL %s (mk/debian-packages.txt)\n", why);
		return 2;
	}
	return 0;
}

/* int16 + int16 into int16: the last slice overflows, the rest is summed and stored. */
static void test_reduce_overflow(void **state)
{
	(void)state;
	int16_t *in = malloc(4 * N);
	assert_non_null(in);
	for (uint32_t i = 0; i < 2 * N; i++)
		in[i] = (int16_t)(i % 2001) - 1000;
	in[N - 3] = 30000;
	in[2 * N - 3] = 30000; /* vector 1, element N - 3 */
	const size_t bytes[4] = {4 * N, 2 * N, 0, 0};
	const void *const init[4] = {in, NULL, NULL, NULL};
	struct pair p;
	pair_open(&p, bytes, init);
	struct quire_op op = {.opcode = QUIRE_OPC_REDUCE,
			      .format = QUIRE_FMT_INT16,
			      .val_format = QUIRE_FMT_INT16,
			      .count = N,
			      .workers = 2,
			      .stride = 2 * N};
	assert_int_equal(pair_run(&p, op, bytes), QUIRE_ERR_OVERFLOW);
	pair_close(&p);
	free(in);
}

/* Shared exponents with one below ZERO in the last block: RANGE, nothing written. */
static void test_bad_exponent(void **state)
{
	(void)state;
	float *x = malloc(4 * N);
	int8_t *exp = malloc(N / 64 + 1);
	assert_non_null(x);
	assert_non_null(exp);
	for (uint32_t i = 0; i < N; i++)
		x[i] = (float)((int)(i % 977) - 488) / 64.0f;
	memset(exp, 4, N / 64 + 1);
	exp[N / 64] = -128;
	const size_t bytes[4] = {4 * N, N, N / 64 + 1, 0};
	const void *const init[4] = {x, NULL, exp, NULL};
	struct pair p;
	pair_open(&p, bytes, init);
	struct quire_op op = {.opcode = QUIRE_OPC_ENCODE,
			      .flags = QUIRE_CMD_F_SHARED_EXP,
			      .format = QUIRE_FMT_BFP8,
			      .count = N};
	assert_int_equal(pair_run(&p, op, bytes), QUIRE_ERR_RANGE);
	pair_close(&p);
	/* Decode: src the values (any bytes), dst fp32. */
	const size_t dbytes[4] = {N, 4 * N, N / 64 + 1, 0};
	const void *const dinit[4] = {x, NULL, exp, NULL};
	pair_open(&p, dbytes, dinit);
	struct quire_op dop = {.opcode = QUIRE_OPC_DECODE,
			       .format = QUIRE_FMT_BFP8,
			       .val_format = QUIRE_FMT_INT8,
			       .count = N};
	assert_int_equal(pair_run(&p, dop, dbytes), QUIRE_ERR_RANGE);
	exp[N / 64] = 3; /* and with it valid, the same bits */
	memcpy(quire_buf_ptr(p.buf[0][2]), exp, N / 64 + 1);
	memcpy(quire_buf_ptr(p.buf[1][2]), exp, N / 64 + 1);
	assert_int_equal(pair_run(&p, dop, dbytes), QUIRE_OK);
	pair_close(&p);
	free(x);
	free(exp);
}

/* A model image with a bad CRC, then scoring with no model: the kernel's statuses. */
static void test_mlp_errors(void **state)
{
	(void)state;
	uint8_t img[256] = {0};
	const size_t bytes[4] = {sizeof(img), 0, 0, 0};
	const void *const init[4] = {img, NULL, NULL, NULL};
	struct pair p;
	pair_open(&p, bytes, init);
	struct quire_op op = {.opcode = QUIRE_OPC_MLP_LOAD, .count = sizeof(img)};
	int st = pair_run(&p, op, bytes);
	assert_int_not_equal(st, QUIRE_OK);
	pair_close(&p);
}

int main(void)
{
	int skip = skip_reason();
	if (skip)
		return skip == 2;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reduce_overflow),
	    cmocka_unit_test(test_bad_exponent),
	    cmocka_unit_test(test_mlp_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
