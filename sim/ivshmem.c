// SPDX-License-Identifier: MIT
/*
 * quire-sim --ivshmem: the card behind QEMU's ivshmem-doorbell (docs/driver-qemu.md).
 *
 * This process is the ivshmem server and peer 0 of it, the card; QEMU connects as
 * peer 1. What the server protocol (QEMU's docs/specs/ivshmem-spec.rst) hands QEMU is
 * all the guest and the card share:
 * - the shared memory (BAR 2), a memfd: the register window, where this thread keeps
 *   a copy of the card's registers, and the write ring after it
 *   (include/quire/ivshmem.h);
 * - peer 0's eventfd, which QEMU writes when the guest rings the Doorbell for peer 0:
 *   the write ring has entries, which go to mmio_write in order;
 * - the guest's own eventfd for vector 0, which this thread writes to raise MSI-X
 *   vector 0 in the guest when the card raises an interrupt.
 * The card reaches the guest's RAM by DMA through QEMU's memory-backend-file of it
 * (share=on), mapped here and attached at DMA address 0: with no vIOMMU, a guest
 * physical address is a DMA address, and with less than 2.75 GiB of RAM q35 puts all
 * of it at guest physical 0.
 *
 * One thread does all of it, so the register copy has one writer. It is refreshed
 * after the ring is drained (before CONSUMER moves: a guest read that waited for
 * CONSUMER sees its writes' effects), before an interrupt is raised (the guest reads
 * IRQ_STATUS next) and every REFRESH_MS (what the firmware changes on its own:
 * FW_STATE, the counters, the heartbeat).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quire/cmd.h" /* the byte order conversions */
#include "quire/ivshmem.h"
#include "quire/regblock.h"
#include "quire/regs.h"
#include "quire/status.h"
#include "sim/ivshmem.h"

#define REFRESH_MS          5
#define PROTOCOL_VERSION    0             /* ivshmem-spec.rst: the only one */
#define GUEST_PEER          1             /* QEMU's ID; the card is QUIRE_IVSHMEM_CARD_PEER */
#define LAST_BLOCK_BYTES    0x100u        /* the last block of the chain: at most this long */
#define GUEST_RAM_LOW_LIMIT 0xb0000000ull /* q35 splits guest RAM from 2.75 GiB on */

struct ivsh {
	struct quire_device *dev;
	uint8_t *shm;    /* QUIRE_IVSHMEM_SHM_BYTES, shared with the guest */
	int shm_fd;      /* its memfd, for QEMU */
	int card_efd;    /* peer 0, vector 0: the guest's doorbell to the card */
	int kick_efd;    /* the card's interrupt callback wakes this thread with it */
	int guest_efd;   /* peer 1, vector 0: MSI-X vector 0 of the guest; -1 without QEMU */
	int client;      /* QEMU's connection, -1 without */
	uint32_t causes; /* interrupt causes raised since the last MSI-X (kick_efd's) */
	const struct quire_ivshmem_config *cfg;
};

/* The window and the write ring hold little-endian words, as the guest's ioread32 and
 * iowrite32 see them; these two convert, whatever this host's order. */
static uint32_t shm_load(const uint8_t *p, int order)
{
	return quire_le32_to_cpu((quire_force __le32)__atomic_load_n((const uint32_t *)p, order));
}

static void shm_store(uint8_t *p, uint32_t val, int order)
{
	__atomic_store_n((uint32_t *)p, (quire_force uint32_t)quire_cpu_to_le32(val), order);
}

static void put32(struct ivsh *v, uint32_t off, uint32_t val)
{
	shm_store(v->shm + off, val, __ATOMIC_RELAXED);
}

/*
 * Copy the register file into the window: every block of the chain, walked as a host
 * walks it (the contract's walk, quire/regblock.h), from its header to the next block (or
 * LAST_BLOCK_BYTES for the last). Of a chain the walk refuses, the blocks before the fault.
 */
static void refresh(struct ivsh *v)
{
	struct quire_regblock_chain chain;
	quire_regblock_walk(quire_device_read32, v->dev, &chain);
	for (uint32_t i = 0; i < chain.count; i++) {
		uint32_t off = chain.block[i].offset;
		uint32_t end =
		    i + 1 < chain.count ? chain.block[i + 1].offset : off + LAST_BLOCK_BYTES;
		if (end > QUIRE_BAR0_BYTES)
			end = QUIRE_BAR0_BYTES;
		for (uint32_t r = off; r < end; r += 4)
			put32(v, r, v->dev->ops->mmio_read(v->dev, r));
	}
}

/* The guest rang the doorbell: apply the write ring's entries in order. */
static void drain(struct ivsh *v)
{
	uint8_t *ring = v->shm + QUIRE_IVSHMEM_WRING;
	uint8_t *prod_p = ring + QUIRE_IVSHMEM_WRING_PRODUCER;
	uint8_t *cons_p = ring + QUIRE_IVSHMEM_WRING_CONSUMER;
	/* Pairs with the guest's barrier between an entry and the index: the entries are there. */
	uint32_t prod = shm_load(prod_p, __ATOMIC_ACQUIRE);
	uint32_t cons = shm_load(cons_p, __ATOMIC_RELAXED);
	if (prod == cons)
		return;
	if (prod - cons > QUIRE_IVSHMEM_WRING_ENTRIES) {
		/* Not a ring the guest can have written: take nothing from it. */
		fprintf(stderr,
			"quire-sim: ivshmem write ring: producer %u, consumer %u: more than %u "
			"entries; skipped\n",
			prod, cons, QUIRE_IVSHMEM_WRING_ENTRIES);
	} else {
		for (; cons != prod; cons++) {
			const uint8_t *e = ring + QUIRE_IVSHMEM_WRING_ENTRY0 +
					   (cons & (QUIRE_IVSHMEM_WRING_ENTRIES - 1)) *
					       QUIRE_IVSHMEM_WRING_ENTRY_BYTES;
			uint32_t off = shm_load(e + QUIRE_IVSHMEM_WRING_OFFSET, __ATOMIC_RELAXED);
			uint32_t val = shm_load(e + QUIRE_IVSHMEM_WRING_VALUE, __ATOMIC_RELAXED);
			v->dev->ops->mmio_write(v->dev, off, val);
		}
	}
	refresh(v);
	/* The register copy above is visible before the guest sees its writes taken. */
	shm_store(cons_p, prod, __ATOMIC_RELEASE);
}

/* From the card's firmware thread: wake ours, which raises the MSI-X. */
static void on_irq(void *ctx, uint32_t causes)
{
	struct ivsh *v = ctx;
	uint64_t one = 1;
	__atomic_fetch_or(&v->causes, causes, __ATOMIC_RELAXED);
	(void)!write(v->kick_efd, &one, sizeof(one));
}

static void raise_msix(struct ivsh *v)
{
	uint64_t one = 1;
	if (v->guest_efd >= 0)
		(void)!write(v->guest_efd, &one, sizeof(one));
}

/* One ivshmem server message: a little-endian int64 and maybe a file descriptor. */
static int send_msg(int sock, int64_t value, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	uint64_t le = (uint64_t)value; /* x86 and every host QEMU tests run on: little-endian */
	struct iovec iov = {&le, sizeof(le)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	memset(cbuf, 0, sizeof(cbuf));
	if (fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* Never blocking: the handshake's few words fit in a new connection's buffer, and a
	 * stopped QEMU that reads none of them must not stop the card with it. */
	return sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(le) ? 0 : -1;
}

/*
 * A QEMU connected: the handshake of ivshmem-spec.rst. Its ID; the shared memory;
 * the card (peer 0) with the eventfd of its one vector; the guest's own vector's
 * eventfd. 0, or -1 said on stderr.
 */
static int welcome(struct ivsh *v, int sock, void *ram, uint64_t ram_bytes)
{
	v->guest_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->guest_efd < 0 || send_msg(sock, PROTOCOL_VERSION, -1) ||
	    send_msg(sock, GUEST_PEER, -1) || send_msg(sock, -1, v->shm_fd) ||
	    send_msg(sock, QUIRE_IVSHMEM_CARD_PEER, v->card_efd) ||
	    send_msg(sock, GUEST_PEER, v->guest_efd)) {
		fprintf(stderr, "quire-sim: ivshmem handshake: %s\n", strerror(errno));
		return -1;
	}
	int st = v->dev->ops->attach_host(v->dev, ram, 0, ram_bytes);
	if (st != QUIRE_OK) {
		fprintf(stderr, "quire-sim: the card refused the guest's RAM as host memory: %s\n",
			quire_strerror(st));
		return -1;
	}
	v->dev->ops->set_irq(v->dev, on_irq, v);
	v->client = sock;
	if (!v->cfg->quiet)
		fprintf(stderr, "quire-sim: QEMU connected (peer %d, %llu MiB of guest RAM)\n",
			GUEST_PEER, (unsigned long long)(ram_bytes >> 20));
	return 0;
}

static void goodbye(struct ivsh *v)
{
	/* Nothing of the guest may be touched any more. */
	v->dev->ops->set_irq(v->dev, NULL, NULL);
	v->dev->ops->detach_host(v->dev);
	close(v->client);
	close(v->guest_efd);
	v->client = v->guest_efd = -1;
	/* A new guest starts with an empty write ring, and the registers as they are now. */
	put32(v, QUIRE_IVSHMEM_WRING + QUIRE_IVSHMEM_WRING_PRODUCER, 0);
	put32(v, QUIRE_IVSHMEM_WRING + QUIRE_IVSHMEM_WRING_CONSUMER, 0);
	refresh(v);
	if (!v->cfg->quiet)
		fprintf(stderr, "quire-sim: QEMU gone%s\n",
			v->cfg->once ? "" : "; waiting for the next one");
}

static void drain_eventfd(int fd)
{
	uint64_t n;
	while (read(fd, &n, sizeof(n)) == (ssize_t)sizeof(n))
		;
}

/* The guest's RAM file, mapped; NULL said on stderr. */
static void *map_guest_ram(const char *path, uint64_t *bytes)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "quire-sim: --guest-ram %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size >= GUEST_RAM_LOW_LIMIT) {
		fprintf(stderr,
			"quire-sim: --guest-ram %s: wants a regular file of the guest's RAM, "
			"less than 2.75 GiB (q35 keeps all of that at guest physical 0), not %lld "
			"bytes\n",
			path, (long long)st.st_size);
		close(fd);
		return NULL;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "quire-sim: --guest-ram %s: mmap: %s\n", path, strerror(errno));
		return NULL;
	}
	*bytes = (uint64_t)st.st_size;
	return p;
}

static int setup(struct ivsh *v)
{
	v->shm_fd = memfd_create("quire-ivshmem", MFD_CLOEXEC);
	if (v->shm_fd < 0 || ftruncate(v->shm_fd, QUIRE_IVSHMEM_SHM_BYTES) != 0) {
		fprintf(stderr, "quire-sim: shared memory: %s\n", strerror(errno));
		return -1;
	}
	v->shm =
	    mmap(NULL, QUIRE_IVSHMEM_SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, v->shm_fd, 0);
	v->card_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	v->kick_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->shm == MAP_FAILED || v->card_efd < 0 || v->kick_efd < 0) {
		fprintf(stderr, "quire-sim: ivshmem: %s\n", strerror(errno));
		return -1;
	}
	refresh(v);
	return 0;
}

static void teardown(struct ivsh *v)
{
	if (v->client >= 0)
		goodbye(v);
	if (v->shm && v->shm != MAP_FAILED)
		munmap(v->shm, QUIRE_IVSHMEM_SHM_BYTES);
	if (v->shm_fd >= 0)
		close(v->shm_fd);
	if (v->card_efd >= 0)
		close(v->card_efd);
	if (v->kick_efd >= 0)
		close(v->kick_efd);
}

int quire_ivshmem_serve(struct quire_device *dev, const struct quire_ivshmem_config *cfg,
			volatile sig_atomic_t *stopping)
{
	struct ivsh v = {.dev = dev,
			 .shm_fd = -1,
			 .card_efd = -1,
			 .kick_efd = -1,
			 .guest_efd = -1,
			 .client = -1,
			 .cfg = cfg};
	uint64_t ram_bytes = 0;
	void *ram = map_guest_ram(cfg->guest_ram, &ram_bytes);
	int rc = 1;
	if (!ram || setup(&v) != 0)
		goto out;
	if (!cfg->quiet)
		fprintf(stderr, "quire-sim: card ready on %s (ivshmem server, guest RAM %s)\n",
			cfg->path, cfg->guest_ram);
	rc = 0;
	while (!*stopping) {
		struct pollfd p[4] = {{cfg->listen_fd, POLLIN, 0},
				      {v.card_efd, POLLIN, 0},
				      {v.kick_efd, POLLIN, 0},
				      {v.client, POLLIN, 0}};
		int n = poll(p, v.client >= 0 ? 4 : 3, REFRESH_MS);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "quire-sim: poll: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (n > 0 && (p[1].revents & POLLIN)) {
			drain_eventfd(v.card_efd);
			drain(&v);
		}
		if (n > 0 && (p[2].revents & POLLIN)) {
			drain_eventfd(v.kick_efd);
			refresh(&v);
			if (__atomic_exchange_n(&v.causes, 0, __ATOMIC_RELAXED))
				raise_msix(&v);
		}
		if (n == 0)
			refresh(&v);
		/* QEMU sends nothing after the handshake: readable means it has gone. */
		if (v.client >= 0 && n > 0 && p[3].revents) {
			goodbye(&v);
			if (cfg->once)
				break;
		}
		if (n > 0 && (p[0].revents & POLLIN)) {
			int fd = accept4(cfg->listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			if (v.client >= 0) {
				/* One guest per card: a second one would share its rings. */
				fprintf(stderr,
					"quire-sim: a second QEMU refused: the card has one\n");
				close(fd);
			} else if (welcome(&v, fd, ram, ram_bytes) != 0) {
				close(v.guest_efd);
				v.guest_efd = -1;
				close(fd);
			}
		}
	}
out:
	teardown(&v);
	if (ram)
		munmap(ram, ram_bytes);
	return rc;
}
