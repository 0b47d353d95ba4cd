/* SPDX-License-Identifier: MIT */
/*
 * The state of one emu card (sim/emu/emu.h's model), shared by the files that model its
 * blocks: emu.c (register window, memory, DMA mover, engines, the firmware's HAL) and
 * queue.c (the queue engine). Not an interface: nothing outside sim/emu/ includes it.
 */
#ifndef QUIRE_SIM_EMU_STATE_H
#define QUIRE_SIM_EMU_STATE_H

#include <pthread.h>
#include <stdint.h>

#ifndef QUIRE_FW_NATIVE
#error "sim/emu/ is built with QUIRE_FW_NATIVE (sim/build.mk): struct quire_fw is the native one"
#endif
#include "firmware/fw.h"
#include "quire/card.h"
#include "quire/regs.h"
#include "sim/emu/emu.h"

/* Where this card puts its BAR blocks (consumers find them by walking the chain). */
enum {
	RB_ID = 0x000,
	RB_CMDQ = 0x100,
	RB_CPLQ = 0x200,
	RB_IRQ = 0x300,
	RB_ENGINES = 0x400,
	RB_NETPORT = 0x500,
	RB_COUNTERS = 0x600,
};

#define N_ENGINES 3
#define DMA_REGS  (QUIRE_DMA_CHANNEL_BYTES / 4) /* a DMA channel's registers, QUIRE_DMA_* / 4 */

struct engine {
	uint32_t ctrl;
	uint32_t ret;
	uint64_t args[QUIRE_ENGINE_MAX_ARGS];
	uint32_t ops;
	uint64_t cycles;
};

/* The queue engine (QUIRE_QE_*): the rings as the firmware set them up, the descriptor it
 * holds and the record it writes. */
struct queue_engine {
	uint32_t ctrl, epoch, cmd_log2, cpl_log2;
	uint64_t cmd_base, cpl_base;
	uint32_t held, held_index, held_epoch; /* DESC is the descriptor at held_index */
	uint32_t desc_status, desc_nonzero, cpl_state, cpl_status;
	uint32_t cpl[QUIRE_CPL_WORDS], desc[QUIRE_CMD_WORDS];
};

struct emu {
	struct quire_device dev;
	pthread_mutex_t lock;
	/* Events for the firmware thread, under a lock of their own: the port's receive
	 * thread must not wait for an engine run to post one. */
	pthread_mutex_t ev_lock;
	pthread_cond_t event;
	int event_pending, stop;
	pthread_t fw_thread;
	struct quire_fw fw;

	uint32_t bar[QUIRE_BAR0_BYTES / 4];
	uint8_t *mem;
	uint64_t mem_bytes;
	uint32_t clock_hz;
	int64_t t0_ns; /* when the cycle counter was 0, on the monotonic clock */
	uint32_t cycles_hi_latch;
	uint32_t epoch;
	uint64_t wake_at; /* the firmware's timer, in cycles (0: none) */
	struct quire_netport *net;

	uint8_t *host; /* host memory window */
	uint64_t host_iova, host_size;

	uint32_t dma[QUIRE_DMA_CHANNELS][DMA_REGS];
	struct queue_engine qe;
	struct engine eng[N_ENGINES];
	struct quire_mlp_net *mlp;

	quire_irq_fn irq_fn;
	void *irq_ctx;

	void (*before_dma)(void *arg, uint64_t n);
	void *before_dma_arg;
	uint64_t dma_count;
};

static inline uint32_t *reg(struct emu *e, uint32_t block, uint32_t off)
{
	return &e->bar[(block + off) / 4];
}

/* The host bytes [host, host + len) of a transfer of queue epoch `epoch`, or NULL with
 * *status saying why: the checks of every transfer to or from the host, in their order
 * (emu.c). */
uint8_t *quire_emu_host_span(struct emu *e, uint32_t epoch, uint64_t host, uint64_t len,
			     uint32_t *status);

/* The queue engine's registers as the firmware reaches them (queue.c); r is the offset in
 * its block. DESC_STATE is read alone, without the card's lock held: a fetch is a transfer,
 * and the test hook before_dma sees it first. The others are called with the lock held. */
uint32_t quire_emu_qe_desc_state(struct emu *e);
uint32_t quire_emu_qe_read(struct emu *e, uint32_t r);
void quire_emu_qe_write(struct emu *e, uint32_t r, uint32_t v);

#endif
