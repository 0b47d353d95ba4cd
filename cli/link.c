// SPDX-License-Identifier: MIT
/*
 * Shaped links between network namespaces (link.h): each rank in a namespace of its own
 * (192.0.2.i+1), joined to the others by a veth pair through a bridge in a hub namespace;
 * tc tbf limits each veth to RATE each way (and netem adds TIME where the kernel has
 * it). Namespaces, veths and the processes in them are removed on every way out the
 * calling command sees (errors, SIGINT, SIGTERM, SIGHUP); those of a run that was killed
 * outright (SIGKILL) are removed by the next one.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "link.h"

static volatile sig_atomic_t stop_sig;
static char prefix[48];
static const char *who_runs = "link"; /* the command, for messages */
static int n_made;                    /* rank namespaces made so far */
static const int caught[3] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction old_actions[3];
static int handlers_set;

static void on_signal(int sig)
{
	stop_sig = sig;
}

int cli_link_stopped(void)
{
	return stop_sig;
}

void cli_link_stop(int sig)
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

void cli_link_down(void)
{
	char name[80];
	if (!prefix[0])
		return;
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

/* Namespaces quire-FAMILY-PID-* of earlier runs that were killed outright: PID is gone. */
static void remove_stale(void)
{
	FILE *p = popen("ip netns list 2>/dev/null", "r");
	char line[80], names[64][80], family[16];
	int n = 0, pid;
	while (p && fgets(line, sizeof(line), p) && n < 64) {
		char *sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "quire-%15[a-z]-%d", family, &pid) == 2 && kill(pid, 0) != 0 &&
		    errno == ESRCH)
			snprintf(names[n++], sizeof(names[0]), "%s", line);
	}
	if (p)
		pclose(p);
	for (int i = 0; i < n; i++)
		ns_remove(names[i]);
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

int cli_link_parse(const char *spec, char *rate, size_t rate_len, char *delay, size_t delay_len)
{
	static const char *const rates[] = {"kbit", "mbit", "gbit", NULL}, *const times[] = {
									       "us", "ms", NULL};
	const char *comma = strchr(spec, ',');
	size_t n = comma ? (size_t)(comma - spec) : strlen(spec);
	if (n == 0 || n >= rate_len)
		return -1;
	memcpy(rate, spec, n);
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

double cli_link_rate_bps(const char *rate)
{
	char *end;
	double v = strtod(rate, &end);
	return v * (!strcmp(end, "gbit") ? 1e9 : !strcmp(end, "mbit") ? 1e6 : 1e3);
}

/* 1 ms of the rate, at least 64 KiB (a whole GSO packet). */
long cli_link_burst_bytes(const char *rate)
{
	long b = (long)(cli_link_rate_bps(rate) / 8 / 1000);
	return b < 65536 ? 65536 : b;
}

int cli_link_check(const char *who)
{
	if (geteuid() != 0)
		return cli_fail("%s: needs root (it makes network namespaces, veth pairs and tc "
				"qdiscs); run it as root",
				who);
	if (run_words(0, "ip -V") != 0 || run_words(0, "tc -V") != 0)
		return cli_fail("%s: needs ip and tc (apt-get install iproute2)", who);
	return 0;
}

void cli_link_catch(void)
{
	stop_sig = 0;
	struct sigaction sa = {.sa_handler = on_signal};
	for (int i = 0; i < 3; i++)
		sigaction(caught[i], &sa, handlers_set ? NULL : &old_actions[i]);
	handlers_set = 1;
}

const char *cli_link_begin(const char *family, const char *who)
{
	who_runs = who;
	snprintf(prefix, sizeof(prefix), "quire-%s-%d", family, (int)getpid());
	cli_link_catch();
	remove_stale();
	return prefix;
}

void cli_link_end(void)
{
	cli_link_down();
	if (handlers_set)
		for (int i = 0; i < 3; i++)
			sigaction(caught[i], &old_actions[i], NULL);
	handlers_set = 0;
}

static int shape(const char *ns, const char *dev, const char *rate, const char *delay)
{
	if (run_words(1, "tc -n %s qdisc add dev %s root handle 1: tbf rate %s burst %ld limit %s",
		      ns, dev, rate, cli_link_burst_bytes(rate), CLI_LINK_QUEUE) != 0)
		return -1;
	if (*delay && run_words(0, "tc -n %s qdisc add dev %s parent 1:1 handle 10: netem delay %s",
				ns, dev, delay) != 0) {
		fprintf(stderr,
			"quire: %s: delay=%s needs tc's netem (the sch_netem module), which this "
			"kernel does not have; leave delay out\n",
			who_runs, delay);
		return -1;
	}
	return 0;
}

int cli_link_up(int w, const char *rate, const char *delay, int launcher)
{
	char hub[80], ns[80];
	snprintf(hub, sizeof(hub), "%s-hub", prefix);
	if (run_words(1, "ip netns add %s", hub) || run_words(1, "ip -n %s link set lo up", hub) ||
	    run_words(1, "ip -n %s link add br0 type bridge", hub) ||
	    run_words(1, "ip -n %s link set br0 up", hub))
		return -1;
	for (int i = launcher ? -1 : 0; i < w && !stop_sig; i++) {
		char host[16], addr[32];
		snprintf(host, sizeof(host), i < 0 ? "L" : "%d", i);
		snprintf(ns, sizeof(ns), "%s-%s", prefix, host);
		snprintf(addr, sizeof(addr), "192.0.2.%d/24", i < 0 ? 254 : i + 1);
		if (run_words(1, "ip netns add %s", ns))
			return -1;
		if (i >= 0)
			n_made = i + 1;
		if (run_words(1, "ip -n %s link set lo up", ns) ||
		    run_words(1, "ip -n %s link add %s type veth peer name h%s netns %s", ns,
			      CLI_LINK_IFNAME, host, hub) ||
		    run_words(1, "ip -n %s link set h%s mtu 9000 master br0 up", hub, host) ||
		    run_words(1, "ip -n %s link set %s mtu 9000 up", ns, CLI_LINK_IFNAME) ||
		    run_words(1, "ip -n %s addr add %s dev %s", ns, addr, CLI_LINK_IFNAME))
			return -1;
		if (i >= 0) { /* both ways: the rank's uplink and its downlink from the bridge */
			char hdev[24];
			snprintf(hdev, sizeof(hdev), "h%s", host);
			if (shape(ns, CLI_LINK_IFNAME, rate, delay) ||
			    shape(hub, hdev, rate, delay))
				return -1;
		}
	}
	return stop_sig ? -1 : 0;
}
