/* SPDX-License-Identifier: MIT */
/*
 * MLP kernel: int8 inference of the scoring network (docs/contract-mlp.md) over many
 * candidates with the same weights, and the choice of the best feasible one.
 */
#ifndef QUIRE_HLS_MLP_H
#define QUIRE_HLS_MLP_H

#include "hls_cl.h" /* <stdint.h>, or its OpenCL C stand-in */

#include "quire/card.h" /* the OP values of the top function */

#include "quire/mlp.h"

/* The weights as the engine holds them on chip after MLP_LOAD. */
struct quire_mlp_net {
	uint32_t layers;
	uint32_t width[QUIRE_MLP_MAX_LAYERS + 1];
	int8_t weight[QUIRE_MLP_MAX_LAYERS][QUIRE_MLP_MAX_WIDTH][QUIRE_MLP_MAX_WIDTH];
	int32_t bias[QUIRE_MLP_MAX_LAYERS][QUIRE_MLP_MAX_WIDTH];
	int32_t mult[QUIRE_MLP_MAX_LAYERS][QUIRE_MLP_MAX_WIDTH];
	uint8_t shift[QUIRE_MLP_MAX_LAYERS][QUIRE_MLP_MAX_WIDTH];
};

/* Size in bytes of a model image with these widths (header included), 0 if the shape is invalid. */
uint32_t quire_mlp_image_bytes(uint32_t layers, const uint32_t *width);

/*
 * Parse and check a model image (layout in quire/mlp.h). On any error net is
 * left unusable (layers = 0) and the status says why: QUIRE_ERR_CORRUPT (magic,
 * version, lengths, CRC), QUIRE_ERR_SHAPE (layers or widths), QUIRE_ERR_RANGE
 * (a bias, multiplier or shift out of bounds).
 */
int quire_mlp_load(QUIRE_GMEM const uint8_t *image, uint32_t len,
		   QUIRE_GMEM struct quire_mlp_net *net);

/*
 * Score c candidates (features[k * width[0] + i], int8) and choose the feasible
 * one (feasible[k] != 0) with the largest score, ties to the lowest index.
 * Returns QUIRE_OK with *choice set, QUIRE_ERR_NO_FEASIBLE (scores still
 * written), or QUIRE_ERR_SIZE / QUIRE_ERR_SHAPE for a bad c or an unloaded net.
 */
int quire_mlp_score(QUIRE_GMEM const struct quire_mlp_net *net, uint32_t c,
		    QUIRE_GMEM const int8_t *features, QUIRE_GMEM const uint8_t *feasible,
		    QUIRE_GMEM int32_t *scores, QUIRE_GMEM uint32_t *choice);

/* Requantization of one hidden accumulator: clamp((acc * m + round) >> s, 0, 127). */
int8_t quire_mlp_requantize(int32_t acc, int32_t m, uint32_t s);

/* The kernel's top function, as Vitis HLS synthesizes it (see hls/vitis/); C only, as
 * OpenCL C 1.2 has no static storage for its weights (hls/hls_cl.h). */
#if !QUIRE_HLS_OPENCL
int quire_mlp_top(uint32_t op, uint32_t len, uint32_t c, const uint8_t *image,
		  const int8_t *features, const uint8_t *feasible, int32_t *scores,
		  uint32_t *choice);
#endif

#endif /* QUIRE_HLS_MLP_H */
