// SPDX-License-Identifier: MIT
/*
 * The descriptor rules (quire/validate.h): every field of every descriptor, checked
 * before anything moves, and the bytes each of its host buffers spans. A descriptor
 * that breaks a rule gets a status and the field at fault.
 */
#include "quire/validate.h"
#include "quire/format.h"
#include "quire/mlp.h"
#include "quire/status.h"

uint32_t quire_format_elem_bytes(uint32_t fmt)
{
	switch (fmt) {
	case QUIRE_FMT_INT64:
		return 8;
	case QUIRE_FMT_FP32:
	case QUIRE_FMT_INT32:
		return 4;
	case QUIRE_FMT_FP16:
	case QUIRE_FMT_BFP16:
	case QUIRE_FMT_INT16:
		return 2;
	case QUIRE_FMT_BFP8:
	case QUIRE_FMT_INT8:
		return 1;
	default:
		return 0;
	}
}

/* Alignment a buffer of this format needs (1 for formats without an element size). */
static uint32_t elem_align(uint32_t fmt)
{
	uint32_t b = quire_format_elem_bytes(fmt);
	return b ? b : 1;
}

struct check {
	int status;
	uint32_t detail;
};

static int fail(struct check *c, int status, uint32_t detail)
{
	if (c->status == QUIRE_OK) {
		c->status = status;
		c->detail = detail;
	}
	return 0;
}

/* A host buffer of `bytes` at `addr`: present, aligned, not wrapping around. */
static int need_addr(struct check *c, uint64_t addr, uint64_t bytes, uint32_t align,
		     uint32_t detail)
{
	if (addr == 0)
		return fail(c, QUIRE_ERR_INVALID, detail);
	if (addr & (align - 1))
		return fail(c, QUIRE_ERR_ALIGN, detail);
	if (addr + bytes < addr)
		return fail(c, QUIRE_ERR_RANGE, detail);
	return 1;
}

static int unused(struct check *c, uint64_t field, uint32_t detail)
{
	return field == 0 ? 1 : fail(c, QUIRE_ERR_INVALID, detail);
}

/*
 * A descriptor's fields in host order. The descriptor is little-endian (quire/cmd.h); the
 * rules read this copy, taken once, so each field is converted in one place.
 */
struct fields {
	uint8_t opcode, flags;
	uint16_t format, val_format, workers;
	uint32_t count;
	uint64_t src, dst, exp, aux, stride;
	uint32_t reserved[2];
};

static void unpack(struct fields *f, const struct quire_cmd *d)
{
	f->opcode = d->opcode;
	f->flags = d->flags;
	f->format = quire_le16_to_cpu(d->format);
	f->val_format = quire_le16_to_cpu(d->val_format);
	f->workers = quire_le16_to_cpu(d->workers);
	f->count = quire_le32_to_cpu(d->count);
	f->src = quire_le64_to_cpu(d->src);
	f->dst = quire_le64_to_cpu(d->dst);
	f->exp = quire_le64_to_cpu(d->exp);
	f->aux = quire_le64_to_cpu(d->aux);
	f->stride = quire_le64_to_cpu(d->stride);
	f->reserved[0] = quire_le32_to_cpu(d->reserved[0]);
	f->reserved[1] = quire_le32_to_cpu(d->reserved[1]);
}

/* Do two buffers of `bytes` each share a byte? (Both are checked not to wrap.) */
static int overlaps(uint64_t a, uint64_t b, uint64_t bytes)
{
	return a < b + bytes && b < a + bytes;
}

/* [a, a + na) and [b, b + nb) share a byte. */
static int spans_meet(uint64_t a, uint64_t na, uint64_t b, uint64_t nb)
{
	return a < b + nb && b < a + na;
}

static int is_codec_format(uint32_t fmt)
{
	return fmt == QUIRE_FMT_FP16 || fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16;
}

/*
 * EXPONENTS, ENCODE and DECODE: what a command writes shares no byte with what it reads,
 * nor with another of its outputs. A card moves a long vector in chunks, its transfers in,
 * its engine and its transfers out overlapped, so an output written over an input would
 * give results that depend on timing. Only the residual (EF) is read and written in place,
 * by design: each element's new residual replaces its own old one. Checked once the fields
 * are valid (the sizes below assume a valid format and count); a buffer of 0 bytes here is
 * an unused field, address 0, which meets nothing.
 */
static void check_codec_overlap(struct check *c, const struct fields *d)
{
	uint64_t n = d->count, blocks = (n + QUIRE_BFP_BLOCK - 1) / QUIRE_BFP_BLOCK;
	int bfp = d->format == QUIRE_FMT_BFP8 || d->format == QUIRE_FMT_BFP16;
	uint64_t aux = d->flags & QUIRE_CMD_F_EF ? 4 * n : 0, exp = bfp ? blocks : 0;
	if (d->opcode == QUIRE_OPC_DECODE) {
		uint64_t src = n * quire_format_elem_bytes(d->val_format), dst = 4 * n;
		if (spans_meet(d->dst, dst, d->src, src) || spans_meet(d->dst, dst, d->exp, exp))
			fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_DST);
		return;
	}
	uint64_t src = 4 * n,
		 dst = d->opcode == QUIRE_OPC_ENCODE ? n * quire_format_elem_bytes(d->format) : 0;
	if (spans_meet(d->dst, dst, d->src, src) || spans_meet(d->dst, dst, d->exp, exp) ||
	    spans_meet(d->dst, dst, d->aux, aux))
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_DST);
	/* exp: an input of ENCODE with SHARED_EXP, an output otherwise; either way apart from x
	 * and the residual (an output over an input, or an input rewritten by the residual). */
	if (spans_meet(d->exp, exp, d->src, src) || spans_meet(d->exp, exp, d->aux, aux))
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_EXP);
}

/*
 * REDUCE: dst shares no byte with any of the W inputs (src + k * stride, vec bytes each;
 * a dst in the gap between two inputs is apart from both), for the reason ENCODE's is.
 * Input by input, W at most QUIRE_CMD_MAX_WORKERS: the card's core has no 64-bit divide.
 */
static void check_reduce_overlap(struct check *c, const struct fields *d, uint64_t vec,
				 uint64_t out)
{
	for (uint32_t k = 0; k < d->workers; k++)
		if (spans_meet(d->src + k * d->stride, vec, d->dst, out)) {
			fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_DST);
			return;
		}
}

static void check_codec(struct check *c, const struct fields *d)
{
	uint32_t n = d->count, blocks = (n + QUIRE_BFP_BLOCK - 1) / QUIRE_BFP_BLOCK;
	int bfp = d->format == QUIRE_FMT_BFP8 || d->format == QUIRE_FMT_BFP16;
	int ef = d->flags & QUIRE_CMD_F_EF;
	switch (d->opcode) {
	case QUIRE_OPC_EXPONENTS:
		if (!bfp)
			fail(c, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT);
		if (d->flags & ~QUIRE_CMD_F_EF)
			fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
		need_addr(c, d->src, 4ull * n, 4, QUIRE_DETAIL_SRC);
		need_addr(c, d->exp, blocks, 1, QUIRE_DETAIL_EXP);
		unused(c, d->dst, QUIRE_DETAIL_DST);
		break;
	case QUIRE_OPC_ENCODE:
		if (!is_codec_format(d->format))
			fail(c, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT);
		else if (d->flags & ~(bfp ? QUIRE_CMD_F_EF | QUIRE_CMD_F_SHARED_EXP : 0u))
			fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
		need_addr(c, d->src, 4ull * n, 4, QUIRE_DETAIL_SRC);
		need_addr(c, d->dst, (uint64_t)n * quire_format_elem_bytes(d->format),
			  elem_align(d->format), QUIRE_DETAIL_DST);
		if (bfp)
			need_addr(c, d->exp, blocks, 1, QUIRE_DETAIL_EXP);
		else
			unused(c, d->exp, QUIRE_DETAIL_EXP);
		break;
	default: /* DECODE */
		if (!is_codec_format(d->format)) {
			fail(c, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT);
		} else if (bfp ? d->val_format != QUIRE_FMT_INT8 &&
				     d->val_format != QUIRE_FMT_INT16 &&
				     d->val_format != QUIRE_FMT_INT32
			       : d->val_format != QUIRE_FMT_FP16) {
			fail(c, QUIRE_ERR_FORMAT, QUIRE_DETAIL_VAL_FORMAT);
		}
		if (d->flags)
			fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
		if (d->workers > QUIRE_CMD_MAX_WORKERS)
			fail(c, QUIRE_ERR_RANGE, QUIRE_DETAIL_WORKERS);
		need_addr(c, d->src, (uint64_t)n * quire_format_elem_bytes(d->val_format),
			  elem_align(d->val_format), QUIRE_DETAIL_SRC);
		need_addr(c, d->dst, 4ull * n, 4, QUIRE_DETAIL_DST);
		if (bfp)
			need_addr(c, d->exp, blocks, 1, QUIRE_DETAIL_EXP);
		else
			unused(c, d->exp, QUIRE_DETAIL_EXP);
		break;
	}
	if (d->opcode != QUIRE_OPC_DECODE) {
		unused(c, d->val_format, QUIRE_DETAIL_VAL_FORMAT);
		unused(c, d->workers, QUIRE_DETAIL_WORKERS);
	}
	if (ef)
		need_addr(c, d->aux, 4ull * n, 4, QUIRE_DETAIL_AUX);
	else
		unused(c, d->aux, QUIRE_DETAIL_AUX);
	if (n == 0 || n > QUIRE_CMD_MAX_ELEMS)
		fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT);
	unused(c, d->stride, QUIRE_DETAIL_STRIDE);
	if (c->status == QUIRE_OK)
		check_codec_overlap(c, d);
}

static void check_reduce(struct check *c, const struct fields *d)
{
	uint32_t in_b = quire_format_elem_bytes(d->val_format),
		 acc_b = quire_format_elem_bytes(d->format);
	int int_in = d->val_format == QUIRE_FMT_INT8 || d->val_format == QUIRE_FMT_INT16 ||
		     d->val_format == QUIRE_FMT_INT32;
	int fp_in = d->val_format == QUIRE_FMT_FP16 || d->val_format == QUIRE_FMT_FP32;
	if (!int_in && !fp_in)
		fail(c, QUIRE_ERR_FORMAT, QUIRE_DETAIL_VAL_FORMAT);
	else if (int_in ? d->format != QUIRE_FMT_INT16 && d->format != QUIRE_FMT_INT32
			: d->format != QUIRE_FMT_FP32)
		fail(c, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT);
	if (d->flags)
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
	if (d->count == 0 || d->count > QUIRE_CMD_MAX_ELEMS)
		fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT);
	if (d->workers < 1 || d->workers > QUIRE_CMD_MAX_WORKERS)
		fail(c, QUIRE_ERR_RANGE, QUIRE_DETAIL_WORKERS);
	uint64_t vec = (uint64_t)d->count * in_b;
	/* in_b is a power of two (quire_format_elem_bytes), or 0 */
	if (d->workers > 1 && (d->stride < vec || (in_b && (d->stride & (in_b - 1)))))
		fail(c, d->stride < vec ? QUIRE_ERR_SIZE : QUIRE_ERR_ALIGN, QUIRE_DETAIL_STRIDE);
	if (d->workers <= 1)
		unused(c, d->stride, QUIRE_DETAIL_STRIDE);
	uint64_t span = d->workers > 1 ? d->stride * (d->workers - 1) + vec : vec;
	if (d->stride >> 40) /* 1 TiB between inputs is surely a mistake, and would overflow */
		fail(c, QUIRE_ERR_RANGE, QUIRE_DETAIL_STRIDE);
	else
		need_addr(c, d->src, span, elem_align(d->val_format), QUIRE_DETAIL_SRC);
	need_addr(c, d->dst, (uint64_t)d->count * acc_b, elem_align(d->format), QUIRE_DETAIL_DST);
	unused(c, d->exp, QUIRE_DETAIL_EXP);
	unused(c, d->aux, QUIRE_DETAIL_AUX);
	if (c->status == QUIRE_OK)
		check_reduce_overlap(c, d, vec, (uint64_t)d->count * acc_b);
}

static void check_mlp(struct check *c, const struct fields *d)
{
	if (d->flags)
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
	unused(c, d->format, QUIRE_DETAIL_FORMAT);
	unused(c, d->val_format, QUIRE_DETAIL_VAL_FORMAT);
	unused(c, d->workers, QUIRE_DETAIL_WORKERS);
	unused(c, d->stride, QUIRE_DETAIL_STRIDE);
	unused(c, d->exp, QUIRE_DETAIL_EXP);
	if (d->opcode == QUIRE_OPC_MLP_LOAD) {
		if (d->count < QUIRE_MLP_HEADER_BYTES || d->count > QUIRE_MLP_MAX_IMAGE_BYTES)
			fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT);
		need_addr(c, d->src, d->count, 4, QUIRE_DETAIL_SRC);
		unused(c, d->dst, QUIRE_DETAIL_DST);
		unused(c, d->aux, QUIRE_DETAIL_AUX);
		return;
	}
	if (d->count == 0 || d->count > QUIRE_MLP_MAX_CANDIDATES)
		fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT);
	/* The features' length depends on the loaded model: the DMA mover bounds it. */
	need_addr(c, d->src, (uint64_t)d->count * QUIRE_MLP_MAX_WIDTH, 1, QUIRE_DETAIL_SRC);
	need_addr(c, d->dst, 4ull * d->count, 4, QUIRE_DETAIL_DST);
	need_addr(c, d->aux, d->count, 1, QUIRE_DETAIL_AUX);
}

/* ALLGATHER and BROADCAST: bytes, no arithmetic. */
static void check_bytes(struct check *c, const struct fields *d)
{
	if (d->flags)
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
	unused(c, d->format, QUIRE_DETAIL_FORMAT);
	unused(c, d->exp, QUIRE_DETAIL_EXP);
	unused(c, d->aux, QUIRE_DETAIL_AUX);
	if (d->count == 0 || d->count > QUIRE_CMD_MAX_ELEMS)
		fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT);
	if (d->opcode == QUIRE_OPC_BROADCAST) {
		if (d->stride >= QUIRE_CMD_MAX_WORKERS) /* the root's rank */
			fail(c, QUIRE_ERR_RANGE, QUIRE_DETAIL_STRIDE);
		unused(c, d->src, QUIRE_DETAIL_SRC);
		need_addr(c, d->dst, d->count, 1, QUIRE_DETAIL_DST);
		return;
	}
	/* stride: every member's bytes, members x count (the card checks its member count) */
	if (d->count && (d->stride % d->count || d->stride / d->count == 0 ||
			 d->stride / d->count > QUIRE_CMD_MAX_WORKERS))
		fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_STRIDE);
	need_addr(c, d->src, d->count, 1, QUIRE_DETAIL_SRC);
	need_addr(c, d->dst, d->stride, 1, QUIRE_DETAIL_DST);
	if (overlaps(d->src, d->dst, d->count) || (d->src >= d->dst && d->src < d->dst + d->stride))
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_SRC);
}

static void check_collective(struct check *c, const struct fields *d)
{
	if (d->workers == 0)
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_WORKERS); /* communicator ids start at 1 */
	unused(c, d->val_format, QUIRE_DETAIL_VAL_FORMAT);
	if (d->opcode == QUIRE_OPC_ALLGATHER || d->opcode == QUIRE_OPC_BROADCAST) {
		check_bytes(c, d);
		return;
	}
	int rs = d->opcode == QUIRE_OPC_REDUCE_SCATTER;
	int rq = d->opcode == QUIRE_OPC_ALLREDUCE && (d->flags & QUIRE_CMD_F_REQUANT);
	if (!rs && !rq)
		unused(c, d->stride, QUIRE_DETAIL_STRIDE);
	if (d->opcode != QUIRE_OPC_ALLREDUCE && !rs) {
		if (d->flags)
			fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
		unused(c, d->format, QUIRE_DETAIL_FORMAT);
		unused(c, d->count, QUIRE_DETAIL_COUNT);
		unused(c, d->src, QUIRE_DETAIL_SRC);
		unused(c, d->dst, QUIRE_DETAIL_DST);
		unused(c, d->exp, QUIRE_DETAIL_EXP);
		unused(c, d->aux, QUIRE_DETAIL_AUX);
		return;
	}
	int bfp = d->format == QUIRE_FMT_BFP8 || d->format == QUIRE_FMT_BFP16;
	int ef = d->flags & QUIRE_CMD_F_EF;
	if (!bfp && d->format != QUIRE_FMT_FP16 && d->format != QUIRE_FMT_FP32 &&
	    d->format != QUIRE_FMT_INT32)
		fail(c, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT);
	else if (d->flags & QUIRE_CMD_F_SHARED_EXP || (ef && !bfp) ||
		 (d->flags & QUIRE_CMD_F_MEAN && d->format == QUIRE_FMT_INT32) ||
		 (d->flags & QUIRE_CMD_F_REQUANT && (!bfp || rs)))
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
	if (d->count == 0 || d->count > QUIRE_CMD_MAX_ELEMS)
		fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT);
	if ((rs || rq) && d->stride > d->count)
		fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_STRIDE);
	uint64_t bytes = 4ull * d->count, out = rs ? 4 * d->stride : bytes;
	/* The residuals: the worker's, then with REQUANT the owner's of its segment. */
	uint64_t res = rq ? bytes + 4 * d->stride : bytes;
	need_addr(c, d->src, bytes, 4, QUIRE_DETAIL_SRC);
	need_addr(c, d->dst, out, 4, QUIRE_DETAIL_DST);
	if (ef) {
		need_addr(c, d->aux, res, 4, QUIRE_DETAIL_AUX);
		need_addr(c, d->exp, res, 4, QUIRE_DETAIL_EXP);
		/* The new residual must not overwrite the old one or the input before they are
		 * read: a failed collective leaves the caller's state as it was. */
		if (overlaps(d->exp, d->aux, res) || spans_meet(d->exp, res, d->src, bytes) ||
		    spans_meet(d->exp, res, d->dst, out))
			fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_EXP);
		if (spans_meet(d->dst, out, d->aux, res))
			fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_DST);
	} else {
		unused(c, d->aux, QUIRE_DETAIL_AUX);
		unused(c, d->exp, QUIRE_DETAIL_EXP);
	}
}

static void check_comm_init(struct check *c, const struct fields *d)
{
	if (d->flags)
		fail(c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
	if (d->count < QUIRE_COMM_DESC_BYTES(1) ||
	    d->count > QUIRE_COMM_DESC_BYTES(QUIRE_CMD_MAX_WORKERS))
		fail(c, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT);
	need_addr(c, d->src, d->count, 4, QUIRE_DETAIL_SRC);
	unused(c, d->format, QUIRE_DETAIL_FORMAT);
	unused(c, d->val_format, QUIRE_DETAIL_VAL_FORMAT);
	unused(c, d->workers, QUIRE_DETAIL_WORKERS); /* the id is in the descriptor it reads */
	unused(c, d->dst, QUIRE_DETAIL_DST);
	unused(c, d->exp, QUIRE_DETAIL_EXP);
	unused(c, d->aux, QUIRE_DETAIL_AUX);
	unused(c, d->stride, QUIRE_DETAIL_STRIDE);
}

int quire_cmd_validate(const struct quire_cmd *cmd, uint32_t *detail)
{
	struct check c = {QUIRE_OK, QUIRE_DETAIL_NONE};
	struct fields f, *d = &f;
	unpack(&f, cmd);
	if (d->reserved[0] || d->reserved[1])
		fail(&c, QUIRE_ERR_INVALID, QUIRE_DETAIL_RESERVED);
	if (d->flags & ~QUIRE_CMD_F_MASK)
		fail(&c, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS);
	switch (d->opcode) {
	case QUIRE_OPC_NOP:
	case QUIRE_OPC_INFO:
		if (d->flags || d->format || d->count || d->val_format || d->workers || d->src ||
		    d->exp || d->aux || d->stride)
			fail(&c, QUIRE_ERR_INVALID, QUIRE_DETAIL_RESERVED);
		if (d->opcode == QUIRE_OPC_INFO)
			need_addr(&c, d->dst, sizeof(struct quire_card_info), 8, QUIRE_DETAIL_DST);
		else
			unused(&c, d->dst, QUIRE_DETAIL_DST);
		break;
	case QUIRE_OPC_EXPONENTS:
	case QUIRE_OPC_ENCODE:
	case QUIRE_OPC_DECODE:
		check_codec(&c, d);
		break;
	case QUIRE_OPC_REDUCE:
		check_reduce(&c, d);
		break;
	case QUIRE_OPC_MLP_LOAD:
	case QUIRE_OPC_MLP_SCORE:
		check_mlp(&c, d);
		break;
	case QUIRE_OPC_COMM_INIT:
		check_comm_init(&c, d);
		break;
	case QUIRE_OPC_COMM_FREE:
	case QUIRE_OPC_ALLREDUCE:
	case QUIRE_OPC_BARRIER:
	case QUIRE_OPC_REDUCE_SCATTER:
	case QUIRE_OPC_ALLGATHER:
	case QUIRE_OPC_BROADCAST:
		check_collective(&c, d);
		break;
	default:
		fail(&c, QUIRE_ERR_OPCODE, QUIRE_DETAIL_OPCODE);
	}
	*detail = c.detail;
	return c.status;
}

void quire_cmd_extents(const struct quire_cmd *cmd, uint32_t mlp_width0, uint64_t ext[4])
{
	struct fields f, *d = &f;
	unpack(&f, cmd);
	uint64_t n = d->count, blocks = (n + QUIRE_BFP_BLOCK - 1) / QUIRE_BFP_BLOCK;
	int bfp = d->format == QUIRE_FMT_BFP8 || d->format == QUIRE_FMT_BFP16;
	int ef = d->flags & QUIRE_CMD_F_EF;
	ext[0] = ext[1] = ext[2] = ext[3] = 0;
	switch (d->opcode) {
	case QUIRE_OPC_INFO:
		ext[1] = sizeof(struct quire_card_info);
		break;
	case QUIRE_OPC_EXPONENTS:
	case QUIRE_OPC_ENCODE:
		ext[0] = 4 * n;
		ext[1] = d->opcode == QUIRE_OPC_ENCODE ? n * quire_format_elem_bytes(d->format) : 0;
		ext[2] = bfp ? blocks : 0;
		ext[3] = ef ? 4 * n : 0;
		break;
	case QUIRE_OPC_DECODE:
		ext[0] = n * quire_format_elem_bytes(d->val_format);
		ext[1] = 4 * n;
		ext[2] = bfp ? blocks : 0;
		break;
	case QUIRE_OPC_REDUCE: {
		uint64_t vec = n * quire_format_elem_bytes(d->val_format);
		ext[0] = d->workers > 1 ? d->stride * (d->workers - 1u) + vec : vec;
		ext[1] = n * quire_format_elem_bytes(d->format);
		break;
	}
	case QUIRE_OPC_MLP_LOAD:
		ext[0] = n;
		break;
	case QUIRE_OPC_MLP_SCORE:
		ext[0] = n * mlp_width0;
		ext[1] = 4 * n;
		ext[3] = n;
		break;
	case QUIRE_OPC_COMM_INIT:
		ext[0] = n;
		break;
	case QUIRE_OPC_ALLREDUCE:
	case QUIRE_OPC_REDUCE_SCATTER:
		ext[0] = 4 * n;
		ext[1] = d->opcode == QUIRE_OPC_REDUCE_SCATTER ? 4 * d->stride : 4 * n;
		ext[2] = ext[3] = !ef                              ? 0
				  : d->flags & QUIRE_CMD_F_REQUANT ? 4 * (n + d->stride)
								   : 4 * n;
		break;
	case QUIRE_OPC_ALLGATHER:
		ext[0] = n;
		ext[1] = d->stride;
		break;
	case QUIRE_OPC_BROADCAST:
		ext[1] = n;
		break;
	default:
		break;
	}
}
