/* SPDX-License-Identifier: MIT */
/* Where the quire-sim program is, where card sockets go, for whoever starts card processes, and
 * where the card firmware is, for the RTL card. */
#ifndef QUIRE_SIM_LOCATE_H
#define QUIRE_SIM_LOCATE_H

#include <stddef.h>

/* $QUIRE_SIM, else quire-sim beside the running program, else "quire-sim" (PATH). */
void quire_sim_locate(char *out, size_t len);

/* The directory of the running program, or "". */
void quire_sim_self_dir(char *out, size_t len);

/* The card firmware (build/firmware/quire-fw.elf) for the RTL card: $QUIRE_FW_ELF, else
 * quire-fw.elf beside the running program, else ../firmware/quire-fw.elf from it (the build
 * tree), else ../share/quire/quire-fw.elf (where make install puts it). 0, or -1 with the
 * reason, naming the places looked at, in `why`. */
int quire_fw_locate(char *out, size_t len, char *why, size_t why_len);

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
