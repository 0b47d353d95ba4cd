/* SPDX-License-Identifier: MIT */
/* Where the quire-sim program is, and where card sockets go, for whoever starts card processes. */
#ifndef QUIRE_SIM_LOCATE_H
#define QUIRE_SIM_LOCATE_H

#include <stddef.h>

/* $QUIRE_SIM, else quire-sim beside the running program, else "quire-sim" (PATH). */
void quire_sim_locate(char *out, size_t len);

/* The longest path quire_sim_mkdtemp makes, with its NUL: a socket address (108 bytes)
 * keeps 24 for a name such as "/card-63.sock". */
#define QUIRE_SIM_DIR_MAX 84

/*
 * Makes a private directory NAME-XXXXXX for card sockets under $TMPDIR, else /tmp, and
 * writes its path to out. $TMPDIR is used only when it is absolute and short enough that
 * a socket inside still fits a Unix socket address. out holds QUIRE_SIM_DIR_MAX bytes.
 * 0 on success, -1 with errno set.
 */
int quire_sim_mkdtemp(char *out, size_t len, const char *name);

#endif
