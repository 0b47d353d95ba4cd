/* SPDX-License-Identifier: MIT */
/*
 * How the sim backend reaches a card: a device (MMIO), the host memory the
 * card was given, and a way to sleep until the card raises an interrupt.
 */
#ifndef QUIRE_BACKEND_TRANSPORT_H
#define QUIRE_BACKEND_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/device.h"

/* DMA address of the first byte of host memory: above 4 GiB, so the high words are used. */
#define QUIRE_SIM_IOVA 0x100000000ull
/* Host memory a sim context shares with its card (QUIRE_SIM_HOST_MB overrides). */
#define QUIRE_SIM_HOST_MB 512u

struct transport {
	struct quire_device *dev;
	void *mem;
	size_t mem_size;
	uint64_t iova;
	/* 0 after an interrupt (or anything else worth a look), QUIRE_ERR_TIMEOUT, or
	 * QUIRE_ERR_PEER when the card is gone. */
	int (*wait_irq)(struct transport *t, int timeout_ms);
	/* QUIRE_OK; QUIRE_ERR_TIMEOUT once the card failed to answer a register access within
	 * timeout_ms (it is then not asked again); QUIRE_ERR_PEER once it is gone. */
	int (*state)(struct transport *t);
	/* Ask a hung card again from now on (quire_reset); its late answers are discarded. */
	void (*revive)(struct transport *t);
	void (*close)(struct transport *t);
	/* NULL where host memory is coherent with the card (sim). Otherwise: make all of mem
	 * the card's (to_card 1: before a doorbell) or ours (0: before reading what it wrote);
	 * QUIRE_OK or an error, after which the card counts as gone. */
	int (*sync)(struct transport *t, int to_card);
	int timeout_ms; /* how long a register access may wait for the card (-1: forever) */
};

/*
 * A card model in this process. It lives in libquire_sim, not in libquire: libquire loads
 * it when a context asks for one (transport_inproc.c, through sim/inproc.h). opts: NULL or
 * "", or the card's network port: "net=DIR,addr=N[,drop=P,corrupt=P,seed=S]".
 */
int transport_inproc_open(const char *opts, struct transport **t);
/* path NULL: start a quire-sim process for this transport alone. timeout_ms: the caller's
 * (the context's) limit on the card's silence, at attach and after it (-1: none); the
 * attach says why it failed through quire_open_fault_set. */
int transport_socket_open(const char *path, int timeout_ms, struct transport **t);

/*
 * The ring driver (sim.c) on a card reached through t: probe it, set up its queues and make
 * ctx a context of the backend `name` (what quire_get_info reports). Takes t: closes it on
 * error.
 */
struct quire_ctx;
int quire_ring_attach(struct quire_ctx *ctx, struct transport *t, const char *name);

/* Host memory a context gives its card: QUIRE_SIM_HOST_MB, else the default above. */
size_t transport_host_bytes(void);

#endif
