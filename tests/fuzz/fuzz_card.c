// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the descriptor validator and the command loop of the real
 * firmware, on the functional card model.
 *
 * An input is up to 8 descriptors of 64 bytes; its first byte chooses which
 * address fields are moved into the card's DMA window (so fuzzing reaches the
 * engines, not only the validator). Each descriptor goes through the ring;
 * the card must answer every one, in order, with a known status, the status
 * the validator gives whenever the validator refuses it, and still serve a NOP
 * afterwards. Descriptors never point at the rings' pages (see below). Build and run: make fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "firmware/fw.h"
#include "sim/emu/emu.h"
#include "quire/regs.h"
#include "quire/status.h"

#define IOVA       0x300000000ull
#define HOST_BYTES (16u << 20)
#define CMD_RING   0x0
#define CPL_RING   0x4000
#define LOG2       4u

static struct quire_device *dev;
static uint8_t *host;
static uint32_t cmdq, cplq;
static uint32_t prod, cons, phase = 1;

static uint32_t rd(uint32_t off)
{
	return dev->ops->mmio_read(dev, off);
}

static void wr(uint32_t off, uint32_t v)
{
	dev->ops->mmio_write(dev, off, v);
}

static void setup(void)
{
	dev = quire_emu_create(NULL);
	host = aligned_alloc(4096, HOST_BYTES);
	if (!dev || !host)
		abort();
	memset(host, 0, HOST_BYTES);
	dev->ops->attach_host(dev, host, IOVA, HOST_BYTES);
	for (uint32_t off = 0, hops = 0; hops < 16; hops++) {
		uint32_t type = rd(off + QUIRE_RB_TYPE);
		if (type == QUIRE_RB_TYPE_CMDQ)
			cmdq = off;
		else if (type == QUIRE_RB_TYPE_CPLQ)
			cplq = off;
		if (!(off = rd(off + QUIRE_RB_NEXT)))
			break;
	}
	uint32_t blocks[2] = {cplq, cmdq};
	uint64_t bases[2] = {IOVA + CPL_RING, IOVA + CMD_RING};
	for (int i = 0; i < 2; i++) {
		wr(blocks[i] + QUIRE_Q_BASE_LO, (uint32_t)bases[i]);
		wr(blocks[i] + QUIRE_Q_BASE_HI, (uint32_t)(bases[i] >> 32));
		wr(blocks[i] + QUIRE_Q_SIZE_LOG2, LOG2);
		wr(blocks[i] + QUIRE_Q_CTRL, QUIRE_Q_CTRL_ENABLE);
	}
}

static struct quire_cpl reap(void)
{
	struct quire_cpl *slot =
	    (struct quire_cpl *)(host + CPL_RING) + (cons & ((1u << LOG2) - 1));
	for (int i = 0; i < 20000; i++) {
		if ((__atomic_load_n(&slot->flags, __ATOMIC_ACQUIRE) & QUIRE_CPL_F_PHASE) ==
		    phase) {
			struct quire_cpl c = *slot;
			if ((++cons & ((1u << LOG2) - 1)) == 0)
				phase ^= 1;
			wr(cplq + QUIRE_Q_CONSUMER, cons);
			return c;
		}
		nanosleep(&(struct timespec){0, 100000}, NULL);
	}
	abort(); /* the card stopped answering: a hang is a bug */
}

static void submit(const struct quire_cmd *c)
{
	memcpy(host + CMD_RING + (prod & ((1u << LOG2) - 1)) * QUIRE_CMD_BYTES, c, sizeof(*c));
	prod++;
}

/*
 * A fresh communicator of one member, id 1, before every input, so that fuzzed collectives
 * run (this card has no network) and no input inherits one an earlier input broke. Its
 * descriptor lies in the harness's own pages.
 */
#define COMM_DESC 0x8000
static void fresh_communicator(void)
{
	struct quire_comm_desc *d = (struct quire_comm_desc *)(host + COMM_DESC);
	memset(d, 0, QUIRE_COMM_DESC_BYTES(1));
	d->comm = 1;
	d->size = 1;
	d->timeout_ms = 100;
	struct quire_cmd free1 = {.opcode = QUIRE_OPC_COMM_FREE, .seq = 100, .workers = 1};
	struct quire_cmd init = {.opcode = QUIRE_OPC_COMM_INIT,
				 .seq = 101,
				 .count = QUIRE_COMM_DESC_BYTES(1),
				 .src = IOVA + COMM_DESC};
	submit(&free1);
	submit(&init);
	wr(cmdq + QUIRE_Q_PRODUCER, prod);
	reap();
	struct quire_cpl done = reap();
	if (done.seq != 101 || done.status != QUIRE_OK)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dev)
		setup();
	if (size < 1)
		return 0;
	fresh_communicator();
	uint8_t reloc = data[0];
	data++;
	size--;
	size_t n = size / sizeof(struct quire_cmd);
	if (n > 8)
		n = 8;
	struct quire_cmd cmds[8];
	for (size_t i = 0; i < n; i++) {
		struct quire_cmd *c = &cmds[i];
		memcpy(c, data + i * sizeof(*c), sizeof(*c));
		__u64 *fields[4] = {&c->src, &c->dst, &c->exp, &c->aux};
		for (int f = 0; f < 4; f++) {
			if (reloc &
			    (1u << f)) /* into the window, keeping the low bits' alignment */
				*fields[f] = IOVA + 0x10000 + (*fields[f] % (HOST_BYTES - 0x10000));
			/* The rings are the harness's own: a descriptor told to write over them
			 * would be obeyed (the host owns that memory), which tests nothing. */
			if (*fields[f] >= IOVA && *fields[f] < IOVA + 0x10000)
				*fields[f] += 0x10000;
		}
		if (reloc & 0x10) /* keep element counts where the engines finish quickly */
			c->count %= 1u << 16;
		c->seq = (uint32_t)i;
		submit(c);
	}
	wr(cmdq + QUIRE_Q_PRODUCER, prod);
	for (size_t i = 0; i < n; i++) {
		struct quire_cpl done = reap();
		uint32_t detail;
		int verdict = quire_fw_validate(&cmds[i], &detail);
		if (done.seq != i || done.status >= QUIRE_STATUS_COUNT) {
			fprintf(stderr, "descriptor %zu (opcode %u): completion seq %u status %u\n",
				i, cmds[i].opcode, done.seq, done.status);
			abort(); /* out of order, or a status nobody knows */
		}
		if (verdict != QUIRE_OK && (done.status != verdict || done.detail != detail)) {
			fprintf(stderr,
				"descriptor %zu (opcode %u): card says %u detail %u, validator %d "
				"detail %u\n",
				i, cmds[i].opcode, done.status, done.detail, verdict, detail);
			abort(); /* the card and the validator disagree */
		}
	}
	struct quire_cmd nop = {.opcode = QUIRE_OPC_NOP, .seq = 99};
	submit(&nop);
	wr(cmdq + QUIRE_Q_PRODUCER, prod);
	struct quire_cpl done = reap();
	if (done.seq != 99 || done.status != QUIRE_OK)
		abort(); /* the card no longer serves valid work */
	return 0;
}
