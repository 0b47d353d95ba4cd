// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects: GEM shmem objects in host memory, mmap'able by user space and
 * shared with other devices as dma-bufs (DRM PRIME, the shmem helper's: export
 * maps the pages for the importer, import keeps the exporter's scatter list as
 * mapped for this card). The first submission that uses an object of ours pins
 * its pages and maps them for the card (drm_gem_shmem_get_pages_sgt); the mapping
 * lasts as long as the object. An imported object has its mapping from the
 * import on. Every submission holds a reference to the objects it names until it
 * completes.
 */
#include <linux/dma-buf.h>
#include <linux/iosys-map.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <drm/drm_gem_shmem_helper.h>

#include "quire_compat.h"
#include "quire_drv.h"

QUIRE_IMPORT_NS_DMA_BUF();

/* The shmem helper's own object functions, but for free, which also counts. */
static void quire_bo_free(struct drm_gem_object *obj)
{
	atomic_dec(&to_quire(obj->dev)->bos);
	drm_gem_shmem_object_free(obj);
}

static const struct drm_gem_object_funcs quire_bo_funcs = {
	.free = quire_bo_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/*
 * The driver's gem_create_object: the helper calls it for every object it makes,
 * ours (BO_CREATE) and imported ones (PRIME import) alike, so every object is
 * counted once here and once in quire_bo_free.
 */
struct drm_gem_object *quire_gem_create_object(struct drm_device *drm, size_t size)
{
	struct drm_gem_shmem_object *shmem = kzalloc(sizeof(*shmem), GFP_KERNEL);

	if (!shmem)
		return ERR_PTR(-ENOMEM);
	shmem->base.funcs = &quire_bo_funcs;
	atomic_inc(&to_quire(drm)->bos);
	return &shmem->base;
}

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
 * For an object of ours the scatter list is the helper's, made (pages pinned and
 * mapped for this card) on first use; for an imported one it is the one the
 * exporter mapped for this card at import (drm_gem_shmem_prime_import_sg_table
 * keeps it in shmem->sgt, which drm_gem_shmem_get_pages_sgt then returns).
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

/*
 * An imported object's bytes, through the exporter's kernel mapping: an importer may
 * not touch the pages of the scatter list it was given (some exporters have none).
 */
static int read_imported(struct drm_gem_object *obj, u64 offset, void *buf, size_t len)
{
	struct dma_buf *dmabuf = obj->import_attach->dmabuf;
	struct iosys_map map;
	int ret;

	ret = dma_buf_begin_cpu_access(dmabuf, DMA_FROM_DEVICE);
	if (ret)
		return ret;
	ret = quire_dma_buf_vmap(dmabuf, &map);
	if (!ret) {
		iosys_map_memcpy_from(buf, &map, offset, len);
		quire_dma_buf_vunmap(dmabuf, &map);
	}
	dma_buf_end_cpu_access(dmabuf, DMA_FROM_DEVICE);
	return ret;
}

/*
 * Copy len bytes at offset of a buffer object: its pages, pinned as for the card, or
 * for an imported one the exporter's mapping.
 */
int quire_bo_read(struct quire_device *qdev, struct drm_gem_object *obj, u64 offset,
		  void *buf, size_t len)
{
	struct sg_table *sgt;

	if (offset > obj->size || len > obj->size - offset)
		return -ERANGE;
	if (obj->import_attach)
		return read_imported(obj, offset, buf, len);
	sgt = pinned_sgt(qdev, obj);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	return sg_pcopy_to_buffer(sgt->sgl, sgt->orig_nents, buf, len, offset) == len ? 0 : -EFAULT;
}
