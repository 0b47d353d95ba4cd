// SPDX-License-Identifier: MIT
/*
 * A card model in this process, for tests and tools that need no card process: the emu
 * and the native firmware with host memory and an interrupt count (inproc.h). Built into
 * libquire_sim (never into libquire), which exports quire_sim_inproc_open alone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "inproc.h"
#include "emu/emu.h"
#include "quire/status.h"

struct inproc {
	struct quire_sim_inproc t;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t irqs, seen;
};

static void on_irq(void *ctx, uint32_t causes)
{
	struct inproc *p = ctx;
	(void)causes;
	pthread_mutex_lock(&p->lock);
	p->irqs++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static int inproc_wait(struct quire_sim_inproc *t, int timeout_ms)
{
	struct inproc *p = (struct inproc *)t;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	int st = QUIRE_OK;
	pthread_mutex_lock(&p->lock);
	while (p->irqs == p->seen && st == QUIRE_OK)
		if (pthread_cond_timedwait(&p->cond, &p->lock, &until) != 0)
			st = QUIRE_ERR_TIMEOUT;
	p->seen = p->irqs;
	pthread_mutex_unlock(&p->lock);
	return st;
}

static void inproc_close(struct quire_sim_inproc *t)
{
	struct inproc *p = (struct inproc *)t;
	t->dev->ops->detach_host(t->dev);
	t->dev->ops->destroy(t->dev);
	munmap(t->mem, t->mem_size);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* "net=DIR,addr=N[,drop=P][,corrupt=P][,seed=S]": the card's network port. */
static int parse_net(const char *opts, char *dir, size_t dir_size, struct quire_netport_config *net)
{
	char buf[512];
	if (strlen(opts) >= sizeof(buf))
		return QUIRE_ERR_INVALID;
	strcpy(buf, opts);
	int have_dir = 0, have_addr = 0;
	for (char *save, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '='), *end;
		if (!v)
			return QUIRE_ERR_INVALID;
		*v++ = 0;
		if (strcmp(kv, "net") == 0 && strlen(v) < dir_size) {
			strcpy(dir, v);
			have_dir = 1;
			continue;
		}
		errno = 0;
		if (strcmp(kv, "addr") == 0) {
			unsigned long a = strtoul(v, &end, 10);
			if (*end || a > 0xffff)
				return QUIRE_ERR_INVALID;
			net->addr = (uint16_t)a;
			have_addr = 1;
		} else if (strcmp(kv, "drop") == 0 || strcmp(kv, "corrupt") == 0) {
			double d = strtod(v, &end);
			if (*end || errno || !(d >= 0 && d <= 1))
				return QUIRE_ERR_INVALID;
			*(kv[0] == 'd' ? &net->drop : &net->corrupt) = d;
		} else if (strcmp(kv, "seed") == 0) {
			net->seed = strtoull(v, &end, 10);
			if (*end || errno)
				return QUIRE_ERR_INVALID;
		} else {
			return QUIRE_ERR_INVALID;
		}
	}
	net->dir = dir;
	return have_dir && have_addr ? QUIRE_OK : QUIRE_ERR_INVALID;
}

int quire_sim_inproc_open(unsigned abi, const char *opts, size_t host_bytes, uint64_t iova,
			  struct quire_sim_inproc **out)
{
	if (abi != QUIRE_SIM_INPROC_ABI)
		return QUIRE_ERR_VERSION; /* a libquire_sim of another build */
	char dir[256];
	struct quire_netport_config net = {0};
	struct quire_emu_config cfg = {0};
	if (opts && *opts) {
		int st = parse_net(opts, dir, sizeof(dir), &net);
		if (st != QUIRE_OK)
			return st;
		cfg.net = &net;
	}
	struct inproc *p = calloc(1, sizeof(*p));
	if (!p)
		return QUIRE_ERR_NOMEM;
	p->t.mem_size = host_bytes;
	p->t.mem = mmap(NULL, p->t.mem_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->t.mem == MAP_FAILED) {
		free(p);
		return QUIRE_ERR_NOMEM;
	}
	p->t.dev = quire_emu_create(&cfg);
	if (!p->t.dev) {
		int st = errno == ENOENT ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_NOMEM;
		munmap(p->t.mem, p->t.mem_size);
		free(p);
		return st;
	}
	p->t.iova = iova;
	p->t.wait_irq = inproc_wait;
	p->t.close = inproc_close;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->t.dev->ops->set_irq(p->t.dev, on_irq, p);
	p->t.dev->ops->attach_host(p->t.dev, p->t.mem, p->t.iova, p->t.mem_size);
	*out = &p->t;
	return QUIRE_OK;
}
