// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the model image loader (quire_model_read and quire_model_check,
 * host/src/core/model_check.c, over the engine's own quire_mlp_load, hls/mlp.c).
 *
 * An input is a whole model file. It is taken, or refused with one of the loader's
 * statuses and an offset inside the file (or just past its end) that the message names;
 * never QUIRE_ERR_INTERNAL, which says the walk that finds the offset and the loader
 * disagree. A taken image scores candidates made from its own bytes without fault, and
 * scores them the same twice. Each input is tried twice: as it is, and with its CRC field
 * made right, so that mutations reach the checks behind the CRC (shapes, biases,
 * multipliers, shifts). Seeds: tests/data/mlp_golden. Build and run: make fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "quire.h"
#include "hls/crc32.h"
#include "hls/mlp.h"

static int in_fd = -1;
static char in_path[64];
static struct quire_mlp_net *net;

static void one(const uint8_t *data, size_t size)
{
	if (in_fd < 0) {
		in_fd = memfd_create("quire-fuzz-model", 0);
		net = malloc(sizeof(*net));
		if (in_fd < 0 || !net)
			abort();
		snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", in_fd);
	}
	if (ftruncate(in_fd, 0) != 0 || pwrite(in_fd, data, size, 0) != (ssize_t)size)
		abort();
	void *image = (void *)1;
	size_t len = 1, off = (size_t)-1;
	char why[256], why2[256];
	int st = quire_model_read(in_path, &image, &len, why, sizeof(why));
	int st2 = quire_model_check(data, size, &off, why2, sizeof(why2));
	if (st != st2 || strcmp(why, why2) != 0) {
		fprintf(stderr, "read: %d '%s'; check: %d '%s'\n", st, why, st2, why2);
		abort();
	}
	if (st != QUIRE_OK) {
		char at[48];
		snprintf(at, sizeof(at), "offset %zu: ", off);
		if ((st != QUIRE_ERR_CORRUPT && st != QUIRE_ERR_VERSION && st != QUIRE_ERR_SHAPE &&
		     st != QUIRE_ERR_RANGE && st != QUIRE_ERR_SIZE) ||
		    off > size || strncmp(why, at, strlen(at)) != 0 || image || len) {
			fprintf(stderr, "refused badly: status %d offset %zu of %zu: '%s'\n", st,
				off, size, why);
			abort();
		}
		return;
	}
	if (len != size || memcmp(image, data, size) != 0 || why[0] ||
	    quire_mlp_load(image, (uint32_t)len, net) != QUIRE_OK)
		abort();
	free(image);
	/* Candidates from the image's own bytes, every third infeasible. */
	uint32_t n0 = net->width[0], c = (uint32_t)(size / n0);
	c = c < 1 ? 1 : c > 64 ? 64 : c;
	int8_t *feat = malloc((size_t)c * n0);
	uint8_t feas[64];
	int32_t s1[64], s2[64];
	uint32_t ch1 = 0, ch2 = 0;
	for (size_t i = 0; i < (size_t)c * n0; i++)
		feat[i] = (int8_t)data[i % size];
	for (uint32_t k = 0; k < c; k++)
		feas[k] = k % 3 != 2;
	int a = quire_mlp_score(net, c, feat, feas, s1, &ch1);
	int b = quire_mlp_score(net, c, feat, feas, s2, &ch2);
	if (a != QUIRE_OK || b != a || ch1 != ch2 || ch1 >= c || !feas[ch1] ||
	    memcmp(s1, s2, 4 * (size_t)c) != 0)
		abort();
	free(feat);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);
	if (size < QUIRE_MLP_HEADER_BYTES || size > QUIRE_MLP_MAX_IMAGE_BYTES)
		return 0;
	uint8_t *fixed = malloc(size);
	memcpy(fixed, data, size);
	uint32_t crc =
	    quire_crc32(0, fixed + QUIRE_MLP_HEADER_BYTES, (uint32_t)size - QUIRE_MLP_HEADER_BYTES);
	for (int i = 0; i < 4; i++)
		fixed[QUIRE_MLP_HDR_PAYLOAD_CRC + i] = (uint8_t)(crc >> 8 * i);
	one(fixed, size);
	free(fixed);
	return 0;
}
