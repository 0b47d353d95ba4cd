// SPDX-License-Identifier: MIT
/*
 * sim:inproc: a card model in this process. The model (the emu and the native firmware)
 * is not part of libquire; it is loaded from libquire_sim when a context first asks for
 * it, so that the production library carries no simulator. Found as $QUIRE_SIM_LIB, else
 * by its soname: beside libquire.so (whose run path is its own directory), or where the
 * program's run path and the system's library path lead.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "host/src/backend/transport.h"
#include "quire/status.h"

typedef int (*inproc_open_fn)(unsigned abi, const char *opts, size_t host_bytes,
			      struct transport **t);

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static inproc_open_fn inproc_open;

static void load(void)
{
	const char *path = getenv("QUIRE_SIM_LIB");
	/* Kept loaded for the life of the process: its cards may outlive any one context. */
	void *lib = dlopen(path && *path ? path : QUIRE_SIM_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (lib)
		*(void **)&inproc_open = dlsym(lib, QUIRE_SIM_INPROC_SYMBOL);
}

int transport_inproc_open(const char *opts, struct transport **out)
{
	pthread_once(&load_once, load);
	if (!inproc_open)
		return QUIRE_ERR_NO_DEVICE; /* libquire_sim is not installed */
	return inproc_open(QUIRE_SIM_INPROC_ABI, opts, transport_host_bytes(), out);
}
