// SPDX-License-Identifier: MIT
/*
 * sim:inproc: a card model in this process. The model (the emu and the native firmware)
 * is not part of libquire; it is loaded from libquire_sim (sim/inproc.h) when a context
 * first asks for it, so that the production library carries no simulator. Where from:
 * $QUIRE_SIM_LIB if set; else beside the object this code is in (libquire.so in its lib/ directory,
 * or a program linked with libquire.a, whose libraries are in ../lib); else wherever the dynamic
 * linker finds its soname. Paths are tried explicitly because a dlopen through a
 * sanitizer's interceptor no longer sees the caller's run path.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/src/backend/transport.h"
#include "quire/status.h"
#include "sim/inproc.h"

typedef int (*inproc_open_fn)(unsigned abi, const char *opts, size_t host_bytes, uint64_t iova,
			      struct quire_sim_inproc **card);

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static inproc_open_fn inproc_open;

static void *open_beside_me(void)
{
	Dl_info me;
	if (!dladdr((void *)transport_inproc_open, &me) || !me.dli_fname)
		return NULL;
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", me.dli_fname);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	static const char *const where[] = {"%s/" QUIRE_SIM_LIB_SONAME,
					    "%s/../lib/" QUIRE_SIM_LIB_SONAME};
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof(path), where[i], dir);
		void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (lib)
			return lib;
	}
	return NULL;
}

static void load(void)
{
	const char *path = getenv("QUIRE_SIM_LIB");
	void *lib;
	/* Kept loaded for the life of the process: its cards may outlive any one context. */
	if (path && *path)
		lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	else if (!(lib = open_beside_me()))
		lib = dlopen(QUIRE_SIM_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (lib)
		*(void **)&inproc_open = dlsym(lib, QUIRE_SIM_INPROC_SYMBOL);
}

/* The card behind struct transport. */
struct inproc_transport {
	struct transport t;
	struct quire_sim_inproc *card;
};

static int inproc_wait_irq(struct transport *t, int timeout_ms)
{
	struct quire_sim_inproc *card = ((struct inproc_transport *)t)->card;
	return card->wait_irq(card, timeout_ms);
}

static int inproc_state(struct transport *t)
{
	(void)t;
	return QUIRE_OK; /* a card in this process answers as long as the process runs */
}

static void inproc_revive(struct transport *t)
{
	(void)t;
}

static void inproc_close(struct transport *t)
{
	struct quire_sim_inproc *card = ((struct inproc_transport *)t)->card;
	card->close(card);
	free(t);
}

int transport_inproc_open(const char *opts, struct transport **out)
{
	pthread_once(&load_once, load);
	if (!inproc_open)
		return QUIRE_ERR_NO_DEVICE; /* libquire_sim is not installed */
	struct inproc_transport *p = calloc(1, sizeof(*p));
	if (!p)
		return QUIRE_ERR_NOMEM;
	int st = inproc_open(QUIRE_SIM_INPROC_ABI, opts, transport_host_bytes(), QUIRE_SIM_IOVA,
			     &p->card);
	if (st != QUIRE_OK) {
		free(p);
		return st;
	}
	p->t.dev = p->card->dev;
	p->t.mem = p->card->mem;
	p->t.mem_size = p->card->mem_size;
	p->t.iova = p->card->iova;
	p->t.wait_irq = inproc_wait_irq;
	p->t.state = inproc_state;
	p->t.revive = inproc_revive;
	p->t.close = inproc_close;
	*out = &p->t;
	return QUIRE_OK;
}
