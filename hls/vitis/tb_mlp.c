// SPDX-License-Identifier: MIT
/*
 * Vitis HLS testbench of the MLP kernel: the golden vectors of
 * tests/data/mlp_golden through quire_mlp_top (LOAD, then SCORE).
 * main returns 0 on pass. QUIRE_TB_DATA names the golden directory.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hls/mlp.h"
#include "quire/status.h"

#ifndef QUIRE_TB_DATA
#define QUIRE_TB_DATA "../../tests/data/mlp_golden"
#endif

static uint8_t *slurp(const char *name, const char *ext, uint32_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.%s", QUIRE_TB_DATA, name, ext);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static uint8_t buf[2][1 << 17];
	uint8_t *p = buf[ext[0] == 'v'];
	*len = (uint32_t)fread(p, 1, sizeof(buf[0]), f);
	fclose(f);
	return p;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int main(void)
{
	static const char *const cases[] = {"l1_16", "l2_32x64", "l3_extreme", "l4_256",
					    "l2_none_feasible"};
	static int32_t scores[QUIRE_MLP_MAX_CANDIDATES];
	int passed = 0, failed = 0;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t ilen, vlen, choice = 0;
		uint8_t *img = slurp(cases[i], "qmlp", &ilen), *vec = slurp(cases[i], "vec", &vlen);
		int ok = img && vec;
		if (ok) {
			uint32_t c = le32(vec + 4), n0 = le32(vec + 8);
			const uint8_t *feas = vec + 12 + c * n0, *want = feas + c;
			int32_t want_choice = (int32_t)le32(want + 4 * c);
			ok = quire_mlp_top(QUIRE_MLP_OP_LOAD, ilen, 0, img, NULL, NULL, NULL,
					   NULL) == QUIRE_OK;
			int st = quire_mlp_top(QUIRE_MLP_OP_SCORE, 0, c, NULL,
					       (const int8_t *)vec + 12, feas, scores, &choice);
			ok &= want_choice < 0 ? st == QUIRE_ERR_NO_FEASIBLE
					      : st == QUIRE_OK && choice == (uint32_t)want_choice;
			for (uint32_t k = 0; k < c; k++)
				ok &= (uint32_t)scores[k] == le32(want + 4 * k);
		}
		ok ? passed++ : failed++;
		printf("%s mlp golden %s\n", ok ? "ok  " : "FAIL", cases[i]);
	}
	printf("tb_mlp: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
