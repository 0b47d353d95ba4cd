/* SPDX-License-Identifier: MIT */
/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32): integrity of model images. */
#ifndef QUIRE_HLS_CRC32_H
#define QUIRE_HLS_CRC32_H

#include "hls_cl.h" /* <stdint.h>, or its OpenCL C stand-in */

/* Continue a CRC: start with crc = 0. */
uint32_t quire_crc32(uint32_t crc, QUIRE_GMEM const uint8_t *p, uint32_t len);

#endif /* QUIRE_HLS_CRC32_H */
