// SPDX-License-Identifier: MIT
/* Vitis HLS testbench of the REDUCE kernel, through quire_reduce_top. main returns 0 on pass. */
#include <stdio.h>

#include "hls/reduce.h"
#include "quire/format.h"
#include "quire/status.h"

#define W 4
#define N 300

int main(void)
{
	static int8_t in[W][N];
	static int32_t out[N];
	static int16_t out16[N];
	static int8_t exps[W][8], emax[8];
	int passed = 0, failed = 0;
	for (int k = 0; k < W; k++)
		for (int i = 0; i < N; i++)
			in[k][i] = (int8_t)((i * 37 + k * 101) % 255 - 127);
	int ok = quire_reduce_top(QUIRE_REDUCE_OP_SUM, QUIRE_FMT_INT8, QUIRE_FMT_INT32, W, N, N, 0,
				  (const uint8_t *)in, NULL, (uint8_t *)out) == QUIRE_OK;
	for (int i = 0; i < N; i++) {
		int32_t s = 0;
		for (int k = 0; k < W; k++)
			s += in[k][i];
		ok &= out[i] == s;
	}
	ok ? passed++ : failed++;
	printf("%s reduce int8 -> int32, W=%d\n", ok ? "ok  " : "FAIL", W);

	/* A ring step: the partial sum (int16) plus one worker's values. */
	ok = quire_reduce_top(QUIRE_REDUCE_OP_SUM, QUIRE_FMT_INT8, QUIRE_FMT_INT16, 1, N, N, 0,
			      (const uint8_t *)in[0], NULL, (uint8_t *)out16) == QUIRE_OK;
	for (int k = 1; k < W; k++)
		ok &= quire_reduce_top(QUIRE_REDUCE_OP_SUM, QUIRE_FMT_INT8, QUIRE_FMT_INT16, 1, N,
				       N, QUIRE_REDUCE_ACC_IN, (const uint8_t *)in[k],
				       (const uint8_t *)out16, (uint8_t *)out16) == QUIRE_OK;
	for (int i = 0; i < N; i++)
		ok &= out16[i] == out[i];
	ok ? passed++ : failed++;
	printf("%s reduce ring steps into int16\n", ok ? "ok  " : "FAIL");

	for (int k = 0; k < W; k++)
		for (int b = 0; b < 8; b++)
			exps[k][b] = (int8_t)((b * 53 + k * 29) % 254 - 126);
	ok = quire_reduce_top(QUIRE_REDUCE_OP_MAX_EXP, 0, 0, W, 8, 8, 0, (const uint8_t *)exps,
			      NULL, (uint8_t *)emax) == QUIRE_OK;
	for (int b = 0; b < 8; b++) {
		int8_t m = -128;
		for (int k = 0; k < W; k++)
			m = exps[k][b] > m ? exps[k][b] : m;
		ok &= emax[b] == m;
	}
	ok ? passed++ : failed++;
	printf("%s reduce max of exponents\n", ok ? "ok  " : "FAIL");
	printf("tb_reduce: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
