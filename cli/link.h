/* SPDX-License-Identifier: MIT */
/*
 * Shaped links between network namespaces (link.c), for `quire bench allreduce --link`
 * and `quire link run`: a hub namespace holding a bridge, and one namespace per rank
 * (PREFIX-i, address 192.0.2.i+1 on its veth v0) joined to the bridge by a veth pair that
 * tc tbf limits to RATE each way. One topology at a time per process.
 */
#ifndef QUIRE_CLI_LINK_H
#define QUIRE_CLI_LINK_H

#include <stddef.h>

#define CLI_LINK_SUBNET "192.0.2.0/24" /* TEST-NET-1: never a real network's */
#define CLI_LINK_QUEUE  "16mb"         /* tbf's queue: above every card's UDP send buffers */
#define CLI_LINK_IFNAME "v0"           /* each rank namespace's interface */

/* RATE and delay TIME (empty when none) out of RATE[,delay=TIME]; 0 if good. */
int cli_link_parse(const char *spec, char *rate, size_t rate_len, char *delay, size_t delay_len);
/* A rate cli_link_parse took, in bits per second; the tbf burst used for it, in bytes. */
double cli_link_rate_bps(const char *rate);
long cli_link_burst_bytes(const char *rate);
/* Root, ip and tc are there; else prints why (naming command `who`) and returns non-zero. */
int cli_link_check(const char *who);
/*
 * Starts a run of command `who` whose namespaces are named quire-FAMILY-PID-*: catches
 * SIGINT, SIGTERM and SIGHUP (cli_link_stopped says which came), and removes the
 * namespaces of runs that were killed outright (any family: their process is gone).
 * Returns the prefix of this run's namespace names.
 */
const char *cli_link_begin(const char *family, const char *who);
/* The signal that asked the run to stop, else 0; cli_link_stop records one seen elsewhere. */
int cli_link_stopped(void);
void cli_link_stop(int sig);
/* The hub and W rank namespaces, shaped; with launcher, one more namespace PREFIX-L on
 * the bridge at 192.0.2.254, unshaped. 0, or -1 (printed) with what was made left for
 * cli_link_down. */
int cli_link_up(int w, const char *rate, const char *delay, int launcher);
/* Kills what runs in this run's namespaces and removes them, with their veths. */
void cli_link_down(void);
/* Catches SIGINT, SIGTERM and SIGHUP for cli_link_stopped alone (cli_link_begin does it too). */
void cli_link_catch(void);
/* cli_link_down, and the signal handlers as they were before cli_link_begin. */
void cli_link_end(void);

/* quire link: its commands (link_run.c). */
int cli_link(int argc, char **argv);

#endif /* QUIRE_CLI_LINK_H */
