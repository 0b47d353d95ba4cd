// SPDX-License-Identifier: MIT
/*
 * A random model image of any shape, valid by construction (include/quire/mlp.h): what
 * quire selftest loads on a card and what quire sched bench times, when no trained model
 * is at hand. Weights, biases, multipliers and shifts are drawn so that the hidden
 * activations spread over 0..127 rather than saturate.
 */
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "cli.h"
#include "quire.h"

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* little-endian hosts only, as the CLI */
	return p + 4;
}

size_t cli_model_image(uint8_t *img, uint32_t layers, const uint32_t *w, uint64_t *rng)
{
	uint8_t *p = img + QUIRE_MLP_HEADER_BYTES;
	for (uint32_t l = 0; l < layers; l++) {
		uint32_t in = w[l], out = w[l + 1];
		for (uint32_t i = 0; i < in * out; i++)
			*p++ = (uint8_t)xorshift(rng);
		p += (4 - (in * out) % 4) % 4;
		for (uint32_t o = 0; o < out; o++)
			p = put32(p, (uint32_t)((int32_t)(xorshift(rng) % 20001) - 10000));
		if (l + 1 == layers)
			break;
		/* M / 2^s near 40 over a typical |acc| of sqrt(in) * 74 * 74 (random int8 x
		 * activations), with M in [2^30, 2^31). */
		uint32_t shift = 30 + (uint32_t)ceil(log2(sqrt((double)in) * 74 * 74 / 40));
		for (uint32_t o = 0; o < out; o++)
			p = put32(p, 0x40000000u + (uint32_t)(xorshift(rng) % 0x3fffffffu));
		for (uint32_t o = 0; o < out; o++)
			*p++ = (uint8_t)(shift - 1 + xorshift(rng) % 3);
		p += (4 - out % 4) % 4;
	}
	uint32_t payload = (uint32_t)(p - img) - QUIRE_MLP_HEADER_BYTES;
	memset(img, 0, QUIRE_MLP_HEADER_BYTES);
	put32(img + QUIRE_MLP_HDR_MAGIC, QUIRE_MLP_MAGIC);
	uint16_t v16 = QUIRE_MLP_VERSION;
	memcpy(img + QUIRE_MLP_HDR_VERSION, &v16, 2);
	v16 = (uint16_t)layers;
	memcpy(img + QUIRE_MLP_HDR_LAYERS, &v16, 2);
	for (uint32_t l = 0; l <= layers; l++) {
		v16 = (uint16_t)w[l];
		memcpy(img + QUIRE_MLP_HDR_WIDTH + 2 * l, &v16, 2);
	}
	put32(img + QUIRE_MLP_HDR_PAYLOAD_BYTES, payload);
	put32(img + QUIRE_MLP_HDR_PAYLOAD_CRC,
	      (uint32_t)crc32(0, img + QUIRE_MLP_HEADER_BYTES, payload));
	return (size_t)(p - img);
}
