// SPDX-License-Identifier: MIT
/*
 * Encoded tensor files (docs/codec-file.md): a 32-byte little-endian header,
 * then the block exponents (BFP only), then the values. The payload carries
 * CRC-32 over header and payload, so a damaged file is refused instead of decoded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "quire.h"

#define FILE_MAGIC   "QUIRETNS"
#define FILE_VERSION 1u
#define HEADER_BYTES 32u
#define MAX_ELEMS    (UINT64_C(1) << 40)

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static size_t exp_bytes(const struct quire_encoded *e)
{
	return e->format == QUIRE_FMT_FP16 ? 0 : QUIRE_BFP_BLOCKS(e->n);
}

/* The value format of a file of this format and worker count: an encoding's own, or the
 * integer width quire sums W encodings in (as the cards do, docs/collectives.md). */
static enum quire_format values_format(enum quire_format format, uint32_t workers)
{
	if (format == QUIRE_FMT_BFP8 && workers == 1)
		return QUIRE_FMT_INT8;
	if (format == QUIRE_FMT_BFP8 && workers <= QUIRE_BFP8_INT16_MAX_WORKERS)
		return QUIRE_FMT_INT16;
	if (format == QUIRE_FMT_BFP16)
		return workers == 1 ? QUIRE_FMT_INT16 : QUIRE_FMT_INT32;
	return format == QUIRE_FMT_BFP8 ? QUIRE_FMT_INT32 : QUIRE_FMT_FP16;
}

QUIRE_STATIC_ASSERT(QUIRE_MAX_WORKERS == 1024, "the message below says 1024");

/* What the writer may write and the reader takes, one rule for both: NULL, or the
 * field at fault, as docs/codec-file.md names it. */
static const char *header_fault(const struct quire_encoded *e)
{
	if (e->format != QUIRE_FMT_FP16 && e->format != QUIRE_FMT_BFP8 &&
	    e->format != QUIRE_FMT_BFP16)
		return "format: not fp16, bfp8 or bfp16";
	if (e->n == 0)
		return "n: no elements";
	if (e->n > MAX_ELEMS)
		return "n: above 2^40";
	if (e->workers < 1 || e->workers > QUIRE_MAX_WORKERS)
		return "workers: not 1 to 1024";
	if (e->format == QUIRE_FMT_FP16 && e->workers != 1)
		return "workers: an fp16 file holds one encoding, never a sum";
	if (e->val_format != values_format(e->format, e->workers))
		return "value format: not the one its format and workers imply";
	return NULL;
}

/* CRC-32 of the header's first 28 bytes and the payload: any damaged byte is caught. */
static uint32_t file_crc(const uint8_t *header, const struct quire_encoded *e, size_t vbytes)
{
	uLong crc = crc32(crc32(0L, Z_NULL, 0), header, HEADER_BYTES - 4);
	size_t eb = exp_bytes(e);
	/* zlib takes uInt lengths: feed it in pieces. */
	for (size_t i = 0; i < eb; i += 1u << 30)
		crc = crc32(crc, (const Bytef *)e->exp + i,
			    (uInt)(eb - i < 1u << 30 ? eb - i : 1u << 30));
	for (size_t i = 0; i < vbytes; i += 1u << 30)
		crc = crc32(crc, (const Bytef *)e->vals + i,
			    (uInt)(vbytes - i < 1u << 30 ? vbytes - i : 1u << 30));
	return (uint32_t)crc;
}

int quire_encoded_write(const char *path, const struct quire_encoded *e)
{
	if (!path || !e || header_fault(e) || !e->vals || (exp_bytes(e) && !e->exp))
		return QUIRE_ERR_INVALID;
	size_t vbytes = quire_format_bytes(e->val_format, e->n);
	uint8_t h[HEADER_BYTES] = {0};
	memcpy(h, FILE_MAGIC, 8);
	put16(h + 8, FILE_VERSION);
	put16(h + 10, (uint16_t)e->format);
	put16(h + 12, (uint16_t)e->val_format);
	put16(h + 14, e->format == QUIRE_FMT_FP16 ? 0 : QUIRE_BFP_BLOCK);
	put32(h + 16, (uint32_t)e->n);
	put32(h + 20, (uint32_t)(e->n >> 32));
	put32(h + 24, e->workers);
	put32(h + 28, file_crc(h, e, vbytes));
	FILE *f = fopen(path, "wb");
	if (!f)
		return QUIRE_ERR_IO;
	int ok = fwrite(h, 1, sizeof(h), f) == sizeof(h) &&
		 fwrite(e->exp ? (const void *)e->exp : "", 1, exp_bytes(e), f) == exp_bytes(e) &&
		 fwrite(e->vals ? e->vals : "", 1, vbytes, f) == vbytes;
	int saved = errno;
	if (fclose(f) != 0)
		ok = 0;
	errno = saved;
	return ok ? QUIRE_OK : QUIRE_ERR_IO;
}

/* quire_encoded_read, saying in *fault what is wrong with a file it refuses. */
static int read_encoded(const char *path, struct quire_encoded *e, const char **fault)
{
	*fault = NULL;
	if (!path || !e)
		return QUIRE_ERR_INVALID;
	memset(e, 0, sizeof(*e));
	FILE *f = fopen(path, "rb");
	if (!f)
		return QUIRE_ERR_IO;
	int st = QUIRE_ERR_CORRUPT;
	struct stat sb;
	uint8_t h[HEADER_BYTES];
	if (fstat(fileno(f), &sb) != 0) {
		st = QUIRE_ERR_IO;
		goto out;
	}
	if (fread(h, 1, sizeof(h), f) != sizeof(h)) {
		*fault = "header: the file is shorter than one";
		goto out;
	}
	if (memcmp(h, FILE_MAGIC, 8) != 0) {
		*fault = "magic: not " FILE_MAGIC;
		goto out;
	}
	if (get16(h + 8) != FILE_VERSION) {
		*fault = "version: not 1, the one this library reads";
		st = QUIRE_ERR_VERSION;
		goto out;
	}
	e->format = get16(h + 10);
	e->val_format = get16(h + 12);
	e->n = get32(h + 16) | (uint64_t)get32(h + 20) << 32;
	e->workers = get32(h + 24);
	if ((*fault = header_fault(e)) != NULL)
		goto out;
	if (get16(h + 14) != (e->format == QUIRE_FMT_FP16 ? 0 : QUIRE_BFP_BLOCK)) {
		*fault = "block size: not its format's (64 for bfp, 0 for fp16)";
		goto out;
	}
	size_t eb = exp_bytes(e), vbytes = quire_format_bytes(e->val_format, e->n);
	if ((uint64_t)sb.st_size != HEADER_BYTES + eb + vbytes) {
		*fault = "file size: not what the header implies";
		goto out;
	}
	e->exp = eb ? malloc(eb) : NULL;
	e->vals = malloc(vbytes);
	if ((eb && !e->exp) || !e->vals) {
		st = QUIRE_ERR_NOMEM;
		goto out;
	}
	if (fread(e->exp ? (void *)e->exp : h, 1, eb, f) != eb ||
	    fread(e->vals, 1, vbytes, f) != vbytes) {
		*fault = "file size: shorter than it was a moment ago";
		goto out;
	}
	if (file_crc(h, e, vbytes) != get32(h + 28)) {
		*fault = "CRC-32: the header or the payload is damaged";
		goto out;
	}
	for (size_t b = 0; b < eb; b++)
		if (e->exp[b] < QUIRE_BFP_EXP_ZERO) {
			*fault = "block exponents: one below -126";
			goto out;
		}
	st = QUIRE_OK;
out:
	fclose(f);
	if (st != QUIRE_OK)
		quire_encoded_free(e);
	return st;
}

int quire_encoded_read(const char *path, struct quire_encoded *e)
{
	const char *fault;
	return read_encoded(path, e, &fault);
}

const char *quire_encoded_fault(const char *path)
{
	struct quire_encoded e;
	const char *fault;
	if (read_encoded(path, &e, &fault) == QUIRE_OK)
		quire_encoded_free(&e);
	return fault;
}

void quire_encoded_free(struct quire_encoded *e)
{
	if (!e)
		return;
	free(e->exp);
	free(e->vals);
	e->exp = NULL;
	e->vals = NULL;
}
