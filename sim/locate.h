/* SPDX-License-Identifier: MIT */
/*
 * Where the quire-sim program is and where card sockets go, for whoever starts card processes
 * (libquire's socket transport, quire-cluster), and where the card firmware is, for the RTL
 * card. Written here, in the header, whole: each program that starts cards compiles it into
 * itself, so libquire carries no object of sim/.
 */
#ifndef QUIRE_SIM_LOCATE_H
#define QUIRE_SIM_LOCATE_H

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The longest path quire_sim_mkdtemp makes, with its NUL: a socket address (108 bytes)
 * keeps 24 for a name such as "/card-63.sock". */
#define QUIRE_SIM_DIR_MAX 84

/* $QUIRE_SIM, else quire-sim beside the running program, else "quire-sim" (PATH). */
static inline void quire_sim_locate(char *out, size_t len)
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

/* The directory of the running program, or "". */
static inline void quire_sim_self_dir(char *out, size_t len)
{
	char self[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	out[0] = '\0';
	if (n <= 0)
		return;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (slash) {
		*slash = '\0';
		snprintf(out, len, "%s", self);
	}
}

/* The card firmware (build/firmware/quire-fw.elf) for the RTL card: $QUIRE_FW_ELF, else
 * quire-fw.elf beside the running program, else ../firmware/quire-fw.elf from it (the build
 * tree), else ../share/quire/quire-fw.elf (where make install puts it). 0, or -1 with the
 * reason, naming the places looked at, in `why`. */
static inline int quire_fw_locate(char *out, size_t len, char *why, size_t why_len)
{
	const char *env = getenv("QUIRE_FW_ELF");
	if (env && *env) {
		snprintf(out, len, "%s", env);
		if (access(out, R_OK) == 0)
			return 0;
		snprintf(why, why_len, "QUIRE_FW_ELF=%s: %s", env, strerror(errno));
		return -1;
	}
	char dir[PATH_MAX - 32];
	quire_sim_self_dir(dir, sizeof(dir));
	snprintf(out, len, "%s/quire-fw.elf", dir);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, len, "%s/../firmware/quire-fw.elf", dir);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, len, "%s/../share/quire/quire-fw.elf", dir);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(
	    why, why_len,
	    "no card firmware: none of %s/quire-fw.elf, %s/../firmware/quire-fw.elf (the build "
	    "tree) and %s/../share/quire/quire-fw.elf (make install) exists (make builds it with "
	    "riscv64-unknown-elf-gcc), and QUIRE_FW_ELF is not set",
	    dir, dir, dir);
	return -1;
}

/*
 * Makes a private directory NAME-XXXXXX for card sockets under $TMPDIR, else /tmp, and
 * writes its path to out. $TMPDIR is used only when it is absolute and short enough that
 * a socket inside still fits a Unix socket address. out holds QUIRE_SIM_DIR_MAX bytes.
 * 0 on success, -1 with errno set.
 */
static inline int quire_sim_mkdtemp(char *out, size_t len, const char *name)
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

#endif /* QUIRE_SIM_LOCATE_H */
