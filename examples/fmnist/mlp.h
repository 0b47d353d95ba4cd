/* SPDX-License-Identifier: MIT */
/*
 * A small fp32 MLP classifier (784 - hidden - 10, ReLU, softmax cross-entropy)
 * trained with SGD. All parameters and gradients live in one flat array, so a
 * data-parallel trainer all-reduces one buffer per step.
 */
#ifndef QUIRE_EXAMPLE_MLP_H
#define QUIRE_EXAMPLE_MLP_H

#include <stddef.h>
#include <stdint.h>

struct mlp {
	size_t in, hidden, out;
	size_t n_params;
	float *params; /* w1[in][hidden], b1[hidden], w2[hidden][out], b2[out] */
};

int mlp_init(struct mlp *m, size_t in, size_t hidden, size_t out, uint64_t seed);
void mlp_free(struct mlp *m);

/*
 * Gradient of the mean loss over `count` samples into grad (n_params floats,
 * overwritten); returns the summed loss of those samples.
 */
double mlp_gradient(const struct mlp *m, const float *x, const uint8_t *labels, const size_t *index,
		    size_t count, float *grad);

/* params -= lr * grad */
void mlp_step(struct mlp *m, const float *grad, float lr);

/* Fraction of samples classified correctly. */
double mlp_accuracy(const struct mlp *m, const float *x, const uint8_t *labels, size_t count);

#endif
