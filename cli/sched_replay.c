// SPDX-License-Identifier: MIT
/*
 * quire sched replay: the trace replay of sched/ for every policy x load x seed asked for,
 * the comparison table printed, and its CSVs and a PNG (gnuplot) written into --out. In
 * the order it goes: the options, the neural policy's model opened, the runs (here), and
 * the report (sched_replay_report.c). docs/sched.md describes the model.
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
#include "sched_replay.h"

static void replay_help(FILE *out)
{
	fprintf(
	    out,
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
	    "                       select, eval (by time: the earliest 60%% of the rows in\n"
		"                       creation order, the next 20%%, the latest 20%%)\n"
	    "  --inflate K          the pods drawn K times over with replacement (per seed):\n"
	    "                       a large cluster's load (default 1: the pods as they are)\n"
	    "  --saturate D         FGD's saturation experiment instead (docs/sched.md): pods\n"
	    "                       arrive in creation order, none leaves, each placed at once\n"
	    "                       or failed, until the arrived GPU demand is D times the\n"
	    "                       cluster's GPUs; unallocated and fragmented GPU shares per\n"
	    "                       policy (saturate.csv, saturate.png; --load is not used;\n"
	    "                       --inflate by default: enough for D)\n"
	    "  --ci                 the table's +- is the 95%% confidence interval of the mean\n"
	    "                       (Student's t), not the standard deviation\n"
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

static void neural_close(struct quire_ctx *ctx, struct sched_mlp *mlp, struct sched_fp32 *fp32,
			 struct sched_neural *nn)
{
	sched_mlp_close(mlp);
	quire_close(ctx);
	sched_fp32_free(fp32);
	sched_neural_free(nn);
}

/* --policy into r->pol: "all" (the heuristics) may stand in a list: "all,neural". 0, or the
 * usage error's status. */
static int replay_policies(struct replay *r, const char *policy_list)
{
	char *pbuf = r->pol_names;
	if (snprintf(pbuf, sizeof(r->pol_names), "%s", policy_list) >= (int)sizeof(r->pol_names))
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
			for (int i = 0; i < r->npol; i++)
				if (strcmp(r->pol[i], name) == 0)
					return cli_usage_error("sched replay",
							       "policy '%s' named twice", name);
			if (r->npol == CLI_SCHED_MAX_LIST)
				return cli_usage_error("sched replay", "too many policies");
			r->pol[r->npol++] = name;
		}
	}
	if (!r->npol)
		return cli_usage_error("sched replay", "empty --policy");
	return 0;
}

/* The command line into r (r->help: --help was asked for and printed). 0, or the usage
 * error's status. */
static int replay_options(int argc, char **argv, struct replay *r)
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
					     {"inflate", required_argument, 0, 'I'},
					     {"ci", no_argument, 0, 'C'},
					     {"saturate", required_argument, 0, 'T'},
					     {"model-file", required_argument, 0, 'M'},
					     {"fp32-file", required_argument, 0, 'F'},
					     {"backend", required_argument, 0, 'B'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *policy_list = "all";
	r->out = "results/sched";
	r->model_path = "sched/model/sched.qmlp";
	r->backend = "cpu";
	r->plot = 1;
	r->neural = -1;
	sched_config_default(&r->cfg);
	r->o = (struct cli_trace_opts){NULL, NULL, NULL, SCHED_PART_ALL, {0.7}, {1}, 1, 1, &r->cfg};
	int c, st;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			policy_list = optarg;
			break;
		case 'q':
			r->cfg.qos_priority = 1;
			break;
		case 'o':
			r->out = optarg;
			break;
		case 'x':
			r->plot = 0;
			break;
		case 'C':
			r->ci = 1;
			break;
		case 'T': {
			char *end;
			errno = 0;
			r->saturate = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(r->saturate > 0 && r->saturate <= 10))
				return cli_usage_error("sched replay",
						       "bad --saturate '%s' (0 < D <= 10)", optarg);
			break;
		}
		case 'Q':
			r->quiet = 1;
			break;
		case 'M':
			r->model_path = optarg;
			break;
		case 'F':
			r->fp32_path = optarg;
			break;
		case 'B':
			r->backend = optarg;
			break;
		case 'h':
			replay_help(stdout);
			r->help = 1;
			return 0;
		default:
			if ((st = cli_trace_opt("sched replay", c, optarg, &r->o)) < 0)
				return cli_bad_option("sched replay", c, argv);
			if (st)
				return st;
		}
	}
	if (optind < argc)
		return cli_usage_error("sched replay", "unexpected argument '%s'", argv[optind]);
	if (!r->o.pods || !r->o.nodes)
		return cli_usage_error("sched replay", "--pods and --nodes are required");
	return replay_policies(r, policy_list);
}

/* The neural policy, when --policy names it: its model loaded on the backend, its fp32
 * reference read. 0, or the exit status (the error said). */
static int replay_neural_open(struct replay *r)
{
	char err[SCHED_ERR_LEN];
	for (int i = 0; i < r->npol; i++)
		if (strcmp(r->pol[i], "neural") == 0)
			r->neural = i;
	if (r->neural < 0)
		return 0;
	if (cli_open("sched replay", r->backend, &r->ctx))
		return CLI_EXIT_FAIL;
	if (sched_mlp_load(&r->mlp, r->ctx, r->model_path, err, sizeof(err)))
		return cli_fail("%s", err);
	if (r->fp32_path && sched_fp32_read(r->fp32_path, &r->fp32, err, sizeof(err)))
		return cli_fail("%s", err);
	r->nn.score = sched_mlp_score;
	r->nn.arg = &r->mlp;
	r->nn.fp32 = r->fp32_path ? &r->fp32 : NULL;
	return 0;
}

/* Every policy x load x seed, each run's line into runs.csv (fr), its series into series.csv
 * (fs) and, for the last load's first seed, into series.dat (fsd); metrics into r->met.
 * 0, or the exit status (the error said). */
static int replay_runs(struct replay *r, FILE *fr, FILE *fs, FILE *fsd)
{
	const struct cli_trace_opts *o = &r->o;
	char err[SCHED_ERR_LEN];
	fprintf(fr, "policy,load,seed,nodes,gpus,pods,never_scheduled,unplaceable,compress,"
		    "window_s,makespan_s,decisions");
	for (int k = 0; k < M_COUNT; k++)
		fprintf(fr, ",%s", replay_metric_names[k]);
	for (int q = 0; q < SCHED_QOS_COUNT; q++)
		fprintf(fr, ",bsld_%s", sched_qos_name(q));
	fprintf(fr, ",wall_s\n");
	fprintf(fs, "policy,load,seed,t_s,gpu_alloc,frag_share\n");
	struct progress pg = {!r->quiet && isatty(2), NULL, 0, 0, 0, r->runs};
	r->cfg.progress = show_progress;
	r->cfg.progress_arg = &pg;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int run = 0;
	for (int li = 0; li < o->nload; li++)
		for (int pi = 0; pi < r->npol; pi++)
			for (int si = 0; si < o->nseed; si++) {
				struct sched_policy p;
				sched_policy_get(r->pol[pi], &p);
				if (pi == r->neural) {
					p.state = &r->nn;
					r->nn.compared = r->nn.agree = r->nn.agree_raw =
					    r->nn.compared_raw = 0;
				}
				r->cfg.load = o->loads[li];
				r->cfg.seed = (uint64_t)o->seeds[si];
				pg.policy = r->pol[pi];
				pg.load = r->cfg.load;
				pg.seed = r->cfg.seed;
				pg.run = run + 1;
				struct sched_result res;
				struct timespec a, b;
				clock_gettime(CLOCK_MONOTONIC, &a);
				if (sched_replay(r->pods, r->npods, r->nodes, r->nnodes, &r->models,
						 &r->cfg, &p, &res, err, sizeof(err))) {
					if (pg.on)
						fputc('\n', stderr);
					return cli_fail("replay (%s, load %g, seed %llu): %s%s%s",
							r->pol[pi], r->cfg.load,
							(unsigned long long)r->cfg.seed, err,
							pi == r->neural ? ": " : "",
							pi == r->neural ? r->nn.err : "");
				}
				clock_gettime(CLOCK_MONOTONIC, &b);
				double wall = (double)(b.tv_sec - a.tv_sec) +
					      (double)(b.tv_nsec - a.tv_nsec) / 1e9;
				double *m = r->met[(li * r->npol + pi) * o->nseed + si];
				metrics_of(&res, m);
				if (pi == r->neural) {
					r->agree[li] += (double)r->nn.agree;
					r->agree_raw[li] += (double)r->nn.agree_raw;
					r->compared[li] += (double)r->nn.compared;
					r->compared_raw[li] += (double)r->nn.compared_raw;
				}
				r->info_pods[si] = res.pods;
				r->info_never = res.never_scheduled;
				r->info_unpl[si] = res.unplaceable;
				r->info_gpus[si] = res.gpus;
				r->info_nodes = res.nodes;
				fprintf(fr, "%s,%g,%llu,%zu,%zu,%zu,%zu,%zu,%.6g,%.1f,%.1f,%zu",
					r->pol[pi], r->cfg.load, (unsigned long long)r->cfg.seed,
					res.nodes, res.gpus, res.pods, res.never_scheduled,
					res.unplaceable, res.compress, res.window, res.makespan,
					res.decisions);
				for (int k = 0; k < M_COUNT; k++)
					fprintf(fr, ",%.6g", m[k]);
				for (int q = 0; q < SCHED_QOS_COUNT; q++)
					fprintf(fr, ",%.6g", res.qos_bsld[q]);
				fprintf(fr, ",%.3f\n", wall);
				for (size_t k = 0; k < res.nseries; k++)
					fprintf(fs, "%s,%g,%llu,%.1f,%.6f,%.6f\n", r->pol[pi],
						r->cfg.load, (unsigned long long)r->cfg.seed,
						res.series_t[k], res.series_alloc[k],
						res.series_frag[k]);
				if (li == o->nload - 1 && si == 0) {
					for (size_t k = 0; k < res.nseries; k++)
						fprintf(fsd, "%.4f %.3f %.3f\n",
							res.series_t[k] / 3600.0,
							100 * res.series_alloc[k],
							100 * res.series_frag[k]);
					fprintf(fsd, "\n\n");
				}
				sched_result_free(&res);
				run++;
			}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (pg.on)
		fprintf(stderr, "\r%70s\r", "");
	r->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

int cli_sched_replay(int argc, char **argv)
{
	struct replay r;
	memset(&r, 0, sizeof(r));
	int rc = replay_options(argc, argv, &r);
	if (rc || r.help)
		return rc;
	rc = cli_load_trace("sched replay", r.o.pods, r.o.nodes, r.o.speed, r.o.part, &r.models,
			    &r.pods, &r.npods, &r.nodes, &r.nnodes);
	if (rc)
		return rc;
	FILE *fr = NULL, *fs = NULL, *fsd = NULL;
	char path[1100];
	if ((rc = replay_neural_open(&r)))
		goto done;
	if (r.saturate > 0) {
		if (mkdirs(r.out)) {
			rc =
			    cli_fail("%s: cannot create the directory: %s", r.out, strerror(errno));
			goto done;
		}
		rc = replay_saturate(&r);
		goto done;
	}
	r.runs = r.npol * r.o.nload * r.o.nseed;
	r.met = calloc((size_t)r.runs, sizeof(*r.met));
	if (!r.met) {
		rc = cli_fail("out of memory");
		goto done;
	}
	if (mkdirs(r.out)) {
		rc = cli_fail("%s: cannot create the directory: %s", r.out, strerror(errno));
		goto done;
	}
	if (!(fr = replay_open_out(r.out, "runs.csv", path, sizeof(path))) ||
	    !(fs = replay_open_out(r.out, "series.csv", path, sizeof(path))) ||
	    !(fsd = replay_open_out(r.out, "series.dat", path, sizeof(path)))) {
		rc = CLI_EXIT_FAIL;
		goto done;
	}
	rc = replay_runs(&r, fr, fs, fsd);
	if (!rc)
		rc = replay_report(&r, &fsd);
done:
	if (fr && fclose(fr) != 0 && !rc)
		rc = cli_fail("%s/runs.csv: write error", r.out);
	if (fs && fclose(fs) != 0 && !rc)
		rc = cli_fail("%s/series.csv: write error", r.out);
	if (fsd)
		fclose(fsd);
	free(r.met);
	free(r.pods);
	free(r.nodes);
	if (r.neural >= 0)
		neural_close(r.ctx, &r.mlp, &r.fp32, &r.nn);
	return rc;
}
