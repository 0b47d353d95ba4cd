/* SPDX-License-Identifier: MIT */
/*
 * quire sched replay: what its options ask for and what its runs found (sched_replay.c),
 * and its report of them (sched_replay_report.c).
 */
#ifndef QUIRE_CLI_SCHED_REPLAY_H
#define QUIRE_CLI_SCHED_REPLAY_H

#include <stdio.h>

#include "sched/sched.h"
#include "sched_mlp.h"
#include "sched_opts.h"

/* The metrics of one run, in the order of runs.csv's and summary.csv's columns. */
enum { M_JCT, M_P95, M_WAIT, M_BSLD, M_ALLOC, M_FRAG, M_FRAGIDLE, M_JAIN, M_COUNT };
extern const char *const replay_metric_names[M_COUNT];

/* What one sched replay is asked for, and what its runs found. */
struct replay {
	/* The options. */
	const char *out, *model_path, *fp32_path, *backend;
	int plot, quiet, help, ci;
	double saturate; /* > 0: the saturation experiment up to this arrived demand */
	struct sched_config cfg;
	struct cli_trace_opts o;
	const char *pol[CLI_SCHED_MAX_LIST];
	int npol;
	char pol_names[256]; /* the --policy list, cut into the names pol points to */
	/* The trace. */
	struct sched_models models;
	struct sched_pod *pods;
	struct sched_node *nodes;
	size_t npods, nnodes;
	/* The neural policy, when asked for (neural: its index in pol, else -1): its model on a
	 * backend, its fp32 reference, and per load how often int8 and fp32 agreed. */
	int neural;
	struct quire_ctx *ctx;
	struct sched_mlp mlp;
	struct sched_fp32 fp32;
	struct sched_neural nn;
	double agree[CLI_SCHED_MAX_LIST], agree_raw[CLI_SCHED_MAX_LIST],
	    compared[CLI_SCHED_MAX_LIST], compared_raw[CLI_SCHED_MAX_LIST];
	/* The runs: metrics of run (load li, policy pi, seed si) at met[(li * npol + pi) *
	 * nseed + si], the trace's figures per seed, and the wall time of them all. */
	int runs;
	double (*met)[M_COUNT];
	size_t info_pods[CLI_SCHED_MAX_LIST], info_unpl[CLI_SCHED_MAX_LIST],
	    info_gpus[CLI_SCHED_MAX_LIST];
	size_t info_never, info_nodes;
	double seconds;
};

/* Mean, sample standard deviation (0 for one value) and the half-width of the 95%
 * confidence interval of the mean (Student's t; 0 for one value) of x[0..n). */
double replay_mean(const double *x, int n);
double replay_sd(const double *x, int n);
double replay_ci95(const double *x, int n);
/* gnuplot run on script (which writes png); without gnuplot, a line says so. 0, or the
 * exit status (the error said). */
int replay_gnuplot(const char *script, const char *png);
/* The saturation experiment (--saturate, sched_saturate.c): every policy x seed, its table
 * and saturate.csv, saturate.png. 0, or the exit status (the error said). */
int replay_saturate(struct replay *r);

/* dir/name opened for writing, its path in path (len bytes); NULL if not (said). */
FILE *replay_open_out(const char *dir, const char *name, char *path, size_t len);
/* What the runs found, on stdout and into summary.csv and summary.dat; series.dat (fsd)
 * closed, then the plot. 0, or the exit status (the error said). */
int replay_report(struct replay *r, FILE **fsd);

#endif /* QUIRE_CLI_SCHED_REPLAY_H */
