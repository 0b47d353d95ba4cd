// SPDX-License-Identifier: MIT
#include "locate.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void quire_sim_locate(char *out, size_t len)
{
	const char *env = getenv("QUIRE_SIM");
	if (env && *env) {
		snprintf(out, len, "%s", env);
		return;
	}
	char self[PATH_MAX - 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(out, len, "%s/quire-sim", self) < len &&
			    access(out, X_OK) == 0)
				return;
		}
	}
	snprintf(out, len, "quire-sim");
}

int quire_sim_mkdtemp(char *out, size_t len, const char *name)
{
	const char *base = getenv("TMPDIR");
	if (!base || base[0] != '/' || strlen(base) + strlen(name) + 8 >= QUIRE_SIM_DIR_MAX)
		base = "/tmp";
	if ((size_t)snprintf(out, len, "%s/%s-XXXXXX", base, name) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(out) ? 0 : -1;
}
