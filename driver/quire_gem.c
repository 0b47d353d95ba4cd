// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects: GEM shmem objects in host memory, mmap'able by user space.
 * The first submission that uses one pins its pages and maps them for the card
 * (drm_gem_shmem_get_pages_sgt); the mapping lasts as long as the object, and
 * every submission holds a reference to the objects it names until it completes.
 */
#include <linux/scatterlist.h>
#include <drm/drm_gem_shmem_helper.h>

#include "quire_drv.h"

struct drm_gem_object *quire_bo_create(struct drm_device *drm, u64 size)
{
	struct drm_gem_shmem_object *shmem;

	if (size == 0 || size > QUIRE_BO_MAX_SIZE)
		return ERR_PTR(-EINVAL);
	shmem = drm_gem_shmem_create(drm, PAGE_ALIGN(size));
	if (IS_ERR(shmem))
		return ERR_CAST(shmem);
	return &shmem->base;
}

/* The object's pages, pinned and mapped for the card (once: the mapping lasts). */
static struct sg_table *pinned_sgt(struct quire_device *qdev, struct drm_gem_object *obj)
{
	struct sg_table *sgt;

	mutex_lock(&qdev->pin_lock);
	sgt = drm_gem_shmem_get_pages_sgt(to_drm_gem_shmem_obj(obj));
	mutex_unlock(&qdev->pin_lock);
	return sgt;
}

/*
 * The card's address of bytes [offset, offset + bytes) of a buffer object. The
 * card takes one address per buffer, so the span must be contiguous in DMA
 * space: always true behind an IOMMU, which maps the object as one range; without
 * one only within a run of physically contiguous pages (-EINVAL otherwise).
 */
int quire_bo_dma_span(struct quire_device *qdev, struct drm_gem_object *obj, u64 offset,
		      u64 bytes, dma_addr_t *dma)
{
	struct sg_table *sgt;
	struct scatterlist *sg;
	u64 start = 0;
	unsigned int i;

	if (offset > obj->size || bytes > obj->size - offset)
		return -ERANGE;
	sgt = pinned_sgt(qdev, obj);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	for_each_sgtable_dma_sg(sgt, sg, i) {
		u64 len = sg_dma_len(sg);

		if (offset < start + len) {
			if (offset + bytes > start + len)
				return -EINVAL;
			*dma = sg_dma_address(sg) + (offset - start);
			return 0;
		}
		start += len;
	}
	return -ERANGE;
}

/* Copy len bytes at offset of a buffer object (its pages, pinned as for the card). */
int quire_bo_read(struct quire_device *qdev, struct drm_gem_object *obj, u64 offset,
		  void *buf, size_t len)
{
	struct sg_table *sgt;

	if (offset > obj->size || len > obj->size - offset)
		return -ERANGE;
	sgt = pinned_sgt(qdev, obj);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	return sg_pcopy_to_buffer(sgt->sgl, sgt->orig_nents, buf, len, offset) == len ? 0 : -EFAULT;
}
