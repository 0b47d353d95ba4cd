// SPDX-License-Identifier: MIT
/*
 * ioctl_race: quire.ko's ioctls from several threads at once, inside the QEMU guest
 * (tests/driver/qemu_test.sh; built static for its initramfs). ioctl_fuzz is one thread;
 * this is what it leaves out: the same objects and jobs used, closed, waited for and reset
 * by threads that do not wait for each other.
 *
 * Usage: ioctl_race SEED THREADS CALLS   (CALLS in all, shared among the threads)
 *
 * One file is shared by every thread, and each thread has one of its own that it closes
 * with work in flight and opens again now and then. Shared tables hold handles of the shared
 * file and seqnos of its submissions; a thread takes or replaces an entry while others may
 * be using it: a GEM_CLOSE racing a SUBMIT or an mmap of the same handle, two WAITs on one
 * job (one gets it, the other ENOENT), a RESET while others submit and wait, a dma-buf
 * exported from one file and imported into the other in both directions. Descriptors are
 * ones the card runs (NOP, INFO, EXPONENTS, ENCODE within a page).
 *
 * No answer is fixed in advance, as which thread comes first is not; but every ioctl must
 * answer 0, EINVAL (a handle closed under it: GEM_CLOSE), ENOENT (a handle or seqno gone)
 * or ETIMEDOUT (a short WAIT): anything else is a failure. Afterwards, every file closed,
 * the driver's counts (debugfs quire_objects) must come back. Prints the failures (at most
 * 20) and "race: ..." lines; exit 0 only without failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/driver/guest_util.h"
#include "quire/cmd.h"
#include "quire/format.h"

#define SLOTS   32
#define JOBS    64
#define BO_SIZE 8192u /* two pages: each descriptor's buffers stay within one */

static const char *node;
static int shared_fd;
static uint32_t handles[SLOTS]; /* of shared_fd; 0: empty */
static uint64_t seqnos[JOBS];   /* of shared_fd; 0: empty */
static long total_fails, total_calls, total_ok, total_enoent, total_einval, total_timeout;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

struct thread {
	pthread_t tid;
	uint64_t rng;
	int fd;
	uint32_t own[8]; /* handles of fd */
	long calls, fails, ok, enoent, einval, timeout, reopened;
};

static uint32_t below(struct thread *t, uint32_t n)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return (uint32_t)((t->rng * 0x2545f4914f6cdd1dull) % n);
}

/* Any answer a race can explain; anything else is a failure. */
static int note(struct thread *t, const char *what, int ret)
{
	t->calls++;
	switch (-ret) {
	case 0:
		t->ok++;
		break;
	case ENOENT:
		t->enoent++;
		break;
	case EINVAL:
		t->einval++;
		break;
	case ETIMEDOUT:
		t->timeout++;
		break;
	default:
		t->fails++;
		pthread_mutex_lock(&report_lock);
		if (++total_fails <= 20)
			printf("FAIL %s: %s\n", what, strerror(-ret));
		pthread_mutex_unlock(&report_lock);
	}
	return ret;
}

static uint32_t create(struct thread *t, int fd)
{
	struct drm_quire_bo_create c;
	memset(&c, 0, sizeof(c));
	c.size = BO_SIZE;
	return note(t, "BO_CREATE", gioctl(fd, DRM_IOCTL_QUIRE_BO_CREATE, &c)) == 0 ? c.handle : 0;
}

static void gem_close(struct thread *t, int fd, uint32_t h)
{
	struct drm_gem_close c = {.handle = h};
	if (h)
		note(t, "GEM_CLOSE", gioctl(fd, DRM_IOCTL_GEM_CLOSE, &c));
}

/* A descriptor the card runs, over handles h[0..2] (0: none). */
static uint64_t submit(struct thread *t, int fd, const uint32_t *h)
{
	struct drm_quire_submit s;
	memset(&s, 0, sizeof(s));
	s.opcode = h[0] && h[1] && h[2] ? QUIRE_OPC_NOP + below(t, 4) : QUIRE_OPC_NOP;
	struct drm_quire_bo_ref r[3];
	for (int i = 0; i < 3; i++) {
		r[i].handle = h[i];
		r[i].pad = 0;
		r[i].offset = 4096ull * below(t, 2);
	}
	switch (s.opcode) {
	case QUIRE_OPC_INFO:
		s.bufs[QUIRE_DRM_BUF_DST] = r[0];
		break;
	case QUIRE_OPC_EXPONENTS:
	case QUIRE_OPC_ENCODE:
		s.format = QUIRE_FMT_BFP8;
		s.count = 1 + below(t, 1024);
		s.bufs[QUIRE_DRM_BUF_SRC] = r[0];
		s.bufs[QUIRE_DRM_BUF_EXP] = r[1];
		if (s.opcode == QUIRE_OPC_ENCODE)
			s.bufs[QUIRE_DRM_BUF_DST] = r[2];
		break;
	default:
		break;
	}
	return note(t, "SUBMIT", gioctl(fd, DRM_IOCTL_QUIRE_SUBMIT, &s)) == 0 ? s.seqno : 0;
}

static void wait_seqno(struct thread *t, int fd, uint64_t seqno)
{
	struct drm_quire_wait w;
	memset(&w, 0, sizeof(w));
	w.seqno = seqno;
	w.timeout_ns = below(t, 3) * 10000000ull;
	if (seqno)
		note(t, "WAIT", gioctl(fd, DRM_IOCTL_QUIRE_WAIT, &w));
}

static uint32_t shared_handle(struct thread *t)
{
	return __atomic_load_n(&handles[below(t, SLOTS)], __ATOMIC_RELAXED);
}

/* A handle into a slot of the shared table; the handle it replaces is closed. */
static void put_shared(struct thread *t, uint32_t h)
{
	uint32_t old = __atomic_exchange_n(&handles[below(t, SLOTS)], h, __ATOMIC_RELAXED);
	if (old && old != h)
		gem_close(t, shared_fd, old);
}

/* Export handle h of from, import it into to: the handle in to, or 0. */
static uint32_t share(struct thread *t, int from, uint32_t h, int to)
{
	struct drm_prime_handle ph;
	memset(&ph, 0, sizeof(ph));
	ph.handle = h;
	ph.flags = DRM_CLOEXEC | DRM_RDWR;
	if (!h || note(t, "PRIME export", gioctl(from, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph)) != 0)
		return 0;
	int dmabuf = ph.fd;
	memset(&ph, 0, sizeof(ph));
	ph.fd = dmabuf;
	int ret = note(t, "PRIME import", gioctl(to, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph));
	close(dmabuf);
	return ret == 0 ? ph.handle : 0;
}

static void reopen(struct thread *t)
{
	close(t->fd); /* with its objects and jobs, some in flight */
	memset(t->own, 0, sizeof(t->own));
	t->fd = open(node, O_RDWR | O_CLOEXEC);
	t->reopened++;
}

static void *run(void *arg)
{
	struct thread *t = arg;
	long n = t->calls;
	t->calls = 0;
	while (t->calls < n) {
		uint32_t op = below(t, 100), h[3];
		if (op < 15) {
			put_shared(t, create(t, shared_fd));
		} else if (op < 22) {
			put_shared(t, 0);
		} else if (op < 42) {
			for (int i = 0; i < 3; i++)
				h[i] = shared_handle(t);
			uint64_t s = submit(t, shared_fd, h);
			if (s)
				__atomic_store_n(&seqnos[below(t, JOBS)], s, __ATOMIC_RELAXED);
		} else if (op < 60) {
			wait_seqno(t, shared_fd,
				   __atomic_load_n(&seqnos[below(t, JOBS)], __ATOMIC_RELAXED));
		} else if (op < 68) {
			/* Map a shared handle while others may close it. */
			struct drm_quire_bo_info in;
			memset(&in, 0, sizeof(in));
			in.handle = shared_handle(t);
			if (in.handle &&
			    note(t, "BO_INFO", gioctl(shared_fd, DRM_IOCTL_QUIRE_BO_INFO, &in)) ==
				0) {
				uint8_t *p = mmap(NULL, in.size, PROT_READ | PROT_WRITE, MAP_SHARED,
						  shared_fd, (off_t)in.mmap_offset);
				if (p != MAP_FAILED) {
					p[below(t, (uint32_t)in.size)] ^= 1;
					munmap(p, in.size);
				}
			}
		} else if (op < 80) {
			/* The thread's own file: objects, work, and dma-bufs both ways. */
			int i = (int)below(t, 8);
			if (!t->own[i]) {
				t->own[i] = create(t, t->fd);
			} else if (below(t, 3) == 0) {
				put_shared(t, share(t, t->fd, t->own[i], shared_fd));
			} else if (below(t, 2) == 0) {
				uint32_t got = share(t, shared_fd, shared_handle(t), t->fd);
				if (got) {
					h[0] = got;
					h[1] = t->own[i];
					h[2] = t->own[(i + 1) % 8];
					wait_seqno(t, t->fd, submit(t, t->fd, h));
				}
			} else {
				gem_close(t, t->fd, t->own[i]);
				t->own[i] = 0;
			}
		} else if (op < 82) {
			struct drm_quire_reset r;
			memset(&r, 0, sizeof(r));
			note(t, "RESET", gioctl(shared_fd, DRM_IOCTL_QUIRE_RESET, &r));
		} else if (op < 84) {
			reopen(t);
		} else {
			struct drm_quire_get_info gi;
			memset(&gi, 0, sizeof(gi));
			note(
			    t, "GET_INFO",
			    gioctl(below(t, 2) ? shared_fd : t->fd, DRM_IOCTL_QUIRE_GET_INFO, &gi));
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: ioctl_race SEED THREADS CALLS\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 0);
	int nt = atoi(argv[2]);
	long n = strtol(argv[3], NULL, 0);
	if (nt < 1 || nt > 64 || n < 1) {
		fprintf(stderr, "ioctl_race: 1 to 64 threads, at least 1 call\n");
		return 2;
	}
	char path[64];
	shared_fd = open_drm("/dev/dri/renderD*", "quire", path, sizeof(path));
	if (shared_fd < 0) {
		printf("FAIL no render node of quire\n");
		return 1;
	}
	node = path;
	struct quire_objects before;
	if (read_objects(node, &before) != 0) {
		printf("FAIL no debugfs quire_objects for %s\n", node);
		return 1;
	}
	struct thread t[64];
	memset(t, 0, sizeof(t));
	for (int i = 0; i < nt; i++) {
		t[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1) | 1;
		t[i].calls = n / nt;
		t[i].fd = open(node, O_RDWR | O_CLOEXEC);
		if (t[i].fd < 0 || pthread_create(&t[i].tid, NULL, run, &t[i]) != 0) {
			printf("FAIL thread %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	long reopened = 0;
	for (int i = 0; i < nt; i++) {
		pthread_join(t[i].tid, NULL);
		close(t[i].fd);
		total_calls += t[i].calls;
		total_ok += t[i].ok;
		total_enoent += t[i].enoent;
		total_einval += t[i].einval;
		total_timeout += t[i].timeout;
		reopened += t[i].reopened;
	}
	close(shared_fd);
	printf("race: seed %" PRIu64 ", %d threads, %ld ioctls: %ld succeeded, %ld ENOENT, %ld "
	       "EINVAL, %ld ETIMEDOUT; own files closed with work %ld times\n",
	       seed, nt, total_calls, total_ok, total_enoent, total_einval, total_timeout,
	       reopened);
	total_fails += objects_report("race", node, &before);
	printf("race: %ld failures\n", total_fails);
	return total_fails ? 1 : 0;
}
