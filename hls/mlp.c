// SPDX-License-Identifier: MIT
/* MLP kernel (golden model): integers only, no floating point. */
#include "mlp.h"

#include "crc32.h"
#include "hls_util.h"
#include "quire/status.h"

#define W QUIRE_MLP_MAX_WIDTH

static uint32_t pad4(uint32_t v)
{
	return (v + 3u) & ~3u;
}

static uint32_t layer_bytes(uint32_t in, uint32_t out, int hidden)
{
	uint32_t bytes = pad4(in * out) + 4 * out;
	if (hidden)
		bytes += 4 * out + pad4(out);
	return bytes;
}

uint32_t quire_mlp_image_bytes(uint32_t layers, const uint32_t *width)
{
	if (layers < 1 || layers > QUIRE_MLP_MAX_LAYERS || width[layers] != 1)
		return 0;
	uint32_t bytes = QUIRE_MLP_HEADER_BYTES;
	for (uint32_t l = 0; l < layers; l++) {
		if (width[l] < 1 || width[l] > W)
			return 0;
		bytes += layer_bytes(width[l], width[l + 1], l + 1 < layers);
	}
	return bytes;
}

static uint16_t ld_u16(QUIRE_GMEM const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int quire_mlp_load(QUIRE_GMEM const uint8_t *image, uint32_t len,
		   QUIRE_GMEM struct quire_mlp_net *net)
{
	net->layers = 0;
	if (len < QUIRE_MLP_HEADER_BYTES ||
	    (uint32_t)quire_ld32(image, QUIRE_MLP_HDR_MAGIC / 4) != QUIRE_MLP_MAGIC)
		return QUIRE_ERR_CORRUPT;
	if (ld_u16(image + QUIRE_MLP_HDR_VERSION) != QUIRE_MLP_VERSION)
		return QUIRE_ERR_VERSION;
	uint32_t layers = ld_u16(image + QUIRE_MLP_HDR_LAYERS);
	uint32_t width[QUIRE_MLP_MAX_LAYERS + 1] = {0};
	for (uint32_t l = 0; l <= QUIRE_MLP_MAX_LAYERS; l++)
		width[l] = ld_u16(image + QUIRE_MLP_HDR_WIDTH + 2 * l);
	uint32_t flags = ld_u16(image + QUIRE_MLP_HDR_FLAGS);
	uint32_t payload = (uint32_t)quire_ld32(image, QUIRE_MLP_HDR_PAYLOAD_BYTES / 4);
	uint32_t crc = (uint32_t)quire_ld32(image, QUIRE_MLP_HDR_PAYLOAD_CRC / 4);
	uint32_t reserved = (uint32_t)quire_ld32(image, QUIRE_MLP_HDR_RESERVED / 4);
	if (flags != 0 || reserved != 0)
		return QUIRE_ERR_CORRUPT;
	uint32_t bytes = quire_mlp_image_bytes(layers, width);
	if (bytes == 0)
		return QUIRE_ERR_SHAPE;
	for (uint32_t l = layers + 1; l <= QUIRE_MLP_MAX_LAYERS; l++)
		if (width[l] != 0)
			return QUIRE_ERR_SHAPE;
	if (payload != bytes - QUIRE_MLP_HEADER_BYTES || len != bytes)
		return QUIRE_ERR_CORRUPT;
	if (quire_crc32(0, image + QUIRE_MLP_HEADER_BYTES, payload) != crc)
		return QUIRE_ERR_CORRUPT;

	QUIRE_GMEM const uint8_t *p = image + QUIRE_MLP_HEADER_BYTES;
	for (uint32_t l = 0; l < layers; l++) {
		uint32_t in = width[l], out = width[l + 1];
		int hidden = l + 1 < layers;
		for (uint32_t o = 0; o < out; o++)
			for (uint32_t i = 0; i < in; i++)
				net->weight[l][o][i] = (int8_t)p[o * in + i];
		p += pad4(in * out);
		for (uint32_t o = 0; o < out; o++) {
			int32_t b = quire_ld32(p, o);
			if (b <= -QUIRE_MLP_BIAS_LIMIT || b >= QUIRE_MLP_BIAS_LIMIT)
				return QUIRE_ERR_RANGE;
			net->bias[l][o] = b;
		}
		p += 4 * out;
		if (!hidden)
			continue;
		for (uint32_t o = 0; o < out; o++) {
			int32_t m = quire_ld32(p, o);
			uint8_t s = p[4 * out + o];
			if (m < 0 || s > QUIRE_MLP_MAX_SHIFT)
				return QUIRE_ERR_RANGE;
			net->mult[l][o] = m;
			net->shift[l][o] = s;
		}
		p += 4 * out + pad4(out);
	}
	for (uint32_t l = 0; l <= QUIRE_MLP_MAX_LAYERS; l++)
		net->width[l] = width[l];
	net->layers = layers;
	return QUIRE_OK;
}

int8_t quire_mlp_requantize(int32_t acc, int32_t m, uint32_t s)
{
	int64_t v = (int64_t)acc * m + (s > 0 ? INT64_C(1) << (s - 1) : 0);
	/* Floor division by 2^s, spelt out: >> of a negative value is implementation-defined in C.
	 */
	int64_t y = v >= 0 ? v >> s : -(int64_t)(((uint64_t)(-(v + 1))) >> s) - 1;
	if (y < 0)
		return 0;
	return (int8_t)(y > QUIRE_MLP_HIDDEN_MAX ? QUIRE_MLP_HIDDEN_MAX : y);
}

/* One dense layer for one candidate. */
static void dense(QUIRE_GMEM const struct quire_mlp_net *net, uint32_t l, const int8_t *x,
		  int8_t *y, int32_t *score)
{
	uint32_t in = net->width[l], out = net->width[l + 1];
	int hidden = l + 1 < net->layers;
output_loop:
	for (uint32_t o = 0; o < W; o++) {
		if (o >= out)
			break;
		int32_t acc = net->bias[l][o];
	input_loop:
		for (uint32_t i = 0; i < W; i++) {
#pragma HLS PIPELINE II = 1
			if (i >= in)
				break;
			acc += (int32_t)net->weight[l][o][i] * x[i];
		}
		if (hidden)
			y[o] = quire_mlp_requantize(acc, net->mult[l][o], net->shift[l][o]);
		else
			*score = acc;
	}
}

int quire_mlp_score(QUIRE_GMEM const struct quire_mlp_net *net, uint32_t c,
		    QUIRE_GMEM const int8_t *features, QUIRE_GMEM const uint8_t *feasible,
		    QUIRE_GMEM int32_t *scores, QUIRE_GMEM uint32_t *choice)
{
	if (net->layers < 1 || net->layers > QUIRE_MLP_MAX_LAYERS)
		return QUIRE_ERR_SHAPE;
	if (c < 1 || c > QUIRE_MLP_MAX_CANDIDATES)
		return QUIRE_ERR_SIZE;
	uint32_t n0 = net->width[0];
	int found = 0;
	uint32_t best = 0;
candidate_loop:
	for (uint32_t k = 0; k < QUIRE_MLP_MAX_CANDIDATES; k++) {
		if (k >= c)
			break;
		int8_t act[2][W];
#pragma HLS ARRAY_PARTITION variable = act cyclic factor = 64 dim = 2
		for (uint32_t i = 0; i < n0; i++)
			act[0][i] = features[(uint64_t)k * n0 + i];
		int32_t score = 0;
	layer_loop:
		for (uint32_t l = 0; l < QUIRE_MLP_MAX_LAYERS; l++) {
			if (l >= net->layers)
				break;
			dense(net, l, act[l & 1], act[(l + 1) & 1], &score);
		}
		scores[k] = score;
		if (feasible[k] && (!found || score > scores[best])) {
			best = k;
			found = 1;
		}
	}
	if (!found)
		return QUIRE_ERR_NO_FEASIBLE;
	*choice = best;
	return QUIRE_OK;
}

/* LOAD or SCORE with the engine's weight memory `net`: the top function's work, which the
 * OpenCL wrapper (hls/hls_cl.h) also calls, with a buffer for net. */
static int quire_mlp_run(QUIRE_GMEM struct quire_mlp_net *net, uint32_t op, uint32_t len,
			 uint32_t c, QUIRE_GMEM const uint8_t *image,
			 QUIRE_GMEM const int8_t *features, QUIRE_GMEM const uint8_t *feasible,
			 QUIRE_GMEM int32_t *scores, QUIRE_GMEM uint32_t *choice)
{
	switch (op) {
	case QUIRE_MLP_OP_LOAD:
		return quire_mlp_load(image, len, net);
	case QUIRE_MLP_OP_SCORE:
		return quire_mlp_score(net, c, features, feasible, scores, choice);
	default:
		return QUIRE_ERR_OPCODE;
	}
}

#if !QUIRE_HLS_OPENCL
int quire_mlp_top(uint32_t op, uint32_t len, uint32_t c, const uint8_t *image,
		  const int8_t *features, const uint8_t *feasible, int32_t *scores,
		  uint32_t *choice)
{
#pragma HLS INTERFACE m_axi port = image offset = slave bundle = gmem0
#pragma HLS INTERFACE m_axi port = features offset = slave bundle = gmem0
#pragma HLS INTERFACE m_axi port = feasible offset = slave bundle = gmem1
#pragma HLS INTERFACE m_axi port = scores offset = slave bundle = gmem1
#pragma HLS INTERFACE m_axi port = choice offset = slave bundle = gmem1
#pragma HLS INTERFACE s_axilite port = op
#pragma HLS INTERFACE s_axilite port = len
#pragma HLS INTERFACE s_axilite port = c
#pragma HLS INTERFACE s_axilite port = return
	/* On-chip weight memory: kept between LOAD and SCORE calls, as BRAM is. */
	static struct quire_mlp_net net;
#pragma HLS ARRAY_PARTITION variable = net.weight cyclic factor = 64 dim = 3
	return quire_mlp_run(&net, op, len, c, image, features, feasible, scores, choice);
}
#endif
