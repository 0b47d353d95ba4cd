/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place for differences between kernel versions. Linux 6.1 (Debian 12)
 * has no accel subsystem: the card is a DRM render node. Kernels with
 * CONFIG_DRM_ACCEL (6.2 and later) get /dev/accel/accelN instead.
 */
#ifndef QUIRE_COMPAT_H
#define QUIRE_COMPAT_H

#include <linux/version.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>

#if IS_ENABLED(CONFIG_DRM_ACCEL)
#include <drm/drm_accel.h>
#define QUIRE_DRIVER_NODE              DRIVER_COMPUTE_ACCEL
#define QUIRE_DEFINE_FOPS(name)        DEFINE_DRM_ACCEL_FOPS(name)
#else
#define QUIRE_DRIVER_NODE              DRIVER_RENDER
#define QUIRE_DEFINE_FOPS(name)        DEFINE_DRM_GEM_FOPS(name)
#endif

/* struct drm_driver lost its .date in 6.14. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
#define QUIRE_DRIVER_DATE .date = "20250101",
#else
#define QUIRE_DRIVER_DATE
#endif

/* dma_buf_vmap wants the reservation lock held from 6.2; the _unlocked forms take it. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define quire_dma_buf_vmap   dma_buf_vmap
#define quire_dma_buf_vunmap dma_buf_vunmap
#else
#define quire_dma_buf_vmap   dma_buf_vmap_unlocked
#define quire_dma_buf_vunmap dma_buf_vunmap_unlocked
#endif

/* The dma-buf functions are in the DMA_BUF namespace, named by a string from 6.13. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define QUIRE_IMPORT_NS_DMA_BUF() MODULE_IMPORT_NS(DMA_BUF)
#else
#define QUIRE_IMPORT_NS_DMA_BUF() MODULE_IMPORT_NS("DMA_BUF")
#endif

#endif /* QUIRE_COMPAT_H */
