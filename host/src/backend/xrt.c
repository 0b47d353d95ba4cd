// SPDX-License-Identifier: MIT
/*
 * The xrt backend: a card in a Xilinx shell (Alveo, AWS F1), reached through XRT's C API
 * instead of quire's own driver. XRT gives three things, and the ring driver of sim.c
 * does the rest, so the command protocol is the one every card backend speaks:
 *  - register access: the card's register blocks (include/quire/regs.h) are the control
 *    registers of one kernel of the xclbin (its name in the board's [xrt] table), read and
 *    written with xrtKernelReadRegister / xrtKernelWriteRegister;
 *  - host memory the card reaches: one host-only buffer object (XCL_BO_FLAGS_HOST_ONLY in
 *    the memory bank of that kernel's argument 0), mapped here, its device address the
 *    base of the rings' and buffers' DMA addresses, synced before each doorbell and before
 *    completions are read;
 *  - the image: the xclbin named by $QUIRE_XCLBIN, whose platform names the board
 *    (boards/, <quire/boards.h>) and whose UUID must be the one pinned for that
 *    board ([xrt] xclbin_uuid, or $QUIRE_XRT_UUID), is loaded onto the device.
 *
 * XRT is loaded with dlopen ($QUIRE_XRT_LIB, else libxrt_coreutil.so.2) when a context
 * asks for xrt; libquire itself does not need it. XRT 2.13 ends the process (an uncaught
 * exception) from xrtDeviceOpen unless $XILINX_XRT/lib/libxrt_core.so.2 loads, so that is
 * checked before any call into XRT: a machine without a usable XRT or card gets
 * QUIRE_ERR_NO_DEVICE. There are no interrupts here: waits poll in short sleeps.
 *
 * Never run against a card: written to XRT 2.13's headers, tested against a fake XRT
 * (tests/xrt/) whose device is the card model.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <experimental/xrt_xclbin.h>
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include "host/src/backend/transport.h"
#include "host/src/backend/xrt.h"
#include "host/src/core/core.h"
#include "quire/boards.h"
#include "quire/regs.h"

#define XRT_LIB      "libxrt_coreutil.so.2"
#define XRT_CORE_LIB "lib/libxrt_core.so.2" /* under $XILINX_XRT, as XRT 2.13 loads it */
#define XRT_HOST_MB  256u                   /* host memory of a context ($QUIRE_XRT_HOST_MB) */
#define XRT_POLL_US  200                    /* a wait's sleep between looks */
#define XRT_HOST_ARG 0                      /* the kernel argument bound to host memory */
#define XRT_XSA_MAX  128

/* The XRT functions used, found by dlsym; their types are the headers'. */
static struct {
	__typeof__(xrtDeviceOpen) *device_open;
	__typeof__(xrtDeviceOpenByBDF) *device_open_bdf;
	__typeof__(xrtDeviceClose) *device_close;
	__typeof__(xrtDeviceLoadXclbinHandle) *load_xclbin;
	__typeof__(xrtXclbinAllocFilename) *xclbin_alloc;
	__typeof__(xrtXclbinFreeHandle) *xclbin_free;
	__typeof__(xrtXclbinGetXSAName) *xclbin_xsa;
	__typeof__(xrtXclbinGetUUID) *xclbin_uuid;
	__typeof__(xrtPLKernelOpenExclusive) *kernel_open;
	__typeof__(xrtKernelClose) *kernel_close;
	__typeof__(xrtKernelArgGroupId) *kernel_group;
	__typeof__(xrtKernelReadRegister) *reg_read;
	__typeof__(xrtKernelWriteRegister) *reg_write;
	__typeof__(xrtBOAlloc) *bo_alloc;
	__typeof__(xrtBOFree) *bo_free;
	__typeof__(xrtBOMap) *bo_map;
	__typeof__(xrtBOSync) *bo_sync;
	__typeof__(xrtBOAddress) *bo_address;
	int loaded;
} x;
static pthread_once_t x_once = PTHREAD_ONCE_INIT;

static void xrt_load(void)
{
	const char *path = getenv("QUIRE_XRT_LIB");
	/* Kept loaded for the life of the process: XRT's own state lives as long. */
	void *lib = dlopen(path && *path ? path : XRT_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return;
	static const struct {
		const char *name;
		size_t field;
	} syms[] = {
	    {"xrtDeviceOpen", offsetof(__typeof__(x), device_open)},
	    {"xrtDeviceOpenByBDF", offsetof(__typeof__(x), device_open_bdf)},
	    {"xrtDeviceClose", offsetof(__typeof__(x), device_close)},
	    {"xrtDeviceLoadXclbinHandle", offsetof(__typeof__(x), load_xclbin)},
	    {"xrtXclbinAllocFilename", offsetof(__typeof__(x), xclbin_alloc)},
	    {"xrtXclbinFreeHandle", offsetof(__typeof__(x), xclbin_free)},
	    {"xrtXclbinGetXSAName", offsetof(__typeof__(x), xclbin_xsa)},
	    {"xrtXclbinGetUUID", offsetof(__typeof__(x), xclbin_uuid)},
	    {"xrtPLKernelOpenExclusive", offsetof(__typeof__(x), kernel_open)},
	    {"xrtKernelClose", offsetof(__typeof__(x), kernel_close)},
	    {"xrtKernelArgGroupId", offsetof(__typeof__(x), kernel_group)},
	    {"xrtKernelReadRegister", offsetof(__typeof__(x), reg_read)},
	    {"xrtKernelWriteRegister", offsetof(__typeof__(x), reg_write)},
	    {"xrtBOAlloc", offsetof(__typeof__(x), bo_alloc)},
	    {"xrtBOFree", offsetof(__typeof__(x), bo_free)},
	    {"xrtBOMap", offsetof(__typeof__(x), bo_map)},
	    {"xrtBOSync", offsetof(__typeof__(x), bo_sync)},
	    {"xrtBOAddress", offsetof(__typeof__(x), bo_address)},
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(lib, syms[i].name);
		if (!f)
			return; /* not an XRT this backend can use: x.loaded stays 0 */
		memcpy((char *)&x + syms[i].field, &f, sizeof(f));
	}
	x.loaded = 1;
}

/* ---- URIs, and the environment XRT needs ---- */

int xrt_parse_where(const char *arg, struct xrt_where *w)
{
	memset(w, 0, sizeof(*w));
	if (!arg)
		return QUIRE_OK;
	size_t n = strlen(arg);
	if (n > 0 && n <= 4 && strspn(arg, "0123456789") == n) {
		w->index = (unsigned)strtoul(arg, NULL, 10);
		return QUIRE_OK;
	}
	/* DDDD:BB:DD.F: 4, 2, 2 and 1 hex digits, the device below 0x20, the function below 8. */
	unsigned dom, bus, dev, fn;
	char tail;
	if (n != 12 || strspn(arg, "0123456789abcdefABCDEF:.") != n || arg[4] != ':' ||
	    arg[7] != ':' || arg[10] != '.' ||
	    sscanf(arg, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail) != 4 || dev > 0x1f ||
	    fn > 7)
		return QUIRE_ERR_INVALID;
	w->by_bdf = 1;
	snprintf(w->bdf, sizeof(w->bdf), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return QUIRE_OK;
}

int xrt_check_root(const char *xilinx_xrt)
{
	if (!xilinx_xrt || !*xilinx_xrt)
		return QUIRE_ERR_NO_DEVICE;
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof(path), "%s/" XRT_CORE_LIB, xilinx_xrt) >= sizeof(path))
		return QUIRE_ERR_NO_DEVICE;
	/* Loaded as XRT would load it: what fails here would end the process there. It stays
	 * loaded, as XRT keeps it. */
	return dlopen(path, RTLD_NOW | RTLD_LOCAL) ? QUIRE_OK : QUIRE_ERR_NO_DEVICE;
}

/* "8-4-4-4-12" lower-case hex, as the boards spell it, from 16 bytes; and back. */
static void uuid_format(const unsigned char u[16], char out[37])
{
	char *p = out;
	for (int i = 0; i < 16; i++) {
		p += sprintf(p, "%02x", u[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*p++ = '-';
	}
	*p = '\0';
}

/* ---- the card behind XRT, as a transport for the ring driver ---- */

struct xdev {
	struct transport t;
	struct quire_device qdev;
	xrtDeviceHandle dev;
	xrtKernelHandle kernel;
	xrtBufferHandle bo;
	int gone; /* a register access or a sync failed: the card counts as gone */
};

static struct xdev *of_dev(struct quire_device *d)
{
	return (struct xdev *)((char *)d - offsetof(struct xdev, qdev));
}

static uint32_t xdev_read(struct quire_device *d, uint32_t off)
{
	struct xdev *c = of_dev(d);
	uint32_t v = 0;
	if (c->gone || x.reg_read(c->kernel, off, &v) != 0) {
		c->gone = 1;
		return 0xffffffffu; /* what a read of a missing PCI device returns */
	}
	return v;
}

static void xdev_write(struct quire_device *d, uint32_t off, uint32_t v)
{
	struct xdev *c = of_dev(d);
	if (!c->gone && x.reg_write(c->kernel, off, v) != 0)
		c->gone = 1;
}

/* The ring driver reaches the card through mmio_read and mmio_write only. */
static const struct quire_device_ops xdev_ops = {
    .mmio_read = xdev_read,
    .mmio_write = xdev_write,
};

static int xdev_wait(struct transport *t, int timeout_ms)
{
	struct xdev *c = (struct xdev *)t;
	if (c->gone)
		return QUIRE_ERR_PEER;
	if (timeout_ms == 0)
		return QUIRE_ERR_TIMEOUT;
	/* No interrupt to wait for: a short sleep, then the caller looks again. */
	long us =
	    timeout_ms > 0 && timeout_ms * 1000L < XRT_POLL_US ? timeout_ms * 1000L : XRT_POLL_US;
	struct timespec ts = {0, us * 1000};
	nanosleep(&ts, NULL);
	return QUIRE_OK;
}

static int xdev_state(struct transport *t)
{
	return ((struct xdev *)t)->gone ? QUIRE_ERR_PEER : QUIRE_OK;
}

static void xdev_revive(struct transport *t)
{
	(void)t; /* XRT's register calls never time out: nothing is hung here */
}

static int xdev_sync(struct transport *t, int to_card)
{
	struct xdev *c = (struct xdev *)t;
	if (!c->gone &&
	    x.bo_sync(c->bo, to_card ? XCL_BO_SYNC_BO_TO_DEVICE : XCL_BO_SYNC_BO_FROM_DEVICE,
		      t->mem_size, 0) != 0)
		c->gone = 1;
	return c->gone ? QUIRE_ERR_IO : QUIRE_OK;
}

static void xdev_close(struct transport *t)
{
	struct xdev *c = (struct xdev *)t;
	if (c->bo)
		x.bo_free(c->bo);
	if (c->kernel)
		x.kernel_close(c->kernel);
	if (c->dev)
		x.device_close(c->dev);
	free(c);
}

static size_t host_bytes(void)
{
	const char *v = getenv("QUIRE_XRT_HOST_MB");
	char *end;
	unsigned long mb = v && *v ? strtoul(v, &end, 10) : 0;
	if (!v || !*v || *end || mb == 0 || mb > 65536)
		mb = XRT_HOST_MB;
	return (size_t)mb << 20;
}

/*
 * The xclbin of $QUIRE_XCLBIN: its board (by platform), its UUID checked against the one
 * pinned for that board (or $QUIRE_XRT_UUID), loaded onto the device. *kernel: the board's.
 */
static int load_image(struct xdev *c, unsigned char uuid[16], const char **kernel)
{
	const char *path = getenv("QUIRE_XCLBIN");
	if (!path || !*path)
		return QUIRE_ERR_INVALID; /* no image named */
	xrtXclbinHandle xb = x.xclbin_alloc(path);
	if (!xb)
		return QUIRE_ERR_CORRUPT; /* unreadable, or not an xclbin */
	char xsa[XRT_XSA_MAX] = "";
	int len = 0, st = QUIRE_OK;
	if (x.xclbin_xsa(xb, xsa, (int)sizeof(xsa) - 1, &len) != 0 || x.xclbin_uuid(xb, uuid) != 0)
		st = QUIRE_ERR_CORRUPT;
	const struct quire_board_desc *board = NULL;
	for (unsigned i = 0; st == QUIRE_OK && i < QUIRE_BOARD_COUNT; i++)
		if (quire_boards[i].xrt_kernel && strcmp(quire_boards[i].platform, xsa) == 0)
			board = &quire_boards[i];
	if (st == QUIRE_OK && !board)
		st = QUIRE_ERR_NO_DEVICE; /* built for a platform none of boards/ reaches by XRT */
	if (st == QUIRE_OK) {
		const char *want = getenv("QUIRE_XRT_UUID");
		if (!want || !*want)
			want = board->xrt_xclbin_uuid;
		char have[37];
		uuid_format(uuid, have);
		/* None pinned (no image was ever built for the board) or another: refused. */
		if (!want || strcasecmp(want, have) != 0)
			st = QUIRE_ERR_VERSION;
	}
	if (st == QUIRE_OK && x.load_xclbin(c->dev, xb) != 0)
		st = QUIRE_ERR_IO;
	x.xclbin_free(xb);
	*kernel = board ? board->xrt_kernel : NULL;
	return st;
}

int quire_backend_xrt_open(struct quire_ctx *ctx, const char *arg)
{
	struct xrt_where w;
	int st = xrt_parse_where(arg, &w);
	if (st != QUIRE_OK)
		return st;
	pthread_once(&x_once, xrt_load);
	if (!x.loaded)
		return QUIRE_ERR_NO_DEVICE; /* no XRT here: no XRT device either */
	if (xrt_check_root(getenv("XILINX_XRT")) != QUIRE_OK)
		return QUIRE_ERR_NO_DEVICE; /* XRT would abort: it cannot reach a card here */
	struct xdev *c = calloc(1, sizeof(*c));
	if (!c)
		return QUIRE_ERR_NOMEM;
	c->qdev.ops = &xdev_ops;
	c->t.dev = &c->qdev;
	c->t.wait_irq = xdev_wait;
	c->t.state = xdev_state;
	c->t.revive = xdev_revive;
	c->t.close = xdev_close;
	c->t.sync = xdev_sync;
	c->dev = w.by_bdf ? x.device_open_bdf(w.bdf) : x.device_open(w.index);
	if (!c->dev) {
		free(c);
		return QUIRE_ERR_NO_DEVICE;
	}
	unsigned char uuid[16];
	const char *kernel = NULL;
	st = load_image(c, uuid, &kernel);
	if (st == QUIRE_OK) {
		c->kernel = x.kernel_open(c->dev, uuid, kernel);
		if (!c->kernel)
			st = QUIRE_ERR_NO_DEVICE; /* the image has no such kernel */
	}
	if (st == QUIRE_OK) {
		int group = x.kernel_group(c->kernel, XRT_HOST_ARG);
		c->t.mem_size = host_bytes();
		c->bo = group < 0 ? NULL
				  : x.bo_alloc(c->dev, c->t.mem_size, XCL_BO_FLAGS_HOST_ONLY,
					       (xrtMemoryGroup)group);
		c->t.mem = c->bo ? x.bo_map(c->bo) : NULL;
		if (!c->t.mem)
			st = QUIRE_ERR_NOMEM;
		else
			c->t.iova = x.bo_address(c->bo);
	}
	if (st != QUIRE_OK) {
		xdev_close(&c->t);
		return st;
	}
	/* The ring driver probes the card through c and takes it (closes it on error). */
	return quire_ring_attach(ctx, &c->t, "xrt");
}
