// SPDX-License-Identifier: MIT
#include "window.h"

#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

int window_init(struct window *w, void *base, uint64_t iova, size_t size)
{
	memset(w, 0, sizeof(*w));
	w->spans = malloc(16 * sizeof(*w->spans));
	if (!w->spans)
		return -1;
	w->cap = 16;
	w->base = base;
	w->iova = iova;
	w->size = size;
	w->spans[0] = (struct span){0, size, 0};
	w->n_spans = 1;
	return 0;
}

void window_fini(struct window *w)
{
	free(w->spans);
	memset(w, 0, sizeof(*w));
}

void *window_alloc(struct window *w, size_t bytes)
{
	size_t len = (bytes + PAGE - 1) & ~(size_t)(PAGE - 1);
	if (len < bytes)
		return NULL;
	for (size_t i = 0; i < w->n_spans; i++) {
		struct span *s = &w->spans[i];
		if (s->used || s->len < len)
			continue;
		if (s->len > len) { /* split: the rest stays free */
			if (w->n_spans == w->cap) {
				struct span *n = realloc(w->spans, 2 * w->cap * sizeof(*n));
				if (!n)
					return NULL;
				w->spans = n;
				w->cap *= 2;
				s = &w->spans[i];
			}
			memmove(s + 2, s + 1, (w->n_spans - i - 1) * sizeof(*s));
			s[1] = (struct span){s->off + len, s->len - len, 0};
			s->len = len;
			w->n_spans++;
		}
		s->used = 1;
		return w->base + s->off;
	}
	return NULL;
}

void window_free(struct window *w, void *p)
{
	if (!p)
		return;
	size_t off = (size_t)((uint8_t *)p - w->base);
	for (size_t i = 0; i < w->n_spans; i++) {
		if (w->spans[i].off != off || !w->spans[i].used)
			continue;
		w->spans[i].used = 0;
		if (i + 1 < w->n_spans && !w->spans[i + 1].used) { /* merge with the next */
			w->spans[i].len += w->spans[i + 1].len;
			memmove(&w->spans[i + 1], &w->spans[i + 2],
				(w->n_spans - i - 2) * sizeof(struct span));
			w->n_spans--;
		}
		if (i > 0 && !w->spans[i - 1].used) { /* and with the previous */
			w->spans[i - 1].len += w->spans[i].len;
			memmove(&w->spans[i], &w->spans[i + 1],
				(w->n_spans - i - 1) * sizeof(struct span));
			w->n_spans--;
		}
		return;
	}
}

uint64_t window_dma(const struct window *w, const void *p)
{
	return w->iova + (uint64_t)((const uint8_t *)p - w->base);
}
