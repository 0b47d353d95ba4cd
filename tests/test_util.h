/* SPDX-License-Identifier: MIT */
/* Helpers shared by the tests: a seeded generator, gradient data full of edge cases, a
 * scratch directory, and a UDP socket on loopback. */
#ifndef QUIRE_TEST_UTIL_H
#define QUIRE_TEST_UTIL_H

#include <arpa/inet.h>
#include <float.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	/* splitmix64: good enough, and every test run sees the same data. */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(rng_next(r) % n);
}

static inline float f32_of(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

static inline uint32_t bits_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

/* Any finite fp32, exponents uniform: reaches subnormals and the top binades. */
static inline float rng_any_finite(struct rng *r)
{
	uint32_t b;
	do
		b = (uint32_t)rng_next(r);
	while ((b & 0x7f800000u) == 0x7f800000u);
	return f32_of(b);
}

/*
 * Gradient-like data with edge cases: each 64-element block is one kind (normal
 * values at a random scale, ties, subnormals, huge values, zeros of both signs),
 * and with nonfinite = 1 a few blocks get a NaN or an Inf.
 */
static inline void fill_edge_gradients(struct rng *r, float *x, size_t n, int nonfinite)
{
	for (size_t b = 0; b * 64 < n; b++) {
		uint32_t kind = rng_below(r, 10);
		int scale = (int)rng_below(r, 60) - 40;
		for (size_t j = 0; j < 64 && b * 64 + j < n; j++) {
			size_t i = b * 64 + j;
			float v;
			switch (kind) {
			case 0: /* all +-0 */
				v = rng_below(r, 2) ? -0.0f : 0.0f;
				break;
			case 1: /* subnormals */
				v = f32_of((uint32_t)rng_below(r, 0x800000u) |
					   (rng_below(r, 2) << 31));
				break;
			case 2: /* near the top of the range, the exponent clamp */
				v = f32_of((0x7e800000u + rng_below(r, 0xffffffu)) |
					   (rng_below(r, 2) << 31));
				break;
			case 3: /* exact ties: block max 1, elements (k + 1/2) / 64 */
				v = j == 0 ? 1.0f : ((float)rng_below(r, 127) - 63.5f) / 64.0f;
				break;
			case 4: /* any finite value */
				v = rng_any_finite(r);
				break;
			default: { /* roughly normal gradients at a random scale */
				float u = 0;
				for (int k = 0; k < 4; k++)
					u += (float)(rng_next(r) >> 40) / 16777216.0f;
				v = ldexpf(u - 2.0f, scale);
			}
			}
			x[i] = v;
		}
		if (nonfinite && rng_below(r, 16) == 0) {
			static const float specials[] = {NAN, -NAN, INFINITY, -INFINITY};
			size_t j = rng_below(r, 64);
			if (b * 64 + j < n)
				x[b * 64 + j] = specials[rng_below(r, 4)];
		}
	}
}

/* A new directory /tmp/NAME-XXXXXX in dir (n bytes): 0, or -1. */
static inline int test_tmpdir_make(char *dir, size_t n, const char *name)
{
	snprintf(dir, n, "/tmp/%s-XXXXXX", name);
	return mkdtemp(dir) ? 0 : -1;
}

/* The directory and all it holds, gone: 0, or -1. */
static inline int test_tmpdir_remove(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A UDP socket bound to port on loopback: its descriptor, or -1. */
static inline int test_udp_loopback(unsigned port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

#endif
