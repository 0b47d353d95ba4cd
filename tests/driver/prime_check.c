// SPDX-License-Identifier: MIT
/*
 * prime_check: quire.ko's buffers shared as dma-bufs (DRM PRIME), inside the QEMU guest
 * (tests/driver/qemu_test.sh; built static for its initramfs), with raw ioctls.
 *
 * 1. Between two files of the card (two contexts): a buffer object of file A, filled with
 *    fp32 values, exported; file A closes its handle; file B imports the dma-buf and the
 *    card encodes (bfp8) from it: the values and exponents are those of hls/ (the golden
 *    model) on the same input.
 * 2. From another device: a buffer of vgem (the kernel's virtual GEM driver, a different
 *    DRM device) exported, imported by file B, encoded from by the card, and a buffer of
 *    vgem the card decodes into: the card reads and writes through the scatter list vgem
 *    mapped for it. Skipped, with a note, without vgem.
 * 2b. An MLP model loaded from a buffer of vgem (the driver copies it through vgem's
 *    mapping) scores a golden case of tests/data/mlp_golden as the Python reference did.
 * 2c. A vgem buffer whose pages are not physically contiguous (the guest has no IOMMU):
 *    a descriptor whose span crosses a gap completes with QUIRE_ERR_RANGE naming the
 *    buffer (the card takes one address per buffer); spans over adjacent pages run and
 *    give the bits of hls/.
 * 3. What must be refused: a handle that names nothing, bad flags, an fd that is no dma-buf
 *    or no fd.
 * Then every file is closed and the driver's counts (debugfs quire_objects) are back where
 * they were.
 *
 * Prints "ok ..." or "FAIL ..." per check, then "prime: N passed, N failed".
 * Usage: prime_check [MODEL.qmlp MODEL.vec]   (a golden MLP case: the model loaded from
 * a buffer of vgem, step 2b)
 */
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/driver/guest_util.h"
#include "hls/quant.h"
#include "quire/cmd.h"
#include "quire/format.h"
#include "quire/status.h"

#define N      1024u /* fp32 elements: one 4 KiB page, contiguous for the card without an IOMMU */
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

static int import_fd(int fd, int dmabuf, uint32_t *handle)
{
	struct drm_prime_handle ph;
	memset(&ph, 0, sizeof(ph));
	ph.fd = dmabuf;
	int ret = gioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph);
	*handle = ph.handle;
	return ret;
}

static void fill(float *x, uint32_t seed)
{
	uint32_t r = seed;
	for (uint32_t i = 0; i < N; i++) {
		r = r * 1664525u + 1013904223u;
		/* Blocks of different magnitudes, signs, and a zero block. */
		float m = ldexpf(1.0f, (int)(i / QUIRE_BFP_BLOCK) * 3 - 20);
		x[i] = i / QUIRE_BFP_BLOCK == 5 ? 0.0f : m * ((float)(r >> 8) / 8388608.0f - 1.0f);
	}
}

/* The descriptor of an ENCODE bfp8 of count fp32 at offset off of handle src into q and e. */
static void encode_desc(struct drm_quire_submit *s, uint32_t src, uint64_t off, uint32_t count,
			uint32_t q, uint32_t e)
{
	memset(s, 0, sizeof(*s));
	s->opcode = QUIRE_OPC_ENCODE;
	s->format = QUIRE_FMT_BFP8;
	s->count = count;
	s->bufs[QUIRE_DRM_BUF_SRC].handle = src;
	s->bufs[QUIRE_DRM_BUF_SRC].offset = off;
	s->bufs[QUIRE_DRM_BUF_DST].handle = q;
	s->bufs[QUIRE_DRM_BUF_EXP].handle = e;
}

/* Whether objects q and e of fd hold the bfp8 values and exponents hls/ gives for x[count]. */
static int encoded_as_hls(int fd, uint32_t q, uint32_t e, const float *x, uint32_t count)
{
	enum { MOST = 2 * N };
	static int8_t want_q[MOST];
	int8_t want_e[MOST / QUIRE_BFP_BLOCK];
	uint32_t blocks = (count + QUIRE_BFP_BLOCK - 1) / QUIRE_BFP_BLOCK;
	if (count > MOST)
		return 0;
	quire_quant_exponents(count, 0, x, NULL, want_e);
	int gold = quire_quant_encode(QUIRE_FMT_BFP8, count, 0, x, NULL, want_e, (uint8_t *)want_q);
	uint64_t qs = 0, es = 0;
	int8_t *qp = guest_bo_map(fd, q, &qs), *ep = guest_bo_map(fd, e, &es);
	int same = gold == QUIRE_OK && qp && ep && memcmp(qp, want_q, count) == 0 &&
		   memcmp(ep, want_e, blocks) == 0;
	if (qp)
		munmap(qp, qs);
	if (ep)
		munmap(ep, es);
	return same;
}

/* ENCODE bfp8 of N fp32 at (src_fd's handle src) into fresh objects of fd; compared with hls/. */
static void encode_from(int fd, uint32_t src, const float *x, const char *what)
{
	uint32_t q, e;
	char msg[160];
	if (guest_bo_create(fd, N, &q) || guest_bo_create(fd, BLOCKS, &e)) {
		check(0, "BO_CREATE for the encode's outputs");
		return;
	}
	struct drm_quire_submit s;
	encode_desc(&s, src, 0, N, q, e);
	int st = guest_run(fd, &s);
	snprintf(msg, sizeof(msg), "%s: the card's ENCODE completes with status %d", what, st);
	check(st == QUIRE_OK, msg);
	snprintf(msg, sizeof(msg), "%s: %u bfp8 values and %u exponents as hls/ gives", what, N,
		 BLOCKS);
	check(st == QUIRE_OK && encoded_as_hls(fd, q, e, x, N), msg);
	guest_gem_close(fd, q);
	guest_gem_close(fd, e);
}

/* 1: file A's buffer, exported, imported by file B, read by the card through B. */
static void between_files(const char *node)
{
	int a = open(node, O_RDWR | O_CLOEXEC), b = open(node, O_RDWR | O_CLOEXEC);
	uint32_t ha, hb;
	uint64_t size;
	static float x[N];
	fill(x, 1);
	check(a >= 0 && b >= 0 && guest_bo_create(a, 4 * N, &ha) == 0,
	      "two files, a buffer object in A");
	float *pa = guest_bo_map(a, ha, &size);
	check(pa != NULL, "A maps it");
	if (!pa)
		return;
	memcpy(pa, x, sizeof(x));
	munmap(pa, size);
	int dmabuf;
	check(guest_export_fd(a, ha, &dmabuf) == 0, "A exports it (PRIME_HANDLE_TO_FD)");
	off_t bytes = lseek(dmabuf, 0, SEEK_END);
	check(bytes == 4 * N, "the dma-buf's size is the object's");
	uint32_t again;
	check(import_fd(a, dmabuf, &again) == 0 && again == ha,
	      "imported back into A: A's own handle");
	check(import_fd(b, dmabuf, &hb) == 0 && hb != 0, "B imports it (PRIME_FD_TO_HANDLE)");
	/* From here only B's handle holds the object. */
	close(dmabuf);
	guest_gem_close(a, ha);
	float *pb = guest_bo_map(b, hb, &size);
	check(pb && size == 4 * N && memcmp(pb, x, sizeof(x)) == 0,
	      "B maps the import and reads what A wrote");
	if (pb)
		munmap(pb, size);
	encode_from(b, hb, x, "A's buffer imported by B");
	guest_gem_close(b, hb);
	close(a);
	close(b);
}

/* 2: a buffer of another DRM device (vgem), read and written by the card. */
static void from_vgem(const char *node)
{
	char vpath[64];
	int v = open_drm("/dev/dri/card*", "vgem", vpath, sizeof(vpath));
	if (v < 0) {
		printf("note: no vgem node: the import from another device is not checked\n");
		return;
	}
	int b = open(node, O_RDWR | O_CLOEXEC);
	char msg[160];
	static float x[N];
	fill(x, 2);
	struct drm_mode_create_dumb cd;
	memset(&cd, 0, sizeof(cd));
	cd.width = N;
	cd.height = 1;
	cd.bpp = 32;
	int ret = gioctl(v, DRM_IOCTL_MODE_CREATE_DUMB, &cd);
	snprintf(msg, sizeof(msg), "vgem (%s): a 4 KiB buffer (CREATE_DUMB: %s)", vpath,
		 ret ? strerror(-ret) : "ok");
	check(ret == 0, msg);
	if (ret)
		return;
	struct drm_mode_map_dumb md;
	memset(&md, 0, sizeof(md));
	md.handle = cd.handle;
	float *vp = MAP_FAILED;
	if (gioctl(v, DRM_IOCTL_MODE_MAP_DUMB, &md) == 0)
		vp = mmap(NULL, cd.size, PROT_READ | PROT_WRITE, MAP_SHARED, v, (off_t)md.offset);
	check(vp != MAP_FAILED, "vgem maps it");
	if (vp == MAP_FAILED)
		return;
	memcpy(vp, x, sizeof(x));
	int dmabuf;
	uint32_t hv;
	check(guest_export_fd(v, cd.handle, &dmabuf) == 0, "vgem exports it");
	struct quire_objects o0, o1;
	read_objects(node, &o0);
	check(import_fd(b, dmabuf, &hv) == 0, "quire imports vgem's dma-buf");
	read_objects(node, &o1);
	check(o1.bos == o0.bos + 1, "the import is a buffer object of quire's (debugfs bos + 1)");
	close(dmabuf);
	encode_from(b, hv, x, "vgem's buffer imported by quire");

	/* And the card writes into vgem's memory: DECODE of what it encoded, into the import. */
	uint32_t q, e;
	uint64_t qs, es;
	int8_t want_e[BLOCKS];
	static int8_t want_q[N];
	static float want_y[N];
	quire_quant_exponents(N, 0, x, NULL, want_e);
	quire_quant_encode(QUIRE_FMT_BFP8, N, 0, x, NULL, want_e, (uint8_t *)want_q);
	quire_quant_decode(QUIRE_FMT_BFP8, QUIRE_FMT_INT8, N, 0, (const uint8_t *)want_q, want_e,
			   want_y);
	guest_bo_create(b, N, &q);
	guest_bo_create(b, BLOCKS, &e);
	int8_t *qp = guest_bo_map(b, q, &qs), *ep = guest_bo_map(b, e, &es);
	if (qp && ep) {
		memcpy(qp, want_q, N);
		memcpy(ep, want_e, BLOCKS);
	}
	memset(vp, 0xff, 4 * N);
	struct drm_quire_submit s;
	memset(&s, 0, sizeof(s));
	s.opcode = QUIRE_OPC_DECODE;
	s.format = QUIRE_FMT_BFP8;
	s.val_format = QUIRE_FMT_INT8;
	s.count = N;
	s.bufs[QUIRE_DRM_BUF_SRC].handle = q;
	s.bufs[QUIRE_DRM_BUF_EXP].handle = e;
	s.bufs[QUIRE_DRM_BUF_DST].handle = hv;
	int st = guest_run(b, &s);
	snprintf(msg, sizeof(msg),
		 "the card's DECODE into vgem's buffer: status %d, vgem's mapping has hls/'s "
		 "%u fp32",
		 st, N);
	check(qp && ep && st == QUIRE_OK && memcmp(vp, want_y, sizeof(want_y)) == 0, msg);
	if (qp)
		munmap(qp, qs);
	if (ep)
		munmap(ep, es);
	guest_gem_close(b, q);
	guest_gem_close(b, e);
	guest_gem_close(b, hv);
	munmap(vp, cd.size);
	struct drm_mode_destroy_dumb dd = {.handle = cd.handle};
	(void)gioctl(v, DRM_IOCTL_MODE_DESTROY_DUMB, &dd);
	close(b);
	close(v);
}

/*
 * 2c: a vgem buffer in pieces. Its shmem pages come from the allocator's per-CPU lists,
 * last freed first: every other page of an anonymous mapping freed just before, on the
 * same CPU, makes them non-adjacent. Where the gaps are is not visible from here (vgem
 * maps its pages as PFNMAP, which /proc/self/pagemap does not show), so each pair of
 * neighbouring pages is tried: the card runs an ENCODE over two adjacent pages (its
 * output is then hls/'s), and one over a gap completes with QUIRE_ERR_RANGE naming src.
 * The allocator owes us no gap (another task may take the freed pages first), so a try
 * that finds none is repeated on a fresh buffer, up to PIECES_TRIES times; every try
 * must give only those two answers.
 */
enum { PIECES_PAGES = 16, PIECES_TRIES = 6 };

struct pieces {
	int gaps, joins, other;
	char first_other[96]; /* what the first other answer was */
};

/* One ENCODE of pages i and i + 1 of vgem buffer hv (values vp) into q and e of file b. */
static void pieces_pair(int b, uint32_t hv, const float *vp, uint32_t q, uint32_t e, int i,
			struct pieces *p)
{
	struct drm_quire_submit s;
	encode_desc(&s, hv, (uint64_t)i * 4096, 2 * 1024, q, e);
	struct drm_quire_wait w;
	memset(&w, 0, sizeof(w));
	int st = gioctl(b, DRM_IOCTL_QUIRE_SUBMIT, &s);
	w.seqno = s.seqno;
	w.timeout_ns = 10ull * 1000 * 1000 * 1000;
	if (st == 0)
		st = gioctl(b, DRM_IOCTL_QUIRE_WAIT, &w);
	if (st == 0 && w.status == QUIRE_ERR_RANGE && w.detail == QUIRE_DETAIL_SRC)
		p->gaps++;
	/* It ran: the card read the two pages it was given, not whatever lies after the first. */
	else if (st == 0 && w.status == QUIRE_OK &&
		 encoded_as_hls(b, q, e, vp + i * 1024, 2 * 1024))
		p->joins++;
	else if (p->other++ == 0)
		snprintf(p->first_other, sizeof(p->first_other),
			 "pages %d and %d: ioctl %d, status %d, detail %d%s", i, i + 1, st,
			 (int)w.status, (int)w.detail,
			 st == 0 && w.status == QUIRE_OK ? ", bits not hls/'s" : "");
}

/* One try on a fresh 64 KiB vgem buffer of device v, imported by file b, its answers added
 * to p: 0, or -1 when the buffer could not be made (a FAIL line says so). */
static int pieces_try(int v, int b, struct pieces *p)
{
	enum { SCRATCH = 4 * PIECES_PAGES };
	int ret = -1;
	uint8_t *scratch =
	    mmap(NULL, SCRATCH * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (scratch != MAP_FAILED) {
		madvise(scratch, SCRATCH * 4096, MADV_NOHUGEPAGE);
		memset(scratch, 1, SCRATCH * 4096);
		for (int i = 0; i < SCRATCH; i += 2)
			munmap(scratch + i * 4096, 4096);
	}
	struct drm_mode_create_dumb cd;
	memset(&cd, 0, sizeof(cd));
	cd.width = PIECES_PAGES * 1024;
	cd.height = 1;
	cd.bpp = 32;
	struct drm_mode_map_dumb md;
	memset(&md, 0, sizeof(md));
	float *vp = MAP_FAILED;
	if (gioctl(v, DRM_IOCTL_MODE_CREATE_DUMB, &cd) == 0) {
		md.handle = cd.handle;
		if (gioctl(v, DRM_IOCTL_MODE_MAP_DUMB, &md) == 0)
			vp = mmap(NULL, cd.size, PROT_READ | PROT_WRITE, MAP_SHARED, v,
				  (off_t)md.offset);
	}
	int dmabuf;
	uint32_t hv = 0, q = 0, e = 0;
	if (!(vp != MAP_FAILED && cd.size == PIECES_PAGES * 4096 &&
	      guest_export_fd(v, cd.handle, &dmabuf) == 0)) {
		check(0, "vgem: a 64 KiB buffer, mapped and exported");
		goto out;
	}
	for (unsigned i = 0; i < PIECES_PAGES * 1024; i++)
		vp[i] = (float)(i % 251) - 125.0f;
	int imported = import_fd(b, dmabuf, &hv) == 0;
	close(dmabuf);
	if (!(imported && guest_bo_create(b, 2 * 1024, &q) == 0 &&
	      guest_bo_create(b, 2 * 1024 / QUIRE_BFP_BLOCK, &e) == 0)) {
		check(0, "quire imports vgem's 64 KiB buffer");
		goto out;
	}
	for (int i = 0; i + 1 < PIECES_PAGES; i++)
		pieces_pair(b, hv, vp, q, e, i, p);
	ret = 0;
out:
	if (q)
		guest_gem_close(b, q);
	if (e)
		guest_gem_close(b, e);
	if (hv)
		guest_gem_close(b, hv);
	if (vp != MAP_FAILED)
		munmap(vp, cd.size);
	if (cd.handle) {
		struct drm_mode_destroy_dumb dd = {.handle = cd.handle};
		(void)gioctl(v, DRM_IOCTL_MODE_DESTROY_DUMB, &dd);
	}
	if (scratch != MAP_FAILED)
		munmap(scratch, SCRATCH * 4096);
	return ret;
}

static void vgem_in_pieces(const char *node)
{
	char vpath[64], msg[360];
	int v = open_drm("/dev/dri/card*", "vgem", vpath, sizeof(vpath));
	if (v < 0)
		return; /* from_vgem said so */
	int b = open(node, O_RDWR | O_CLOEXEC);
	/* The pages freed and the pages vgem takes must be on one CPU's list (the guest has 2). */
	cpu_set_t one, all;
	int pinned = sched_getaffinity(0, sizeof(all), &all) == 0;
	if (pinned) {
		int cpu = sched_getcpu();
		CPU_ZERO(&one);
		CPU_SET(cpu < 0 ? 0 : cpu, &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	struct pieces total;
	memset(&total, 0, sizeof(total));
	int tries = 0;
	while (tries < PIECES_TRIES && total.gaps == 0 && total.other == 0 &&
	       pieces_try(v, b, &total) == 0)
		tries++;
	if (pinned)
		sched_setaffinity(0, sizeof(all), &all);
	if (tries > 0) {
		snprintf(msg, sizeof(msg),
			 "ENCODE over each pair of neighbouring pages of a vgem buffer (%d "
			 "buffer%s%s): %d gaps refused (QUIRE_ERR_RANGE, detail src), %d run as "
			 "hls/ gives, %d other answers%s%s",
			 tries, tries == 1 ? "" : "s", pinned ? ", pinned to one CPU" : "",
			 total.gaps, total.joins, total.other, total.other ? ", the first " : "",
			 total.first_other);
		check(total.gaps > 0 && total.other == 0, msg);
	}
	close(b);
	close(v);
}

/* A whole file (at most max bytes) into buf: its length, or 0. */
static size_t slurp(const char *path, void *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, max, f) : 0;
	if (f)
		fclose(f);
	return n;
}

/* A quire buffer object of fd holding bytes of data (mapped, written, unmapped); 0 on error. */
static uint32_t bo_with(int fd, const void *data, size_t bytes)
{
	uint32_t h;
	uint64_t size;
	if (guest_bo_create(fd, bytes, &h) != 0)
		return 0;
	void *p = guest_bo_map(fd, h, &size);
	if (!p)
		return 0;
	memcpy(p, data, bytes);
	munmap(p, size);
	return h;
}

/*
 * 2b: the card loads an MLP model from vgem's memory (the driver copies the image through
 * the exporter's kernel mapping, quire_bo_read) and scores a golden case of
 * tests/data/mlp_golden (the Python reference's): its scores and choice.
 */
static void mlp_from_vgem(const char *node, const char *model, const char *vec)
{
	static uint8_t img[4096], v[8192];
	char msg[200];
	size_t ilen = slurp(model, img, sizeof(img)), vlen = slurp(vec, v, sizeof(v));
	uint32_t c = 0, n0 = 0;
	if (vlen >= 12) {
		memcpy(&c, v + 4, 4);
		memcpy(&n0, v + 8, 4);
	}
	snprintf(msg, sizeof(msg), "golden MLP case %s: %zu bytes, %u candidates of %u features",
		 model, ilen, c, n0);
	if (!check(ilen >= 32 && c >= 1 && vlen == 12 + (size_t)c * (n0 + 5) + 4, msg))
		return;
	const int8_t *feat = (const int8_t *)(v + 12);
	const uint8_t *feas = v + 12 + c * n0;
	const uint8_t *want_scores = feas + c;
	int32_t choice;
	memcpy(&choice, want_scores + 4 * c, 4);

	char vpath[64];
	int g = open_drm("/dev/dri/card*", "vgem", vpath, sizeof(vpath));
	int b = open(node, O_RDWR | O_CLOEXEC);
	struct drm_mode_create_dumb cd;
	memset(&cd, 0, sizeof(cd));
	cd.width = 1024;
	cd.height = 1;
	cd.bpp = 32;
	struct drm_mode_map_dumb md;
	memset(&md, 0, sizeof(md));
	uint8_t *vp = MAP_FAILED;
	if (g >= 0 && gioctl(g, DRM_IOCTL_MODE_CREATE_DUMB, &cd) == 0) {
		md.handle = cd.handle;
		if (gioctl(g, DRM_IOCTL_MODE_MAP_DUMB, &md) == 0)
			vp = mmap(NULL, cd.size, PROT_WRITE, MAP_SHARED, g, (off_t)md.offset);
	}
	int dmabuf = -1;
	uint32_t hm = 0;
	if (vp != MAP_FAILED) {
		memcpy(vp, img, ilen);
		munmap(vp, cd.size);
		if (guest_export_fd(g, cd.handle, &dmabuf) == 0)
			import_fd(b, dmabuf, &hm);
	}
	check(hm != 0, "the model image in a buffer of vgem, imported by quire");
	if (dmabuf >= 0)
		close(dmabuf);
	if (!hm)
		goto out;
	struct drm_quire_submit s;
	memset(&s, 0, sizeof(s));
	s.opcode = QUIRE_OPC_MLP_LOAD;
	s.count = (uint32_t)ilen;
	s.bufs[QUIRE_DRM_BUF_SRC].handle = hm;
	int st = guest_run(b, &s);
	snprintf(msg, sizeof(msg), "MLP_LOAD from vgem's buffer: status %d", st);
	check(st == QUIRE_OK, msg);

	uint32_t hf = bo_with(b, feat, (size_t)c * n0), ha = bo_with(b, feas, c), hs;
	uint64_t ss;
	guest_bo_create(b, 4ull * c, &hs);
	memset(&s, 0, sizeof(s));
	s.opcode = QUIRE_OPC_MLP_SCORE;
	s.count = c;
	s.bufs[QUIRE_DRM_BUF_SRC].handle = hf;
	s.bufs[QUIRE_DRM_BUF_DST].handle = hs;
	s.bufs[QUIRE_DRM_BUF_AUX].handle = ha;
	int ret = gioctl(b, DRM_IOCTL_QUIRE_SUBMIT, &s);
	struct drm_quire_wait w;
	memset(&w, 0, sizeof(w));
	w.seqno = s.seqno;
	w.timeout_ns = 10ull * 1000 * 1000 * 1000;
	if (!ret)
		ret = gioctl(b, DRM_IOCTL_QUIRE_WAIT, &w);
	uint8_t *sp = guest_bo_map(b, hs, &ss);
	int want_st = choice < 0 ? QUIRE_ERR_NO_FEASIBLE : QUIRE_OK;
	snprintf(msg, sizeof(msg),
		 "MLP_SCORE with that model: status %u, choice %d (golden %d), %u scores as the "
		 "Python reference's",
		 w.status, choice < 0 ? -1 : (int)w.result, choice, c);
	check(!ret && (int)w.status == want_st && (choice < 0 || (int32_t)w.result == choice) &&
		  sp && memcmp(sp, want_scores, 4ull * c) == 0,
	      msg);
	if (sp)
		munmap(sp, ss);
	guest_gem_close(b, hf);
	guest_gem_close(b, ha);
	guest_gem_close(b, hs);
	guest_gem_close(b, hm);
out:
	if (g >= 0) {
		struct drm_mode_destroy_dumb dd = {.handle = cd.handle};
		(void)gioctl(g, DRM_IOCTL_MODE_DESTROY_DUMB, &dd);
		close(g);
	}
	close(b);
}

/* 3: what PRIME must refuse. */
static void refused(const char *node)
{
	int b = open(node, O_RDWR | O_CLOEXEC);
	struct drm_prime_handle ph;
	memset(&ph, 0, sizeof(ph));
	ph.handle = 4242;
	ph.flags = DRM_CLOEXEC;
	check(gioctl(b, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph) == -ENOENT,
	      "export of a handle that names nothing: ENOENT");
	uint32_t h;
	guest_bo_create(b, 4096, &h);
	memset(&ph, 0, sizeof(ph));
	ph.handle = h;
	ph.flags = 0x100;
	check(gioctl(b, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph) == -EINVAL, "export flags: EINVAL");
	int nul = open("/dev/null", O_RDWR);
	memset(&ph, 0, sizeof(ph));
	ph.fd = nul;
	check(gioctl(b, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph) == -EINVAL,
	      "import of /dev/null: EINVAL");
	close(nul);
	memset(&ph, 0, sizeof(ph));
	ph.fd = nul; /* closed now */
	check(gioctl(b, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph) == -EBADF,
	      "import of a closed fd: EBADF");
	guest_gem_close(b, h);
	close(b);
}

int main(int argc, char **argv)
{
	char node[64];
	int probe = open_drm("/dev/dri/renderD*", "quire", node, sizeof(node));
	if (probe < 0) {
		printf("FAIL no render node of quire\nprime: 0 passed, 1 failed\n");
		return 1;
	}
	close(probe);
	struct quire_objects before, after = {-1, -1, -1};
	check(read_objects(node, &before) == 0, "debugfs quire_objects read");
	between_files(node);
	from_vgem(node);
	vgem_in_pieces(node);
	if (argc == 3)
		mlp_from_vgem(node, argv[1], argv[2]);
	refused(node);
	int st = objects_back(node, &before, &after, 5000);
	char msg[160];
	snprintf(msg, sizeof(msg),
		 "every file closed: the driver holds %ld bos, %ld jobs (before: %ld, %ld)",
		 after.bos, after.jobs, before.bos, before.jobs);
	check(st == 0, msg);
	printf("prime: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
