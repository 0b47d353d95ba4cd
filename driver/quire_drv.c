// SPDX-License-Identifier: GPL-2.0
/*
 * quire.ko: the PCI driver of a quire card, a DRM device (a render node on 6.1,
 * an accel node where the kernel has CONFIG_DRM_ACCEL: quire_compat.h).
 *
 * Probe, in order: enable the device, map the register BAR, walk and
 * version-check its register blocks (not a quire card: -ENODEV), DMA mask,
 * MSI-X, wait for the firmware to run, rings, interrupt, register. Remove:
 * unplug (no new ioctl gets in), stop the rings, fail what is in flight; the
 * managed resources go after.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_ioctl.h>

#include "quire_compat.h"
#include "quire_drv.h"
#include "quire/boards.h"
#include "quire/ivshmem.h"
#include "quire/regblock.h"
#include "quire/regs.h"
#include "quire/status.h"

#define QUIRE_FW_BOOT_MS 5000

/* An id's driver_data: which BAR holds the register blocks, and how it is reached. */
#define QUIRE_ID_BAR(data) ((int)((data) & 0xff))
#define QUIRE_ID_IVSHMEM   BIT(8) /* shared memory and a write ring: quire_io.c */

/* A subsystem ID a board does not fix matches any (a board file without it). */
#define QUIRE_SUB_ID(id) ((id) == QUIRE_BOARD_PCI_ANY ? PCI_ANY_ID : (id))
#define QUIRE_BOARD_ENTRY(vendor, device, sub_vendor, sub_device, board, regs_bar)       \
	{ PCI_DEVICE_SUB(vendor, device, QUIRE_SUB_ID(sub_vendor), QUIRE_SUB_ID(sub_device)), \
	  .driver_data = (regs_bar) },

static const struct pci_device_id quire_pci_ids[] = {
	/* The boards (boards/, one .toml each) that are PCI devices: <quire/boards.h>. */
	QUIRE_BOARD_PCI_IDS(QUIRE_BOARD_ENTRY)
	/*
	 * The simulated card attached to QEMU through ivshmem-doorbell (BAR 0 its
	 * registers, BAR 1 MSI-X, BAR 2 the card's window); the probe tells a quire
	 * card from any other ivshmem device by its ID block.
	 */
	{ PCI_DEVICE(QUIRE_IVSHMEM_PCI_VENDOR, QUIRE_IVSHMEM_PCI_DEVICE),
	  .driver_data = QUIRE_ID_IVSHMEM | QUIRE_IVSHMEM_BAR_SHM },
	{ }
};
MODULE_DEVICE_TABLE(pci, quire_pci_ids);

static u32 rd(struct quire_device *qdev, u32 off)
{
	return quire_rd(qdev, off);
}

/* The contract's walk reads the register BAR through this. */
static u32 quire_walk_read(void *qdev, u32 off)
{
	return rd(qdev, off);
}

/*
 * Walk the block chain from offset 0 (include/quire/regblock.h), note where our
 * blocks are and check their major versions, then the ID block's magic and the
 * contract's version.
 */
static int quire_walk(struct quire_device *qdev)
{
	const struct quire_regblock_need need[] = {
		{ QUIRE_RB_TYPE_ID, QUIRE_RB_ID_VERSION, &qdev->blk.id },
		{ QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, &qdev->blk.cmdq },
		{ QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &qdev->blk.cplq },
		{ QUIRE_RB_TYPE_IRQ, QUIRE_RB_IRQ_VERSION, &qdev->blk.irq },
		{ QUIRE_RB_TYPE_COUNTERS, QUIRE_RB_COUNTERS_VERSION, &qdev->blk.counters },
	};
	struct device *dev = &qdev->pdev->dev;
	struct quire_regblock_chain chain;
	u32 failed, off;
	int st;

	st = quire_regblock_walk(quire_walk_read, qdev, &chain);
	if (st == QUIRE_OK)
		st = quire_regblock_find_all(&chain, need, ARRAY_SIZE(need), &failed);
	if (st == QUIRE_ERR_VERSION) {
		off = *need[failed].offset;
		dev_err(dev, "block %#x at %#x: version %#x, driver knows %#x\n",
			need[failed].type, off, rd(qdev, off + QUIRE_RB_VERSION),
			need[failed].version);
		return -EPROTO;
	}
	if (st != QUIRE_OK)
		return -ENODEV; /* not a chain of ours, or a broken one */
	if (rd(qdev, qdev->blk.id + QUIRE_ID_MAGIC) != QUIRE_ID_MAGIC_VALUE)
		return -ENODEV;
	if (rd(qdev, qdev->blk.id + QUIRE_ID_IF_VERSION) != QUIRE_INTERFACE_VERSION) {
		dev_err(dev, "card interface version %u, driver knows %u\n",
			rd(qdev, qdev->blk.id + QUIRE_ID_IF_VERSION), QUIRE_INTERFACE_VERSION);
		return -EPROTO;
	}
	return 0;
}

/* The firmware starts with the card: wait until it says it runs. */
static int quire_fw_wait(struct quire_device *qdev)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(QUIRE_FW_BOOT_MS);
	u32 state;

	for (;;) {
		state = rd(qdev, qdev->blk.id + QUIRE_ID_FW_STATE);
		if (state == QUIRE_FW_STATE_RUNNING)
			return 0;
		if (state != QUIRE_FW_STATE_BOOTING) {
			dev_err(&qdev->pdev->dev, "firmware state %u: not running\n", state);
			return -EIO;
		}
		if (time_after(jiffies, deadline)) {
			dev_err(&qdev->pdev->dev, "firmware still booting after %u ms\n",
				QUIRE_FW_BOOT_MS);
			return -ETIMEDOUT;
		}
		msleep(20);
	}
}

QUIRE_DEFINE_FOPS(quire_fops);

static const struct drm_driver quire_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_SYNCOBJ | QUIRE_DRIVER_NODE,
	.open = quire_open,
	.postclose = quire_postclose,
	.ioctls = quire_ioctls,
	.num_ioctls = ARRAY_SIZE(quire_ioctls),
	.fops = &quire_fops,
	.gem_create_object = quire_gem_create_object,
	DRM_GEM_SHMEM_DRIVER_OPS, /* PRIME export and import among them */
#if IS_ENABLED(CONFIG_DEBUG_FS)
	.debugfs_init = quire_debugfs_init,
#endif
	.name = "quire",
	.desc = "quire FPGA SmartNIC offload",
	QUIRE_DRIVER_DATE
	.major = 1,
	.minor = 0,
};

static int quire_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	bool ivshmem = id->driver_data & QUIRE_ID_IVSHMEM;
	int bar = QUIRE_ID_BAR(id->driver_data);
	struct quire_device *qdev;
	int ret, irq;

	qdev = devm_drm_dev_alloc(&pdev->dev, &quire_drm_driver, struct quire_device, drm);
	if (IS_ERR(qdev))
		return PTR_ERR(qdev);
	qdev->pdev = pdev;
	pci_set_drvdata(pdev, qdev);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	if (pci_resource_len(pdev, bar) < QUIRE_BAR0_BYTES)
		return -ENODEV;
	ret = pcim_iomap_regions(pdev, BIT(bar) | (ivshmem ? BIT(QUIRE_IVSHMEM_BAR_REGS) : 0),
				 "quire");
	if (ret)
		return ret;
	qdev->regs = pcim_iomap_table(pdev)[bar];

	/* Ours? Read-only, before anything is set up on a device that may not be. */
	ret = quire_walk(qdev);
	if (ret)
		return ret;
	if (ivshmem) {
		ret = quire_io_ivshmem(qdev, pcim_iomap_table(pdev)[QUIRE_IVSHMEM_BAR_REGS]);
		if (ret)
			return ret;
	}

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	/* An imported list behind an IOMMU maps as one run (quire_bo_dma_span). */
	ret = dma_set_max_seg_size(&pdev->dev, UINT_MAX);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_err(&pdev->dev, "no MSI-X vector (%d): the card needs one\n", ret);
		return ret;
	}
	irq = pci_irq_vector(pdev, 0);

	ret = quire_fw_wait(qdev);
	if (ret)
		goto err_vectors;
	ret = quire_ring_init(qdev);
	if (ret)
		goto err_vectors;
	ret = request_threaded_irq(irq, quire_irq, quire_irq_thread, 0, "quire", qdev);
	if (ret)
		goto err_vectors;
	ret = quire_ring_start(qdev);
	if (ret) {
		dev_err(&pdev->dev, "the card refused the rings\n");
		goto err_irq;
	}
	ret = drm_dev_register(&qdev->drm, 0);
	if (ret)
		goto err_rings;
	dev_info(&pdev->dev, "quire card: board %u, firmware %#x, %u ring entries\n",
		 rd(qdev, qdev->blk.id + QUIRE_ID_BOARD),
		 rd(qdev, qdev->blk.id + QUIRE_ID_FW_BUILD), qdev->ring_entries);
	return 0;

err_rings:
	quire_ring_reset(qdev, QUIRE_ERR_NO_DEVICE, true);
err_irq:
	free_irq(irq, qdev);
err_vectors:
	pci_free_irq_vectors(pdev);
	return ret;
}

/*
 * With work in flight: unplug first (ioctls in progress finish, new ones get
 * -ENODEV), then stop the card's queues and complete every job in flight with
 * QUIRE_ERR_NO_DEVICE, which signals its fence and drops its buffers. Jobs not yet
 * waited for stay with their files, which may still WAIT (and get the error) and
 * close; the DRM device lives until the last file is closed.
 */
static void quire_remove(struct pci_dev *pdev)
{
	struct quire_device *qdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&qdev->drm);
	quire_ring_reset(qdev, QUIRE_ERR_NO_DEVICE, true);
	free_irq(pci_irq_vector(pdev, 0), qdev);
	pci_free_irq_vectors(pdev);
	pci_clear_master(pdev);
}

static struct pci_driver quire_pci_driver = {
	.name = "quire",
	.id_table = quire_pci_ids,
	.probe = quire_probe,
	.remove = quire_remove,
};
module_pci_driver(quire_pci_driver);

MODULE_DESCRIPTION("quire FPGA SmartNIC offload");
MODULE_LICENSE("GPL");
