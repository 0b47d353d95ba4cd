// SPDX-License-Identifier: MIT
/* Bitwise CRC-32: small, table-free, the same on the card and the host. */
#include "crc32.h"

uint32_t quire_crc32(uint32_t crc, QUIRE_GMEM const uint8_t *p, uint32_t len)
{
	crc = ~crc;
	for (uint32_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}
