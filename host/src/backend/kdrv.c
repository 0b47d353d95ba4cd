// SPDX-License-Identifier: MIT
/*
 * The kdrv backend: a card behind the kernel driver (driver/, quire.ko), through its
 * DRM uAPI (include/quire/quire_drm.h). Buffers are GEM objects mapped into this
 * process; a descriptor goes to the driver with (handle, offset) for each buffer, and
 * the driver checks it again, pins the objects and puts their DMA addresses in.
 *
 * libdrm is loaded with dlopen when a context first asks for kdrv ($QUIRE_LIBDRM, else
 * its soname libdrm.so.2), like libquire_sim for sim:inproc: libquire itself does not
 * need libdrm, so it works on machines without it, where kdrv says "no device found".
 * Only its headers are needed to build (libdrm-dev).
 *
 * The core hands backends descriptors with addresses in them (buf->dma + offset). A
 * kdrv buffer's "address" is its GEM handle << 40: the firmware's validator, which the
 * core runs, sees a present, aligned, non-wrapping address, and submit splits it back
 * into (handle, offset). Buffers are below 1 TiB, handles below 2^24.
 *
 * Buffers are shared as dma-bufs through DRM PRIME (the core ioctls PRIME_HANDLE_TO_FD
 * and PRIME_FD_TO_HANDLE; quire.ko has them from the GEM shmem helper). An import gets a
 * GEM handle, mapped here like any of ours. DRM gives one handle per object and file:
 * importing a buffer into the file it came from, or the same dma-buf twice, gives a
 * handle this context already has, so buffer objects here are counted (refs) and the
 * handle is closed with its last buffer.
 *
 * It runs against quire.ko in the QEMU guest of make test-driver, with the simulated
 * card (tests/driver/: quire info, quire selftest, PRIME between two contexts and from
 * vgem); on this host its no-device paths are tested (tests/test_kdrv.c). Never against
 * a real card.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drm.h>

#include "host/src/backend/kdrv.h"
#include "host/src/core/core.h"
#include "quire/boards.h"
#include "quire/quire_drm.h"
#include "quire/regs.h"

#define KDRV_LIBDRM       "libdrm.so.2"
#define KDRV_DRIVER_NAME  "quire"
#define KDRV_HANDLE_SHIFT 40
#define KDRV_OFFSET_MASK  ((1ull << KDRV_HANDLE_SHIFT) - 1)
#define KDRV_MAX_HANDLE   (1u << (64 - KDRV_HANDLE_SHIFT))
#define KDRV_MAX_DEVICES  64
#define KDRV_SLICE_MS     100 /* a wait without limit waits in slices */

/* The libdrm functions kdrv uses, found by dlsym. */
static struct {
	int (*ioctl)(int fd, unsigned long request, void *arg);
	drmVersionPtr (*get_version)(int fd);
	void (*free_version)(drmVersionPtr v);
	int (*get_devices2)(uint32_t flags, drmDevicePtr devices[], int max);
	void (*free_devices)(drmDevicePtr devices[], int count);
	int loaded;
} drm;
static pthread_once_t drm_once = PTHREAD_ONCE_INIT;

static void drm_load(void)
{
	const char *path = getenv("QUIRE_LIBDRM");
	/* Kept loaded for the life of the process, as libquire_sim is. */
	void *lib = dlopen(path && *path ? path : KDRV_LIBDRM, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return;
	*(void **)&drm.ioctl = dlsym(lib, "drmIoctl");
	*(void **)&drm.get_version = dlsym(lib, "drmGetVersion");
	*(void **)&drm.free_version = dlsym(lib, "drmFreeVersion");
	*(void **)&drm.get_devices2 = dlsym(lib, "drmGetDevices2");
	*(void **)&drm.free_devices = dlsym(lib, "drmFreeDevices");
	drm.loaded = drm.ioctl && drm.get_version && drm.free_version && drm.get_devices2 &&
		     drm.free_devices;
}

struct kbo { /* a buffer object mapped here */
	struct kbo *next;
	void *ptr;
	size_t size; /* mapped bytes */
	uint32_t handle;
	unsigned refs; /* quire_bufs over it: more than one when imported into its own file */
};

struct kjob { /* a submission in flight */
	struct kjob *next;
	struct quire_req *req;
	uint64_t seqno;
};

struct kdrv {
	int fd;
	struct kbo *bos;
	struct kjob *jobs;
};

/* ---- URIs ---- */

static int hex(const char **s, unsigned digits_min, unsigned digits_max, unsigned long max,
	       unsigned long *out)
{
	unsigned long v = 0;
	unsigned n = 0;
	for (const char *p = *s; n < digits_max; p++, n++) {
		int d = *p >= '0' && *p <= '9'   ? *p - '0'
			: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
						 : -1;
		if (d < 0)
			break;
		v = v * 16 + (unsigned long)d;
	}
	if (n < digits_min || v > max)
		return -1;
	*s += n;
	*out = v;
	return 0;
}

int kdrv_parse_where(const char *arg, struct kdrv_where *w)
{
	memset(w, 0, sizeof(*w));
	if (!arg) {
		w->kind = KDRV_FIRST;
		return QUIRE_OK;
	}
	if (arg[0] == '/') {
		w->kind = KDRV_NODE;
		w->path = arg;
		return QUIRE_OK;
	}
	if (strncmp(arg, "pci:", 4) != 0)
		return QUIRE_ERR_INVALID;
	/* [DDDD:]BB:DD.F, hexadecimal, as lspci -D and sysfs spell it. */
	const char *s = arg + 4;
	unsigned long a, b, dev, func;
	if (hex(&s, 1, 4, 0xffff, &a) || *s++ != ':' || hex(&s, 1, 2, 0xff, &b))
		return QUIRE_ERR_INVALID;
	unsigned long domain = 0, bus = a;
	if (*s == ':') { /* the domain was given */
		s++;
		domain = a;
		bus = b;
		if (hex(&s, 1, 2, 0x1f, &dev))
			return QUIRE_ERR_INVALID;
	} else if (a > 0xff) {
		return QUIRE_ERR_INVALID;
	} else {
		dev = b;
		if (dev > 0x1f)
			return QUIRE_ERR_INVALID;
	}
	if (*s++ != '.' || hex(&s, 1, 1, 7, &func) || *s)
		return QUIRE_ERR_INVALID;
	w->kind = KDRV_PCI;
	w->domain = (uint16_t)domain;
	w->bus = (uint8_t)bus;
	w->dev = (uint8_t)dev;
	w->func = (uint8_t)func;
	return QUIRE_OK;
}

/* ---- the driver ---- */

/* An ioctl's errno as a status. */
static int errno_status(int err)
{
	switch (err) {
	case ENODEV:
		return QUIRE_ERR_PEER; /* the card was removed */
	case ETIMEDOUT:
		return QUIRE_ERR_TIMEOUT;
	case ENOMEM:
	case EDQUOT: /* BO_CREATE past quire.ko's cap on pinned memory (kdrv_buf_alloc says so) */
		return QUIRE_ERR_NOMEM;
	case EBUSY:
	case EAGAIN:
		return QUIRE_ERR_BUSY;
	case EINVAL:
	case ENOENT:
	case EBADF: /* PRIME: not a file descriptor */
		return QUIRE_ERR_INVALID;
	case ENOSYS:
	case EOPNOTSUPP:
		return QUIRE_ERR_NOT_SUPPORTED; /* a driver without PRIME */
	case EPROTO:
		return QUIRE_ERR_VERSION;
	default:
		return QUIRE_ERR_IO;
	}
}

static int kioctl(int fd, unsigned long request, void *arg)
{
	return drm.ioctl(fd, request, arg) == 0 ? QUIRE_OK : errno_status(errno);
}

/*
 * Open path and make sure it is a quire card whose uAPI this library speaks: a character
 * device, whose DRM driver is named "quire" (a render node of another driver is refused
 * before any quire ioctl reaches it), and whose GET_INFO reports our uAPI major.
 */
static int open_node(const char *path, int *out)
{
	*out = -1;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return QUIRE_ERR_NO_DEVICE; /* not there, or not ours to open */
	struct stat st;
	int status = QUIRE_ERR_NO_DEVICE;
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
		goto fail;
	drmVersionPtr v = drm.get_version(fd); /* DRM_IOCTL_VERSION: fails on a non-DRM node */
	if (!v)
		goto fail;
	int ours = v->name && strcmp(v->name, KDRV_DRIVER_NAME) == 0;
	drm.free_version(v);
	if (!ours)
		goto fail;
	struct drm_quire_get_info gi;
	memset(&gi, 0, sizeof(gi));
	status = kioctl(fd, DRM_IOCTL_QUIRE_GET_INFO, &gi);
	if (status != QUIRE_OK)
		goto fail;
	if (gi.uapi_version >> 16 != QUIRE_DRM_UAPI_MAJOR) {
		status = QUIRE_ERR_VERSION;
		goto fail;
	}
	*out = fd;
	return QUIRE_OK;
fail:
	close(fd);
	return status;
}

/* The render node of every DRM device (KDRV_FIRST), or of the one in a PCI slot. */
static int open_where(const struct kdrv_where *w, int *fd)
{
	if (w->kind == KDRV_NODE)
		return open_node(w->path, fd);
	drmDevicePtr devs[KDRV_MAX_DEVICES];
	int n = drm.get_devices2(0, devs, KDRV_MAX_DEVICES);
	int status = QUIRE_ERR_NO_DEVICE;
	for (int i = 0; i < n && status != QUIRE_OK; i++) {
		drmDevicePtr d = devs[i];
		if (!(d->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		if (w->kind == KDRV_PCI &&
		    (d->bustype != DRM_BUS_PCI || d->businfo.pci->domain != w->domain ||
		     d->businfo.pci->bus != w->bus || d->businfo.pci->dev != w->dev ||
		     d->businfo.pci->func != w->func))
			continue;
		int st = open_node(d->nodes[DRM_NODE_RENDER], fd);
		/* A quire card of another uAPI says so, unless a usable one comes later. */
		if (st == QUIRE_OK || status == QUIRE_ERR_NO_DEVICE)
			status = st;
	}
	if (n > 0)
		drm.free_devices(devs, n);
	return status;
}

/* ---- operations ---- */

static int kdrv_info(struct quire_ctx *ctx, struct quire_info *info)
{
	struct kdrv *k = ctx->priv;
	struct drm_quire_get_info gi;
	memset(&gi, 0, sizeof(gi));
	int st = kioctl(k->fd, DRM_IOCTL_QUIRE_GET_INFO, &gi);
	if (st != QUIRE_OK)
		return st;
	strcpy(info->backend, "kdrv");
	const struct quire_board_desc *desc = quire_board_find(gi.board);
	if (desc)
		snprintf(info->board, sizeof(info->board), "%s", desc->name);
	else
		snprintf(info->board, sizeof(info->board), "unknown board (%u)", gi.board);
	info->if_version = gi.if_version;
	info->fw_build = gi.fw_build;
	info->fw_state = gi.fw_state;
	info->caps = gi.caps;
	info->clock_hz = gi.clock_hz;
	info->hw_build = gi.hw_build;
	info->mem_bytes = gi.mem_bytes;
	/* uAPI 1.0 reports no counters, network port or register blocks: left 0. */
	return QUIRE_OK;
}

static void gem_close(struct kdrv *k, uint32_t handle)
{
	struct drm_gem_close c;
	memset(&c, 0, sizeof(c));
	c.handle = handle;
	(void)kioctl(k->fd, DRM_IOCTL_GEM_CLOSE, &c);
}

/*
 * Map bo->handle here (BO_INFO, mmap on the DRM file) and put bo on the context's list: the
 * object must hold at least min_bytes and the handle fit the address the core builds. On
 * error bo is untouched but for ptr and size, and its handle still open.
 */
static int bo_map(struct kdrv *k, struct kbo *bo, uint64_t min_bytes)
{
	if (bo->handle == 0 || bo->handle >= KDRV_MAX_HANDLE)
		return QUIRE_ERR_RANGE;
	struct drm_quire_bo_info in;
	memset(&in, 0, sizeof(in));
	in.handle = bo->handle;
	int st = kioctl(k->fd, DRM_IOCTL_QUIRE_BO_INFO, &in);
	if (st != QUIRE_OK)
		return st;
	if (in.size > KDRV_OFFSET_MASK || in.size > SIZE_MAX)
		return QUIRE_ERR_RANGE; /* an imported dma-buf beyond what an address can say */
	if (in.size < min_bytes || in.size == 0)
		return QUIRE_ERR_INTERNAL; /* the driver's object is smaller than asked */
	void *ptr = mmap(NULL, (size_t)in.size, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd,
			 (off_t)in.mmap_offset);
	if (ptr == MAP_FAILED)
		return errno == ENOMEM ? QUIRE_ERR_NOMEM : QUIRE_ERR_IO;
	bo->ptr = ptr;
	bo->size = (size_t)in.size;
	bo->refs = 1;
	bo->next = k->bos;
	k->bos = bo;
	return QUIRE_OK;
}

static int kdrv_buf_alloc(struct quire_ctx *ctx, size_t bytes, void **p, uint64_t *dma)
{
	struct kdrv *k = ctx->priv;
	if ((uint64_t)bytes > KDRV_OFFSET_MASK)
		return QUIRE_ERR_RANGE;
	struct kbo *bo = calloc(1, sizeof(*bo));
	if (!bo)
		return QUIRE_ERR_NOMEM;
	struct drm_quire_bo_create cr;
	memset(&cr, 0, sizeof(cr));
	cr.size = bytes;
	int st = kioctl(k->fd, DRM_IOCTL_QUIRE_BO_CREATE, &cr);
	if (st != QUIRE_OK) {
		/* Out of memory and over a cap share a status: the message tells them apart. */
		if (errno == EDQUOT)
			fprintf(
			    stderr,
			    "quire: kdrv: a buffer of %zu bytes is over quire.ko's cap on pinned "
			    "memory (per open file or for all cards: "
			    "/sys/module/quire/parameters/pinned_file_max_mib, pinned_max_mib)\n",
			    bytes);
		free(bo);
		return st;
	}
	bo->handle = cr.handle;
	st = bo_map(k, bo, bytes);
	if (st != QUIRE_OK) {
		gem_close(k, cr.handle);
		free(bo);
		return st;
	}
	*p = bo->ptr;
	*dma = (uint64_t)bo->handle << KDRV_HANDLE_SHIFT;
	return QUIRE_OK;
}

static void kdrv_buf_free(struct quire_ctx *ctx, void *p, size_t bytes)
{
	(void)bytes;
	struct kdrv *k = ctx->priv;
	for (struct kbo **pp = &k->bos; *pp; pp = &(*pp)->next) {
		struct kbo *bo = *pp;
		if (bo->ptr != p)
			continue;
		if (--bo->refs > 0)
			return; /* another buffer of this context over the same object */
		*pp = bo->next;
		munmap(bo->ptr, bo->size);
		gem_close(k, bo->handle); /* a job still using it holds its own reference */
		free(bo);
		return;
	}
}

/* The buffer at p as a new dma-buf (PRIME_HANDLE_TO_FD): close-on-exec, read-write. */
static int kdrv_buf_export(struct quire_ctx *ctx, void *p, int *fd)
{
	struct kdrv *k = ctx->priv;
	struct kbo *bo = k->bos;
	while (bo && bo->ptr != p)
		bo = bo->next;
	if (!bo)
		return QUIRE_ERR_INTERNAL; /* every buffer of the core is one of ours */
	struct drm_prime_handle ph;
	memset(&ph, 0, sizeof(ph));
	ph.handle = bo->handle;
	ph.flags = DRM_CLOEXEC | DRM_RDWR;
	ph.fd = -1;
	int st = kioctl(k->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);
	if (st != QUIRE_OK)
		return st;
	*fd = ph.fd;
	return QUIRE_OK;
}

/*
 * A buffer over the dma-buf fd (PRIME_FD_TO_HANDLE). The driver gives the handle this file
 * already has for that object, if it has one (a buffer of this context exported and
 * imported back, or a dma-buf imported twice): then the buffer shares its mapping.
 */
static int kdrv_buf_import(struct quire_ctx *ctx, int fd, size_t *bytes, void **p, uint64_t *dma)
{
	struct kdrv *k = ctx->priv;
	struct drm_prime_handle ph;
	memset(&ph, 0, sizeof(ph));
	ph.fd = fd;
	int st = kioctl(k->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph);
	if (st != QUIRE_OK)
		return st;
	struct kbo *bo = k->bos;
	while (bo && bo->handle != ph.handle)
		bo = bo->next;
	if (bo) {
		bo->refs++;
	} else {
		bo = calloc(1, sizeof(*bo));
		if (!bo) {
			gem_close(k, ph.handle);
			return QUIRE_ERR_NOMEM;
		}
		bo->handle = ph.handle;
		st = bo_map(k, bo, 1);
		if (st != QUIRE_OK) {
			gem_close(k, ph.handle);
			free(bo);
			return st;
		}
	}
	*bytes = bo->size;
	*p = bo->ptr;
	*dma = (uint64_t)bo->handle << KDRV_HANDLE_SHIFT;
	return QUIRE_OK;
}

static void bo_ref(uint64_t addr, struct drm_quire_bo_ref *r)
{
	r->handle = (uint32_t)(addr >> KDRV_HANDLE_SHIFT);
	r->offset = addr & KDRV_OFFSET_MASK;
}

static int kdrv_submit(struct quire_ctx *ctx, struct quire_req *req)
{
	struct kdrv *k = ctx->priv;
	const struct quire_cmd *c = &req->cmd;
	struct kjob *job = calloc(1, sizeof(*job));
	if (!job)
		return QUIRE_ERR_NOMEM;
	struct drm_quire_submit s;
	memset(&s, 0, sizeof(s));
	s.opcode = c->opcode;
	s.flags = c->flags;
	/* The descriptor is little-endian, the uAPI host-endian (quire/quire_drm.h). */
	s.format = quire_le16_to_cpu(c->format);
	s.count = quire_le32_to_cpu(c->count);
	s.val_format = quire_le16_to_cpu(c->val_format);
	s.workers = quire_le16_to_cpu(c->workers);
	s.stride = quire_le64_to_cpu(c->stride);
	bo_ref(quire_le64_to_cpu(c->src), &s.bufs[QUIRE_DRM_BUF_SRC]);
	bo_ref(quire_le64_to_cpu(c->dst), &s.bufs[QUIRE_DRM_BUF_DST]);
	bo_ref(quire_le64_to_cpu(c->exp), &s.bufs[QUIRE_DRM_BUF_EXP]);
	bo_ref(quire_le64_to_cpu(c->aux), &s.bufs[QUIRE_DRM_BUF_AUX]);
	int st = kioctl(k->fd, DRM_IOCTL_QUIRE_SUBMIT, &s);
	if (st != QUIRE_OK) {
		free(job);
		return st;
	}
	job->req = req;
	job->seqno = s.seqno;
	job->next = k->jobs;
	k->jobs = job;
	return QUIRE_OK;
}

static struct kjob **find_job(struct kdrv *k, const struct quire_req *req)
{
	struct kjob **pp = &k->jobs;
	while (*pp && (*pp)->req != req)
		pp = &(*pp)->next;
	return pp;
}

/* WAIT on seqno for timeout_ms (0 polls): QUIRE_OK with its completion in *w. */
static int wait_seqno(struct kdrv *k, uint64_t seqno, int timeout_ms, struct drm_quire_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->seqno = seqno;
	w->timeout_ns = (uint64_t)timeout_ms * 1000000u;
	return kioctl(k->fd, DRM_IOCTL_QUIRE_WAIT, w);
}

static int kdrv_wait(struct quire_ctx *ctx, struct quire_req *req, int timeout_ms)
{
	struct kdrv *k = ctx->priv;
	struct kjob **pp = find_job(k, req);
	if (!*pp)
		return req->done ? QUIRE_OK : QUIRE_ERR_INTERNAL;
	struct drm_quire_wait w;
	int st = wait_seqno(k, (*pp)->seqno, timeout_ms < 0 ? KDRV_SLICE_MS : timeout_ms, &w);
	if (st != QUIRE_OK)
		return st; /* TIMEOUT: still in flight; PEER: the card was removed */
	struct kjob *job = *pp;
	*pp = job->next;
	free(job);
	quire_req_complete(req, (int)w.status, w.result, w.cycles, w.detail);
	return QUIRE_OK;
}

static void kdrv_abandon(struct quire_ctx *ctx, struct quire_req *req)
{
	struct kdrv *k = ctx->priv;
	struct kjob **pp = find_job(k, req);
	if (!*pp)
		return;
	struct kjob *job = *pp;
	*pp = job->next;
	/* Collect its completion if it is there; otherwise the driver keeps the record
	 * until this file is closed. */
	struct drm_quire_wait w;
	(void)wait_seqno(k, job->seqno, 0, &w);
	free(job);
}

/*
 * uAPI 1.0 has no heartbeat and no card clock: this checks that the device still answers
 * (GET_INFO; a removed card is QUIRE_ERR_PEER) and reports the beat unchanged and no
 * clock, so the core's liveness check counts completions only, in wall time.
 */
static int kdrv_heartbeat(struct quire_ctx *ctx, uint32_t *beat, int64_t *card_ms, int timeout_ms)
{
	(void)timeout_ms;
	struct drm_quire_get_info gi;
	memset(&gi, 0, sizeof(gi));
	*beat = ctx->beat;
	*card_ms = -1;
	return kioctl(((struct kdrv *)ctx->priv)->fd, DRM_IOCTL_QUIRE_GET_INFO, &gi);
}

static int kdrv_reset(struct quire_ctx *ctx, int status)
{
	struct kdrv *k = ctx->priv;
	struct drm_quire_reset r;
	memset(&r, 0, sizeof(r));
	int st = kioctl(k->fd, DRM_IOCTL_QUIRE_RESET, &r);
	if (st != QUIRE_OK)
		return st;
	/* The driver completed every job in flight (QUIRE_ERR_IO): collect the records and
	 * complete the requests with the status the core asks for, as sim does. */
	while (k->jobs) {
		struct kjob *job = k->jobs;
		k->jobs = job->next;
		struct drm_quire_wait w;
		(void)wait_seqno(k, job->seqno, 0, &w);
		quire_req_complete(job->req, status, 0, 0, QUIRE_DETAIL_NONE);
		free(job);
	}
	return QUIRE_OK;
}

static void kdrv_close(struct quire_ctx *ctx)
{
	struct kdrv *k = ctx->priv;
	while (k->jobs) { /* the driver drops their records with the file */
		struct kjob *job = k->jobs;
		k->jobs = job->next;
		free(job);
	}
	while (k->bos)
		kdrv_buf_free(ctx, k->bos->ptr, k->bos->size);
	close(k->fd);
	free(k);
}

static const struct quire_backend_ops kdrv_ops = {
    .name = "kdrv",
    .caps = QUIRE_BACKEND_CAP_CARD | QUIRE_BACKEND_CAP_CARD_NET | QUIRE_BACKEND_CAP_DMABUF,
    .info = kdrv_info,
    .buf_alloc = kdrv_buf_alloc,
    .buf_free = kdrv_buf_free,
    .buf_export = kdrv_buf_export,
    .buf_import = kdrv_buf_import,
    .submit = kdrv_submit,
    .wait = kdrv_wait,
    .abandon = kdrv_abandon,
    .heartbeat = kdrv_heartbeat,
    .reset = kdrv_reset,
    .close = kdrv_close,
};

int quire_backend_kdrv_open(struct quire_ctx *ctx, const char *arg)
{
	struct kdrv_where w;
	int st = kdrv_parse_where(arg, &w);
	if (st != QUIRE_OK)
		return st;
	pthread_once(&drm_once, drm_load);
	if (!drm.loaded)
		return QUIRE_ERR_NO_DEVICE; /* no libdrm here: no DRM device either */
	struct kdrv *k = calloc(1, sizeof(*k));
	if (!k)
		return QUIRE_ERR_NOMEM;
	st = open_where(&w, &k->fd);
	if (st != QUIRE_OK) {
		free(k);
		return st;
	}
	ctx->ops = &kdrv_ops;
	ctx->priv = k;
	return QUIRE_OK;
}
