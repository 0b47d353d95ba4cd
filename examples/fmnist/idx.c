// SPDX-License-Identifier: MIT
/* IDX reader: big-endian header (magic, dimensions), then unsigned bytes. */
#include "idx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int read_exact(gzFile f, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;
		int got = gzread(f, p, chunk);
		if (got <= 0)
			return -1;
		p += got;
		len -= (size_t)got;
	}
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads an IDX file of unsigned bytes with `dims` dimensions; returns the data. */
static uint8_t *read_idx(const char *path, uint32_t dims, uint32_t *shape)
{
	gzFile f = gzopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fmnist: cannot open %s: %s\n", path, strerror(errno));
		if (strstr(path, FMNIST_DEFAULT_DIR))
			fprintf(stderr,
				"fmnist: the data comes from Debian's package "
				"dataset-fashion-mnist (apt-get install dataset-fashion-mnist)\n");
		return NULL;
	}
	uint8_t head[4 + 4 * 3];
	uint8_t *data = NULL;
	if (read_exact(f, head, 4 + 4 * dims) != 0 || be32(head) != (0x00000800u | dims)) {
		fprintf(stderr, "fmnist: %s: not an IDX file of %u-dimensional bytes\n", path,
			dims);
		goto out;
	}
	size_t total = 1;
	for (uint32_t d = 0; d < dims; d++) {
		shape[d] = be32(head + 4 + 4 * d);
		if (shape[d] == 0 || shape[d] > 10000000) {
			fprintf(stderr, "fmnist: %s: implausible dimension %u\n", path, shape[d]);
			goto out;
		}
		total *= shape[d];
	}
	data = malloc(total);
	if (!data || read_exact(f, data, total) != 0) {
		fprintf(stderr, "fmnist: %s: truncated or unreadable\n", path);
		free(data);
		data = NULL;
	}
out:
	gzclose(f);
	return data;
}

int fmnist_load(const char *dir, const char *split, struct fmnist_set *set)
{
	char path[4096];
	uint32_t ishape[3], lshape[1];
	memset(set, 0, sizeof(*set));
	snprintf(path, sizeof(path), "%s/%s-images-idx3-ubyte.gz", dir, split);
	uint8_t *img = read_idx(path, 3, ishape);
	snprintf(path, sizeof(path), "%s/%s-labels-idx1-ubyte.gz", dir, split);
	uint8_t *lab = img ? read_idx(path, 1, lshape) : NULL;
	if (!img || !lab) {
		free(img);
		free(lab);
		return -1;
	}
	if (ishape[1] * ishape[2] != FMNIST_PIXELS || ishape[0] != lshape[0]) {
		fprintf(stderr, "fmnist: %s: %u images of %ux%u and %u labels: not Fashion-MNIST\n",
			split, ishape[0], ishape[1], ishape[2], lshape[0]);
		free(img);
		free(lab);
		return -1;
	}
	set->count = ishape[0];
	set->images = malloc(set->count * FMNIST_PIXELS * sizeof(float));
	if (!set->images) {
		free(img);
		free(lab);
		return -1;
	}
	for (size_t i = 0; i < set->count * FMNIST_PIXELS; i++)
		set->images[i] = img[i] / 255.0f;
	for (size_t i = 0; i < set->count; i++) {
		if (lab[i] >= FMNIST_CLASSES) {
			fprintf(stderr, "fmnist: %s: label %u out of range\n", split, lab[i]);
			free(img);
			free(lab);
			fmnist_free(set);
			return -1;
		}
	}
	set->labels = lab;
	free(img);
	return 0;
}

void fmnist_free(struct fmnist_set *set)
{
	free(set->images);
	free(set->labels);
	memset(set, 0, sizeof(*set));
}
