/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The simulated card behind QEMU's ivshmem-doorbell (quire-sim --ivshmem, sim/ivshmem.c)
 * and what quire.ko does on such a card (driver/quire_io.c): docs/driver-qemu.md.
 *
 * ivshmem's BAR 2 is the card's shared memory. Its first QUIRE_BAR0_BYTES are the
 * register window: the card keeps a copy of its register file there, so a read is a
 * plain memory read. Plain memory has no side effects, so a register write is an
 * entry {offset, value} in the write ring that follows the window, announced by
 * ivshmem's Doorbell register (BAR 0) with peer QUIRE_IVSHMEM_CARD_PEER, vector 0.
 * The card applies the entries in order, refreshes its copy of the registers and
 * then advances the ring's CONSUMER index: a read that must see earlier writes (as a
 * PCIe read does) waits until CONSUMER reaches PRODUCER.
 *
 * Every word of the window and of the write ring is 32-bit little-endian: the driver
 * reaches them with ioread32/iowrite32, quire-sim converts.
 *
 * The card interrupts the guest on the guest's MSI-X vector 0.
 */
#ifndef QUIRE_IVSHMEM_H
#define QUIRE_IVSHMEM_H

#include "quire/regs.h"
#include "quire/static_assert.h"

/* ivshmem's own registers (BAR 0), from QEMU's ivshmem-spec.rst. */
#define QUIRE_IVSHMEM_PCI_VENDOR     0x1af4u /* QEMU's ivshmem devices (Red Hat's vendor ID) */
#define QUIRE_IVSHMEM_PCI_DEVICE     0x1110u
#define QUIRE_IVSHMEM_REG_IVPOSITION 0x08 /* the guest's peer ID */
#define QUIRE_IVSHMEM_REG_DOORBELL   0x0c /* peer << 16 | vector: interrupts that peer */
#define QUIRE_IVSHMEM_BAR_REGS       0    /* ivshmem's registers */
#define QUIRE_IVSHMEM_BAR_SHM        2    /* the shared memory: the card's window */
#define QUIRE_IVSHMEM_CARD_PEER      0u   /* the card is the server's peer 0 */
#define QUIRE_IVSHMEM_VECTORS        1u   /* vector 0: doorbell to the card, MSI-X to the guest */

/* The write ring, right after the register window. */
#define QUIRE_IVSHMEM_WRING             QUIRE_BAR0_BYTES
#define QUIRE_IVSHMEM_WRING_PRODUCER    0x00 /* free-running, written by the guest */
#define QUIRE_IVSHMEM_WRING_CONSUMER    0x04 /* free-running, written by the card */
#define QUIRE_IVSHMEM_WRING_ENTRY0      0x40 /* entries of 8 bytes: offset, value */
#define QUIRE_IVSHMEM_WRING_ENTRY_BYTES 8u
#define QUIRE_IVSHMEM_WRING_ENTRIES     1024u /* a power of two */
#define QUIRE_IVSHMEM_WRING_OFFSET      0x0   /* of an entry: the register's offset in the window */
#define QUIRE_IVSHMEM_WRING_VALUE       0x4   /* of an entry: the value written */
#define QUIRE_IVSHMEM_WRING_BYTES                                                                  \
	(QUIRE_IVSHMEM_WRING_ENTRY0 + QUIRE_IVSHMEM_WRING_ENTRIES * QUIRE_IVSHMEM_WRING_ENTRY_BYTES)

/* The whole shared memory: a power of two, as a PCI BAR is. */
#define QUIRE_IVSHMEM_SHM_BYTES 0x20000u

QUIRE_STATIC_ASSERT((QUIRE_IVSHMEM_WRING_ENTRIES & (QUIRE_IVSHMEM_WRING_ENTRIES - 1)) == 0,
		    "the write ring's entries are a power of two");
QUIRE_STATIC_ASSERT(QUIRE_IVSHMEM_WRING + QUIRE_IVSHMEM_WRING_BYTES <= QUIRE_IVSHMEM_SHM_BYTES,
		    "the write ring fits the shared memory");
QUIRE_STATIC_ASSERT((QUIRE_IVSHMEM_SHM_BYTES & (QUIRE_IVSHMEM_SHM_BYTES - 1)) == 0,
		    "the shared memory is a BAR: a power of two");

#endif /* QUIRE_IVSHMEM_H */
