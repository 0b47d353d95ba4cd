// SPDX-License-Identifier: MIT
/*
 * The command loop: fetch descriptors the host posted, validate, run, and post
 * one completion per descriptor, in order. A bad descriptor costs only its own
 * error completion; a ring overrun costs an error completion per lost
 * descriptor; the loop always goes on with the next one.
 */
#include "dma.h"
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

static void qe_write(struct quire_fw *fw, uint32_t reg, uint32_t v)
{
	hal_write32(fw, QUIRE_CARD_QUEUE + reg, v);
}

static uint32_t qe_read(struct quire_fw *fw, uint32_t reg)
{
	return hal_read32(fw, QUIRE_CARD_QUEUE + reg);
}

/* The queues' setup, for the epoch just begun; the queue engine gets it too, and fetches
 * descriptors from then on while both queues are up. */
static void read_queues(struct quire_fw *fw)
{
	uint32_t need = QUIRE_Q_STATUS_ENABLED;
	fw->queues_up = (hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_STATUS) & need) == need &&
			(hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_STATUS) & need) == need;
	fw->cmd_base = ring_base(fw, fw->bar.cmdq);
	fw->cpl_base = ring_base(fw, fw->bar.cplq);
	fw->cmd_log2 = hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_SIZE_LOG2);
	fw->cpl_log2 = hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_SIZE_LOG2);
	if (!fw->qe)
		return;
	qe_write(fw, QUIRE_QE_CTRL, 0);
	/* The engine fetches at the queue's CONSUMER: make it this epoch's index again, should
	 * the command that was running when the host reset the queues have advanced it after
	 * the reset (its own completion is refused then). */
	hal_bar_write(fw, fw->bar.cmdq, QUIRE_Q_CONSUMER, fw->cmd_cons);
	qe_write(fw, QUIRE_QE_EPOCH, fw->epoch);
	qe_write(fw, QUIRE_QE_CMD_BASE_LO, (uint32_t)fw->cmd_base);
	qe_write(fw, QUIRE_QE_CMD_BASE_HI, (uint32_t)(fw->cmd_base >> 32));
	qe_write(fw, QUIRE_QE_CMD_LOG2, fw->cmd_log2);
	qe_write(fw, QUIRE_QE_CPL_BASE_LO, (uint32_t)fw->cpl_base);
	qe_write(fw, QUIRE_QE_CPL_BASE_HI, (uint32_t)(fw->cpl_base >> 32));
	qe_write(fw, QUIRE_QE_CPL_LOG2, fw->cpl_log2);
	qe_write(fw, QUIRE_QE_CTRL, fw->queues_up ? QUIRE_QE_ARM : 0);
}

/* The queue engine serves MLP_SCOREs itself (QUIRE_QE_SERVE) while a model is loaded on a
 * card with the MLP engine; fw->qe_serves says whether it took the bit (an engine without
 * the serve path reads it 0, as the emu's). */
void fw_qe_serve_update(struct quire_fw *fw)
{
	if (!fw->qe)
		return;
	uint32_t on = (fw->caps & QUIRE_CAP_MLP) && fw->mlp_width0 ? QUIRE_QE_SERVE_SCORE : 0;
	qe_write(fw, QUIRE_QE_SERVE, on);
	fw->qe_serves = qe_read(fw, QUIRE_QE_SERVE) == QUIRE_QE_SERVE_SCORE;
}

/*
 * The queue engine served commands since the firmware last looked (DESC_STATE said
 * QUIRE_QE_SERVED_SINCE):
 * it advanced the command queue's CONSUMER, the completion queue's PRODUCER and the
 * counters in the BAR itself, so the firmware's copies are read back from there. It serves
 * only while every command the firmware took has its completion posted, so nothing the
 * firmware is doing is in those words.
 */
static __attribute__((noinline)) void qe_resync(struct quire_fw *fw)
{
	fw->cmd_cons = hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_CONSUMER);
	fw->cpl_prod = hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_PRODUCER);
	fw->cmds_ok = hal_bar_read(fw, fw->bar.counters, QUIRE_CNT_CMDS_OK);
	fw->cmds_err = hal_bar_read(fw, fw->bar.counters, QUIRE_CNT_CMDS_ERR);
	/* The firmware's own bytes not yet in DMA_BYTES (its last record's) are kept. */
	uint64_t bar = (uint64_t)hal_bar_read(fw, fw->bar.counters, QUIRE_CNT_DMA_BYTES_HI) << 32 |
		       hal_bar_read(fw, fw->bar.counters, QUIRE_CNT_DMA_BYTES_LO);
	fw->dma_bytes += bar - fw->dma_published;
	fw->dma_published = bar;
}

/* The queue engine stops serving and finishes what it serves; the firmware's copies are
 * current then. 0 when it was not serving (nothing to do). */
static __attribute__((noinline)) int qe_pause(struct quire_fw *fw)
{
	if (!fw->qe_serves)
		return 0;
	qe_write(fw, QUIRE_QE_SERVE, 0);
	while ((qe_read(fw, QUIRE_QE_DESC_STATE) & ~QUIRE_QE_SERVED_SINCE) == QUIRE_QE_BUSY)
		;
	qe_resync(fw);
	return 1;
}

/* A queue engine of a version this firmware knows, found by its header. A card without one
 * answers all ones (the RTL card's trap handler, the emu's unmapped reads). */
static uint32_t find_queue_engine(struct quire_fw *fw)
{
	return qe_read(fw, QUIRE_RB_TYPE) == QUIRE_QE_TYPE &&
	       QUIRE_RB_VERSION_MAJOR(qe_read(fw, QUIRE_RB_VERSION)) ==
		   QUIRE_RB_VERSION_MAJOR(QUIRE_QE_VERSION);
}

int quire_fw_init(struct quire_fw *fw)
{
	fw->cmd_cons = fw->cpl_prod = fw->cpl_cons = 0;
	fw->cmds_ok = fw->cmds_err = 0;
	fw->dma_bytes = fw->dma_published = 0;
	fw->mlp_width0 = 0;
	fw->heartbeat = 0;
	int st = fw_find_blocks(fw);
	if (st != QUIRE_OK)
		return st; /* without its blocks the firmware cannot even say so */
	fw->epoch = hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_QUEUE_EPOCH);
	fw_dma_init(fw);
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
	if (fw->net_up)
		fw_net_init(fw); /* the port's rings, its receive buffers posted */
	fw->stopping = 0;
	for (uint32_t i = 0; i < QUIRE_FW_MAX_COMMS; i++)
		fw->comm[i].id = 0; /* before the first epoch check: nothing to drain yet */
	fw->qe = find_queue_engine(fw);
	fw->qe_serves = 0; /* QUIRE_QE_SERVE is 0 from reset until a model is loaded */
	read_queues(fw);
	/* The completion's reserved words stay 0: post() writes only the others. */
	for (uint32_t i = 0; i < QUIRE_CPL_WORDS; i++) {
		if (fw->qe)
			qe_write(fw, QUIRE_QE_CPL0 + 4 * i, 0);
		else
			hal_mem_write32(fw, FW_CPL + 4 * i, 0);
	}
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
	fw->cmd_cons = fw->cpl_prod = fw->cpl_cons = 0;
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

/* Waits until the completion ring has room: 0, or -1 when the firmware must stop or the
 * host reset the queues (the completion has no reader then). Only when the host's
 * CONSUMER as last read says the ring is full: a NOP's post reads no register for it. */
static __attribute__((noinline)) int cpl_room(struct quire_fw *fw)
{
	uint32_t size = 1u << fw->cpl_log2;
	while (fw->cpl_prod - (fw->cpl_cons = hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_CONSUMER)) >=
	       size) {
		if (hal_wait_event(fw) || epoch_changed(fw))
			return -1;
	}
	return 0;
}

/* The record in card memory at FW_CPL to its slot with the DMA mover: the record, then its
 * phase word, so the host never sees a new phase first. A transfer's status. */
static __attribute__((noinline)) int post_by_mover(struct quire_fw *fw)
{
	uint32_t phase = ((fw->cpl_prod >> fw->cpl_log2) & 1) ^ 1;
	hal_mem_write32(fw, FW_CPL + 4 * QUIRE_CPL_W_FLAGS, phase);
	uint64_t slot =
	    fw->cpl_base + (uint64_t)(fw->cpl_prod & ((1u << fw->cpl_log2) - 1)) * QUIRE_CPL_BYTES;
	const uint32_t last = 4 * QUIRE_CPL_W_FLAGS;
	int st = fw_dma(fw, slot, FW_CPL, last, QUIRE_DMA_TO_HOST);
	if (st == QUIRE_OK)
		st = fw_dma(fw, slot + last, FW_CPL + last, 4, QUIRE_DMA_TO_HOST);
	return st;
}

/* A record that could not be written: -1. */
static __attribute__((noinline)) int post_failed(struct quire_fw *fw, int st)
{
	if (st == QUIRE_ERR_PEER)
		return -1; /* the command's host is gone: its ring is no longer ours to write */
	/* The completion ring itself is unreachable: flag the queue, tell the host. */
	hal_bar_write(fw, fw->bar.cplq, QUIRE_Q_STATUS,
		      hal_bar_read(fw, fw->bar.cplq, QUIRE_Q_STATUS) | QUIRE_Q_STATUS_BAD_RING);
	hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_IRQ_RAISE, QUIRE_IRQ_ERROR);
	return -1;
}

/* Write one completion into a ring that has room for it. 0 if posted. */
static __attribute__((noinline)) int write_cpl(struct quire_fw *fw, uint32_t seq, int status,
					       uint32_t opcode, uint32_t result, uint32_t cycles,
					       uint32_t detail)
{
	/* Counted before the record can be seen: a host that has its completion also sees it
	 * in the counters. */
	update_counters(fw, status);
	/* The record, where the queue engine or the mover takes it (its reserved words are 0
	 * since quire_fw_init). */
	uint32_t rec = fw->qe ? QUIRE_CARD_QUEUE + QUIRE_QE_CPL0 : QUIRE_CARD_MEM + FW_CPL;
	hal_write32(fw, rec + 4 * QUIRE_CPL_W_SEQ, seq);
	hal_write32(fw, rec + 4 * QUIRE_CPL_W_STATUS, (uint32_t)status | opcode << 16);
	hal_write32(fw, rec + 4 * QUIRE_CPL_W_RESULT, result);
	hal_write32(fw, rec + 4 * QUIRE_CPL_W_CYCLES, cycles);
	hal_write32(fw, rec + 4 * QUIRE_CPL_W_DETAIL, detail);
	int st;
	if (fw->qe) {
		/* The engine finds the slot and the phase from the index, and writes the phase
		 * word last. */
		qe_write(fw, QUIRE_QE_CPL_POST, fw->cpl_prod);
		while (qe_read(fw, QUIRE_QE_CPL_POST) != QUIRE_QE_DONE)
			;
		st = (int)qe_read(fw, QUIRE_QE_CPL_STATUS);
		/* What DMA_BYTES holds now (update_counters): a queue engine that serves adds to
		 * it, and qe_resync takes what it added from there. */
		fw->dma_published = fw->dma_bytes;
		if (st == QUIRE_OK)
			fw->dma_bytes +=
			    QUIRE_CPL_BYTES; /* the mover's transfers count their own */
	} else {
		st = post_by_mover(fw);
	}
	if (st != QUIRE_OK)
		return post_failed(fw, st);
	hal_bar_write(fw, fw->bar.cplq, QUIRE_Q_PRODUCER, ++fw->cpl_prod);
	hal_write32(fw, QUIRE_CARD_CTL + QUIRE_CTL_IRQ_RAISE, QUIRE_IRQ_CPL);
	return 0;
}

/* Post one completion; waits while the completion ring is full. 0 if posted. */
static int post(struct quire_fw *fw, uint32_t seq, int status, uint32_t opcode, uint32_t result,
		uint32_t cycles, uint32_t detail)
{
	if (fw->cpl_prod - fw->cpl_cons >= 1u << fw->cpl_log2 && cpl_room(fw))
		return -1;
	return write_cpl(fw, seq, status, opcode, result, cycles, detail);
}

static uint64_t word64(const uint32_t *w, uint32_t first)
{
	return (uint64_t)w[first + 1] << 32 | w[first];
}

/* A descriptor's words, fetched (card memory, or the queue engine's DESC), unpacked. */
static __attribute__((noinline)) void unpack(struct quire_fw *fw, uint32_t desc,
					     struct quire_cmd *cmd)
{
	uint32_t w[QUIRE_CMD_WORDS];
	for (uint32_t i = 0; i < QUIRE_CMD_WORDS; i++)
		w[i] = hal_read32(fw, desc + 4 * i);
	cmd->opcode = (uint8_t)w[QUIRE_CMD_W_OPCODE];
	cmd->flags = (uint8_t)(w[QUIRE_CMD_W_OPCODE] >> 8);
	/* The words are values; struct quire_cmd keeps the descriptor's byte order. */
	cmd->format = quire_cpu_to_le16(w[QUIRE_CMD_W_OPCODE] >> 16);
	cmd->seq = quire_cpu_to_le32(w[QUIRE_CMD_W_SEQ]);
	cmd->count = quire_cpu_to_le32(w[QUIRE_CMD_W_COUNT]);
	cmd->val_format = quire_cpu_to_le16(w[QUIRE_CMD_W_FORMATS]);
	cmd->workers = quire_cpu_to_le16(w[QUIRE_CMD_W_FORMATS] >> 16);
	cmd->src = quire_cpu_to_le64(word64(w, QUIRE_CMD_W_SRC));
	cmd->dst = quire_cpu_to_le64(word64(w, QUIRE_CMD_W_DST));
	cmd->exp = quire_cpu_to_le64(word64(w, QUIRE_CMD_W_EXP));
	cmd->aux = quire_cpu_to_le64(word64(w, QUIRE_CMD_W_AUX));
	cmd->stride = quire_cpu_to_le64(word64(w, QUIRE_CMD_W_STRIDE));
	cmd->reserved[0] = quire_cpu_to_le32(w[QUIRE_CMD_W_RESERVED]);
	cmd->reserved[1] = quire_cpu_to_le32(w[QUIRE_CMD_W_RESERVED + 1]);
}

/* fetch(): the queue engine served the descriptors up to the one the firmware looked for
 * (its copies are current again): nothing to run, the loop starts again. */
#define FW_QE_SERVED (-2)

/* Where a fetched descriptor's words are (card memory, or the queue engine's DESC), its
 * first word, and which of its words after seq are not 0. */
struct fetched {
	uint32_t desc, w0, nonzero;
};

/*
 * The descriptor at ring index fw->cmd_cons: QUIRE_OK, or the transfer's status (and a
 * descriptor of zeros). *plain_nop says it is a NOP with every field but seq 0, which
 * quire_cmd_validate and fw_execute would pass without a change: the command loop posts its
 * completion at once. Only cmd's opcode and seq are set: the words are looked at first
 * (with a queue engine, which of them are not 0) and unpacked (run) only for the other
 * descriptors: this is the NOP's path.
 */
static int fetch(struct quire_fw *fw, struct quire_cmd *cmd, struct fetched *f, int *plain_nop)
{
	/* The queue engine fetched it when the doorbell rang (or is at it): its DESC words.
	 * IDLE means the host reset the queues since the producer index was read: the mover
	 * then tries, and says so (QUIRE_ERR_PEER). */
	uint32_t state = QUIRE_QE_IDLE, desc, nonzero = 0;
	int status;
	if (fw->qe) {
		while ((state = qe_read(fw, QUIRE_QE_DESC_STATE)) == QUIRE_QE_BUSY)
			;
	}
	if (state == QUIRE_QE_HELD) {
		desc = QUIRE_CARD_QUEUE + QUIRE_QE_DESC0;
		status = (int)qe_read(fw, QUIRE_QE_DESC_STATUS);
		if (status == QUIRE_OK) {
			fw->dma_bytes += QUIRE_CMD_BYTES;
			nonzero = qe_read(fw, QUIRE_QE_DESC_NONZERO);
		}
	} else if (state & QUIRE_QE_SERVED_SINCE) {
		/* The queue engine served descriptors since the last look (it reads BUSY until
		 * each is counted): the firmware's indices and counters are read back, and the
		 * loop looks again. */
		qe_resync(fw);
		return FW_QE_SERVED;
	} else {
		desc = QUIRE_CARD_MEM + FW_MAILBOX;
		uint64_t slot = (uint64_t)(fw->cmd_cons & ((1u << fw->cmd_log2) - 1));
		status = fw_dma(fw, fw->cmd_base + slot * QUIRE_CMD_BYTES, FW_MAILBOX,
				QUIRE_CMD_BYTES, QUIRE_DMA_TO_CARD);
		if (status == QUIRE_OK) {
#pragma GCC unroll 16
			for (uint32_t i = QUIRE_CMD_W_SEQ + 1; i < QUIRE_CMD_WORDS; i++)
				nonzero |= hal_read32(fw, desc + 4 * i) != 0 ? 1u << i : 0;
		}
	}
	if (status != QUIRE_OK) {
		*plain_nop = 0;
		*cmd = (struct quire_cmd){0};
		return status;
	}
	uint32_t w0 = hal_read32(fw, desc + 4 * QUIRE_CMD_W_OPCODE);
	cmd->opcode = (uint8_t)w0;
	cmd->seq = quire_cpu_to_le32(hal_read32(fw, desc + 4 * QUIRE_CMD_W_SEQ));
	const uint32_t others = ~(1u << QUIRE_CMD_W_OPCODE | 1u << QUIRE_CMD_W_SEQ);
	*plain_nop = w0 == QUIRE_OPC_NOP && (nonzero & others) == 0;
	f->desc = desc;
	f->w0 = w0;
	f->nonzero = nonzero;
	return status;
}

/* Overrun: the oldest `lost` descriptors were overwritten. Each gets an error; -1 when
 * the completions cannot be posted. */
static __attribute__((noinline)) int overrun(struct quire_fw *fw, uint32_t lost)
{
	hal_bar_write(fw, fw->bar.cmdq, QUIRE_Q_STATUS,
		      hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_STATUS) | QUIRE_Q_STATUS_OVERRUN);
	for (uint32_t k = 0; k < lost; k++) {
		hal_bar_write(fw, fw->bar.cmdq, QUIRE_Q_CONSUMER, ++fw->cmd_cons);
		if (post(fw, QUIRE_SEQ_UNKNOWN, QUIRE_ERR_OVERRUN, 0, 0, 0, QUIRE_DETAIL_RING))
			return -1;
	}
	return 0;
}

/* A descriptor other than a plain NOP: unpacked, validated, then run. An MLP_SCORE that
 * breaks no rule takes its quick path (ops.c) instead; any other goes this way. */
static __attribute__((noinline)) int run(struct quire_fw *fw, const struct fetched *f,
					 struct quire_cmd *cmd, uint32_t *result, uint32_t *detail)
{
	if (fw_mlp_score_may_be_quick(fw, f->w0, f->nonzero)) {
		int quick = fw_mlp_score_quick(fw, f->desc, f->w0, f->nonzero, result, detail);
		if (quick != FW_NOT_QUICK)
			return quick;
	}
	fw_pipe_prefetch(fw, f->desc, f->w0);
	unpack(fw, f->desc, cmd);
	int status = quire_cmd_validate(cmd, detail);
	if (status == QUIRE_OK)
		status = fw_execute(fw, cmd, result, detail);
	fw_pipe_prefetch_end(fw);
	return status;
}

/*
 * Serve the descriptors the host has posted, in order; how many were served. With `wait`,
 * go on until the HAL says stop, sleeping (fw_idle) whenever there is nothing to do: the
 * loop stays in this function, so a doorbell that ends a wait costs no call and no
 * prologue on its way to the descriptor.
 */
static int serve(struct quire_fw *fw, int wait)
{
	int served = 0, batch = 0; /* batch: served since the last wait */
	for (;;) {
		/* A host that left or reset its queues during a batch zeroed the producer: that is
		 * no backlog. The next batch starts at the new epoch. */
		int changed = epoch_changed(fw);
		uint32_t pending = 0, size = 1u << fw->cmd_log2;
		if (fw->queues_up && !(changed && batch))
			pending = hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_PRODUCER) - fw->cmd_cons;
		if (pending > size) {
			/* Not while the queue engine serves: what it served is no overrun. */
			int paused = qe_pause(fw);
			if (paused)
				pending =
				    hal_bar_read(fw, fw->bar.cmdq, QUIRE_Q_PRODUCER) - fw->cmd_cons;
			int lost = pending > size ? overrun(fw, pending - size) : 0;
			if (paused)
				fw_qe_serve_update(fw);
			if (lost == 0)
				continue;
		} else if (pending) {
			/* The completion's cycles fit 32 bits: the low word of the counter is
			 * enough. */
			uint32_t t0 = hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO);
			fw_heartbeat(fw);
			struct quire_cmd cmd;
			uint32_t result = 0, detail = QUIRE_DETAIL_RING;
			struct fetched f;
			int plain_nop;
			int status = fetch(fw, &cmd, &f, &plain_nop);
			if (status == FW_QE_SERVED)
				continue;
			if (plain_nop)
				detail = QUIRE_DETAIL_NONE;
			else if (status == QUIRE_OK)
				status = run(fw, &f, &cmd, &result, &detail);
			hal_bar_write(fw, fw->bar.cmdq, QUIRE_Q_CONSUMER, ++fw->cmd_cons);
			if (post(fw, quire_le32_to_cpu(cmd.seq), status, cmd.opcode, result,
				 hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_CYCLES_LO) - t0,
				 detail) == 0) {
				served++;
				batch++;
				continue;
			}
		}
		/* Nothing to do, or a completion that could not be posted: wait for the host. A
		 * queue engine that serves waits for the firmware to read DESC_STATE after its last
		 * command (quire_card_queue.sv): read it once before sleeping. */
		if (fw->qe_serves && (qe_read(fw, QUIRE_QE_DESC_STATE) & QUIRE_QE_SERVED_SINCE)) {
			qe_resync(fw);
			continue;
		}
		if (!wait || fw_idle(fw))
			return served;
		batch = 0;
	}
}

int quire_fw_poll(struct quire_fw *fw)
{
	return serve(fw, 0);
}

void quire_fw_run(struct quire_fw *fw)
{
	if (quire_fw_init(fw) == QUIRE_OK)
		serve(fw, 1);
}
