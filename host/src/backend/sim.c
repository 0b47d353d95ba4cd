// SPDX-License-Identifier: MIT
/*
 * The sim backend: a ring driver. It probes the card by walking its register
 * blocks, puts a command ring and a completion ring in host memory, writes
 * descriptors and rings the doorbell, and reaps completions by their phase
 * bit. It talks to the card only through a transport (transport.h), so the same
 * driver serves a card in this process, in a quire-sim process, or behind XRT
 * (xrt.c attaches it with quire_ring_attach).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/src/core/core.h"
#include "quire/boards.h"
#include "quire/regblock.h"
#include "quire/regs.h"
#include "quire/static_assert.h"
#include "transport.h"
#include "window.h"

#define RING_LOG2 8u
#define PROBE_MS  5000

struct sim {
	struct quire_backend_ops ops; /* sim_ops under the name of the backend that attached it */
	struct transport *t;
	struct window win;
	uint32_t blk_id, blk_cmdq, blk_cplq, blk_irq, blk_counters;
	uint32_t blk_net;  /* optional: 0 when the card has no network port block */
	uint32_t clock_hz; /* QUIRE_ID_CLOCK_HZ, the rate of the card's cycle counter */
	struct quire_cmd *cmds;
	struct quire_cpl *cpls;
	uint32_t size, prod, cpl_cons, cpl_phase, in_flight;
	struct quire_req **inflight; /* by ring slot: completions come back in order */
	int lost;
};

static uint32_t rd(struct sim *s, uint32_t off)
{
	return s->t->dev->ops->mmio_read(s->t->dev, off);
}

static void wr(struct sim *s, uint32_t off, uint32_t v)
{
	s->t->dev->ops->mmio_write(s->t->dev, off, v);
}

/* The contract's walk reads the card's registers through this. */
static uint32_t walk_read(void *s, uint32_t off)
{
	return rd(s, off);
}

QUIRE_STATIC_ASSERT(QUIRE_RB_MAX_BLOCKS <= QUIRE_INFO_MAX_BLOCKS, "quire_info holds every block");

/* Walk the chain from BAR offset 0 (quire/regblock.h); fill the block list, find ours
 * (the network port's is optional), check versions. */
static int walk(struct sim *s, struct quire_info *info)
{
	const struct quire_regblock_need need[] = {
	    {QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION, &s->blk_id},
	    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, &s->blk_cmdq},
	    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &s->blk_cplq},
	    {QUIRE_RB_TYPE_IRQ, QUIRE_RB_IRQ_VERSION, &s->blk_irq},
	    {QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION, &s->blk_counters},
	};
	struct quire_regblock_chain chain;
	int st = quire_regblock_walk(walk_read, s, &chain);
	if (st != QUIRE_OK)
		return st;
	if (info) {
		for (uint32_t i = 0; i < chain.count; i++) {
			info->blocks[i].offset = chain.block[i].offset;
			info->blocks[i].type = chain.block[i].type;
			info->blocks[i].version = chain.block[i].version;
		}
		info->n_blocks = chain.count;
	}
	st = quire_regblock_find_all(&chain, need, sizeof(need) / sizeof(need[0]), NULL);
	if (st != QUIRE_OK)
		return st;
	s->blk_net = 0;
	st = quire_regblock_find(&chain, QUIRE_RB_TYPE_NETPORT, QUIRE_RB_NETPORT_VERSION,
				 &s->blk_net);
	if (st == QUIRE_ERR_VERSION)
		return st;
	if (rd(s, s->blk_id + QUIRE_ID_MAGIC) != QUIRE_ID_MAGIC_VALUE)
		return QUIRE_ERR_NO_DEVICE;
	if (rd(s, s->blk_id + QUIRE_ID_IF_VERSION) != QUIRE_INTERFACE_VERSION)
		return QUIRE_ERR_VERSION;
	return QUIRE_OK;
}

/* Host memory the card writes (completions, results) made visible here, and ours to it. */
static int sync_mem(struct sim *s, int to_card)
{
	return s->t->sync ? s->t->sync(s->t, to_card) : QUIRE_OK;
}

static void reap(struct sim *s)
{
	uint32_t mask = s->size - 1, n = 0;
	if (sync_mem(s, 0) != QUIRE_OK) {
		s->lost = 1;
		return;
	}
	for (;;) {
		struct quire_cpl *c = &s->cpls[s->cpl_cons & mask];
		/* The record is little-endian (quire/cmd.h); its phase word is read first. */
		uint32_t flags = quire_le32_to_cpu((quire_force __le32)__atomic_load_n(
		    (const __u32 *)(const void *)&c->flags, __ATOMIC_ACQUIRE));
		if ((flags & QUIRE_CPL_F_PHASE) != s->cpl_phase)
			break;
		struct quire_req *req = s->inflight[s->cpl_cons & mask];
		if (req && req->cmd.seq == c->seq)
			quire_req_complete(
			    req, quire_le16_to_cpu(c->status), quire_le32_to_cpu(c->result),
			    quire_le32_to_cpu(c->cycles), quire_le32_to_cpu(c->detail));
		s->inflight[s->cpl_cons & mask] = NULL;
		s->in_flight--;
		s->cpl_cons++;
		if ((s->cpl_cons & mask) == 0)
			s->cpl_phase ^= 1;
		n++;
	}
	if (n)
		wr(s, s->blk_cplq + QUIRE_Q_CONSUMER, s->cpl_cons);
}

static int progress(struct sim *s, int (*done)(struct sim *, void *), void *arg, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : quire_now_ms() + timeout_ms;
	for (;;) {
		reap(s);
		if (done(s, arg))
			return QUIRE_OK;
		if (s->lost)
			return QUIRE_ERR_PEER;
		if (s->t->state(s->t) == QUIRE_ERR_TIMEOUT)
			return QUIRE_ERR_TIMEOUT; /* hung: nothing will come */
		int64_t left = deadline < 0 ? 100 : deadline - quire_now_ms();
		if (left <= 0)
			return QUIRE_ERR_TIMEOUT;
		/* Short slices: a lost wake-up costs 100 ms, never a hang. */
		int st = s->t->wait_irq(s->t, left > 100 ? 100 : (int)left);
		if (st == QUIRE_ERR_PEER) {
			s->lost = 1;
			reap(s);
			return done(s, arg) ? QUIRE_OK : QUIRE_ERR_PEER;
		}
	}
}

static int req_done(struct sim *s, void *arg)
{
	(void)s;
	return ((struct quire_req *)arg)->done;
}

static int has_room(struct sim *s, void *arg)
{
	(void)arg;
	return s->in_flight < s->size;
}

static int sim_submit(struct quire_ctx *ctx, struct quire_req *req)
{
	struct sim *s = ctx->priv;
	s->t->timeout_ms = ctx->timeout_ms;
	if (s->lost || s->t->state(s->t) != QUIRE_OK)
		return s->lost ? QUIRE_ERR_PEER : s->t->state(s->t);
	/* A full ring: wait for room as long as the card makes progress, judged by its own
	 * clock as every wait is (a loaded machine runs an RTL card's commands slowly). */
	int st;
	while ((st = progress(s, has_room, NULL, QUIRE_HEARTBEAT_MS)) == QUIRE_ERR_TIMEOUT &&
	       s->t->state(s->t) == QUIRE_OK) {
		st = quire_ctx_check_progress(ctx);
		if (st != QUIRE_OK)
			return st;
	}
	if (st != QUIRE_OK)
		return st;
	uint32_t slot = s->prod & (s->size - 1);
	/* The doorbell below (a locked MMIO write in process, a socket message to a card
	 * process) orders the descriptor before it; a real card's driver needs a wmb(). */
	memcpy(&s->cmds[slot], &req->cmd, sizeof(req->cmd));
	if (sync_mem(s, 1) != QUIRE_OK) { /* the descriptor and its buffers, to the card */
		s->lost = 1;
		return QUIRE_ERR_PEER;
	}
	s->inflight[slot] = req;
	s->in_flight++;
	wr(s, s->blk_cmdq + QUIRE_Q_PRODUCER, ++s->prod);
	return s->t->state(s->t);
}

static int sim_wait(struct quire_ctx *ctx, struct quire_req *req, int timeout_ms)
{
	return progress(ctx->priv, req_done, req, timeout_ms);
}

/*
 * The heartbeat, and the card's clock in ms of card time: the core measures a card's
 * standstill by the card's own clock, which a simulated card runs as fast as the machine
 * lets it. The counter's high word is read on both sides of the low one, so that a carry
 * between the two reads does not pass for 2^32 cycles.
 */
static int sim_heartbeat(struct quire_ctx *ctx, uint32_t *beat, int64_t *card_ms, int timeout_ms)
{
	struct sim *s = ctx->priv;
	if (s->lost)
		return QUIRE_ERR_PEER;
	s->t->timeout_ms = timeout_ms;
	*beat = rd(s, s->blk_counters + QUIRE_CNT_HEARTBEAT);
	uint32_t hi, lo;
	do {
		hi = rd(s, s->blk_counters + QUIRE_CNT_CYCLES_HI);
		lo = rd(s, s->blk_counters + QUIRE_CNT_CYCLES_LO);
	} while (rd(s, s->blk_counters + QUIRE_CNT_CYCLES_HI) != hi &&
		 s->t->state(s->t) == QUIRE_OK);
	uint64_t cycles = (uint64_t)hi << 32 | lo;
	*card_ms = s->clock_hz ? (int64_t)(cycles / ((double)s->clock_hz / 1000.0)) : -1;
	s->t->timeout_ms = ctx->timeout_ms;
	return s->t->state(s->t);
}

static int setup_queue(struct sim *s, uint32_t block, void *ring);

/* Empty rings, enabled: a new queue epoch, so the card drops what it had of the old ones. */
static int restart_queues(struct sim *s)
{
	memset(s->cmds, 0, s->size * sizeof(*s->cmds));
	memset(s->cpls, 0, s->size * sizeof(*s->cpls));
	s->prod = s->cpl_cons = s->in_flight = 0;
	s->cpl_phase = 1; /* the first pass of the ring writes phase 1 */
	int st = sync_mem(s, 1);
	if (st == QUIRE_OK)
		st = setup_queue(s, s->blk_cplq, s->cpls);
	if (st == QUIRE_OK)
		st = setup_queue(s, s->blk_cmdq, s->cmds);
	if (st == QUIRE_OK)
		wr(s, s->blk_irq + QUIRE_IRQ_MASK, QUIRE_IRQ_CPL | QUIRE_IRQ_ERROR);
	return st;
}

static int sim_reset(struct quire_ctx *ctx, int status)
{
	struct sim *s = ctx->priv;
	if (s->lost)
		return QUIRE_ERR_PEER;
	s->t->timeout_ms = ctx->timeout_ms;
	s->t->revive(s->t);
	if (rd(s, s->blk_id + QUIRE_ID_MAGIC) != QUIRE_ID_MAGIC_VALUE)
		return s->t->state(s->t) != QUIRE_OK ? s->t->state(s->t) : QUIRE_ERR_NO_DEVICE;
	wr(s, s->blk_cmdq + QUIRE_Q_CTRL, 0);
	wr(s, s->blk_cplq + QUIRE_Q_CTRL, 0);
	/* Writes are posted: a read returns only once the card has taken them, and from then
	 * on it refuses the old queues' DMA. Without it a completion of a command from before
	 * the reset could still land in the ring cleared below, as a record of the new pass. */
	if (rd(s, s->blk_cplq + QUIRE_Q_CTRL) != 0)
		return s->t->state(s->t) != QUIRE_OK ? s->t->state(s->t) : QUIRE_ERR_NO_DEVICE;
	for (uint32_t i = 0; i < s->size; i++) {
		if (s->inflight[i])
			quire_req_complete(s->inflight[i], status, 0, 0, QUIRE_DETAIL_NONE);
		s->inflight[i] = NULL;
	}
	int st = restart_queues(s);
	return st == QUIRE_OK ? s->t->state(s->t) : st;
}

static void sim_abandon(struct quire_ctx *ctx, struct quire_req *req)
{
	struct sim *s = ctx->priv;
	for (uint32_t i = 0; i < s->size; i++)
		if (s->inflight[i] == req)
			s->inflight[i] = NULL; /* its completion will be dropped */
}

static int sim_info(struct quire_ctx *ctx, struct quire_info *info)
{
	struct sim *s = ctx->priv;
	if (s->lost)
		return QUIRE_ERR_PEER;
	snprintf(info->backend, sizeof(info->backend), "%s", s->ops.name);
	s->t->timeout_ms = ctx->timeout_ms;
	int st = walk(s, info);
	if (s->t->state(s->t) != QUIRE_OK)
		return s->t->state(s->t);
	if (st != QUIRE_OK)
		return st;
	/* The board's name from its description (boards/, <quire/boards.h>). */
	uint32_t board = rd(s, s->blk_id + QUIRE_ID_BOARD);
	const struct quire_board_desc *desc = quire_board_find(board);
	if (desc)
		snprintf(info->board, sizeof(info->board), "%s", desc->name);
	else
		snprintf(info->board, sizeof(info->board), "unknown board (%u)", board);
	info->if_version = rd(s, s->blk_id + QUIRE_ID_IF_VERSION);
	info->fw_build = rd(s, s->blk_id + QUIRE_ID_FW_BUILD);
	info->fw_state = rd(s, s->blk_id + QUIRE_ID_FW_STATE);
	info->caps = rd(s, s->blk_id + QUIRE_ID_CAPS);
	info->clock_hz = rd(s, s->blk_id + QUIRE_ID_CLOCK_HZ);
	info->hw_build = (uint64_t)rd(s, s->blk_id + QUIRE_ID_BUILD_HI) << 32 |
			 rd(s, s->blk_id + QUIRE_ID_BUILD_LO);
	info->mem_bytes =
	    (uint64_t)rd(s, s->blk_id + QUIRE_ID_MEM_HI) << 32 | rd(s, s->blk_id + QUIRE_ID_MEM_LO);
	info->cmds_ok = rd(s, s->blk_counters + QUIRE_CNT_CMDS_OK);
	info->cmds_err = rd(s, s->blk_counters + QUIRE_CNT_CMDS_ERR);
	if (s->blk_net && rd(s, s->blk_net + QUIRE_NET_COUNT) > 0) {
		uint32_t r = s->blk_net + QUIRE_NET_RECORD(0);
		info->net.link = rd(s, r + QUIRE_NET_LINK);
		info->net.addr = rd(s, r + QUIRE_NET_ADDR);
		info->net.tx_frames = rd(s, r + QUIRE_NET_TX_FRAMES);
		info->net.rx_frames = rd(s, r + QUIRE_NET_RX_FRAMES);
		info->net.rx_errors = rd(s, r + QUIRE_NET_RX_ERRORS);
		info->net.tx_drops = rd(s, r + QUIRE_NET_TX_DROPS);
		uint32_t lo = rd(s, r + QUIRE_NET_TX_BYTES_LO);
		info->net.tx_bytes = (uint64_t)rd(s, r + QUIRE_NET_TX_BYTES_HI) << 32 | lo;
		uint32_t v = rd(s, s->blk_net + QUIRE_RB_VERSION);
		if (QUIRE_RB_VERSION_MINOR(v) >= 2) /* a link that sends lost frames again */
			info->net.retransmits = rd(s, s->blk_net + QUIRE_NET_RETRANSMITS);
	}
	return s->t->state(s->t); /* all the reads answered */
}

static int sim_buf_alloc(struct quire_ctx *ctx, size_t bytes, void **p, uint64_t *dma)
{
	struct sim *s = ctx->priv;
	*p = window_alloc(&s->win, bytes);
	if (!*p)
		return QUIRE_ERR_NOMEM;
	*dma = window_dma(&s->win, *p);
	return QUIRE_OK;
}

static void sim_buf_free(struct quire_ctx *ctx, void *p, size_t bytes)
{
	(void)bytes;
	window_free(&((struct sim *)ctx->priv)->win, p);
}

static void sim_close(struct quire_ctx *ctx)
{
	struct sim *s = ctx->priv;
	s->t->timeout_ms = ctx->timeout_ms;
	if (!s->lost && s->t->state(s->t) == QUIRE_OK) {
		wr(s, s->blk_irq + QUIRE_IRQ_MASK, 0);
		wr(s, s->blk_cmdq + QUIRE_Q_CTRL, 0);
		wr(s, s->blk_cplq + QUIRE_Q_CTRL, 0);
	}
	s->t->close(s->t);
	window_fini(&s->win);
	free(s->inflight);
	free(s);
}

static const struct quire_backend_ops sim_ops = {
    .name = "sim",
    .caps = QUIRE_BACKEND_CAP_CARD | QUIRE_BACKEND_CAP_CARD_NET,
    .info = sim_info,
    .buf_alloc = sim_buf_alloc,
    .buf_free = sim_buf_free,
    .submit = sim_submit,
    .wait = sim_wait,
    .abandon = sim_abandon,
    .heartbeat = sim_heartbeat,
    .reset = sim_reset,
    .close = sim_close,
};

static int setup_queue(struct sim *s, uint32_t block, void *ring)
{
	uint64_t dma = window_dma(&s->win, ring);
	wr(s, block + QUIRE_Q_BASE_LO, (uint32_t)dma);
	wr(s, block + QUIRE_Q_BASE_HI, (uint32_t)(dma >> 32));
	wr(s, block + QUIRE_Q_SIZE_LOG2, RING_LOG2);
	wr(s, block + QUIRE_Q_CTRL, QUIRE_Q_CTRL_ENABLE);
	return (rd(s, block + QUIRE_Q_STATUS) & QUIRE_Q_STATUS_ENABLED) ? QUIRE_OK
									: QUIRE_ERR_INTERNAL;
}

/*
 * "sim:cluster": card r of the cluster quire-cluster started ($QUIRE_CLUSTER_DIR), r
 * being this process's rank as its launcher says (QUIRE_RANK, or mpirun's variables),
 * the way trainers pick their accelerator by rank.
 */
static int cluster_card(char *path, size_t len)
{
	static const char *const rank_vars[] = {"QUIRE_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
						"PMI_RANK"};
	const char *dir = getenv("QUIRE_CLUSTER_DIR"), *rank = NULL;
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && !rank; i++)
		rank = getenv(rank_vars[i]);
	char *end;
	long r = rank ? strtol(rank, &end, 10) : -1;
	if (!dir || !rank || *end || r < 0)
		return QUIRE_ERR_NO_DEVICE; /* not inside quire-cluster, or no rank */
	return (size_t)snprintf(path, len, "%s/card-%ld.sock", dir, r) < len ? QUIRE_OK
									     : QUIRE_ERR_RANGE;
}

int quire_backend_sim_open(struct quire_ctx *ctx, const char *where)
{
	char cluster_path[256];
	if (where && strcmp(where, "cluster") == 0) {
		int st = cluster_card(cluster_path, sizeof(cluster_path));
		if (st != QUIRE_OK)
			return st;
		where = cluster_path;
	}
	struct transport *t;
	int st;
	if (where && strcmp(where, "inproc") == 0)
		st = transport_inproc_open(NULL, &t);
	else if (where && strncmp(where, "inproc,", 7) == 0)
		st = transport_inproc_open(where + 7, &t);
	else
		st = transport_socket_open(where, ctx->timeout_ms, &t);
	if (st != QUIRE_OK)
		return st;
	return quire_ring_attach(ctx, t, "sim");
}

int quire_ring_attach(struct quire_ctx *ctx, struct transport *t, const char *name)
{
	struct sim *s = calloc(1, sizeof(*s));
	if (!s) {
		t->close(t);
		return QUIRE_ERR_NOMEM;
	}
	s->t = t;
	s->ops = sim_ops;
	s->ops.name = name;
	int st;
	if (window_init(&s->win, s->t->mem, s->t->iova, s->t->mem_size) != 0) {
		st = QUIRE_ERR_NOMEM;
		goto fail;
	}
	st = walk(s, NULL);
	/* The firmware boots after the card appears: give it a moment. */
	for (int64_t t0 = quire_now_ms(); st == QUIRE_OK;) {
		uint32_t state = rd(s, s->blk_id + QUIRE_ID_FW_STATE);
		if (state == QUIRE_FW_STATE_RUNNING)
			break;
		if (s->t->state(s->t) == QUIRE_ERR_TIMEOUT)
			break; /* it stopped answering: said below */
		if (state == QUIRE_FW_STATE_HALTED || quire_now_ms() - t0 > PROBE_MS)
			st = QUIRE_ERR_NO_DEVICE;
		else
			s->t->wait_irq(s->t, 10);
	}
	/* A card that accepted us and then fell silent reads as all ones, which is no card:
	 * it is one that does not answer, and the caller's timeout has run out on it. */
	if (s->t->state(s->t) == QUIRE_ERR_TIMEOUT) {
		st = QUIRE_ERR_TIMEOUT;
		quire_open_fault_set("the card did not answer a register read within %d ms of "
				     "its attach",
				     s->t->timeout_ms);
	}
	if (st != QUIRE_OK)
		goto fail;
	s->clock_hz = rd(s, s->blk_id + QUIRE_ID_CLOCK_HZ);
	s->size = 1u << RING_LOG2;
	s->cmds = window_alloc(&s->win, s->size * sizeof(*s->cmds));
	s->cpls = window_alloc(&s->win, s->size * sizeof(*s->cpls));
	s->inflight = calloc(s->size, sizeof(*s->inflight));
	if (!s->cmds || !s->cpls || !s->inflight) {
		st = QUIRE_ERR_NOMEM;
		goto fail;
	}
	st = restart_queues(s);
	if (st != QUIRE_OK)
		goto fail;
	ctx->ops = &s->ops;
	ctx->priv = s;
	return QUIRE_OK;
fail:
	s->t->close(s->t);
	window_fini(&s->win);
	free(s->inflight);
	free(s);
	return st;
}
