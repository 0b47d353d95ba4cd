/* SPDX-License-Identifier: GPL-2.0 */
/*
 * quire.ko: what the driver's files share. One device per card, one command ring
 * and one completion ring per device, jobs (one descriptor each) referenced by
 * the ring while in flight and by the submitting file until it waits for them.
 */
#ifndef QUIRE_DRV_H
#define QUIRE_DRV_H

#include <linux/atomic.h>
#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_gem.h>

#include "quire/cmd.h"
#include "quire/quire_drm.h"

#define QUIRE_RING_LOG2   8u
#define QUIRE_BO_MAX_SIZE SZ_4G

/* BAR offsets of the register blocks the driver uses, found by walking the chain. */
struct quire_blocks {
	u32 id, cmdq, cplq, irq, counters;
};

/* The card behind ivshmem-doorbell: register writes through a ring (quire_io.c). */
struct quire_ivshmem {
	void __iomem *wring;    /* the write ring in the shared memory; NULL: not ivshmem */
	void __iomem *doorbell; /* ivshmem's Doorbell register */
	spinlock_t lock;        /* prod, silent, the ring's entries */
	u32 prod;
	bool silent; /* a wait for the card timed out: nothing waits until it answers */
};

struct quire_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *regs; /* the BAR holding the register blocks */
	struct quire_blocks blk;
	struct quire_ivshmem ivsh;

	/* Rings in coherent DMA memory, QUIRE_RING_LOG2 entries each. */
	u32 ring_entries;
	struct quire_cmd *cmds;
	dma_addr_t cmds_dma;
	struct quire_cpl *cpls;
	dma_addr_t cpls_dma;

	spinlock_t lock; /* the ring indices, inflight[], next_seqno, dead */
	u32 prod, cpl_cons, cpl_phase, in_flight;
	struct quire_job **inflight; /* by ring slot: completions come back in order */
	u64 next_seqno;
	bool dead; /* the card is gone (removal): nothing more is posted */
	wait_queue_head_t wq; /* woken by every completion */

	struct mutex mlp_lock; /* MLP submissions from check to post; mlp_width0 */
	u32 mlp_width0;        /* input width of the card's model, as quire_mlp.c knows it */

	spinlock_t fence_lock; /* the fences' own lock (dma_fence_init) */
	u64 fence_context;
	struct mutex pin_lock; /* one DMA mapping per buffer object */

	/*
	 * What the driver holds, for debugfs (quire_debugfs.c): a test that closes all
	 * its files must see these back where they were, which is how a leak shows on
	 * kernels without kmemleak.
	 */
	atomic_t bos;  /* buffer objects alive, those imported from dma-bufs included */
	atomic_t jobs; /* struct quire_job alive */
	atomic64_t pinned; /* bytes of this card's own buffer objects (quire_pin.c) */
};

static inline struct quire_device *to_quire(struct drm_device *drm)
{
	return container_of(drm, struct quire_device, drm);
}

/*
 * The bytes of buffer objects one open file created and that are still alive
 * (quire_pin.c): each object holds a reference, so the count outlives the file
 * for as long as its objects do (an exported dma-buf, a job in flight).
 */
struct quire_pin_account {
	struct kref ref;
	atomic64_t bytes;
};

/* Per open file: its submissions not yet waited for, by seqno; what it pins. */
struct quire_file {
	struct xarray jobs;
	struct quire_pin_account *pinned;
};

struct quire_job {
	struct kref ref; /* the file's xarray, the ring while in flight, a waiter */
	struct quire_device *qdev;
	u64 seqno;
	struct quire_cmd cmd;
	struct drm_gem_object *bos[QUIRE_DRM_BUFS]; /* held until the completion */
	bool want_fence;                              /* a syncobj asked for one */
	struct dma_fence *fence;                      /* set with the seqno */
	struct list_head done_link;
	void *model; /* MLP_LOAD: the driver's copy of the image, until completion */
	dma_addr_t model_dma;
	u32 model_bytes, model_width0;
	bool done;
	u32 status, result, cycles, detail;
};

/* quire_io.c: register reads and writes, whatever the card sits behind */
u32 quire_rd(struct quire_device *qdev, u32 off);
void quire_wr(struct quire_device *qdev, u32 off, u32 v);
int quire_io_ivshmem(struct quire_device *qdev, void __iomem *ivshmem_regs);

/* quire_ring.c */
int quire_ring_init(struct quire_device *qdev);
int quire_ring_start(struct quire_device *qdev);
int quire_ring_reset(struct quire_device *qdev, u32 status, bool removing);
int quire_ring_post(struct quire_device *qdev, struct quire_job *job);
void quire_ring_reap(struct quire_device *qdev);
int quire_ring_wait(struct quire_device *qdev, struct quire_job *job, u64 timeout_ns);
int quire_job_complete_now(struct quire_job *job, u32 status, u32 detail);
void quire_job_put(struct quire_job *job);
irqreturn_t quire_irq(int irq, void *arg);
irqreturn_t quire_irq_thread(int irq, void *arg);

/* quire_gem.c */
struct drm_gem_object *quire_gem_create_object(struct drm_device *drm, size_t size);
struct drm_gem_object *quire_bo_create(struct drm_device *drm, struct quire_pin_account *acct,
				       u64 size);
int quire_bo_dma_span(struct quire_device *qdev, struct drm_gem_object *obj, u64 offset,
		      u64 bytes, dma_addr_t *dma);

int quire_bo_read(struct quire_device *qdev, struct drm_gem_object *obj, u64 offset,
		  void *buf, size_t len);

/* quire_pin.c */
u64 quire_pin_global_cap(void);
u64 quire_pin_file_cap(void);
u64 quire_pin_global_bytes(void);
struct quire_pin_account *quire_pin_account_new(void);
void quire_pin_account_put(struct quire_pin_account *acct);
int quire_pin_charge(struct quire_device *qdev, struct quire_pin_account *acct, u64 bytes);
void quire_pin_uncharge(struct quire_device *qdev, struct quire_pin_account *acct, u64 bytes);

/* quire_mlp.c */
u32 quire_mlp_width(struct quire_device *qdev);
void quire_mlp_forget(struct quire_device *qdev);
int quire_mlp_snapshot(struct quire_device *qdev, struct quire_job *job, u64 offset);
void quire_mlp_posted(struct quire_device *qdev, struct quire_job *job);
void quire_mlp_release(struct quire_job *job);

/* quire_debugfs.c */
void quire_debugfs_init(struct drm_minor *minor);

/* quire_ioctl.c */
extern const struct drm_ioctl_desc quire_ioctls[DRM_QUIRE_NUM_IOCTLS];
int quire_open(struct drm_device *drm, struct drm_file *file);
void quire_postclose(struct drm_device *drm, struct drm_file *file);

#endif /* QUIRE_DRV_H */
