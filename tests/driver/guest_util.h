/* SPDX-License-Identifier: MIT */
/*
 * What the guest programs of the QEMU driver test share (tests/driver/ioctl_fuzz.c,
 * prime_check.c, pin_cap.c): raw ioctls on a DRM node (no libdrm, so they link static
 * into the initramfs), finding a node by its DRM driver's name, buffer objects (create,
 * map, export, close), one descriptor run to its completion, and the driver's debugfs
 * counters (dri/N/quire_objects), which stand in for kmemleak on Debian's kernel.
 */
#ifndef QUIRE_GUEST_UTIL_H
#define QUIRE_GUEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <drm.h>

#include "quire/quire_drm.h"

/* 0, or -errno: what the kernel said, once (no retry: the tests want every answer). */
static inline int gioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) == 0 ? 0 : -errno;
}

/* The first node matching pattern whose DRM driver is called name, opened; -1 if none. */
static inline int open_drm(const char *pattern, const char *name, char *path, size_t len)
{
	glob_t g;
	int found = -1;
	if (glob(pattern, 0, NULL, &g) != 0)
		return -1;
	for (size_t i = 0; i < g.gl_pathc && found < 0; i++) {
		int fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		char drv[32] = "";
		struct drm_version v;
		memset(&v, 0, sizeof(v));
		v.name = drv;
		v.name_len = sizeof(drv) - 1;
		if (gioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && strcmp(drv, name) == 0) {
			found = fd;
			snprintf(path, len, "%s", g.gl_pathv[i]);
		} else {
			close(fd);
		}
	}
	globfree(&g);
	return found;
}

/* The path of quire's render node (opened to ask its driver's name, then closed): 0, or
 * -1 after a FAIL line. */
static inline int find_quire_node(char *path, size_t len)
{
	int fd = open_drm("/dev/dri/renderD*", "quire", path, len);
	if (fd < 0) {
		printf("FAIL no render node of quire\n");
		return -1;
	}
	close(fd);
	return 0;
}

/* A program's checks: "ok  WHAT" or "FAIL WHAT", counted; returns cond. */
struct guest_tally {
	int passed, failed;
};

static inline int tally_check(struct guest_tally *t, int cond, const char *what)
{
	printf("%s %s\n", cond ? "ok  " : "FAIL", what);
	if (cond)
		t->passed++;
	else
		t->failed++;
	return cond;
}

/* The driver's debugfs file (dri/N/quire_objects) of a node, open for reading; NULL if not. */
static inline FILE *open_objects(const char *node)
{
	struct stat st;
	char path[96];
	if (stat(node, &st) != 0)
		return NULL;
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/quire_objects", minor(st.st_rdev));
	return fopen(path, "r");
}

/* BO_CREATE of size bytes on fd: 0 and the handle, or -errno. */
static inline int guest_bo_create(int fd, uint64_t size, uint32_t *handle)
{
	struct drm_quire_bo_create c;
	memset(&c, 0, sizeof(c));
	c.size = size;
	int ret = gioctl(fd, DRM_IOCTL_QUIRE_BO_CREATE, &c);
	*handle = c.handle;
	return ret;
}

/* A mapping of a quire buffer object on fd; NULL on error. */
static inline void *guest_bo_map(int fd, uint32_t handle, uint64_t *size)
{
	struct drm_quire_bo_info in;
	memset(&in, 0, sizeof(in));
	in.handle = handle;
	if (gioctl(fd, DRM_IOCTL_QUIRE_BO_INFO, &in) != 0)
		return NULL;
	void *p =
	    mmap(NULL, in.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)in.mmap_offset);
	*size = in.size;
	return p == MAP_FAILED ? NULL : p;
}

static inline void guest_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = {.handle = handle};
	(void)gioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static inline int guest_export_fd(int fd, uint32_t handle, int *dmabuf)
{
	struct drm_prime_handle ph;
	memset(&ph, 0, sizeof(ph));
	ph.handle = handle;
	ph.flags = DRM_CLOEXEC | DRM_RDWR;
	ph.fd = -1;
	int ret = gioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);
	*dmabuf = ph.fd;
	return ret;
}

/* Run one descriptor on fd and wait for it: the completion's status, or -errno. */
static inline int guest_run(int fd, struct drm_quire_submit *s)
{
	int ret = gioctl(fd, DRM_IOCTL_QUIRE_SUBMIT, s);
	if (ret)
		return ret;
	struct drm_quire_wait w;
	memset(&w, 0, sizeof(w));
	w.seqno = s->seqno;
	w.timeout_ns = 10ull * 1000 * 1000 * 1000;
	ret = gioctl(fd, DRM_IOCTL_QUIRE_WAIT, &w);
	return ret ? ret : (int)w.status;
}

/* One number of the driver's debugfs (dri/N/quire_objects: "key value" lines); -1 if none. */
static inline long long read_debugfs_value(const char *node, const char *want)
{
	char key[32];
	long long v, found = -1;
	FILE *f = open_objects(node);
	if (!f)
		return -1;
	while (fscanf(f, "%31s %lld", key, &v) == 2)
		if (strcmp(key, want) == 0)
			found = v;
	fclose(f);
	return found;
}

/* What the driver holds (quire_debugfs.c), read through the node's minor. */
struct quire_objects {
	long bos, jobs, in_flight;
};

static inline int read_objects(const char *node, struct quire_objects *o)
{
	char key[32];
	long v;
	FILE *f = open_objects(node);
	if (!f)
		return -1;
	int n = 0;
	o->bos = o->jobs = o->in_flight = -1;
	while (fscanf(f, "%31s %ld", key, &v) == 2) {
		if (strcmp(key, "bos") == 0)
			o->bos = v, n++;
		else if (strcmp(key, "jobs") == 0)
			o->jobs = v, n++;
		else if (strcmp(key, "in_flight") == 0)
			o->in_flight = v, n++;
	}
	fclose(f);
	return n == 3 ? 0 : -1;
}

/* Until the driver holds what it held before (jobs left in flight finish on the card). */
static inline int objects_back(const char *node, const struct quire_objects *before,
			       struct quire_objects *now, int wait_ms)
{
	for (int t = 0;; t += 50) {
		if (read_objects(node, now) != 0)
			return -1;
		if (now->bos == before->bos && now->jobs == before->jobs && now->in_flight == 0)
			return 0;
		if (t >= wait_ms)
			return 1;
		usleep(50 * 1000);
	}
}

/* Every file closed: the counts must be back within 10 s. Prints them as "WHO: ..." (and a
 * FAIL line if not); 1 for a failure, else 0. */
static inline int objects_report(const char *who, const char *node,
				 const struct quire_objects *before)
{
	struct quire_objects after = {-1, -1, -1};
	int st = objects_back(node, before, &after, 10000);
	printf("%s: driver objects before: %ld bos, %ld jobs; after closing: %ld bos, %ld jobs, "
	       "%ld in flight\n",
	       who, before->bos, before->jobs, after.bos, after.jobs, after.in_flight);
	if (st != 0)
		printf(
		    "FAIL the driver still holds objects or jobs 10 s after every file closed\n");
	return st != 0;
}

#endif /* QUIRE_GUEST_UTIL_H */
