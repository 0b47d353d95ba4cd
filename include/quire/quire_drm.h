/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The quire kernel driver's uAPI (driver/, a DRM driver: a render node on Linux 6.1,
 * an accel node /dev/accel/accelN on kernels with CONFIG_DRM_ACCEL).
 *
 * Rules of every struct here: only __u32 and __u64 fields, sizes a multiple of 8,
 * explicit pads and reserved words that must be zero on input (the driver refuses
 * anything else with -EINVAL, so they can gain a meaning later) and are zero on
 * output. QUIRE_DRM_UAPI_VERSION (GET_INFO) says which interface a driver speaks:
 * the major changes only when an existing field changes meaning.
 *
 * Host byte order, as every DRM uAPI (ivpu_accel.h, amdxdna_accel.h): an ioctl's
 * struct goes from a process to the kernel on the same CPU. What the card reads is
 * little-endian (struct quire_cmd's __le fields, quire/cmd.h): the driver converts
 * SUBMIT's fields into the descriptor and the completion's into WAIT's.
 *
 * The ioctl numbers are the DRM driver-private range: DRM_COMMAND_BASE + nr, with
 * DRM's ioctl type 'd'. They are spelled with <linux/ioctl.h> alone so that this
 * header needs no libdrm; the driver checks that they equal DRM_IOWR(...).
 */
#ifndef QUIRE_DRM_H
#define QUIRE_DRM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define QUIRE_DRM_UAPI_MAJOR   1u
#define QUIRE_DRM_UAPI_MINOR   0u
#define QUIRE_DRM_UAPI_VERSION (QUIRE_DRM_UAPI_MAJOR << 16 | QUIRE_DRM_UAPI_MINOR)

#define QUIRE_DRM_IOCTL_BASE   'd'  /* DRM_IOCTL_BASE */
#define QUIRE_DRM_COMMAND_BASE 0x40 /* DRM_COMMAND_BASE */

#define DRM_QUIRE_GET_INFO     0x00
#define DRM_QUIRE_BO_CREATE    0x01
#define DRM_QUIRE_BO_INFO      0x02
#define DRM_QUIRE_SUBMIT       0x03
#define DRM_QUIRE_WAIT         0x04
#define DRM_QUIRE_RESET        0x05
#define DRM_QUIRE_NUM_IOCTLS   0x06

/* GET_INFO (out): what the card's ID block says, and the driver's own numbers. */
struct drm_quire_get_info {
	__u32 uapi_version; /* QUIRE_DRM_UAPI_VERSION of the driver */
	__u32 if_version;   /* QUIRE_INTERFACE_VERSION the card implements */
	__u32 board;        /* enum quire_board */
	__u32 caps;         /* QUIRE_CAP_* */
	__u64 mem_bytes;    /* card memory */
	__u64 hw_build;     /* hardware build id */
	__u32 fw_build;     /* firmware build id */
	__u32 fw_state;     /* QUIRE_FW_STATE_* */
	__u32 clock_hz;     /* clock of the engines and of the completions' cycles */
	__u32 ring_entries; /* descriptors the driver's command ring holds */
	__u64 reserved[4];  /* zero */
};

/* BO_CREATE: a buffer object in host memory, mapped for the card while a submission uses it. */
struct drm_quire_bo_create {
	__u64 size;   /* in: bytes, > 0; rounded up to whole pages */
	__u32 flags;  /* in: zero (no flags yet) */
	__u32 handle; /* out: GEM handle, closed with DRM_IOCTL_GEM_CLOSE */
};

/* BO_INFO: where to mmap a buffer object (on the DRM file descriptor), and its size. */
struct drm_quire_bo_info {
	__u32 handle;      /* in */
	__u32 pad;         /* zero */
	__u64 mmap_offset; /* out: the offset to pass to mmap() */
	__u64 size;        /* out: bytes */
};

/*
 * A buffer of a descriptor: a byte offset into a buffer object. handle 0: the
 * descriptor does not use this buffer (its address is 0, as struct quire_cmd wants).
 */
struct drm_quire_bo_ref {
	__u32 handle;
	__u32 pad; /* zero */
	__u64 offset;
};

/* The four buffers of a descriptor, in struct quire_cmd's order (quire_cmd_extents too). */
#define QUIRE_DRM_BUF_SRC 0
#define QUIRE_DRM_BUF_DST 1
#define QUIRE_DRM_BUF_EXP 2
#define QUIRE_DRM_BUF_AUX 3
#define QUIRE_DRM_BUFS    4

/*
 * SUBMIT: one descriptor. The fields of struct quire_cmd (include/quire/cmd.h),
 * widened to __u32 and checked to fit, except that the four buffer addresses are
 * buffer object references. Before the card sees anything the driver checks that
 * each referenced span (quire_cmd_extents) is one DMA-contiguous range (an imported
 * buffer may be in pieces: QUIRE_ERR_RANGE naming it), checks every field with the
 * firmware's own rules (quire_cmd_validate), checks each span against its buffer
 * object's size, pins the objects
 * and puts their DMA addresses into the descriptor; the objects stay referenced
 * until the descriptor completes. The card assigns nothing: seqno is the
 * driver's, per device, increasing.
 */
struct drm_quire_submit {
	__u32 opcode;     /* enum quire_opcode */
	__u32 flags;      /* QUIRE_CMD_F_* */
	__u32 format;     /* enum quire_format, or 0 */
	__u32 count;      /* as struct quire_cmd */
	__u32 val_format; /* enum quire_format, or 0 */
	__u32 workers;    /* as struct quire_cmd (16 bits) */
	__u64 stride;     /* as struct quire_cmd */
	struct drm_quire_bo_ref bufs[QUIRE_DRM_BUFS];
	__u32 out_syncobj; /* in: 0, or a syncobj handle whose fence signals at completion */
	__u32 pad;         /* zero */
	__u64 seqno;       /* out: names the submission to WAIT */
	__u64 reserved[2]; /* zero */
};

/*
 * WAIT: until submission seqno of this file has completed, or timeout_ns
 * (relative; 0 polls) has passed: -ETIMEDOUT, and the submission stays in
 * flight. On success the completion record's fields are returned and the
 * submission is forgotten: a second WAIT on it gets -ENOENT.
 */
struct drm_quire_wait {
	__u64 seqno;      /* in */
	__u64 timeout_ns; /* in */
	__u32 status;     /* out: enum quire_status of the completion */
	__u32 result;     /* out: as struct quire_cpl */
	__u32 cycles;     /* out */
	__u32 detail;     /* out: enum quire_detail */
	__u32 flags;      /* in: zero */
	__u32 pad;        /* zero */
};

/*
 * RESET: disable and re-enable the card's queues. Every submission in flight
 * completes with QUIRE_ERR_IO and releases its buffer objects.
 */
struct drm_quire_reset {
	__u32 flags; /* zero */
	__u32 pad;   /* zero */
};

/* DRM_IOR(DRM_COMMAND_BASE + nr, type), DRM_IOW, DRM_IOWR as <drm/drm.h> spells them. */
#define QUIRE_DRM_IO(dir, nr, type) dir(QUIRE_DRM_IOCTL_BASE, QUIRE_DRM_COMMAND_BASE + (nr), type)

#define DRM_IOCTL_QUIRE_GET_INFO  QUIRE_DRM_IO(_IOR, DRM_QUIRE_GET_INFO, struct drm_quire_get_info)
#define DRM_IOCTL_QUIRE_BO_CREATE                                                                  \
	QUIRE_DRM_IO(_IOWR, DRM_QUIRE_BO_CREATE, struct drm_quire_bo_create)
#define DRM_IOCTL_QUIRE_BO_INFO   QUIRE_DRM_IO(_IOWR, DRM_QUIRE_BO_INFO, struct drm_quire_bo_info)
#define DRM_IOCTL_QUIRE_SUBMIT    QUIRE_DRM_IO(_IOWR, DRM_QUIRE_SUBMIT, struct drm_quire_submit)
#define DRM_IOCTL_QUIRE_WAIT      QUIRE_DRM_IO(_IOWR, DRM_QUIRE_WAIT, struct drm_quire_wait)
#define DRM_IOCTL_QUIRE_RESET     QUIRE_DRM_IO(_IOW, DRM_QUIRE_RESET, struct drm_quire_reset)

#ifdef __KERNEL__
#include <linux/build_bug.h>
#define QUIRE_DRM_SIZE_CHECK(type, bytes) static_assert(sizeof(struct type) == (bytes), #type)
#else
#include "quire/static_assert.h"
#define QUIRE_DRM_SIZE_CHECK(type, bytes) QUIRE_STATIC_ASSERT(sizeof(struct type) == (bytes), #type)
#endif
QUIRE_DRM_SIZE_CHECK(drm_quire_get_info, 80);
QUIRE_DRM_SIZE_CHECK(drm_quire_bo_create, 16);
QUIRE_DRM_SIZE_CHECK(drm_quire_bo_info, 24);
QUIRE_DRM_SIZE_CHECK(drm_quire_bo_ref, 16);
QUIRE_DRM_SIZE_CHECK(drm_quire_submit, 128);
QUIRE_DRM_SIZE_CHECK(drm_quire_wait, 40);
QUIRE_DRM_SIZE_CHECK(drm_quire_reset, 8);
#undef QUIRE_DRM_SIZE_CHECK

#endif /* QUIRE_DRM_H */
