// SPDX-License-Identifier: MIT
/*
 * pin_cap: quire.ko's caps on pinned buffer-object memory (driver/quire_pin.c) and the
 * memory-cgroup charge of its objects, inside the QEMU guest (tests/driver/qemu_test.sh;
 * built static for its initramfs), with raw ioctls.
 *
 * Usage: pin_cap FILE_MIB GLOBAL_MIB [CGROUP]
 * Run with the module's pinned_file_max_mib at FILE_MIB and pinned_max_mib at GLOBAL_MIB
 * (the guest script sets them), FILE_MIB + 2 <= GLOBAL_MIB < 2 * FILE_MIB (so that B
 * below meets the global cap before its own), and no other user of the card.
 *
 * Workers, each a process with its own open file of the card, do what the parent tells
 * them over a pipe, and the parent reads the driver's counts (debugfs) between steps:
 * 1. A creates 1 MiB objects until refused: FILE_MIB of them, then -EDQUOT (its file's cap).
 * 2. Meanwhile B creates one and the card runs INFO into it (the card writes the object),
 *    then B creates more until refused: -EDQUOT when all objects reach GLOBAL_MIB (the
 *    global cap: B's own file is below its cap).
 * 3. C is refused even one object (the global cap), yet the card runs a NOP for C and
 *    INFO into A's and B's objects: the card and the objects already there are unaffected.
 * 4. B exports one object as a dma-buf and closes its file: the counts drop by all of B's
 *    objects but that one, which the dma-buf holds, then by it when the dma-buf is closed.
 * 5. A exits with its objects open: its FILE_MIB go with it, and C can create again.
 * 6. Every worker gone: the card's and the global pinned bytes are 0, the objects as before.
 * 7. With CGROUP (a cgroup v2 directory with the memory controller, made by the guest
 *    script): a worker that moved itself into it creates a 4 MiB object and the cgroup's
 *    memory.current rises by 4 MiB or a little more (the kernel charges in batches), and
 *    falls back when the object is closed; with memory.max 2 MiB above what the cgroup
 *    holds, a 4 MiB object fails with -ENOMEM, a 1 MiB one is made.
 *
 * Prints "ok ..." or "FAIL ..." per check, then "pin_cap: N passed, N failed"; exit 0 only
 * without failures.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/driver/guest_util.h"
#include "quire/cmd.h"
#include "quire/regs.h"
#include "quire/status.h"

#define MIB         (1ull << 20)
#define MAX_OBJECTS 256

static const char *node;
static const char *cgroup;
static struct guest_tally tally;

static int check(int cond, const char *what)
{
	return tally_check(&tally, cond, what);
}

/* What a worker is told, and what it answers: an errno (0: done) and its object count. */
enum worker_op {
	OP_FILL = 'f',        /* 1 MiB objects until refused */
	OP_CREATE = 'c',      /* one object of arg MiB */
	OP_INFO = 'i',        /* INFO into its first object (a NOP without one) */
	OP_CLOSE_ALL = 'k',   /* GEM_CLOSE every object */
	OP_EXPORT = 'x',      /* its first object as a dma-buf, kept open */
	OP_DROP_FILE = 'd',   /* close its file of the card */
	OP_DROP_DMABUF = 'e', /* close the dma-buf */
	OP_CGROUP = 'g',      /* move into CGROUP */
};

struct worker_cmd {
	int op, arg;
};

struct worker_reply {
	int err, objects;
};

struct worker {
	pid_t pid;
	int to, from;
};

/* INFO into the object (the card writes its ID record there), or a NOP: 0 or an errno. */
static int card_job(int fd, uint32_t handle)
{
	struct drm_quire_submit s;
	uint32_t *p = NULL;
	uint64_t size = 0;
	memset(&s, 0, sizeof(s));
	s.opcode = QUIRE_OPC_NOP;
	if (handle) {
		p = guest_bo_map(fd, handle, &size);
		if (!p)
			return errno ? errno : EIO;
		memset(p, 0xa5, 64);
		s.opcode = QUIRE_OPC_INFO;
		s.bufs[QUIRE_DRM_BUF_DST].handle = handle;
	}
	int st = guest_run(fd, &s);
	int err = st < 0 ? -st : st != QUIRE_OK ? EIO : 0;
	if (p) {
		if (!err && p[0] != QUIRE_ID_MAGIC_VALUE)
			err = EIO;
		munmap(p, size);
	}
	return err;
}

static int join_cgroup(void)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	FILE *f = fopen(path, "w");
	if (!f)
		return errno;
	int ok = fprintf(f, "%d\n", (int)getpid()) > 0;
	return fclose(f) == 0 && ok ? 0 : EIO;
}

static void worker_main(int in, int out)
{
	uint32_t objects[MAX_OBJECTS];
	int fd = open(node, O_RDWR | O_CLOEXEC), n = 0, dmabuf = -1;
	struct worker_cmd c;
	while (read(in, &c, sizeof(c)) == (ssize_t)sizeof(c)) {
		struct worker_reply r = {fd < 0 ? EBADF : 0, 0};
		switch (c.op) {
		case OP_FILL:
			while (n < MAX_OBJECTS &&
			       (r.err = -guest_bo_create(fd, MIB, &objects[n])) == 0)
				n++;
			break;
		case OP_CREATE:
			r.err = n < MAX_OBJECTS
				    ? -guest_bo_create(fd, (uint64_t)c.arg * MIB, &objects[n])
				    : ENOSPC;
			n += r.err == 0;
			break;
		case OP_INFO:
			r.err = card_job(fd, n ? objects[0] : 0);
			break;
		case OP_CLOSE_ALL:
			while (n > 0)
				guest_gem_close(fd, objects[--n]);
			break;
		case OP_EXPORT:
			r.err = n ? -guest_export_fd(fd, objects[0], &dmabuf) : ENOENT;
			break;
		case OP_DROP_FILE:
			r.err = close(fd) == 0 ? 0 : errno;
			fd = -1;
			n = 0;
			break;
		case OP_DROP_DMABUF:
			r.err = close(dmabuf) == 0 ? 0 : errno;
			dmabuf = -1;
			break;
		case OP_CGROUP:
			r.err = join_cgroup();
			break;
		default:
			r.err = EINVAL;
		}
		r.objects = n;
		if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
			break;
	}
	_exit(0); /* the parent closed the pipe: leave, whatever is still open */
}

static int start(struct worker *w)
{
	int down[2], up[2];
	if (pipe(down) != 0 || pipe(up) != 0)
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		/* Only its own ends: a worker holding another's pipe would keep that one from
		 * seeing the end of its pipe when the parent closes it. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != down[0] && fd != up[1])
				close(fd);
		worker_main(down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	w->to = down[1];
	w->from = up[0];
	return 0;
}

/* Tell w to do op; its answer (err -1 when the worker is gone). */
static struct worker_reply ask(struct worker *w, int op, int arg)
{
	struct worker_cmd c = {op, arg};
	struct worker_reply r = {-1, -1};
	if (write(w->to, &c, sizeof(c)) != (ssize_t)sizeof(c) ||
	    read(w->from, &r, sizeof(r)) != (ssize_t)sizeof(r))
		r.err = -1;
	return r;
}

/* The worker leaves (its pipe closed) without closing anything, and is reaped. */
static void finish(struct worker *w)
{
	int status;
	close(w->to);
	close(w->from);
	waitpid(w->pid, &status, 0);
}

static long long pinned(const char *key)
{
	return read_debugfs_value(node, key);
}

/* Until the driver's pinned bytes (this card's and all cards') are want MiB: freeing an
 * object that a job or a closing file still held is not instant. */
static int pinned_is(long long want_mib)
{
	for (int t = 0; t < 200; t++) {
		if (pinned("pinned") == want_mib * (long long)MIB &&
		    pinned("pinned_all") == want_mib * (long long)MIB)
			return 1;
		usleep(50 * 1000);
	}
	return 0;
}

static const char *err_name(int err)
{
	return err == 0 ? "success" : err < 0 ? "worker gone" : strerror(err);
}

/* Tell w to do op and check that it answers want (an errno; 0: success); what has one %s,
 * for the answer. */
static struct worker_reply expect(struct worker *w, int op, int arg, int want, const char *what)
{
	char line[256];
	struct worker_reply r = ask(w, op, arg);
	snprintf(line, sizeof(line), what, err_name(r.err));
	check(r.err == want, line);
	return r;
}

static void caps(int file_mib, int global_mib, long long bos_before)
{
	char what[256];
	struct worker a, b, c;
	if (start(&a) != 0 || start(&b) != 0 || start(&c) != 0) {
		check(0, "start the worker processes");
		return;
	}
	struct worker_reply r = ask(&a, OP_FILL, 0);
	snprintf(what, sizeof(what),
		 "A pins 1 MiB objects until refused: %d, then %s (its file's cap %d MiB: "
		 "EDQUOT)",
		 r.objects, err_name(r.err), file_mib);
	check(r.objects == file_mib && r.err == EDQUOT, what);
	int at_cap = pinned_is(file_mib);
	snprintf(what, sizeof(what), "debugfs: the card pins %lld bytes, all cards %lld",
		 pinned("pinned"), pinned("pinned_all"));
	check(at_cap, what);

	expect(&b, OP_CREATE, 1, 0, "B, at the same time, creates a 1 MiB object: %s");
	expect(&b, OP_INFO, 0, 0, "the card runs INFO into B's object: %s");
	r = ask(&b, OP_FILL, 0);
	snprintf(what, sizeof(what),
		 "B pins more until refused: %d objects, then %s (the global cap %d MiB: "
		 "EDQUOT)",
		 r.objects, err_name(r.err), global_mib);
	check(r.objects == global_mib - file_mib && r.err == EDQUOT, what);
	check(pinned_is(global_mib), "debugfs: every card's objects pin the global cap");

	expect(&c, OP_CREATE, 1, EDQUOT, "C is refused a 1 MiB object: %s (global cap)");
	expect(&c, OP_INFO, 0, 0, "C's NOP on the card at the global cap: %s");
	expect(&a, OP_INFO, 0, 0, "A's object, INFO from the card at the caps: %s");

	int b_objects = global_mib - file_mib;
	r = ask(&b, OP_EXPORT, 0);
	check(r.err == 0, "B exports one object as a dma-buf");
	r = ask(&b, OP_DROP_FILE, 0);
	snprintf(what, sizeof(what),
		 "B closes its file: the %d MiB of its objects go but the exported one",
		 b_objects - 1);
	check(r.err == 0 && pinned_is(file_mib + 1), what);
	r = ask(&b, OP_DROP_DMABUF, 0);
	check(r.err == 0 && pinned_is(file_mib), "B closes the dma-buf: its last MiB goes");

	finish(&a);
	int zero = pinned_is(0);
	snprintf(what, sizeof(what), "A exits with its %d objects open: the card pins %lld bytes",
		 file_mib, pinned("pinned"));
	check(zero, what);
	expect(&c, OP_CREATE, 1, 0, "C now creates a 1 MiB object: %s");
	finish(&b);
	finish(&c);
	zero = pinned_is(0);
	snprintf(what, sizeof(what),
		 "every worker gone: the card pins %lld bytes, all cards %lld; %lld objects "
		 "(%lld before)",
		 pinned("pinned"), pinned("pinned_all"), pinned("bos"), bos_before);
	check(zero && pinned("bos") == bos_before, what);
}

/* A number of the cgroup's file name (memory.current); -1 if unreadable. */
static long long cgroup_value(const char *name)
{
	char path[256];
	long long v = -1;
	snprintf(path, sizeof(path), "%s/%s", cgroup, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int cgroup_set(const char *name, const char *value)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", cgroup, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return 0;
	int ok = fputs(value, f) >= 0;
	return fclose(f) == 0 && ok;
}

static void memcg(void)
{
	char what[256], max[32];
	struct worker w;
	if (start(&w) != 0) {
		check(0, "start the worker process");
		return;
	}
	struct worker_reply r = ask(&w, OP_CGROUP, 0);
	snprintf(what, sizeof(what), "a worker moves into %s: %s", cgroup, err_name(r.err));
	if (!check(r.err == 0, what)) {
		finish(&w);
		return;
	}
	long long m0 = cgroup_value("memory.current");
	r = ask(&w, OP_CREATE, 4);
	long long m1 = cgroup_value("memory.current");
	snprintf(what, sizeof(what),
		 "it creates a 4 MiB object (%s): the cgroup's memory.current %lld -> %lld, "
		 "+%lld KiB",
		 err_name(r.err), m0, m1, (m1 - m0) / 1024);
	check(r.err == 0 && m0 >= 0 && m1 - m0 >= (long long)(4 * MIB) &&
		  m1 - m0 < (long long)(5 * MIB),
	      what);
	r = ask(&w, OP_CLOSE_ALL, 0);
	long long m2 = cgroup_value("memory.current");
	snprintf(what, sizeof(what), "the object closed: memory.current %lld, -%lld KiB", m2,
		 (m1 - m2) / 1024);
	check(r.err == 0 && m1 - m2 >= (long long)(4 * MIB) - (long long)(512 << 10), what);

	snprintf(max, sizeof(max), "%lld", m2 + (long long)(2 * MIB));
	if (check(cgroup_set("memory.max", max), "memory.max set 2 MiB above memory.current")) {
		expect(&w, OP_CREATE, 4, ENOMEM, "a 4 MiB object past memory.max: %s (ENOMEM)");
		expect(&w, OP_CREATE, 1, 0, "a 1 MiB object within it: %s");
		check(cgroup_set("memory.max", "max"), "memory.max back to max");
	}
	finish(&w);
	check(pinned_is(0), "the worker gone: the driver pins nothing");
}

int main(int argc, char **argv)
{
	char path[64];
	if (argc < 3) {
		fprintf(stderr, "usage: pin_cap FILE_MIB GLOBAL_MIB [CGROUP]\n");
		return 2;
	}
	int file_mib = atoi(argv[1]), global_mib = atoi(argv[2]);
	cgroup = argc > 3 ? argv[3] : NULL;
	if (file_mib < 1 || global_mib < file_mib + 2 || global_mib >= 2 * file_mib ||
	    global_mib > MAX_OBJECTS) {
		fprintf(stderr,
			"pin_cap: want 1 <= FILE_MIB, FILE_MIB + 2 <= GLOBAL_MIB < "
			"2 * FILE_MIB, GLOBAL_MIB <= %d\n",
			MAX_OBJECTS);
		return 2;
	}
	if (find_quire_node(path, sizeof(path)) != 0)
		return 1;
	node = path;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0); /* every line out before a timeout could kill us */
	char what[160];
	snprintf(what, sizeof(what), "debugfs: caps %lld and %lld bytes, %lld pinned",
		 pinned("pinned_file_max"), pinned("pinned_max"), pinned("pinned_all"));
	check(pinned("pinned_file_max") == file_mib * (long long)MIB &&
		  pinned("pinned_max") == global_mib * (long long)MIB && pinned_is(0),
	      what);
	caps(file_mib, global_mib, pinned("bos"));
	if (cgroup)
		memcg();
	printf("pin_cap: %d passed, %d failed\n", tally.passed, tally.failed);
	return tally.failed != 0;
}
