// SPDX-License-Identifier: MIT
/*
 * quire sched dataset: a part of the trace replayed with FGD, and at sampled decisions
 * every candidate rolled out with FGD for a bounded horizon; each sampled decision's
 * features, mask and rollout outcomes written to the dataset file the neural policy is
 * trained on (docs/sched.md, "The dataset file").
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "sched/sched.h"
#include "sched_opts.h"

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

int cli_sched_dataset(int argc, char **argv)
{
	static const struct option opts[] = {{"pods", required_argument, 0, 'p'},
					     {"nodes", required_argument, 0, 'n'},
					     {"nodes-count", required_argument, 0, 'N'},
					     {"seed", required_argument, 0, 's'},
					     {"load", required_argument, 0, 'l'},
					     {"max-gap", required_argument, 0, 'g'},
					     {"speed", required_argument, 0, 'S'},
					     {"part", required_argument, 0, 'A'},
					     {"inflate", required_argument, 0, 'I'},
					     {"rate", required_argument, 0, 'r'},
					     {"horizon", required_argument, 0, 'H'},
					     {"topk", required_argument, 0, 'k'},
					     {"out", required_argument, 0, 'o'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *out = NULL;
	struct sched_config cfg;
	sched_config_default(&cfg);
	struct cli_trace_opts o = {
	    NULL, NULL, NULL, SCHED_PART_TRAIN, {0.5, 0.7, 0.9}, {11, 12, 13}, 3, 3, &cfg};
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
			if ((rc = cli_trace_opt("sched dataset", c, optarg, &o)) < 0)
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
	rc = cli_load_trace("sched dataset", o.pods, o.nodes, o.speed, o.part, &models, &pods,
			    &npods, &nodes, &nnodes);
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
