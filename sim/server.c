// SPDX-License-Identifier: MIT
/*
 * quire-sim: one simulated card as a process, serving hosts over a Unix
 * socket (sim/protocol.h), one at a time. When a host goes away, whatever it
 * had in flight, the card drops its queues and serves the next one. With
 * --ivshmem the socket is an ivshmem server instead, and the host a QEMU guest
 * whose driver reaches the card through ivshmem-doorbell (sim/ivshmem.c).
 *
 * The card is a model behind sim/device.h: the emu (sim/emu/, the default) or,
 * with --model rtl, the RTL card under Verilator (sim/rtl/rtl_device.h). This
 * file builds twice: quire-sim, with the emu only, which runs quire-sim-rtl
 * (beside it, or $QUIRE_SIM_RTL) for --model rtl; and quire-sim-rtl
 * (QUIRE_SIM_RTL defined, built where Verilator is installed), with both.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "firmware/layout.h"
#include "quire/boards.h"
#include "quire/regblock.h"
#include "quire/regs.h"
#include "quire/status.h"
#include "sim/clock.h"
#include "sim/emu/emu.h"
#include "sim/ivshmem.h"
#include "sim/locate.h"
#include "sim/protocol.h"
#include "sim/wire_udp_rendezvous.h"
#include "sim/wire_udp.h"
#ifdef QUIRE_SIM_RTL
#include "sim/rtl/rtl_device.h"
#define DEFAULT_MODEL "rtl"
#else
#define DEFAULT_MODEL "emu"
#endif

/* --mem: at least what the firmware needs (below it, it halts and no host finds the card),
 * at most what this process can sensibly hold: the model keeps card memory in its own. */
#define MEM_MIN_MIB ((FW_MEM_NEEDED + (1u << 20) - 1) >> 20)
#define MEM_MAX_MIB 4096u

static volatile sig_atomic_t stopping;

/* Hosts that said HELLO while another held the card, or that have not said it yet; more
 * are told BUSY at once and let go. */
#define MAX_WAITING 16
/* A connection's HELLO must come within this, or the connection is dropped (a probe, or
 * a host that is not one). */
#define HELLO_WAIT_MS 10000

struct waiter {
	int fd;
	int memfd;     /* its host memory, once HELLO came; -1 before */
	pid_t pid;     /* the host's process (SO_PEERCRED), 0 if unknown */
	int64_t since; /* when it connected (monotonic ms) */
	struct quire_sim_msg hello;
};

struct server {
	struct quire_device *dev;
	pthread_mutex_t send_lock; /* the firmware thread sends IRQs too */
	int client;                /* -1 between hosts */
	int quiet;
	/* The session of the host that holds the card. */
	void *mem;
	uint64_t size;
	pid_t holder;          /* its pid, 0 if unknown */
	uint64_t holder_since; /* when it attached: CLOCK_REALTIME ms, for the waiting hosts */
	struct waiter wait[MAX_WAITING];
	int n_wait;
	int64_t busy_sent_at; /* when the waiting hosts were last told BUSY */
};

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void send_msg(struct server *s, const struct quire_sim_msg *m)
{
	pthread_mutex_lock(&s->send_lock);
	if (s->client >= 0)
		(void)!send(s->client, m, sizeof(*m), MSG_NOSIGNAL);
	pthread_mutex_unlock(&s->send_lock);
}

/* To a host that does not hold the card: never blocking, since a stopped host that reads
 * nothing must not stop the card. A message that does not fit is lost; BUSY comes again. */
static void send_to(int fd, uint32_t type, uint32_t off, uint64_t v, uint64_t v2)
{
	struct quire_sim_msg m = {type, off, v, v2};
	(void)!send(fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void on_irq(void *ctx, uint32_t causes)
{
	struct quire_sim_msg m = {QUIRE_SIM_IRQ, 0, causes, 0};
	send_msg(ctx, &m);
}

/* Read one whole message (flags: MSG_DONTWAIT for a host that may send half of one); 0 at
 * the end of the session, or when a message is not whole. */
static int recv_full(int fd, struct quire_sim_msg *m, int *memfd, int flags)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {m, sizeof(*m)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = memfd ? sizeof(cbuf) : 0};
	size_t got = 0;
	while (got < sizeof(*m)) {
		iov.iov_base = (char *)m + got;
		iov.iov_len = sizeof(*m) - got;
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | flags);
		if (n < 0 && errno == EINTR && !stopping)
			continue;
		if (n <= 0)
			return 0;
		if (memfd && got == 0) {
			struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
			if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
				memcpy(memfd, CMSG_DATA(c), sizeof(int));
			mh.msg_controllen = 0;
		}
		got += (size_t)n;
	}
	return 1;
}

/* Commands the host rang in and had not seen complete when it went: its command queue's
 * producer (the host's doorbell) less its completion queue's consumer (what the host took;
 * it writes it before a wait returns). The card may finish such a command after its host
 * died, but the host was waiting on it. The queues are found by the contract's walk
 * (quire/regblock.h); a card whose chain it refuses has none in flight. */
static uint32_t in_flight(struct quire_device *dev)
{
	uint32_t cmdq, cplq;
	const struct quire_regblock_need need[] = {
	    {QUIRE_RB_TYPE_CMDQ, QUIRE_RB_CMDQ_VERSION, &cmdq},
	    {QUIRE_RB_TYPE_CPLQ, QUIRE_RB_CPLQ_VERSION, &cplq},
	};
	struct quire_regblock_chain chain;
	if (quire_regblock_walk(quire_device_read32, dev, &chain) != QUIRE_OK ||
	    quire_regblock_find_all(&chain, need, sizeof(need) / sizeof(need[0]), NULL) != QUIRE_OK)
		return 0;
	return dev->ops->mmio_read(dev, cmdq + QUIRE_Q_PRODUCER) -
	       dev->ops->mmio_read(dev, cplq + QUIRE_Q_CONSUMER);
}

/* Attach the host of w (which said HELLO) to the card: the session starts, or the host is
 * refused and let go. Takes w's descriptors. */
static void start_session(struct server *s, struct waiter *w)
{
	const struct quire_sim_msg *m = &w->hello;
	int status;
	s->size = m->value;
	s->mem = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, w->memfd, 0);
	status = s->mem == MAP_FAILED
		     ? QUIRE_ERR_NOMEM
		     : s->dev->ops->attach_host(s->dev, s->mem, m->value2, s->size);
	close(w->memfd);
	if (status != QUIRE_OK) {
		if (s->mem != MAP_FAILED)
			munmap(s->mem, s->size);
		s->mem = MAP_FAILED;
		send_to(w->fd, QUIRE_SIM_HELLO_ACK, 0, (uint64_t)status, 0);
		close(w->fd);
		return;
	}
	pthread_mutex_lock(&s->send_lock);
	s->client = w->fd;
	pthread_mutex_unlock(&s->send_lock);
	s->holder = w->pid;
	s->holder_since = quire_sim_wall_ms();
	struct quire_sim_msg ack = {QUIRE_SIM_HELLO_ACK, 0, QUIRE_OK, 0};
	send_msg(s, &ack);
	/* The pid lets a test (and a person) see which host the card serves. */
	if (!s->quiet)
		fprintf(stderr, "quire-sim: host connected (pid %ld, %llu MiB of host memory)\n",
			(long)w->pid, (unsigned long long)(s->size >> 20));
	s->dev->ops->set_irq(s->dev, on_irq, s);
}

static void end_session(struct server *s)
{
	/* The host is gone (or we stop): nothing of it may be touched any more. */
	uint32_t left = s->quiet ? 0 : in_flight(s->dev);
	s->dev->ops->set_irq(s->dev, NULL, NULL);
	s->dev->ops->detach_host(s->dev);
	if (!s->quiet && left)
		fprintf(stderr,
			"quire-sim: host gone with %u command%s in flight; serving the next one\n",
			left, left == 1 ? "" : "s");
	else if (!s->quiet)
		fprintf(stderr, "quire-sim: host gone; serving the next one\n");
	pthread_mutex_lock(&s->send_lock);
	int fd = s->client;
	s->client = -1;
	pthread_mutex_unlock(&s->send_lock);
	close(fd);
	munmap(s->mem, s->size);
	s->mem = MAP_FAILED;
	s->holder = 0;
}

/* The holder's messages that are there now (at most a batch, so that waiting hosts are
 * heard too); 0 once it has gone. */
static int serve_client(struct server *s)
{
	struct quire_sim_msg m;
	for (int i = 0; i < 256; i++) {
		if (!recv_full(s->client, &m, NULL, 0))
			return 0;
		if (m.type == QUIRE_SIM_MMIO_READ) {
			struct quire_sim_msg r = {QUIRE_SIM_READ_REPLY, m.offset,
						  s->dev->ops->mmio_read(s->dev, m.offset), 0};
			send_msg(s, &r);
		} else if (m.type == QUIRE_SIM_MMIO_WRITE) {
			s->dev->ops->mmio_write(s->dev, m.offset, (uint32_t)m.value);
		}
		struct pollfd p = {s->client, POLLIN, 0};
		if (poll(&p, 1, 0) <= 0)
			break;
	}
	return 1;
}

/* Waiter i out of the line, its descriptors kept (the caller's now). */
static void remove_waiter(struct server *s, int i)
{
	memmove(&s->wait[i], &s->wait[i + 1], (size_t)(s->n_wait - i - 1) * sizeof(s->wait[0]));
	s->n_wait--;
}

static void drop_waiter(struct server *s, int i)
{
	close(s->wait[i].fd);
	if (s->wait[i].memfd >= 0)
		close(s->wait[i].memfd);
	remove_waiter(s, i);
}

static void tell_busy(struct server *s, const struct waiter *w, int ahead)
{
	send_to(w->fd, QUIRE_SIM_BUSY, (uint32_t)ahead, (uint64_t)s->holder, s->holder_since);
}

/* A new connection: it waits for its HELLO, or is told BUSY and let go if the line is full. */
static void take_connection(struct server *s, int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	struct ucred cred = {0};
	socklen_t len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		cred.pid = 0;
	if (s->n_wait == MAX_WAITING) {
		send_to(fd, QUIRE_SIM_BUSY, MAX_WAITING, (uint64_t)s->holder, s->holder_since);
		send_to(fd, QUIRE_SIM_HELLO_ACK, 0, (uint64_t)QUIRE_ERR_BUSY, 0);
		close(fd);
		return;
	}
	s->wait[s->n_wait++] = (struct waiter){fd, -1, cred.pid, quire_sim_mono_ms(), {0}};
}

/*
 * Something from a waiting host: its HELLO, answered at once (attached if the card is free
 * and it is first in line, else BUSY), or its leaving. 0 when it is to be dropped.
 */
static int hear_waiter(struct server *s, int i)
{
	struct waiter *w = &s->wait[i];
	if (w->memfd >= 0)
		return 0; /* after HELLO a host says nothing until it is attached: it has gone */
	struct quire_sim_msg m;
	if (!recv_full(w->fd, &m, &w->memfd, MSG_DONTWAIT) || m.type != QUIRE_SIM_HELLO ||
	    w->memfd < 0) {
		send_to(w->fd, QUIRE_SIM_HELLO_ACK, 0, (uint64_t)QUIRE_ERR_INVALID, 0);
		return 0;
	}
	if (m.offset != QUIRE_SIM_PROTOCOL_VERSION) {
		send_to(w->fd, QUIRE_SIM_HELLO_ACK, 0, (uint64_t)QUIRE_ERR_VERSION, 0);
		return 0;
	}
	w->hello = m;
	int ahead = 0;
	for (int j = 0; j < i; j++)
		ahead += s->wait[j].memfd >= 0;
	if (s->client >= 0 || ahead) {
		tell_busy(s, w, ahead);
		if (!s->quiet)
			fprintf(stderr,
				"quire-sim: host pid %ld waits its turn (pid %ld has the card)\n",
				(long)w->pid, (long)s->holder);
	}
	return 1;
}

/* Serve hosts on lfd, one at a time, until stopped (or, with once, the first has left). */
static void serve(struct server *s, int lfd, int once)
{
	while (!stopping) {
		struct pollfd p[2 + MAX_WAITING];
		int n = 0;
		p[n++] = (struct pollfd){lfd, POLLIN, 0};
		int client_at = -1;
		if (s->client >= 0) {
			client_at = n;
			p[n++] = (struct pollfd){s->client, POLLIN, 0};
		}
		int waiters_at = n;
		for (int i = 0; i < s->n_wait; i++)
			p[n++] = (struct pollfd){s->wait[i].fd, POLLIN, 0};
		int64_t now = quire_sim_mono_ms();
		int wait_ms = 200; /* to see `stopping` */
		if (s->n_wait) {
			int64_t next = s->busy_sent_at + QUIRE_SIM_BUSY_INTERVAL_MS - now;
			wait_ms = next < 0 ? 0 : next < wait_ms ? (int)next : wait_ms;
		}
		int r = poll(p, (nfds_t)n, wait_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && client_at >= 0 && p[client_at].revents && !serve_client(s)) {
			end_session(s);
			if (once)
				break;
		}
		/* Backwards: dropping a waiter moves those after it. */
		for (int i = s->n_wait - 1; r > 0 && i >= 0; i--)
			if (p[waiters_at + i].revents && !hear_waiter(s, i))
				drop_waiter(s, i);
		now = quire_sim_mono_ms();
		for (int i = s->n_wait - 1; i >= 0; i--)
			if (s->wait[i].memfd < 0 && now - s->wait[i].since > HELLO_WAIT_MS)
				drop_waiter(s, i);
		if (r > 0 && (p[0].revents & POLLIN))
			take_connection(s, lfd);
		/* The card is free: the first host in line that said HELLO has it. */
		for (int i = 0; s->client < 0 && i < s->n_wait; i++) {
			if (s->wait[i].memfd < 0)
				continue;
			struct waiter w = s->wait[i];
			remove_waiter(s, i); /* its descriptors go to start_session */
			start_session(s, &w);
			i--;
		}
		if (s->n_wait &&
		    quire_sim_mono_ms() - s->busy_sent_at >= QUIRE_SIM_BUSY_INTERVAL_MS) {
			int ahead = 0;
			for (int i = 0; i < s->n_wait; i++) {
				if (s->wait[i].memfd < 0)
					continue;
				tell_busy(s, &s->wait[i], ahead++);
			}
			s->busy_sent_at = quire_sim_mono_ms();
		}
	}
	if (s->client >= 0)
		end_session(s);
	while (s->n_wait)
		drop_waiter(s, s->n_wait - 1);
}

/* A printf format: the --mem bounds come from the firmware's layout. */
static const char usage[] =
    "Usage: quire-sim --socket PATH [--model emu|rtl] [--once] [--mem MiB] [--quiet]\n"
    "                 [--net DIR --addr N [--net-drop P] [--net-corrupt P] [--net-seed S]]\n"
    "       quire-sim --ivshmem PATH --guest-ram FILE [the same other options]\n"
    "Serve one simulated quire card (a card model running the real firmware) on a Unix socket.\n\n"
    "  -s, --socket PATH    where to listen (a stale socket there is replaced, nothing else)\n"
    "      --ivshmem PATH   be an ivshmem server on PATH instead, the card its peer 0, for\n"
    "                       QEMU's -device ivshmem-doorbell,vectors=1 (docs/driver-qemu.md)\n"
    "      --guest-ram FILE with --ivshmem: the guest's RAM, QEMU's memory-backend-file\n"
    "                       (share=on, under 2.75 GiB), which the card reaches by DMA\n"
    "      --model M        emu: the functional model (default of quire-sim); rtl: the RTL\n"
    "                       card under Verilator, booting build/firmware/quire-fw.elf\n"
    "                       (beside the program, ../firmware/, or $QUIRE_FW_ELF); slower,\n"
    "                       codec and REDUCE, no MLP, no --mem (docs/rtl-card.md)\n"
    "  -1, --once           exit after the first host leaves\n"
    "  -m, --mem MiB        card memory, %u (what the firmware needs) to %u; default %u\n"
    "  -q, --quiet          no messages about hosts coming and going\n"
    "  -n, --net DIR        attach the card's network port to the simulated network in DIR\n"
    "                       (a directory every card of the cluster shares), or, for\n"
    "                       udp:HOST[:BASE],..., over UDP: entry N is where address N\n"
    "                       listens (UDP ports BASE+N and BASE+256+N, BASE default 47100;\n"
    "                       one entry: all on that host); cards on other hosts or\n"
    "                       namespaces join that way; or the addresses from a rendezvous:\n"
    "                       udp:rdv=HOST:PORT,cards=W[,timeout=S] (TCP; the card of\n"
    "                       address 0 serves it on HOST:PORT, the others connect there)\n"
    "                       or udp:dir=PATH,cards=W[,host=IP][,timeout=S] (files in PATH):\n"
    "                       each card binds free UDP ports and learns the others' (wait\n"
    "                       at most S s, default 30)\n"
    "  -a, --addr N         the port's network address, 0-65535 (UDP: 0-255), unique in DIR\n"
    "      --net-drop P     lose each frame sent with probability P (fault tests; the\n"
    "                       link sends it again: docs/network.md)\n"
    "      --net-corrupt P  flip one bit of each frame sent with probability P\n"
    "      --net-seed S     seed of those faults (default: fixed)\n";

#ifndef QUIRE_SIM_RTL
/* --model rtl in a quire-sim without the RTL card: run quire-sim-rtl with the same
 * arguments ($QUIRE_SIM_RTL, else beside this program). Returns only on failure: 1. */
static int exec_rtl(char **argv)
{
	char path[PATH_MAX];
	const char *env = getenv("QUIRE_SIM_RTL");
	if (env && *env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		char dir[PATH_MAX - 32];
		quire_sim_self_dir(dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/quire-sim-rtl", dir);
	}
	if (access(path, X_OK) == 0) {
		execv(path, argv);
		fprintf(stderr, "quire-sim: --model rtl: cannot run %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	fprintf(stderr,
		"quire-sim: --model rtl: this quire-sim has no RTL card: it was built without "
		"Verilator, or `make rtl` has not built %s (the RTL card needs verilator)\n",
		path);
	return 1;
}
#endif

static void print_usage(FILE *to)
{
	fprintf(to, usage, MEM_MIN_MIB, MEM_MAX_MIB, (unsigned)(QUIRE_BOARD_SIM_MEM_BYTES >> 20));
}

/* A probability in [0, 1], or -1. */
static double probability(const char *s)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	return *s && !*end && !errno && d >= 0 && d <= 1 ? d : -1;
}

/*
 * Make way for our socket at a's path: nothing there, or a stale socket (nobody answers on
 * it), which is removed. Anything else is left untouched and refused: a file or directory
 * is someone's data, a live socket another card's (binding over it would orphan that card).
 */
static int claim_socket_path(const struct sockaddr_un *a)
{
	const char *path = a->sun_path;
	struct stat st;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "quire-sim: --socket %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		fprintf(stderr,
			"quire-sim: --socket %s: exists and is not a socket; not replacing it\n",
			path);
		return -1;
	}
	/* Non-blocking: a live card with a full backlog answers EAGAIN instead of blocking us. */
	int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (probe < 0) {
		fprintf(stderr, "quire-sim: socket: %s\n", strerror(errno));
		return -1;
	}
	int live = connect(probe, (const struct sockaddr *)a, sizeof(*a));
	int probe_errno = errno;
	close(probe);
	if (live != 0 && probe_errno == ECONNREFUSED) {
		if (unlink(path) == 0 || errno == ENOENT)
			return 0;
		fprintf(stderr, "quire-sim: --socket %s: cannot remove the stale socket: %s\n",
			path, strerror(errno));
		return -1;
	}
	if (live == 0 || probe_errno == EAGAIN)
		fprintf(stderr, "quire-sim: --socket %s: a process is listening on it already\n",
			path);
	else
		fprintf(stderr, "quire-sim: --socket %s: %s\n", path, strerror(probe_errno));
	return -1;
}

/* --mem's value: whole MiB within [MEM_MIN_MIB, MEM_MAX_MIB]; else 0, said on stderr. */
static uint32_t mem_mib(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long mib = strtoull(s, &end, 10);
	int whole = *s >= '0' && *s <= '9' && !*end && !errno; /* strtoull takes "-1", " 1" */
	if (whole && mib >= MEM_MIN_MIB && mib <= MEM_MAX_MIB)
		return (uint32_t)mib;
	fprintf(stderr,
		"quire-sim: --mem wants whole MiB from %u (what the firmware needs) to %u, "
		"not '%s'\n",
		MEM_MIN_MIB, MEM_MAX_MIB, s);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"socket", required_argument, 0, 's'},   {"once", no_argument, 0, '1'},
	    {"mem", required_argument, 0, 'm'},      {"quiet", no_argument, 0, 'q'},
	    {"net", required_argument, 0, 'n'},      {"addr", required_argument, 0, 'a'},
	    {"net-drop", required_argument, 0, 'D'}, {"net-corrupt", required_argument, 0, 'C'},
	    {"net-seed", required_argument, 0, 'S'}, {"model", required_argument, 0, 'M'},
	    {"ivshmem", required_argument, 0, 'I'},  {"guest-ram", required_argument, 0, 'G'},
	    {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
	const char *path = NULL, *model = DEFAULT_MODEL, *guest_ram = NULL;
	int ivshmem = 0;
	int have_mem = 0;
	int once = 0, c, have_addr = 0;
	struct quire_emu_config cfg = {0};
	struct quire_netport_config net = {0};
	struct server s = {.client = -1, .mem = MAP_FAILED};
	char *end;
	while ((c = getopt_long(argc, argv, "s:1m:qn:a:h", opts, NULL)) != -1) {
		if (c == 's' || c == 'I') {
			if (path) {
				fprintf(stderr, "quire-sim: one of --socket and --ivshmem, once\n");
				return 2;
			}
			path = optarg;
			ivshmem = c == 'I';
		} else if (c == 'G') {
			guest_ram = optarg;
		} else if (c == 'n') {
			net.dir = optarg;
		} else if (c == 'a') {
			unsigned long a = strtoul(optarg, &end, 10);
			if (!*optarg || *end || a > 0xffff) {
				fprintf(stderr, "quire-sim: --addr wants 0-65535, not %s\n",
					optarg);
				return 2;
			}
			net.addr = (uint16_t)a;
			have_addr = 1;
		} else if (c == 'D' || c == 'C') {
			double p = probability(optarg);
			if (p < 0) {
				fprintf(stderr, "quire-sim: a probability is 0 to 1, not %s\n",
					optarg);
				return 2;
			}
			*(c == 'D' ? &net.drop : &net.corrupt) = p;
		} else if (c == 'S') {
			net.seed = strtoull(optarg, &end, 10);
			if (!*optarg || *end) {
				fprintf(stderr, "quire-sim: --net-seed wants a number, not %s\n",
					optarg);
				return 2;
			}
		} else if (c == 'M') {
			if (strcmp(optarg, "emu") != 0 && strcmp(optarg, "rtl") != 0) {
				fprintf(stderr, "quire-sim: --model wants emu or rtl, not '%s'\n",
					optarg);
				return 2;
			}
			model = optarg;
		} else if (c == '1') {
			once = 1;
		} else if (c == 'm') {
			uint32_t mib = mem_mib(optarg);
			if (!mib)
				return 2;
			cfg.mem_bytes = (uint64_t)mib << 20;
			have_mem = 1;
		} else if (c == 'q') {
			s.quiet = 1;
		} else if (c == 'h') {
			return print_usage(stdout), 0;
		} else {
			return print_usage(stderr), 2;
		}
	}
	if (!path || optind != argc)
		return print_usage(stderr), 2;
	if (ivshmem != !!guest_ram) {
		fprintf(stderr, "quire-sim: --ivshmem and --guest-ram go together\n");
		return 2;
	}
	if (!net.dir != !have_addr) {
		fprintf(stderr, "quire-sim: --net and --addr go together\n");
		return 2;
	}
	if (net.dir && quire_wire_udp_rdv_is(net.dir)) {
		struct quire_wire_udp_rdv_spec spec;
		char why[512];
		if (quire_wire_udp_rdv_parse(net.dir, &spec, why, sizeof(why)) != QUIRE_OK) {
			fprintf(stderr, "quire-sim: --net %s\n", why);
			return 2;
		}
		if (net.addr >= spec.cards) {
			fprintf(stderr, "quire-sim: --net %s: --addr %u is not one of cards=%u\n",
				net.dir, net.addr, spec.cards);
			return 2;
		}
	} else if (net.dir && quire_wire_udp_is(net.dir)) {
		int st = quire_wire_udp_check(net.dir, net.addr);
		if (st != QUIRE_OK) {
			fprintf(
			    stderr,
			    st == QUIRE_ERR_RANGE
				? "quire-sim: --net %s has no entry for --addr %u\n"
				: "quire-sim: --net %s: not udp:HOST[:BASE],... with IPv4 hosts "
				  "(--addr %u)\n",
			    net.dir, net.addr);
			return 2;
		}
	}
	if (net.dir)
		cfg.net = &net;
	int rtl = strcmp(model, "rtl") == 0;
	if (rtl && have_mem) {
		fprintf(stderr, "quire-sim: --model rtl: %s\n",
			"the RTL card's memory is fixed (128 MiB): no --mem");
		return 2;
	}
#ifdef QUIRE_SIM_RTL
	char fw_elf[PATH_MAX];
	char fw_why[2 * PATH_MAX];
	if (rtl && quire_fw_locate(fw_elf, sizeof(fw_elf), fw_why, sizeof(fw_why)) != 0) {
		fprintf(stderr, "quire-sim: --model rtl: %s\n", fw_why);
		return 1;
	}
#else
	if (rtl)
		return exec_rtl(argv);
#endif
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "quire-sim: socket path too long: %s\n", path);
		return 2;
	}
	strcpy(a.sun_path, path);
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (claim_socket_path(&a) != 0)
		return 1;
	pthread_mutex_init(&s.send_lock, NULL);
	/* The card first, then its socket: a socket that accepts means a card that is ready,
	 * also when its network's addresses come from a rendezvous that takes a while. */
#ifdef QUIRE_SIM_RTL
	char why[256] = "";
	struct quire_rtl_config rcfg = {
	    .fw_elf = fw_elf, .net = cfg.net, .error = why, .error_len = sizeof(why)};
	if (rtl) {
		s.dev = quire_rtl_device_create(&rcfg);
		if (!s.dev) {
			fprintf(stderr, "quire-sim: cannot create the RTL card from %s: %s\n",
				fw_elf, why);
			return 1;
		}
	} else
#endif
		s.dev = quire_emu_create(&cfg);
	if (!s.dev) {
		if (cfg.net)
			fprintf(stderr,
				"quire-sim: cannot create the card on network %s, address %u: %s\n",
				cfg.net->dir, cfg.net->addr, strerror(errno));
		else
			fprintf(stderr, "quire-sim: cannot create the card: %s\n", strerror(errno));
		return 1;
	}
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 8) != 0) {
		fprintf(stderr, "quire-sim: %s: %s\n", path, strerror(errno));
		s.dev->ops->destroy(s.dev);
		return 1;
	}
	if (!s.quiet && !ivshmem) /* the ivshmem server says so once it has the guest's RAM */
		fprintf(stderr, "quire-sim: %scard ready on %s\n", rtl ? "RTL " : "", path);
	int rc = 0;
	if (ivshmem) {
		struct quire_ivshmem_config icfg = {.listen_fd = lfd,
						    .path = path,
						    .guest_ram = guest_ram,
						    .once = once,
						    .quiet = s.quiet};
		rc = quire_ivshmem_serve(s.dev, &icfg, &stopping);
	}
	if (!ivshmem)
		serve(&s, lfd, once);
	close(lfd);
	unlink(path);
#ifdef QUIRE_SIM_RTL
	if (rtl && !s.quiet) {
		uint64_t clocked, skipped;
		quire_rtl_device_stats(s.dev, &clocked, &skipped);
		fprintf(stderr, "quire-sim: RTL card: %llu cycles clocked, %llu slept through\n",
			(unsigned long long)clocked, (unsigned long long)skipped);
	}
#endif
	s.dev->ops->destroy(s.dev);
	return rc;
}
