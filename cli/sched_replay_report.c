// SPDX-License-Identifier: MIT
/*
 * quire sched replay's report: the trace's figures and the comparison table per load on
 * stdout, with their means and deviations in summary.csv and summary.dat, the neural policy
 * against the best heuristic, and the gnuplot script and PNG of the figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sched_replay.h"

const char *const replay_metric_names[M_COUNT] = {"avg_jct_s", "p95_jct_s", "avg_wait_s",
						  "avg_bsld",  "gpu_alloc", "frag_share",
						  "frag_rate", "jain_qos"};

FILE *replay_open_out(const char *dir, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		cli_fail("%s: %s", path, strerror(errno));
	return f;
}

static int on_path(const char *prog)
{
	const char *env = getenv("PATH");
	char buf[4096];
	if (!env || snprintf(buf, sizeof(buf), "%s", env) >= (int)sizeof(buf))
		return 0;
	char *save = NULL;
	for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/%s", d, prog);
		if (access(p, X_OK) == 0)
			return 1;
	}
	return 0;
}

double replay_mean(const double *x, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i];
	return s / n;
}

double replay_sd(const double *x, int n)
{
	if (n < 2)
		return 0;
	double m = replay_mean(x, n), s = 0;
	for (int i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (n - 1));
}

/* Student's t, two-sided 95%, for df 1..30 (beyond: 1.96 is within 2% of it). */
double replay_ci95(const double *x, int n)
{
	static const double t[31] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
				     2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
				     2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
				     2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
	if (n < 2)
		return 0;
	return (n - 1 <= 30 ? t[n - 1] : 1.96) * replay_sd(x, n) / sqrt((double)n);
}

int replay_gnuplot(const char *script, const char *png)
{
	if (!on_path("gnuplot")) {
		printf("%s: skipped: gnuplot is not installed (apt-get install gnuplot-nox); "
		       "%s is ready for it\n",
		       png, script);
		return 0;
	}
	const char *argv[] = {"gnuplot", script, NULL};
	int stopped = 0;
	int rc = cli_run_child(argv, "apt-get install gnuplot-nox", &stopped);
	if (rc != 0)
		return cli_fail("gnuplot %s: exit status %d", script, rc);
	printf("wrote %s\n", png);
	return 0;
}

static int write_plot(const char *dir, const char *const *pol, int npol, const double *loads,
		      int nload)
{
	char path[1100];
	FILE *f = replay_open_out(dir, "replay.gp", path, sizeof(path));
	if (!f)
		return -1;
	fprintf(f,
		"# quire sched replay: gnuplot script for replay.png (summary.dat, series.dat)\n"
		"set terminal pngcairo size 1400,1000 noenhanced\n"
		"set output '%s/replay.png'\n"
		"set multiplot layout 2,2 title 'quire sched replay (mean over seeds)'\n"
		"set key top left\nset grid\n",
		dir);
	fprintf(f, "names = \"");
	for (int i = 0; i < npol; i++)
		fprintf(f, "%s%s", i ? " " : "", pol[i]);
	fprintf(f, "\"\nset xlabel 'GPU load'\n");
	if (nload == 1)
		fprintf(f, "set xrange [%g:%g]\n", loads[0] - 0.1, loads[0] + 0.1);
	fprintf(
	    f,
	    "set ylabel 'average JCT (s)'\n"
	    "plot for [i=0:%d] '%s/summary.dat' index i using 1:2 with linespoints title "
	    "word(names,i+1)\n"
	    "set ylabel 'average bounded slowdown'\n"
	    "plot for [i=0:%d] '%s/summary.dat' index i using 1:3 with linespoints title "
	    "word(names,i+1)\n"
	    "set ylabel 'fragmented GPU share (%%)'\n"
	    "plot for [i=0:%d] '%s/summary.dat' index i using 1:4 with linespoints title "
	    "word(names,i+1)\n"
	    "set autoscale x\nset xlabel 'time in the arrival window (h), load %g, first seed'\n"
	    "set ylabel 'GPU allocation rate (%%)'\nset yrange [0:100]\n"
	    "plot for [i=0:%d] '%s/series.dat' index i using 1:2 with lines title word(names,i+1)\n"
	    "unset multiplot\n",
	    npol - 1, dir, npol - 1, dir, npol - 1, dir, loads[nload - 1], npol - 1, dir);
	if (fclose(f) != 0)
		return cli_fail("%s: write error", path);
	char png[1100];
	snprintf(png, sizeof(png), "%s/replay.png", dir);
	return replay_gnuplot(path, png);
}

/*
 * The neural policy against the best heuristic of the run at each load (the lowest mean
 * average JCT among the others): ratios of the means, and the fragmented GPU shares.
 */
static void print_versus(const char *const *pol, int npol, int neural, const double *loads,
			 int nload, int nseed, const double (*met)[M_COUNT], const double *agree,
			 const double *agree_raw, const double *compared,
			 const double *compared_raw)
{
	printf("\nneural against the best heuristic at each load (lowest mean avg JCT), and FGD; "
	       "ratios of the means over the seeds; per-seed JCT ratio: mean +- 95%% CI\n"
	       "%-6s %-13s %10s %11s %12s %12s %12s %18s\n",
	       "load", "against", "JCT ratio", "wait ratio", "p95 ratio", "frag neural",
	       "frag other", "per-seed JCT ratio");
	for (int li = 0; li < nload; li++) {
		double mean[CLI_SCHED_MAX_LIST][M_COUNT];
		for (int pi = 0; pi < npol; pi++)
			for (int k = 0; k < M_COUNT; k++) {
				double v[CLI_SCHED_MAX_LIST];
				for (int si = 0; si < nseed; si++)
					v[si] = met[(li * npol + pi) * nseed + si][k];
				mean[pi][k] = replay_mean(v, nseed);
			}
		int best = -1, fgd = -1;
		for (int pi = 0; pi < npol; pi++) {
			if (pi != neural && (best < 0 || mean[pi][M_JCT] < mean[best][M_JCT]))
				best = pi;
			if (strcmp(pol[pi], "fgd") == 0)
				fgd = pi;
		}
		/* The best by JCT, and FGD (the paper's policy) when it is not that one. */
		for (int k = 0; k < 2; k++) {
			int o = k == 0 ? best : fgd;
			if (o < 0 || (k == 1 && fgd == best))
				continue;
			const double *n = mean[neural], *b = mean[o];
			char wait[16] = "-"; /* no ratio to a wait of 0 */
			if (b[M_WAIT] > 0)
				snprintf(wait, sizeof(wait), "%.3f", n[M_WAIT] / b[M_WAIT]);
			/* Paired: seed si is the same cluster and workload for both. */
			double ratio[CLI_SCHED_MAX_LIST];
			for (int si = 0; si < nseed; si++)
				ratio[si] = met[(li * npol + neural) * nseed + si][M_JCT] /
					    met[(li * npol + o) * nseed + si][M_JCT];
			printf(
			    "%-6.2f %-13s %10.3f %11s %12.3f %11.1f%% %11.1f%% %8.3f +- %-6.3f\n",
			    loads[li], pol[o], n[M_JCT] / b[M_JCT], wait, n[M_P95] / b[M_P95],
			    100 * n[M_FRAG], 100 * b[M_FRAG], replay_mean(ratio, nseed),
			    replay_ci95(ratio, nseed));
		}
	}
	for (int li = 0; li < nload; li++)
		if (compared[li] > 0)
			printf("int8 and fp32 choose the same node at load %.2f: %.0f of %.0f "
			       "decisions (%.2f%%); fp32 on the raw features: %.2f%% (of the %.0f "
			       "with at most %d distinct rows)\n",
			       loads[li], agree[li], compared[li], 100 * agree[li] / compared[li],
			       compared_raw[li] > 0 ? 100 * agree_raw[li] / compared_raw[li] : 0.0,
			       compared_raw[li], SCHED_RAW_MAX_ROWS);
}

/* The comparison table per load on stdout, the same means and deviations into summary.csv
 * (fsum), the means per policy into summary.dat (fdat) for the plot. */
static void replay_tables(const struct replay *r, FILE *fsum, FILE *fdat)
{
	const struct cli_trace_opts *o = &r->o;
	fprintf(fsum, "policy,load,seeds");
	for (int k = 0; k < M_COUNT; k++)
		fprintf(fsum, ",%s_mean,%s_sd,%s_ci95", replay_metric_names[k],
			replay_metric_names[k], replay_metric_names[k]);
	fprintf(fsum, "\n");
	for (int li = 0; li < o->nload; li++) {
		printf("\nload %.2f\n%-13s %21s %21s %17s %15s %13s %13s %13s %11s\n", o->loads[li],
		       "policy", "avg JCT (s)", "p95 JCT (s)", "avg wait (s)", "bounded sld",
		       "GPU alloc %", "frag GPU %", "frag/idle %", "Jain QoS");
		double (*spread)(const double *, int) = r->ci ? replay_ci95 : replay_sd;
		for (int pi = 0; pi < r->npol; pi++) {
			double v[M_COUNT][CLI_SCHED_MAX_LIST];
			for (int k = 0; k < M_COUNT; k++)
				for (int si = 0; si < o->nseed; si++)
					v[k][si] = r->met[(li * r->npol + pi) * o->nseed + si][k];
			fprintf(fsum, "%s,%g,%d", r->pol[pi], o->loads[li], o->nseed);
			for (int k = 0; k < M_COUNT; k++)
				fprintf(fsum, ",%.6g,%.6g,%.6g", replay_mean(v[k], o->nseed),
					replay_sd(v[k], o->nseed), replay_ci95(v[k], o->nseed));
			fprintf(fsum, "\n");
			printf("%-13s %11.0f +- %-6.0f %11.0f +- %-6.0f %8.0f +- %-6.0f %7.2f +- "
			       "%-5.2f %5.1f +- %-4.1f %5.1f +- %-4.1f %5.1f +- %-4.1f %5.3f +- "
			       "%-4.3f\n",
			       r->pol[pi], replay_mean(v[M_JCT], o->nseed),
			       spread(v[M_JCT], o->nseed), replay_mean(v[M_P95], o->nseed),
			       spread(v[M_P95], o->nseed), replay_mean(v[M_WAIT], o->nseed),
			       spread(v[M_WAIT], o->nseed), replay_mean(v[M_BSLD], o->nseed),
			       spread(v[M_BSLD], o->nseed), 100 * replay_mean(v[M_ALLOC], o->nseed),
			       100 * spread(v[M_ALLOC], o->nseed),
			       100 * replay_mean(v[M_FRAG], o->nseed),
			       100 * spread(v[M_FRAG], o->nseed),
			       100 * replay_mean(v[M_FRAGIDLE], o->nseed),
			       100 * spread(v[M_FRAGIDLE], o->nseed),
			       replay_mean(v[M_JAIN], o->nseed), spread(v[M_JAIN], o->nseed));
		}
	}
	for (int pi = 0; pi < r->npol; pi++) {
		for (int li = 0; li < o->nload; li++) {
			double v[3][CLI_SCHED_MAX_LIST];
			for (int si = 0; si < o->nseed; si++) {
				const double *m = r->met[(li * r->npol + pi) * o->nseed + si];
				v[0][si] = m[M_JCT];
				v[1][si] = m[M_BSLD];
				v[2][si] = 100 * m[M_FRAG];
			}
			fprintf(fdat, "%g %.3f %.4f %.4f\n", o->loads[li],
				replay_mean(v[0], o->nseed), replay_mean(v[1], o->nseed),
				replay_mean(v[2], o->nseed));
		}
		fprintf(fdat, "\n\n");
	}
}

int replay_report(struct replay *r, FILE **fsd)
{
	const struct cli_trace_opts *o = &r->o;
	char path[1100];
	printf("quire sched replay: %s, %zu never scheduled in the trace (left out); %zu of %s's "
	       "%zu nodes sampled per seed\n",
	       o->pods, r->info_never, r->info_nodes, o->nodes, r->nnodes);
	for (int si = 0; si < o->nseed; si++)
		printf("  seed %llu: %zu GPUs, %zu pods replayed, %zu that fit no node left out\n",
		       (unsigned long long)o->seeds[si], r->info_gpus[si], r->info_pods[si],
		       r->info_unpl[si]);
	if (o->nseed > 1)
		printf(
		    "figures: mean +- %s over the seeds\n",
		    r->ci
			? "the half-width of the 95% confidence interval of the mean (Student's t)"
			: "sample standard deviation");
	FILE *fsum = replay_open_out(r->out, "summary.csv", path, sizeof(path));
	if (!fsum)
		return CLI_EXIT_FAIL;
	FILE *fdat = replay_open_out(r->out, "summary.dat", path, sizeof(path));
	if (!fdat) {
		fclose(fsum);
		return CLI_EXIT_FAIL;
	}
	replay_tables(r, fsum, fdat);
	if (r->neural >= 0)
		print_versus(r->pol, r->npol, r->neural, o->loads, o->nload, o->nseed,
			     (const double(*)[M_COUNT])r->met, r->agree, r->agree_raw, r->compared,
			     r->compared_raw);
	int bad = fclose(fdat) != 0;
	bad |= fclose(fsum) != 0;
	bad |= fclose(*fsd) != 0;
	*fsd = NULL;
	if (bad)
		return cli_fail("%s: write error", r->out);
	printf("\n%d runs in %.1f s on one core; wrote %s/runs.csv, summary.csv, series.csv\n",
	       r->runs, r->seconds, r->out);
	if (r->plot)
		return write_plot(r->out, r->pol, r->npol, o->loads, o->nload) ? CLI_EXIT_FAIL : 0;
	printf("replay.png: skipped (--no-plot)\n");
	return 0;
}
