// SPDX-License-Identifier: MIT
/*
 * A card in a quire-sim process, over a Unix socket (sim/protocol.h). Host
 * memory is a memfd both processes map. With no socket path given, a
 * quire-sim is started for this transport alone and ended with it.
 *
 * A card process can stop answering without going away (stopped, wedged): every
 * exchange is bounded by t.timeout_ms, and a card that lets one run out is marked
 * hung and not asked again, so no call waits for it twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/protocol.h"
#include "host/src/core/core.h"
#include "transport.h"
#include "sim/locate.h"

struct sock {
	struct transport t;
	struct quire_device dev;
	int fd, memfd;
	int lost;
	int hung;       /* a register access ran out of time: the card is not asked again */
	uint32_t stale; /* reads that ran out of time: their replies, when they come, are old */
	uint64_t irqs_pending;
	pid_t child;                            /* a quire-sim of our own, or 0 */
	char dir[QUIRE_SIM_DIR_MAX], path[128]; /* its socket */
};

static struct sock *sock_of_dev(struct quire_device *d)
{
	return (struct sock *)((char *)d - offsetof(struct sock, dev));
}

static int send_msg(struct sock *s, uint32_t type, uint32_t off, uint64_t v, uint64_t v2)
{
	struct quire_sim_msg m = {type, off, v, v2};
	if (s->lost || s->hung)
		return -1;
	for (;;) {
		ssize_t n = send(s->fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == (ssize_t)sizeof(m))
			return 0;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
			/* A card that reads nothing fills the socket: wait for room, not forever.
			 */
			struct pollfd p = {s->fd, POLLOUT, 0};
			int r = poll(&p, 1, s->t.timeout_ms);
			if (r > 0 || (r < 0 && errno == EINTR))
				continue;
			if (r == 0) {
				s->hung = 1;
				return -1;
			}
		}
		s->lost = 1; /* a short write of a 24-byte message: the stream is broken */
		return -1;
	}
}

/* One message from the card, waiting at most timeout_ms: 1 read, 0 none, -1 gone. */
static int recv_msg(struct sock *s, struct quire_sim_msg *m, int timeout_ms)
{
	if (s->lost)
		return -1;
	struct pollfd p = {s->fd, POLLIN, 0};
	int r = poll(&p, 1, timeout_ms);
	if (r == 0 || (r < 0 && errno == EINTR))
		return 0;
	size_t got = 0;
	while (got < sizeof(*m)) {
		ssize_t n = recv(s->fd, (char *)m + got, sizeof(*m) - got, 0);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			s->lost = 1;
			return -1;
		}
		got += (size_t)n;
	}
	return 1;
}

static uint32_t sock_read(struct quire_device *d, uint32_t off)
{
	struct sock *s = sock_of_dev(d);
	struct quire_sim_msg m;
	if (send_msg(s, QUIRE_SIM_MMIO_READ, off, 0, 0))
		return 0xffffffffu;
	int64_t end = s->t.timeout_ms < 0 ? -1 : quire_now_ms() + s->t.timeout_ms;
	for (;;) { /* interrupts may come first: count them for wait_irq */
		int64_t left = end < 0 ? -1 : end - quire_now_ms();
		int r = left == 0 || left < -1 ? 0 : recv_msg(s, &m, (int)left);
		if (r < 0)
			return 0xffffffffu;
		if (r == 0) {
			if (end >= 0 && quire_now_ms() < end)
				continue; /* a signal woke the poll */
			s->hung = 1;
			s->stale++;
			return 0xffffffffu;
		}
		if (m.type == QUIRE_SIM_IRQ)
			s->irqs_pending++;
		else if (m.type == QUIRE_SIM_READ_REPLY && s->stale)
			s->stale--; /* the answer to a read that gave up: the card answers in order
				     */
		else if (m.type == QUIRE_SIM_READ_REPLY)
			return (uint32_t)m.value;
	}
}

static void sock_write(struct quire_device *d, uint32_t off, uint32_t v)
{
	send_msg(sock_of_dev(d), QUIRE_SIM_MMIO_WRITE, off, v, 0);
}

static const struct quire_device_ops sock_dev_ops = {
    .mmio_read = sock_read,
    .mmio_write = sock_write,
};

static int sock_wait(struct transport *t, int timeout_ms)
{
	struct sock *s = (struct sock *)t;
	struct quire_sim_msg m;
	if (s->hung)
		return QUIRE_ERR_TIMEOUT;
	if (s->irqs_pending) {
		s->irqs_pending = 0;
		return QUIRE_OK;
	}
	int r = recv_msg(s, &m, timeout_ms);
	if (r < 0)
		return QUIRE_ERR_PEER;
	if (r > 0 && m.type == QUIRE_SIM_READ_REPLY && s->stale)
		s->stale--;
	return r == 0 ? QUIRE_ERR_TIMEOUT : QUIRE_OK;
}

static int sock_state(struct transport *t)
{
	struct sock *s = (struct sock *)t;
	return s->lost ? QUIRE_ERR_PEER : s->hung ? QUIRE_ERR_TIMEOUT : QUIRE_OK;
}

static void sock_revive(struct transport *t)
{
	((struct sock *)t)->hung = 0;
}

#define STOP_GRACE_MS 2000 /* how long our own card process may take to end on SIGTERM */

static void stop_child(struct sock *s)
{
	if (s->child > 0) {
		/* A hung card may be stopped, and a stopped process acts on no SIGTERM. */
		kill(s->child, s->hung ? SIGKILL : SIGTERM);
		int64_t t0 = quire_now_ms();
		while (waitpid(s->child, NULL, WNOHANG) == 0) {
			if (quire_now_ms() - t0 > STOP_GRACE_MS) {
				kill(s->child, SIGKILL);
				waitpid(s->child, NULL, 0);
				break;
			}
			usleep(5000);
		}
		s->child = 0;
	}
	if (s->path[0])
		unlink(s->path);
	if (s->dir[0])
		rmdir(s->dir);
}

static void sock_close(struct transport *t)
{
	struct sock *s = (struct sock *)t;
	if (s->fd >= 0)
		close(s->fd);
	stop_child(s);
	if (t->mem && t->mem != MAP_FAILED)
		munmap(t->mem, t->mem_size);
	if (s->memfd >= 0)
		close(s->memfd);
	free(s);
}

static int spawn(struct sock *s)
{
	if (quire_sim_mkdtemp(s->dir, sizeof(s->dir), "quire-sim") != 0) {
		s->dir[0] = '\0';
		return QUIRE_ERR_IO;
	}
	snprintf(s->path, sizeof(s->path), "%s/card.sock", s->dir);
	char bin[PATH_MAX];
	quire_sim_locate(bin, sizeof(bin));
	pid_t parent = getpid();
	s->child = fork();
	if (s->child < 0)
		return QUIRE_ERR_IO;
	if (s->child == 0) {
		/* The card process ends with its host, whatever way the host ends. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		execlp(bin, "quire-sim", "--socket", s->path, "--once", "--quiet", (char *)NULL);
		fprintf(stderr,
			"quire: cannot start %s: %s (build it with make, or set QUIRE_SIM)\n", bin,
			strerror(errno));
		_exit(127);
	}
	return QUIRE_OK;
}

/*
 * Connect to the card's socket, trying again for wait_ms while it is not there yet (a card
 * we started) or its backlog is full (a card that accepts nothing: stopped). Non-blocking,
 * since a blocking connect to a full backlog waits as long as the card does.
 */
static int connect_to(const char *path, int wait_ms, pid_t child)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	for (int64_t t0 = quire_now_ms();;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			/* The exchanges below poll for the card themselves. */
			int fl = fcntl(fd, F_GETFL);
			if (fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0)
				return fd;
			close(fd);
			return -1;
		}
		int busy = errno == EAGAIN;
		close(fd);
		if (child > 0 && waitpid(child, NULL, WNOHANG) == child)
			return -1; /* it died before listening */
		if (!busy && child <= 0)
			return -1; /* nobody listens there */
		if (quire_now_ms() - t0 > wait_ms)
			return busy ? -2 : -1;
		usleep(5000);
	}
}

/* "HH:MM:SS (N.N s)": when a holder attached (CLOCK_REALTIME ms), and how long ago. */
static void since_str(uint64_t at_ms, char *out, size_t n)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t ago = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 - (int64_t)at_ms;
	time_t t = (time_t)(at_ms / 1000);
	struct tm tm;
	if (!at_ms || !localtime_r(&t, &tm)) {
		snprintf(out, n, "an unknown time");
		return;
	}
	snprintf(out, n, "%02d:%02d:%02d (%.1f s ago)", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 ago < 0 ? 0.0 : (double)ago / 1000);
}

/*
 * Attach: HELLO, then the card's answer. A card answers at once, HELLO_ACK or BUSY, and
 * says BUSY again every QUIRE_SIM_BUSY_INTERVAL_MS while another host holds it, so
 * silence for the caller's timeout means a card that does not answer (QUIRE_ERR_TIMEOUT),
 * and BUSY for wait_ms a card in use (QUIRE_ERR_BUSY, naming its holder).
 */
static int hello(struct sock *s, const char *where, int timeout_ms, int wait_ms)
{
	struct quire_sim_msg m = {QUIRE_SIM_HELLO, QUIRE_SIM_PROTOCOL_VERSION, s->t.mem_size,
				  s->t.iova};
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {&m, sizeof(m)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &s->memfd, sizeof(int));
	/* An empty socket takes one message without blocking, stopped card or not. */
	if (sendmsg(s->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(m)) {
		quire_open_fault_set("card at %s closed the connection at attach", where);
		return QUIRE_ERR_PEER;
	}
	/* Once the card has spoken it is known alive: between its BUSY messages it may be
	 * starved a little, so a timeout shorter than a few of their intervals is not held
	 * against it. */
	const int64_t start = quire_now_ms();
	int64_t heard = start;
	int busy = 0;
	struct quire_sim_msg b = {0};
	for (;;) {
		int64_t silence = timeout_ms < 0 ? -1 : timeout_ms;
		if (busy && silence >= 0 && silence < 4 * (int64_t)QUIRE_SIM_BUSY_INTERVAL_MS)
			silence = 4 * (int64_t)QUIRE_SIM_BUSY_INTERVAL_MS;
		int64_t end = silence < 0 ? INT64_MAX : heard + silence;
		if (busy && start + wait_ms < end)
			end = start + wait_ms;
		int64_t now = quire_now_ms();
		int64_t left = end == INT64_MAX ? -1 : end > now ? end - now : 0;
		int r = left == 0 ? 0 : recv_msg(s, &m, left > INT32_MAX ? INT32_MAX : (int)left);
		if (r < 0) {
			quire_open_fault_set("card at %s closed the connection at attach", where);
			return QUIRE_ERR_PEER;
		}
		now = quire_now_ms();
		if (r == 0 && now < end)
			continue; /* a signal woke the poll */
		if (r == 0 && busy && (silence < 0 || now - heard < silence)) {
			char since[64];
			since_str(b.value2, since, sizeof(since));
			quire_open_fault_set(
			    "card at %s is in use by pid %llu since %s; waited %lld ms "
			    "for it (QUIRE_ATTACH_WAIT_MS)",
			    where, (unsigned long long)b.value, since, (long long)(now - start));
			return QUIRE_ERR_BUSY;
		}
		if (r == 0) {
			quire_open_fault_set(
			    "card at %s did not answer the attach within %lld ms%s", where,
			    (long long)(now - heard),
			    busy ? " (it had said it was in use, then fell silent)"
				 : " (stopped, wedged, or a card process older than this library)");
			return QUIRE_ERR_TIMEOUT;
		}
		if (m.type == QUIRE_SIM_BUSY) {
			busy = 1;
			b = m;
			heard = now;
			continue;
		}
		if (m.type != QUIRE_SIM_HELLO_ACK) {
			quire_open_fault_set("card at %s answered the attach with message %u",
					     where, m.type);
			return QUIRE_ERR_PEER;
		}
		if (m.value == QUIRE_ERR_VERSION)
			quire_open_fault_set("card at %s speaks another protocol than version %u",
					     where, QUIRE_SIM_PROTOCOL_VERSION);
		else if (m.value == QUIRE_ERR_BUSY)
			quire_open_fault_set("card at %s is in use by pid %llu and has no room for "
					     "more waiting hosts",
					     where, (unsigned long long)b.value);
		return (int)m.value;
	}
}

size_t transport_host_bytes(void)
{
	const char *mb = getenv("QUIRE_SIM_HOST_MB");
	long v = mb ? atol(mb) : 0;
	return (size_t)(v > 0 && v < (1L << 20) ? v : QUIRE_SIM_HOST_MB) << 20;
}

int transport_socket_open(const char *path, int timeout_ms, struct transport **out)
{
	struct sock *s = calloc(1, sizeof(*s));
	if (!s)
		return QUIRE_ERR_NOMEM;
	s->fd = s->memfd = -1;
	s->dev.ops = &sock_dev_ops;
	s->t.dev = &s->dev;
	s->t.iova = QUIRE_SIM_IOVA;
	s->t.mem_size = transport_host_bytes();
	s->t.wait_irq = sock_wait;
	s->t.state = sock_state;
	s->t.revive = sock_revive;
	s->t.close = sock_close;
	s->t.timeout_ms = timeout_ms;
	int st = QUIRE_OK;
	s->memfd = memfd_create("quire-host-memory", MFD_CLOEXEC);
	if (s->memfd < 0 || ftruncate(s->memfd, (off_t)s->t.mem_size) != 0) {
		st = QUIRE_ERR_NOMEM;
		goto fail;
	}
	s->t.mem = mmap(NULL, s->t.mem_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->memfd, 0);
	if (s->t.mem == MAP_FAILED) {
		st = QUIRE_ERR_NOMEM;
		goto fail;
	}
	if (!path && (st = spawn(s)) != QUIRE_OK)
		goto fail;
	const char *where = path ? path : s->path;
	s->fd = connect_to(where, path ? timeout_ms : 5000, s->child);
	if (s->fd == -2) {
		quire_open_fault_set("card at %s accepted no connection within %d ms", where,
				     timeout_ms);
		st = QUIRE_ERR_TIMEOUT;
		goto fail;
	}
	if (s->fd < 0) {
		st = QUIRE_ERR_NO_DEVICE;
		goto fail;
	}
	st = hello(s, where, timeout_ms, quire_env_attach_wait_ms());
	if (st != QUIRE_OK)
		goto fail;
	*out = &s->t;
	return QUIRE_OK;
fail:
	sock_close(&s->t);
	return st;
}
