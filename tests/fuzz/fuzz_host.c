// SPDX-License-Identifier: MIT
/* The host side of the fuzz inputs (fuzz_host.h). */
#include "fuzz_host.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quire/regblock.h"
#include "quire/regs.h"
#include "quire/status.h"

#define IOVA       0x300000000ull
#define HOST_BYTES (16u << 20)
#define CMD_RING   0x0
#define CPL_RING   0x4000
#define LOG2       4u
#define SLOTS      (1u << LOG2)
/* A fresh communicator's descriptor, in the harness's own pages. */
#define COMM_DESC 0x8000

/* Polls of the completion ring between two looks at the card's clock (each poll sleeps
 * 100 us): the clock costs three register reads, which an RTL card serves between its
 * clock edges. */
#define POLLS_PER_CLOCK_READ 16u

static void wr(struct fuzz_host *h, uint32_t off, uint32_t v)
{
	h->dev->ops->mmio_write(h->dev, off, v);
}

/* The card's clock (QUIRE_CNT_CYCLES). The high word is read on both sides of the low
 * one: a carry between the two reads must not pass for 2^32 cycles. */
static uint64_t card_cycles(struct fuzz_host *h)
{
	uint32_t hi, lo;
	do {
		hi = quire_device_read32(h->dev, h->counters + QUIRE_CNT_CYCLES_HI);
		lo = quire_device_read32(h->dev, h->counters + QUIRE_CNT_CYCLES_LO);
	} while (quire_device_read32(h->dev, h->counters + QUIRE_CNT_CYCLES_HI) != hi);
	return (uint64_t)hi << 32 | lo;
}

int fuzz_host_setup(struct fuzz_host *h, struct quire_device *dev, uint64_t hang_cycles)
{
	memset(h, 0, sizeof(*h));
	h->dev = dev;
	h->phase = 1;
	h->hang_cycles = hang_cycles;
	h->host = aligned_alloc(4096, HOST_BYTES);
	if (!h->host)
		return -1;
	memset(h->host, 0, HOST_BYTES);
	dev->ops->attach_host(dev, h->host, IOVA, HOST_BYTES);
	const struct quire_regblock_need need[] = {
	    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, &h->cmdq},
	    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &h->cplq},
	    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION, &h->counters},
	};
	struct quire_regblock_chain chain;
	if (quire_regblock_walk(quire_device_read32, dev, &chain) != QUIRE_OK ||
	    quire_regblock_find_all(&chain, need, sizeof(need) / sizeof(need[0]), NULL) !=
		QUIRE_OK) {
		free(h->host);
		return -1;
	}
	uint32_t blocks[2] = {h->cplq, h->cmdq};
	uint64_t bases[2] = {IOVA + CPL_RING, IOVA + CMD_RING};
	for (int i = 0; i < 2; i++) {
		wr(h, blocks[i] + QUIRE_Q_BASE_LO, (uint32_t)bases[i]);
		wr(h, blocks[i] + QUIRE_Q_BASE_HI, (uint32_t)(bases[i] >> 32));
		wr(h, blocks[i] + QUIRE_Q_SIZE_LOG2, LOG2);
		wr(h, blocks[i] + QUIRE_Q_CTRL, QUIRE_Q_CTRL_ENABLE);
	}
	return 0;
}

void fuzz_host_free(struct fuzz_host *h)
{
	h->dev->ops->detach_host(h->dev);
	free(h->host);
	h->host = NULL;
}

/*
 * The next completion; -1 when none came while the card's clock moved hang_cycles, from
 * the first look at it here (the doorbell or the completion before, give or take the
 * cycles of one poll). No wall-clock limit: however slowly the machine runs the card, an
 * input passes or fails alike.
 */
static int reap(struct fuzz_host *h, struct quire_cpl *out)
{
	struct quire_cpl *slot = (struct quire_cpl *)(h->host + CPL_RING) + (h->cons & (SLOTS - 1));
	uint64_t start = card_cycles(h), waited = 0;
	for (unsigned i = 0;; i++) {
		__le32 flags = (quire_force __le32)__atomic_load_n(
		    (const __u32 *)(const void *)&slot->flags, __ATOMIC_ACQUIRE);
		if ((quire_le32_to_cpu(flags) & QUIRE_CPL_F_PHASE) == h->phase) {
			*out = *slot;
			if ((++h->cons & (SLOTS - 1)) == 0)
				h->phase ^= 1;
			wr(h, h->cplq + QUIRE_Q_CONSUMER, h->cons);
			waited = card_cycles(h) - start;
			if (waited > h->longest_wait)
				h->longest_wait = waited;
			return 0;
		}
		if (i % POLLS_PER_CLOCK_READ == 0) {
			waited = card_cycles(h) - start;
			if (waited > h->hang_cycles)
				return -1;
		}
		nanosleep(&(struct timespec){0, 100000}, NULL);
	}
}

static void submit(struct fuzz_host *h, const struct quire_cmd *c)
{
	memcpy(h->host + CMD_RING + (h->prod & (SLOTS - 1)) * QUIRE_CMD_BYTES, c, sizeof(*c));
	h->prod++;
}

/* A communicator of one member, id 1, before every input, so that fuzzed collectives run
 * (the card has no network) and no input inherits one an earlier input broke. */
static int fresh_communicator(struct fuzz_host *h, const char **why)
{
	struct quire_comm_desc *d = (struct quire_comm_desc *)(h->host + COMM_DESC);
	memset(d, 0, QUIRE_COMM_DESC_BYTES(1));
	d->comm = quire_cpu_to_le16(1);
	d->size = quire_cpu_to_le16(1);
	d->timeout_ms = quire_cpu_to_le32(100);
	struct quire_cmd free1 = {.opcode = QUIRE_OPC_COMM_FREE,
				  .seq = quire_cpu_to_le32(100),
				  .workers = quire_cpu_to_le16(1)};
	struct quire_cmd init = {.opcode = QUIRE_OPC_COMM_INIT,
				 .seq = quire_cpu_to_le32(101),
				 .count = quire_cpu_to_le32(QUIRE_COMM_DESC_BYTES(1)),
				 .src = quire_cpu_to_le64(IOVA + COMM_DESC)};
	submit(h, &free1);
	submit(h, &init);
	wr(h, h->cmdq + QUIRE_Q_PRODUCER, h->prod);
	struct quire_cpl done;
	if (reap(h, &done) || reap(h, &done))
		return *why = "no completion for the fresh communicator", -1;
	if (quire_le32_to_cpu(done.seq) != 101 || quire_le16_to_cpu(done.status) != QUIRE_OK)
		return *why = "the fresh communicator failed", -1;
	return 0;
}

int fuzz_host_run(struct fuzz_host *h, const uint8_t *data, size_t size, struct fuzz_result *r,
		  const char **why)
{
	memset(r, 0, sizeof(*r));
	if (size < 1)
		return 0;
	if (fresh_communicator(h, why))
		return -1;
	uint8_t reloc = data[0];
	data++;
	size--;
	r->n = size / sizeof(struct quire_cmd);
	if (r->n > FUZZ_MAX_CMDS)
		r->n = FUZZ_MAX_CMDS;
	for (size_t i = 0; i < r->n; i++) {
		struct quire_cmd *c = &r->cmds[i];
		memcpy(c, data + i * sizeof(*c), sizeof(*c));
		/* The input's bytes are the descriptor's, little-endian. */
		__le64 *fields[4] = {&c->src, &c->dst, &c->exp, &c->aux};
		for (int f = 0; f < 4; f++) {
			uint64_t addr = quire_le64_to_cpu(*fields[f]);
			if (reloc &
			    (1u << f)) /* into the window, keeping the low bits' alignment */
				addr = IOVA + 0x10000 + (addr % (HOST_BYTES - 0x10000));
			/* The rings are the harness's own: a descriptor told to write over them
			 * would be obeyed (the host owns that memory), which tests nothing. */
			if (addr >= IOVA && addr < IOVA + 0x10000)
				addr += 0x10000;
			*fields[f] = quire_cpu_to_le64(addr);
		}
		if (reloc & 0x10) /* keep element counts where the engines finish quickly */
			c->count = quire_cpu_to_le32(quire_le32_to_cpu(c->count) % (1u << 16));
		c->seq = quire_cpu_to_le32(i);
		submit(h, c);
	}
	wr(h, h->cmdq + QUIRE_Q_PRODUCER, h->prod);
	for (size_t i = 0; i < r->n; i++) {
		if (reap(h, &r->cpls[i]))
			return *why = "a descriptor's completion never came (a hang)", -1;
		if (quire_le32_to_cpu(r->cpls[i].seq) != i)
			return *why = "a completion out of order", -1;
	}
	struct quire_cmd nop = {.opcode = QUIRE_OPC_NOP, .seq = quire_cpu_to_le32(99)};
	submit(h, &nop);
	wr(h, h->cmdq + QUIRE_Q_PRODUCER, h->prod);
	if (reap(h, &r->nop))
		return *why = "the NOP after the input never completed", -1;
	if (quire_le32_to_cpu(r->nop.seq) != 99 || quire_le16_to_cpu(r->nop.status) != QUIRE_OK)
		return *why = "the card no longer serves a NOP", -1;
	return 0;
}
