// SPDX-License-Identifier: MIT
/*
 * The command loop: fetch descriptors the host posted, validate, run, and post
 * one completion per descriptor, in order. A bad descriptor costs only its own
 * error completion; a ring overrun costs an error completion per lost
 * descriptor; the loop always goes on with the next one.
 */
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/regs.h"
#include "quire/status.h"

static uint64_t ring_base(struct quire_fw *fw, uint32_t block)
{
	return (uint64_t)hal_bar_read(fw, block, QUIRE_Q_BASE_HI) << 32 |
	       hal_bar_read(fw, block, QUIRE_Q_BASE_LO);
}

/* The queues' setup, for the epoch just begun. */
static void read_queues(struct quire_fw *fw)
{
	uint32_t need = QUIRE_Q_STATUS_ENABLED;
	fw->queues_up = (hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_STATUS) & need) == need &&
			(hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_STATUS) & need) == need;
	fw->cmd_base = ring_base(fw, fw->bar.cmdq);
	fw->cpl_base = ring_base(fw, fw->bar.cplq);
	fw->cmd_log2 = hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_SIZE_LOG2);
	fw->cpl_log2 = hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_SIZE_LOG2);
}

int quire_fw_init(struct quire_fw *fw)
{
	fw->cmd_cons = fw->cpl_prod = 0;
	fw->cmds_ok = fw->cmds_err = 0;
	fw->dma_bytes = 0;
	fw->mlp_width0 = 0;
	fw->heartbeat = 0;
	int st = fw_find_blocks(fw);
	if (st != QUIRE_OK)
		return st; /* without its blocks the firmware cannot even say so */
	fw->epoch = hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	fw->mem_bytes = hal_bar_read(fw, fw->bar.id, QUIRE_ID_MEM_LO);
	fw->caps = hal_bar_read(fw, fw->bar.id, QUIRE_ID_CAPS);
	if (hal_bar_read(fw, fw->bar.id, QUIRE_ID_MEM_HI) == 0 && fw->mem_bytes < FW_MEM_NEEDED) {
		hal_bar_write(fw, fw->bar.id, QUIRE_ID_FW_STATE, QUIRE_FW_STATE_HALTED);
		hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_IRQ_RAISE, QUIRE_IRQ_ERROR);
		return QUIRE_ERR_NOMEM;
	}
	fw->cycles_per_ms = hal_bar_read(fw, fw->bar.id, QUIRE_ID_CLOCK_HZ) / 1000u;
	fw->net_up = hal_read32(fw, QUIRE_CARD_NET + QUIRE_NET_PORT_LINK) == 1;
	fw->net_addr = hal_read32(fw, QUIRE_CARD_NET + QUIRE_NET_PORT_ADDR) & 0xffffu;
	fw->stopping = 0;
	for (uint32_t i = 0; i < QUIRE_FW_MAX_COMMS; i++)
		fw->comm[i].id = 0; /* before the first epoch check: nothing to drain yet */
	read_queues(fw);
	/* The completion's reserved words stay 0: post() writes only the others. */
	for (uint32_t i = 0; i < QUIRE_CPL_WORDS; i++)
		hal_mem_write32(fw, FW_CPL + 4 * i, 0);
	hal_bar_write(fw, fw->bar.id, QUIRE_ID_FW_BUILD, QUIRE_FW_BUILD_ID);
	hal_bar_write(fw, fw->bar.id, QUIRE_ID_FW_STATE, QUIRE_FW_STATE_RUNNING);
	return QUIRE_OK;
}

/* The host re-enabled the queues: indices start again from 0. */
static int epoch_changed(struct quire_fw *fw)
{
	uint32_t e = hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	if (e == fw->epoch)
		return 0;
	fw->epoch = e;
	fw->cmd_cons = fw->cpl_prod = 0;
	read_queues(fw);
	fw_comm_reset(fw); /* communicators belong to the host that made them */
	return 1;
}

static void update_counters(struct quire_fw *fw, int status)
{
	if (status == QUIRE_OK)
		hal_bar_write(fw, fw->bar.counters, QUIRE_CNT_CMDS_OK, ++fw->cmds_ok);
	else
		hal_bar_write(fw, fw->bar.counters, QUIRE_CNT_CMDS_ERR, ++fw->cmds_err);
	hal_bar_write(fw, fw->bar.counters, QUIRE_CNT_DMA_BYTES_LO, (uint32_t)fw->dma_bytes);
	hal_bar_write(fw, fw->bar.counters, QUIRE_CNT_DMA_BYTES_HI,
		      (uint32_t)(fw->dma_bytes >> 32));
}

/* Post one completion; waits while the completion ring is full. 0 if posted. */
static int post(struct quire_fw *fw, uint32_t seq, int status, uint32_t opcode, uint32_t result,
		uint32_t cycles, uint32_t detail)
{
	uint32_t size = 1u << fw->cpl_log2;
	while (fw->cpl_prod - hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_CONSUMER) >= size) {
		if (hal_wait_event(fw) || epoch_changed(fw))
			return -1; /* stopping, or a new host: this completion has no reader */
	}
	/* Counted before the record can be seen: a host that has its completion also sees it
	 * in the counters. */
	update_counters(fw, status);
	uint32_t phase = ((fw->cpl_prod >> fw->cpl_log2) & 1) ^ 1;
	/* The reserved words are 0 since quire_fw_init. */
	hal_mem_write32(fw, FW_CPL + 4 * QUIRE_CPL_W_SEQ, seq);
	hal_mem_write32(fw, FW_CPL + 4 * QUIRE_CPL_W_STATUS, (uint32_t)status | opcode << 16);
	hal_mem_write32(fw, FW_CPL + 4 * QUIRE_CPL_W_RESULT, result);
	hal_mem_write32(fw, FW_CPL + 4 * QUIRE_CPL_W_CYCLES, cycles);
	hal_mem_write32(fw, FW_CPL + 4 * QUIRE_CPL_W_DETAIL, detail);
	hal_mem_write32(fw, FW_CPL + 4 * QUIRE_CPL_W_FLAGS, phase);
	uint64_t slot = fw->cpl_base + (uint64_t)(fw->cpl_prod & (size - 1)) * QUIRE_CPL_BYTES;
	/* The record, then its phase word: the host must never see a new phase first. */
	const uint32_t last = 4 * QUIRE_CPL_W_FLAGS;
	int st = fw_dma(fw, slot, FW_CPL, last, QUIRE_DMA_TO_HOST);
	if (st == QUIRE_OK)
		st = fw_dma(fw, slot + last, FW_CPL + last, 4, QUIRE_DMA_TO_HOST);
	if (st == QUIRE_ERR_PEER)
		return -1; /* the command's host is gone: its ring is no longer ours to write */
	if (st != QUIRE_OK) {
		/* The completion ring itself is unreachable: flag the queue, tell the host. */
		hal_bar_write(fw, fw->bar.cplq, QUIRE_Q_STATUS,
			      hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_STATUS) |
				  QUIRE_Q_STATUS_BAD_RING);
		hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_IRQ_RAISE, QUIRE_IRQ_ERROR);
		return -1;
	}
	hal_bar_write(fw, fw->bar.cplq, QUIRE_Q_PRODUCER, ++fw->cpl_prod);
	hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_IRQ_RAISE, QUIRE_IRQ_CPL);
	return 0;
}

static uint64_t word64(const uint32_t *w, uint32_t first)
{
	return (uint64_t)w[first + 1] << 32 | w[first];
}

/*
 * The descriptor at host address `addr` into *cmd: QUIRE_OK, or the transfer's status (and
 * a descriptor of zeros). *plain_nop says it is a NOP with every field but seq 0, which
 * quire_fw_validate and fw_execute would pass without a change: then only cmd's opcode
 * and seq are set, and the command loop posts its completion at once. The words are
 * looked at first and unpacked only for the other descriptors: this is the NOP's path.
 */
static int fetch(struct quire_fw *fw, uint64_t addr, struct quire_cmd *cmd, int *plain_nop)
{
	int status = fw_dma(fw, addr, FW_MAILBOX, QUIRE_CMD_BYTES, QUIRE_DMA_TO_CARD);
	if (status != QUIRE_OK) {
		*plain_nop = 0;
		*cmd = (struct quire_cmd){0};
		return status;
	}
	uint32_t w0 = hal_mem_read32(fw, FW_MAILBOX + 4 * QUIRE_CMD_W_OPCODE), rest = 0;
	cmd->opcode = (uint8_t)w0;
	cmd->seq = hal_mem_read32(fw, FW_MAILBOX + 4 * QUIRE_CMD_W_SEQ);
#pragma GCC unroll 16
	for (uint32_t i = QUIRE_CMD_W_SEQ + 1; i < QUIRE_CMD_WORDS; i++)
		rest |= hal_mem_read32(fw, FW_MAILBOX + 4 * i);
	*plain_nop = w0 == QUIRE_OPC_NOP && rest == 0;
	if (*plain_nop)
		return status;
	uint32_t w[QUIRE_CMD_WORDS];
	for (uint32_t i = 0; i < QUIRE_CMD_WORDS; i++)
		w[i] = hal_mem_read32(fw, FW_MAILBOX + 4 * i);
	cmd->flags = (uint8_t)(w[QUIRE_CMD_W_OPCODE] >> 8);
	cmd->format = (uint16_t)(w[QUIRE_CMD_W_OPCODE] >> 16);
	cmd->count = w[QUIRE_CMD_W_COUNT];
	cmd->val_format = (uint16_t)w[QUIRE_CMD_W_FORMATS];
	cmd->workers = (uint16_t)(w[QUIRE_CMD_W_FORMATS] >> 16);
	cmd->src = word64(w, QUIRE_CMD_W_SRC);
	cmd->dst = word64(w, QUIRE_CMD_W_DST);
	cmd->exp = word64(w, QUIRE_CMD_W_EXP);
	cmd->aux = word64(w, QUIRE_CMD_W_AUX);
	cmd->stride = word64(w, QUIRE_CMD_W_STRIDE);
	cmd->reserved[0] = w[QUIRE_CMD_W_RESERVED];
	cmd->reserved[1] = w[QUIRE_CMD_W_RESERVED + 1];
	return status;
}

int quire_fw_poll(struct quire_fw *fw)
{
	epoch_changed(fw);
	if (!fw->queues_up)
		return 0;
	uint32_t size = 1u << fw->cmd_log2;
	int served = 0;
	for (;;) {
		/* A host that left or reset its queues zeroed the producer: that is no backlog. */
		if (served && epoch_changed(fw))
			return served;
		uint32_t pending = hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_PRODUCER) - fw->cmd_cons;
		if (pending == 0)
			break;
		if (pending > size) {
			/* Overrun: the oldest descriptors were overwritten. Each gets an error. */
			hal_bar_write(fw, fw->bar.cmdq, QUIRE_Q_STATUS,
				      hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_STATUS) |
					  QUIRE_Q_STATUS_OVERRUN);
			for (uint32_t k = 0; k < pending - size; k++) {
				hal_bar_write(fw, fw->bar.cmdq, QUIRE_Q_CONSUMER, ++fw->cmd_cons);
				if (post(fw, QUIRE_SEQ_UNKNOWN, QUIRE_ERR_OVERRUN, 0, 0, 0,
					 QUIRE_DETAIL_RING))
					return served;
			}
			continue;
		}
		/* The completion's cycles fit 32 bits: the low word of the counter is enough. */
		uint32_t t0 = hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO);
		fw_heartbeat(fw);
		struct quire_cmd cmd;
		uint32_t result = 0, detail = QUIRE_DETAIL_RING;
		int plain_nop;
		int status = fetch(
		    fw, fw->cmd_base + (uint64_t)(fw->cmd_cons & (size - 1)) * QUIRE_CMD_BYTES,
		    &cmd, &plain_nop);
		if (plain_nop)
			detail = QUIRE_DETAIL_NONE;
		if (status == QUIRE_OK && !plain_nop)
			status = quire_fw_validate(&cmd, &detail);
		if (status == QUIRE_OK && !plain_nop)
			status = fw_execute(fw, &cmd, &result, &detail);
		hal_bar_write(fw, fw->bar.cmdq, QUIRE_Q_CONSUMER, ++fw->cmd_cons);
		if (post(fw, cmd.seq, status, cmd.opcode, result,
			 hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO) - t0, detail))
			return served;
		served++;
	}
	return served;
}

void quire_fw_run(struct quire_fw *fw)
{
	if (quire_fw_init(fw) != QUIRE_OK)
		return;
	do
		quire_fw_poll(fw);
	while (fw_idle(fw) == 0);
}
