/* SPDX-License-Identifier: MIT */
/*
 * CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of the simulated network's frames, fast:
 * carry-less multiplication (PCLMULQDQ) folds 64 bytes a step where the CPU has it, zlib
 * computes the rest. The same numbers as zlib's crc32 for every input; the folding path checks
 * itself against zlib once, the first time it is used, and is never taken if they differ.
 */
#ifndef QUIRE_SIM_CRC32_FAST_H
#define QUIRE_SIM_CRC32_FAST_H

#include <stddef.h>
#include <stdint.h>

/* zlib's crc32(crc, p, len). */
uint32_t quire_sim_crc32(uint32_t crc, const uint8_t *p, size_t len);

/* 1 when quire_sim_crc32 folds with PCLMULQDQ (the CPU has it and the self-check passed). */
int quire_sim_crc32_folds(void);

#endif
