/* SPDX-License-Identifier: MIT */
/*
 * The host memory a card reaches: one region, handed out in page-aligned
 * pieces (first fit, neighbours merged on free).
 */
#ifndef QUIRE_BACKEND_WINDOW_H
#define QUIRE_BACKEND_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct window {
	uint8_t *base;
	uint64_t iova; /* DMA address of base */
	size_t size;
	struct span {
		size_t off, len;
		int used;
	} * spans;
	size_t n_spans, cap;
};

int window_init(struct window *w, void *base, uint64_t iova, size_t size);
void window_fini(struct window *w);
/* NULL when no piece is large enough. */
void *window_alloc(struct window *w, size_t bytes);
void window_free(struct window *w, void *p);
uint64_t window_dma(const struct window *w, const void *p);

#endif
