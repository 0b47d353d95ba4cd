// SPDX-License-Identifier: MIT
/*
 * A bare-metal program for the RTL card (linked like the firmware: firmware/crt0.S and
 * firmware/link.ld) that drives the DMA mover directly, past the firmware's own window
 * checks: the order and the edges of the mover's checks (sim/emu/emu.c dma_run: epoch,
 * then host window and card memory bounds, then direction), unaligned moves both ways,
 * the two channels QUIRE_DMA_CHANNEL_BYTES apart, and the queue of posted transfers
 * (docs/registers/dma.md): 16 posted without waiting, both ways, 1 byte to several KiB,
 * on whole lines and not, one reading what another before it writes; a refused one among
 * others; a START with the queue full; one whose epoch has moved on behind others; the
 * counts of each. Transfers to the card with their block exponents (QUIRE_DMA_TO_CARD_EXPS):
 * the exponents against the golden model's (hls/quant.c) over zeros, subnormals, NaN, Inf,
 * the clamps and a short last block whose line goes on past the transfer with larger words, two
 * back to back and a plain transfer behind them, and their refusals in the page's order.
 * Transfers to the host decoded on the way (QUIRE_DMA_TO_HOST_DECODE) against the golden
 * model's decode: each value format, with and without the mean, exponents that span two
 * lines, two back to back (the second begun while the first's lines go) and a plain one
 * behind them, two with different means, a refused one begun behind another, and their
 * refusals in order. Then the
 * queue's rate, left for test_card_top to read (card_dma.h). The
 * harness fills host memory with byte i = (i * 7 + 3) & 0xff before the run. Ends
 * through sim-exit with 0, or the number of the first failed check.
 * Last, the firmware's trap handler (crt0.S), which this program shares: an access to an
 * address nothing answers (the window of an engine kind no card has) is skipped and
 * counted, and a faulting load reads all ones.
 */
#include <stdint.h>

#include "hls/quant.h"
#include "quire/card.h"
#include "quire/format.h"
#include "quire/regs.h"
#include "quire/status.h"
#include "tests/rtl/card_bare.h"
#include "tests/rtl/card_dma.h"

int main(void);
extern volatile uint32_t fw_access_faults; /* crt0.S */

static uint32_t dma_reg(uint32_t ch, uint32_t reg)
{
	return QUIRE_CARD_DMA + QUIRE_DMA_CHANNEL(ch) + reg;
}

/* What a channel's counts should read: kept from the statuses its transfers ended with. */
struct counts {
	uint32_t done, failed, failed_status, bytes;
};
static struct counts want[QUIRE_DMA_CHANNELS];

static void counted(uint32_t ch, uint32_t status, uint32_t len)
{
	want[ch].done++;
	if (status == QUIRE_OK) {
		want[ch].bytes += len;
	} else {
		want[ch].failed++;
		want[ch].failed_status = status;
	}
}

static int counts_are(uint32_t ch)
{
	return rd(dma_reg(ch, QUIRE_DMA_DONE_COUNT)) == want[ch].done &&
	       rd(dma_reg(ch, QUIRE_DMA_FAILED_COUNT)) == want[ch].failed &&
	       rd(dma_reg(ch, QUIRE_DMA_FAILED_STATUS)) == want[ch].failed_status &&
	       rd(dma_reg(ch, QUIRE_DMA_BYTES_DONE)) == want[ch].bytes;
}

/* A START of the registers given, not waited for. */
static void post(uint32_t ch, uint64_t host, uint32_t card, uint32_t len, uint32_t dir,
		 uint32_t epoch)
{
	wr(dma_reg(ch, QUIRE_DMA_HOST_LO), (uint32_t)host);
	wr(dma_reg(ch, QUIRE_DMA_HOST_HI), (uint32_t)(host >> 32));
	wr(dma_reg(ch, QUIRE_DMA_CARD), card);
	wr(dma_reg(ch, QUIRE_DMA_LEN), len);
	wr(dma_reg(ch, QUIRE_DMA_DIR), dir);
	wr(dma_reg(ch, QUIRE_DMA_EPOCH), epoch);
	wr(dma_reg(ch, QUIRE_DMA_CTRL), QUIRE_DMA_START);
}

/* Until the channel's queue is empty; then nothing is queued. */
static int wait_done(uint32_t ch)
{
	while (!(rd(dma_reg(ch, QUIRE_DMA_CTRL)) & QUIRE_DMA_DONE))
		;
	return rd(dma_reg(ch, QUIRE_DMA_QUEUED)) == 0;
}

/* A START of a transfer to the card with its block exponents at card offset exp. */
static void post_exps(uint64_t host, uint32_t card, uint32_t len, uint32_t exp, uint32_t epoch)
{
	wr(dma_reg(0, QUIRE_DMA_EXP), exp);
	post(0, host, card, len, QUIRE_DMA_TO_CARD_EXPS, epoch);
}

/* One such transfer, waited for: its status, counted. */
static uint32_t dma_exps(uint64_t host, uint32_t card, uint32_t len, uint32_t exp, uint32_t epoch)
{
	post_exps(host, card, len, exp, epoch);
	wait_done(0);
	uint32_t status = rd(dma_reg(0, QUIRE_DMA_STATUS));
	counted(0, status, len);
	return status;
}

/* One transfer on channel 0, waited for: its status, counted. */
static uint32_t dma(uint64_t host, uint32_t card, uint32_t len, uint32_t dir, uint32_t epoch)
{
	post(0, host, card, len, dir, epoch);
	wait_done(0);
	uint32_t status = rd(dma_reg(0, QUIRE_DMA_STATUS));
	counted(0, status, len);
	return status;
}

static uint8_t pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + 3);
}

/* What the program writes to card memory itself, for transfers to the host. */
static uint8_t card_pattern(uint32_t i)
{
	return (uint8_t)(i * 13 + 5);
}

static uint32_t cycles(void)
{
	return rd(QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO);
}

static void fill_card(uint32_t card, uint32_t len, uint32_t word)
{
	for (uint32_t i = 0; i < len; i += 4)
		wr(QUIRE_CARD_MEM + card + i, word);
}

static int card_is(uint32_t card, uint32_t len, uint32_t word)
{
	for (uint32_t i = 0; i < len; i += 4)
		if (rd(QUIRE_CARD_MEM + card + i) != word)
			return 0;
	return 1;
}

/* Whether card bytes [card, card + len) are the host pattern (or the card pattern) from
 * offset `from` on (a load a word, the pattern's bytes stepped). */
static int card_holds(uint32_t card, uint32_t len, int of_card, uint32_t from)
{
	uint8_t want = of_card ? card_pattern(from) : pattern(from);
	const uint8_t step =
	    (uint8_t)(of_card ? card_pattern(1) - card_pattern(0) : pattern(1) - pattern(0));
	uint32_t word = 0;
	for (uint32_t i = 0; i < len; i++, want += step) {
		uint32_t at = card + i;
		if (i == 0 || (at & 3) == 0)
			word = rd(QUIRE_CARD_MEM + (at & ~3u));
		if ((uint8_t)(word >> 8 * (at & 3)) != want)
			return 0;
	}
	return 1;
}

/* The queue of 16: host offsets from the window's base. A transfer to the card is checked
 * in card memory, one to the host by copying the host bytes back into card memory. The
 * expected bytes are the host pattern (or the card pattern) from `from` on. */
struct xfer {
	uint32_t dir, host, card, len;
	uint8_t of_card;
	uint32_t from;
};
#define PAT_CARD 0x200000u /* card_pattern(i) at PAT_CARD + i */
#define BACK     0x300000u /* where the host bytes come back to */
static const struct xfer queue16[16] = {
    {QUIRE_DMA_TO_CARD, 0x0, 0x100000, 2048, 0, 0x0},       /* whole lines */
    {QUIRE_DMA_TO_CARD, 0x2001, 0x101041, 3000, 0, 0x2001}, /* both at 1 in their lines */
    {QUIRE_DMA_TO_CARD, 0x3003, 0x102005, 201, 0, 0x3003},  /* words and bytes */
    {QUIRE_DMA_TO_HOST, 0x80000, PAT_CARD, 4096, 1, 0x0},
    {QUIRE_DMA_TO_HOST, 0x82007, PAT_CARD + 7, 1, 1, 0x7},
    {QUIRE_DMA_TO_CARD, 0x3810, 0x103010, 48, 0, 0x3810},         /* inside a line */
    {QUIRE_DMA_TO_HOST, 0x84102, PAT_CARD + 0x100, 77, 1, 0x100}, /* words and bytes */
    {QUIRE_DMA_TO_CARD, 0x4000, 0x104000, 6000, 0, 0x4000},
    /* the last lines the one before writes, read back at once: it waits for them */
    {QUIRE_DMA_TO_HOST, 0x87700, 0x105700, 0x70, 0, 0x5700},
    /* and the host bytes that one writes, read back */
    {QUIRE_DMA_TO_CARD, 0x87700, 0x110700, 0x70, 0, 0x5700},
    {QUIRE_DMA_TO_HOST, 0x8803f, PAT_CARD + 0x3f, 130, 1, 0x3f}, /* 3 lines from byte 63 */
    {QUIRE_DMA_TO_CARD, 0x5020, 0x105820, 64, 0, 0x5020},        /* a line's bytes over two */
    {QUIRE_DMA_TO_CARD, 0x603e, 0x10603e, 2, 0, 0x603e},
    {QUIRE_DMA_TO_HOST, 0x89000, PAT_CARD + 0x1000, 4091, 1, 0x1000},
    {QUIRE_DMA_TO_CARD, 0x7000, 0x107001, 1, 0, 0x7000},
    {QUIRE_DMA_TO_HOST, 0x8c000, PAT_CARD + 0x2000, 2048, 1, 0x2000},
};

static void check_queue16(uint64_t base, uint32_t epoch)
{
	uint32_t i;
	for (i = 0; i < 0x3000; i += 4)
		wr(QUIRE_CARD_MEM + PAT_CARD + i,
		   (uint32_t)card_pattern(i) | (uint32_t)card_pattern(i + 1) << 8 |
		       (uint32_t)card_pattern(i + 2) << 16 | (uint32_t)card_pattern(i + 3) << 24);
	for (i = 0; i < 16; i++) {
		const struct xfer *x = &queue16[i];
		post(0, base + x->host, x->card, x->len, x->dir, epoch);
		counted(0, QUIRE_OK, x->len);
	}
	/* posted faster than they move: some still queued */
	check(rd(dma_reg(0, QUIRE_DMA_QUEUED)) > 0 && rd(dma_reg(0, QUIRE_DMA_CTRL)) == 0);
	check(wait_done(0));
	check(counts_are(0) && rd(dma_reg(0, QUIRE_DMA_STATUS)) == QUIRE_OK);
	for (i = 0; i < 16; i++) {
		const struct xfer *x = &queue16[i];
		uint32_t at = x->card;
		if (x->dir == QUIRE_DMA_TO_HOST) {
			at = BACK + (x->host & 63);
			check(dma(base + x->host, at, x->len, QUIRE_DMA_TO_CARD, epoch) ==
			      QUIRE_OK);
		}
		check(card_holds(at, x->len, x->of_card, x->from));
	}
	check(counts_are(0));
}

/* fp32 words for the exponents' test: block b's element i (of EXPS_N, and the words past
 * them to the end of the last line, larger than any, which no exponent may count). */
#define EXPS_N      404u /* 6 blocks and one of 20 */
#define EXPS_WORDS  416u /* to the end of that line */
#define EXPS_BLOCKS 7u
static uint32_t exps_word(uint32_t k)
{
	uint32_t b = k / QUIRE_BFP_BLOCK, i = k % QUIRE_BFP_BLOCK;
	if (k >= EXPS_N)
		return 0x7f000000u; /* large (exponent 126), past the transfer's end */
	switch (b) {
	case 0: /* mixed magnitudes and signs: the largest is -3.34 * 2^20 (biased exponent 0x94) */
		return i == 17 ? 0xca560000u : (i * 0x01234567u) & 0x3fffffffu;
	case 1: /* +0 and -0 */
		return i & 1 ? 0x80000000u : 0;
	case 2: /* subnormals: the smallest exponent */
		return i + 1;
	case 3: /* an Inf among finite ones */
		return i == 63 ? 0xff800000u : 0x3f800000u;
	case 4: /* a NaN first */
		return i == 0 ? 0x7fc00001u : 0x40000000u;
	case 5: /* the largest finite: the largest exponent */
		return i == 5 ? 0x7f7fffffu : 0x00800000u;
	default: /* the short block, 1.0 the largest */
		return i == 5 ? 0x3f800000u : 0x00800000u;
	}
}

/* Transfers to the card with their exponents (docs/registers/dma.md). */
static void check_exps(uint64_t base, uint32_t epoch, uint32_t mem)
{
	const uint32_t src = 0x150000, dst = 0x160000, exp = 0x170000, want = 0x171000;
	const uint64_t host = base + 0x1c0000;
	for (uint32_t k = 0; k < EXPS_WORDS; k++)
		wr(QUIRE_CARD_MEM + src + 4 * k, exps_word(k));
	check(dma(host, src, 4 * EXPS_WORDS, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
	/* The golden model's exponents of the EXPS_N elements, computed here from card memory. */
	quire_quant_exponents(EXPS_N, 0, (const float *)(uintptr_t)(QUIRE_CARD_MEM + src), 0,
			      (int8_t *)(uintptr_t)(QUIRE_CARD_MEM + want));
	static const int8_t kinds[EXPS_BLOCKS] = {(int8_t)(0x94 - 126),
						  QUIRE_BFP_EXP_ZERO,
						  QUIRE_BFP_EXP_MIN,
						  QUIRE_BFP_EXP_NONFINITE,
						  QUIRE_BFP_EXP_NONFINITE,
						  QUIRE_BFP_EXP_MAX,
						  1};
	for (uint32_t b = 0; b < EXPS_BLOCKS; b++)
		check((int8_t)card_byte(want + b) == kinds[b]); /* the cases are what they say */
	/* The register reads back; two back to back and a plain transfer behind them. */
	wr(dma_reg(0, QUIRE_DMA_EXP), 0x12345678u);
	check(rd(dma_reg(0, QUIRE_DMA_EXP)) == 0x12345678u);
	fill_card(exp, 64, 0x5a5a5a5au);
	fill_card(dst, 2 * 4 * EXPS_WORDS, 0);
	post_exps(host, dst, 4 * EXPS_N, exp, epoch);
	post_exps(host, dst + 4 * EXPS_WORDS, 4 * 2 * QUIRE_BFP_BLOCK, exp + 32, epoch);
	post(0, base + 0x8000, 0x122000, 256, QUIRE_DMA_TO_CARD, epoch);
	counted(0, QUIRE_OK, 4 * EXPS_N);
	counted(0, QUIRE_OK, 4 * 2 * QUIRE_BFP_BLOCK);
	counted(0, QUIRE_OK, 256);
	check(wait_done(0) && counts_are(0));
	for (uint32_t k = 0; k < EXPS_N; k++)
		check(rd(QUIRE_CARD_MEM + dst + 4 * k) == exps_word(k));
	check(rd(QUIRE_CARD_MEM + dst + 4 * EXPS_N) == 0); /* nothing past LEN */
	for (uint32_t b = 0; b < EXPS_BLOCKS; b++)
		check(card_byte(exp + b) == card_byte(want + b));
	check(card_byte(exp + EXPS_BLOCKS) == 0x5a); /* no block past the last */
	check(card_byte(exp + 32) == card_byte(want) &&
	      card_byte(exp + 33) == card_byte(want + 1) && card_byte(exp + 34) == 0x5a);
	check(card_holds(0x122000, 256, 0, 0x8000));
	/* Refused, in the page's order, moving nothing: the epoch, the host range, then a host
	 * or card address off a line or a length not whole fp32 (INVALID), then the exponents
	 * past card memory (RANGE). */
	fill_card(exp, 64, 0x5a5a5a5au);
	fill_card(dst, 256, 0x0u);
	check(dma_exps(host, dst, 256, exp, epoch + 1) == QUIRE_ERR_PEER);
	check(dma_exps(base - 64, dst, 256, exp, epoch) == QUIRE_ERR_RANGE);
	check(dma_exps(host + 4, dst, 256, exp, epoch) == QUIRE_ERR_INVALID);
	check(dma_exps(host, dst + 4, 256, exp, epoch) == QUIRE_ERR_INVALID);
	check(dma_exps(host, dst, 254, exp, epoch) == QUIRE_ERR_INVALID);
	check(dma_exps(host, dst, 4 * EXPS_N, mem - EXPS_BLOCKS + 1, epoch) == QUIRE_ERR_RANGE);
	check(dma_exps(host, dst, 4 * EXPS_N, mem - EXPS_BLOCKS, epoch) == QUIRE_OK);
	check(card_is(exp, 64, 0x5a5a5a5au) && counts_are(0));
}

/* Transfers to the host decoded on the way (QUIRE_DMA_TO_HOST_DECODE, channel
 * QUIRE_DMA_DECODE_CHANNEL): their bytes against the golden model's decode (hls/quant.c),
 * computed here from the same card memory. */
#define DEC_VALS 0x180000u /* values */
#define DEC_EXPS 0x18f03cu /* exponents, 4 bytes short of a line's end: they span two lines */
#define DEC_WANT 0x190000u /* the golden model's fp32 */
#define DEC_BACK 0x1a0000u /* the host's bytes, copied back */
#define DEC_HOST 0x1d0000u /* from the window's base */
#define DEC_N    404u      /* 6 blocks and one of 20 */

static void post_decode(uint32_t ch, uint64_t host, uint32_t card, uint32_t len, uint32_t exp,
			uint32_t word, uint32_t epoch)
{
	wr(dma_reg(ch, QUIRE_DMA_EXP), exp);
	wr(dma_reg(ch, QUIRE_DMA_DECODE), word);
	post(ch, host, card, len, QUIRE_DMA_TO_HOST_DECODE, epoch);
}

/* One decoding transfer on channel 1, waited for: its status, counted. */
static uint32_t dma_decode(uint64_t host, uint32_t card, uint32_t len, uint32_t exp, uint32_t word,
			   uint32_t epoch)
{
	post_decode(1, host, card, len, exp, word, epoch);
	wait_done(1);
	uint32_t status = rd(dma_reg(1, QUIRE_DMA_STATUS));
	counted(1, status, len);
	return status;
}

/* Whether the n fp32 the host holds at DEC_HOST + off are the golden decode of the values and
 * exponents (format word) in card memory, and the word after them is `after`. */
static int decoded(uint64_t base, uint32_t off, uint32_t n, uint32_t word, uint32_t epoch,
		   uint32_t after)
{
	uint32_t back = 4 * n + 4;
	if (dma(base + DEC_HOST + off, DEC_BACK, back, QUIRE_DMA_TO_CARD, epoch) != QUIRE_OK)
		return 0;
	int st = quire_quant_decode(
	    QUIRE_DMA_DECODE_FORMAT(word), QUIRE_DMA_DECODE_VAL_FORMAT(word), n,
	    QUIRE_DMA_DECODE_MEAN(word), (const uint8_t *)(uintptr_t)(QUIRE_CARD_MEM + DEC_VALS),
	    (const int8_t *)(uintptr_t)(QUIRE_CARD_MEM + DEC_EXPS),
	    (float *)(uintptr_t)(QUIRE_CARD_MEM + DEC_WANT));
	if (st != QUIRE_OK)
		return 0;
	for (uint32_t k = 0; k < n; k++)
		if (rd(QUIRE_CARD_MEM + DEC_BACK + 4 * k) != rd(QUIRE_CARD_MEM + DEC_WANT + 4 * k))
			return 0;
	return rd(QUIRE_CARD_MEM + DEC_BACK + 4 * n) == after;
}

/* Transfers to the host, decoded (docs/registers/dma.md). */
static void check_decode(uint64_t base, uint32_t epoch, uint32_t mem)
{
	const uint64_t host = base + DEC_HOST;
	const uint32_t bfp8 = QUIRE_FMT_BFP8, bfp16 = QUIRE_FMT_BFP16;
	/* Values: the card pattern; each block's exponent one of each kind. */
	for (uint32_t i = 0; i < 4 * DEC_N; i += 4)
		wr(QUIRE_CARD_MEM + DEC_VALS + i,
		   (uint32_t)card_pattern(i) | (uint32_t)card_pattern(i + 1) << 8 |
		       (uint32_t)card_pattern(i + 2) << 16 | (uint32_t)card_pattern(i + 3) << 24);
	static const int8_t kinds[EXPS_BLOCKS] = {-3,
						  QUIRE_BFP_EXP_ZERO,
						  QUIRE_BFP_EXP_MIN,
						  QUIRE_BFP_EXP_NONFINITE,
						  20,
						  QUIRE_BFP_EXP_MAX,
						  1};
	for (uint32_t b = 0; b < EXPS_BLOCKS; b++) {
		uint32_t at = QUIRE_CARD_MEM + ((DEC_EXPS + b) & ~3u),
			 sh = 8 * ((DEC_EXPS + b) & 3);
		wr(at, (rd(at) & ~(0xffu << sh)) | (uint32_t)(uint8_t)kinds[b] << sh);
	}
	/* The register reads back, and on channel 0 the direction is refused. */
	wr(dma_reg(1, QUIRE_DMA_DECODE), 0x87654321u);
	check(rd(dma_reg(1, QUIRE_DMA_DECODE)) == 0x87654321u);
	wr(dma_reg(0, QUIRE_DMA_DECODE), QUIRE_DMA_DECODE_WORD(bfp8, QUIRE_FMT_INT8, 1));
	wr(dma_reg(0, QUIRE_DMA_EXP), DEC_EXPS);
	check(dma(host, DEC_VALS, 64, QUIRE_DMA_TO_HOST_DECODE, epoch) == QUIRE_ERR_INVALID);
	/* Each value format, with and without the mean, the host's word after LEN untouched. */
	static const uint32_t words[] = {
	    QUIRE_DMA_DECODE_WORD(bfp8, QUIRE_FMT_INT8, 4),
	    QUIRE_DMA_DECODE_WORD(bfp8, QUIRE_FMT_INT8, 1),
	    QUIRE_DMA_DECODE_WORD(bfp16, QUIRE_FMT_INT16, 0),
	    QUIRE_DMA_DECODE_WORD(bfp8, QUIRE_FMT_INT16, 3),
	    QUIRE_DMA_DECODE_WORD(bfp8, QUIRE_FMT_INT32, 7),
	    QUIRE_DMA_DECODE_WORD(QUIRE_FMT_FP16, QUIRE_FMT_FP16, 1),
	};
	for (uint32_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		fill_card(DEC_BACK, 4 * DEC_N + 64, 0x5a5a5a5au);
		check(dma(host, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
		check(dma_decode(host, DEC_VALS, 4 * DEC_N, DEC_EXPS, words[k], epoch) == QUIRE_OK);
		check(decoded(base, 0, DEC_N, words[k], epoch, 0x5a5a5a5au));
	}
	/* Two back to back (the second one block) and a plain transfer behind them. */
	const uint32_t w4 = QUIRE_DMA_DECODE_WORD(bfp8, QUIRE_FMT_INT8, 4);
	fill_card(DEC_BACK, 512, 0x5a5a5a5au);
	check(dma(host + 0x1000, DEC_BACK, 512, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
	post_decode(1, host, DEC_VALS, 4 * DEC_N, DEC_EXPS, w4, epoch);
	post_decode(1, host + 0x1000, DEC_VALS, 4 * 64, DEC_EXPS, w4, epoch);
	post(1, host + 0x2000, PAT_CARD, 256, QUIRE_DMA_TO_HOST, epoch);
	counted(1, QUIRE_OK, 4 * DEC_N);
	counted(1, QUIRE_OK, 4 * 64);
	counted(1, QUIRE_OK, 256);
	check(wait_done(1) && counts_are(1));
	check(decoded(base, 0, DEC_N, w4, epoch, 0x5a5a5a5au));
	check(decoded(base, 0x1000, 64, w4, epoch, 0x5a5a5a5au));
	check(dma(host + 0x2000, DEC_BACK, 256, QUIRE_DMA_TO_CARD, epoch) == QUIRE_OK &&
	      card_holds(DEC_BACK, 256, 1, 0));
	/* Back to back with another mean (the second begins once the first's lines are out). */
	const uint32_t w1 = QUIRE_DMA_DECODE_WORD(bfp8, QUIRE_FMT_INT8, 1);
	fill_card(DEC_BACK, 4 * DEC_N + 64, 0x5a5a5a5au);
	check(dma(host, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
	check(dma(host + 0x1000, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
	post_decode(1, host, DEC_VALS, 4 * DEC_N, DEC_EXPS, w4, epoch);
	post_decode(1, host + 0x1000, DEC_VALS, 4 * DEC_N, DEC_EXPS, w1, epoch);
	counted(1, QUIRE_OK, 4 * DEC_N);
	counted(1, QUIRE_OK, 4 * DEC_N);
	check(wait_done(1) && counts_are(1));
	check(decoded(base, 0, DEC_N, w4, epoch, 0x5a5a5a5au));
	check(decoded(base, 0x1000, DEC_N, w1, epoch, 0x5a5a5a5au));
	/* One refused (an exponent below ZERO) begun behind one whose lines still go: it
	 * finishes RANGE after it, sending nothing, and the one behind it goes on. */
	const uint32_t bad_exps = DEC_EXPS + 0x100;
	for (uint32_t b = 0; b < EXPS_BLOCKS; b++) {
		uint32_t at = QUIRE_CARD_MEM + ((bad_exps + b) & ~3u),
			 sh = 8 * ((bad_exps + b) & 3);
		int8_t e = b == 5 ? (int8_t)(QUIRE_BFP_EXP_ZERO - 1) : kinds[b];
		wr(at, (rd(at) & ~(0xffu << sh)) | (uint32_t)(uint8_t)e << sh);
	}
	fill_card(DEC_BACK, 4 * DEC_N + 64, 0x5a5a5a5au);
	check(dma(host, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
	check(dma(host + 0x1000, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
	post_decode(1, host, DEC_VALS, 4 * DEC_N, DEC_EXPS, w4, epoch);
	post_decode(1, host + 0x1000, DEC_VALS, 4 * DEC_N, bad_exps, w4, epoch);
	post(1, host + 0x2000, PAT_CARD + 256, 256, QUIRE_DMA_TO_HOST, epoch);
	counted(1, QUIRE_OK, 4 * DEC_N);
	counted(1, QUIRE_ERR_RANGE, 4 * DEC_N);
	counted(1, QUIRE_OK, 256);
	check(wait_done(1) && counts_are(1));
	check(decoded(base, 0, DEC_N, w4, epoch, 0x5a5a5a5au));
	check(dma(host + 0x1000, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_CARD, epoch) == QUIRE_OK &&
	      card_is(DEC_BACK, 4 * DEC_N + 64, 0x5a5a5a5au));
	check(dma(host + 0x2000, DEC_BACK, 256, QUIRE_DMA_TO_CARD, epoch) == QUIRE_OK &&
	      card_holds(DEC_BACK, 256, 1, 256));
	/* Refused in the page's order, moving nothing: the epoch; the host range; the values
	 * past card memory (LEN / 4 of INT8 at the end is inside); HOST, CARD off a line, LEN not
	 * whole fp32, a pair of formats it does not decode (INVALID); the exponents past card
	 * memory, then one below ZERO (RANGE). */
	fill_card(DEC_BACK, 4 * DEC_N + 64, 0x5a5a5a5au);
	check(dma(host, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
	const uint32_t len = 4 * DEC_N;
	check(dma_decode(host, DEC_VALS, len, DEC_EXPS, w4, epoch + 1) == QUIRE_ERR_PEER);
	check(dma_decode(base - 64, DEC_VALS, len, DEC_EXPS, w4, epoch) == QUIRE_ERR_RANGE);
	check(dma_decode(host, mem - 384, 4 * 448, DEC_EXPS, w4, epoch) == QUIRE_ERR_RANGE);
	check(dma_decode(host, mem - 448, 4 * 448, DEC_EXPS, w4, epoch) == QUIRE_OK);
	check(dma(host, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_HOST, epoch) == QUIRE_OK);
	check(dma_decode(host + 4, DEC_VALS, len, DEC_EXPS, w4, epoch) == QUIRE_ERR_INVALID);
	check(dma_decode(host, DEC_VALS + 4, len, DEC_EXPS, w4, epoch) == QUIRE_ERR_INVALID);
	check(dma_decode(host, DEC_VALS, len - 2, DEC_EXPS, w4, epoch) == QUIRE_ERR_INVALID);
	check(dma_decode(host, DEC_VALS, len, DEC_EXPS,
			 QUIRE_DMA_DECODE_WORD(bfp8, QUIRE_FMT_FP16, 1),
			 epoch) == QUIRE_ERR_INVALID);
	check(dma_decode(host, DEC_VALS, len, DEC_EXPS,
			 QUIRE_DMA_DECODE_WORD(QUIRE_FMT_FP32, QUIRE_FMT_FP32, 1),
			 epoch) == QUIRE_ERR_INVALID);
	check(dma_decode(host, DEC_VALS, len, mem - EXPS_BLOCKS + 1, w4, epoch) == QUIRE_ERR_RANGE);
	uint32_t at = QUIRE_CARD_MEM + ((DEC_EXPS + 6) & ~3u), sh = 8 * ((DEC_EXPS + 6) & 3);
	uint32_t keep = rd(at);
	wr(at, (keep & ~(0xffu << sh)) | (uint32_t)(uint8_t)(QUIRE_BFP_EXP_ZERO - 1) << sh);
	check(dma_decode(host, DEC_VALS, len, DEC_EXPS, w4, epoch) == QUIRE_ERR_RANGE);
	wr(at, keep);
	check(dma(host, DEC_BACK, 4 * DEC_N + 64, QUIRE_DMA_TO_CARD, epoch) == QUIRE_OK &&
	      card_is(DEC_BACK, 4 * DEC_N + 64, 0x5a5a5a5au) && counts_are(1));
}

int main(void)
{
	const uint32_t to_card = QUIRE_DMA_TO_CARD, to_host = QUIRE_DMA_TO_HOST;
	uint64_t base = (uint64_t)rd(QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_BASE_HI) << 32 |
			rd(QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_BASE_LO);
	uint64_t size = (uint64_t)rd(QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_SIZE_HI) << 32 |
			rd(QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_SIZE_LO);
	uint32_t epoch = rd(QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	uint32_t mem = rd(QUIRE_CARD_BAR + QUIRE_ID_MEM_LO); /* the ID block is at BAR offset 0 */

	/* Nothing done yet: the counts at 0, FAILED_STATUS QUIRE_OK, CTRL 0. */
	check(counts_are(0) && counts_are(1) && rd(dma_reg(0, QUIRE_DMA_QUEUED)) == 0 &&
	      rd(dma_reg(0, QUIRE_DMA_CTRL)) == 0);
	/* The order of the checks: epoch first, then the bounds, then the direction. */
	check(dma(base, 0, 16, to_card, epoch + 1) == QUIRE_ERR_PEER);
	check(dma(base - 1, 0, 1, 7, epoch + 1) == QUIRE_ERR_PEER);
	check(dma(base - 1, 0, 1, 7, epoch) == QUIRE_ERR_RANGE);
	check(dma(base, 0, 1, 7, epoch) == QUIRE_ERR_INVALID);
	/* The host window's edges. */
	check(dma(base + size - 4, 0, 4, to_card, epoch) == QUIRE_OK);
	check(dma(base + size - 3, 0, 4, to_card, epoch) == QUIRE_ERR_RANGE);
	check(dma(base + size, 0, 0, to_card, epoch) == QUIRE_OK);
	check(dma(base + size + 1, 0, 0, to_card, epoch) == QUIRE_ERR_RANGE);
	check(dma(base, 0, 0xffffffffu, to_card, epoch) == QUIRE_ERR_RANGE);
	/* Card memory's edges. */
	check(dma(base, mem - 4, 4, to_card, epoch) == QUIRE_OK);
	check(dma(base, mem - 3, 4, to_card, epoch) == QUIRE_ERR_RANGE);
	check(dma(base, mem + 1, 0, to_card, epoch) == QUIRE_ERR_RANGE);
	/* Unaligned both ways: host +1 -> card 0x103, back to host +0x1002, then to card 0x2000. */
	const uint32_t n = 37;
	check(dma(base + 1, 0x103, n, to_card, epoch) == QUIRE_OK);
	for (uint32_t i = 0; i < n; i++)
		check(card_byte(0x103 + i) == pattern(1 + i));
	check(dma(base + 0x1002, 0x103, n, to_host, epoch) == QUIRE_OK);
	check(dma(base + 0x1002, 0x2000, n, to_card, epoch) == QUIRE_OK);
	for (uint32_t i = 0; i < n; i++)
		check(card_byte(0x2000 + i) == pattern(1 + i));
	/* A refused transfer moves nothing: card 0x3000 keeps what was written there. */
	wr(QUIRE_CARD_MEM + 0x3000, 0x11223344u);
	wr(QUIRE_CARD_MEM + 0x3004, 0x55667788u);
	check(dma(base - 4, 0x3000, 8, to_card, epoch) == QUIRE_ERR_RANGE);
	check(rd(QUIRE_CARD_MEM + 0x3000) == 0x11223344u &&
	      rd(QUIRE_CARD_MEM + 0x3004) == 0x55667788u);
	/* Each finished, refused ones too, was counted; DONE and nothing queued. */
	check(counts_are(0) && rd(dma_reg(0, QUIRE_DMA_QUEUED)) == 0 &&
	      rd(dma_reg(0, QUIRE_DMA_CTRL)) == QUIRE_DMA_DONE);

	/* The two channels, QUIRE_DMA_CHANNEL_BYTES apart, each its own registers and counts,
	 * four transfers queued on each at once: to the card on 0, to the host on 1. */
	wr(dma_reg(1, QUIRE_DMA_CARD), 0x5a5a5a5au);
	check(rd(dma_reg(1, QUIRE_DMA_CARD)) == 0x5a5a5a5au &&
	      rd(dma_reg(0, QUIRE_DMA_CARD)) == 0x3000u && counts_are(1));
	fill_card(0x60000, 0x1000, 0x0badf00du);
	for (uint32_t k = 0; k < 4; k++) {
		post(0, base + 0x10000 + k * 0x400, 0x50000 + k * 0x400, 0x400, to_card, epoch);
		counted(0, QUIRE_OK, 0x400);
		post(1, base + 0x90000 + k * 0x400, 0x60000 + k * 0x400, 0x400, to_host, epoch);
		counted(1, QUIRE_OK, 0x400);
	}
	check(wait_done(0) && wait_done(1) && counts_are(0) && counts_are(1));
	check(card_holds(0x50000, 0x1000, 0, 0x10000));
	check(dma(base + 0x90000, 0x70000, 0x1000, to_card, epoch) == QUIRE_OK &&
	      card_is(0x70000, 0x1000, 0x0badf00du));

	/* 16 posted without waiting, then checked byte for byte. */
	check_queue16(base, epoch);

	/* A refused one among others: the card range (the last 64 bytes of card memory and
	 * past them) is QUIRE_ERR_RANGE, and moves nothing; the ones around it move. */
	fill_card(mem - 64, 64, 0x600dcafeu);
	post(0, base + 0x8000, 0x120000, 2048, to_card, epoch);
	post(0, base + 0xa000, mem - 64, 128, to_card, epoch);
	post(0, base + 0x9000, 0x121000, 1000, to_card, epoch);
	counted(0, QUIRE_OK, 2048);
	counted(0, QUIRE_ERR_RANGE, 128);
	counted(0, QUIRE_OK, 1000);
	check(wait_done(0) && counts_are(0) && rd(dma_reg(0, QUIRE_DMA_STATUS)) == QUIRE_OK);
	check(card_is(mem - 64, 64, 0x600dcafeu) && card_holds(0x120000, 2048, 0, 0x8000) &&
	      card_holds(0x121000, 1000, 0, 0x9000));

	/* The queue full: a slow transfer (host and card at different offsets: a byte a
	 * request) and 15 behind it; the 17th START is refused at once, counted, BUSY, and
	 * moves nothing; the queue is unchanged and runs to its end. */
	fill_card(0x132000, 64, 0xfeedf00du);
	post(0, base + 0xb001, 0x130000, 512, to_card, epoch);
	for (uint32_t k = 0; k < 15; k++)
		post(0, base + 0xc000 + k * 64, 0x131000 + k * 64, 64, to_card, epoch);
	check(rd(dma_reg(0, QUIRE_DMA_QUEUED)) == QUIRE_DMA_QUEUE_DEPTH);
	post(0, base + 0xd000, 0x132000, 64, to_card, epoch);
	counted(0, QUIRE_ERR_BUSY, 64); /* the 16 before it still queued, none counted */
	check(rd(dma_reg(0, QUIRE_DMA_STATUS)) == QUIRE_ERR_BUSY &&
	      rd(dma_reg(0, QUIRE_DMA_QUEUED)) == QUIRE_DMA_QUEUE_DEPTH &&
	      rd(dma_reg(0, QUIRE_DMA_CTRL)) == 0 && counts_are(0));
	counted(0, QUIRE_OK, 512);
	for (uint32_t k = 0; k < 15; k++)
		counted(0, QUIRE_OK, 64);
	check(wait_done(0) && counts_are(0) && rd(dma_reg(0, QUIRE_DMA_STATUS)) == QUIRE_OK);
	check(card_holds(0x130000, 512, 0, 0xb001) && card_holds(0x131000, 15 * 64, 0, 0xc000) &&
	      card_is(0x132000, 64, 0xfeedf00du));

	/* The epoch moves on while a transfer waits behind a slow one: it is checked when it
	 * begins, and refused QUIRE_ERR_PEER; one posted with the new epoch moves. The host
	 * moves it (a write of a queue's CTRL), asked through the console. */
	fill_card(0x141000, 256, 0xdeadbeefu);
	post(0, base + 0xe001, 0x140000, 256, to_card, epoch);
	post(0, base + 0xe400, 0x141000, 256, to_card, epoch);
	counted(0, QUIRE_OK, 256);
	counted(0, QUIRE_ERR_PEER, 256);
	wr(QUIRE_CARD_SIM_IO + QUIRE_SIM_IO_CONSOLE, CARD_DMA_ASK_EPOCH);
	while (rd(QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH) == epoch)
		;
	epoch = rd(QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	check(rd(dma_reg(0, QUIRE_DMA_DONE_COUNT)) == want[0].done - 2); /* the slow one runs */
	post(0, base + 0xe800, 0x142000, 256, to_card, epoch);
	counted(0, QUIRE_OK, 256);
	check(wait_done(0) && counts_are(0) && rd(dma_reg(0, QUIRE_DMA_STATUS)) == QUIRE_OK);
	check(card_holds(0x140000, 256, 0, 0xe001) && card_is(0x141000, 256, 0xdeadbeefu) &&
	      card_holds(0x142000, 256, 0, 0xe800));

	check_exps(base, epoch, mem);
	check_decode(base, epoch, mem);

	/* The rate: transfers of whole lines back to back, to the card, then to the host;
	 * test_card_top checks the copy and prints the cycles against the link's. */
	const uint32_t rate_card = 0x400000;
	uint32_t t0 = cycles();
	for (uint32_t k = 0; k < CARD_DMA_RATE_COUNT; k++)
		post(0, base + k * CARD_DMA_RATE_BYTES, rate_card + k * CARD_DMA_RATE_BYTES,
		     CARD_DMA_RATE_BYTES, to_card, epoch);
	check(wait_done(0));
	uint32_t t1 = cycles();
	for (uint32_t k = 0; k < CARD_DMA_RATE_COUNT; k++)
		post(0, base + CARD_DMA_RATE_TO_HOST + k * CARD_DMA_RATE_BYTES,
		     rate_card + k * CARD_DMA_RATE_BYTES, CARD_DMA_RATE_BYTES, to_host, epoch);
	check(wait_done(0));
	uint32_t t2 = cycles();
	for (uint32_t k = 0; k < 2 * CARD_DMA_RATE_COUNT; k++)
		counted(0, QUIRE_OK, CARD_DMA_RATE_BYTES);
	check(counts_are(0));
	wr(QUIRE_CARD_MEM + 0x3100, t1 - t0);
	wr(QUIRE_CARD_MEM + 0x3104, t2 - t1);
	check(dma(base + CARD_DMA_FIGURES, 0x3100, 8, to_host, epoch) == QUIRE_OK);

	/* Access faults: skipped, counted, loads all ones; the program goes on. */
	const uint32_t nowhere = QUIRE_CARD_ENGINE(16) + QUIRE_ENGINE_CTRL;
	check(fw_access_faults == 0);
	check(rd(nowhere) == 0xffffffffu);
	check(fw_access_faults == 1);
	wr(nowhere, QUIRE_ENGINE_START);
	check(fw_access_faults == 2);
	check(rd(QUIRE_CARD_MEM + 0x3000) == 0x11223344u);
	finish(0);
	return 0;
}
