// SPDX-License-Identifier: MIT
/*
 * A fake libxrt_coreutil for the xrt backend's tests: the part of XRT 2.13's C API that
 * host/src/backend/xrt.c calls, with the prototypes of XRT's own headers, built into
 * build/tests/xrt/lib/libxrt_coreutil.so.2 and loaded by libquire through the same dlopen
 * path as the real one ($QUIRE_XRT_LIB). Its devices are card models: device open starts
 * one from libquire_sim (the emu and the native firmware, found as libquire finds it:
 * $QUIRE_SIM_LIB), register access is the card's MMIO, and the one host-only buffer
 * object a device gives is the host memory the card was attached to. So libquire's ring
 * driver runs the whole command protocol through it, and nothing here answers for the card.
 *
 * Its "xclbin" is a text file of its own (lines "platform NAME", "uuid UUID", "kernel
 * NAME"): the fake checks what libquire asks of an image, not XRT's file format.
 *
 * Controlled by the environment:
 *   FAKE_XRT_DEVICES=N        devices 0..N-1 (default 0: none)
 *   FAKE_XRT_BDF=DDDD:BB:DD.F the BDF of device 0 (default 0000:3b:00.0)
 *   FAKE_XRT_FAIL=WHAT        one call fails: load, kernel, group, alloc, map, sync, read
 *   FAKE_XRT_LOG=PATH         appends a line per call that matters (what the tests check)
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <experimental/xrt_xclbin.h>
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include "host/src/backend/transport.h"
#include "sim/inproc.h"
#include "quire/regs.h"
#include "quire/status.h"

#define FAKE_HOST_BYTES (512u << 20) /* the card's host memory: the largest BO a device gives */
#define FAKE_GROUP      3            /* the host memory bank's index */

struct fake_xclbin {
	char platform[128], kernel[64];
	unsigned char uuid[16];
};

struct fake_dev {
	struct quire_sim_inproc *card;
	struct fake_xclbin loaded;
	int has_image, bo_taken, kernel_open;
};

struct fake_kernel {
	struct fake_dev *dev;
};

struct fake_bo {
	struct fake_dev *dev;
	size_t size;
};

static int failing(const char *what)
{
	const char *f = getenv("FAKE_XRT_FAIL");
	return f && strcmp(f, what) == 0;
}

static void note(const char *fmt, ...)
{
	const char *path = getenv("FAKE_XRT_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

typedef int (*inproc_open_fn)(unsigned abi, const char *opts, size_t host_bytes, uint64_t iova,
			      struct quire_sim_inproc **card);

static xrtDeviceHandle open_card(void)
{
	const char *lib_path = getenv("QUIRE_SIM_LIB");
	void *lib =
	    dlopen(lib_path && *lib_path ? lib_path : QUIRE_SIM_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	inproc_open_fn open_fn = NULL;
	if (lib)
		*(void **)&open_fn = dlsym(lib, QUIRE_SIM_INPROC_SYMBOL);
	struct fake_dev *d = calloc(1, sizeof(*d));
	if (!open_fn || !d ||
	    open_fn(QUIRE_SIM_INPROC_ABI, NULL, FAKE_HOST_BYTES, QUIRE_SIM_IOVA, &d->card) !=
		QUIRE_OK) {
		free(d);
		errno = ENODEV;
		return NULL;
	}
	return d;
}

xrtDeviceHandle xrtDeviceOpen(unsigned int index)
{
	const char *n = getenv("FAKE_XRT_DEVICES");
	if (!n || index >= strtoul(n, NULL, 10)) {
		errno = ENODEV;
		return NULL;
	}
	note("open index %u", index);
	return open_card();
}

xrtDeviceHandle xrtDeviceOpenByBDF(const char *bdf)
{
	const char *have = getenv("FAKE_XRT_BDF");
	const char *n = getenv("FAKE_XRT_DEVICES");
	if (!n || strtoul(n, NULL, 10) == 0 || strcmp(bdf, have ? have : "0000:3b:00.0") != 0) {
		errno = ENODEV;
		return NULL;
	}
	note("open bdf %s", bdf);
	return open_card();
}

int xrtDeviceClose(xrtDeviceHandle h)
{
	struct fake_dev *d = h;
	if (!d || d->bo_taken || d->kernel_open)
		return EINVAL; /* XRT's objects are closed before their device */
	d->card->close(d->card);
	free(d);
	return 0;
}

static int parse_uuid(const char *s, unsigned char u[16])
{
	for (int i = 0; i < 16; i++) {
		if (*s == '-')
			s++;
		unsigned v;
		if (sscanf(s, "%2x", &v) != 1)
			return -1;
		u[i] = (unsigned char)v;
		s += 2;
	}
	return *s == '\0' || *s == '\n' ? 0 : -1;
}

xrtXclbinHandle xrtXclbinAllocFilename(const char *filename)
{
	FILE *f = fopen(filename, "r");
	struct fake_xclbin *xb = calloc(1, sizeof(*xb));
	int have = 0;
	char line[256];
	while (f && xb && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "platform ", 9) == 0 && strlen(line + 9) < sizeof(xb->platform))
			have |= 1, strcpy(xb->platform, line + 9);
		else if (strncmp(line, "kernel ", 7) == 0 && strlen(line + 7) < sizeof(xb->kernel))
			have |= 2, strcpy(xb->kernel, line + 7);
		else if (strncmp(line, "uuid ", 5) == 0 && parse_uuid(line + 5, xb->uuid) == 0)
			have |= 4;
		else
			have |= 8; /* anything else: not one of ours */
	}
	if (f)
		fclose(f);
	if (have != 7) {
		free(xb);
		errno = EINVAL;
		return NULL;
	}
	return xb;
}

int xrtXclbinFreeHandle(xrtXclbinHandle h)
{
	free(h);
	return 0;
}

int xrtXclbinGetXSAName(xrtXclbinHandle h, char *name, int size, int *ret_size)
{
	const struct fake_xclbin *xb = h;
	int n = (int)strlen(xb->platform) + 1;
	if (ret_size)
		*ret_size = n;
	if (name && size < n)
		return EINVAL;
	if (name)
		memcpy(name, xb->platform, (size_t)n);
	return 0;
}

int xrtXclbinGetUUID(xrtXclbinHandle h, xuid_t ret_uuid)
{
	memcpy(ret_uuid, ((const struct fake_xclbin *)h)->uuid, 16);
	return 0;
}

int xrtDeviceLoadXclbinHandle(xrtDeviceHandle dh, xrtXclbinHandle xh)
{
	struct fake_dev *d = dh;
	note("load %s", ((const struct fake_xclbin *)xh)->platform);
	if (failing("load"))
		return EIO;
	d->loaded = *(const struct fake_xclbin *)xh;
	d->has_image = 1;
	return 0;
}

xrtKernelHandle xrtPLKernelOpenExclusive(xrtDeviceHandle dh, const xuid_t uuid, const char *name)
{
	struct fake_dev *d = dh;
	/* As XRT: the image must be loaded, be the one named, and have the kernel. */
	if (failing("kernel") || !d->has_image || memcmp(uuid, d->loaded.uuid, 16) != 0 ||
	    strcmp(name, d->loaded.kernel) != 0 || d->kernel_open) {
		errno = ENOENT;
		return NULL;
	}
	note("kernel %s", name);
	struct fake_kernel *k = calloc(1, sizeof(*k));
	if (k) {
		k->dev = d;
		d->kernel_open = 1;
	}
	return k;
}

int xrtKernelClose(xrtKernelHandle kh)
{
	struct fake_kernel *k = kh;
	k->dev->kernel_open = 0;
	free(k);
	return 0;
}

int xrtKernelArgGroupId(xrtKernelHandle kh, int argno)
{
	(void)kh;
	return failing("group") || argno != 0 ? -EINVAL : FAKE_GROUP;
}

int xrtKernelReadRegister(xrtKernelHandle kh, uint32_t offset, uint32_t *datap)
{
	struct fake_kernel *k = kh;
	if (failing("read") || offset % 4 || offset >= QUIRE_BAR0_BYTES)
		return EINVAL;
	*datap = k->dev->card->dev->ops->mmio_read(k->dev->card->dev, offset);
	return 0;
}

int xrtKernelWriteRegister(xrtKernelHandle kh, uint32_t offset, uint32_t data)
{
	struct fake_kernel *k = kh;
	if (offset % 4 || offset >= QUIRE_BAR0_BYTES)
		return EINVAL;
	k->dev->card->dev->ops->mmio_write(k->dev->card->dev, offset, data);
	return 0;
}

xrtBufferHandle xrtBOAlloc(xrtDeviceHandle dh, size_t size, xrtBufferFlags flags,
			   xrtMemoryGroup grp)
{
	struct fake_dev *d = dh;
	/* One host-only BO in the host bank, at most the card's host memory. */
	if (failing("alloc") || flags != XCL_BO_FLAGS_HOST_ONLY || grp != FAKE_GROUP || size == 0 ||
	    size > d->card->mem_size || d->bo_taken) {
		errno = ENOMEM;
		return NULL;
	}
	struct fake_bo *bo = calloc(1, sizeof(*bo));
	if (!bo)
		return NULL;
	bo->dev = d;
	bo->size = size;
	d->bo_taken = 1;
	note("bo alloc host-only %zu", size);
	return bo;
}

int xrtBOFree(xrtBufferHandle bh)
{
	struct fake_bo *bo = bh;
	bo->dev->bo_taken = 0;
	free(bo);
	return 0;
}

void *xrtBOMap(xrtBufferHandle bh)
{
	struct fake_bo *bo = bh;
	return failing("map") ? NULL : bo->dev->card->mem;
}

uint64_t xrtBOAddress(xrtBufferHandle bh)
{
	return ((struct fake_bo *)bh)->dev->card->iova;
}

int xrtBOSync(xrtBufferHandle bh, enum xclBOSyncDirection dir, size_t size, size_t offset)
{
	struct fake_bo *bo = bh;
	/* The card's memory is this process's: nothing to copy, the range is checked. */
	if (failing("sync") || offset > bo->size || size > bo->size - offset ||
	    (dir != XCL_BO_SYNC_BO_TO_DEVICE && dir != XCL_BO_SYNC_BO_FROM_DEVICE))
		return EINVAL;
	return 0;
}
