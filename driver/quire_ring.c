// SPDX-License-Identifier: GPL-2.0
/*
 * The rings: descriptors posted to the command ring and announced with the
 * doorbell (CMDQ PRODUCER), completion records reaped from the completion ring
 * by their phase bit (docs/commands.md), in order, one per descriptor. The
 * completion interrupt and every waiter reap; a waiter also reaps on its own
 * every 100 ms, so a lost interrupt costs time, never a hang.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "quire_drv.h"
#include "quire/regs.h"
#include "quire/status.h"

#define QUIRE_WAIT_SLICE_MS 100

static u32 rd(struct quire_device *qdev, u32 off)
{
	return quire_rd(qdev, off);
}

static void wr(struct quire_device *qdev, u32 off, u32 v)
{
	quire_wr(qdev, off, v);
}

static void job_release(struct kref *ref)
{
	struct quire_job *job = container_of(ref, struct quire_job, ref);

	if (job->fence)
		dma_fence_put(job->fence);
	quire_mlp_release(job); /* a load that never reached the card */
	atomic_dec(&job->qdev->jobs);
	kfree(job);
}

void quire_job_put(struct quire_job *job)
{
	kref_put(&job->ref, job_release);
}

/* Outside the ring lock: signal, let go of the buffers, wake the waiters. */
static void finish_jobs(struct quire_device *qdev, struct list_head *done)
{
	struct quire_job *job, *tmp;
	int i;

	list_for_each_entry_safe(job, tmp, done, done_link) {
		list_del(&job->done_link);
		if (job->fence)
			dma_fence_signal(job->fence);
		quire_mlp_release(job);
		for (i = 0; i < QUIRE_DRM_BUFS; i++) {
			if (job->bos[i])
				drm_gem_object_put(job->bos[i]);
			job->bos[i] = NULL;
		}
		quire_job_put(job); /* the ring's reference */
	}
	wake_up_all(&qdev->wq);
}

static void set_done(struct quire_job *job, u32 status, u32 result, u32 cycles, u32 detail)
{
	job->status = status;
	job->result = result;
	job->cycles = cycles;
	job->detail = detail;
	if (job->fence && status != QUIRE_OK &&
	    (status == QUIRE_ERR_IO || status == QUIRE_ERR_NO_DEVICE))
		dma_fence_set_error(job->fence, status == QUIRE_ERR_IO ? -EIO : -ENODEV);
	/* The results above are visible to whoever sees done (smp_load_acquire). */
	smp_store_release(&job->done, true);
}

void quire_ring_reap(struct quire_device *qdev)
{
	u32 mask = qdev->ring_entries - 1, n = 0;
	unsigned long irqflags;
	LIST_HEAD(done);

	spin_lock_irqsave(&qdev->lock, irqflags);
	for (;;) {
		struct quire_cpl *c;
		struct quire_job *job;
		u32 status;

		if (qdev->dead)
			break; /* removed: the rings and registers are gone */
		c = &qdev->cpls[qdev->cpl_cons & mask];
		if ((le32_to_cpu(READ_ONCE(c->flags)) & QUIRE_CPL_F_PHASE) != qdev->cpl_phase)
			break;
		dma_rmb(); /* the record's other words were written before its phase */
		job = qdev->inflight[qdev->cpl_cons & mask];
		qdev->inflight[qdev->cpl_cons & mask] = NULL;
		status = le16_to_cpu(c->status);
		if (job && c->seq != job->cmd.seq && status == QUIRE_OK)
			status = QUIRE_ERR_INTERNAL; /* not the record of this descriptor */
		if (job) {
			set_done(job, status, le32_to_cpu(c->result), le32_to_cpu(c->cycles),
				 le32_to_cpu(c->detail));
			list_add_tail(&job->done_link, &done);
			qdev->in_flight--;
		}
		qdev->cpl_cons++;
		if ((qdev->cpl_cons & mask) == 0)
			qdev->cpl_phase ^= 1;
		n++;
	}
	if (n)
		wr(qdev, qdev->blk.cplq + QUIRE_Q_CONSUMER, qdev->cpl_cons);
	spin_unlock_irqrestore(&qdev->lock, irqflags);
	if (n)
		finish_jobs(qdev, &done);
}

int quire_ring_init(struct quire_device *qdev)
{
	struct device *dev = &qdev->pdev->dev;

	qdev->ring_entries = 1u << QUIRE_RING_LOG2;
	qdev->cmds = dmam_alloc_coherent(dev, qdev->ring_entries * sizeof(*qdev->cmds),
					 &qdev->cmds_dma, GFP_KERNEL);
	qdev->cpls = dmam_alloc_coherent(dev, qdev->ring_entries * sizeof(*qdev->cpls),
					 &qdev->cpls_dma, GFP_KERNEL);
	qdev->inflight = devm_kcalloc(dev, qdev->ring_entries, sizeof(*qdev->inflight),
				      GFP_KERNEL);
	if (!qdev->cmds || !qdev->cpls || !qdev->inflight)
		return -ENOMEM;
	spin_lock_init(&qdev->lock);
	spin_lock_init(&qdev->fence_lock);
	mutex_init(&qdev->pin_lock);
	mutex_init(&qdev->mlp_lock);
	quire_mlp_forget(qdev);
	init_waitqueue_head(&qdev->wq);
	qdev->fence_context = dma_fence_context_alloc(1);
	return 0;
}

static int setup_queue(struct quire_device *qdev, u32 block, dma_addr_t ring)
{
	wr(qdev, block + QUIRE_Q_BASE_LO, lower_32_bits(ring));
	wr(qdev, block + QUIRE_Q_BASE_HI, upper_32_bits(ring));
	wr(qdev, block + QUIRE_Q_SIZE_LOG2, QUIRE_RING_LOG2);
	wr(qdev, block + QUIRE_Q_CTRL, QUIRE_Q_CTRL_ENABLE);
	return (rd(qdev, block + QUIRE_Q_STATUS) & QUIRE_Q_STATUS_ENABLED) ? 0 : -EIO;
}

/* Under the ring lock: empty rings, enabled; a new queue epoch, the card forgets the old ones. */
static int start_locked(struct quire_device *qdev)
{
	int ret;

	memset(qdev->cmds, 0, qdev->ring_entries * sizeof(*qdev->cmds));
	memset(qdev->cpls, 0, qdev->ring_entries * sizeof(*qdev->cpls));
	qdev->prod = 0;
	qdev->cpl_cons = 0;
	qdev->in_flight = 0;
	qdev->cpl_phase = 1; /* the first pass of the ring writes phase 1 */
	ret = setup_queue(qdev, qdev->blk.cplq, qdev->cpls_dma);
	if (!ret)
		ret = setup_queue(qdev, qdev->blk.cmdq, qdev->cmds_dma);
	if (!ret)
		wr(qdev, qdev->blk.irq + QUIRE_IRQ_MASK, QUIRE_IRQ_CPL | QUIRE_IRQ_ERROR);
	return ret;
}

int quire_ring_start(struct quire_device *qdev)
{
	unsigned long irqflags;
	int ret;

	spin_lock_irqsave(&qdev->lock, irqflags);
	ret = start_locked(qdev);
	spin_unlock_irqrestore(&qdev->lock, irqflags);
	return ret;
}

/*
 * Disable both queues and complete every job in flight with `status`; then, unless
 * the card is being removed, start them again, all under the ring lock so that no
 * descriptor is posted in between. The read back makes sure the card has taken the
 * disable (writes are posted) and refuses the old rings' DMA before they are
 * cleared or freed.
 */
int quire_ring_reset(struct quire_device *qdev, u32 status, bool removing)
{
	unsigned long irqflags;
	LIST_HEAD(done);
	int ret = 0;
	u32 i;

	spin_lock_irqsave(&qdev->lock, irqflags);
	wr(qdev, qdev->blk.irq + QUIRE_IRQ_MASK, 0);
	wr(qdev, qdev->blk.cmdq + QUIRE_Q_CTRL, 0);
	wr(qdev, qdev->blk.cplq + QUIRE_Q_CTRL, 0);
	rd(qdev, qdev->blk.cplq + QUIRE_Q_CTRL);
	for (i = 0; i < qdev->ring_entries; i++) {
		struct quire_job *job = qdev->inflight[i];

		if (!job)
			continue;
		qdev->inflight[i] = NULL;
		set_done(job, status, 0, 0, QUIRE_DETAIL_NONE);
		list_add_tail(&job->done_link, &done);
	}
	qdev->in_flight = 0;
	if (removing)
		qdev->dead = true;
	else
		ret = start_locked(qdev);
	spin_unlock_irqrestore(&qdev->lock, irqflags);
	finish_jobs(qdev, &done);
	return ret;
}

static bool has_room(struct quire_device *qdev)
{
	return READ_ONCE(qdev->in_flight) < qdev->ring_entries || READ_ONCE(qdev->dead);
}

static const char *fence_driver_name(struct dma_fence *fence)
{
	return "quire";
}

static const char *fence_timeline_name(struct dma_fence *fence)
{
	return "ring";
}

static const struct dma_fence_ops quire_fence_ops = {
	.get_driver_name = fence_driver_name,
	.get_timeline_name = fence_timeline_name,
};

/* Under the ring lock: the job's seqno, and its fence (allocated by the caller) if it wants one. */
static void name_job(struct quire_device *qdev, struct quire_job *job, struct dma_fence *fence)
{
	job->seqno = ++qdev->next_seqno;
	job->cmd.seq = cpu_to_le32(lower_32_bits(job->seqno));
	if (fence) {
		dma_fence_init(fence, &quire_fence_ops, &qdev->fence_lock, qdev->fence_context,
			       job->seqno);
		job->fence = fence;
	}
}

static int alloc_fence(struct quire_job *job, struct dma_fence **fence)
{
	*fence = NULL;
	if (!job->want_fence)
		return 0;
	*fence = kzalloc(sizeof(**fence), GFP_KERNEL);
	return *fence ? 0 : -ENOMEM;
}

/*
 * A descriptor the driver refuses never reaches the card: the job gets its seqno
 * (and fence) and completes at once with the status and field the firmware would
 * have given. It holds the ring's reference as if it had been posted.
 */
int quire_job_complete_now(struct quire_job *job, u32 status, u32 detail)
{
	struct quire_device *qdev = job->qdev;
	struct dma_fence *fence;
	unsigned long irqflags;
	LIST_HEAD(done);

	if (alloc_fence(job, &fence))
		return -ENOMEM;
	spin_lock_irqsave(&qdev->lock, irqflags);
	name_job(qdev, job, fence);
	spin_unlock_irqrestore(&qdev->lock, irqflags);
	kref_get(&job->ref);
	set_done(job, status, 0, 0, detail);
	list_add_tail(&job->done_link, &done);
	finish_jobs(qdev, &done);
	return 0;
}

/*
 * Post one checked descriptor: it gets the next seqno (its fence too, if it wants
 * one) and the ring's reference to the job. Waits for room while the ring is full.
 */
int quire_ring_post(struct quire_device *qdev, struct quire_job *job)
{
	u32 mask = qdev->ring_entries - 1;
	struct dma_fence *fence;
	unsigned long irqflags;
	long left;

	if (alloc_fence(job, &fence))
		return -ENOMEM;
	for (;;) {
		spin_lock_irqsave(&qdev->lock, irqflags);
		if (qdev->dead) {
			spin_unlock_irqrestore(&qdev->lock, irqflags);
			kfree(fence);
			return -ENODEV;
		}
		if (qdev->in_flight < qdev->ring_entries)
			break;
		spin_unlock_irqrestore(&qdev->lock, irqflags);
		quire_ring_reap(qdev);
		left = wait_event_interruptible_timeout(qdev->wq, has_room(qdev),
							msecs_to_jiffies(QUIRE_WAIT_SLICE_MS));
		if (left < 0) {
			kfree(fence);
			return left;
		}
	}
	name_job(qdev, job, fence);
	kref_get(&job->ref);
	qdev->inflight[qdev->prod & mask] = job;
	qdev->cmds[qdev->prod & mask] = job->cmd;
	qdev->prod++;
	qdev->in_flight++;
	dma_wmb(); /* the descriptor is in memory before the doorbell */
	wr(qdev, qdev->blk.cmdq + QUIRE_Q_PRODUCER, qdev->prod);
	spin_unlock_irqrestore(&qdev->lock, irqflags);
	return 0;
}

/* Until the job has completed (0), timeout_ns has passed (-ETIMEDOUT) or a signal. */
int quire_ring_wait(struct quire_device *qdev, struct quire_job *job, u64 timeout_ns)
{
	ktime_t deadline = ktime_add_safe(ktime_get(), ns_to_ktime(min_t(u64, timeout_ns,
									   KTIME_MAX)));
	ktime_t now;
	long left;

	for (;;) {
		quire_ring_reap(qdev);
		/* Pairs with set_done()'s release: the results are there. */
		if (smp_load_acquire(&job->done))
			return 0;
		now = ktime_get();
		if (!ktime_before(now, deadline))
			return -ETIMEDOUT;
		left = msecs_to_jiffies(clamp_t(s64, ktime_ms_delta(deadline, now), 1,
						QUIRE_WAIT_SLICE_MS));
		/* Pairs with set_done()'s release, as above. */
		left = wait_event_interruptible_timeout(qdev->wq, smp_load_acquire(&job->done),
							left);
		if (left < 0)
			return left;
	}
}

/* The card raised an interrupt: acknowledge its causes, reap in the thread. */
irqreturn_t quire_irq(int irq, void *arg)
{
	struct quire_device *qdev = arg;
	u32 causes = rd(qdev, qdev->blk.irq + QUIRE_IRQ_STATUS);

	if (!causes || causes == 0xffffffffu)
		return IRQ_NONE;
	wr(qdev, qdev->blk.irq + QUIRE_IRQ_STATUS, causes);
	if (causes & QUIRE_IRQ_ERROR)
		dev_err_ratelimited(&qdev->pdev->dev, "card error: firmware state %u\n",
				    rd(qdev, qdev->blk.id + QUIRE_ID_FW_STATE));
	return IRQ_WAKE_THREAD;
}

irqreturn_t quire_irq_thread(int irq, void *arg)
{
	quire_ring_reap(arg);
	return IRQ_HANDLED;
}
