/* SPDX-License-Identifier: MIT */
/*
 * The trace options of quire sched replay and quire sched dataset (sched.c): the trace
 * files, the loads and seeds of the runs, and the replay's settings they share.
 */
#ifndef QUIRE_CLI_SCHED_OPTS_H
#define QUIRE_CLI_SCHED_OPTS_H

#include <stddef.h>

#include "sched/sched.h"

/* Most loads, seeds and policies one command takes. */
#define CLI_SCHED_MAX_LIST 16

/* The options sched replay and sched dataset share. */
struct cli_trace_opts {
	const char *pods, *nodes, *speed;
	int part;
	double loads[CLI_SCHED_MAX_LIST], seeds[CLI_SCHED_MAX_LIST];
	int nload, nseed;
	struct sched_config *cfg;
};

/* One shared option (getopt's c and its argument) into o: 0, the usage error's status (said,
 * naming cmd), or -1 when c is not one of them. */
int cli_trace_opt(const char *cmd, int c, const char *arg, struct cli_trace_opts *o);

/* The trace of --pods and --nodes, with --speed's factors, cut to one part: 0, or the
 * exit status (the error said). */
int cli_load_trace(const char *cmd, const char *pods_path, const char *nodes_path,
		   const char *speed_list, int part, struct sched_models *models,
		   struct sched_pod **pods, size_t *npods, struct sched_node **nodes,
		   size_t *nnodes);

#endif /* QUIRE_CLI_SCHED_OPTS_H */
