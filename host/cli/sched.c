// SPDX-License-Identifier: MIT
/*
 * quire sched: the scheduler's commands. `replay` runs the trace replay of sched/ for
 * every policy x load x seed asked for, prints the comparison table, and writes its
 * CSVs and a PNG (gnuplot) into --out. docs/sched.md describes the model.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sched/sched.h"

#define MAX_LIST 16

static void replay_help(FILE *out)
{
	fprintf(out,
		"Usage: quire sched replay --pods FILE --nodes FILE [OPTIONS]\n\n"
		"Replays the Alibaba GPU trace (v2023 columns) on a sampled cluster with each\n"
		"placement policy and compares them (docs/sched.md).\n\n"
		"  --pods FILE          pods CSV (name,cpu_milli,memory_mib,num_gpu,gpu_milli,\n"
		"                       gpu_spec,qos,pod_phase,creation_time,deletion_time,\n"
		"                       scheduled_time)\n"
		"  --nodes FILE         nodes CSV (sn,cpu_milli,memory_mib,gpu,model)\n"
		"  --nodes-count N      nodes sampled from the list (default 32; 0: all)\n"
		"  --seed S[,S...]      seeds of the sampling and the random policy (default 1)\n"
		"  --load L[,L...]      target GPU load in the arrival window (default 0.7)\n"
		"  --policy P[,P...]    first-fit, best-fit, least-loaded, tetris, random, fgd,\n"
		"                       or all (default all)\n"
		"  --qos-priority       queue by QoS class (LS, Guaranteed, Burstable, BE) first\n"
		"  --max-gap SEC        trace inter-arrival gaps capped at SEC before compression\n"
		"                       (default 3600; 0: no cap)\n"
		"  --speed M=F[,...]    GPU model speed factors (override or add a model)\n"
		"  --out DIR            runs.csv, summary.csv, series.csv, replay.png (default\n"
		"                       results/sched)\n"
		"  --no-plot            no PNG\n"
		"  --quiet              no progress line\n");
}

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

struct progress {
	int on;
	const char *policy;
	double load;
	uint64_t seed;
	int run, runs;
};

static void show_progress(void *arg, size_t done, size_t total)
{
	struct progress *p = arg;
	if (p->on)
		fprintf(stderr, "\r[%d/%d] %-12s load %.2f seed %llu: %zu/%zu pods  ", p->run,
			p->runs, p->policy, p->load, (unsigned long long)p->seed, done, total);
}

static int mkdirs(const char *path)
{
	char buf[1024];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -1;
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == 0) {
			char c = *p;
			*p = 0;
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = c;
			if (!c)
				break;
		}
	}
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t len)
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

static double mean_of(const double *x, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i];
	return s / n;
}

/* Sample standard deviation; 0 for one value. */
static double sd_of(const double *x, int n)
{
	if (n < 2)
		return 0;
	double m = mean_of(x, n), s = 0;
	for (int i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (n - 1));
}

enum { M_JCT, M_P95, M_WAIT, M_BSLD, M_ALLOC, M_FRAG, M_FRAGIDLE, M_JAIN, M_COUNT };
static const char *const metric_names[M_COUNT] = {"avg_jct_s", "p95_jct_s", "avg_wait_s",
						  "avg_bsld",  "gpu_alloc", "frag_share",
						  "frag_rate", "jain_qos"};

static void metrics_of(const struct sched_result *r, double *m)
{
	m[M_JCT] = r->avg_jct;
	m[M_P95] = r->p95_jct;
	m[M_WAIT] = r->avg_wait;
	m[M_BSLD] = r->avg_bsld;
	m[M_ALLOC] = r->alloc;
	m[M_FRAG] = r->frag;
	m[M_FRAGIDLE] = r->frag_idle;
	m[M_JAIN] = r->jain;
}

static int write_plot(const char *dir, const char *const *pol, int npol, const double *loads,
		      int nload)
{
	char path[1100];
	FILE *f = open_out(dir, "replay.gp", path, sizeof(path));
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
	if (!on_path("gnuplot")) {
		printf(
		    "replay.png: skipped: gnuplot is not installed (apt-get install gnuplot-nox); "
		    "%s is ready for it\n",
		    path);
		return 0;
	}
	const char *argv[] = {"gnuplot", path, NULL};
	int stopped = 0;
	int rc = cli_run_child(argv, "apt-get install gnuplot-nox", &stopped);
	if (rc != 0)
		return cli_fail("gnuplot %s: exit status %d", path, rc);
	printf("wrote %s/replay.png\n", dir);
	return 0;
}

static int replay(int argc, char **argv)
{
	static const struct option opts[] = {{"pods", required_argument, 0, 'p'},
					     {"nodes", required_argument, 0, 'n'},
					     {"nodes-count", required_argument, 0, 'N'},
					     {"seed", required_argument, 0, 's'},
					     {"load", required_argument, 0, 'l'},
					     {"policy", required_argument, 0, 'P'},
					     {"qos-priority", no_argument, 0, 'q'},
					     {"max-gap", required_argument, 0, 'g'},
					     {"speed", required_argument, 0, 'S'},
					     {"out", required_argument, 0, 'o'},
					     {"no-plot", no_argument, 0, 'x'},
					     {"quiet", no_argument, 0, 'Q'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *pods_path = NULL, *nodes_path = NULL, *out = "results/sched";
	const char *policy_list = "all", *speed_list = NULL;
	double loads[MAX_LIST] = {0.7}, seedv[MAX_LIST] = {1};
	int nload = 1, nseed = 1, plot = 1, quiet = 0;
	struct sched_config cfg;
	sched_config_default(&cfg);
	char *end;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pods_path = optarg;
			break;
		case 'n':
			nodes_path = optarg;
			break;
		case 'N':
			errno = 0;
			cfg.nodes_count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return cli_usage_error("sched replay", "bad --nodes-count '%s'",
						       optarg);
			break;
		case 's':
			if (parse_doubles(optarg, seedv, MAX_LIST, &nseed))
				return cli_usage_error("sched replay", "bad --seed '%s'", optarg);
			for (int i = 0; i < nseed; i++)
				if (seedv[i] < 0 || seedv[i] != floor(seedv[i]) || seedv[i] > 1e15)
					return cli_usage_error("sched replay",
							       "bad --seed '%s' (whole numbers)",
							       optarg);
			break;
		case 'l':
			if (parse_doubles(optarg, loads, MAX_LIST, &nload))
				return cli_usage_error("sched replay", "bad --load '%s'", optarg);
			for (int i = 0; i < nload; i++)
				if (!(loads[i] > 0 && loads[i] <= 10))
					return cli_usage_error("sched replay",
							       "bad --load '%s' (0 < L <= 10)",
							       optarg);
			break;
		case 'P':
			policy_list = optarg;
			break;
		case 'q':
			cfg.qos_priority = 1;
			break;
		case 'g':
			errno = 0;
			cfg.max_gap = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(cfg.max_gap >= 0) ||
			    !isfinite(cfg.max_gap))
				return cli_usage_error("sched replay", "bad --max-gap '%s'",
						       optarg);
			break;
		case 'S':
			speed_list = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'x':
			plot = 0;
			break;
		case 'Q':
			quiet = 1;
			break;
		case 'h':
			replay_help(stdout);
			return 0;
		default:
			return cli_bad_option("sched replay", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("sched replay", "unexpected argument '%s'", argv[optind]);
	if (!pods_path || !nodes_path)
		return cli_usage_error("sched replay", "--pods and --nodes are required");
	const char *pol[MAX_LIST];
	int npol = 0;
	char pbuf[256];
	if (strcmp(policy_list, "all") == 0) {
		for (; sched_policy_names[npol]; npol++)
			pol[npol] = sched_policy_names[npol];
	} else {
		if (snprintf(pbuf, sizeof(pbuf), "%s", policy_list) >= (int)sizeof(pbuf))
			return cli_usage_error("sched replay", "--policy list too long");
		char *save = NULL;
		for (char *t = strtok_r(pbuf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			struct sched_policy tmp;
			if (sched_policy_get(t, &tmp))
				return cli_usage_error(
				    "sched replay",
				    "unknown policy '%s' (first-fit, best-fit, least-loaded, "
				    "tetris, random, fgd, all)",
				    t);
			if (npol == MAX_LIST)
				return cli_usage_error("sched replay", "too many policies");
			pol[npol++] = t;
		}
		if (!npol)
			return cli_usage_error("sched replay", "empty --policy");
	}
	struct sched_models models;
	sched_models_default(&models);
	char err[SCHED_ERR_LEN];
	if (speed_list && sched_models_parse(&models, speed_list, err, sizeof(err)))
		return cli_usage_error("sched replay", "--speed: %s", err);
	struct sched_pod *pods = NULL;
	struct sched_node *nodes = NULL;
	size_t npods = 0, nnodes = 0;
	if (sched_read_pods(pods_path, &models, &pods, &npods, err, sizeof(err)))
		return cli_fail("%s", err);
	if (sched_read_nodes(nodes_path, &models, &nodes, &nnodes, err, sizeof(err))) {
		free(pods);
		return cli_fail("%s", err);
	}
	int rc = 0;
	int runs = npol * nload * nseed;
	double(*met)[M_COUNT] = calloc((size_t)runs, sizeof(*met));
	FILE *fr = NULL, *fs = NULL, *fsd = NULL, *fsum = NULL;
	char path[1100];
	if (!met) {
		rc = cli_fail("out of memory");
		goto done;
	}
	if (mkdirs(out)) {
		rc = cli_fail("%s: cannot create the directory: %s", out, strerror(errno));
		goto done;
	}
	if (!(fr = open_out(out, "runs.csv", path, sizeof(path))) ||
	    !(fs = open_out(out, "series.csv", path, sizeof(path))) ||
	    !(fsd = open_out(out, "series.dat", path, sizeof(path)))) {
		rc = CLI_EXIT_FAIL;
		goto done;
	}
	fprintf(fr, "policy,load,seed,nodes,gpus,pods,never_scheduled,unplaceable,compress,"
		    "window_s,makespan_s,decisions");
	for (int k = 0; k < M_COUNT; k++)
		fprintf(fr, ",%s", metric_names[k]);
	for (int q = 0; q < SCHED_QOS_COUNT; q++)
		fprintf(fr, ",bsld_%s", sched_qos_name(q));
	fprintf(fr, ",wall_s\n");
	fprintf(fs, "policy,load,seed,t_s,gpu_alloc,frag_share\n");
	struct progress pg = {!quiet && isatty(2), NULL, 0, 0, 0, runs};
	cfg.progress = show_progress;
	cfg.progress_arg = &pg;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int run = 0;
	size_t info_pods[MAX_LIST] = {0}, info_unpl[MAX_LIST] = {0}, info_gpus[MAX_LIST] = {0};
	size_t info_never = 0, info_nodes = 0;
	for (int li = 0; li < nload; li++)
		for (int pi = 0; pi < npol; pi++)
			for (int si = 0; si < nseed; si++) {
				struct sched_policy p;
				sched_policy_get(pol[pi], &p);
				cfg.load = loads[li];
				cfg.seed = (uint64_t)seedv[si];
				pg.policy = pol[pi];
				pg.load = cfg.load;
				pg.seed = cfg.seed;
				pg.run = run + 1;
				struct sched_result r;
				struct timespec a, b;
				clock_gettime(CLOCK_MONOTONIC, &a);
				if (sched_replay(pods, npods, nodes, nnodes, &models, &cfg, &p, &r,
						 err, sizeof(err))) {
					if (pg.on)
						fputc('\n', stderr);
					rc =
					    cli_fail("replay (%s, load %g, seed %llu): %s", pol[pi],
						     cfg.load, (unsigned long long)cfg.seed, err);
					goto done;
				}
				clock_gettime(CLOCK_MONOTONIC, &b);
				double wall = (double)(b.tv_sec - a.tv_sec) +
					      (double)(b.tv_nsec - a.tv_nsec) / 1e9;
				double *m = met[(li * npol + pi) * nseed + si];
				metrics_of(&r, m);
				info_pods[si] = r.pods;
				info_never = r.never_scheduled;
				info_unpl[si] = r.unplaceable;
				info_gpus[si] = r.gpus;
				info_nodes = r.nodes;
				fprintf(fr, "%s,%g,%llu,%zu,%zu,%zu,%zu,%zu,%.6g,%.1f,%.1f,%zu",
					pol[pi], cfg.load, (unsigned long long)cfg.seed, r.nodes,
					r.gpus, r.pods, r.never_scheduled, r.unplaceable,
					r.compress, r.window, r.makespan, r.decisions);
				for (int k = 0; k < M_COUNT; k++)
					fprintf(fr, ",%.6g", m[k]);
				for (int q = 0; q < SCHED_QOS_COUNT; q++)
					fprintf(fr, ",%.6g", r.qos_bsld[q]);
				fprintf(fr, ",%.3f\n", wall);
				for (size_t k = 0; k < r.nseries; k++)
					fprintf(fs, "%s,%g,%llu,%.1f,%.6f,%.6f\n", pol[pi],
						cfg.load, (unsigned long long)cfg.seed,
						r.series_t[k], r.series_alloc[k], r.series_frag[k]);
				if (li == nload - 1 && si == 0) {
					for (size_t k = 0; k < r.nseries; k++)
						fprintf(fsd, "%.4f %.3f %.3f\n",
							r.series_t[k] / 3600.0,
							100 * r.series_alloc[k],
							100 * r.series_frag[k]);
					fprintf(fsd, "\n\n");
				}
				sched_result_free(&r);
				run++;
			}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (pg.on)
		fprintf(stderr, "\r%70s\r", "");
	double total = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("quire sched replay: %s, %zu never scheduled in the trace (left out); %zu of %s's "
	       "%zu nodes sampled per seed\n",
	       pods_path, info_never, info_nodes, nodes_path, nnodes);
	for (int si = 0; si < nseed; si++)
		printf("  seed %llu: %zu GPUs, %zu pods replayed, %zu that fit no node left out\n",
		       (unsigned long long)seedv[si], info_gpus[si], info_pods[si], info_unpl[si]);
	if (nseed > 1)
		printf("figures: mean +- sample standard deviation over the seeds\n");
	if (!(fsum = open_out(out, "summary.csv", path, sizeof(path)))) {
		rc = CLI_EXIT_FAIL;
		goto done;
	}
	fprintf(fsum, "policy,load,seeds");
	for (int k = 0; k < M_COUNT; k++)
		fprintf(fsum, ",%s_mean,%s_sd", metric_names[k], metric_names[k]);
	fprintf(fsum, "\n");
	FILE *fdat = open_out(out, "summary.dat", path, sizeof(path));
	if (!fdat) {
		rc = CLI_EXIT_FAIL;
		goto done;
	}
	for (int li = 0; li < nload; li++) {
		printf("\nload %.2f\n%-13s %21s %21s %17s %15s %13s %13s %13s %11s\n", loads[li],
		       "policy", "avg JCT (s)", "p95 JCT (s)", "avg wait (s)", "bounded sld",
		       "GPU alloc %", "frag GPU %", "frag/idle %", "Jain QoS");
		for (int pi = 0; pi < npol; pi++) {
			double v[M_COUNT][MAX_LIST];
			for (int k = 0; k < M_COUNT; k++)
				for (int si = 0; si < nseed; si++)
					v[k][si] = met[(li * npol + pi) * nseed + si][k];
			fprintf(fsum, "%s,%g,%d", pol[pi], loads[li], nseed);
			for (int k = 0; k < M_COUNT; k++)
				fprintf(fsum, ",%.6g,%.6g", mean_of(v[k], nseed),
					sd_of(v[k], nseed));
			fprintf(fsum, "\n");
			printf("%-13s %11.0f +- %-6.0f %11.0f +- %-6.0f %8.0f +- %-6.0f %7.2f +- "
			       "%-5.2f %5.1f +- %-4.1f %5.1f +- %-4.1f %5.1f +- %-4.1f %5.3f +- "
			       "%-4.3f\n",
			       pol[pi], mean_of(v[M_JCT], nseed), sd_of(v[M_JCT], nseed),
			       mean_of(v[M_P95], nseed), sd_of(v[M_P95], nseed),
			       mean_of(v[M_WAIT], nseed), sd_of(v[M_WAIT], nseed),
			       mean_of(v[M_BSLD], nseed), sd_of(v[M_BSLD], nseed),
			       100 * mean_of(v[M_ALLOC], nseed), 100 * sd_of(v[M_ALLOC], nseed),
			       100 * mean_of(v[M_FRAG], nseed), 100 * sd_of(v[M_FRAG], nseed),
			       100 * mean_of(v[M_FRAGIDLE], nseed),
			       100 * sd_of(v[M_FRAGIDLE], nseed), mean_of(v[M_JAIN], nseed),
			       sd_of(v[M_JAIN], nseed));
		}
	}
	for (int pi = 0; pi < npol; pi++) {
		for (int li = 0; li < nload; li++) {
			double v[3][MAX_LIST];
			for (int si = 0; si < nseed; si++) {
				const double *m = met[(li * npol + pi) * nseed + si];
				v[0][si] = m[M_JCT];
				v[1][si] = m[M_BSLD];
				v[2][si] = 100 * m[M_FRAG];
			}
			fprintf(fdat, "%g %.3f %.4f %.4f\n", loads[li], mean_of(v[0], nseed),
				mean_of(v[1], nseed), mean_of(v[2], nseed));
		}
		fprintf(fdat, "\n\n");
	}
	int bad = fclose(fdat) != 0;
	bad |= fclose(fsum) != 0;
	fsum = NULL;
	bad |= fclose(fsd) != 0;
	fsd = NULL;
	if (bad) {
		rc = cli_fail("%s: write error", out);
		goto done;
	}
	printf("\n%d runs in %.1f s on one core; wrote %s/runs.csv, summary.csv, series.csv\n",
	       runs, total, out);
	if (plot)
		rc = write_plot(out, pol, npol, loads, nload) ? CLI_EXIT_FAIL : 0;
	else
		printf("replay.png: skipped (--no-plot)\n");
done:
	if (fr && fclose(fr) != 0 && !rc)
		rc = cli_fail("%s/runs.csv: write error", out);
	if (fs && fclose(fs) != 0 && !rc)
		rc = cli_fail("%s/series.csv: write error", out);
	if (fsd)
		fclose(fsd);
	if (fsum)
		fclose(fsum);
	free(met);
	free(pods);
	free(nodes);
	return rc;
}

static const struct cli_command sched_commands[] = {
    {"replay", "replay the GPU trace with each placement policy and compare them", replay},
    {"place", "one placement decision by the model (task and nodes as CSV on stdin)",
     cli_sched_place},
    {"bench", "decision latency of the scheduler API on each backend", cli_sched_bench},
};

int cli_sched(int argc, char **argv)
{
	return cli_dispatch("sched", sched_commands,
			    sizeof(sched_commands) / sizeof(sched_commands[0]), argc, argv);
}
