/* SPDX-License-Identifier: MIT */
/*
 * The MLP golden files of tests/data/mlp_golden/ (written by tests/ref/mlp_ref.py): a model
 * image NAME.qmlp and its vectors NAME.vec, little-endian. For CMocka tests: include after
 * <cmocka.h>.
 */
#ifndef QUIRE_TESTS_MLP_GOLDEN_H
#define QUIRE_TESTS_MLP_GOLDEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef QUIRE_TEST_DATA
#define QUIRE_TEST_DATA "tests/data"
#endif

/* The whole file tests/data/mlp_golden/NAME (malloc'd); a file that cannot be read fails
 * the test. */
static inline uint8_t *mlp_golden_read(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/mlp_golden/%s", QUIRE_TEST_DATA, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc((size_t)size + 1);
	assert_int_equal(fread(p, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return p;
}

static inline uint32_t mlp_golden_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif /* QUIRE_TESTS_MLP_GOLDEN_H */
