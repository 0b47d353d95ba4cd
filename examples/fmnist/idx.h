/* SPDX-License-Identifier: MIT */
/* Fashion-MNIST (and MNIST) in IDX format, gzip'd as Debian's dataset-fashion-mnist ships it. */
#ifndef QUIRE_EXAMPLE_IDX_H
#define QUIRE_EXAMPLE_IDX_H

#include <stddef.h>
#include <stdint.h>

#define FMNIST_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"
#define FMNIST_PIXELS      784
#define FMNIST_CLASSES     10

struct fmnist_set {
	size_t count;
	float *images;   /* count x 784, scaled to [0, 1] */
	uint8_t *labels; /* count, 0..9 */
};

/*
 * Load "train" or "t10k" from dir. On failure prints why (and which Debian
 * package provides the data) to stderr and returns -1.
 */
int fmnist_load(const char *dir, const char *split, struct fmnist_set *set);
void fmnist_free(struct fmnist_set *set);

#endif
