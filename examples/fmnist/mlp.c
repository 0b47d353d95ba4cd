// SPDX-License-Identifier: MIT
/*
 * The MLP's forward and backward passes. Weights are stored input-major, so
 * every inner loop is an axpy over contiguous floats (vectorizes without
 * reordering sums) and zero inputs (blank pixels, inactive ReLUs) are skipped.
 */
#include "mlp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct views {
	float *w1, *b1, *w2, *b2;
};

static struct views views_of(const struct mlp *m, float *base)
{
	struct views v;
	v.w1 = base;
	v.b1 = v.w1 + m->in * m->hidden;
	v.w2 = v.b1 + m->hidden;
	v.b2 = v.w2 + m->hidden * m->out;
	return v;
}

static float uniform(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (float)(*s >> 40) / 16777216.0f;
}

int mlp_init(struct mlp *m, size_t in, size_t hidden, size_t out, uint64_t seed)
{
	m->in = in;
	m->hidden = hidden;
	m->out = out;
	m->n_params = in * hidden + hidden + hidden * out + out;
	m->params = calloc(m->n_params, sizeof(float));
	if (!m->params)
		return -1;
	struct views v = views_of(m, m->params);
	uint64_t s = seed * 0x9e3779b97f4a7c15ull | 1;
	/* He-uniform initialisation, biases zero. */
	float a1 = sqrtf(6.0f / (float)in), a2 = sqrtf(6.0f / (float)hidden);
	for (size_t i = 0; i < in * hidden; i++)
		v.w1[i] = (2 * uniform(&s) - 1) * a1;
	for (size_t i = 0; i < hidden * out; i++)
		v.w2[i] = (2 * uniform(&s) - 1) * a2;
	return 0;
}

void mlp_free(struct mlp *m)
{
	free(m->params);
	m->params = NULL;
}

static void axpy(float *y, float a, const float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] += a * x[i];
}

/* Forward pass of one sample: hidden activations h, output logits. */
static void forward(const struct mlp *m, const struct views *v, const float *x, float *h,
		    float *logits)
{
	memcpy(h, v->b1, m->hidden * sizeof(float));
	for (size_t i = 0; i < m->in; i++)
		if (x[i] != 0)
			axpy(h, x[i], v->w1 + i * m->hidden, m->hidden);
	memcpy(logits, v->b2, m->out * sizeof(float));
	for (size_t j = 0; j < m->hidden; j++) {
		h[j] = h[j] > 0 ? h[j] : 0;
		if (h[j] != 0)
			axpy(logits, h[j], v->w2 + j * m->out, m->out);
	}
}

double mlp_gradient(const struct mlp *m, const float *x, const uint8_t *labels, const size_t *index,
		    size_t count, float *grad)
{
	struct views v = views_of(m, m->params), g = views_of(m, grad);
	memset(grad, 0, m->n_params * sizeof(float));
	float *h = malloc(m->hidden * sizeof(float)), *dh = malloc(m->hidden * sizeof(float));
	float logits[64], dlogits[64];
	double loss = 0;
	const float scale = 1.0f / (float)count;
	for (size_t k = 0; k < count; k++) {
		const float *xs = x + index[k] * m->in;
		forward(m, &v, xs, h, logits);
		float mx = logits[0];
		for (size_t c = 1; c < m->out; c++)
			mx = logits[c] > mx ? logits[c] : mx;
		float sum = 0;
		for (size_t c = 0; c < m->out; c++)
			sum += (dlogits[c] = expf(logits[c] - mx));
		for (size_t c = 0; c < m->out; c++)
			dlogits[c] = (dlogits[c] / sum - (c == labels[index[k]])) * scale;
		loss += -(logits[labels[index[k]]] - mx - logf(sum));
		axpy(g.b2, 1.0f, dlogits, m->out);
		for (size_t j = 0; j < m->hidden; j++) {
			float d = 0;
			if (h[j] != 0) {
				axpy(g.w2 + j * m->out, h[j], dlogits, m->out);
				for (size_t c = 0; c < m->out; c++)
					d += v.w2[j * m->out + c] * dlogits[c];
			}
			dh[j] = d; /* zero where the ReLU was off */
		}
		axpy(g.b1, 1.0f, dh, m->hidden);
		for (size_t i = 0; i < m->in; i++)
			if (xs[i] != 0)
				axpy(g.w1 + i * m->hidden, xs[i], dh, m->hidden);
	}
	free(h);
	free(dh);
	return loss;
}

void mlp_step(struct mlp *m, const float *grad, float lr)
{
	axpy(m->params, -lr, grad, m->n_params);
}

double mlp_accuracy(const struct mlp *m, const float *x, const uint8_t *labels, size_t count)
{
	struct views v = views_of(m, m->params);
	float *h = malloc(m->hidden * sizeof(float));
	float logits[64];
	size_t right = 0;
	for (size_t k = 0; k < count; k++) {
		forward(m, &v, x + k * m->in, h, logits);
		size_t best = 0;
		for (size_t c = 1; c < m->out; c++)
			if (logits[c] > logits[best])
				best = c;
		right += best == labels[k];
	}
	free(h);
	return (double)right / (double)count;
}
