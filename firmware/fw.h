/* SPDX-License-Identifier: MIT */
/*
 * quire firmware: the control core's program. One source, two builds: the
 * cross build for the card's rv32im core (crt0.S, link.ld, main_card.c) and
 * the native build that card models link (QUIRE_FW_NATIVE), where the HAL
 * calls back into the model.
 *
 * This header is what a card model needs: the firmware state, the HAL a model
 * provides, and the entry points.
 */
#ifndef QUIRE_FW_H
#define QUIRE_FW_H

#include <stdint.h>

#include "quire/card.h"
#include "quire/cmd.h"
#include "quire/validate.h" /* the descriptor rules, shared with libquire and the driver */

#ifdef QUIRE_FW_NATIVE
/* What a card model provides to the native firmware. */
struct quire_fw_hal {
	uint32_t (*read32)(void *ctx, uint32_t addr);
	void (*write32)(void *ctx, uint32_t addr, uint32_t value);
	/* Sleep until something may have changed (doorbell, register write);
	 * return non-zero when the firmware must stop. */
	int (*wait_event)(void *ctx);
};
#endif

/* Where the BAR blocks the firmware serves are (found by walking the chain). */
struct quire_fw_blocks {
	uint32_t id, cmdq, cplq, irq, engines, counters;
};

/* A communicator this card belongs to (COMM_INIT). */
#define QUIRE_FW_MAX_COMMS 4
struct quire_fw_comm {
	uint16_t id; /* 0: the slot is free */
	uint16_t rank, size;
	uint16_t prev, next; /* network addresses of the ring neighbours */
	uint8_t failed;      /* a collective failed: only COMM_FREE is left */
	uint32_t timeout_ms;
	uint32_t coll_seq;       /* collectives started */
	uint32_t tx_seq, rx_seq; /* frames sent to next, taken from prev */
	uint32_t addrs;          /* card memory offset of the members' addresses */
	uint64_t keepalive_at;   /* cycle count when the next keepalive is due */
};

/* The network port's rings as the firmware keeps them (firmware/net.c): receive buffers
 * are numbered; each is free, posted in the receive ring, held (a frame the port
 * delivered, waiting for its communicator to take it), lent (the frame the last
 * fw_net_recv returned, until the next call), or kept (lent, and kept by the caller). */
#define QUIRE_FW_NET_BUFS 48u
/* Frames kept at once past later receives: an all-reduce's all-gather frames whose results
 * still go to the host (allreduce.c). Buffers enough stay to post every receive
 * descriptor besides (net.c). */
#define QUIRE_FW_NET_KEEP 16u
struct quire_fw_net {
	uint32_t tx_prod;  /* transmit descriptors queued */
	uint32_t rx_prod;  /* receive buffers posted */
	uint32_t rx_taken; /* receive descriptors whose completion the firmware has read */
	uint32_t n_free, n_held;
	uint32_t lent;   /* buffer number + 1; 0: none */
	uint32_t n_kept; /* lent ones kept past later receives (fw_net_keep), oldest first */
	uint8_t kept[QUIRE_FW_NET_KEEP];
	/* The frame queued and not yet answered (fw_net_post; comm NULL: none), and the
	 * failure of one answered while nobody asked (fw_net_settle returns it). */
	struct quire_fw_comm *pend_comm;
	uint32_t pend_at, pend_len, pend_w0, pend_w2, pend_desc;
	int pend_err;
	uint8_t free[QUIRE_FW_NET_BUFS];
	uint8_t held[QUIRE_FW_NET_BUFS]; /* in arrival order */
};

struct quire_fw {
#ifdef QUIRE_FW_NATIVE
	const struct quire_fw_hal *hal;
	void *hal_ctx;
#endif
	struct quire_fw_blocks bar;
	uint32_t epoch;    /* queue epoch the indices below belong to */
	uint32_t cmd_cons; /* descriptors consumed */
	uint32_t cpl_prod; /* completions posted */
	uint32_t cpl_cons; /* the host's completion CONSUMER, as last read */
	/* The queues as the host set them up, read when the epoch changes: a queue's base and
	 * size take effect with its CTRL write, which starts a new epoch. */
	uint64_t cmd_base, cpl_base;
	uint32_t cmd_log2, cpl_log2;
	uint32_t queues_up; /* both queues ENABLED */
	uint32_t qe;        /* the card has a queue engine (QUIRE_CARD_QUEUE): it fetches
			     * descriptors and writes completions instead of the DMA mover */
	uint32_t qe_serves; /* and it serves MLP_SCOREs itself (QUIRE_QE_SERVE took) */
	uint32_t cmds_ok, cmds_err;
	uint32_t dma_posted[QUIRE_DMA_CHANNELS]; /* transfers posted to each channel (dma.c) */
	/* The first transfers in of a pipelined command, posted before its descriptor was
	 * validated (pipe.c): where they go (src's, and DECODE's exponents when exp_bytes),
	 * and channel 0's counts before them. */
	struct {
		uint64_t host, stride, exp_host;
		uint32_t card, bytes, reps, exp_bytes, pending;
		uint32_t posted, failed, moved;
	} prefetch;
	uint64_t dma_bytes;
	uint64_t dma_published; /* dma_bytes as last written to QUIRE_CNT_DMA_BYTES */
	uint32_t mlp_width0;    /* input width of the loaded model, 0 when none is loaded */
	uint32_t mem_bytes;     /* card memory size */
	uint32_t caps;          /* QUIRE_CAP_* of the ID block: the engines this card has */
	uint32_t cycles_per_ms;
	uint32_t net_addr; /* this card's network address; net_up 0 without a network */
	uint32_t net_up;
	struct quire_fw_net net;
	uint32_t stopping;  /* the HAL said stop while a collective waited */
	uint32_t heartbeat; /* QUIRE_CNT_HEARTBEAT's value */
	struct quire_fw_comm comm[QUIRE_FW_MAX_COMMS];
};

/* The firmware build id: a git commit prefix, set by the build. */
#ifndef QUIRE_FW_BUILD_ID
#define QUIRE_FW_BUILD_ID 0u
#endif

/* Find the BAR blocks, publish the build id, go RUNNING. Returns a status. */
int quire_fw_init(struct quire_fw *fw);
/* Serve every descriptor the host has posted; returns how many. */
int quire_fw_poll(struct quire_fw *fw);
/* Serve forever (until the native HAL says stop). */
void quire_fw_run(struct quire_fw *fw);

#endif /* QUIRE_FW_H */
