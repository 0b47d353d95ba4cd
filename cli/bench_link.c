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
 * Namespaces, veths and the processes in them are removed on every way out this
 * process sees (errors, SIGINT, SIGTERM, SIGHUP); those of a run that was killed
 * outright (SIGKILL) are removed by the next one.
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_allreduce.h"
#include "cli.h"

#define NS_FMT "quire-bench-%d" /* and -hub, -L, -0, -1, ... */
#define SUBNET "192.0.2.0/24"   /* TEST-NET-1: never a real network's */
#define LIMIT  "16mb"           /* tbf's queue: above every card's UDP send buffers */

static volatile sig_atomic_t stop_sig;
static char prefix[32];
static int n_made; /* rank namespaces made so far */

static void on_signal(int sig)
{
	stop_sig = sig;
}

/* Runs a command given as one line of space-separated words; its exit status (-1 when it
 * could not run). Quiet: its output goes to /dev/null unless show. */
static int run_words(int show, const char *fmt, ...)
{
	char line[1024], *argv[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	int n = 0;
	for (char *save, *w = strtok_r(line, " ", &save); w && n < 63;
	     w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		if (!show && !freopen("/dev/null", "w", stdout))
			_exit(127);
		if (!show && !freopen("/dev/null", "w", stderr))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	while (pid > 0 && waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Kills what runs in namespace `name` (ours alone) and deletes it, with its veths. */
static void ns_remove(const char *name)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "ip netns pids %s 2>/dev/null", name);
	FILE *p = popen(cmd, "r");
	for (int pid; p && fscanf(p, "%d", &pid) == 1;)
		if (pid > 1 && pid != getpid())
			kill(pid, SIGKILL);
	if (p)
		pclose(p);
	run_words(0, "ip netns del %s", name);
}

static void topology_down(void)
{
	char name[64];
	for (int i = 0; i < n_made; i++) {
		snprintf(name, sizeof(name), "%s-%d", prefix, i);
		ns_remove(name);
	}
	n_made = 0;
	snprintf(name, sizeof(name), "%s-L", prefix);
	ns_remove(name);
	snprintf(name, sizeof(name), "%s-hub", prefix);
	ns_remove(name);
}

/* Namespaces of earlier runs that were killed outright: their process is gone. */
static void remove_stale(void)
{
	FILE *p = popen("ip netns list 2>/dev/null", "r");
	char line[64], names[64][64];
	int n = 0, pid;
	while (p && fgets(line, sizeof(line), p) && n < 64) {
		char *sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, NS_FMT, &pid) == 1 && kill(pid, 0) != 0 && errno == ESRCH)
			snprintf(names[n++], sizeof(names[0]), "%s", line);
	}
	if (p)
		pclose(p);
	for (int i = 0; i < n; i++)
		ns_remove(names[i]);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	remove(path);
	return 0;
}

/* RATE: a number and kbit, mbit or gbit (tc's units); TIME: a number and us or ms. */
static int unit_ok(const char *s, const char *const *units)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v > 0))
		return 0;
	for (; *units; units++)
		if (!strcmp(end, *units))
			return 1;
	return 0;
}

int bench_link_parse(const char *link, char *rate, size_t rate_len, char *delay, size_t delay_len)
{
	static const char *const rates[] = {"kbit", "mbit", "gbit", NULL}, *const times[] = {
									       "us", "ms", NULL};
	const char *comma = strchr(link, ',');
	size_t n = comma ? (size_t)(comma - link) : strlen(link);
	if (n == 0 || n >= rate_len)
		return -1;
	memcpy(rate, link, n);
	rate[n] = '\0';
	for (char *c = rate; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	delay[0] = '\0';
	if (comma) {
		if (strncmp(comma + 1, "delay=", 6) != 0 ||
		    snprintf(delay, delay_len, "%s", comma + 7) >= (int)delay_len)
			return -1;
		if (!unit_ok(delay, times))
			return -1;
	}
	return unit_ok(rate, rates) ? 0 : -1;
}

/* A rate bench_link_parse took, in bits per second. */
static double rate_bps(const char *rate)
{
	char *end;
	double v = strtod(rate, &end);
	return v * (!strcmp(end, "gbit") ? 1e9 : !strcmp(end, "mbit") ? 1e6 : 1e3);
}

/* The tbf burst for a rate: 1 ms of it, at least 64 KiB (a whole GSO packet). */
static long burst_bytes(const char *rate)
{
	long b = (long)(rate_bps(rate) / 8 / 1000);
	return b < 65536 ? 65536 : b;
}

static int shape(const char *ns, const char *dev, const char *rate, const char *delay)
{
	if (run_words(1, "tc -n %s qdisc add dev %s root handle 1: tbf rate %s burst %ld limit %s",
		      ns, dev, rate, burst_bytes(rate), LIMIT) != 0)
		return -1;
	if (*delay && run_words(0, "tc -n %s qdisc add dev %s parent 1:1 handle 10: netem delay %s",
				ns, dev, delay) != 0) {
		fprintf(stderr,
			"quire: bench allreduce --link: delay=%s needs tc's netem (the "
			"sch_netem module), which this kernel does not have; leave delay out\n",
			delay);
		return -1;
	}
	return 0;
}

/* The hub (a bridge), mpirun's namespace, and W rank namespaces, shaped. */
static int topology_up(int w, const char *rate, const char *delay)
{
	char hub[64], ns[64];
	snprintf(hub, sizeof(hub), "%s-hub", prefix);
	if (run_words(1, "ip netns add %s", hub) || run_words(1, "ip -n %s link set lo up", hub) ||
	    run_words(1, "ip -n %s link add br0 type bridge", hub) ||
	    run_words(1, "ip -n %s link set br0 up", hub))
		return -1;
	for (int i = -1; i < w && !stop_sig; i++) {
		char host[16], addr[32];
		snprintf(host, sizeof(host), i < 0 ? "L" : "%d", i);
		snprintf(ns, sizeof(ns), "%s-%s", prefix, host);
		snprintf(addr, sizeof(addr), "192.0.2.%d/24", i < 0 ? 254 : i + 1);
		if (run_words(1, "ip netns add %s", ns))
			return -1;
		if (i >= 0)
			n_made = i + 1;
		if (run_words(1, "ip -n %s link set lo up", ns) ||
		    run_words(1, "ip -n %s link add v0 type veth peer name h%s netns %s", ns, host,
			      hub) ||
		    run_words(1, "ip -n %s link set h%s mtu 9000 master br0 up", hub, host) ||
		    run_words(1, "ip -n %s link set v0 mtu 9000 up", ns) ||
		    run_words(1, "ip -n %s addr add %s dev v0", ns, addr))
			return -1;
		if (i >= 0) { /* both ways: the rank's uplink and its downlink from the bridge */
			char hdev[24];
			snprintf(hdev, sizeof(hdev), "h%s", host);
			if (shape(ns, "v0", rate, delay) || shape(hub, hdev, rate, delay))
				return -1;
		}
	}
	return stop_sig ? -1 : 0;
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
	k = bench_mpirun_argv(argv, k, np, SUBNET);
	const char *m[] = {"--mca", "oob_tcp_if_include", SUBNET, "sh", "-c", wrap, prefix};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		argv[k++] = m[i];
	while (*tail && k < 63)
		argv[k++] = *tail++;
	argv[k] = NULL;
	int stopped_by,
	    rc = cli_run_child(argv, " (apt-get install openmpi-bin iproute2)", &stopped_by);
	if (stopped_by) {
		stop_sig = stopped_by;
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
	snprintf(bps, sizeof(bps), "%.0f", rate_bps(rate));
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
	for (char *save, *b = strtok_r(list, ",", &save); b && !stop_sig;
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
	return stop_sig ? -1 : 0;
}

int bench_link(const char *self, const char *link, const char *backends, const char *ranks,
	       const char *min, const char *max, const char *repeat)
{
	char rate[32], delay[32];
	if (bench_link_parse(link, rate, sizeof(rate), delay, sizeof(delay)) != 0)
		return cli_usage_error("bench allreduce",
				       "--link: RATE[,delay=TIME], RATE like 2gbit or 500mbit, "
				       "TIME like 5ms, not '%s'",
				       link);
	if (geteuid() != 0)
		return cli_fail("bench allreduce --link: needs root (it makes network namespaces, "
				"veth pairs and tc qdiscs); run it as root, or without --link");
	if (run_words(0, "ip -V") != 0 || run_words(0, "tc -V") != 0)
		return cli_fail(
		    "bench allreduce --link: needs ip and tc (apt-get install iproute2)");
	char gloo[PATH_MAX];
	snprintf(gloo, sizeof(gloo), "%s/quire-bench-gloo", self);
	if (access(gloo, X_OK) != 0)
		return cli_fail("bench allreduce --link: %s not found (apt-get install "
				"libgloo-dev, then make)",
				gloo);
	/* mpirun's PMIx server and its ranks in other namespaces meet over TCP on the bridge. */
	setenv("PMIX_MCA_ptl_tcp_remote_connections", "1", 1);
	setenv("PMIX_MCA_ptl_tcp_if_include", SUBNET, 1);
	const char *tmpdir = getenv("TMPDIR");
	char tmp[PATH_MAX - 64];
	snprintf(tmp, sizeof(tmp), "%s/quire-bench-link-XXXXXX", tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmp))
		return cli_fail("bench allreduce --link: cannot make a directory in %s",
				tmpdir ? tmpdir : "/tmp");
	snprintf(prefix, sizeof(prefix), NS_FMT, (int)getpid());
	struct sigaction sa = {.sa_handler = on_signal}, old[3];
	static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	remove_stale();
	int rc = 0;
	char list[256];
	snprintf(list, sizeof(list), "%s", ranks);
	for (char *save, *t = strtok_r(list, ",", &save); t && !rc && !stop_sig;
	     t = strtok_r(NULL, ",", &save)) {
		int w = atoi(t);
		printf("link: W=%d, each rank and its host's card in a network namespace, a veth "
		       "to a bridge, tc tbf %s each way (burst %ld B, queue %s), MTU 9000%s%s%s\n",
		       w, rate, burst_bytes(rate), LIMIT, *delay ? ", netem delay " : "", delay,
		       *delay ? "" : ", no added delay");
		fflush(stdout);
		if (topology_up(w, rate, delay) != 0 ||
		    one_w(self, w, backends, min, max, repeat, rate, tmp) != 0)
			rc = 1;
		topology_down();
	}
	topology_down();
	nftw(tmp, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (stop_sig)
		return 128 + stop_sig;
	return rc ? cli_fail("bench allreduce --link: stopped (namespaces removed)") : 0;
}
