/* SPDX-License-Identifier: MIT */
/*
 * Little-endian 16- and 32-bit words in byte buffers: the frame, link and UDP headers of
 * the cards' network and its rendezvous messages (docs/network.md) are little-endian
 * whatever the host's order.
 */
#ifndef QUIRE_SIM_LE_H
#define QUIRE_SIM_LE_H

#include <stdint.h>

static inline uint32_t quire_ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void quire_st32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint16_t quire_ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline void quire_st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

#endif /* QUIRE_SIM_LE_H */
