// SPDX-License-Identifier: MIT
/*
 * sim:inproc: a card model in this process. The model (the emu and the native firmware)
 * is not part of libquire; it is loaded from libquire_sim when a context first asks for
 * it, so that the production library carries no simulator. Where from: $QUIRE_SIM_LIB if
 * set; else beside the object this code is in (libquire.so in its lib/ directory, or a
 * program linked with libquire.a, whose libraries are in ../lib); else wherever the dynamic
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

typedef int (*inproc_open_fn)(unsigned abi, const char *opts, size_t host_bytes,
			      struct transport **t);

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

int transport_inproc_open(const char *opts, struct transport **out)
{
	pthread_once(&load_once, load);
	if (!inproc_open)
		return QUIRE_ERR_NO_DEVICE; /* libquire_sim is not installed */
	return inproc_open(QUIRE_SIM_INPROC_ABI, opts, transport_host_bytes(), out);
}
