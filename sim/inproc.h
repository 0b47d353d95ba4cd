/* SPDX-License-Identifier: MIT */
/*
 * A card model in the calling process: what libquire_sim (sim/inproc_card.c, the emu and the
 * native firmware) gives libquire's sim:inproc transport (host/src/backend/transport_inproc.c),
 * which loads it with dlopen when a context first asks for one. The one interface between the
 * two libraries; both include it.
 */
#ifndef QUIRE_SIM_INPROC_H
#define QUIRE_SIM_INPROC_H

#include <stddef.h>
#include <stdint.h>

#include "sim/device.h"

/* A card with its host memory attached and its interrupts counted. */
struct quire_sim_inproc {
	struct quire_device *dev;
	void *mem; /* the host memory the card reaches by DMA, mem_size bytes at DMA address iova */
	size_t mem_size;
	uint64_t iova;
	/* QUIRE_OK once the card raised an interrupt since the last call (at once if it has),
	 * QUIRE_ERR_TIMEOUT after timeout_ms without one. */
	int (*wait_irq)(struct quire_sim_inproc *card, int timeout_ms);
	/* Stops the card and frees it with its host memory. */
	void (*close)(struct quire_sim_inproc *card);
};

/* The function libquire_sim exports (sim/libquire_sim.map), by this name, in the library of this
 * soname. abi must be QUIRE_SIM_INPROC_ABI, the layout of struct quire_sim_inproc and struct
 * quire_device both sides were built with (QUIRE_ERR_VERSION otherwise). opts: NULL or "", or
 * the card's network port: "net=DIR,addr=N[,drop=P,corrupt=P,seed=S]" (QUIRE_ERR_INVALID when
 * malformed). host_bytes of host memory, seen by the card at iova. QUIRE_ERR_NO_DEVICE when
 * the network port cannot open, QUIRE_ERR_NOMEM. */
#define QUIRE_SIM_INPROC_ABI    3u
#define QUIRE_SIM_INPROC_SYMBOL "quire_sim_inproc_open"
#define QUIRE_SIM_LIB_SONAME    "libquire_sim.so.0"
int quire_sim_inproc_open(unsigned abi, const char *opts, size_t host_bytes, uint64_t iova,
			  struct quire_sim_inproc **card);

#endif /* QUIRE_SIM_INPROC_H */
