// SPDX-License-Identifier: MIT
/*
 * Vitis HLS testbench of the QUANT kernel: drives quire_quant_top only (what
 * C/RTL co-simulation exercises) and checks it against a few lines of libm.
 * main returns 0 on pass.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hls/quant.h"
#include "quire/format.h"
#include "quire/status.h"

#define N 200

int main(void)
{
	static float x[N], resid[N], y[N];
	static int8_t exp[QUIRE_BFP_BLOCKS(N)];
	static uint8_t q[2 * N];
	int passed = 0, failed = 0;
	for (int i = 0; i < N; i++)
		x[i] = sinf((float)i * 0.37f) * ldexpf(1.0f, i / 64 * 5 - 6);
	x[130] = NAN; /* block 2 becomes NONFINITE */

	/* Each format's exponents by the exponent pass, then (one = 1) by ENCODE itself with
	 * QUIRE_QUANT_F_EXPS, over exponents that were wrong before. */
	for (int run = 0; run < 4; run++) {
		int fmt = run / 2 ? QUIRE_FMT_BFP16 : QUIRE_FMT_BFP8, one = run % 2;
		int mant = fmt == QUIRE_FMT_BFP8 ? 7 : 15,
		    limit = fmt == QUIRE_FMT_BFP8 ? 127 : 32767;
		memset(exp, 0x80, sizeof exp);
		int st = one ? QUIRE_OK
			     : quire_quant_top(QUIRE_QUANT_OP_EXPONENTS, fmt, 0, 0, N, 0, x, resid,
					       exp, q, y);
		st |= quire_quant_top(QUIRE_QUANT_OP_ENCODE, fmt, 0, one ? QUIRE_QUANT_F_EXPS : 0,
				      N, 0, x, resid, exp, q, y);
		st |= quire_quant_top(QUIRE_QUANT_OP_DECODE, fmt,
				      fmt == QUIRE_FMT_BFP8 ? QUIRE_FMT_INT8 : QUIRE_FMT_INT16, 0,
				      N, 1, x, resid, exp, q, y);
		int ok = st == QUIRE_OK;
		for (int b = 0; b * 64 < N; b++) {
			int nonfinite = b == 2;
			float m = 0;
			for (int j = b * 64; j < N && j < b * 64 + 64; j++)
				m = fmaxf(m, fabsf(x[j]));
			int e = nonfinite ? 127 : ilogbf(m) + 1;
			ok &= exp[b] == e;
			for (int j = b * 64; j < N && j < b * 64 + 64; j++) {
				double v = nearbyint(ldexp(x[j], mant - e));
				v = v > limit ? limit : v < -limit ? -limit : v;
				float want = nonfinite ? NAN : (float)ldexp(v, e - mant);
				ok &= nonfinite ? isnan(y[j]) : y[j] == want;
			}
		}
		ok ? passed++ : failed++;
		printf("%s quant %s encode/decode%s\n", ok ? "ok  " : "FAIL",
		       fmt == QUIRE_FMT_BFP8 ? "bfp8" : "bfp16", one ? ", one pass" : "");
	}
	/* fp16 round trip of values binary16 holds exactly. */
	for (int i = 0; i < N; i++)
		x[i] = (float)(i - 100) / 4;
	int ok = quire_quant_top(QUIRE_QUANT_OP_ENCODE, QUIRE_FMT_FP16, 0, 0, N, 0, x, resid, exp,
				 q, y) == QUIRE_OK;
	ok &= quire_quant_top(QUIRE_QUANT_OP_DECODE, QUIRE_FMT_FP16, QUIRE_FMT_FP16, 0, N, 1, x,
			      resid, exp, q, y) == QUIRE_OK;
	ok &= memcmp(x, y, sizeof(x)) == 0;
	ok ? passed++ : failed++;
	printf("%s quant fp16 round trip\n", ok ? "ok  " : "FAIL");
	printf("tb_quant: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
