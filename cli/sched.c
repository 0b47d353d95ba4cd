// SPDX-License-Identifier: MIT
/*
 * quire sched: the scheduler's commands (replay, dataset, split, place, bench, serve), and
 * the trace options replay and dataset share: --pods, --nodes, --nodes-count, --seed, --load,
 * --max-gap, --speed, --inflate and --part, and the trace they name, read. docs/sched.md describes
 * the model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sched/sched.h"
#include "sched_opts.h"

/* A comma list of doubles; count 0 on a malformed one. */
static int parse_doubles(const char *s, double *v, int max, int *count)
{
	char buf[256];
	*count = 0;
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -1;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		errno = 0;
		double x = strtod(t, &end);
		if (errno || end == t || *end || *count == max || !isfinite(x))
			return -1;
		v[(*count)++] = x;
	}
	return *count ? 0 : -1;
}

int cli_load_trace(const char *cmd, const char *pods_path, const char *nodes_path,
		   const char *speed_list, int part, struct sched_models *models,
		   struct sched_pod **pods, size_t *npods, struct sched_node **nodes,
		   size_t *nnodes)
{
	char err[SCHED_ERR_LEN];
	sched_models_default(models);
	if (speed_list && sched_models_parse(models, speed_list, err, sizeof(err)))
		return cli_usage_error(cmd, "--speed: %s", err);
	if (sched_read_pods(pods_path, models, pods, npods, err, sizeof(err)))
		return cli_fail("%s", err);
	if (sched_read_nodes(nodes_path, models, nodes, nnodes, err, sizeof(err))) {
		free(*pods);
		return cli_fail("%s", err);
	}
	*npods = sched_pods_part(*pods, *npods, part);
	return 0;
}

/* --seed and --load lists: whole seeds, loads in (0, 10]. 0, or the usage error's status. */
static int parse_runs(const char *cmd, int opt, const char *arg, double *v, int *n)
{
	if (parse_doubles(arg, v, CLI_SCHED_MAX_LIST, n))
		return cli_usage_error(cmd, "bad --%s '%s'", opt == 's' ? "seed" : "load", arg);
	for (int i = 0; i < *n; i++) {
		if (opt == 's' && (v[i] < 0 || v[i] != floor(v[i]) || v[i] > 1e9))
			return cli_usage_error(cmd, "bad --seed '%s' (whole numbers)", arg);
		if (opt == 'l' && !(v[i] > 0 && v[i] <= 10))
			return cli_usage_error(cmd, "bad --load '%s' (0 < L <= 10)", arg);
	}
	return 0;
}

int cli_trace_opt(const char *cmd, int c, const char *arg, struct cli_trace_opts *o)
{
	char *end;
	switch (c) {
	case 'p':
		o->pods = arg;
		return 0;
	case 'n':
		o->nodes = arg;
		return 0;
	case 'S':
		o->speed = arg;
		return 0;
	case 'N':
		errno = 0;
		o->cfg->nodes_count = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-')
			return cli_usage_error(cmd, "bad --nodes-count '%s'", arg);
		return 0;
	case 's':
	case 'l':
		return parse_runs(cmd, c, arg, c == 's' ? o->seeds : o->loads,
				  c == 's' ? &o->nseed : &o->nload);
	case 'g':
		errno = 0;
		o->cfg->max_gap = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->cfg->max_gap >= 0) ||
		    !isfinite(o->cfg->max_gap))
			return cli_usage_error(cmd, "bad --max-gap '%s'", arg);
		return 0;
	case 'I':
		errno = 0;
		o->cfg->inflate = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || o->cfg->inflate < 1 ||
		    o->cfg->inflate > 1000)
			return cli_usage_error(cmd, "bad --inflate '%s' (1 to 1000)", arg);
		return 0;
	case 'A':
		if ((o->part = sched_part_parse(arg)) < 0)
			return cli_usage_error(cmd, "bad --part '%s' (all, train, select, eval)",
					       arg);
		return 0;
	}
	return -1;
}

static const struct cli_command sched_commands[] = {
    {"replay", "replay the GPU trace with each placement policy and compare them",
     cli_sched_replay},
    {"dataset", "lookahead-rollout labels of a part of the trace, for training", cli_sched_dataset},
    {"split", "cut the pods file by time into train, select and eval files", cli_sched_split},
    {"place", "one placement decision by the model (task and nodes as CSV on stdin)",
     cli_sched_place},
    {"bench", "decision latency of the scheduler API on each backend", cli_sched_bench},
    {"serve", "a Kubernetes scheduler extender over HTTP (filter, prioritize)", cli_sched_serve},
};

int cli_sched(int argc, char **argv)
{
	return cli_dispatch("sched", sched_commands,
			    sizeof(sched_commands) / sizeof(sched_commands[0]), argc, argv);
}
