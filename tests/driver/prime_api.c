// SPDX-License-Identifier: MIT
/*
 * prime_api: libquire's dma-buf sharing (quire_buf_export, quire_buf_import) on a card
 * behind quire.ko, inside the QEMU guest (tests/driver/qemu_test.sh), through the kdrv
 * backend and its public API only. Linked to libquire.so like the quire CLI.
 *
 * Two contexts on the card: a buffer of context A filled with fp32 values and exported;
 * context B imports it, A frees its buffer, and the card encodes (bfp8) from the import
 * through B: the bits are those of quire_codec_encode on this CPU. Around it: the backend
 * says it can (QUIRE_BACKEND_CAP_DMABUF), a buffer imported back into its own context
 * shares its memory and outlives neither nor is outlived by the other's free, a buffer of
 * vgem (another DRM device, if loaded) imported by B and encoded from by the card, and a
 * file descriptor that is no dma-buf is refused.
 *
 * Prints "ok ..." or "FAIL ..." per check, then "prime api: N passed, N failed".
 * Usage: prime_api [URI]   (default "kdrv")
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "quire.h"
#include "tests/driver/guest_util.h"

#define N      1024u
#define BLOCKS (N / QUIRE_BFP_BLOCK)

static int passed, failed;

static int check(int cond, const char *what)
{
	printf("%s %s\n", cond ? "ok  " : "FAIL", what);
	if (cond)
		passed++;
	else
		failed++;
	return cond;
}

/* The card encodes n fp32 of src (a buffer of ctx) into new buffers: the bits of
 * quire_codec_encode on x? */
static int encodes_as_cpu(struct quire_ctx *ctx, struct quire_buf *src, const float *x,
			  const char *what)
{
	char msg[200];
	struct quire_buf *q = NULL, *e = NULL;
	if (quire_buf_alloc(ctx, N, &q) != QUIRE_OK || quire_buf_alloc(ctx, BLOCKS, &e) != QUIRE_OK)
		return check(0, "buffers for the encode");
	struct quire_op op = {.opcode = QUIRE_OPC_ENCODE,
			      .format = QUIRE_FMT_BFP8,
			      .count = N,
			      .src = {src, 0},
			      .dst = {q, 0},
			      .exp = {e, 0}};
	int st = quire_run(ctx, &op, NULL);
	int8_t want_q[N], want_e[BLOCKS];
	int gold = quire_codec_encode(QUIRE_FMT_BFP8, N, x, NULL, NULL, want_e, want_q);
	snprintf(msg, sizeof(msg), "%s (%s): the bits of quire_codec_encode", what,
		 quire_strerror(st));
	int good =
	    check(st == QUIRE_OK && gold == QUIRE_OK && memcmp(quire_buf_ptr(q), want_q, N) == 0 &&
		      memcmp(quire_buf_ptr(e), want_e, BLOCKS) == 0,
		  msg);
	quire_buf_free(q);
	quire_buf_free(e);
	return good;
}

/* A buffer of vgem filled with x, exported: the dma-buf fd, or -1 (no vgem: a note). */
static int vgem_buffer(const float *x, size_t bytes)
{
	char path[64];
	int v = open_drm("/dev/dri/card*", "vgem", path, sizeof(path));
	if (v < 0) {
		printf("note: no vgem node: libquire's import from another device not checked\n");
		return -1;
	}
	struct drm_mode_create_dumb cd;
	memset(&cd, 0, sizeof(cd));
	cd.width = (uint32_t)(bytes / 4);
	cd.height = 1;
	cd.bpp = 32;
	struct drm_mode_map_dumb md;
	memset(&md, 0, sizeof(md));
	struct drm_prime_handle ph;
	memset(&ph, 0, sizeof(ph));
	int fd = -1;
	if (gioctl(v, DRM_IOCTL_MODE_CREATE_DUMB, &cd) == 0) {
		md.handle = ph.handle = cd.handle;
		void *p = gioctl(v, DRM_IOCTL_MODE_MAP_DUMB, &md) == 0
			      ? mmap(NULL, cd.size, PROT_WRITE, MAP_SHARED, v, (off_t)md.offset)
			      : MAP_FAILED;
		if (p != MAP_FAILED) {
			memcpy(p, x, bytes);
			munmap(p, cd.size);
			ph.flags = DRM_CLOEXEC | DRM_RDWR;
			if (gioctl(v, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph) == 0)
				fd = ph.fd;
		}
	}
	check(fd >= 0, "a buffer of vgem, filled and exported");
	close(v); /* the dma-buf holds vgem's object */
	return fd;
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "kdrv";
	char msg[200];
	struct quire_ctx *a = NULL, *b = NULL;
	int st = quire_open(uri, &a);
	if (st == QUIRE_OK)
		st = quire_open(uri, &b);
	snprintf(msg, sizeof(msg), "two contexts on %s: %s", uri, quire_strerror(st));
	if (!check(st == QUIRE_OK, msg))
		goto out;
	check(quire_backend_caps(a) & QUIRE_BACKEND_CAP_DMABUF,
	      "the backend shares buffers as dma-bufs (QUIRE_BACKEND_CAP_DMABUF)");

	static float x[N];
	uint32_t r = 7;
	for (uint32_t i = 0; i < N; i++) {
		r = r * 1664525u + 1013904223u;
		x[i] = ldexpf((float)(r >> 8) / 8388608.0f - 1.0f, (int)(i / 64) - 8);
	}
	struct quire_buf *xa = NULL, *xb = NULL, *back = NULL;
	int fd = -1;
	st = quire_buf_alloc(a, sizeof(x), &xa);
	if (!check(st == QUIRE_OK, "a buffer in context A"))
		goto out;
	memcpy(quire_buf_ptr(xa), x, sizeof(x));
	st = quire_buf_export(xa, &fd);
	snprintf(msg, sizeof(msg), "quire_buf_export: %s, fd %d", quire_strerror(st), fd);
	if (!check(st == QUIRE_OK && fd >= 0, msg))
		goto out;

	/* Back into A: the same memory, and freeing one leaves the other alone. */
	st = quire_buf_import(a, fd, &back);
	check(st == QUIRE_OK && quire_buf_ptr(back) == quire_buf_ptr(xa),
	      "imported back into A: the same mapping");
	quire_buf_free(back);
	check(memcmp(quire_buf_ptr(xa), x, sizeof(x)) == 0,
	      "A's buffer still there after the import's free");

	st = quire_buf_import(b, fd, &xb);
	close(fd); /* B holds its own reference */
	snprintf(msg, sizeof(msg), "quire_buf_import into B: %s, %zu bytes", quire_strerror(st),
		 quire_buf_size(xb));
	if (!check(st == QUIRE_OK && quire_buf_size(xb) == sizeof(x), msg))
		goto out;
	quire_buf_free(xa); /* from here only B's import holds the memory */
	check(memcmp(quire_buf_ptr(xb), x, sizeof(x)) == 0, "B reads what A wrote");

	encodes_as_cpu(b, xb, x, "the card encodes from the import");

	/* From another device: vgem's buffer, through libquire. */
	fd = vgem_buffer(x, sizeof(x));
	if (fd >= 0) {
		struct quire_buf *xv = NULL;
		st = quire_buf_import(b, fd, &xv);
		close(fd);
		snprintf(msg, sizeof(msg), "vgem's dma-buf imported into B: %s, %zu bytes, mapped",
			 quire_strerror(st), quire_buf_size(xv));
		if (check(st == QUIRE_OK && memcmp(quire_buf_ptr(xv), x, sizeof(x)) == 0, msg))
			encodes_as_cpu(b, xv, x, "the card encodes from vgem's buffer");
		quire_buf_free(xv);
	}

	int nul = open("/dev/null", O_RDWR);
	struct quire_buf *bad = NULL;
	st = quire_buf_import(b, nul, &bad);
	snprintf(msg, sizeof(msg), "importing /dev/null: %s", quire_strerror(st));
	check(st == QUIRE_ERR_INVALID && bad == NULL, msg);
	close(nul);
out:
	quire_close(a);
	quire_close(b);
	printf("prime api: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
