// SPDX-License-Identifier: MIT
/*
 * The simulated card, driven as a driver drives it: register blocks walked,
 * rings in host memory, descriptors written by hand, straight past
 * libquire's checks. Malformed descriptors must complete with an error status
 * naming the field, and the card must then serve valid work correctly.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "test_util.h"
#include "hls/quant.h"
#include "sim/emu/emu.h"
#include "quire.h"
#include "quire/card.h"
#include "quire/format.h"
#include "quire/mlp.h"
#include "quire/regblock.h"
#include "quire/regs.h"

#define IOVA       0x200000000ull
#define HOST_BYTES (96u << 20)
#define CMD_RING   0x0
#define CPL_RING   0x10000
#define DATA       0x100000
#define NEW_RINGS  0x40000 /* test_next_host_untouched: the next host's rings, apart */

struct rig {
	struct quire_device *dev;
	uint8_t *host;
	uint32_t cmdq, cplq, id, counters;
	uint32_t log2, size, prod, cons, phase;
	uint64_t cmd_ring, cpl_ring; /* where the rings are in host memory: CMD_RING, CPL_RING */
};

static uint32_t rd(struct rig *r, uint32_t off)
{
	return r->dev->ops->mmio_read(r->dev, off);
}

static void wr(struct rig *r, uint32_t off, uint32_t v)
{
	r->dev->ops->mmio_write(r->dev, off, v);
}

static void enable(struct rig *r, uint32_t block, uint64_t base)
{
	wr(r, block + QUIRE_Q_BASE_LO, (uint32_t)base);
	wr(r, block + QUIRE_Q_BASE_HI, (uint32_t)(base >> 32));
	wr(r, block + QUIRE_Q_SIZE_LOG2, r->log2);
	wr(r, block + QUIRE_Q_CTRL, QUIRE_Q_CTRL_ENABLE);
}

static void rig_queues(struct rig *r, uint32_t log2)
{
	r->log2 = log2;
	r->size = 1u << log2;
	r->prod = r->cons = 0;
	r->phase = 1;
	memset(r->host + r->cmd_ring, 0, 0x10000);
	memset(r->host + r->cpl_ring, 0, 0x10000);
	enable(r, r->cplq, IOVA + r->cpl_ring);
	enable(r, r->cmdq, IOVA + r->cmd_ring);
	assert_int_equal(rd(r, r->cmdq + QUIRE_Q_STATUS), QUIRE_Q_STATUS_ENABLED);
}

static int rig_setup_cfg(void **state, const struct quire_emu_config *cfg)
{
	struct rig *r = calloc(1, sizeof(*r));
	r->cmd_ring = CMD_RING;
	r->cpl_ring = CPL_RING;
	r->dev = quire_emu_create(cfg);
	r->host = aligned_alloc(4096, HOST_BYTES);
	memset(r->host, 0, HOST_BYTES);
	assert_int_equal(r->dev->ops->attach_host(r->dev, r->host, IOVA, HOST_BYTES), QUIRE_OK);
	/* Walk the blocks as any consumer must (quire/regblock.h). */
	const struct quire_regblock_need need[] = {
	    {QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION, &r->id},
	    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, &r->cmdq},
	    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &r->cplq},
	    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION, &r->counters},
	};
	struct quire_regblock_chain chain;
	assert_int_equal(quire_regblock_walk(quire_device_read32, r->dev, &chain), QUIRE_OK);
	assert_int_equal(
	    quire_regblock_find_all(&chain, need, sizeof(need) / sizeof(need[0]), NULL), QUIRE_OK);
	for (int i = 0; i < 500 && rd(r, r->id + QUIRE_ID_FW_STATE) != QUIRE_FW_STATE_RUNNING; i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	assert_int_equal(rd(r, r->id + QUIRE_ID_FW_STATE), QUIRE_FW_STATE_RUNNING);
	rig_queues(r, 4);
	*state = r;
	return 0;
}

static int rig_setup(void **state)
{
	return rig_setup_cfg(state, NULL);
}

/* A card whose caps name only CODEC: the REDUCE and MLP engines are not its. */
static int rig_setup_codec_only(void **state)
{
	struct quire_emu_config cfg = {.caps_off = QUIRE_CAP_REDUCE | QUIRE_CAP_MLP};
	return rig_setup_cfg(state, &cfg);
}

static int rig_teardown(void **state)
{
	struct rig *r = *state;
	r->dev->ops->detach_host(r->dev);
	r->dev->ops->destroy(r->dev);
	free(r->host);
	free(r);
	return 0;
}

/* Write a descriptor into the next slot (no doorbell). */
static void put(struct rig *r, const struct quire_cmd *c)
{
	memcpy(r->host + r->cmd_ring + (r->prod & (r->size - 1)) * QUIRE_CMD_BYTES, c, sizeof(*c));
	r->prod++;
}

static void doorbell(struct rig *r)
{
	wr(r, r->cmdq + QUIRE_Q_PRODUCER, r->prod);
}

/* The next completion, waiting up to 5 s. */
static struct quire_cpl next_cpl(struct rig *r)
{
	struct quire_cpl *slot =
	    (struct quire_cpl *)(r->host + r->cpl_ring) + (r->cons & (r->size - 1));
	for (int i = 0; i < 5000; i++) {
		__le32 flags = (quire_force __le32)__atomic_load_n(
		    (const __u32 *)(const void *)&slot->flags, __ATOMIC_ACQUIRE);
		if ((quire_le32_to_cpu(flags) & QUIRE_CPL_F_PHASE) == r->phase) {
			struct quire_cpl c = *slot;
			if ((++r->cons & (r->size - 1)) == 0)
				r->phase ^= 1;
			wr(r, r->cplq + QUIRE_Q_CONSUMER, r->cons);
			return c;
		}
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	fail_msg("no completion within 5 s");
	return (struct quire_cpl){0};
}

static struct quire_cpl run(struct rig *r, const struct quire_cmd *c)
{
	put(r, c);
	doorbell(r);
	return next_cpl(r);
}

/* A valid bfp8 encode of 1000 known values; checks the card's answer against libquire's. */
static struct quire_cmd good_encode(struct rig *r, uint32_t seq)
{
	float *x = (float *)(r->host + DATA);
	struct rng g = {seq};
	fill_edge_gradients(&g, x, 1000, 1);
	return (struct quire_cmd){.opcode = QUIRE_OPC_ENCODE,
				  .format = quire_cpu_to_le16(QUIRE_FMT_BFP8),
				  .seq = quire_cpu_to_le32(seq),
				  .count = quire_cpu_to_le32(1000),
				  .src = quire_cpu_to_le64(IOVA + DATA),
				  .dst = quire_cpu_to_le64(IOVA + DATA + 0x10000),
				  .exp = quire_cpu_to_le64(IOVA + DATA + 0x20000)};
}

static void check_good_encode(struct rig *r, uint32_t seq)
{
	struct quire_cmd c = good_encode(r, seq);
	memset(r->host + DATA + 0x10000, 0x77, 0x20000);
	struct quire_cpl done = run(r, &c);
	assert_int_equal(quire_le32_to_cpu(done.seq), seq);
	assert_int_equal(quire_le16_to_cpu(done.status), QUIRE_OK);
	assert_int_equal(done.opcode, QUIRE_OPC_ENCODE);
	int8_t q[1000], e[16];
	assert_int_equal(
	    quire_codec_encode(QUIRE_FMT_BFP8, 1000, (float *)(r->host + DATA), NULL, NULL, e, q),
	    QUIRE_OK);
	assert_memory_equal(r->host + DATA + 0x10000, q, 1000);
	assert_memory_equal(r->host + DATA + 0x20000, e, 16);
}

/*
 * Commands for an engine the caps do not name complete QUIRE_ERR_NOT_SUPPORTED, detail
 * ENGINE, before anything moves (nothing written to the host), and the card goes on with
 * what it has (firmware/ops.c caps_needed).
 */
static void test_engines_not_in_caps(void **state)
{
	struct rig *r = *state;
	assert_int_equal(rd(r, r->id + QUIRE_ID_CAPS) & (QUIRE_CAP_REDUCE | QUIRE_CAP_MLP), 0);
	const uint64_t at = IOVA + DATA;
	struct quire_cmd cmds[] = {
	    {.opcode = QUIRE_OPC_REDUCE,
	     .seq = quire_cpu_to_le32(1),
	     .format = quire_cpu_to_le16(QUIRE_FMT_INT32),
	     .val_format = quire_cpu_to_le16(QUIRE_FMT_INT32),
	     .workers = quire_cpu_to_le16(1),
	     .count = quire_cpu_to_le32(64),
	     .src = quire_cpu_to_le64(at),
	     .dst = quire_cpu_to_le64(at + 0x10000)},
	    {.opcode = QUIRE_OPC_MLP_LOAD,
	     .seq = quire_cpu_to_le32(2),
	     .count = quire_cpu_to_le32(QUIRE_MLP_HEADER_BYTES),
	     .src = quire_cpu_to_le64(at)},
	    {.opcode = QUIRE_OPC_MLP_SCORE,
	     .seq = quire_cpu_to_le32(3),
	     .count = quire_cpu_to_le32(4),
	     .src = quire_cpu_to_le64(at),
	     .dst = quire_cpu_to_le64(at + 0x10000),
	     .aux = quire_cpu_to_le64(at + 0x20000)},
	};
	memset(r->host + DATA + 0x10000, 0x5a, 0x100);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct quire_cpl done = run(r, &cmds[i]);
		assert_int_equal(quire_le32_to_cpu(done.seq), quire_le32_to_cpu(cmds[i].seq));
		assert_int_equal(quire_le16_to_cpu(done.status), QUIRE_ERR_NOT_SUPPORTED);
		assert_int_equal(quire_le32_to_cpu(done.detail), QUIRE_DETAIL_ENGINE);
		assert_int_equal(done.opcode, cmds[i].opcode);
	}
	for (int i = 0; i < 0x100; i++)
		assert_int_equal(r->host[DATA + 0x10000 + i], 0x5a);
	check_good_encode(r, 4); /* CODEC is still this card's */
}

static void test_valid_work(void **state)
{
	struct rig *r = *state;
	struct quire_cmd nop = {.opcode = QUIRE_OPC_NOP, .seq = quire_cpu_to_le32(77)};
	struct quire_cpl c = run(r, &nop);
	assert_int_equal(quire_le32_to_cpu(c.seq), 77);
	assert_int_equal(quire_le16_to_cpu(c.status), QUIRE_OK);
	struct quire_cmd info = {.opcode = QUIRE_OPC_INFO,
				 .seq = quire_cpu_to_le32(78),
				 .dst = quire_cpu_to_le64(IOVA + DATA)};
	c = run(r, &info);
	assert_int_equal(quire_le16_to_cpu(c.status), QUIRE_OK);
	assert_int_equal(quire_le32_to_cpu(c.result), 64);
	struct quire_card_info in;
	memcpy(&in, r->host + DATA, sizeof(in));
	assert_int_equal(quire_le32_to_cpu(in.magic), QUIRE_ID_MAGIC_VALUE);
	assert_int_equal(quire_le32_to_cpu(in.if_version), QUIRE_INTERFACE_VERSION);
	assert_int_equal(quire_le32_to_cpu(in.cmds_ok), 1);
	check_good_encode(r, 79);
}

struct bad_case {
	const char *what;
	void (*mutate)(struct quire_cmd *c);
	int status;
	uint32_t detail;
};

#define MUTATOR(name, body)                                                                        \
	static void name(struct quire_cmd *c)                                                      \
	{                                                                                          \
		body;                                                                              \
	}
MUTATOR(opcode_zero, c->opcode = 0)
MUTATOR(opcode_unknown, c->opcode = 99)
MUTATOR(count_zero, c->count = 0)
MUTATOR(count_huge, c->count = quire_cpu_to_le32(QUIRE_CMD_MAX_ELEMS + 1))
MUTATOR(format_zero, c->format = 0)
MUTATOR(format_int8, c->format = quire_cpu_to_le16(QUIRE_FMT_INT8))
MUTATOR(format_unknown, c->format = quire_cpu_to_le16(99))
MUTATOR(src_misaligned, c->src = quire_cpu_to_le64(quire_le64_to_cpu(c->src) + 2))
MUTATOR(dst_null, c->dst = 0)
MUTATOR(src_below_window, c->src = quire_cpu_to_le64(IOVA - 4096))
MUTATOR(dst_past_window, c->dst = quire_cpu_to_le64(IOVA + HOST_BYTES - 100))
MUTATOR(exp_far_away, c->exp = quire_cpu_to_le64(0xfff0000000000000ull))
MUTATOR(src_wraps, c->src = quire_cpu_to_le64(0xfffffffffffffff0ull))
MUTATOR(flags_unknown, c->flags = 0x80)
MUTATOR(ef_without_residual, c->flags = QUIRE_CMD_F_EF)
MUTATOR(reserved_set, c->reserved[1] = quire_cpu_to_le32(1))
MUTATOR(stray_stride, c->stride = quire_cpu_to_le64(64))
MUTATOR(stray_workers, c->workers = quire_cpu_to_le16(2))
MUTATOR(decode_bad_values,
	(c->opcode = QUIRE_OPC_DECODE, c->val_format = quire_cpu_to_le16(QUIRE_FMT_FP32)))
MUTATOR(fp16_with_exps, c->format = quire_cpu_to_le16(QUIRE_FMT_FP16))
MUTATOR(reduce_no_workers,
	(c->opcode = QUIRE_OPC_REDUCE, c->format = quire_cpu_to_le16(QUIRE_FMT_INT32),
	 c->val_format = quire_cpu_to_le16(QUIRE_FMT_INT8), c->exp = 0, c->workers = 0))
MUTATOR(reduce_overlap,
	(c->opcode = QUIRE_OPC_REDUCE, c->format = quire_cpu_to_le16(QUIRE_FMT_INT32),
	 c->val_format = quire_cpu_to_le16(QUIRE_FMT_INT8), c->exp = 0,
	 c->workers = quire_cpu_to_le16(3), c->stride = quire_cpu_to_le64(10)))
MUTATOR(encode_over_x, c->dst = quire_cpu_to_le64(quire_le64_to_cpu(c->src) + 3000))
MUTATOR(encode_exp_over_x, c->exp = quire_cpu_to_le64(quire_le64_to_cpu(c->src) + 64))
MUTATOR(decode_over_values, (c->opcode = QUIRE_OPC_DECODE,
			     c->val_format = quire_cpu_to_le16(QUIRE_FMT_INT8), c->dst = c->src))
MUTATOR(reduce_into_input,
	(c->opcode = QUIRE_OPC_REDUCE, c->format = quire_cpu_to_le16(QUIRE_FMT_INT32),
	 c->val_format = quire_cpu_to_le16(QUIRE_FMT_INT8), c->exp = 0,
	 c->workers = quire_cpu_to_le16(2), c->stride = quire_cpu_to_le64(1024),
	 c->dst = quire_cpu_to_le64(quire_le64_to_cpu(c->src) + 1024)))
MUTATOR(reduce_fp_into_int,
	(c->opcode = QUIRE_OPC_REDUCE, c->format = quire_cpu_to_le16(QUIRE_FMT_INT32),
	 c->val_format = quire_cpu_to_le16(QUIRE_FMT_FP32), c->exp = 0,
	 c->workers = quire_cpu_to_le16(1)))
MUTATOR(score_without_model,
	(c->opcode = QUIRE_OPC_MLP_SCORE, c->format = 0, c->count = quire_cpu_to_le32(4),
	 c->exp = 0, c->aux = quire_cpu_to_le64(quire_le64_to_cpu(c->src) + 0x30000)))
MUTATOR(load_garbage, (c->opcode = QUIRE_OPC_MLP_LOAD, c->format = 0,
		       c->count = quire_cpu_to_le32(64), c->dst = 0, c->exp = 0))
MUTATOR(nop_with_fields, (c->opcode = QUIRE_OPC_NOP, c->dst = 0, c->exp = 0))

static void test_malformed_descriptors(void **state)
{
	struct rig *r = *state;
	static const struct bad_case cases[] = {
	    {"opcode 0", opcode_zero, QUIRE_ERR_OPCODE, QUIRE_DETAIL_OPCODE},
	    {"opcode 99", opcode_unknown, QUIRE_ERR_OPCODE, QUIRE_DETAIL_OPCODE},
	    {"zero length", count_zero, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT},
	    {"huge length", count_huge, QUIRE_ERR_SIZE, QUIRE_DETAIL_COUNT},
	    {"format 0", format_zero, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT},
	    {"format int8", format_int8, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT},
	    {"format 99", format_unknown, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT},
	    {"misaligned src", src_misaligned, QUIRE_ERR_ALIGN, QUIRE_DETAIL_SRC},
	    {"null dst", dst_null, QUIRE_ERR_INVALID, QUIRE_DETAIL_DST},
	    {"src below the window", src_below_window, QUIRE_ERR_RANGE, QUIRE_DETAIL_SRC},
	    {"dst past the window", dst_past_window, QUIRE_ERR_RANGE, QUIRE_DETAIL_DST},
	    {"exp far away", exp_far_away, QUIRE_ERR_RANGE, QUIRE_DETAIL_EXP},
	    {"src wraps around", src_wraps, QUIRE_ERR_RANGE, QUIRE_DETAIL_SRC},
	    {"unknown flag", flags_unknown, QUIRE_ERR_INVALID, QUIRE_DETAIL_FLAGS},
	    {"EF without residual", ef_without_residual, QUIRE_ERR_INVALID, QUIRE_DETAIL_AUX},
	    {"reserved word set", reserved_set, QUIRE_ERR_INVALID, QUIRE_DETAIL_RESERVED},
	    {"stride on encode", stray_stride, QUIRE_ERR_INVALID, QUIRE_DETAIL_STRIDE},
	    {"workers on encode", stray_workers, QUIRE_ERR_INVALID, QUIRE_DETAIL_WORKERS},
	    {"decode from fp32", decode_bad_values, QUIRE_ERR_FORMAT, QUIRE_DETAIL_VAL_FORMAT},
	    {"fp16 with exponents", fp16_with_exps, QUIRE_ERR_INVALID, QUIRE_DETAIL_EXP},
	    {"reduce of 0 workers", reduce_no_workers, QUIRE_ERR_RANGE, QUIRE_DETAIL_WORKERS},
	    {"reduce, inputs overlap", reduce_overlap, QUIRE_ERR_SIZE, QUIRE_DETAIL_STRIDE},
	    {"encode over its input", encode_over_x, QUIRE_ERR_INVALID, QUIRE_DETAIL_DST},
	    {"encode's exponents over its input", encode_exp_over_x, QUIRE_ERR_INVALID,
	     QUIRE_DETAIL_EXP},
	    {"decode over its values", decode_over_values, QUIRE_ERR_INVALID, QUIRE_DETAIL_DST},
	    {"reduce into an input", reduce_into_input, QUIRE_ERR_INVALID, QUIRE_DETAIL_DST},
	    {"reduce fp32 into int32", reduce_fp_into_int, QUIRE_ERR_FORMAT, QUIRE_DETAIL_FORMAT},
	    {"score without a model", score_without_model, QUIRE_ERR_SHAPE, QUIRE_DETAIL_ENGINE},
	    {"load a garbage model", load_garbage, QUIRE_ERR_CORRUPT, QUIRE_DETAIL_ENGINE},
	    {"nop with fields", nop_with_fields, QUIRE_ERR_INVALID, QUIRE_DETAIL_RESERVED},
	};
	uint32_t errors_before = rd(r, r->counters + QUIRE_CNT_CMDS_ERR);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct quire_cmd c = good_encode(r, 1000 + (uint32_t)i);
		cases[i].mutate(&c);
		memset(r->host + DATA + 0x10000, 0x77, 0x40000);
		struct quire_cpl done = run(r, &c);
		if (quire_le16_to_cpu(done.status) != cases[i].status ||
		    quire_le32_to_cpu(done.detail) != cases[i].detail)
			fail_msg("%s: status %u (%s) detail %u, expected %d detail %u",
				 cases[i].what, quire_le16_to_cpu(done.status),
				 quire_strerror(quire_le16_to_cpu(done.status)),
				 quire_le32_to_cpu(done.detail), cases[i].status, cases[i].detail);
		assert_int_equal(quire_le32_to_cpu(done.seq), quire_le32_to_cpu(c.seq));
		/* Nothing was written... */
		for (int k = 0; k < 0x40000; k += 997)
			assert_int_equal(r->host[DATA + 0x10000 + k], 0x77);
		/* ...and the card serves the next valid descriptor. */
		check_good_encode(r, 2000 + (uint32_t)i);
	}
	assert_int_equal(rd(r, r->counters + QUIRE_CNT_CMDS_ERR) - errors_before,
			 sizeof(cases) / sizeof(cases[0]));
}

static void test_ring_overrun(void **state)
{
	struct rig *r = *state;
	/* size + 3 descriptors before one doorbell: the 3 oldest were overwritten. */
	for (uint32_t i = 0; i < r->size + 3; i++)
		put(r, &(struct quire_cmd){.opcode = QUIRE_OPC_NOP,
					   .seq = quire_cpu_to_le32(500 + i)});
	doorbell(r);
	for (uint32_t i = 0; i < 3; i++) {
		struct quire_cpl c = next_cpl(r);
		assert_int_equal(quire_le16_to_cpu(c.status), QUIRE_ERR_OVERRUN);
		assert_int_equal(quire_le32_to_cpu(c.seq), QUIRE_SEQ_UNKNOWN);
		assert_int_equal(quire_le32_to_cpu(c.detail), QUIRE_DETAIL_RING);
	}
	for (uint32_t i = 0; i < r->size; i++) {
		struct quire_cpl c = next_cpl(r);
		assert_int_equal(quire_le16_to_cpu(c.status), QUIRE_OK);
		assert_int_equal(quire_le32_to_cpu(c.seq), 503 + i);
	}
	assert_true(rd(r, r->cmdq + QUIRE_Q_STATUS) & QUIRE_Q_STATUS_OVERRUN);
	check_good_encode(r, 600);
}

static void test_bad_ring_setup(void **state)
{
	struct rig *r = *state;
	r->log2 = 4;
	enable(r, r->cmdq, IOVA + CMD_RING + 8); /* misaligned ring */
	assert_int_equal(rd(r, r->cmdq + QUIRE_Q_STATUS), QUIRE_Q_STATUS_BAD_RING);
	r->log2 = 13; /* too large */
	enable(r, r->cmdq, IOVA + CMD_RING);
	assert_int_equal(rd(r, r->cmdq + QUIRE_Q_STATUS), QUIRE_Q_STATUS_BAD_RING);
	/* A ring the card cannot reach: descriptors there complete with a range error. */
	r->log2 = 4;
	enable(r, r->cmdq, IOVA + HOST_BYTES + 4096);
	enable(r, r->cplq, IOVA + CPL_RING);
	r->prod = r->cons = 0;
	r->phase = 1;
	memset(r->host + CPL_RING, 0, 0x1000);
	r->prod = 1;
	doorbell(r);
	struct quire_cpl c = next_cpl(r);
	assert_int_equal(quire_le16_to_cpu(c.status), QUIRE_ERR_RANGE);
	assert_int_equal(quire_le32_to_cpu(c.detail), QUIRE_DETAIL_RING);
	rig_queues(r, 3);
	check_good_encode(r, 700);
	/* Reads outside the registers read as all ones; writes there go nowhere. */
	assert_int_equal(rd(r, QUIRE_BAR0_BYTES), 0xffffffffu);
	assert_int_equal(rd(r, 2), 0xffffffffu);
	wr(r, QUIRE_BAR0_BYTES + 4, 1);
	wr(r, r->id + QUIRE_ID_MAGIC, 0); /* read-only */
	assert_int_equal(rd(r, r->id + QUIRE_ID_MAGIC), QUIRE_ID_MAGIC_VALUE);
}

static void test_engine_errors_and_inputs_kept(void **state)
{
	struct rig *r = *state;
	/* EF encode with dst out of range: residual, input and output untouched. */
	float *x = (float *)(r->host + DATA), *resid = (float *)(r->host + DATA + 0x40000);
	for (int i = 0; i < 1000; i++)
		resid[i] = 0.125f * (float)i;
	struct quire_cmd c = good_encode(r, 800);
	c.flags = QUIRE_CMD_F_EF;
	c.aux = quire_cpu_to_le64(IOVA + DATA + 0x40000);
	c.dst = quire_cpu_to_le64(IOVA + HOST_BYTES - 512);
	uint8_t before[4000];
	memcpy(before, x, sizeof(before));
	struct quire_cpl done = run(r, &c);
	assert_int_equal(quire_le16_to_cpu(done.status), QUIRE_ERR_RANGE);
	assert_memory_equal(x, before, sizeof(before));
	for (int i = 0; i < 1000; i++)
		assert_true(resid[i] == 0.125f * (float)i);
	/* Shared exponents out of range: the engine refuses, nothing written. */
	c = good_encode(r, 801);
	c.flags = QUIRE_CMD_F_SHARED_EXP;
	memset(r->host + DATA + 0x20000, 0x80, 16); /* -128 */
	memset(r->host + DATA + 0x10000, 0x77, 1000);
	done = run(r, &c);
	assert_int_equal(quire_le16_to_cpu(done.status), QUIRE_ERR_RANGE);
	assert_int_equal(quire_le32_to_cpu(done.detail), QUIRE_DETAIL_ENGINE);
	assert_int_equal(r->host[DATA + 0x10000], 0x77);
	/* A reduction that overflows int16 is reported, not wrapped. */
	int8_t *in = (int8_t *)(r->host + DATA);
	memset(in, 127, 300 * 64);
	c = (struct quire_cmd){.opcode = QUIRE_OPC_REDUCE,
			       .format = quire_cpu_to_le16(QUIRE_FMT_INT16),
			       .val_format = quire_cpu_to_le16(QUIRE_FMT_INT8),
			       .seq = quire_cpu_to_le32(802),
			       .count = quire_cpu_to_le32(64),
			       .workers = quire_cpu_to_le16(300),
			       .stride = quire_cpu_to_le64(64),
			       .src = quire_cpu_to_le64(IOVA + DATA),
			       .dst = quire_cpu_to_le64(IOVA + DATA + 0x10000)};
	done = run(r, &c);
	assert_int_equal(quire_le16_to_cpu(done.status), QUIRE_ERR_OVERFLOW);
	assert_int_equal(*(int16_t *)(r->host + DATA + 0x10000), INT16_MAX);
	check_good_encode(r, 803);
}

/* The card's DMA mover driven directly (quire_emu_card_*), on channel 1 while the
 * firmware waits for work: a transfer each way, refused ones, and what the channel
 * counts of them (docs/registers/dma.md: DONE_COUNT, FAILED_COUNT, FAILED_STATUS,
 * BYTES_DONE, QUEUED); channel 0's registers, QUIRE_DMA_CHANNEL_BYTES before them, stay as
 * they were. */
static uint32_t dma_rd(struct rig *r, uint32_t ch, uint32_t reg)
{
	return quire_emu_card_read(r->dev, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + reg);
}

static uint32_t dma_run(struct rig *r, uint64_t host, uint32_t card, uint32_t len, uint32_t dir,
			uint32_t epoch)
{
	const uint32_t regs[] = {QUIRE_DMA_HOST_LO, QUIRE_DMA_HOST_HI, QUIRE_DMA_CARD,
				 QUIRE_DMA_LEN,     QUIRE_DMA_DIR,     QUIRE_DMA_EPOCH};
	const uint32_t values[] = {(uint32_t)host, (uint32_t)(host >> 32), card, len, dir, epoch};
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		quire_emu_card_write(r->dev, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(1) + regs[i],
				     values[i]);
	quire_emu_card_write(r->dev, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(1) + QUIRE_DMA_CTRL,
			     QUIRE_DMA_START);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_CTRL), QUIRE_DMA_DONE);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_QUEUED), 0);
	return dma_rd(r, 1, QUIRE_DMA_STATUS);
}

static void test_dma_counts(void **state)
{
	struct rig *r = *state;
	const uint32_t counts[] = {QUIRE_DMA_DONE_COUNT, QUIRE_DMA_FAILED_COUNT,
				   QUIRE_DMA_FAILED_STATUS, QUIRE_DMA_BYTES_DONE};
	uint32_t ch0[4];
	for (int i = 0; i < 4; i++) {
		ch0[i] = dma_rd(r, 0, counts[i]);
		assert_int_equal(dma_rd(r, 1, counts[i]), 0); /* FAILED_STATUS: QUIRE_OK */
	}
	const uint32_t epoch = quire_emu_card_read(r->dev, QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	const uint32_t mem = quire_emu_card_read(r->dev, QUIRE_CARD_BAR + r->id + QUIRE_ID_MEM_LO);
	for (uint32_t i = 0; i < 100; i++)
		r->host[DATA + i] = (uint8_t)(i * 7 + 3);
	/* To the card and back to the host a little further on: counted done, their bytes. */
	assert_int_equal(dma_run(r, IOVA + DATA, 0x1000, 100, QUIRE_DMA_TO_CARD, epoch), QUIRE_OK);
	for (uint32_t i = 0; i < 100; i++)
		assert_int_equal(
		    (uint8_t)(quire_emu_card_read(r->dev, QUIRE_CARD_MEM + 0x1000 + (i & ~3u)) >>
			      (8 * (i & 3))),
		    r->host[DATA + i]);
	assert_int_equal(dma_run(r, IOVA + DATA + 0x200, 0x1000, 100, QUIRE_DMA_TO_HOST, epoch),
			 QUIRE_OK);
	assert_memory_equal(r->host + DATA + 0x200, r->host + DATA, 100);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_DONE_COUNT), 2);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_FAILED_COUNT), 0);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_FAILED_STATUS), QUIRE_OK);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_BYTES_DONE), 200);
	/* Refused: past card memory, then an epoch gone; counted failed, the last one's status
	 * kept, no bytes. */
	assert_int_equal(dma_run(r, IOVA + DATA, mem - 3, 4, QUIRE_DMA_TO_CARD, epoch),
			 QUIRE_ERR_RANGE);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_FAILED_STATUS), QUIRE_ERR_RANGE);
	assert_int_equal(dma_run(r, IOVA + DATA, 0x1000, 4, QUIRE_DMA_TO_CARD, epoch + 1),
			 QUIRE_ERR_PEER);
	/* A good one after them: STATUS its own, FAILED_STATUS still the last failure's. */
	assert_int_equal(dma_run(r, IOVA + DATA, 0x2000, 0, QUIRE_DMA_TO_CARD, epoch), QUIRE_OK);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_DONE_COUNT), 5);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_FAILED_COUNT), 2);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_FAILED_STATUS), QUIRE_ERR_PEER);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_BYTES_DONE), 200);
	/* The counts are read only. */
	for (int i = 0; i < 4; i++)
		quire_emu_card_write(r->dev, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(1) + counts[i], 77);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_DONE_COUNT), 5);
	assert_int_equal(dma_rd(r, 1, QUIRE_DMA_BYTES_DONE), 200);
	for (int i = 0; i < 4; i++)
		assert_int_equal(dma_rd(r, 0, counts[i]), ch0[i]);
}

/* A transfer to the card with its block exponents (QUIRE_DMA_TO_CARD_EXPS) on channel 1:
 * the data and the golden model's exponents (quire_quant_exponents) of a short last block;
 * and the refusals after the direction, in the page's order, which move nothing. */
static uint32_t dma_exps(struct rig *r, uint64_t host, uint32_t card, uint32_t len, uint32_t exp,
			 uint32_t epoch)
{
	quire_emu_card_write(r->dev, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(1) + QUIRE_DMA_EXP, exp);
	return dma_run(r, host, card, len, QUIRE_DMA_TO_CARD_EXPS, epoch);
}

static void test_dma_exponents(void **state)
{
	struct rig *r = *state;
	const uint32_t epoch = quire_emu_card_read(r->dev, QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	const uint32_t mem = quire_emu_card_read(r->dev, QUIRE_CARD_BAR + r->id + QUIRE_ID_MEM_LO);
	enum { N = 200 }; /* 3 blocks and one of 8 */
	float *x = (float *)(r->host + DATA);
	for (int i = 0; i < N; i++)
		x[i] = (i % 3 - 1) * ldexpf(1.0f + i, i / 64 * 7 - 20);
	x[70] = INFINITY;
	x[N] = 1e30f; /* past the transfer: no exponent counts it */
	int8_t want[4], got[8];
	quire_quant_exponents(N, 0, x, NULL, want);
	assert_int_equal(dma_exps(r, IOVA + DATA, 0x3000, 4 * N, 0x4000, epoch), QUIRE_OK);
	for (int k = 0; k < 8; k++)
		got[k] = (int8_t)(quire_emu_card_read(r->dev, QUIRE_CARD_MEM + 0x4000 + (k & ~3)) >>
				  (8 * (k & 3)));
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(got[1], QUIRE_BFP_EXP_NONFINITE);
	for (int i = 0; i < N; i++)
		assert_int_equal(quire_emu_card_read(r->dev, QUIRE_CARD_MEM + 0x3000 + 4 * i),
				 ((uint32_t *)x)[i]);
	assert_int_equal(
	    quire_emu_card_read(r->dev, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(1) + QUIRE_DMA_EXP),
	    0x4000);
	/* Refused: the epoch first, then off a line or not whole fp32, then the exponents past
	 * card memory. */
	assert_int_equal(dma_exps(r, IOVA + DATA, 0x5000, 4 * N, 0x6000, epoch + 1),
			 QUIRE_ERR_PEER);
	assert_int_equal(dma_exps(r, IOVA + DATA + 4, 0x5000, 4 * N, 0x6000, epoch),
			 QUIRE_ERR_INVALID);
	assert_int_equal(dma_exps(r, IOVA + DATA, 0x5004, 4 * N, 0x6000, epoch), QUIRE_ERR_INVALID);
	assert_int_equal(dma_exps(r, IOVA + DATA, 0x5000, 4 * N - 2, 0x6000, epoch),
			 QUIRE_ERR_INVALID);
	assert_int_equal(dma_exps(r, IOVA + DATA, 0x5000, 4 * N, mem - 3, epoch), QUIRE_ERR_RANGE);
	assert_int_equal(quire_emu_card_read(r->dev, QUIRE_CARD_MEM + 0x5000), 0);
	assert_int_equal(quire_emu_card_read(r->dev, QUIRE_CARD_MEM + 0x6000), 0);
	assert_int_equal(dma_exps(r, IOVA + DATA, 0x5000, 4 * N, mem - 4, epoch), QUIRE_OK);
}

static uint32_t dma_decode(struct rig *r, uint64_t host, uint32_t card, uint32_t len, uint32_t exp,
			   uint32_t word, uint32_t epoch)
{
	quire_emu_card_write(r->dev, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(1) + QUIRE_DMA_EXP, exp);
	quire_emu_card_write(r->dev, QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(1) + QUIRE_DMA_DECODE,
			     word);
	return dma_run(r, host, card, len, QUIRE_DMA_TO_HOST_DECODE, epoch);
}

static void test_dma_decode(void **state)
{
	struct rig *r = *state;
	const uint32_t epoch = quire_emu_card_read(r->dev, QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	const uint32_t mem = quire_emu_card_read(r->dev, QUIRE_CARD_BAR + r->id + QUIRE_ID_MEM_LO);
	enum { N = 200, VALS = 0x3000, EXPS = 0x403e }; /* its exponents span two lines */
	uint8_t vals[4 * N];
	int8_t exps[4] = {-3, QUIRE_BFP_EXP_NONFINITE, 100, QUIRE_BFP_EXP_ZERO};
	for (int i = 0; i < 4 * N; i++)
		vals[i] = (uint8_t)(i * 13 + 5);
	for (int i = 0; i < 4 * N; i += 4)
		quire_emu_card_write(r->dev, QUIRE_CARD_MEM + VALS + (uint32_t)i,
				     vals[i] | vals[i + 1] << 8 | vals[i + 2] << 16 |
					 (uint32_t)vals[i + 3] << 24);
	quire_emu_card_write(r->dev, QUIRE_CARD_MEM + 0x403c,
			     (uint32_t)(uint8_t)exps[0] << 16 | (uint32_t)(uint8_t)exps[1] << 24);
	quire_emu_card_write(r->dev, QUIRE_CARD_MEM + 0x4040,
			     (uint32_t)(uint8_t)exps[2] | (uint32_t)(uint8_t)exps[3] << 8);
	float want[N + 1], *got = (float *)(r->host + DATA);
	const uint32_t words[] = {QUIRE_DMA_DECODE_WORD(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, 4),
				  QUIRE_DMA_DECODE_WORD(QUIRE_FMT_BFP16, QUIRE_FMT_INT16, 1),
				  QUIRE_DMA_DECODE_WORD(QUIRE_FMT_BFP8, QUIRE_FMT_INT32, 3),
				  QUIRE_DMA_DECODE_WORD(QUIRE_FMT_FP16, QUIRE_FMT_FP16, 2)};
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		uint32_t w = words[k];
		assert_int_equal(quire_quant_decode(QUIRE_DMA_DECODE_FORMAT(w),
						    QUIRE_DMA_DECODE_VAL_FORMAT(w), N,
						    QUIRE_DMA_DECODE_MEAN(w), vals, exps, want),
				 QUIRE_OK);
		memset(got, 0x5a, 4 * (N + 1));
		memset(&want[N], 0x5a, 4);
		assert_int_equal(dma_decode(r, IOVA + DATA, VALS, 4 * N, EXPS, w, epoch), QUIRE_OK);
		assert_memory_equal(got, want, 4 * (N + 1)); /* nothing past LEN */
	}
	/* Refused, moving nothing: on channel 0; the epoch; the values past card memory; off a
	 * line, not whole fp32, a pair it does not decode; the exponents past card memory, then
	 * one below ZERO. */
	const uint32_t w4 = words[0], ch0 = QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(0);
	memset(got, 0x5a, 4 * (N + 1));
	const uint32_t ch0_regs[] = {QUIRE_DMA_HOST_LO, QUIRE_DMA_HOST_HI, QUIRE_DMA_CARD,
				     QUIRE_DMA_LEN,     QUIRE_DMA_DIR,     QUIRE_DMA_EPOCH,
				     QUIRE_DMA_EXP,     QUIRE_DMA_DECODE};
	const uint32_t ch0_values[] = {(uint32_t)(IOVA + DATA),
				       (uint32_t)((IOVA + DATA) >> 32),
				       VALS,
				       4 * N,
				       QUIRE_DMA_TO_HOST_DECODE,
				       epoch,
				       EXPS,
				       w4};
	for (size_t i = 0; i < sizeof(ch0_regs) / sizeof(ch0_regs[0]); i++)
		quire_emu_card_write(r->dev, ch0 + ch0_regs[i], ch0_values[i]);
	quire_emu_card_write(r->dev, ch0 + QUIRE_DMA_CTRL, QUIRE_DMA_START);
	assert_int_equal(dma_rd(r, 0, QUIRE_DMA_STATUS), QUIRE_ERR_INVALID);
	assert_int_equal(dma_decode(r, IOVA + DATA, VALS, 4 * N, EXPS, w4, epoch + 1),
			 QUIRE_ERR_PEER);
	assert_int_equal(dma_decode(r, IOVA + DATA, mem - N + 64, 4 * N, EXPS, w4, epoch),
			 QUIRE_ERR_RANGE);
	assert_int_equal(dma_decode(r, IOVA + DATA + 4, VALS, 4 * N, EXPS, w4, epoch),
			 QUIRE_ERR_INVALID);
	assert_int_equal(dma_decode(r, IOVA + DATA, VALS + 4, 4 * N, EXPS, w4, epoch),
			 QUIRE_ERR_INVALID);
	assert_int_equal(dma_decode(r, IOVA + DATA, VALS, 4 * N - 2, EXPS, w4, epoch),
			 QUIRE_ERR_INVALID);
	assert_int_equal(dma_decode(r, IOVA + DATA, VALS, 4 * N, EXPS,
				    QUIRE_DMA_DECODE_WORD(QUIRE_FMT_FP32, QUIRE_FMT_FP32, 1),
				    epoch),
			 QUIRE_ERR_INVALID);
	assert_int_equal(dma_decode(r, IOVA + DATA, VALS, 4 * N, mem - 3, w4, epoch),
			 QUIRE_ERR_RANGE);
	quire_emu_card_write(r->dev, QUIRE_CARD_MEM + 0x4040,
			     (uint32_t)(uint8_t)exps[2] | (uint32_t)(uint8_t)-127 << 8);
	assert_int_equal(dma_decode(r, IOVA + DATA, VALS, 4 * N, EXPS, w4, epoch), QUIRE_ERR_RANGE);
	for (int i = 0; i <= N; i++)
		assert_int_equal(((uint32_t *)got)[i], 0x5a5a5a5au);
	/* The values' range at card memory's end is LEN / 4 bytes of INT8. */
	quire_emu_card_write(r->dev, QUIRE_CARD_MEM + 0x4040,
			     (uint32_t)(uint8_t)exps[2] | (uint32_t)(uint8_t)exps[3] << 8);
	assert_int_equal(dma_decode(r, IOVA + DATA, mem - 256, 4 * 256, EXPS, w4, epoch), QUIRE_OK);
}

/* The card's DMA_BYTES counter. */
static uint64_t dma_bytes(struct rig *r)
{
	return (uint64_t)rd(r, r->counters + QUIRE_CNT_DMA_BYTES_HI) << 32 |
	       rd(r, r->counters + QUIRE_CNT_DMA_BYTES_LO);
}

/*
 * DECODE with dst on a line runs no engine (firmware/pipe.c): its first chunk goes out as
 * soon as it is in, before the rest of the pipeline is set up. Its results are the golden
 * model's, and DMA_BYTES counts every byte it moved, whether it had one chunk or several: a
 * descriptor, the values, the exponents, the fp32 out, and the completion before it.
 */
static void test_decode_counted(void **state)
{
	struct rig *r = *state;
	enum { VALS = 0x40000, EXPS = 0x80000, OUT = 0xc0000 };
	const uint32_t counts[] = {4096, 40000};
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		uint32_t n = counts[k], seq = 300 + 2 * (uint32_t)k;
		int8_t *vals = (int8_t *)(r->host + DATA + VALS), *exps = vals + (EXPS - VALS);
		for (uint32_t i = 0; i < n; i++)
			vals[i] = (int8_t)(i * 7 + k);
		for (uint32_t b = 0; b < QUIRE_BFP_BLOCKS(n); b++)
			exps[b] = (int8_t)(b % 40 - 20);
		struct quire_cmd nop = {.opcode = QUIRE_OPC_NOP, .seq = quire_cpu_to_le32(seq)};
		assert_int_equal(quire_le16_to_cpu(run(r, &nop).status), QUIRE_OK);
		uint64_t before = dma_bytes(r);
		struct quire_cmd c = {.opcode = QUIRE_OPC_DECODE,
				      .format = quire_cpu_to_le16(QUIRE_FMT_BFP8),
				      .seq = quire_cpu_to_le32(seq + 1),
				      .count = quire_cpu_to_le32(n),
				      .val_format = quire_cpu_to_le16(QUIRE_FMT_INT8),
				      .workers = quire_cpu_to_le16(4),
				      .src = quire_cpu_to_le64(IOVA + DATA + VALS),
				      .exp = quire_cpu_to_le64(IOVA + DATA + EXPS),
				      .dst = quire_cpu_to_le64(IOVA + DATA + OUT)};
		memset(r->host + DATA + OUT, 0x5a, 4 * n + 4);
		assert_int_equal(quire_le16_to_cpu(run(r, &c).status), QUIRE_OK);
		float *want = malloc(4 * (size_t)n);
		assert_non_null(want);
		assert_int_equal(quire_quant_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, n, 4,
						    (const uint8_t *)vals, exps, want),
				 QUIRE_OK);
		assert_memory_equal(r->host + DATA + OUT, want, 4 * (size_t)n);
		assert_int_equal(((uint32_t *)(r->host + DATA + OUT))[n], 0x5a5a5a5au);
		free(want);
		assert_int_equal(dma_bytes(r) - before, QUIRE_CPL_BYTES + QUIRE_CMD_BYTES + n +
							    QUIRE_BFP_BLOCKS(n) + 4ull * n);
	}
}

/* COMM_INIT of a one-member communicator `id` (no network needed); its status. */
static int comm_init(struct rig *r, uint16_t id, uint32_t seq)
{
	struct quire_comm_desc *d = (struct quire_comm_desc *)(r->host + DATA);
	memset(d, 0, QUIRE_COMM_DESC_BYTES(1));
	d->comm = quire_cpu_to_le16(id);
	d->size = quire_cpu_to_le16(1);
	struct quire_cmd c = {.opcode = QUIRE_OPC_COMM_INIT,
			      .seq = quire_cpu_to_le32(seq),
			      .count = quire_cpu_to_le32(QUIRE_COMM_DESC_BYTES(1)),
			      .src = quire_cpu_to_le64(IOVA + DATA)};
	return quire_le16_to_cpu(run(r, &c).status);
}

static void test_host_detach(void **state)
{
	struct rig *r = *state;
	/* Communicators belong to their host: the card holds four... */
	for (uint16_t id = 1; id <= 4; id++)
		assert_int_equal(comm_init(r, id, 800 + id), QUIRE_OK);
	assert_int_equal(comm_init(r, 5, 805), QUIRE_ERR_NOMEM);
	assert_int_equal(comm_init(r, 2, 806), QUIRE_ERR_BUSY);
	/* The host goes away with work posted; the card drops it and serves the next host. */
	for (int i = 0; i < 8; i++)
		put(r, &(struct quire_cmd){.opcode = QUIRE_OPC_NOP,
					   .seq = quire_cpu_to_le32(900 + (uint32_t)i)});
	doorbell(r);
	r->dev->ops->detach_host(r->dev);
	assert_int_equal(rd(r, r->cmdq + QUIRE_Q_STATUS), 0);
	assert_int_equal(r->dev->ops->attach_host(r->dev, r->host, IOVA, HOST_BYTES), QUIRE_OK);
	rig_queues(r, 4);
	check_good_encode(r, 950);
	/* ...and the next host finds them all gone. */
	for (uint16_t id = 2; id <= 5; id++)
		assert_int_equal(comm_init(r, id, 960 + id), QUIRE_OK);
}

/* The next host, and when it comes: before the card's nth transfer. */
struct next_host {
	struct quire_device *dev;
	uint8_t *mem;
	uint64_t at;
	int swapped; /* set (atomically) once the next host is attached */
};

static void host_swap(void *arg, uint64_t n)
{
	struct next_host *h = arg;
	if (n != h->at)
		return;
	h->dev->ops->detach_host(h->dev);
	assert_int_equal(h->dev->ops->attach_host(h->dev, h->mem, IOVA, HOST_BYTES), QUIRE_OK);
	__atomic_store_n(&h->swapped, 1, __ATOMIC_RELEASE);
}

/*
 * A host goes away in the middle of a long command, and the next host attaches before
 * the firmware takes another step, at the same DMA addresses (every host's window starts
 * at the same IOVA). Nothing of the old command, neither its data nor its completion,
 * may reach the new host's memory; the new host's first completion is its own.
 */
static void test_next_host_untouched(void **state)
{
	struct rig *r = *state;
	struct next_host h = {.mem = aligned_alloc(4096, HOST_BYTES), .at = 6};
	memset(h.mem, 0x5a, HOST_BYTES); /* zeros would encode to zeros: a write would not show */
	struct quire_emu_config cfg = {.before_dma = host_swap, .before_dma_arg = &h};
	/* A card of its own, whose firmware calls host_swap. */
	r->dev->ops->detach_host(r->dev);
	r->dev->ops->destroy(r->dev);
	h.dev = r->dev = quire_emu_create(&cfg);
	assert_non_null(r->dev);
	assert_int_equal(r->dev->ops->attach_host(r->dev, r->host, IOVA, HOST_BYTES), QUIRE_OK);
	for (int i = 0; i < 500 && rd(r, r->id + QUIRE_ID_FW_STATE) != QUIRE_FW_STATE_RUNNING; i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	rig_queues(r, 4);
	const uint32_t n = 8u << 20; /* 32 MiB of fp32: four chunks, a dozen transfers */
	const uint64_t src = DATA, dst = DATA + (40u << 20), exp = DATA + (56u << 20);
	struct rng g = {5};
	fill_edge_gradients(&g, (float *)(r->host + src), n, 1);
	put(r, &(struct quire_cmd){.opcode = QUIRE_OPC_ENCODE,
				   .format = quire_cpu_to_le16(QUIRE_FMT_BFP8),
				   .seq = quire_cpu_to_le32(1),
				   .count = quire_cpu_to_le32(n),
				   .src = quire_cpu_to_le64(IOVA + src),
				   .dst = quire_cpu_to_le64(IOVA + dst),
				   .exp = quire_cpu_to_le64(IOVA + exp)});
	doorbell(r);
	/* Transfer 1 fetches the descriptor, 2-4 are the first chunk's: at the 6th the host
	 * leaves in the middle of the command, and the next one is there. The new host sets
	 * its rings elsewhere (NEW_RINGS), so the old rings' places in its memory stay as
	 * they were too, and runs a command of its own: the firmware takes it only once it
	 * is done with the old one, so when its completion comes, whatever the old command
	 * was to write has been written or refused, however slow the machine. */
	/* The swap first (a minute at most: only a card that never moves takes longer). */
	for (int i = 0; i < 60000 && !__atomic_load_n(&h.swapped, __ATOMIC_ACQUIRE); i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	assert_true(__atomic_load_n(&h.swapped, __ATOMIC_ACQUIRE));
	free(r->host); /* the card let go of it at the swap */
	r->host = h.mem;
	r->cmd_ring = NEW_RINGS;
	r->cpl_ring = NEW_RINGS + 0x10000;
	rig_queues(r, 4);
	check_good_encode(r, 2); /* its first completion is its own */
	/* Nothing else of the new host's memory was touched: neither the old command's data
	 * (its dst, exp), nor its completion (at the old ring's place). */
	size_t touched = 0;
	for (size_t i = 0; i < HOST_BYTES; i++)
		touched += h.mem[i] != 0x5a && !(i >= NEW_RINGS && i < NEW_RINGS + 0x20000) &&
			   !(i >= DATA && i < DATA + 0x30000); /* good_encode's src, dst, exp */
	assert_int_equal(touched, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_valid_work, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_engines_not_in_caps, rig_setup_codec_only,
					    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_descriptors, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_ring_overrun, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_bad_ring_setup, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_engine_errors_and_inputs_kept, rig_setup,
					    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_dma_counts, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_dma_exponents, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_dma_decode, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_decode_counted, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_host_detach, rig_setup, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_next_host_untouched, rig_setup, rig_teardown),
	};
	return cmocka_run_group_tests_name("simulated card", tests, NULL, NULL);
}
