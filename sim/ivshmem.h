/* SPDX-License-Identifier: MIT */
/*
 * quire-sim's second front end: the card attached to a QEMU guest through QEMU's
 * ivshmem-doorbell device. quire-sim is the ivshmem server and its peer 0, the card;
 * the layout it shares with the guest's driver is include/quire/ivshmem.h, the design
 * docs/driver-qemu.md.
 */
#ifndef QUIRE_SIM_IVSHMEM_H
#define QUIRE_SIM_IVSHMEM_H

#include <signal.h>

#include "sim/device.h"

struct quire_ivshmem_config {
	int listen_fd;         /* the server's socket, bound and listening */
	const char *path;      /* its path, for messages */
	const char *guest_ram; /* QEMU's memory-backend-file (share=on) of the guest's RAM */
	int once;              /* return when the first QEMU goes away */
	int quiet;             /* no messages about QEMU coming and going */
};

/*
 * Serve QEMU (one at a time) until *stopping is set, or the first one leaves with
 * cfg->once. 0, or 1 after saying why on stderr.
 */
int quire_ivshmem_serve(struct quire_device *dev, const struct quire_ivshmem_config *cfg,
			volatile sig_atomic_t *stopping);

#endif /* QUIRE_SIM_IVSHMEM_H */
