// SPDX-License-Identifier: MIT
/*
 * The requantized all-gather (QUIRE_COMM_OPT_REQUANT, docs/contract-bfp.md): the
 * communicator's options, the owner residual kept in a quire_ef after the tensor's own,
 * the owner's requantization and every rank's decode on the host's ring, and the wire
 * model with the option.
 */
#include <string.h>

#include "comm.h"

int quire_comm_set_options(struct quire_comm *c, unsigned options)
{
	if (!c || (options & ~QUIRE_COMM_OPT_REQUANT))
		return QUIRE_ERR_INVALID;
	c->options = options;
	return QUIRE_OK;
}

unsigned quire_comm_options(const struct quire_comm *c)
{
	return c ? c->options : 0;
}

int quire_comm_requant(const struct quire_comm *c, enum quire_format fmt)
{
	return (c->options & QUIRE_COMM_OPT_REQUANT) &&
	       (fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16);
}

/* *b holds at least `floats` fp32, its first `keep` kept. */
static int hold(struct quire_ef *ef, struct quire_buf **b, size_t keep, size_t floats)
{
	if (*b && (*b)->size >= floats * sizeof(float))
		return QUIRE_OK;
	struct quire_buf *nb;
	int st = quire_buf_alloc(ef->ctx, floats * sizeof(float), &nb);
	if (st)
		return st;
	if (*b && keep)
		memcpy(quire_buf_ptr(nb), quire_buf_ptr(*b), keep * sizeof(float));
	quire_buf_free(*b);
	*b = nb;
	return QUIRE_OK;
}

int quire_ef_hold_owner(struct quire_ef *ef, size_t len)
{
	if (len == ef->owner)
		return QUIRE_OK;
	int st = hold(ef, &ef->resid, ef->count, ef->count + len);
	if (!st && ef->next)
		st = hold(ef, &ef->next, 0, ef->count + len);
	if (st)
		return st;
	memset((float *)quire_buf_ptr(ef->resid) + ef->count, 0, len * sizeof(float)); /* +0.0 */
	ef->owner = len;
	return QUIRE_OK;
}

size_t quire_ef_owner_len(const struct quire_ef *ef)
{
	return ef ? ef->owner : 0;
}

int quire_ef_read_owner(const struct quire_ef *ef, float *dst, size_t count)
{
	if (!ef || !dst)
		return QUIRE_ERR_INVALID;
	if (count != ef->owner)
		return QUIRE_ERR_SIZE;
	memcpy(dst, (const float *)quire_buf_ptr(ef->resid) + ef->count, count * sizeof(float));
	return QUIRE_OK;
}

int quire_ef_write_owner(struct quire_ef *ef, const float *src, size_t count)
{
	if (!ef || (!src && count))
		return QUIRE_ERR_INVALID;
	int st = quire_ef_hold_owner(ef, count);
	if (!st && count)
		memcpy((float *)quire_buf_ptr(ef->resid) + ef->count, src, count * sizeof(float));
	return st;
}

size_t quire_ring_requant_bytes(enum quire_format fmt, size_t len)
{
	return quire_format_bytes(QUIRE_RING_VAL(fmt), len) + QUIRE_BFP_BLOCKS(len);
}

int quire_ring_requantize(enum quire_format fmt, enum quire_format fin, uint32_t mean_w, size_t len,
			  const void *sums, const int8_t *eg, float *own, float *tmp, void *out)
{
	int8_t *e = (int8_t *)out + quire_format_bytes(QUIRE_RING_VAL(fmt), len);
	int st = quire_codec_decode(fmt, fin, len, sums, eg, mean_w, tmp);
	return st ? st : quire_codec_encode(fmt, len, tmp, own, NULL, e, out);
}

int quire_ring_requant_decode(enum quire_format fmt, size_t len, const void *in, float *y)
{
	const int8_t *e = (const int8_t *)in + quire_format_bytes(QUIRE_RING_VAL(fmt), len);
	return quire_codec_decode(fmt, QUIRE_RING_VAL(fmt), len, in, e, 1, y);
}

uint64_t quire_allreduce_wire_bytes_opt(enum quire_format fmt, int size, size_t count,
					unsigned options)
{
	int bfp = fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16;
	if (!(options & QUIRE_COMM_OPT_REQUANT) || !bfp || size <= 1 || count == 0)
		return quire_allreduce_wire_bytes(fmt, size, count);
	/*
	 * As the exact ring (quire_allreduce_wire_bytes), but each of the W-1 all-gather steps
	 * moves every segment as the format's values and an exponent byte per block.
	 */
	uint64_t w = (uint64_t)size, n = count, blocks = QUIRE_BFP_BLOCKS(n);
	uint64_t first = quire_format_bytes(QUIRE_RING_VAL(fmt), 1);
	uint64_t part = quire_format_bytes(QUIRE_RING_PART(fmt, w), 1);
	uint64_t exps = 2 * (w - 1) * blocks, gathered = (w - 1) * (n * first + blocks);
	return (n * (first + (w - 2) * part) + gathered + exps) / w;
}
