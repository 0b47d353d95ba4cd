// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects. The card's DMA mover takes one bus address and a length per
 * buffer, so the driver's own objects are contiguous in the card's address space:
 * memory from dma_alloc_coherent, kept for the object's life (zeroed, never
 * swapped), mmap'able by user space and exported to other devices as dma-bufs.
 * Each counts against its file's and the global cap on pinned memory
 * (quire_pin.c) until it is freed, and its pages are allocated with
 * __GFP_ACCOUNT: the DMA API hands the flag to the page allocator on the paths it
 * takes here (dma-direct's alloc_pages_node, dma-iommu's pages), which charges
 * them to the memory cgroup of the process that creates the object (kmem, in
 * memory.current) until they are freed. Memory from CMA or a device's own
 * coherent pool would not be charged: the flag does not reach those allocators.
 * Behind an IOMMU that memory is one IOVA range of any size; without one it is
 * physically contiguous, which the page allocator gives up to 4 MiB on Debian 12's
 * kernel (MAX_ORDER; that kernel has no CMA): larger objects then fail to allocate
 * (-ENOMEM), never reach the card in pieces.
 *
 * Imported dma-bufs are GEM shmem objects (the shmem helper's PRIME import keeps
 * the exporter's scatter list, mapped for this card). Such a list may be in
 * pieces: a submission whose span is not one DMA-contiguous range is refused with
 * QUIRE_ERR_RANGE naming the buffer. Every submission holds a reference to the
 * objects it names until it completes.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <drm/drm_gem_shmem_helper.h>

#include "quire_compat.h"
#include "quire_drv.h"

QUIRE_IMPORT_NS_DMA_BUF();

/* An object of ours: the coherent memory behind it, and whose cap it counts in. */
struct quire_bo {
	struct drm_gem_object base;
	void *vaddr;
	dma_addr_t dma;
	struct quire_pin_account *pinned;
};

static const struct drm_gem_object_funcs quire_bo_funcs;

/* Ours, or NULL for an imported (shmem) object. */
static struct quire_bo *to_quire_bo(struct drm_gem_object *obj)
{
	return obj->funcs == &quire_bo_funcs ? container_of(obj, struct quire_bo, base) : NULL;
}

static void quire_bo_free(struct drm_gem_object *obj)
{
	struct quire_bo *bo = to_quire_bo(obj);

	atomic_dec(&to_quire(obj->dev)->bos);
	dma_free_coherent(obj->dev->dev, obj->size, bo->vaddr, bo->dma);
	quire_pin_uncharge(to_quire(obj->dev), bo->pinned, obj->size);
	drm_gem_object_release(obj);
	kfree(bo);
}

/* User space maps the coherent memory itself (the mmap offset is the object's). */
static int quire_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct quire_bo *bo = to_quire_bo(obj);

	vma->vm_pgoff -= drm_vma_node_start(&obj->vma_node);
	quire_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_PFNMAP);
	return dma_mmap_coherent(obj->dev->dev, vma, bo->vaddr, bo->dma,
				 vma->vm_end - vma->vm_start);
}

/* For an exported dma-buf: the pages, which PRIME maps for the importer. */
static struct sg_table *quire_bo_get_sg_table(struct drm_gem_object *obj)
{
	struct quire_bo *bo = to_quire_bo(obj);
	struct sg_table *sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	int ret;

	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = dma_get_sgtable(obj->dev->dev, sgt, bo->vaddr, bo->dma, obj->size);
	if (ret) {
		kfree(sgt);
		return ERR_PTR(ret);
	}
	return sgt;
}

static int quire_bo_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	iosys_map_set_vaddr(map, to_quire_bo(obj)->vaddr);
	return 0;
}

static const struct vm_operations_struct quire_bo_vm_ops = {
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static const struct drm_gem_object_funcs quire_bo_funcs = {
	.free = quire_bo_free,
	.get_sg_table = quire_bo_get_sg_table,
	.vmap = quire_bo_vmap,
	.mmap = quire_bo_mmap,
	.vm_ops = &quire_bo_vm_ops,
};

/* An imported object: the shmem helper's functions, but for free, which also counts. */
static void quire_import_free(struct drm_gem_object *obj)
{
	atomic_dec(&to_quire(obj->dev)->bos);
	drm_gem_shmem_object_free(obj);
}

static const struct drm_gem_object_funcs quire_import_funcs = {
	.free = quire_import_free,
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
 * The driver's gem_create_object, which the shmem helper calls for each object it
 * makes: here only imported ones (PRIME import), counted once here and once in
 * quire_import_free.
 */
struct drm_gem_object *quire_gem_create_object(struct drm_device *drm, size_t size)
{
	struct drm_gem_shmem_object *shmem = kzalloc(sizeof(*shmem), GFP_KERNEL);

	if (!shmem)
		return ERR_PTR(-ENOMEM);
	shmem->base.funcs = &quire_import_funcs;
	atomic_inc(&to_quire(drm)->bos);
	return &shmem->base;
}

/*
 * BO_CREATE for the file whose pinned bytes are acct: within the caps (-EDQUOT
 * otherwise), coherent memory, zeroed, charged to the caller's memory cgroup
 * (-ENOMEM when that is full); no warning when a large one cannot be had.
 */
struct drm_gem_object *quire_bo_create(struct drm_device *drm, struct quire_pin_account *acct,
				       u64 size)
{
	struct quire_bo *bo;
	int ret;

	if (size == 0 || size > QUIRE_BO_MAX_SIZE)
		return ERR_PTR(-EINVAL);
	size = PAGE_ALIGN(size);
	ret = quire_pin_charge(to_quire(drm), acct, size);
	if (ret)
		return ERR_PTR(ret);
	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		goto no_mem;
	bo->vaddr = dma_alloc_coherent(drm->dev, size, &bo->dma,
				       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!bo->vaddr) {
		kfree(bo);
		goto no_mem;
	}
	bo->pinned = acct; /* quire_pin_charge took a reference for the object */
	bo->base.funcs = &quire_bo_funcs;
	drm_gem_private_object_init(drm, &bo->base, size);
	atomic_inc(&to_quire(drm)->bos);
	return &bo->base;

no_mem:
	quire_pin_uncharge(to_quire(drm), acct, size);
	return ERR_PTR(-ENOMEM);
}

/* An imported object's scatter list, mapped for this card at import. */
static struct sg_table *import_sgt(struct quire_device *qdev, struct drm_gem_object *obj)
{
	struct sg_table *sgt;

	mutex_lock(&qdev->pin_lock);
	sgt = drm_gem_shmem_get_pages_sgt(to_drm_gem_shmem_obj(obj));
	mutex_unlock(&qdev->pin_lock);
	return sgt;
}

/*
 * The card's address of bytes [offset, offset + bytes) of a buffer object: for one
 * of ours its coherent memory; for an imported one, the span must lie in one
 * DMA-contiguous run of the scatter list the exporter mapped for this card
 * (drm_gem_shmem_prime_import_sg_table keeps it in shmem->sgt, which
 * drm_gem_shmem_get_pages_sgt returns): -EINVAL otherwise. Entries that follow
 * one another in DMA space count as one run (an IOMMU maps a list as one range).
 */
int quire_bo_dma_span(struct quire_device *qdev, struct drm_gem_object *obj, u64 offset,
		      u64 bytes, dma_addr_t *dma)
{
	struct quire_bo *bo = to_quire_bo(obj);
	struct sg_table *sgt;
	struct scatterlist *sg;
	dma_addr_t run_end = 0;
	u64 start = 0, end = offset + bytes;
	bool in_span = false;
	unsigned int i;

	if (offset > obj->size || bytes > obj->size - offset)
		return -ERANGE;
	if (bo) {
		*dma = bo->dma + offset;
		return 0;
	}
	sgt = import_sgt(qdev, obj);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	for_each_sgtable_dma_sg(sgt, sg, i) {
		u64 len = sg_dma_len(sg);

		if (in_span && sg_dma_address(sg) != run_end)
			return -EINVAL;
		if (!in_span && offset < start + len) {
			*dma = sg_dma_address(sg) + (offset - start);
			in_span = true;
		}
		if (in_span && end <= start + len)
			return 0;
		run_end = sg_dma_address(sg) + len;
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
 * Copy len bytes at offset of a buffer object: its coherent memory, or for an
 * imported one the exporter's mapping.
 */
int quire_bo_read(struct quire_device *qdev, struct drm_gem_object *obj, u64 offset,
		  void *buf, size_t len)
{
	struct quire_bo *bo = to_quire_bo(obj);

	if (offset > obj->size || len > obj->size - offset)
		return -ERANGE;
	if (!bo)
		return read_imported(obj, offset, buf, len);
	memcpy(buf, bo->vaddr + offset, len);
	return 0;
}
