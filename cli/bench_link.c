// SPDX-License-Identifier: MIT
/*
 * quire bench allreduce --link RATE[,delay=TIME]: the all-reduce benchmark over shaped
 * links. Each rank, and the simulated card of its host, sits in a network namespace of
 * its own (192.0.2.i+1), joined to the others by a veth pair through a bridge in a hub
 * namespace; tc tbf limits each veth to RATE each way (and netem adds TIME where the
 * kernel has it). mpirun itself runs in one more namespace on the bridge (192.0.2.254,
 * unshaped: only its control traffic), since its ranks reach it over TCP. In the one run:
 * Gloo's ring all-reduce (quire-bench-gloo), then per backend OpenMPI's fp32
 * MPI_Allreduce and quire's formats (quire-bench-allreduce --gloo: the ratios to both).
 * The namespaces and links are link.c's: removed, with the processes in them, on every
 * way out this process sees (errors, SIGINT, SIGTERM, SIGHUP).
 */
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_allreduce.h"
#include "cli.h"
#include "link.h"

static const char *prefix; /* of this run's namespaces (link.h) */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	remove(path);
	return 0;
}

/* mpirun in the launcher's namespace, each rank in its own: argv ends with `tail`. */
static int run_ranks(const char *self, const char *cluster_net, const char *cluster_ns, int w,
		     const char *wrap, const char *const *tail, const char *what)
{
	char np[16], L[64], cl[PATH_MAX];
	snprintf(np, sizeof(np), "%d", w);
	snprintf(L, sizeof(L), "%s-L", prefix);
	const char *argv[64];
	int k = 0;
	if (cluster_net) {
		snprintf(cl, sizeof(cl), "%s/quire-cluster", self);
		const char *c[] = {cl, "-n", np, "--net", cluster_net, "--netns", cluster_ns, "--"};
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			argv[k++] = c[i];
	}
	const char *in_l[] = {"ip", "netns", "exec", L};
	for (size_t i = 0; i < sizeof(in_l) / sizeof(in_l[0]); i++)
		argv[k++] = in_l[i];
	k = bench_mpirun_argv(argv, k, np, CLI_LINK_SUBNET);
	const char *m[] = {"--mca", "oob_tcp_if_include", CLI_LINK_SUBNET, "sh", "-c", wrap,
			   prefix};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		argv[k++] = m[i];
	while (*tail && k < 63)
		argv[k++] = *tail++;
	argv[k] = NULL;
	int stopped_by,
	    rc = cli_run_child(argv, " (apt-get install openmpi-bin iproute2)", &stopped_by);
	if (stopped_by) {
		cli_link_stop(stopped_by);
		return -1;
	}
	if (rc != 0) {
		fprintf(stderr, "quire: bench allreduce --link: the %s run failed\n", what);
		return -1;
	}
	return 0;
}

/* Every rank in namespace PREFIX-RANK ($0 is the prefix). */
static const char wrap_plain[] = "exec ip netns exec \"$0\"-$OMPI_COMM_WORLD_RANK \"$@\"";
static const char wrap_gloo[] = "exec ip netns exec \"$0\"-$OMPI_COMM_WORLD_RANK \"$@\" "
				"--ip 192.0.2.$((OMPI_COMM_WORLD_RANK + 1))";

static int one_w(const char *self, int w, const char *backends, const char *min, const char *max,
		 const char *repeat, const char *rate, const char *tmp)
{
	char bps[32];
	snprintf(bps, sizeof(bps), "%.0f", cli_link_rate_bps(rate));
	char bin[PATH_MAX], gloo[PATH_MAX], store[PATH_MAX + 32], out[PATH_MAX + 32];
	snprintf(bin, sizeof(bin), "%s/quire-bench-allreduce", self);
	snprintf(gloo, sizeof(gloo), "%s/quire-bench-gloo", self);
	snprintf(store, sizeof(store), "%s/gloo-%d", tmp, w);
	snprintf(out, sizeof(out), "%s/gloo-%d.txt", tmp, w);
	if (mkdir(store, 0700) != 0)
		return -1;
	const char *g[] = {gloo, "--store",  store,  "--min", min, "--max",
			   max,  "--repeat", repeat, "--out", out, NULL};
	if (run_ranks(self, NULL, NULL, w, wrap_gloo, g, "Gloo"))
		return -1;
	char list[64], net[1024] = "udp:", nslist[1024] = "";
	snprintf(list, sizeof(list), "%s", backends);
	for (int i = 0; i < w; i++) {
		size_t a = strlen(net), b = strlen(nslist);
		snprintf(net + a, sizeof(net) - a, "%s192.0.2.%d", i ? "," : "", i + 1);
		snprintf(nslist + b, sizeof(nslist) - b, "%s%s-%d", i ? "," : "", prefix, i);
	}
	for (char *save, *b = strtok_r(list, ",", &save); b && !cli_link_stopped();
	     b = strtok_r(NULL, ",", &save)) {
		int sim = !strcmp(b, "sim");
		const char *t[] = {bin,      "--backend", sim ? "sim:cluster" : "cpu",
				   "--min",  min,         "--max",
				   max,      "--repeat",  repeat,
				   "--gloo", out,         "--link-bps",
				   bps,      NULL};
		if (run_ranks(self, sim ? net : NULL, sim ? nslist : NULL, w, wrap_plain, t, b))
			return -1;
	}
	return cli_link_stopped() ? -1 : 0;
}

int bench_link(const char *self, const char *link, const char *backends, const char *ranks,
	       const char *min, const char *max, const char *repeat)
{
	char rate[32], delay[32];
	if (cli_link_parse(link, rate, sizeof(rate), delay, sizeof(delay)) != 0)
		return cli_usage_error("bench allreduce",
				       "--link: RATE[,delay=TIME], RATE like 2gbit or 500mbit, "
				       "TIME like 5ms, not '%s'",
				       link);
	if (cli_link_check("bench allreduce --link"))
		return CLI_EXIT_FAIL;
	char gloo[PATH_MAX];
	snprintf(gloo, sizeof(gloo), "%s/quire-bench-gloo", self);
	if (access(gloo, X_OK) != 0)
		return cli_fail("bench allreduce --link: %s not found (apt-get install "
				"libgloo-dev, then make)",
				gloo);
	/* mpirun's PMIx server and its ranks in other namespaces meet over TCP on the bridge. */
	setenv("PMIX_MCA_ptl_tcp_remote_connections", "1", 1);
	setenv("PMIX_MCA_ptl_tcp_if_include", CLI_LINK_SUBNET, 1);
	const char *tmpdir = getenv("TMPDIR");
	char tmp[PATH_MAX - 64];
	snprintf(tmp, sizeof(tmp), "%s/quire-bench-link-XXXXXX", tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmp))
		return cli_fail("bench allreduce --link: cannot make a directory in %s",
				tmpdir ? tmpdir : "/tmp");
	prefix = cli_link_begin("bench", "bench allreduce --link");
	int rc = 0;
	char list[256];
	snprintf(list, sizeof(list), "%s", ranks);
	for (char *save, *t = strtok_r(list, ",", &save); t && !rc && !cli_link_stopped();
	     t = strtok_r(NULL, ",", &save)) {
		int w = atoi(t);
		printf("link: W=%d, each rank and its host's card in a network namespace, a veth "
		       "to a bridge, tc tbf %s each way (burst %ld B, queue %s), MTU 9000%s%s%s\n",
		       w, rate, cli_link_burst_bytes(rate), CLI_LINK_QUEUE,
		       *delay ? ", netem delay " : "", delay, *delay ? "" : ", no added delay");
		fflush(stdout);
		if (cli_link_up(w, rate, delay, 1) != 0 ||
		    one_w(self, w, backends, min, max, repeat, rate, tmp) != 0)
			rc = 1;
		cli_link_down();
	}
	int stopped = cli_link_stopped();
	cli_link_end();
	nftw(tmp, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	if (stopped)
		return 128 + stopped;
	return rc ? cli_fail("bench allreduce --link: stopped (namespaces removed)") : 0;
}
