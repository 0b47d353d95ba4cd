// SPDX-License-Identifier: MIT
/*
 * ioctl_fuzz: seeded random ioctls against quire.ko's render node, inside the QEMU guest
 * (tests/driver/qemu_test.sh; built static for its initramfs).
 *
 * Usage: ioctl_fuzz SEED CALLS
 *
 * Every call is one of: a valid call (BO_CREATE, BO_INFO, mmap, SUBMIT of a descriptor the
 * card can run, WAIT, GET_INFO, PRIME export and import, GEM_CLOSE, syncobjs, RESET, a
 * second file opened and closed with work in flight); a valid call with one thing made
 * wrong (a pad or reserved word not zero, a handle that names nothing, a size of 0 or
 * beyond the limit, an offset past the object, a huge count, a narrow field too wide, a
 * foreign fd to import); or garbage (a random driver ioctl number, direction and size,
 * over random bytes, a NULL or unmapped pointer). The first two kinds have an expected
 * answer: a wrong call the driver takes, or a right one it refuses with an errno it has no
 * reason for, is a failure. Garbage may get any errno, never a crash.
 *
 * Afterwards every file is closed and the driver's own counts (debugfs quire_objects:
 * buffer objects, jobs) must come back to what they were: with no kmemleak in Debian's
 * kernel, that and the module's unload (the guest script) are the leak check. The guest
 * script scans the kernel log for oopses and warnings.
 *
 * Prints a line per failure (at most 20), then "fuzz: N calls ..., N failures"; exit 0 only
 * without failures. Collective opcodes (9 to 15) are left out of the descriptors that can
 * pass: they wait for peers this guest does not have.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/driver/guest_util.h"
#include "quire/cmd.h"
#include "quire/format.h"
#include "quire/status.h"

#define MAX_BOS     64
#define MAX_JOBS    512
#define MAX_FAILS   20
#define BO_MAX_FUZZ (256u << 10) /* valid objects stay small: each may get pinned */

static uint64_t rng;
static uint64_t next(void) /* xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}
static uint32_t below(uint32_t n)
{
	return (uint32_t)(next() % n);
}

struct bo {
	uint32_t handle;
	uint64_t size;
};

struct file {
	int fd;
	struct bo bos[MAX_BOS];
	int n_bos;
	uint64_t jobs[MAX_JOBS]; /* seqnos not waited for */
	int n_jobs;
	uint32_t syncobj;
};

static const char *node;
static long calls, fails, accepted, refused, garbage;
static long submitted, done_ok, done_err, timed_out, resets, shared;

static void fail(const char *what, int got, const char *want)
{
	fails++;
	if (fails <= MAX_FAILS)
		printf("FAIL call %ld: %s: got %s, want %s\n", calls, what,
		       got ? strerror(-got) : "success", want);
}

/* A call that must succeed. */
static int want_ok(const char *what, int ret)
{
	if (ret != 0)
		fail(what, ret, "success");
	else
		accepted++;
	return ret;
}

/* A call that must be refused with errno e. */
static void want_err(const char *what, int ret, int e)
{
	if (ret != -e)
		fail(what, ret, strerror(e));
	else
		refused++;
}

static struct bo *pick_bo(struct file *f)
{
	return f->n_bos ? &f->bos[below((uint32_t)f->n_bos)] : NULL;
}

/* A handle no object of f has. */
static uint32_t bad_handle(struct file *f)
{
	for (;;) {
		uint32_t h = below(4) ? 1000 + below(100000) : (uint32_t)next();
		int used = h == 0;
		for (int i = 0; i < f->n_bos; i++)
			used |= f->bos[i].handle == h;
		if (!used)
			return h;
	}
}

static void drop_bo(struct file *f, int i)
{
	f->bos[i] = f->bos[--f->n_bos];
}

static void op_create(struct file *f)
{
	struct drm_quire_bo_create c;
	memset(&c, 0, sizeof(c));
	c.size = 1 + below(BO_MAX_FUZZ);
	switch (below(8)) {
	case 0:
		c.size = 0;
		want_err("BO_CREATE size 0", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_CREATE, &c), EINVAL);
		return;
	case 1:
		c.size = (4ull << 30) + 1 + (next() >> 1);
		want_err("BO_CREATE size > 4 GiB", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_CREATE, &c),
			 EINVAL);
		return;
	case 2:
		c.flags = 1u << below(32);
		want_err("BO_CREATE flags", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_CREATE, &c), EINVAL);
		return;
	case 3:
		c.handle = 1 + below(1000);
		want_err("BO_CREATE handle in", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_CREATE, &c),
			 EINVAL);
		return;
	default:
		break;
	}
	if (f->n_bos == MAX_BOS)
		return;
	if (want_ok("BO_CREATE", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_CREATE, &c)) == 0) {
		f->bos[f->n_bos].handle = c.handle;
		f->bos[f->n_bos++].size = (c.size + 4095) & ~4095ull;
	}
}

static void op_info_mmap(struct file *f)
{
	struct drm_quire_bo_info in;
	struct bo *b = pick_bo(f);
	memset(&in, 0, sizeof(in));
	switch (below(6)) {
	case 0:
		in.handle = bad_handle(f);
		want_err("BO_INFO bad handle", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_INFO, &in), ENOENT);
		return;
	case 1:
		in.handle = b ? b->handle : 1;
		in.pad = 1 + below(1000);
		want_err("BO_INFO pad", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_INFO, &in), EINVAL);
		return;
	case 2:
		in.handle = b ? b->handle : 1;
		in.size = 1;
		want_err("BO_INFO size in", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_INFO, &in), EINVAL);
		return;
	default:
		break;
	}
	if (!b)
		return;
	in.handle = b->handle;
	if (want_ok("BO_INFO", gioctl(f->fd, DRM_IOCTL_QUIRE_BO_INFO, &in)) != 0)
		return;
	if (in.size != b->size)
		fail("BO_INFO size", 0, "the object's size");
	/* Map it, touch it, unmap; a map past its end must be refused. */
	size_t len = (size_t)in.size;
	int past = below(4) == 0;
	void *p = mmap(NULL, past ? len + 4096 : len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		       (off_t)in.mmap_offset);
	if (past) {
		if (p != MAP_FAILED) {
			fail("mmap past the object", 0, "an error");
			munmap(p, len + 4096);
		} else {
			refused++;
		}
		return;
	}
	if (p == MAP_FAILED) {
		fail("mmap", -errno, "success");
		return;
	}
	accepted++;
	size_t at = below((uint32_t)len);
	((volatile uint8_t *)p)[at] = (uint8_t)next();
	munmap(p, len);
}

static void op_close(struct file *f)
{
	struct drm_gem_close c;
	memset(&c, 0, sizeof(c));
	if (below(3) == 0 || !f->n_bos) {
		c.handle = bad_handle(f);
		want_err("GEM_CLOSE bad handle", gioctl(f->fd, DRM_IOCTL_GEM_CLOSE, &c), EINVAL);
		return;
	}
	int i = (int)below((uint32_t)f->n_bos);
	c.handle = f->bos[i].handle;
	want_ok("GEM_CLOSE", gioctl(f->fd, DRM_IOCTL_GEM_CLOSE, &c));
	drop_bo(f, i); /* jobs still using it hold their own reference */
}

/* A descriptor the card can run, with buffers of f (or none if f has too few). */
static int plausible(struct file *f, struct drm_quire_submit *s)
{
	static const uint8_t ops[] = {QUIRE_OPC_NOP,      QUIRE_OPC_INFO,     QUIRE_OPC_EXPONENTS,
				      QUIRE_OPC_ENCODE,   QUIRE_OPC_DECODE,   QUIRE_OPC_REDUCE,
				      QUIRE_OPC_MLP_LOAD, QUIRE_OPC_MLP_SCORE};
	static const uint8_t fmts[] = {QUIRE_FMT_FP16, QUIRE_FMT_BFP8,  QUIRE_FMT_BFP16,
				       QUIRE_FMT_INT8, QUIRE_FMT_INT16, QUIRE_FMT_INT32};
	memset(s, 0, sizeof(*s));
	s->opcode = ops[below(sizeof(ops))];
	s->format = fmts[below(sizeof(fmts))];
	s->val_format = fmts[below(sizeof(fmts))];
	s->flags = below(4) == 0 ? below(8) : 0;
	s->count = below(3) ? 1 + below(4096) : (uint32_t)next();
	s->workers = below(3);
	s->stride = below(2) ? 64u * below(64) : next() >> below(64);
	for (int i = 0; i < QUIRE_DRM_BUFS; i++) {
		struct bo *b = pick_bo(f);
		if (!b || below(4) == 0)
			continue;
		s->bufs[i].handle = b->handle;
		/* Mostly inside (aligned, or not), sometimes at or past the end. */
		s->bufs[i].offset = below(4)   ? (below((uint32_t)b->size) & ~63u)
				    : below(2) ? below((uint32_t)b->size)
					       : b->size + below(3) * (next() >> below(64));
	}
	return s->opcode;
}

/* Bytes at a page boundary of a buffer of f: one page at most, so contiguous for the card
 * even without an IOMMU. */
static struct drm_quire_bo_ref in_page(struct file *f)
{
	struct bo *b = pick_bo(f);
	struct drm_quire_bo_ref r = {.handle = b->handle,
				     .offset = 4096ull * below((uint32_t)(b->size / 4096))};
	return r;
}

/* A descriptor the card runs: NOP, INFO, EXPONENTS or ENCODE within pages of f's buffers. */
static void good(struct file *f, struct drm_quire_submit *s)
{
	static const uint8_t fmts[] = {QUIRE_FMT_FP16, QUIRE_FMT_BFP8, QUIRE_FMT_BFP16};
	memset(s, 0, sizeof(*s));
	s->opcode = f->n_bos ? QUIRE_OPC_NOP + below(4) : QUIRE_OPC_NOP;
	switch (s->opcode) {
	case QUIRE_OPC_INFO:
		s->bufs[QUIRE_DRM_BUF_DST] = in_page(f);
		break;
	case QUIRE_OPC_EXPONENTS:
	case QUIRE_OPC_ENCODE:
		s->format = s->opcode == QUIRE_OPC_ENCODE ? fmts[below(3)] : QUIRE_FMT_BFP8;
		s->count = 1 + below(1024);
		s->bufs[QUIRE_DRM_BUF_SRC] = in_page(f);
		if (s->opcode == QUIRE_OPC_ENCODE)
			s->bufs[QUIRE_DRM_BUF_DST] = in_page(f);
		if (s->format != QUIRE_FMT_FP16)
			s->bufs[QUIRE_DRM_BUF_EXP] = in_page(f);
		break;
	default:
		break;
	}
}

static void op_submit(struct file *f)
{
	struct drm_quire_submit s;
	int kind = (int)below(16);
	plausible(f, &s);
	switch (kind) {
	case 0:
		s.pad = 1 + below(7);
		want_err("SUBMIT pad", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s), EINVAL);
		return;
	case 1:
		s.reserved[below(2)] = 1ull << below(64);
		want_err("SUBMIT reserved", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s), EINVAL);
		return;
	case 2:
		s.seqno = 1 + (next() >> 1);
		want_err("SUBMIT seqno in", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s), EINVAL);
		return;
	case 3: {
		/* A narrow field that does not fit struct quire_cmd. */
		uint32_t big = 0x10000u + below(0xffff0000u);
		switch (below(5)) {
		case 0:
			s.opcode = 0x100 + below(0xffffff00u);
			break;
		case 1:
			s.flags = 0x100 + below(0xffffff00u);
			break;
		case 2:
			s.format = big;
			break;
		case 3:
			s.val_format = big;
			break;
		default:
			s.workers = big;
			break;
		}
		want_err("SUBMIT wide field", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s), EINVAL);
		return;
	}
	case 4: {
		int i = (int)below(QUIRE_DRM_BUFS);
		s.bufs[i].pad = 1 + below(1000);
		want_err("SUBMIT buffer pad", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s), EINVAL);
		return;
	}
	case 5: {
		int i = (int)below(QUIRE_DRM_BUFS);
		s.bufs[i].handle = 0;
		s.bufs[i].offset = 1 + below(1u << 20);
		want_err("SUBMIT offset without handle", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s),
			 EINVAL);
		return;
	}
	case 6: {
		/* Whatever the other buffers say (past the end: a completion's error), a
		 * handle that names nothing makes the call fail. */
		int i = (int)below(QUIRE_DRM_BUFS);
		s.bufs[i].handle = bad_handle(f);
		s.bufs[i].offset = 0;
		want_err("SUBMIT bad handle", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s), ENOENT);
		return;
	}
	case 7:
		s.out_syncobj = f->syncobj + 1 + below(1000);
		want_err("SUBMIT bad syncobj", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s), ENOENT);
		return;
	case 8:
		/* Any opcode, any count: the descriptor is refused or runs; the call succeeds. */
		s.opcode = below(2) ? below(256) : 16 + below(240);
		if (s.opcode >= QUIRE_OPC_COMM_INIT && s.opcode < QUIRE_OPC_COUNT)
			s.opcode = 0;
		s.count = (uint32_t)next();
		break;
	case 9:
	case 10:
	case 11:
	case 12:
		good(f, &s);
		break;
	default:
		break;
	}
	if (f->syncobj && below(4) == 0)
		s.out_syncobj = f->syncobj;
	if (f->n_jobs == MAX_JOBS)
		return;
	/* The ioctl itself is fine: the descriptor's own faults come back through WAIT. */
	if (want_ok("SUBMIT", gioctl(f->fd, DRM_IOCTL_QUIRE_SUBMIT, &s)) == 0) {
		f->jobs[f->n_jobs++] = s.seqno;
		submitted++;
	}
}

static void op_wait(struct file *f)
{
	struct drm_quire_wait w;
	memset(&w, 0, sizeof(w));
	switch (below(6)) {
	case 0:
		w.seqno = (next() >> below(64)) | (1ull << 40); /* never handed out */
		want_err("WAIT unknown seqno", gioctl(f->fd, DRM_IOCTL_QUIRE_WAIT, &w), ENOENT);
		return;
	case 1:
		w.seqno = f->n_jobs ? f->jobs[0] : 1;
		switch (below(3)) {
		case 0:
			w.flags = 1u << below(32);
			break;
		case 1:
			w.pad = 1 + below(100);
			break;
		default:
			w.status = 1 + below(100);
			break;
		}
		want_err("WAIT fields in", gioctl(f->fd, DRM_IOCTL_QUIRE_WAIT, &w), EINVAL);
		return;
	default:
		break;
	}
	if (!f->n_jobs)
		return;
	int i = (int)below((uint32_t)f->n_jobs);
	w.seqno = f->jobs[i];
	w.timeout_ns = below(2) ? 0 : below(50) * 1000000ull;
	int ret = gioctl(f->fd, DRM_IOCTL_QUIRE_WAIT, &w);
	if (ret == -ETIMEDOUT) {
		accepted++; /* still in flight: allowed for a short wait */
		timed_out++;
		return;
	}
	if (want_ok("WAIT", ret) != 0)
		return;
	if (w.status == QUIRE_OK)
		done_ok++;
	else
		done_err++;
	if (w.status >= 64)
		fail("WAIT status", 0, "a quire status");
	/* Waited for once: a second WAIT names nothing. */
	uint64_t seqno = w.seqno;
	memset(&w, 0, sizeof(w));
	w.seqno = seqno;
	want_err("WAIT a second time", gioctl(f->fd, DRM_IOCTL_QUIRE_WAIT, &w), ENOENT);
	f->jobs[i] = f->jobs[--f->n_jobs];
}

static void op_prime(struct file *f, struct file *other)
{
	struct drm_prime_handle ph;
	memset(&ph, 0, sizeof(ph));
	struct bo *b = pick_bo(f);
	switch (below(6)) {
	case 0:
		ph.handle = bad_handle(f);
		ph.flags = DRM_CLOEXEC;
		want_err("PRIME export bad handle",
			 gioctl(f->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), ENOENT);
		return;
	case 1: {
		ph.handle = b ? b->handle : 1;
		/* A flag that is neither DRM_CLOEXEC nor DRM_RDWR. */
		do
			ph.flags = 1u << below(32);
		while (ph.flags & (DRM_CLOEXEC | DRM_RDWR));
		ph.fd = -1;
		int ret = gioctl(f->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);
		want_err("PRIME export flags", ret, EINVAL);
		if (ret == 0)
			close(ph.fd); /* taken after all: the fd would hold the object */
		return;
	}
	case 2: {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		ph.fd = nul;
		want_err("PRIME import of /dev/null",
			 gioctl(f->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), EINVAL);
		close(nul);
		return;
	}
	case 3:
		ph.fd = 1000 + (int)below(1000); /* not open */
		want_err("PRIME import of a closed fd",
			 gioctl(f->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), EBADF);
		return;
	default:
		break;
	}
	if (!b)
		return;
	ph.handle = b->handle;
	ph.flags = DRM_CLOEXEC | (below(2) ? DRM_RDWR : 0);
	ph.fd = -1;
	if (want_ok("PRIME export", gioctl(f->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph)) != 0)
		return;
	int dmabuf = ph.fd;
	shared++;
	/* Into the other file (a second context), or back into this one. */
	struct file *to = below(2) ? other : f;
	memset(&ph, 0, sizeof(ph));
	ph.fd = dmabuf;
	if (want_ok("PRIME import", gioctl(to->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph)) == 0) {
		if (to == f && ph.handle != b->handle)
			fail("PRIME import into its own file", 0, "the same handle");
		int known = 0;
		for (int i = 0; i < to->n_bos; i++)
			known |= to->bos[i].handle == ph.handle;
		if (!known && to->n_bos < MAX_BOS) {
			to->bos[to->n_bos].handle = ph.handle;
			to->bos[to->n_bos++].size = b->size;
		} else if (!known) {
			struct drm_gem_close c = {.handle = ph.handle};
			want_ok("GEM_CLOSE of an import", gioctl(to->fd, DRM_IOCTL_GEM_CLOSE, &c));
		}
	}
	close(dmabuf);
}

static void op_syncobj(struct file *f)
{
	if (f->syncobj && below(2)) {
		struct drm_syncobj_destroy d = {.handle = f->syncobj};
		want_ok("SYNCOBJ_DESTROY", gioctl(f->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d));
		f->syncobj = 0;
		return;
	}
	if (f->syncobj)
		return;
	struct drm_syncobj_create c;
	memset(&c, 0, sizeof(c));
	if (want_ok("SYNCOBJ_CREATE", gioctl(f->fd, DRM_IOCTL_SYNCOBJ_CREATE, &c)) == 0)
		f->syncobj = c.handle;
}

static void op_info_reset(struct file *f)
{
	if (below(16) == 0) {
		struct drm_quire_reset r;
		memset(&r, 0, sizeof(r));
		if (below(2)) {
			r.flags = 1u << below(32);
			want_err("RESET flags", gioctl(f->fd, DRM_IOCTL_QUIRE_RESET, &r), EINVAL);
		} else {
			if (want_ok("RESET", gioctl(f->fd, DRM_IOCTL_QUIRE_RESET, &r)) == 0)
				resets++;
		}
		return;
	}
	struct drm_quire_get_info gi;
	memset(&gi, 0xa5, sizeof(gi)); /* GET_INFO is output only: what comes in is ignored */
	if (want_ok("GET_INFO", gioctl(f->fd, DRM_IOCTL_QUIRE_GET_INFO, &gi)) == 0 &&
	    gi.uapi_version >> 16 != QUIRE_DRM_UAPI_MAJOR)
		fail("GET_INFO uapi_version", 0, "this header's major");
}

/* Garbage: a driver ioctl number with any direction and size, over random bytes or a bad
 * pointer. Any answer but a crash. */
static void op_garbage(struct file *f)
{
	static uint8_t buf[1 << 14];
	for (size_t i = 0; i < 512; i++)
		buf[i] = (uint8_t)next();
	unsigned nr = QUIRE_DRM_COMMAND_BASE + below(40);
	unsigned size = below(4) ? below(256) : below(1u << 14);
	unsigned dir = below(4); /* _IOC_NONE, _IOC_WRITE, _IOC_READ, both */
	void *arg = below(8) ? (void *)buf : below(2) ? NULL : (void *)(uintptr_t)4096;
	unsigned long req = _IOC(dir, QUIRE_DRM_IOCTL_BASE, nr, size);
	(void)ioctl(f->fd, req, arg);
	garbage++;
}

static void file_open(struct file *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = open(node, O_RDWR | O_CLOEXEC);
	if (f->fd < 0) {
		printf("FAIL open %s: %s\n", node, strerror(errno));
		exit(1);
	}
}

static void file_close(struct file *f)
{
	close(f->fd); /* with its objects, jobs (some in flight) and syncobj */
	f->fd = -1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ioctl_fuzz SEED CALLS\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 0);
	long n = strtol(argv[2], NULL, 0);
	rng = seed * 0x9e3779b97f4a7c15ull | 1;
	char path[64];
	if (find_quire_node(path, sizeof(path)) != 0)
		return 1;
	node = path;
	struct quire_objects before;
	if (read_objects(node, &before) != 0) {
		printf("FAIL no debugfs quire_objects for %s\n", node);
		return 1;
	}
	struct file a, b;
	file_open(&a);
	file_open(&b);
	long reopened = 0;
	for (calls = 0; calls < n; calls++) {
		struct file *f = below(4) ? &a : &b, *other = f == &a ? &b : &a;
		int op = (int)below(100);
		if (op < 14)
			op_create(f);
		else if (op < 24)
			op_info_mmap(f);
		else if (op < 30)
			op_close(f);
		else if (op < 52)
			op_submit(f);
		else if (op < 66)
			op_wait(f);
		else if (op < 74)
			op_prime(f, other);
		else if (op < 77)
			op_syncobj(f);
		else if (op < 83)
			op_info_reset(f);
		else if (op < 99)
			op_garbage(f);
		else {
			/* Close a file with whatever it holds, and open it again. */
			file_close(&b);
			file_open(&b);
			reopened++;
		}
	}
	/* Whatever is still in flight finishes on the card; then every file goes. */
	file_close(&a);
	file_close(&b);
	printf("fuzz: seed %" PRIu64 ", %ld calls on %s: %ld as expected accepted, %ld as "
	       "expected refused, %ld garbage, %ld files closed with work and reopened\n",
	       seed, calls, node, accepted, refused, garbage, reopened);
	printf("fuzz: %ld submissions taken; %ld of them waited for: %ld completed OK, %ld with "
	       "the status of a refused or failed descriptor; %ld short waits timed out; %ld "
	       "resets; %ld buffers exported and imported\n",
	       submitted, done_ok + done_err, done_ok, done_err, timed_out, resets, shared);
	fails += objects_report("fuzz", node, &before);
	printf("fuzz: %ld failures\n", fails);
	return fails ? 1 : 0;
}
