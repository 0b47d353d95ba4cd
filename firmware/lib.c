// SPDX-License-Identifier: MIT
/*
 * The card build has no C library; the compiler may still emit calls to
 * memset and memcpy for struct initialisation and copies. A struct quire_cmd
 * is 64 bytes: a word at a time where both ends allow it, since a byte loop
 * costs about 6 cycles a byte on the control core (370 cycles a descriptor).
 * Built without loop pattern distribution, which would make these loops calls
 * to themselves.
 */
#include <stddef.h>
#include <stdint.h>

/* A word that may alias whatever memset and memcpy are given. */
typedef uint32_t __attribute__((may_alias)) word_t;

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);

__attribute__((optimize("no-tree-loop-distribute-patterns"))) void *memset(void *dst, int c,
									   size_t n)
{
	uint8_t *d = dst;
	if (((uintptr_t)d & 3) == 0) {
		uint32_t w = (uint8_t)c * 0x01010101u;
		for (; n >= 4; n -= 4, d += 4)
			*(word_t *)(void *)d = w;
	}
	while (n--)
		*d++ = (uint8_t)c;
	return dst;
}

__attribute__((optimize("no-tree-loop-distribute-patterns"))) void *
memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if ((((uintptr_t)d | (uintptr_t)s) & 3) == 0) {
		for (; n >= 4; n -= 4, d += 4, s += 4)
			*(word_t *)(void *)d = *(const word_t *)(const void *)s;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}
