// SPDX-License-Identifier: MIT
/* A card model in this process: for tests and tools that need no card process. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "../../../sim/emu/emu.h"
#include "quire/status.h"
#include "transport.h"

struct inproc {
	struct transport t;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t irqs, seen;
};

size_t transport_host_bytes(void)
{
	const char *mb = getenv("QUIRE_SIM_HOST_MB");
	long v = mb ? atol(mb) : 0;
	return (size_t)(v > 0 && v < (1L << 20) ? v : QUIRE_SIM_HOST_MB) << 20;
}

static void on_irq(void *ctx, uint32_t causes)
{
	struct inproc *p = ctx;
	(void)causes;
	pthread_mutex_lock(&p->lock);
	p->irqs++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static int inproc_wait(struct transport *t, int timeout_ms)
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

static void inproc_close(struct transport *t)
{
	struct inproc *p = (struct inproc *)t;
	t->dev->ops->detach_host(t->dev);
	t->dev->ops->destroy(t->dev);
	munmap(t->mem, t->mem_size);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

int transport_inproc_open(struct transport **out)
{
	struct inproc *p = calloc(1, sizeof(*p));
	if (!p)
		return QUIRE_ERR_NOMEM;
	p->t.mem_size = transport_host_bytes();
	p->t.mem = mmap(NULL, p->t.mem_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->t.mem == MAP_FAILED) {
		free(p);
		return QUIRE_ERR_NOMEM;
	}
	p->t.dev = quire_emu_create(NULL);
	if (!p->t.dev) {
		munmap(p->t.mem, p->t.mem_size);
		free(p);
		return QUIRE_ERR_NOMEM;
	}
	p->t.iova = QUIRE_SIM_IOVA;
	p->t.wait_irq = inproc_wait;
	p->t.close = inproc_close;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->t.dev->ops->set_irq(p->t.dev, on_irq, p);
	p->t.dev->ops->attach_host(p->t.dev, p->t.mem, p->t.iova, p->t.mem_size);
	*out = &p->t;
	return QUIRE_OK;
}
