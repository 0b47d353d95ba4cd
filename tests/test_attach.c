// SPDX-License-Identifier: MIT
/*
 * The attach to a card process (sim:PATH), against fake cards in this process that each
 * misbehave one way: one that accepts no connection, one whose backlog is full, one in
 * use by another host (it says BUSY every 100 ms, as quire-sim does), one that says BUSY
 * once and falls silent, one of another protocol, one that takes the host and then answers
 * no register read. Each attach fails with its own status,
 * within the caller's timeout (or wait) and after most of it, and quire_open_fault()
 * says why; a later open that succeeds clears it. tests/cli/test_attach.sh does the same
 * with real card processes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "quire.h"
#include "sim/protocol.h"

#define LIMIT_MS   400  /* QUIRE_TIMEOUT_MS */
#define MARGIN_MS  1000 /* past a limit, for a loaded machine */
#define HOLDER_PID 4242u

enum fake_kind { FAKE_BUSY, FAKE_BUSY_ONCE, FAKE_VERSION, FAKE_ACK_ONLY };

struct fake {
	char dir[64];
	struct sockaddr_un addr;
	char uri[128];
	int lfd;
	enum fake_kind kind;
	pthread_t thread;
	int serving;
};

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A listening socket nobody serves yet; backlog as given. */
static struct fake *fake_listen(int backlog)
{
	struct fake *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s/quire-attach-XXXXXX",
		 getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 40 ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	f->addr.sun_family = AF_UNIX;
	snprintf(f->addr.sun_path, sizeof(f->addr.sun_path), "%s/card.sock", f->dir);
	snprintf(f->uri, sizeof(f->uri), "sim:%s", f->addr.sun_path);
	f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(f->lfd >= 0);
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&f->addr, sizeof(f->addr)), 0);
	assert_int_equal(listen(f->lfd, backlog), 0);
	return f;
}

static void send_msg(int fd, uint32_t type, uint64_t v, uint64_t v2)
{
	struct quire_sim_msg m = {type, 0, v, v2};
	(void)!send(fd, &m, sizeof(m), MSG_NOSIGNAL);
}

/* One host: read its HELLO, then answer as the kind says until it leaves. */
static void *fake_serve(void *arg)
{
	struct fake *f = arg;
	int fd = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return NULL;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct quire_sim_msg m;
	struct iovec iov = {&m, sizeof(m)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	if (recvmsg(fd, &mh, MSG_CMSG_CLOEXEC) == (ssize_t)sizeof(m)) {
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		int memfd;
		if (c && c->cmsg_type == SCM_RIGHTS) {
			memcpy(&memfd, CMSG_DATA(c), sizeof(int));
			close(memfd);
		}
	}
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	/* Held for 5 s already, to the millisecond (whole seconds would make it 5 to 6 s). */
	uint64_t since = (uint64_t)wall.tv_sec * 1000 + (uint64_t)wall.tv_nsec / 1000000 - 5000;
	if (f->kind == FAKE_VERSION)
		send_msg(fd, QUIRE_SIM_HELLO_ACK, QUIRE_ERR_VERSION, 0);
	else if (f->kind == FAKE_ACK_ONLY)
		send_msg(fd, QUIRE_SIM_HELLO_ACK, QUIRE_OK, 0);
	else
		send_msg(fd, QUIRE_SIM_BUSY, HOLDER_PID, since);
	/* Until the host leaves: BUSY again at the card's interval, or nothing at all. */
	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		int r = poll(&p, 1, QUIRE_SIM_BUSY_INTERVAL_MS);
		char drop[sizeof(m)];
		if (r < 0 || (r > 0 && recv(fd, drop, sizeof(drop), 0) <= 0))
			break; /* what the host asks is read and never answered */
		if (r > 0)
			continue;
		if (f->kind == FAKE_BUSY)
			send_msg(fd, QUIRE_SIM_BUSY, HOLDER_PID, since);
	}
	close(fd);
	return NULL;
}

static struct fake *fake_card(enum fake_kind kind)
{
	struct fake *f = fake_listen(8);
	f->kind = kind;
	assert_int_equal(pthread_create(&f->thread, NULL, fake_serve, f), 0);
	f->serving = 1;
	return f;
}

static void fake_free(struct fake *f)
{
	if (f->serving) {
		/* The host has gone: the thread has seen its socket close. */
		pthread_join(f->thread, NULL);
	}
	close(f->lfd);
	unlink(f->addr.sun_path);
	rmdir(f->dir);
	free(f);
}

/* quire_open(uri) with these limits: its status; its time in *took. */
static int attach(const char *uri, int timeout_ms, int wait_ms, int64_t *took)
{
	char v[16];
	snprintf(v, sizeof(v), "%d", timeout_ms);
	setenv("QUIRE_TIMEOUT_MS", v, 1);
	snprintf(v, sizeof(v), "%d", wait_ms);
	setenv("QUIRE_ATTACH_WAIT_MS", v, 1);
	struct quire_ctx *ctx = NULL;
	int64_t t0 = now_ms();
	int st = quire_open(uri, &ctx);
	*took = now_ms() - t0;
	if (ctx)
		quire_close(ctx);
	return st;
}

static void assert_took(int64_t took, int limit_ms)
{
	print_message("    took %lld ms (limit %d ms)\n", (long long)took, limit_ms);
	assert_true(took >= limit_ms * 3 / 4);
	assert_true(took <= limit_ms + MARGIN_MS);
}

static void assert_fault(const char *part)
{
	const char *why = quire_open_fault();
	assert_non_null(why);
	print_message("    %s\n", why);
	assert_non_null(strstr(why, part));
}

/* The attach to f fails with status after limit_ms (the timeout, or the wait), saying why;
 * f is freed. */
static void fails(struct fake *f, int wait_ms, int status, int limit_ms, const char *why)
{
	int64_t took;
	assert_int_equal(attach(f->uri, LIMIT_MS, wait_ms, &took), status);
	assert_took(took, limit_ms);
	assert_fault(why);
	fake_free(f);
}

/* Connected, never accepted: the card process is stopped. */
static void test_silent(void **state)
{
	(void)state;
	fails(fake_listen(8), 30000, QUIRE_ERR_TIMEOUT, LIMIT_MS, "did not answer the attach");
}

/* A stopped card whose backlog is full: connect itself would wait as long as the card. */
static void test_backlog_full(void **state)
{
	(void)state;
	struct fake *f = fake_listen(0);
	int fds[16], n = 0;
	for (; n < 16; n++) {
		fds[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		assert_true(fds[n] >= 0);
		if (connect(fds[n], (struct sockaddr *)&f->addr, sizeof(f->addr)) != 0) {
			assert_int_equal(errno, EAGAIN);
			close(fds[n]);
			break;
		}
	}
	assert_true(n < 16);
	fails(f, 30000, QUIRE_ERR_TIMEOUT, LIMIT_MS, "accepted no connection");
	while (n--)
		close(fds[n]);
}

/* In use by another host for longer than we wait: BUSY, naming it. A wait longer than the
 * timeout: the card's BUSY keeps the attach alive. */
static void test_busy(void **state)
{
	(void)state;
	fails(fake_card(FAKE_BUSY), 3 * LIMIT_MS, QUIRE_ERR_BUSY, 3 * LIMIT_MS,
	      "in use by pid 4242 since ");
}

/* No wait at all: BUSY as soon as the card says it. */
static void test_busy_no_wait(void **state)
{
	(void)state;
	struct fake *f = fake_card(FAKE_BUSY);
	int64_t took;
	assert_int_equal(attach(f->uri, LIMIT_MS, 0, &took), QUIRE_ERR_BUSY);
	assert_true(took < MARGIN_MS);
	/* "(N s ago)": 5 s and however long the attach took, on a loaded machine too. */
	assert_fault(" s ago)");
	const char *ago = strstr(quire_open_fault(), "s ago)");
	while (ago > quire_open_fault() && ago[-1] != '(')
		ago--;
	double s = strtod(ago, NULL);
	assert_true(s >= 4.9 && s <= 5.0 + MARGIN_MS / 1000.0);
	fake_free(f);
}

/* In use, then silent: the card froze while we waited our turn. */
static void test_busy_then_silent(void **state)
{
	(void)state;
	fails(fake_card(FAKE_BUSY_ONCE), 30000, QUIRE_ERR_TIMEOUT, LIMIT_MS, "fell silent");
}

/* Attached, then silent: the probe's first register read runs out of the same timeout. */
static void test_ack_then_silent(void **state)
{
	(void)state;
	fails(fake_card(FAKE_ACK_ONLY), 30000, QUIRE_ERR_TIMEOUT, LIMIT_MS,
	      "did not answer a register read");
}

static void test_version(void **state)
{
	(void)state;
	struct fake *f = fake_card(FAKE_VERSION);
	int64_t took;
	assert_int_equal(attach(f->uri, LIMIT_MS, 30000, &took), QUIRE_ERR_VERSION);
	assert_fault("another protocol");
	fake_free(f);
	/* What the failed open said is gone once an open succeeds. */
	struct quire_ctx *ctx;
	assert_int_equal(quire_open("cpu", &ctx), QUIRE_OK);
	assert_null(quire_open_fault());
	quire_close(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_silent),
	    cmocka_unit_test(test_backlog_full),
	    cmocka_unit_test(test_busy),
	    cmocka_unit_test(test_busy_no_wait),
	    cmocka_unit_test(test_busy_then_silent),
	    cmocka_unit_test(test_ack_then_silent),
	    cmocka_unit_test(test_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
