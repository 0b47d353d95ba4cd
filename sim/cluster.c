// SPDX-License-Identifier: MIT
/*
 * quire-cluster: a simulated cluster for one command. Starts W card processes
 * (quire-sim) on one simulated network, runs the command (typically mpirun
 * with W ranks, each opening "sim:cluster"), and ends the cards when the
 * command ends, or when this launcher is interrupted or killed: the cards die
 * with it (PDEATHSIG), and the network directory is removed. On a UDP network it gives
 * the cards the job's key (sim/job_key.h): the user's, or one it makes, in the cards'
 * environment only, and a fresh run identity.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sim/locate.h"
#include "quire/status.h"
#include "sim/job_key.h"
#include "sim/wire_udp_rendezvous.h"

#define MAX_CARDS 64
#define KEY_FILE  "job-key" /* --rank-card: rank 0's key for the others, in the shared directory */

static const char usage[] =
    "Usage: quire-cluster -n W [OPTIONS] -- COMMAND [ARGS...]\n"
    "Start W simulated cards (quire-sim) on one simulated network, run COMMAND, then end\n"
    "the cards and remove the network directory, also when COMMAND fails or this is killed.\n"
    "COMMAND's ranks open the backend \"sim:cluster\": rank r gets card r (the rank comes\n"
    "from mpirun's environment or QUIRE_RANK). COMMAND sees QUIRE_CLUSTER_DIR.\n\n"
    "  -n, --cards W        cards, 1-64\n"
    "      --model M        the cards' model: emu (default) or rtl, the RTL card under\n"
    "                       Verilator (quire-sim --model rtl; much slower)\n"
    "      --net udp:HOST[:BASE],...\n"
    "                       the cards' network over UDP instead of Unix sockets in the\n"
    "                       directory: entry i is card i's host (one entry: all on it),\n"
    "                       card i listens on UDP ports BASE+i and BASE+256+i (BASE\n"
    "                       default 47100)\n"
    "      --net udp:rdv=HOST:PORT[,cards=W][,timeout=S]\n"
    "                       over UDP, each card on free ports, the addresses from a TCP\n"
    "                       rendezvous that card 0 serves on HOST:PORT (HOST: card 0's\n"
    "                       address; the others bind where their route to it leaves)\n"
    "      --net udp:dir[=PATH][,cards=W][,host=IP][,timeout=S]\n"
    "                       the same through files in PATH (default: the cluster's\n"
    "                       directory), cards on IP (default 127.0.0.1); cards= defaults\n"
    "                       to -n, or with --rank-card to mpirun's world size; a card\n"
    "                       waits at most S s (default 30) for the others\n"
    "      --netns NS,...   (root) card i runs in network namespace NS number i (of\n"
    "                       ip netns; one name: all cards), e.g. one per simulated host\n"
    "      --rank-card      one card per rank instead, for a launcher that starts one\n"
    "                       quire-cluster per rank (mpirun -np W quire-cluster --rank-card\n"
    "                       --net udp:... -- COMMAND): this rank's card only, address = rank\n"
    "                       (QUIRE_RANK or mpirun's), in $QUIRE_CLUSTER_DIR if set (shared\n"
    "                       by the ranks of one host), else a directory of its own; no -n\n"
    "      --net-drop P     each card loses each frame it sends with probability P\n"
    "      --net-corrupt P  each card flips a bit of each frame it sends with probability P\n"
    "                       (the cards' link sends them again: docs/network.md)\n"
    "      --net-seed S     seed of those faults (default: fixed)\n"
    "      --verbose        the cards say when hosts come and go\n"
    "On a UDP network the cards prove and tag with the job's key: QUIRE_JOB_KEY (32 hex\n"
    "digits) or QUIRE_JOB_KEY_FILE (a file of mode 0600) if set, else a random one made here\n"
    "(with --rank-card, by rank 0's launcher, in $QUIRE_CLUSTER_DIR/job-key); it reaches\n"
    "the cards in their environment, never their command line (docs/network.md).\n"
    "Example:\n"
    "  quire-cluster -n 4 -- mpirun -np 4 quire-train-dp --backend sim:cluster\n";

static volatile sig_atomic_t got_signal;
static char dir[QUIRE_SIM_DIR_MAX]; /* $TMPDIR/quire-cluster-XXXXXX */
static pid_t cards[MAX_CARDS];
static int n_cards;
static int first;      /* the first card this launcher starts: its rank with --rank-card */
static int shared_dir; /* --rank-card in $QUIRE_CLUSTER_DIR: only this card's files are ours */
static const char *net_name;   /* --net: udp:..., else the directory */
static char net_buf[1024];     /* --net with what the rendezvous forms leave to us filled in */
static char *netns[MAX_CARDS]; /* --netns: card i's namespace (or netns[0] for all) */
static int n_netns;
static int key_shared; /* --rank-card, rank 0: the key file in the shared directory is ours */

/* Enters card i's network namespace (ip netns's /run/netns/NAME); in the card's child. */
static int enter_netns(int i)
{
	if (!n_netns)
		return 0;
	const char *name = netns[n_netns == 1 ? 0 : i];
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
		fprintf(stderr, "quire-cluster: cannot enter network namespace %s: %s\n", name,
			strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static void on_signal(int sig)
{
	got_signal = sig;
}

static pid_t start_card(const char *bin, int i, const char *model, const char *const fault[3],
			int verbose)
{
	char sock[128], addr[16];
	snprintf(sock, sizeof(sock), "%s/card-%d.sock", dir, i);
	snprintf(addr, sizeof(addr), "%d", i);
	pid_t parent = getpid(), pid = fork();
	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGTERM); /* no card outlives its launcher */
	if (getppid() != parent)
		_exit(1);
	setpgid(0, 0); /* a terminal's Ctrl-C reaches the launcher, which ends the command first */
	if (enter_netns(i) != 0)
		_exit(1);
	const char *argv[16] = {"quire-sim", "--socket", sock, "--net", net_name ? net_name : dir,
				"--addr",    addr};
	int k = 7;
	if (!verbose)
		argv[k++] = "--quiet";
	if (model) {
		argv[k++] = "--model";
		argv[k++] = model;
	}
	static const char *const fault_opt[3] = {"--net-drop", "--net-corrupt", "--net-seed"};
	for (int f = 0; f < 3; f++)
		if (fault[f]) {
			argv[k++] = fault_opt[f];
			argv[k++] = fault[f];
		}
	argv[k] = NULL;
	execvp(bin, (char *const *)argv);
	fprintf(stderr,
		"quire-cluster: cannot start %s: %s (build it with make, or set QUIRE_SIM)\n", bin,
		strerror(errno));
	_exit(127);
}

/* Wait until card i accepts connections; 0 when it does. */
static int card_ready(int i, int wait_ms)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/card-%d.sock", dir, i);
	for (int t = 0; t < wait_ms; t += 5) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			close(fd); /* the card serves the next host; this one left at once */
			return 0;
		}
		if (fd >= 0)
			close(fd);
		if (waitpid(cards[i], NULL, WNOHANG) == cards[i]) {
			cards[i] = 0;
			return -1;
		}
		usleep(5000);
	}
	return -1;
}

#define STOP_GRACE_MS 2000 /* how long the cards together may take to end on SIGTERM */

static void stop_cards(void)
{
	/* A stopped (hung) card acts on SIGTERM only once continued; one that still does not
	 * end within the grace period is killed. The whole teardown is bounded by it. */
	for (int i = 0; i < n_cards; i++) {
		if (cards[i] > 0) {
			kill(cards[i], SIGTERM);
			kill(cards[i], SIGCONT);
		}
	}
	int waited = 0;
	for (int i = 0; i < n_cards; i++) {
		if (cards[i] <= 0)
			continue;
		while (waitpid(cards[i], NULL, WNOHANG) == 0 && waited < STOP_GRACE_MS) {
			usleep(10000);
			waited += 10;
		}
		if (waited >= STOP_GRACE_MS) {
			kill(cards[i], SIGKILL);
			waitpid(cards[i], NULL, 0);
		}
		cards[i] = 0;
	}
	if (shared_dir) { /* the other ranks' cards and files stay */
		char f[QUIRE_SIM_DIR_MAX + 32];
		const char *const names[] = {"card-%d.sock", "card-%d.pid", "port-%d", "udp-%d"};
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			int n = snprintf(f, sizeof(f), "%s/", dir);
			snprintf(f + n, sizeof(f) - (size_t)n, names[k], first);
			unlink(f);
		}
		if (key_shared) { /* rank 0's launcher made the key it shared (job_key) */
			snprintf(f, sizeof(f), "%s/" KEY_FILE, dir);
			unlink(f);
		}
		return;
	}
	/* The directory is ours alone: whatever the cards, a killed card or the command's
	 * ranks (quire_comm_rendezvous) left there goes with it. */
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	if (rmdir(dir) != 0)
		fprintf(stderr, "quire-cluster: %s not removed: %s\n", dir, strerror(errno));
}

#define COMMAND_GRACE_MS 5000 /* how long the command may take to end once told to */

/*
 * Waits for the command; a signal to the launcher is passed on to the command's group,
 * and a second signal, or a command still running COMMAND_GRACE_MS later, kills the group.
 * (mpirun's ranks sit in groups of their own, but end when mpirun does.)
 */
static int wait_command(pid_t cmd)
{
	int status = 0, told_ms = -1;
	for (;;) {
		pid_t r = waitpid(cmd, &status, WNOHANG);
		if (r == cmd || (r < 0 && errno != EINTR))
			return status;
		if (got_signal && told_ms < 0) {
			kill(-cmd, got_signal == SIGHUP ? SIGTERM : got_signal);
			got_signal = 0;
			told_ms = 0;
		} else if (told_ms >= 0 && (got_signal || told_ms >= COMMAND_GRACE_MS)) {
			fprintf(stderr, "quire-cluster: %s, killing the command\n",
				got_signal ? "signalled again" : "the command did not end");
			kill(-cmd, SIGKILL);
			waitpid(cmd, &status, 0);
			return status;
		}
		usleep(10000); /* a signal cuts it short */
		if (told_ms >= 0)
			told_ms += 10;
	}
}

/* The world size mpirun gives each rank, or 0. */
static int world_size(void)
{
	const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long w = v ? strtol(v, &end, 10) : 0;
		if (v && *v && !*end && w > 0 && w <= (long)QUIRE_WIRE_UDP_RDV_MAX_CARDS)
			return (int)w;
	}
	return 0;
}

/*
 * A rendezvous form of --net (wire_udp_rendezvous.h) made whole: udp:dir without a path meets in
 * the cluster's directory, and a missing cards= is -n (or with --rank-card mpirun's world size);
 * then checked, and how long a card may take to be ready (a card waits for its peers at most its
 * timeout to reach the rendezvous and as long again, and 2 s, for the table) into *ready_ms. Other
 * forms are passed on as they are. 0, or -1 said on stderr.
 */
static int complete_net(int rank_card, int *ready_ms)
{
	const char *rest = NULL;
	if (!strcmp(net_name, "udp:dir"))
		rest = "";
	else if (!strncmp(net_name, "udp:dir,", 8))
		rest = net_name + 7;
	if (rest && rank_card && !shared_dir) {
		fprintf(stderr,
			"quire-cluster: --net %s with --rank-card: the ranks meet in "
			"$QUIRE_CLUSTER_DIR, which is not set (or say udp:dir=PATH)\n",
			net_name);
		return -1;
	}
	int k = rest ? snprintf(net_buf, sizeof(net_buf), "udp:dir=%s%s", dir, rest)
		     : snprintf(net_buf, sizeof(net_buf), "%s", net_name);
	if (!quire_wire_udp_rdv_is(net_buf))
		return 0;
	if (!strstr(net_buf, ",cards=")) {
		int w = rank_card ? world_size() : n_cards;
		if (!w) {
			fprintf(stderr,
				"quire-cluster: --net %s: with --rank-card and no mpirun "
				"world size (OMPI_COMM_WORLD_SIZE, PMI_SIZE), say cards=W\n",
				net_name);
			return -1;
		}
		k += snprintf(net_buf + k, sizeof(net_buf) - (size_t)k, ",cards=%d", w);
	}
	struct quire_wire_udp_rdv_spec spec;
	char why[512];
	if (k >= (int)sizeof(net_buf)) {
		fprintf(stderr, "quire-cluster: --net %s: too long\n", net_name);
		return -1;
	}
	if (quire_wire_udp_rdv_parse(net_buf, &spec, why, sizeof(why)) != QUIRE_OK) {
		fprintf(stderr, "quire-cluster: --net %s\n", why);
		return -1;
	}
	if (!rank_card && spec.cards != (uint32_t)n_cards) {
		fprintf(stderr, "quire-cluster: --net %s: cards=%u, but -n %d\n", net_name,
			spec.cards, n_cards);
		return -1;
	}
	if (rank_card && (uint32_t)first >= spec.cards) {
		fprintf(stderr, "quire-cluster: --net %s: rank %d is not one of cards=%u\n",
			net_name, first, spec.cards);
		return -1;
	}
	*ready_ms += 2 * (int)spec.timeout_ms + 2000;
	net_name = net_buf;
	return 0;
}

/* Rank 0's launcher (--rank-card): the key it made, for the other ranks' launchers, written
 * aside (mode 0600) and renamed in, so that a reader sees all of it or nothing. */
static int share_key(const struct quire_job_key *k)
{
	char path[QUIRE_SIM_DIR_MAX + 16], tmp[QUIRE_SIM_DIR_MAX + 40], hex[80];
	snprintf(path, sizeof(path), "%s/" KEY_FILE, dir);
	snprintf(tmp, sizeof(tmp), "%s/." KEY_FILE ".%ld", dir, (long)getpid());
	quire_job_hex(k->bytes, k->len, hex);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	size_t n = strlen(hex);
	int ok = fd >= 0 && write(fd, hex, n) == (ssize_t)n;
	if (fd >= 0)
		close(fd);
	ok = ok && rename(tmp, path) == 0;
	key_shared = ok;
	if (!ok) {
		fprintf(stderr, "quire-cluster: cannot write the job key in %s: %s\n", dir,
			strerror(errno));
		unlink(tmp);
	}
	return ok ? 0 : -1;
}

/* Another rank's launcher (--rank-card): rank 0's key, waiting for it at most wait_ms. */
static int shared_key(struct quire_job_key *k, int wait_ms)
{
	char path[QUIRE_SIM_DIR_MAX + 16], why[512];
	snprintf(path, sizeof(path), "%s/" KEY_FILE, dir);
	for (int waited = 0;; waited += 20) {
		int st = quire_job_key_load_file(path, k, why, sizeof(why));
		if (st == QUIRE_OK)
			return 0;
		if (st != QUIRE_ERR_NO_DEVICE || waited >= wait_ms) {
			fprintf(stderr, "quire-cluster: rank %d: %s%s\n", first, why,
				st == QUIRE_ERR_NO_DEVICE ? " (rank 0's launcher writes it)" : "");
			return -1;
		}
		usleep(20000);
	}
}

/*
 * The job's key for the cards of a UDP network, put in this process's environment (which
 * the cards inherit; the command gets it back out when the key was made here): the user's
 * (QUIRE_JOB_KEY or QUIRE_JOB_KEY_FILE), else a random one, with --rank-card rank 0's
 * through the shared directory. And, without --rank-card, a fresh run identity
 * (QUIRE_JOB_RUN), so that frames of an earlier run with the same key fail their tags.
 * 1 when the key was made or shared here (the command is not to see it), 0 when the user's,
 * -1 said on stderr.
 */
static int job_key(int rank_card, int wait_ms)
{
	struct quire_job_key k;
	char why[512], hex[80];
	if (quire_job_key_from_env(&k, why, sizeof(why)) != QUIRE_OK) {
		fprintf(stderr, "quire-cluster: %s\n", why);
		return -1;
	}
	int made = 0;
	if (!k.len) {
		if (rank_card && !shared_dir) {
			fprintf(
			    stderr,
			    "quire-cluster: --rank-card --net %s: the ranks' cards need one job "
			    "key: set QUIRE_JOB_KEY or QUIRE_JOB_KEY_FILE (e.g. mpirun -x), or "
			    "QUIRE_CLUSTER_DIR, where rank 0's launcher leaves one\n",
			    net_name);
			return -1;
		}
		k.len = QUIRE_JOB_KEY_BYTES;
		if (rank_card && first != 0) {
			if (shared_key(&k, wait_ms) != 0)
				return -1;
		} else if (quire_job_random(k.bytes, k.len) != QUIRE_OK ||
			   (rank_card && share_key(&k) != 0)) {
			fprintf(stderr, "quire-cluster: no job key made\n");
			return -1;
		}
		quire_job_hex(k.bytes, k.len, hex);
		setenv(QUIRE_JOB_KEY_ENV, hex, 1);
		explicit_bzero(hex, sizeof(hex));
		made = 1;
	}
	explicit_bzero(&k, sizeof(k));
	if (!rank_card) {
		uint8_t run[QUIRE_JOB_RUN_BYTES];
		if (quire_job_random(run, sizeof(run)) != QUIRE_OK) {
			fprintf(stderr, "quire-cluster: no run identity made\n");
			return -1;
		}
		quire_job_hex(run, sizeof(run), hex);
		setenv(QUIRE_JOB_RUN_ENV, hex, 1);
	}
	return made;
}

static int probability_ok(const char *s)
{
	char *end;
	double d = strtod(s, &end);
	return *s && !*end && d >= 0 && d <= 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"cards", required_argument, 0, 'n'},
					     {"net-drop", required_argument, 0, 'D'},
					     {"net-corrupt", required_argument, 0, 'C'},
					     {"net-seed", required_argument, 0, 'S'},
					     {"model", required_argument, 0, 'M'},
					     {"verbose", no_argument, 0, 'v'},
					     {"net", required_argument, 0, 'N'},
					     {"netns", required_argument, 0, 'X'},
					     {"rank-card", no_argument, 0, 'R'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *fault[3] = {NULL, NULL, NULL}, *model = NULL; /* drop, corrupt, seed */
	int c, verbose = 0, rank_card = 0;
	char *end;
	while ((c = getopt_long(argc, argv, "+n:h", opts, NULL)) != -1) {
		if (c == 'n') {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > MAX_CARDS) {
				fprintf(stderr, "quire-cluster: -n wants 1-%d cards, not %s\n",
					MAX_CARDS, optarg);
				return 2;
			}
			n_cards = (int)v;
		} else if (c == 'D' || c == 'C') {
			if (!probability_ok(optarg)) {
				fprintf(stderr, "quire-cluster: a probability is 0 to 1, not %s\n",
					optarg);
				return 2;
			}
			fault[c == 'D' ? 0 : 1] = optarg;
		} else if (c == 'S') {
			(void)strtoull(optarg, &end, 10);
			if (!*optarg || *end || *optarg == '-') {
				fprintf(stderr,
					"quire-cluster: --net-seed wants a number, not %s\n",
					optarg);
				return 2;
			}
			fault[2] = optarg;
		} else if (c == 'M') {
			if (strcmp(optarg, "emu") != 0 && strcmp(optarg, "rtl") != 0) {
				fprintf(stderr,
					"quire-cluster: --model wants emu or rtl, not '%s'\n",
					optarg);
				return 2;
			}
			model = optarg;
		} else if (c == 'N') {
			if (strncmp(optarg, "udp:", 4) != 0 || strlen(optarg) > 512) {
				fprintf(
				    stderr,
				    "quire-cluster: --net wants udp:HOST[:BASE],..., not '%s'\n",
				    optarg);
				return 2;
			}
			net_name = optarg;
		} else if (c == 'X') {
			n_netns = 0;
			for (char *save, *t = strtok_r(optarg, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (n_netns == MAX_CARDS || strchr(t, '/') || !strcmp(t, "..")) {
					fprintf(stderr, "quire-cluster: --netns: up to %d names\n",
						MAX_CARDS);
					return 2;
				}
				netns[n_netns++] = t;
			}
		} else if (c == 'R') {
			rank_card = 1;
		} else if (c == 'v') {
			verbose = 1;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (rank_card) {
		const char *r = getenv("QUIRE_RANK");
		if (!r)
			r = getenv("OMPI_COMM_WORLD_RANK");
		if (!r)
			r = getenv("PMIX_RANK");
		if (!r)
			r = getenv("PMI_RANK");
		long v = r ? strtol(r, &end, 10) : -1;
		if (n_cards || !r || *end || v < 0 || v >= MAX_CARDS) {
			fprintf(stderr,
				"quire-cluster: --rank-card wants no -n and a rank 0-%d "
				"(QUIRE_RANK, or mpirun's)\n",
				MAX_CARDS - 1);
			return 2;
		}
		first = (int)v;
		n_cards = first + 1;
		if (n_netns > 1 && n_netns <= first) {
			fprintf(stderr, "quire-cluster: --netns names no namespace for rank %d\n",
				first);
			return 2;
		}
	}
	if (n_cards == 0 || optind >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (!rank_card && n_netns > 1 && n_netns != n_cards) {
		fprintf(stderr, "quire-cluster: --netns wants one name or %d, not %d\n", n_cards,
			n_netns);
		return 2;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	const char *given = rank_card ? getenv("QUIRE_CLUSTER_DIR") : NULL;
	if (given && *given) {
		if (snprintf(dir, sizeof(dir), "%s", given) >= (int)sizeof(dir)) {
			fprintf(stderr, "quire-cluster: QUIRE_CLUSTER_DIR is too long\n");
			return 2;
		}
		shared_dir = 1;
	} else if (quire_sim_mkdtemp(dir, sizeof(dir), "quire-cluster") != 0) {
		fprintf(stderr, "quire-cluster: cannot make a directory for the cards: %s\n",
			strerror(errno));
		return 1;
	}
	int ready_ms = model && strcmp(model, "rtl") == 0 ? 60000 : 10000;
	if (net_name && complete_net(rank_card, &ready_ms) != 0) {
		if (!shared_dir)
			rmdir(dir);
		return 2;
	}
	int key_made = net_name ? job_key(rank_card, ready_ms) : 0;
	if (key_made < 0) {
		if (!shared_dir)
			rmdir(dir);
		return 2;
	}
	char bin[PATH_MAX];
	quire_sim_locate(bin, sizeof(bin));
	for (int i = first; i < n_cards; i++) {
		cards[i] = start_card(bin, i, model, fault, verbose);
		char p[128];
		snprintf(p, sizeof(p), "%s/card-%d.pid", dir, i);
		FILE *f = fopen(p, "w");
		if (f) {
			fprintf(f, "%d\n", (int)cards[i]);
			fclose(f);
		}
	}
	for (int i = first; i < n_cards; i++) {
		/* An RTL card builds its model and boots its firmware on a soft core first; a
		 * card on a rendezvous waits for the others (ready_ms). */
		if (cards[i] < 0 || card_ready(i, ready_ms) != 0) {
			fprintf(stderr, "quire-cluster: card %d did not start\n", i);
			stop_cards();
			return 1;
		}
	}
	if (key_made) /* the cards have it; the command's processes need not */
		unsetenv(QUIRE_JOB_KEY_ENV);
	setenv("QUIRE_CLUSTER_DIR", dir, 1);
	if (rank_card) {
		char r[16];
		snprintf(r, sizeof(r), "%d", first);
		setenv("QUIRE_RANK", r, 1); /* sim:cluster's card, whatever set the rank */
	}
	pid_t cmd = fork();
	if (cmd == 0) {
		setpgid(0, 0); /* its own group: a signal here reaches all of it */
		prctl(PR_SET_PDEATHSIG, SIGTERM); /* mpirun ends its ranks on SIGTERM */
		/* A launcher started in the background inherits SIGINT ignored; the command
		 * must hear what it is forwarded. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "quire-cluster: cannot run %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	int status = wait_command(cmd);
	stop_cards();
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
