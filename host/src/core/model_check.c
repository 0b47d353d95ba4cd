// SPDX-License-Identifier: MIT
/*
 * Model images as libquire checks them before a card sees them (quire_model_check,
 * quire_model_read; docs/sched-api.md): the card's own loader (hls/mlp.c) decides, and a
 * walk of the image in the loader's order says where and why. No context needed: the
 * fuzzer (tests/fuzz/fuzz_model.c) links this file alone.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quire.h"
#include "hls/crc32.h"
#include "hls/mlp.h"

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

static int why_at(char *why, size_t whylen, size_t *offset, size_t at, int st, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int why_at(char *why, size_t whylen, size_t *offset, size_t at, int st, const char *fmt, ...)
{
	if (offset)
		*offset = at;
	if (why && whylen) {
		int n = snprintf(why, whylen, "offset %zu: ", at);
		va_list ap;
		va_start(ap, fmt);
		if (n >= 0 && (size_t)n < whylen)
			vsnprintf(why + n, whylen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return st;
}

static uint32_t pad4(uint32_t v)
{
	return (v + 3u) & ~3u;
}

/* Where and why the image is refused, walking it in the order quire_mlp_load checks it. */
static int find_fault(const uint8_t *img, size_t len, size_t *off, char *why, size_t wl)
{
	if (len < QUIRE_MLP_HEADER_BYTES)
		return why_at(why, wl, off, len, QUIRE_ERR_CORRUPT,
			      "truncated: %zu bytes, the header alone is %u", len,
			      QUIRE_MLP_HEADER_BYTES);
	if (rd32(img + QUIRE_MLP_HDR_MAGIC) != QUIRE_MLP_MAGIC)
		return why_at(why, wl, off, QUIRE_MLP_HDR_MAGIC, QUIRE_ERR_CORRUPT,
			      "magic 0x%08x, not \"QMLP\" (0x%08x): not a model image",
			      rd32(img + QUIRE_MLP_HDR_MAGIC), QUIRE_MLP_MAGIC);
	if (rd16(img + QUIRE_MLP_HDR_VERSION) != QUIRE_MLP_VERSION)
		return why_at(why, wl, off, QUIRE_MLP_HDR_VERSION, QUIRE_ERR_VERSION,
			      "version %u, this library reads %u",
			      rd16(img + QUIRE_MLP_HDR_VERSION), QUIRE_MLP_VERSION);
	if (rd16(img + QUIRE_MLP_HDR_FLAGS) != 0)
		return why_at(why, wl, off, QUIRE_MLP_HDR_FLAGS, QUIRE_ERR_CORRUPT,
			      "flags 0x%x, must be 0", rd16(img + QUIRE_MLP_HDR_FLAGS));
	if (rd32(img + QUIRE_MLP_HDR_RESERVED) != 0)
		return why_at(why, wl, off, QUIRE_MLP_HDR_RESERVED, QUIRE_ERR_CORRUPT,
			      "reserved word 0x%x, must be 0", rd32(img + QUIRE_MLP_HDR_RESERVED));
	uint32_t layers = rd16(img + QUIRE_MLP_HDR_LAYERS), width[QUIRE_MLP_MAX_LAYERS + 1];
	for (uint32_t l = 0; l <= QUIRE_MLP_MAX_LAYERS; l++)
		width[l] = rd16(img + QUIRE_MLP_HDR_WIDTH + 2 * l);
	if (layers < 1 || layers > QUIRE_MLP_MAX_LAYERS)
		return why_at(why, wl, off, QUIRE_MLP_HDR_LAYERS, QUIRE_ERR_SHAPE,
			      "%u layers, 1 to %u allowed", layers, QUIRE_MLP_MAX_LAYERS);
	if (width[layers] != 1)
		return why_at(why, wl, off, QUIRE_MLP_HDR_WIDTH + 2 * layers, QUIRE_ERR_SHAPE,
			      "output width n_%u = %u, must be 1", layers, width[layers]);
	for (uint32_t l = 0; l <= QUIRE_MLP_MAX_LAYERS; l++) {
		if (l < layers && (width[l] < 1 || width[l] > QUIRE_MLP_MAX_WIDTH))
			return why_at(why, wl, off, QUIRE_MLP_HDR_WIDTH + 2 * l, QUIRE_ERR_SHAPE,
				      "width n_%u = %u, 1 to %u allowed", l, width[l],
				      QUIRE_MLP_MAX_WIDTH);
		if (l > layers && width[l] != 0)
			return why_at(why, wl, off, QUIRE_MLP_HDR_WIDTH + 2 * l, QUIRE_ERR_SHAPE,
				      "width n_%u = %u past the %u layers, must be 0", l, width[l],
				      layers);
	}
	uint32_t bytes = quire_mlp_image_bytes(layers, width);
	uint32_t payload = rd32(img + QUIRE_MLP_HDR_PAYLOAD_BYTES);
	if (payload != bytes - QUIRE_MLP_HEADER_BYTES)
		return why_at(why, wl, off, QUIRE_MLP_HDR_PAYLOAD_BYTES, QUIRE_ERR_CORRUPT,
			      "payload of %u bytes, the shape needs %u", payload,
			      bytes - QUIRE_MLP_HEADER_BYTES);
	if (len < bytes)
		return why_at(why, wl, off, len, QUIRE_ERR_CORRUPT,
			      "truncated: the image ends here, its header says %u bytes", bytes);
	if (len > bytes)
		return why_at(why, wl, off, bytes, QUIRE_ERR_CORRUPT,
			      "%zu bytes after the end of the image (%u bytes)", len - bytes,
			      bytes);
	uint32_t crc = quire_crc32(0, img + QUIRE_MLP_HEADER_BYTES, payload);
	if (crc != rd32(img + QUIRE_MLP_HDR_PAYLOAD_CRC))
		return why_at(why, wl, off, QUIRE_MLP_HDR_PAYLOAD_CRC, QUIRE_ERR_CORRUPT,
			      "payload CRC-32 0x%08x in the header, the payload's is 0x%08x",
			      rd32(img + QUIRE_MLP_HDR_PAYLOAD_CRC), crc);
	size_t p = QUIRE_MLP_HEADER_BYTES;
	for (uint32_t l = 0; l < layers; l++) {
		uint32_t in = width[l], out = width[l + 1];
		p += pad4(in * out);
		for (uint32_t o = 0; o < out; o++) {
			int32_t b = (int32_t)rd32(img + p + 4 * o);
			if (b <= -QUIRE_MLP_BIAS_LIMIT || b >= QUIRE_MLP_BIAS_LIMIT)
				return why_at(why, wl, off, p + 4 * o, QUIRE_ERR_RANGE,
					      "layer %u bias[%u] = %d, |b| must be below 2^30", l,
					      o, b);
		}
		p += 4 * out;
		if (l + 1 == layers)
			break;
		for (uint32_t o = 0; o < out; o++) {
			int32_t m = (int32_t)rd32(img + p + 4 * o);
			uint32_t s = img[p + 4 * out + o];
			if (m < 0)
				return why_at(why, wl, off, p + 4 * o, QUIRE_ERR_RANGE,
					      "layer %u multiplier[%u] = %d, negative", l, o, m);
			if (s > QUIRE_MLP_MAX_SHIFT)
				return why_at(why, wl, off, p + 4 * out + o, QUIRE_ERR_RANGE,
					      "layer %u shift[%u] = %u, 0 to %u allowed", l, o, s,
					      QUIRE_MLP_MAX_SHIFT);
		}
		p += 4 * out + pad4(out);
	}
	return QUIRE_OK;
}

int quire_model_check(const void *image, size_t len, size_t *offset, char *why, size_t whylen)
{
	if (offset)
		*offset = 0;
	if (why && whylen)
		*why = 0;
	if (!image && len)
		return QUIRE_ERR_INVALID;
	if (len > QUIRE_MLP_MAX_IMAGE_BYTES)
		return why_at(why, whylen, offset, QUIRE_MLP_MAX_IMAGE_BYTES, QUIRE_ERR_SIZE,
			      "%zu bytes, a model image is at most %u", len,
			      QUIRE_MLP_MAX_IMAGE_BYTES);
	/* The engine's own loader decides (the same code the cards run); the walk above only
	 * says where. Should they ever disagree, that is a bug of this file: say so. */
	struct quire_mlp_net *net = malloc(sizeof(*net));
	if (!net)
		return QUIRE_ERR_NOMEM;
	int st = quire_mlp_load(image, (uint32_t)len, net);
	free(net);
	int found = find_fault(image, len, offset, why, whylen);
	if (found != st)
		return why_at(why, whylen, offset, 0, QUIRE_ERR_INTERNAL,
			      "the loader says %s, the check %s", quire_strerror(st),
			      quire_strerror(found));
	return st;
}

int quire_model_read(const char *path, void **image, size_t *len, char *why, size_t whylen)
{
	if (why && whylen)
		*why = 0;
	if (!path || !image || !len)
		return QUIRE_ERR_INVALID;
	*image = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		if (why && whylen)
			snprintf(why, whylen, "%s", strerror(e));
		errno = e;
		return QUIRE_ERR_IO;
	}
	/* One byte more than the largest image: a longer file is refused, never cut. */
	uint8_t *buf = malloc(QUIRE_MLP_MAX_IMAGE_BYTES + 1);
	if (!buf) {
		fclose(f);
		return QUIRE_ERR_NOMEM;
	}
	size_t n = fread(buf, 1, QUIRE_MLP_MAX_IMAGE_BYTES + 1, f);
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		free(buf);
		if (why && whylen)
			snprintf(why, whylen, "%s", strerror(err));
		errno = err;
		return QUIRE_ERR_IO;
	}
	int st = quire_model_check(buf, n, NULL, why, whylen);
	if (st != QUIRE_OK) {
		free(buf);
		return st;
	}
	*image = buf;
	*len = n;
	return QUIRE_OK;
}
