// SPDX-License-Identifier: MIT
/*
 * A bare-metal program for the RTL card (linked like the firmware: firmware/crt0.S and
 * firmware/link.ld) that drives the MLP engine's window directly, past the firmware's own
 * checks (the firmware only ever passes its own, valid, buffers): the register window as
 * sim/emu/emu.c answers it, the order of run_mlp's checks (opcode; SCORE with no model
 * before its buffers; the image, features, feasibility, scores and choice against card
 * memory, aligned, in 64-bit arithmetic; c last, in the engine), a LOAD refused for its
 * range keeping the model held, a LOAD that fails leaving none, and a small network scored
 * (its scores and choice computed here from the contract). Ends through sim-exit with 0,
 * or the number of the first failed check.
 */
#include <stdint.h>

#include "hls/crc32.h"
#include "quire/card.h"
#include "quire/mlp.h"
#include "quire/regs.h"
#include "quire/status.h"
#include "tests/rtl/card_bare.h"

int main(void);

#define ENG QUIRE_CARD_ENGINE(QUIRE_ENGINE_MLP)

static void arg(uint32_t i, uint64_t v)
{
	wr(ENG + QUIRE_ENGINE_ARG(i), (uint32_t)v);
	wr(ENG + QUIRE_ENGINE_ARG(i) + 4, (uint32_t)(v >> 32));
}

static uint32_t run(uint32_t op, uint32_t len, uint32_t c, uint64_t image, uint64_t feat,
		    uint64_t feas, uint64_t scores, uint64_t choice)
{
	const uint64_t a[QUIRE_MLP_ARGS] = {op, len, c, image, feat, feas, scores, choice};
	for (uint32_t i = 0; i < QUIRE_MLP_ARGS; i++)
		arg(i, a[i]);
	wr(ENG + QUIRE_ENGINE_CTRL, QUIRE_ENGINE_START);
	while (!(rd(ENG + QUIRE_ENGINE_CTRL) & QUIRE_ENGINE_DONE))
		;
	return rd(ENG + QUIRE_ENGINE_RETURN);
}

/* Card memory, from the core: bytes and words at card offsets. */
static void put8(uint32_t off, uint8_t v)
{
	uint32_t w = rd(QUIRE_CARD_MEM + (off & ~3u)), sh = 8 * (off & 3);
	wr(QUIRE_CARD_MEM + (off & ~3u), (w & ~(0xffu << sh)) | (uint32_t)v << sh);
}

/* The network 4-1 (one layer): weights, bias; its image at IMG, 40 bytes. */
#define IMG   0x100u
#define FEAT  0x200u
#define FEAS  0x300u
#define SCORE 0x400u
#define PICK  0x500u
static const int8_t weight[4] = {3, -2, 127, -128};
static const int32_t bias = -1000;

static uint32_t make_image(void)
{
	const uint32_t words[10] = {
	    QUIRE_MLP_MAGIC,
	    QUIRE_MLP_VERSION | 1u << 16, /* version, layers */
	    4u | 1u << 16,                /* width[0], width[1] */
	    0,                            /* width[2], width[3] */
	    0,                            /* width[4], flags */
	    8,                            /* payload_bytes */
	    0,                            /* payload_crc, below */
	    0,                            /* reserved */
	    (uint8_t)weight[0] | (uint32_t)(uint8_t)weight[1] << 8 |
		(uint32_t)(uint8_t)weight[2] << 16 | (uint32_t)(uint8_t)weight[3] << 24,
	    (uint32_t)bias,
	};
	for (uint32_t i = 0; i < 10; i++)
		wr(QUIRE_CARD_MEM + IMG + 4 * i, words[i]);
	uint8_t payload[8];
	for (uint32_t i = 0; i < 8; i++)
		payload[i] = (uint8_t)(words[8 + i / 4] >> (8 * (i % 4)));
	wr(QUIRE_CARD_MEM + IMG + QUIRE_MLP_HDR_PAYLOAD_CRC, quire_crc32(0, payload, 8));
	return 40;
}

int main(void)
{
	const uint32_t load = QUIRE_MLP_OP_LOAD, score = QUIRE_MLP_OP_SCORE;
	uint64_t mem = rd(QUIRE_CARD_BAR + QUIRE_ID_MEM_LO); /* the ID block is at BAR offset 0 */

	/* The window: arguments read back as written, other offsets 0xffff_ffff. */
	arg(5, 0x0123456789abcdefull);
	check(rd(ENG + QUIRE_ENGINE_ARG(5)) == 0x89abcdefu &&
	      rd(ENG + QUIRE_ENGINE_ARG(5) + 4) == 0x01234567u);
	check(rd(ENG + 0x4) == 0xffffffffu && rd(ENG + QUIRE_ENGINE_ARG(12)) == 0xffffffffu);

	/* The opcode first; then SCORE with no model, before its buffers. */
	check(run(0, 40, 1, mem + 4, mem, mem, mem, mem) == QUIRE_ERR_OPCODE);
	check(run(3, 0, 0, 0, 0, 0, 0, 0) == QUIRE_ERR_OPCODE);
	check(run(score, 0, 1, 0, mem + 1, mem, 2, 3) == QUIRE_ERR_SHAPE);

	/* LOAD: the image inside card memory and 4-byte aligned, in 64-bit arithmetic. */
	uint32_t len = make_image();
	check(run(load, len, 0, mem - 36, 0, 0, 0, 0) == QUIRE_ERR_RANGE);
	check(run(load, len, 0, IMG + 2, 0, 0, 0, 0) == QUIRE_ERR_RANGE);
	check(run(load, len, 0, (1ull << 32) + IMG, 0, 0, 0, 0) == QUIRE_ERR_RANGE);
	check(run(load, 0xffffffffu, 0, IMG, 0, 0, 0, 0) == QUIRE_ERR_RANGE);
	check(run(load, 31, 0, IMG, 0, 0, 0, 0) == QUIRE_ERR_CORRUPT); /* below the header */
	check(run(load, len, 0, IMG, 0, 0, 0, 0) == QUIRE_OK);
	/* A LOAD refused for its range keeps the model held. */
	check(run(load, len, 0, mem, 0, 0, 0, 0) == QUIRE_ERR_RANGE);

	/* Three candidates: features, feasibility [0, 1, 1]. */
	static const int8_t x[3][4] = {{127, 127, 127, 127}, {-128, 5, 1, 0}, {0, 0, 64, 2}};
	for (uint32_t k = 0; k < 3; k++)
		for (uint32_t i = 0; i < 4; i++)
			put8(FEAT + 4 * k + i, (uint8_t)x[k][i]);
	put8(FEAS, 0);
	put8(FEAS + 1, 1);
	put8(FEAS + 2, 200);
	wr(QUIRE_CARD_MEM + PICK, 0xdeadbeefu);
	/* SCORE's buffers: features, feasibility, scores (4-aligned), choice (4-aligned). */
	check(run(score, 0, 3, 0, mem - 11, FEAS, SCORE, PICK) == QUIRE_ERR_RANGE);
	check(run(score, 0, 3, 0, FEAT, mem - 2, SCORE, PICK) == QUIRE_ERR_RANGE);
	check(run(score, 0, 3, 0, FEAT, FEAS, SCORE + 2, PICK) == QUIRE_ERR_RANGE);
	check(run(score, 0, 3, 0, FEAT, FEAS, mem - 8, PICK) == QUIRE_ERR_RANGE);
	check(run(score, 0, 3, 0, FEAT, FEAS, SCORE, PICK + 1) == QUIRE_ERR_RANGE);
	check(run(score, 0, 3, 0, FEAT, FEAS, SCORE, mem) == QUIRE_ERR_RANGE);
	check(run(score, 0, 3, 0, FEAT, FEAS, SCORE, (1ull << 32) + PICK) == QUIRE_ERR_RANGE);
	check(rd(QUIRE_CARD_MEM + PICK) == 0xdeadbeefu);
	/* c last, checked by the engine once the buffers are in memory. */
	check(run(score, 0, 0, 0, FEAT, FEAS, SCORE, PICK) == QUIRE_ERR_SIZE);
	check(run(score, 0, 1025, 0, FEAT, FEAS, SCORE, PICK) == QUIRE_ERR_SIZE);
	/* The scores: bias + sum w * x; the choice: the best feasible (candidate 0 is not). */
	check(run(score, 0, 3, 0, FEAT, FEAS, SCORE, mem - 4) == QUIRE_OK);
	check(run(score, 0, 3, 0, FEAT, FEAS, SCORE, PICK) == QUIRE_OK);
	int32_t want[3];
	uint32_t best = 3;
	for (uint32_t k = 0; k < 3; k++) {
		want[k] = bias;
		for (uint32_t i = 0; i < 4; i++)
			want[k] += weight[i] * x[k][i];
		check(rd(QUIRE_CARD_MEM + SCORE + 4 * k) == (uint32_t)want[k]);
		if (k > 0 && (best == 3 || want[k] > want[best]))
			best = k;
	}
	check(rd(QUIRE_CARD_MEM + PICK) == best);
	/* None feasible: NO_FEASIBLE, the scores written, the choice word untouched. */
	put8(FEAS + 1, 0);
	put8(FEAS + 2, 0);
	wr(QUIRE_CARD_MEM + PICK, 77);
	for (uint32_t k = 0; k < 3; k++)
		wr(QUIRE_CARD_MEM + SCORE + 4 * k, 0);
	check(run(score, 0, 3, 0, FEAT, FEAS, SCORE, PICK) == QUIRE_ERR_NO_FEASIBLE);
	check(rd(QUIRE_CARD_MEM + PICK) == 77 &&
	      rd(QUIRE_CARD_MEM + SCORE + 8) == (uint32_t)want[2]);

	/* A LOAD that fails (a weight changed: the CRC) leaves no model. */
	put8(IMG + 33, 0x55);
	check(run(load, len, 0, IMG, 0, 0, 0, 0) == QUIRE_ERR_CORRUPT);
	check(run(score, 0, 3, 0, FEAT, FEAS, SCORE, PICK) == QUIRE_ERR_SHAPE);
	/* The ENGINES record of kind 3 counted every run. */
	check(rd(QUIRE_CARD_BAR + 0x400 + QUIRE_ENG_RECORD(QUIRE_ENGINE_MLP - 1) + QUIRE_ENG_OPS) ==
	      24);
	finish(0);
	return 0;
}
