/* SPDX-License-Identifier: MIT */
/*
 * The device interface: what sits between a card model (emu or rtl) and
 * its host. A host side (libquire's sim backend, the quire-sim server, a QEMU
 * bridge) sees a card only through these calls, so it cannot tell one model
 * from another except by speed.
 */
#ifndef QUIRE_SIM_DEVICE_H
#define QUIRE_SIM_DEVICE_H

#include <stdint.h>

struct quire_device;

/* Called by the card when it raises interrupt causes (QUIRE_IRQ_*); never with a lock held. */
typedef void (*quire_irq_fn)(void *ctx, uint32_t causes);

struct quire_device_ops {
	/* BAR0 register access, 32 bits at a 4-byte aligned offset. */
	uint32_t (*mmio_read)(struct quire_device *dev, uint32_t offset);
	void (*mmio_write)(struct quire_device *dev, uint32_t offset, uint32_t value);
	/*
	 * Host memory the card may reach by DMA: `size` bytes at `mem`, seen by the
	 * card at DMA addresses [iova, iova + size). Replaces any previous window.
	 */
	int (*attach_host)(struct quire_device *dev, void *mem, uint64_t iova, uint64_t size);
	/* The host is gone: stop using its memory, disable the queues. Returns when no
	 * DMA to the old window can happen any more. */
	void (*detach_host)(struct quire_device *dev);
	void (*set_irq)(struct quire_device *dev, quire_irq_fn fn, void *ctx);
	void (*destroy)(struct quire_device *dev);
};

struct quire_device {
	const struct quire_device_ops *ops;
};

/* A device's BAR0 read in the shape the contract's register-block walk takes
 * (quire_regblock_read_fn, quire/regblock.h): dev is the struct quire_device. */
static inline uint32_t quire_device_read32(void *dev, uint32_t offset)
{
	struct quire_device *d = (struct quire_device *)dev;
	return d->ops->mmio_read(d, offset);
}

#endif /* QUIRE_SIM_DEVICE_H */
