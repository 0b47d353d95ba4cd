// SPDX-License-Identifier: MIT
/*
 * quire sched replay --saturate D: the saturation experiment of the FGD paper (Weng et al.,
 * ATC '23) for every policy x seed through sched_saturate: pods arrive in creation order,
 * none leaves, each is placed at once or fails, until the arrived GPU demand is D times the
 * cluster's GPUs. Prints the unallocated and fragmented GPU shares at a few demands (mean
 * +- 95% confidence interval over the seeds), writes every point into saturate.csv and the
 * means into saturate.dat, and draws saturate.png with gnuplot. docs/sched-scale.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "sched_replay.h"

/* Enough draws for demand D on the largest cluster the options can sample, with room for
 * the draws' spread (docs/sched-scale.md). */
static size_t auto_inflate(const struct replay *r)
{
	double demand = 0;
	for (size_t i = 0; i < r->npods; i++)
		if (r->pods[i].scheduled >= 0)
			demand += (double)r->pods[i].ngpu * r->pods[i].milli / SCHED_MILLI;
	size_t nc =
	    r->cfg.nodes_count && r->cfg.nodes_count < r->nnodes ? r->cfg.nodes_count : r->nnodes;
	/* The nc largest nodes' GPUs: a bound on any sample's. */
	size_t count[SCHED_MAX_GPUS + 1] = {0};
	for (size_t i = 0; i < r->nnodes; i++)
		count[r->nodes[i].ngpu]++;
	double gpus = 0;
	for (int g = SCHED_MAX_GPUS; g > 0 && nc > 0; g--) {
		size_t take = count[g] < nc ? count[g] : nc;
		gpus += (double)take * g;
		nc -= take;
	}
	if (demand <= 0)
		return 1;
	double k = ceil(1.25 * r->saturate * gpus / demand) + 1;
	return k > 1000 ? 1000 : (size_t)k;
}

/* The demands the table shows: 0.5 to D by 0.1, and D. */
static int table_points(const struct replay *r, size_t points, size_t *at)
{
	int n = 0;
	for (int t = 5; t <= 100 && t / 10.0 <= r->saturate + 1e-9; t++) {
		size_t k = (size_t)lround(t / 10.0 / r->saturate * (double)points);
		if (k >= 1 && k <= points && (n == 0 || at[n - 1] != k - 1) && n < 32)
			at[n++] = k - 1;
	}
	if (n == 0 || at[n - 1] != points - 1)
		at[n++] = points - 1;
	return n;
}

static int write_plot(const struct replay *r)
{
	char path[1100], png[1100];
	FILE *f = replay_open_out(r->out, "saturate.gp", path, sizeof(path));
	if (!f)
		return -1;
	snprintf(png, sizeof(png), "%s/saturate.png", r->out);
	fprintf(
	    f,
	    "# quire sched replay --saturate: gnuplot script for saturate.png (saturate.dat)\n"
	    "set terminal pngcairo size 2000,600 noenhanced\n"
	    "set output '%s'\n"
	    "set multiplot layout 1,3 title 'saturation: pods arrive, none leaves "
	    "(mean over %d seeds, bars: 95%% CI)'\n"
	    "set key top left\nset grid\nset xlabel 'arrived GPU demand (%% of the cluster GPUs)'\n"
	    "names = \"",
	    png, r->o.nseed);
	for (int i = 0; i < r->npol; i++)
		fprintf(f, "%s%s", i ? " " : "", r->pol[i]);
	fprintf(f,
		"\"\nset ylabel 'unallocated GPUs (%% of the cluster)'\n"
		"plot for [i=0:%d] '%s/saturate.dat' index i using 1:2 with lines lw 2 title "
		"word(names,i+1), for [i=0:%d] '%s/saturate.dat' index i every 10 using 1:2:3 "
		"with yerrorbars notitle lc i+1 pt 0\n"
		"set xrange [80:*]\nset yrange [0:30]\nset ylabel 'unallocated GPUs (%% of the "
		"cluster), from 80%% "
		"demand'\nset key top right\n"
		"plot for [i=0:%d] '%s/saturate.dat' index i using 1:2 with lines lw 2 title "
		"word(names,i+1), for [i=0:%d] '%s/saturate.dat' index i every 5 using 1:2:3 "
		"with yerrorbars notitle lc i+1 pt 0\n"
		"set autoscale xy\nset ylabel 'fragmented GPUs (%% of the cluster)'\n"
		"plot for [i=0:%d] '%s/saturate.dat' index i using 1:4 with lines lw 2 title "
		"word(names,i+1), for [i=0:%d] '%s/saturate.dat' index i every 10 using 1:4:5 "
		"with yerrorbars notitle lc i+1 pt 0\n"
		"unset multiplot\n",
		r->npol - 1, r->out, r->npol - 1, r->out, r->npol - 1, r->out, r->npol - 1, r->out,
		r->npol - 1, r->out, r->npol - 1, r->out);
	if (fclose(f) != 0)
		return cli_fail("%s: write error", path);
	return replay_gnuplot(path, png);
}

/* The table of one measure (m: 0 unallocated, 1 fragmented, 2 failed demand) at the
 * demands of at[]. v is [policy][seed][point]. */
static void print_measure(const struct replay *r, const char *title, const double *v, size_t points,
			  const size_t *at, int nat)
{
	int ns = r->o.nseed;
	printf("\n%s (%% of the cluster's GPUs; mean +- 95%% CI over %d seeds)\n%-13s", title, ns,
	       "demand");
	for (int a = 0; a < nat; a++)
		printf(" %13.0f%%", 100.0 * r->saturate * (double)(at[a] + 1) / (double)points);
	printf("\n");
	for (int pi = 0; pi < r->npol; pi++) {
		printf("%-13s", r->pol[pi]);
		for (int a = 0; a < nat; a++) {
			double x[CLI_SCHED_MAX_LIST];
			for (int si = 0; si < ns; si++)
				x[si] = 100 *
					v[((size_t)pi * (size_t)ns + (size_t)si) * points + at[a]];
			printf(" %6.2f +- %-4.2f", replay_mean(x, ns), replay_ci95(x, ns));
		}
		printf("\n");
	}
}

int replay_saturate(struct replay *r)
{
	char err[SCHED_ERR_LEN], path[1100];
	size_t points = (size_t)lround(r->saturate * 100);
	if (points < 1)
		points = 1;
	if (r->cfg.inflate == 0)
		r->cfg.inflate = auto_inflate(r);
	int ns = r->o.nseed, rc = 0;
	size_t per = (size_t)r->npol * (size_t)ns * points;
	double *un = calloc(per, sizeof(double)), *fr = calloc(per, sizeof(double)),
	       *fa = calloc(per, sizeof(double));
	FILE *fc = NULL, *fd = NULL;
	if (!un || !fr || !fa) {
		rc = cli_fail("out of memory");
		goto out;
	}
	if (!(fc = replay_open_out(r->out, "saturate.csv", path, sizeof(path))) ||
	    !(fd = replay_open_out(r->out, "saturate.dat", path, sizeof(path)))) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	fprintf(fc, "policy,seed,nodes,gpus,inflate,demand,unallocated,fragmented,failed\n");
	double agree = 0, compared = 0;
	size_t info_gpus[CLI_SCHED_MAX_LIST] = {0}, info_nodes = 0, info_pods = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pi = 0; pi < r->npol && !rc; pi++)
		for (int si = 0; si < ns && !rc; si++) {
			struct sched_policy p;
			sched_policy_get(r->pol[pi], &p);
			if (pi == r->neural) {
				p.state = &r->nn;
				r->nn.compared = r->nn.agree = r->nn.agree_raw = 0;
			}
			r->cfg.seed = (uint64_t)r->o.seeds[si];
			struct sched_saturation s;
			if (sched_saturate(r->pods, r->npods, r->nodes, r->nnodes, &r->models,
					   &r->cfg, r->saturate, points, &p, &s, err,
					   sizeof(err))) {
				rc = cli_fail("saturate (%s, seed %llu): %s%s%s", r->pol[pi],
					      (unsigned long long)r->cfg.seed, err,
					      pi == r->neural ? ": " : "",
					      pi == r->neural ? r->nn.err : "");
				break;
			}
			if (pi == r->neural) {
				agree += (double)r->nn.agree;
				compared += (double)r->nn.compared;
			}
			info_gpus[si] = s.gpus;
			info_nodes = s.nodes;
			if (s.arrived_pods > info_pods)
				info_pods = s.arrived_pods;
			for (size_t k = 0; k < points; k++) {
				size_t at = ((size_t)pi * (size_t)ns + (size_t)si) * points + k;
				un[at] = s.unalloc[k];
				fr[at] = s.frag[k];
				fa[at] = s.failed[k];
				fprintf(fc, "%s,%llu,%zu,%zu,%zu,%.4f,%.6f,%.6f,%.6f\n", r->pol[pi],
					(unsigned long long)r->cfg.seed, s.nodes, s.gpus,
					r->cfg.inflate,
					r->saturate * (double)(k + 1) / (double)points,
					s.unalloc[k], s.frag[k], s.failed[k]);
			}
			sched_saturation_free(&s);
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc)
		goto out;
	for (int pi = 0; pi < r->npol; pi++) {
		for (size_t k = 0; k < points; k++) {
			double x[CLI_SCHED_MAX_LIST], y[CLI_SCHED_MAX_LIST];
			for (int si = 0; si < ns; si++) {
				size_t at = ((size_t)pi * (size_t)ns + (size_t)si) * points + k;
				x[si] = 100 * un[at];
				y[si] = 100 * fr[at];
			}
			fprintf(fd, "%.2f %.4f %.4f %.4f %.4f\n",
				100 * r->saturate * (double)(k + 1) / (double)points,
				replay_mean(x, ns), replay_ci95(x, ns), replay_mean(y, ns),
				replay_ci95(y, ns));
		}
		fprintf(fd, "\n\n");
	}
	printf("quire sched replay --saturate %g: %s, %zu of %s's %zu nodes per seed, the pods "
	       "drawn %zu times over (up to %zu arrived)\n",
	       r->saturate, r->o.pods, info_nodes, r->o.nodes, r->nnodes, r->cfg.inflate,
	       info_pods);
	for (int si = 0; si < ns; si++)
		printf("  seed %llu: %zu GPUs\n", (unsigned long long)r->o.seeds[si],
		       info_gpus[si]);
	size_t at[40];
	int nat = table_points(r, points, at);
	print_measure(r, "unallocated GPUs", un, points, at, nat);
	print_measure(r, "fragmented GPUs (F(M))", fr, points, at, nat);
	print_measure(r, "GPU demand of the pods that failed", fa, points, at, nat);
	if (compared > 0)
		printf("int8 and fp32 choose the same node: %.0f of %.0f decisions (%.2f%%)\n",
		       agree, compared, 100 * agree / compared);
	double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("\n%d runs in %.1f s on one core; wrote %s/saturate.csv, saturate.dat\n",
	       r->npol * ns, sec, r->out);
	int bad = fclose(fd) != 0;
	fd = NULL;
	bad |= fclose(fc) != 0;
	fc = NULL;
	if (bad) {
		rc = cli_fail("%s: write error", r->out);
		goto out;
	}
	if (r->plot)
		rc = write_plot(r) ? CLI_EXIT_FAIL : 0;
	else
		printf("saturate.png: skipped (--no-plot)\n");
out:
	if (fc)
		fclose(fc);
	if (fd)
		fclose(fd);
	free(un);
	free(fr);
	free(fa);
	return rc;
}
