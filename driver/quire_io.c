// SPDX-License-Identifier: GPL-2.0
/*
 * Register access. On a card with real registers a read or write is one MMIO access.
 * On the simulated card behind QEMU's ivshmem-doorbell (include/quire/ivshmem.h,
 * docs/driver-qemu.md) the register window is shared memory holding the card's copy
 * of its registers: a read is a memory read, and a write, which must have the
 * register's side effects, is an entry in the write ring after the window, announced
 * through ivshmem's Doorbell. A read first waits until the card has taken every
 * earlier write, as a PCIe read waits for the posted writes before it.
 *
 * A card that stops answering must not hang the guest: a read waits at most
 * QUIRE_IVSHMEM_WAIT_US for the ring to drain, then says so once, marks the card
 * silent and goes on with what the window holds; while it is silent nothing waits
 * (waits time out, removal goes through), and a full ring drops the write.
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ktime.h>

#include "quire_drv.h"
#include "quire/ivshmem.h"

/* Generous: the card is a process on a host that may be busy with other work. */
#define QUIRE_IVSHMEM_WAIT_US 250000

static u32 ring_consumer(struct quire_ivshmem *iv)
{
	return ioread32(iv->wring + QUIRE_IVSHMEM_WRING_CONSUMER);
}

/*
 * Under iv->lock: has the card taken every write before index upto? Waits for it,
 * unless the card is silent. The card is silent from a wait that timed out until it
 * has taken every write there is.
 */
static bool writes_taken(struct quire_device *qdev, u32 upto)
{
	struct quire_ivshmem *iv = &qdev->ivsh;
	ktime_t end = ktime_add_us(ktime_get(), QUIRE_IVSHMEM_WAIT_US);
	u32 cons;

	for (;;) {
		cons = ring_consumer(iv);
		if (iv->silent && cons == iv->prod) {
			iv->silent = false;
			dev_info(&qdev->pdev->dev, "card answering again\n");
		}
		if ((s32)(cons - upto) >= 0)
			return true;
		if (iv->silent)
			return false;
		if (ktime_after(ktime_get(), end))
			break;
		udelay(2);
	}
	iv->silent = true;
	dev_err(&qdev->pdev->dev, "card not answering: %u register writes not taken after %u ms\n",
		iv->prod - cons, QUIRE_IVSHMEM_WAIT_US / 1000);
	return false;
}

u32 quire_rd(struct quire_device *qdev, u32 off)
{
	struct quire_ivshmem *iv = &qdev->ivsh;
	unsigned long flags;

	if (iv->wring) {
		spin_lock_irqsave(&iv->lock, flags);
		writes_taken(qdev, iv->prod);
		spin_unlock_irqrestore(&iv->lock, flags);
	}
	return ioread32(qdev->regs + off);
}

void quire_wr(struct quire_device *qdev, u32 off, u32 v)
{
	struct quire_ivshmem *iv = &qdev->ivsh;
	void __iomem *entry;
	unsigned long flags;

	if (!iv->wring) {
		iowrite32(v, qdev->regs + off);
		return;
	}
	spin_lock_irqsave(&iv->lock, flags);
	if (!writes_taken(qdev, iv->prod - QUIRE_IVSHMEM_WRING_ENTRIES + 1)) {
		spin_unlock_irqrestore(&iv->lock, flags);
		dev_err_ratelimited(&qdev->pdev->dev,
				    "card not answering: write of %#x to %#x dropped\n", v, off);
		return;
	}
	entry = iv->wring + QUIRE_IVSHMEM_WRING_ENTRY0 +
		(iv->prod & (QUIRE_IVSHMEM_WRING_ENTRIES - 1)) * QUIRE_IVSHMEM_WRING_ENTRY_BYTES;
	iowrite32(off, entry + QUIRE_IVSHMEM_WRING_OFFSET);
	iowrite32(v, entry + QUIRE_IVSHMEM_WRING_VALUE);
	wmb(); /* the entry is in memory before the index that hands it over */
	iv->prod++;
	iowrite32(iv->prod, iv->wring + QUIRE_IVSHMEM_WRING_PRODUCER);
	iowrite32(QUIRE_IVSHMEM_CARD_PEER << 16 | 0, iv->doorbell);
	spin_unlock_irqrestore(&iv->lock, flags);
}

/*
 * The card is behind ivshmem: from now on writes go through the write ring. Its
 * producer index is where the last driver left it (the card outlives a module); the
 * card must have taken all of that before we start.
 */
int quire_io_ivshmem(struct quire_device *qdev, void __iomem *ivshmem_regs)
{
	struct quire_ivshmem *iv = &qdev->ivsh;
	struct pci_dev *pdev = qdev->pdev;
	unsigned long flags;
	bool ok;

	if (pci_resource_len(pdev, QUIRE_IVSHMEM_BAR_SHM) < QUIRE_IVSHMEM_SHM_BYTES) {
		dev_err(&pdev->dev, "ivshmem: %llu bytes of shared memory, a card needs %u\n",
			(unsigned long long)pci_resource_len(pdev, QUIRE_IVSHMEM_BAR_SHM),
			QUIRE_IVSHMEM_SHM_BYTES);
		return -ENODEV;
	}
	spin_lock_init(&iv->lock);
	iv->doorbell = ivshmem_regs + QUIRE_IVSHMEM_REG_DOORBELL;
	iv->wring = qdev->regs + QUIRE_IVSHMEM_WRING;
	iv->silent = false;
	spin_lock_irqsave(&iv->lock, flags);
	iv->prod = ioread32(iv->wring + QUIRE_IVSHMEM_WRING_PRODUCER);
	ok = writes_taken(qdev, iv->prod);
	spin_unlock_irqrestore(&iv->lock, flags);
	return ok ? 0 : -ETIMEDOUT;
}
