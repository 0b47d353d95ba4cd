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
#include "sched_mlp.h"

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
		"                       neural, or all (the heuristics; default all)\n"
		"  --part P             pods of one part of the trace: all (default), train,\n"
		"                       select, eval (data row mod 10: 0-5, 6-7, 8-9)\n"
		"  --model-file FILE    the neural policy's int8 model image (default\n"
		"                       sched/model/sched.qmlp)\n"
		"  --fp32-file FILE     its fp32 reference: int8/fp32 choices compared\n"
		"  --backend URI        libquire backend scoring the neural policy (default cpu)\n"
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

/* The trace of --pods and --nodes, with --speed's factors, cut to one part: 0, or the
 * exit status (the error said). */
static int load_trace(const char *cmd, const char *pods_path, const char *nodes_path,
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
	if (parse_doubles(arg, v, MAX_LIST, n))
		return cli_usage_error(cmd, "bad --%s '%s'", opt == 's' ? "seed" : "load", arg);
	for (int i = 0; i < *n; i++) {
		if (opt == 's' && (v[i] < 0 || v[i] != floor(v[i]) || v[i] > 1e9))
			return cli_usage_error(cmd, "bad --seed '%s' (whole numbers)", arg);
		if (opt == 'l' && !(v[i] > 0 && v[i] <= 10))
			return cli_usage_error(cmd, "bad --load '%s' (0 < L <= 10)", arg);
	}
	return 0;
}

/* The options sched replay and sched dataset share. */
struct trace_opts {
	const char *pods, *nodes, *speed;
	int part;
	double loads[MAX_LIST], seeds[MAX_LIST];
	int nload, nseed;
	struct sched_config *cfg;
};

/* One shared option: 0, the usage error's status, or -1 when c is not one of them. */
static int trace_opt(const char *cmd, int c, const char *arg, struct trace_opts *o)
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
	case 'A':
		if ((o->part = sched_part_parse(arg)) < 0)
			return cli_usage_error(cmd, "bad --part '%s' (all, train, select, eval)",
					       arg);
		return 0;
	}
	return -1;
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

static void neural_close(struct quire_ctx *ctx, struct sched_mlp *mlp, struct sched_fp32 *fp32,
			 struct sched_neural *nn)
{
	sched_mlp_close(mlp);
	quire_close(ctx);
	sched_fp32_free(fp32);
	sched_neural_free(nn);
}

/*
 * The neural policy against the best heuristic of the run at each load (the lowest mean
 * average JCT among the others): ratios of the means, and the fragmented GPU shares.
 */
static void print_versus(const char *const *pol, int npol, int neural, const double *loads,
			 int nload, int nseed, const double (*met)[M_COUNT], const double *agree,
			 const double *agree_raw, const double *compared)
{
	printf("\nneural against the best heuristic at each load (lowest mean avg JCT), and FGD; "
	       "ratios of the means over the seeds\n%-6s %-13s %10s %11s %12s %12s %12s\n",
	       "load", "against", "JCT ratio", "wait ratio", "p95 ratio", "frag neural",
	       "frag other");
	for (int li = 0; li < nload; li++) {
		double mean[MAX_LIST][M_COUNT];
		for (int pi = 0; pi < npol; pi++)
			for (int k = 0; k < M_COUNT; k++) {
				double v[MAX_LIST];
				for (int si = 0; si < nseed; si++)
					v[si] = met[(li * npol + pi) * nseed + si][k];
				mean[pi][k] = mean_of(v, nseed);
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
			printf("%-6.2f %-13s %10.3f %11s %12.3f %11.1f%% %11.1f%%\n", loads[li],
			       pol[o], n[M_JCT] / b[M_JCT], wait, n[M_P95] / b[M_P95],
			       100 * n[M_FRAG], 100 * b[M_FRAG]);
		}
	}
	for (int li = 0; li < nload; li++)
		if (compared[li] > 0)
			printf("int8 and fp32 choose the same node at load %.2f: %.0f of %.0f "
			       "decisions (%.2f%%); fp32 on the raw features: %.2f%%\n",
			       loads[li], agree[li], compared[li], 100 * agree[li] / compared[li],
			       100 * agree_raw[li] / compared[li]);
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
					     {"part", required_argument, 0, 'A'},
					     {"model-file", required_argument, 0, 'M'},
					     {"fp32-file", required_argument, 0, 'F'},
					     {"backend", required_argument, 0, 'B'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *out = "results/sched", *policy_list = "all";
	const char *model_path = "sched/model/sched.qmlp", *fp32_path = NULL, *backend = "cpu";
	int plot = 1, quiet = 0;
	struct sched_config cfg;
	sched_config_default(&cfg);
	struct trace_opts o = {NULL, NULL, NULL, SCHED_PART_ALL, {0.7}, {1}, 1, 1, &cfg};
	int c, st;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			policy_list = optarg;
			break;
		case 'q':
			cfg.qos_priority = 1;
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
		case 'M':
			model_path = optarg;
			break;
		case 'F':
			fp32_path = optarg;
			break;
		case 'B':
			backend = optarg;
			break;
		case 'h':
			replay_help(stdout);
			return 0;
		default:
			if ((st = trace_opt("sched replay", c, optarg, &o)) < 0)
				return cli_bad_option("sched replay", c, argv);
			if (st)
				return st;
		}
	}
	if (optind < argc)
		return cli_usage_error("sched replay", "unexpected argument '%s'", argv[optind]);
	if (!o.pods || !o.nodes)
		return cli_usage_error("sched replay", "--pods and --nodes are required");
	const char *pol[MAX_LIST];
	int npol = 0;
	char pbuf[256];
	/* "all" (the heuristics) may stand in a list: "all,neural". */
	if (snprintf(pbuf, sizeof(pbuf), "%s", policy_list) >= (int)sizeof(pbuf))
		return cli_usage_error("sched replay", "--policy list too long");
	char *save = NULL;
	for (char *t = strtok_r(pbuf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int all = strcmp(t, "all") == 0;
		struct sched_policy tmp;
		if (!all && sched_policy_get(t, &tmp))
			return cli_usage_error(
			    "sched replay",
			    "unknown policy '%s' (first-fit, best-fit, least-loaded, "
			    "tetris, random, fgd, neural, all)",
			    t);
		for (int k = 0; all ? sched_policy_names[k] != NULL : k < 1; k++) {
			const char *name = all ? sched_policy_names[k] : t;
			for (int i = 0; i < npol; i++)
				if (strcmp(pol[i], name) == 0)
					return cli_usage_error("sched replay",
							       "policy '%s' named twice", name);
			if (npol == MAX_LIST)
				return cli_usage_error("sched replay", "too many policies");
			pol[npol++] = name;
		}
	}
	if (!npol)
		return cli_usage_error("sched replay", "empty --policy");
	struct sched_models models;
	char err[SCHED_ERR_LEN];
	struct sched_pod *pods = NULL;
	struct sched_node *nodes = NULL;
	size_t npods = 0, nnodes = 0;
	st = load_trace("sched replay", o.pods, o.nodes, o.speed, o.part, &models, &pods, &npods,
			&nodes, &nnodes);
	if (st)
		return st;
	/* The neural policy: its model loaded on the backend, its fp32 reference read. */
	int neural = -1;
	for (int i = 0; i < npol; i++)
		if (strcmp(pol[i], "neural") == 0)
			neural = i;
	struct quire_ctx *ctx = NULL;
	struct sched_mlp mlp;
	struct sched_fp32 fp32;
	struct sched_neural nn;
	memset(&mlp, 0, sizeof(mlp));
	memset(&fp32, 0, sizeof(fp32));
	memset(&nn, 0, sizeof(nn));
	double agree[MAX_LIST] = {0}, agree_raw[MAX_LIST] = {0}, compared[MAX_LIST] = {0};
	int rc = 0;
	if (neural >= 0) {
		if (cli_open("sched replay", backend, &ctx)) {
			free(pods);
			free(nodes);
			return CLI_EXIT_FAIL;
		}
		if (sched_mlp_load(&mlp, ctx, model_path, err, sizeof(err))) {
			rc = cli_fail("%s", err);
			neural_close(ctx, &mlp, &fp32, &nn);
			free(pods);
			free(nodes);
			return rc;
		}
		if (fp32_path && sched_fp32_read(fp32_path, &fp32, err, sizeof(err))) {
			rc = cli_fail("%s", err);
			neural_close(ctx, &mlp, &fp32, &nn);
			free(pods);
			free(nodes);
			return rc;
		}
		nn.score = sched_mlp_score;
		nn.arg = &mlp;
		nn.fp32 = fp32_path ? &fp32 : NULL;
	}
	int runs = npol * o.nload * o.nseed;
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
	for (int li = 0; li < o.nload; li++)
		for (int pi = 0; pi < npol; pi++)
			for (int si = 0; si < o.nseed; si++) {
				struct sched_policy p;
				sched_policy_get(pol[pi], &p);
				if (pi == neural) {
					p.state = &nn;
					nn.compared = nn.agree = nn.agree_raw = 0;
				}
				cfg.load = o.loads[li];
				cfg.seed = (uint64_t)o.seeds[si];
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
					rc = cli_fail(
					    "replay (%s, load %g, seed %llu): %s%s%s", pol[pi],
					    cfg.load, (unsigned long long)cfg.seed, err,
					    pi == neural ? ": " : "", pi == neural ? nn.err : "");
					goto done;
				}
				clock_gettime(CLOCK_MONOTONIC, &b);
				double wall = (double)(b.tv_sec - a.tv_sec) +
					      (double)(b.tv_nsec - a.tv_nsec) / 1e9;
				double *m = met[(li * npol + pi) * o.nseed + si];
				metrics_of(&r, m);
				if (pi == neural) {
					agree[li] += (double)nn.agree;
					agree_raw[li] += (double)nn.agree_raw;
					compared[li] += (double)nn.compared;
				}
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
				if (li == o.nload - 1 && si == 0) {
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
	       o.pods, info_never, info_nodes, o.nodes, nnodes);
	for (int si = 0; si < o.nseed; si++)
		printf("  seed %llu: %zu GPUs, %zu pods replayed, %zu that fit no node left out\n",
		       (unsigned long long)o.seeds[si], info_gpus[si], info_pods[si],
		       info_unpl[si]);
	if (o.nseed > 1)
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
	for (int li = 0; li < o.nload; li++) {
		printf("\nload %.2f\n%-13s %21s %21s %17s %15s %13s %13s %13s %11s\n", o.loads[li],
		       "policy", "avg JCT (s)", "p95 JCT (s)", "avg wait (s)", "bounded sld",
		       "GPU alloc %", "frag GPU %", "frag/idle %", "Jain QoS");
		for (int pi = 0; pi < npol; pi++) {
			double v[M_COUNT][MAX_LIST];
			for (int k = 0; k < M_COUNT; k++)
				for (int si = 0; si < o.nseed; si++)
					v[k][si] = met[(li * npol + pi) * o.nseed + si][k];
			fprintf(fsum, "%s,%g,%d", pol[pi], o.loads[li], o.nseed);
			for (int k = 0; k < M_COUNT; k++)
				fprintf(fsum, ",%.6g,%.6g", mean_of(v[k], o.nseed),
					sd_of(v[k], o.nseed));
			fprintf(fsum, "\n");
			printf("%-13s %11.0f +- %-6.0f %11.0f +- %-6.0f %8.0f +- %-6.0f %7.2f +- "
			       "%-5.2f %5.1f +- %-4.1f %5.1f +- %-4.1f %5.1f +- %-4.1f %5.3f +- "
			       "%-4.3f\n",
			       pol[pi], mean_of(v[M_JCT], o.nseed), sd_of(v[M_JCT], o.nseed),
			       mean_of(v[M_P95], o.nseed), sd_of(v[M_P95], o.nseed),
			       mean_of(v[M_WAIT], o.nseed), sd_of(v[M_WAIT], o.nseed),
			       mean_of(v[M_BSLD], o.nseed), sd_of(v[M_BSLD], o.nseed),
			       100 * mean_of(v[M_ALLOC], o.nseed), 100 * sd_of(v[M_ALLOC], o.nseed),
			       100 * mean_of(v[M_FRAG], o.nseed), 100 * sd_of(v[M_FRAG], o.nseed),
			       100 * mean_of(v[M_FRAGIDLE], o.nseed),
			       100 * sd_of(v[M_FRAGIDLE], o.nseed), mean_of(v[M_JAIN], o.nseed),
			       sd_of(v[M_JAIN], o.nseed));
		}
	}
	for (int pi = 0; pi < npol; pi++) {
		for (int li = 0; li < o.nload; li++) {
			double v[3][MAX_LIST];
			for (int si = 0; si < o.nseed; si++) {
				const double *m = met[(li * npol + pi) * o.nseed + si];
				v[0][si] = m[M_JCT];
				v[1][si] = m[M_BSLD];
				v[2][si] = 100 * m[M_FRAG];
			}
			fprintf(fdat, "%g %.3f %.4f %.4f\n", o.loads[li], mean_of(v[0], o.nseed),
				mean_of(v[1], o.nseed), mean_of(v[2], o.nseed));
		}
		fprintf(fdat, "\n\n");
	}
	if (neural >= 0)
		print_versus(pol, npol, neural, o.loads, o.nload, o.nseed,
			     (const double(*)[M_COUNT])met, agree, agree_raw, compared);
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
		rc = write_plot(out, pol, npol, o.loads, o.nload) ? CLI_EXIT_FAIL : 0;
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
	if (neural >= 0)
		neural_close(ctx, &mlp, &fp32, &nn);
	return rc;
}

/* ---- quire sched dataset ------------------------------------------------------------------ */

static void dataset_help(FILE *out)
{
	fprintf(out,
		"Usage: quire sched dataset --pods FILE --nodes FILE --out FILE [OPTIONS]\n\n"
		"Replays a part of the trace with FGD and, at sampled decisions, rolls out\n"
		"candidates with FGD for a bounded horizon; writes every sampled decision's\n"
		"features, mask and rollout outcomes for training (docs/sched.md, \"The\n"
		"dataset file\").\n\n"
		"  --pods FILE, --nodes FILE, --nodes-count N, --max-gap SEC, --speed M=F[,...]\n"
		"                       as for sched replay\n"
		"  --part P               all, train (default), select, eval\n"
		"  --seed S[,S...]      cluster seeds (default 11,12,13)\n"
		"  --load L[,L...]      target loads (default 0.5,0.7,0.9)\n"
		"  --rate R             share of decisions (with 2 or more feasible candidates)\n"
		"                       labelled (default 0.25)\n"
		"  --horizon N          arrivals after a decision its rollouts span (default 32)\n"
		"  --topk K             candidates with the lowest FGD score rolled out, beside\n"
		"                       the best of each GPU model (default 4)\n"
		"  --out FILE           the dataset file\n");
}

struct dataset {
	FILE *f;
	float load;
	uint32_t seed;
	size_t records, rollouts;
};

/* One record of the dataset file (docs/sched.md): little-endian, as the hosts quire runs on. */
static int emit_record(void *arg, const struct sched_decision *d, int base,
		       const struct sched_rollout *ro, char *err, size_t errlen)
{
	struct dataset *ds = arg;
	uint32_t count = (uint32_t)d->count;
	int32_t b = base;
	int ok = fwrite(&count, 4, 1, ds->f) == 1 && fwrite(&b, 4, 1, ds->f) == 1 &&
		 fwrite(&ds->load, 4, 1, ds->f) == 1 && fwrite(&ds->seed, 4, 1, ds->f) == 1 &&
		 fwrite(d->features, sizeof(float) * SCHED_FEATURES, count, ds->f) == count &&
		 fwrite(d->feasible, 1, count, ds->f) == count;
	for (uint32_t i = 0; i < count && ok; i++)
		ok = fputc(ro[i].done, ds->f) != EOF;
	for (int field = 0; field < 3 && ok; field++)
		for (uint32_t i = 0; i < count && ok; i++) {
			double v = field == 0 ? ro[i].wait : field == 1 ? ro[i].run : ro[i].frag;
			ok = fwrite(&v, 8, 1, ds->f) == 1;
		}
	for (uint32_t i = 0; i < count && ok; i++) {
		ok = fwrite(&ro[i].pending, 4, 1, ds->f) == 1;
		ds->rollouts += ro[i].done;
	}
	ds->records++;
	if (!ok)
		snprintf(err, errlen, "write error");
	return ok ? 0 : -1;
}

static int dataset(int argc, char **argv)
{
	static const struct option opts[] = {{"pods", required_argument, 0, 'p'},
					     {"nodes", required_argument, 0, 'n'},
					     {"nodes-count", required_argument, 0, 'N'},
					     {"seed", required_argument, 0, 's'},
					     {"load", required_argument, 0, 'l'},
					     {"max-gap", required_argument, 0, 'g'},
					     {"speed", required_argument, 0, 'S'},
					     {"part", required_argument, 0, 'A'},
					     {"rate", required_argument, 0, 'r'},
					     {"horizon", required_argument, 0, 'H'},
					     {"topk", required_argument, 0, 'k'},
					     {"out", required_argument, 0, 'o'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *out = NULL;
	struct sched_config cfg;
	sched_config_default(&cfg);
	struct trace_opts o = {NULL, NULL, NULL, SCHED_PART_TRAIN, {0.5, 0.7, 0.9}, {11, 12, 13},
			       3,    3,    &cfg};
	struct sched_label_config lc = {0.25, 32, 4, 0, emit_record, NULL};
	char *end;
	int c, rc;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		unsigned long v;
		switch (c) {
		case 'H':
		case 'k':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v > 1000000 ||
			    (c == 'H' && v == 0))
				return cli_usage_error("sched dataset", "bad --%s '%s'",
						       c == 'H' ? "horizon" : "topk", optarg);
			if (c == 'H')
				lc.horizon = v;
			else
				lc.topk = v;
			break;
		case 'r':
			errno = 0;
			lc.rate = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(lc.rate >= 0 && lc.rate <= 1))
				return cli_usage_error("sched dataset", "bad --rate '%s' (0..1)",
						       optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			dataset_help(stdout);
			return 0;
		default:
			if ((rc = trace_opt("sched dataset", c, optarg, &o)) < 0)
				return cli_bad_option("sched dataset", c, argv);
			if (rc)
				return rc;
		}
	}
	if (optind < argc)
		return cli_usage_error("sched dataset", "unexpected argument '%s'", argv[optind]);
	if (!o.pods || !o.nodes || !out)
		return cli_usage_error("sched dataset", "--pods, --nodes and --out are required");
	struct sched_models models;
	char err[SCHED_ERR_LEN];
	struct sched_pod *pods = NULL;
	struct sched_node *nodes = NULL;
	size_t npods = 0, nnodes = 0;
	rc = load_trace("sched dataset", o.pods, o.nodes, o.speed, o.part, &models, &pods, &npods,
			&nodes, &nnodes);
	if (rc)
		return rc;
	struct dataset ds = {fopen(out, "wb"), 0, 0, 0, 0};
	if (!ds.f) {
		rc = cli_fail("%s: %s", out, strerror(errno));
		goto done;
	}
	/* Header: magic, version, features, their int8 gains. */
	uint32_t hdr[4] = {0x53445351u /* "QSDS" */, 1, SCHED_FEATURES, 0};
	if (fwrite(hdr, 4, 4, ds.f) != 4 ||
	    fwrite(sched_feature_gain, sizeof(float), SCHED_FEATURES, ds.f) != SCHED_FEATURES) {
		rc = cli_fail("%s: write error", out);
		goto done;
	}
	lc.arg = &ds;
	cfg.label = &lc;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int li = 0; li < o.nload; li++)
		for (int si = 0; si < o.nseed; si++) {
			struct sched_policy p;
			sched_policy_get("fgd", &p);
			cfg.load = o.loads[li];
			cfg.seed = (uint64_t)o.seeds[si];
			lc.seed = cfg.seed * 1000003u + (uint64_t)(o.loads[li] * 1000);
			ds.load = (float)o.loads[li];
			ds.seed = (uint32_t)cfg.seed;
			size_t before = ds.records;
			struct sched_result r;
			if (sched_replay(pods, npods, nodes, nnodes, &models, &cfg, &p, &r, err,
					 sizeof(err))) {
				rc = cli_fail("dataset (load %g, seed %llu): %s", cfg.load,
					      (unsigned long long)cfg.seed, err);
				goto done;
			}
			printf("load %.2f seed %llu: %zu pods, %zu decisions, %zu labelled\n",
			       cfg.load, (unsigned long long)cfg.seed, r.pods, r.decisions,
			       ds.records - before);
			sched_result_free(&r);
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("wrote %s: %zu decisions, %zu rollouts, %.1f s\n", out, ds.records, ds.rollouts,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
done:
	if (ds.f && fclose(ds.f) != 0 && !rc)
		rc = cli_fail("%s: write error", out);
	free(pods);
	free(nodes);
	return rc;
}

static const struct cli_command sched_commands[] = {
    {"replay", "replay the GPU trace with each placement policy and compare them", replay},
    {"dataset", "lookahead-rollout labels of a part of the trace, for training", dataset},
    {"place", "one placement decision by the model (task and nodes as CSV on stdin)",
     cli_sched_place},
    {"bench", "decision latency of the scheduler API on each backend", cli_sched_bench},
};

int cli_sched(int argc, char **argv)
{
	return cli_dispatch("sched", sched_commands,
			    sizeof(sched_commands) / sizeof(sched_commands[0]), argc, argv);
}
