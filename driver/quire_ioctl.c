// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of include/quire/quire_drm.h. Every field is checked: pads and
 * reserved words zero, narrow fields in range, buffer objects looked up and their
 * references held by the job until it completes. A descriptor then goes through
 * the rules the card's firmware applies too (quire_cmd_validate, quire_cmd_extents,
 * built from contract/validate.c) before the card sees it.
 */
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_syncobj.h>
#include <drm/drm_vma_manager.h>

#include "quire_drv.h"
#include "quire/mlp.h"
#include "quire/regs.h"
#include "quire/status.h"
#include "quire/validate.h"

static_assert(QUIRE_DRM_IOCTL_BASE == DRM_IOCTL_BASE, "DRM's ioctl type");
static_assert(QUIRE_DRM_COMMAND_BASE == DRM_COMMAND_BASE, "DRM's driver ioctls");
static_assert(DRM_IOCTL_QUIRE_SUBMIT ==
	      DRM_IOWR(DRM_COMMAND_BASE + DRM_QUIRE_SUBMIT, struct drm_quire_submit),
	      "ioctl numbers as DRM spells them");

static bool all_zero(const u64 *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i])
			return false;
	return true;
}

static u32 id_rd(struct quire_device *qdev, u32 reg)
{
	return quire_rd(qdev, qdev->blk.id + reg);
}

static int quire_ioctl_get_info(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct quire_device *qdev = to_quire(drm);
	struct drm_quire_get_info *args = data;
	int idx;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	memset(args, 0, sizeof(*args));
	args->uapi_version = QUIRE_DRM_UAPI_VERSION;
	args->if_version = id_rd(qdev, QUIRE_ID_IF_VERSION);
	args->board = id_rd(qdev, QUIRE_ID_BOARD);
	args->caps = id_rd(qdev, QUIRE_ID_CAPS);
	args->mem_bytes = (u64)id_rd(qdev, QUIRE_ID_MEM_HI) << 32 | id_rd(qdev, QUIRE_ID_MEM_LO);
	args->hw_build = (u64)id_rd(qdev, QUIRE_ID_BUILD_HI) << 32 |
			 id_rd(qdev, QUIRE_ID_BUILD_LO);
	args->fw_build = id_rd(qdev, QUIRE_ID_FW_BUILD);
	args->fw_state = id_rd(qdev, QUIRE_ID_FW_STATE);
	args->clock_hz = id_rd(qdev, QUIRE_ID_CLOCK_HZ);
	args->ring_entries = qdev->ring_entries;
	drm_dev_exit(idx);
	return 0;
}

static int quire_ioctl_bo_create(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_quire_bo_create *args = data;
	struct quire_file *qfile = file->driver_priv;
	struct drm_gem_object *obj;
	u32 handle;
	int ret;

	if (args->flags || args->handle)
		return -EINVAL;
	obj = quire_bo_create(drm, qfile->pinned, args->size);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = drm_gem_handle_create(file, obj, &handle);
	drm_gem_object_put(obj); /* the handle holds it now */
	if (ret)
		return ret;
	args->handle = handle;
	return 0;
}

static int quire_ioctl_bo_info(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_quire_bo_info *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->pad || args->mmap_offset || args->size)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret) {
		args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
		args->size = obj->size;
	}
	drm_gem_object_put(obj);
	return ret;
}

static const u32 buf_detail[QUIRE_DRM_BUFS] = {
	QUIRE_DETAIL_SRC, QUIRE_DETAIL_DST, QUIRE_DETAIL_EXP, QUIRE_DETAIL_AUX,
};

/* The ioctl's own rules: what cannot be said in a descriptor at all is -EINVAL. */
static int check_submit_args(const struct drm_quire_submit *args)
{
	int i;

	if (args->pad || args->seqno || !all_zero(args->reserved, ARRAY_SIZE(args->reserved)))
		return -EINVAL;
	if (args->opcode > U8_MAX || args->flags > U8_MAX || args->format > U16_MAX ||
	    args->val_format > U16_MAX || args->workers > U16_MAX)
		return -EINVAL;
	for (i = 0; i < QUIRE_DRM_BUFS; i++) {
		if (args->bufs[i].pad)
			return -EINVAL;
		if (!args->bufs[i].handle && args->bufs[i].offset)
			return -EINVAL;
	}
	return 0;
}

/*
 * The span of each referenced buffer against its object: 0, or the first
 * quire_bo_dma_span error, with *detail naming the buffer. pieces_only: report only
 * spans in pieces (-EINVAL), pass over spans past their object's end (-ERANGE).
 */
static int check_spans(struct quire_device *qdev, const struct drm_quire_submit *args,
		       struct quire_job *job, const u64 ext[QUIRE_DRM_BUFS], bool pieces_only,
		       u32 *detail)
{
	dma_addr_t dma;
	int i, ret;

	for (i = 0; i < QUIRE_DRM_BUFS; i++) {
		if (!job->bos[i])
			continue;
		ret = quire_bo_dma_span(qdev, job->bos[i], args->bufs[i].offset, ext[i], &dma);
		if (ret == -ERANGE && pieces_only)
			continue;
		if (ret) {
			*detail = buf_detail[i];
			return ret;
		}
	}
	return 0;
}

/*
 * Look up the buffers, put their DMA addresses into the descriptor, then apply the
 * firmware's rules and check every span against its object. QUIRE_OK, or the
 * status and field of a descriptor the card must not see; negative: an error of
 * the call itself (a handle that names nothing, no memory).
 */
static int resolve_and_check(struct quire_device *qdev, struct drm_file *file,
			     const struct drm_quire_submit *args, struct quire_job *job,
			     u32 *detail)
{
	u64 addr[QUIRE_DRM_BUFS] = { 0 }, ext[QUIRE_DRM_BUFS];
	dma_addr_t dma;
	int i, st, ret;

	/* Every handle first: one that names nothing fails the call, whatever the others say. */
	for (i = 0; i < QUIRE_DRM_BUFS; i++) {
		if (!args->bufs[i].handle)
			continue;
		job->bos[i] = drm_gem_object_lookup(file, args->bufs[i].handle);
		if (!job->bos[i])
			return -ENOENT;
	}
	for (i = 0; i < QUIRE_DRM_BUFS; i++) {
		if (!job->bos[i])
			continue;
		/* Where the span starts; its length is checked below, once it is known. */
		ret = quire_bo_dma_span(qdev, job->bos[i], args->bufs[i].offset, 0, &dma);
		if (ret == -ERANGE) {
			*detail = buf_detail[i];
			return QUIRE_ERR_RANGE;
		}
		if (ret)
			return ret;
		addr[i] = dma;
	}
	job->cmd.src = cpu_to_le64(addr[QUIRE_DRM_BUF_SRC]);
	job->cmd.dst = cpu_to_le64(addr[QUIRE_DRM_BUF_DST]);
	job->cmd.exp = cpu_to_le64(addr[QUIRE_DRM_BUF_EXP]);
	job->cmd.aux = cpu_to_le64(addr[QUIRE_DRM_BUF_AUX]);

	/*
	 * MLP_SCORE: the input width of the model the card will have (quire_mlp.c). The
	 * extents are those of the fields as given, valid or not yet.
	 */
	quire_cmd_extents(&job->cmd,
			  job->cmd.opcode == QUIRE_OPC_MLP_SCORE ? quire_mlp_width(qdev) : 0, ext);
	/*
	 * A span in pieces (an imported buffer's) first: an address in the descriptor
	 * stands for one range, and the rules below that keep spans apart would judge a
	 * range the buffer does not have. A span past its object's end is left to the
	 * rules, which name a wrong count or format before the span it makes.
	 */
	ret = check_spans(qdev, args, job, ext, true, detail);
	if (ret == -EINVAL)
		return QUIRE_ERR_RANGE;
	if (ret)
		return ret;
	st = quire_cmd_validate(&job->cmd, detail);
	if (st != QUIRE_OK)
		return st;
	ret = check_spans(qdev, args, job, ext, false, detail);
	if (ret == -ERANGE || ret == -EINVAL)
		return QUIRE_ERR_RANGE;
	if (ret)
		return ret;
	if (job->cmd.opcode == QUIRE_OPC_MLP_LOAD) {
		ret = quire_mlp_snapshot(qdev, job, args->bufs[QUIRE_DRM_BUF_SRC].offset);
		if (ret)
			return ret;
	}
	return QUIRE_OK;
}

static int quire_ioctl_submit(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct quire_device *qdev = to_quire(drm);
	struct quire_file *qfile = file->driver_priv;
	struct drm_quire_submit *args = data;
	struct drm_syncobj *syncobj = NULL;
	struct quire_job *job;
	bool mlp = args->opcode == QUIRE_OPC_MLP_LOAD || args->opcode == QUIRE_OPC_MLP_SCORE;
	u32 detail = QUIRE_DETAIL_NONE;
	int ret, st, idx, i;

	ret = check_submit_args(args);
	if (ret)
		return ret;
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	if (args->out_syncobj) {
		syncobj = drm_syncobj_find(file, args->out_syncobj);
		if (!syncobj) {
			ret = -ENOENT;
			goto out_exit;
		}
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ret = -ENOMEM;
		goto out_syncobj;
	}
	kref_init(&job->ref); /* the file's reference, handed to its xarray below */
	job->qdev = qdev;
	atomic_inc(&qdev->jobs);
	job->want_fence = syncobj;
	job->cmd.opcode = args->opcode;
	job->cmd.flags = args->flags;
	/* The uAPI is host-endian; the descriptor the card reads is little-endian. */
	job->cmd.format = cpu_to_le16(args->format);
	job->cmd.count = cpu_to_le32(args->count);
	job->cmd.val_format = cpu_to_le16(args->val_format);
	job->cmd.workers = cpu_to_le16(args->workers);
	job->cmd.stride = cpu_to_le64(args->stride);

	/* The model's width must not change between an MLP check and its post. */
	if (mlp)
		mutex_lock(&qdev->mlp_lock);
	st = resolve_and_check(qdev, file, args, job, &detail);
	if (st < 0)
		ret = st;
	else if (st != QUIRE_OK)
		ret = quire_job_complete_now(job, st, detail);
	else
		ret = quire_ring_post(qdev, job);
	if (!ret && st == QUIRE_OK && job->cmd.opcode == QUIRE_OPC_MLP_LOAD)
		quire_mlp_posted(qdev, job);
	if (mlp)
		mutex_unlock(&qdev->mlp_lock);
	if (ret)
		goto out_job;
	/* From here the ring holds the buffers; the file's reference goes to its xarray. */
	ret = xa_insert(&qfile->jobs, job->seqno, job, GFP_KERNEL);
	if (ret) {
		quire_job_put(job);
		goto out_syncobj;
	}
	if (syncobj)
		drm_syncobj_replace_fence(syncobj, job->fence);
	args->seqno = job->seqno;
	goto out_syncobj;

out_job:
	for (i = 0; i < QUIRE_DRM_BUFS; i++)
		if (job->bos[i])
			drm_gem_object_put(job->bos[i]);
	quire_job_put(job);
out_syncobj:
	if (syncobj)
		drm_syncobj_put(syncobj);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

static int quire_ioctl_wait(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct quire_device *qdev = to_quire(drm);
	struct quire_file *qfile = file->driver_priv;
	struct drm_quire_wait *args = data;
	struct quire_job *job;
	int ret;

	if (args->flags || args->pad || args->status || args->result || args->cycles ||
	    args->detail)
		return -EINVAL;
	xa_lock(&qfile->jobs);
	job = xa_load(&qfile->jobs, args->seqno);
	if (job)
		kref_get(&job->ref);
	xa_unlock(&qfile->jobs);
	if (!job)
		return -ENOENT;
	ret = quire_ring_wait(qdev, job, args->timeout_ns);
	if (!ret) {
		args->status = job->status;
		args->result = job->result;
		args->cycles = job->cycles;
		args->detail = job->detail;
		/* Forgotten once waited for: the file's reference goes, once. */
		if (xa_cmpxchg(&qfile->jobs, args->seqno, job, NULL, GFP_KERNEL) == job)
			quire_job_put(job);
	}
	quire_job_put(job);
	return ret;
}

static int quire_ioctl_reset(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct quire_device *qdev = to_quire(drm);
	struct drm_quire_reset *args = data;
	int ret, idx;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	/*
	 * No MLP check between the reset and forgetting the width; an MLP submission may
	 * be waiting for room in the ring with the lock held: a signal ends the wait.
	 */
	ret = mutex_lock_interruptible(&qdev->mlp_lock);
	if (!ret) {
		ret = quire_ring_reset(qdev, QUIRE_ERR_IO, false);
		quire_mlp_forget(qdev); /* a load in flight may or may not have run */
		mutex_unlock(&qdev->mlp_lock);
	}
	drm_dev_exit(idx);
	return ret;
}

int quire_open(struct drm_device *drm, struct drm_file *file)
{
	struct quire_file *qfile = kzalloc(sizeof(*qfile), GFP_KERNEL);

	if (!qfile)
		return -ENOMEM;
	qfile->pinned = quire_pin_account_new();
	if (!qfile->pinned) {
		kfree(qfile);
		return -ENOMEM;
	}
	xa_init(&qfile->jobs);
	file->driver_priv = qfile;
	return 0;
}

/*
 * Submissions still in flight run on: the ring holds them and their buffers. The
 * file's objects went with its handles (the DRM core closes them before this); the
 * ones still held elsewhere keep their bytes counted to this file until freed.
 */
void quire_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct quire_file *qfile = file->driver_priv;
	struct quire_job *job;
	unsigned long seqno;

	xa_for_each(&qfile->jobs, seqno, job) {
		xa_erase(&qfile->jobs, seqno);
		quire_job_put(job);
	}
	xa_destroy(&qfile->jobs);
	quire_pin_account_put(qfile->pinned); /* objects still alive hold it on */
	kfree(qfile);
}

#define QUIRE_IOCTL(name, func) \
	DRM_IOCTL_DEF_DRV(QUIRE_##name, func, DRM_RENDER_ALLOW)

const struct drm_ioctl_desc quire_ioctls[DRM_QUIRE_NUM_IOCTLS] = {
	QUIRE_IOCTL(GET_INFO, quire_ioctl_get_info),
	QUIRE_IOCTL(BO_CREATE, quire_ioctl_bo_create),
	QUIRE_IOCTL(BO_INFO, quire_ioctl_bo_info),
	QUIRE_IOCTL(SUBMIT, quire_ioctl_submit),
	QUIRE_IOCTL(WAIT, quire_ioctl_wait),
	QUIRE_IOCTL(RESET, quire_ioctl_reset),
};
