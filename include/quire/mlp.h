/* SPDX-License-Identifier: MIT */
/*
 * The scoring network (int8 MLP): limits and the model image layout.
 *
 * A model image is what MLP_LOAD moves to the card and what a model file
 * holds: a 32-byte header followed by one record per layer, every field
 * little-endian, every record padded to 4 bytes. See docs/mlp.md and
 * the numeric contract, docs/contract-mlp.md.
 *
 *   header:  magic "QMLP" (0x504c4d51), u16 version (1), u16 layers L,
 *            u16 width[5] (n_0 .. n_L, n_L == 1, unused entries 0),
 *            u16 flags (0), u32 payload_bytes, u32 payload_crc32 (IEEE, of the payload),
 *            u32 reserved (0)
 *   layer l: int8  weight[n_{l+1}][n_l]   (padded to 4 bytes)
 *            int32 bias[n_{l+1}]
 *            hidden layers only (l < L-1):
 *            int32 multiplier[n_{l+1}]     (0 <= M < 2^31)
 *            u8    shift[n_{l+1}]          (0 <= s <= 62, padded to 4 bytes)
 */
#ifndef QUIRE_MLP_H
#define QUIRE_MLP_H

#define QUIRE_MLP_MAGIC          0x504c4d51u /* "QMLP" little-endian */
#define QUIRE_MLP_VERSION        1u
#define QUIRE_MLP_HEADER_BYTES   32u
#define QUIRE_MLP_MAX_IMAGE_BYTES 0x70000u /* MLP_LOAD's largest count (448 KiB) */
#define QUIRE_MLP_MAX_LAYERS     4u
#define QUIRE_MLP_MAX_WIDTH      256u
#define QUIRE_MLP_MAX_CANDIDATES 1024u
#define QUIRE_MLP_BIAS_LIMIT     (1 << 30) /* |bias| < 2^30 */
#define QUIRE_MLP_MAX_SHIFT      62u
#define QUIRE_MLP_HIDDEN_MAX     127 /* ReLU + saturation clamp to [0, 127] */

/* Byte offsets of the header's fields. */
#define QUIRE_MLP_HDR_MAGIC         0  /* u32 */
#define QUIRE_MLP_HDR_VERSION       4  /* u16 */
#define QUIRE_MLP_HDR_LAYERS        6  /* u16 */
#define QUIRE_MLP_HDR_WIDTH         8  /* u16 width[5]: width[i] at 8 + 2i */
#define QUIRE_MLP_HDR_FLAGS         18 /* u16 */
#define QUIRE_MLP_HDR_PAYLOAD_BYTES 20 /* u32 */
#define QUIRE_MLP_HDR_PAYLOAD_CRC   24 /* u32 */
#define QUIRE_MLP_HDR_RESERVED      28 /* u32 */

#include "quire/static_assert.h"
QUIRE_STATIC_ASSERT(QUIRE_MLP_HDR_WIDTH + 2 * (QUIRE_MLP_MAX_LAYERS + 1) == QUIRE_MLP_HDR_FLAGS &&
			QUIRE_MLP_HDR_RESERVED + 4 == QUIRE_MLP_HEADER_BYTES,
		    "model image header layout");

#endif /* QUIRE_MLP_H */
