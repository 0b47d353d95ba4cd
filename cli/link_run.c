// SPDX-License-Identifier: MIT
/*
 * quire link run: a command once per rank, each rank in a network namespace of its own
 * on tc-shaped links (link.h), as a data-parallel job on a cluster of hosts would run.
 * Each rank's environment names its rank, the world size and the master's address
 * (QUIRE_* and torch.distributed's MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE). With
 * --cards each namespace also holds its host's simulated card, on the UDP network of the
 * namespaces (quire-cluster --netns), so that quire's "sim" backend runs there. The first
 * rank to fail stops the others and gives the exit status; namespaces, veths and
 * processes are removed on every way out (link.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "link.h"

#define MAX_RANKS     64   /* addresses 192.0.2.1..64, below the launcher's .254 */
#define STOP_GRACE_MS 5000 /* how long the ranks may take to end on SIGTERM */

static const char run_usage[] =
    "Usage: quire link run --ranks W --rate RATE[,delay=TIME] [--cards] [--port P]\n"
    "                      -- COMMAND [ARGS...]\n\n"
    "Runs COMMAND once per rank, rank i in a network namespace of its own at 192.0.2.i+1,\n"
    "joined to the others through a bridge by a veth pair that tc tbf limits to RATE each\n"
    "way (like 1gbit, 500mbit; delay= needs tc's netem). Needs root. Each rank sees\n"
    "QUIRE_RANK, QUIRE_WORLD, QUIRE_LINK_MASTER (192.0.2.1, rank 0's address),\n"
    "QUIRE_LINK_ADDR (its own), QUIRE_LINK_RATE, and torch.distributed's MASTER_ADDR,\n"
    "MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK=0, with GLOO_SOCKET_IFNAME=v0.\n\n"
    "  --ranks W     ranks, 1 to 64\n"
    "  --rate RATE   each rank's link, each way\n"
    "  --cards       each namespace also holds its host's simulated card (quire-cluster on\n"
    "                the namespaces' UDP network): quire's backend \"sim\" works in the ranks\n"
    "  --port P      MASTER_PORT (default 29500)\n\n"
    "The first rank to fail stops the others (SIGTERM) and its status is the exit status;\n"
    "a signal to the launcher (SIGINT, SIGTERM, SIGHUP) stops them all and exits 128+N.\n"
    "Namespaces, veths and processes are removed on every exit; those of a run killed\n"
    "outright go with the next run (docs/bench-link.md).\n";

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Rank i's process: its environment, then COMMAND inside namespace PREFIX-i. */
static void exec_rank(pid_t parent, const char *prefix, int i, int w, const char *port,
		      const char *rate, char **cmd)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM); /* no rank outlives its launcher */
	if (getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	char rank[16], world[16], addr[32], ns[96];
	snprintf(rank, sizeof(rank), "%d", i);
	snprintf(world, sizeof(world), "%d", w);
	snprintf(addr, sizeof(addr), "192.0.2.%d", i + 1);
	snprintf(ns, sizeof(ns), "%s-%d", prefix, i);
	const char *env[][2] = {{"QUIRE_RANK", rank},
				{"QUIRE_WORLD", world},
				{"QUIRE_LINK_MASTER", "192.0.2.1"},
				{"QUIRE_LINK_ADDR", addr},
				{"QUIRE_LINK_NS", ns},
				{"QUIRE_LINK_RATE", rate},
				{"MASTER_ADDR", "192.0.2.1"},
				{"MASTER_PORT", port},
				{"RANK", rank},
				{"WORLD_SIZE", world},
				{"LOCAL_RANK", "0"},
				{"LOCAL_WORLD_SIZE", "1"},
				{"GLOO_SOCKET_IFNAME", CLI_LINK_IFNAME}};
	for (size_t k = 0; k < sizeof(env) / sizeof(env[0]); k++)
		setenv(env[k][0], env[k][1], 1);
	int n = 0;
	while (cmd[n])
		n++;
	const char **argv = calloc((size_t)n + 5, sizeof(*argv));
	if (!argv)
		_exit(127);
	argv[0] = "ip", argv[1] = "netns", argv[2] = "exec", argv[3] = ns;
	for (int k = 0; k < n; k++)
		argv[4 + k] = cmd[k];
	execvp(argv[0], (char *const *)argv);
	fprintf(stderr, "quire: link run: cannot run ip: %s (apt-get install iproute2)\n",
		strerror(errno));
	_exit(127);
}

/* Starts the W ranks in namespaces PREFIX-i and waits for them; the first failure's status
 * (128+N for a signal N), 0 if all succeeded. */
static int run_ranks(const char *prefix, int w, const char *port, const char *rate, char **cmd)
{
	pid_t pids[MAX_RANKS], parent = getpid();
	int alive = 0, first = 0;
	fflush(NULL);
	for (int i = 0; i < w; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			exec_rank(parent, prefix, i, w, port, rate, cmd);
		if (pids[i] < 0) {
			first = cli_fail("link run: cannot start rank %d: %s", i, strerror(errno));
			break;
		}
		alive++;
	}
	long told = first ? now_ms() : -1; /* when the ranks were told to stop */
	if (first)
		for (int i = 0; i < alive; i++)
			kill(pids[i], SIGTERM);
	int started = alive;
	while (alive > 0) {
		for (int i = 0; i < started; i++) {
			int status;
			if (pids[i] <= 0 || waitpid(pids[i], &status, WNOHANG) != pids[i])
				continue;
			pids[i] = 0;
			alive--;
			int rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
			if (rc && !first && told < 0) {
				first = rc;
				fprintf(stderr,
					"quire: link run: rank %d exited %d; stopping the others\n",
					i, rc);
			}
		}
		if (told < 0 && (first || cli_link_stopped())) {
			told = now_ms();
			for (int i = 0; i < started; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGTERM);
		} else if (told >= 0 && alive && now_ms() - told > STOP_GRACE_MS) {
			for (int i = 0; i < started; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGKILL);
		}
		if (alive)
			usleep(10000); /* a signal cuts it short */
	}
	return first;
}

static int cli_link_run(int argc, char **argv)
{
	static const struct option opts[] = {{"ranks", required_argument, 0, 'w'},
					     {"rate", required_argument, 0, 'r'},
					     {"cards", no_argument, 0, 'c'},
					     {"port", required_argument, 0, 'p'},
					     {"ranks-in", required_argument, 0, 'I'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *rate_spec = NULL, *port = "29500", *ranks_in = NULL;
	int w = 0, cards = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			w = atoi(optarg);
			break;
		case 'r':
			rate_spec = optarg;
			break;
		case 'c':
			cards = 1;
			break;
		case 'p':
			port = optarg;
			break;
		case 'I': /* the ranks of a launcher that made namespaces ranks-in-i (--cards) */
			ranks_in = optarg;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return 0;
		default:
			return cli_bad_option("link run", c, argv);
		}
	}
	char rate[32], delay[32];
	if (w < 1 || w > MAX_RANKS)
		return cli_usage_error("link run", "--ranks: 1 to %d", MAX_RANKS);
	if (!rate_spec || cli_link_parse(rate_spec, rate, sizeof(rate), delay, sizeof(delay)))
		return cli_usage_error("link run",
				       "--rate: RATE[,delay=TIME], RATE like 2gbit or 500mbit, "
				       "TIME like 5ms, not '%s'",
				       rate_spec ? rate_spec : "(none)");
	int p = atoi(port);
	if (p < 1 || p > 65535)
		return cli_usage_error("link run", "--port: 1 to 65535, not '%s'", port);
	if (optind >= argc)
		return cli_usage_error("link run", "no COMMAND after the options (-- COMMAND ...)");
	char **cmd = argv + optind;
	if (ranks_in) {
		cli_link_catch();
		int rc = run_ranks(ranks_in, w, port, rate, cmd);
		return cli_link_stopped() ? 128 + cli_link_stopped() : rc;
	}
	if (cli_link_check("link run"))
		return CLI_EXIT_FAIL;
	char self[PATH_MAX - 32], bin[PATH_MAX], cluster[PATH_MAX];
	if (cards) {
		if (bench_self_dir("link run", self, sizeof(self)))
			return CLI_EXIT_FAIL;
		snprintf(bin, sizeof(bin), "%s/quire", self);
		snprintf(cluster, sizeof(cluster), "%s/quire-cluster", self);
		if (access(cluster, X_OK) != 0)
			return cli_fail("link run --cards: %s not found (make)", cluster);
	}
	const char *prefix = cli_link_begin("link", "link run");
	int rc = cli_link_up(w, rate, delay, 0) ? CLI_EXIT_FAIL : 0;
	if (!rc && !cards) {
		rc = run_ranks(prefix, w, port, rate, cmd);
	} else if (!rc) {
		/* quire-cluster starts card i in namespace i, at the rank's own address, then
		 * this command again (--ranks-in) for the ranks, in the card's QUIRE_CLUSTER_DIR.
		 */
		char np[16], net[1024] = "udp:", nslist[2048] = "";
		snprintf(np, sizeof(np), "%d", w);
		for (int i = 0; i < w; i++) {
			size_t a = strlen(net), b = strlen(nslist);
			snprintf(net + a, sizeof(net) - a, "%s192.0.2.%d", i ? "," : "", i + 1);
			snprintf(nslist + b, sizeof(nslist) - b, "%s%s-%d", i ? "," : "", prefix,
				 i);
		}
		int n = 0;
		while (cmd[n])
			n++;
		const char **full = calloc((size_t)n + 32, sizeof(*full));
		if (!full) {
			rc = cli_fail("link run: out of memory");
		} else {
			const char *head[] = {cluster, "-n",         np,        "--net",
					      net,     "--netns",    nslist,    "--",
					      bin,     "link",       "run",     "--ranks",
					      np,      "--rate",     rate_spec, "--port",
					      port,    "--ranks-in", prefix,    "--"};
			int k = 0;
			for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
				full[k++] = head[i];
			for (int i = 0; i < n; i++)
				full[k++] = cmd[i];
			int stopped_by;
			rc = cli_run_child(full, NULL, &stopped_by);
			if (stopped_by)
				cli_link_stop(stopped_by);
			if (rc < 0)
				rc = CLI_EXIT_FAIL;
			free(full);
		}
	}
	int stopped = cli_link_stopped();
	cli_link_end();
	return stopped ? 128 + stopped : rc;
}

static const struct cli_command link_commands[] = {
    {"run", "a command once per rank, each in a network namespace on shaped links", cli_link_run},
};

int cli_link(int argc, char **argv)
{
	return cli_dispatch("link", link_commands, sizeof(link_commands) / sizeof(link_commands[0]),
			    argc, argv);
}
