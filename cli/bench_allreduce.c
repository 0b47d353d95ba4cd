// SPDX-License-Identifier: MIT
/*
 * quire bench allreduce: all-reduce bandwidth of W ranks under mpirun, quire's formats
 * beside OpenMPI's MPI_Allreduce in the same run. This side checks the options and starts
 * one mpirun of quire-bench-allreduce (bench_allreduce_mpi.c) per backend and W, inside
 * quire-cluster for the simulated cards; --link hands over to bench_link.c.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_allreduce.h"
#include "cli.h"

static const char bench_allreduce_help[] =
    "Usage: quire bench allreduce [--backend LIST] [--ranks LIST] [--min BYTES] [--max BYTES]\n"
    "                             [--repeat N] [--net-drop P] [--net-corrupt P] [--net-seed S]\n"
    "                             [--verify N] [--card-net udp] [--link RATE[,delay=TIME]]\n"
    "All-reduce bandwidth, W ranks under mpirun, each format of quire beside OpenMPI's\n"
    "MPI_Allreduce of fp32 over TCP on loopback in the same run: algbw and busbw (NCCL's\n"
    "definitions, in fp32-equivalent GB/s), wire bytes per element and the ratio to MPI.\n"
    "Backends: cpu (MPI carries quire's data) and sim (W simulated cards started by\n"
    "quire-cluster; the cards all-reduce over their own network, bytes counted by their ports)\n"
    "and sim-golden (the same cards computing with the hls/ C, QUIRE_EMU_ENGINES=golden: the\n"
    "simulated cards as they were before their fast engines, for the speed-up in one run).\n\n"
    "  -b, --backend LIST comma-separated: cpu, sim, sim-golden (default cpu,sim)\n"
    "  -w, --ranks LIST   comma-separated W (default 2,4)\n"
    "  -s, --min BYTES    smallest fp32 tensor (default 64KiB)\n"
    "  -S, --max BYTES    largest (default 64MiB); sizes go up 4x\n"
    "  -r, --repeat N     runs per figure, best kept (default 5)\n"
    "      --net-drop P   the cards' network loses each frame (and each of its link's\n"
    "                     acknowledgements) with probability P; their link sends it again\n"
    "      --net-corrupt P  and damages each with probability P (sim backends)\n"
    "      --net-seed S   seed of those faults (default: fixed)\n"
    "      --verify N     instead of bandwidth: N bfp8 all-reduces of --min bytes, each of new\n"
    "                     data, first on a loss-free network, then (with --net-drop or\n"
    "                     --net-corrupt) on the lossy one: how many give the loss-free bits\n"
    "                     on every rank, the frames sent again, and the slowdown\n"
    "      --card-net udp the sim cards' network over UDP on loopback (127.0.0.1, ports\n"
    "                     of this run) instead of Unix sockets; the same link above it\n"
    "  -l, --link RATE[,delay=TIME]\n"
    "                     (root) over shaped links instead of loopback: each rank, and its\n"
    "                     host's card, in a network namespace of its own, veth pairs to a\n"
    "                     bridge shaped with tc tbf to RATE each way (e.g. 2gbit; TIME,\n"
    "                     e.g. 1ms, needs netem); Gloo's ring all-reduce in the same run\n"
    "                     (x Gloo). The cards' network is UDP. Namespaces and processes\n"
    "                     are removed however the run ends (docs/bench-link.md)\n"
    "  -h, --help         this text\n";

int bench_mpirun_argv(const char **argv, int k, const char *np, const char *ifaces)
{
	const char *mpi[] = {"mpirun",   "--oversubscribe", "-np",
			     np,         "--mca",           "btl",
			     "self,tcp", "--mca",           "btl_tcp_if_include",
			     ifaces,     "--mca",           "mpi_yield_when_idle",
			     "1"};
	for (size_t i = 0; i < sizeof(mpi) / sizeof(mpi[0]); i++)
		argv[k++] = mpi[i];
	return k;
}

/* What one mpirun of the bench is to do besides its backend and W. */
struct bench_run {
	const char *min, *max, *repeat;
	const char *drop, *corrupt; /* NULL: a loss-free network */
	const char *seed;
	const char *udp;    /* the cards' network over UDP (quire-cluster --net), or NULL */
	const char *verify; /* NULL: bandwidth */
	const char *dig_flag, *dig_file;
};

/* One mpirun of quire-bench-allreduce: W ranks, on a backend; inside quire-cluster for sim. */
static int run_bench_mpi(const char *dir, const char *backend, int w, const struct bench_run *br)
{
	char bench[PATH_MAX], cluster[PATH_MAX], np[16];
	snprintf(bench, sizeof(bench), "%s/quire-bench-allreduce", dir);
	snprintf(cluster, sizeof(cluster), "%s/quire-cluster", dir);
	snprintf(np, sizeof(np), "%d", w);
	int golden = strcmp(backend, "sim-golden") == 0,
	    sim = golden || strcmp(backend, "sim") == 0;
	const char *argv[48];
	int k = 0;
	if (sim) {
		argv[k++] = cluster;
		argv[k++] = "-n";
		argv[k++] = np;
		if (br->drop) {
			argv[k++] = "--net-drop";
			argv[k++] = br->drop;
		}
		if (br->corrupt) {
			argv[k++] = "--net-corrupt";
			argv[k++] = br->corrupt;
		}
		if (br->seed && (br->drop || br->corrupt)) {
			argv[k++] = "--net-seed";
			argv[k++] = br->seed;
		}
		if (br->udp) {
			argv[k++] = "--net";
			argv[k++] = br->udp;
		}
		argv[k++] = "--";
	}
	k = bench_mpirun_argv(argv, k, np, "lo");
	const char *rest[] = {bench,   "--backend", sim ? "sim:cluster" : "cpu",
			      "--min", br->min,     "--max",
			      br->max, "--repeat",  br->repeat};
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		argv[k++] = rest[i];
	if (br->verify) {
		argv[k++] = "--verify";
		argv[k++] = br->verify;
		argv[k++] = br->dig_flag;
		argv[k++] = br->dig_file;
	}
	argv[k] = NULL;
	/* The cards read it when they start (sim/emu/engines.c); so do the ranks, to say so. */
	if (golden)
		setenv("QUIRE_EMU_ENGINES", "golden", 1);
	int stopped_by, rc = cli_run_child(argv, " (apt-get install openmpi-bin)", &stopped_by);
	if (golden)
		unsetenv("QUIRE_EMU_ENGINES");
	if (stopped_by)
		return 128 + stopped_by; /* the user stopped it: nothing more to say */
	if (rc != 0)
		return cli_fail("bench allreduce: the %s W=%d run failed", backend, w);
	return 0;
}

int bench_allreduce(int argc, char **argv)
{
	static const struct option opts[] = {{"backend", required_argument, 0, 'b'},
					     {"ranks", required_argument, 0, 'w'},
					     {"min", required_argument, 0, 's'},
					     {"max", required_argument, 0, 'S'},
					     {"repeat", required_argument, 0, 'r'},
					     {"net-drop", required_argument, 0, 'D'},
					     {"net-corrupt", required_argument, 0, 'C'},
					     {"net-seed", required_argument, 0, 'E'},
					     {"verify", required_argument, 0, 'V'},
					     {"link", required_argument, 0, 'l'},
					     {"card-net", required_argument, 0, 'U'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *ranks = "2,4", *min = "64KiB", *max = "64MiB", *repeat = "5",
		   *backends = "cpu,sim", *drop = NULL, *corrupt = NULL, *verify = NULL,
		   *seed = NULL, *link = NULL, *card_net = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:w:s:S:r:l:h", opts, NULL)) != -1) {
		if (c == 'l')
			link = optarg;
		else if (c == 'b')
			backends = optarg;
		else if (c == 'w')
			ranks = optarg;
		else if (c == 's')
			min = optarg;
		else if (c == 'S')
			max = optarg;
		else if (c == 'r')
			repeat = optarg;
		else if (c == 'D' || c == 'C')
			*(c == 'D' ? &drop : &corrupt) = optarg;
		else if (c == 'V')
			verify = optarg;
		else if (c == 'E')
			seed = optarg;
		else if (c == 'U')
			card_net = optarg;
		else if (c == 'h')
			return fputs(bench_allreduce_help, stdout), 0;
		else
			return cli_bad_option("bench allreduce", c, argv);
	}
	if (optind != argc)
		return cli_usage_error("bench allreduce", "unexpected argument '%s'", argv[optind]);
	uint64_t lo = cli_parse_size(min), hi = cli_parse_size(max);
	char *end;
	long rep = strtol(repeat, &end, 10);
	if (lo < BENCH_ALLREDUCE_MIN_BYTES || lo > BENCH_ALLREDUCE_MAX_BYTES)
		return cli_usage_error("bench allreduce", "--min: %u bytes to 1GiB, not '%s'",
				       BENCH_ALLREDUCE_MIN_BYTES, min);
	if (hi < lo || hi > BENCH_ALLREDUCE_MAX_BYTES)
		return cli_usage_error("bench allreduce",
				       "--max: from --min (%s) to 1GiB, not '%s'", min, max);
	if (*end || end == repeat || rep < 1 || rep > BENCH_ALLREDUCE_MAX_REPEAT)
		return cli_usage_error("bench allreduce", "--repeat: 1 to %d, not '%s'",
				       BENCH_ALLREDUCE_MAX_REPEAT, repeat);
	for (int i = 0; i < 2; i++) {
		const char *p = i ? corrupt : drop;
		double v = p ? strtod(p, &end) : 0;
		if (p && (*end || end == p || !(v >= 0 && v <= 1)))
			return cli_usage_error("bench allreduce",
					       "--net-%s: a probability, not '%s'",
					       i ? "corrupt" : "drop", p);
	}
	if (seed && (strtoull(seed, &end, 10), *end || end == seed || *seed == '-'))
		return cli_usage_error("bench allreduce", "--net-seed: a number, not '%s'", seed);
	long nv = verify ? strtol(verify, &end, 10) : 0;
	if (verify && (*end || end == verify || nv < 1 || nv > BENCH_ALLREDUCE_MAX_VERIFY))
		return cli_usage_error("bench allreduce", "--verify: 1 to %d all-reduces, not '%s'",
				       BENCH_ALLREDUCE_MAX_VERIFY, verify);
	char list[256], blist[64];
	snprintf(list, sizeof(list), "%s", ranks);
	snprintf(blist, sizeof(blist), "%s", backends);
	for (char *save, *b = strtok_r(blist, ",", &save); b; b = strtok_r(NULL, ",", &save))
		if (strcmp(b, "cpu") != 0 && strcmp(b, "sim") != 0 && strcmp(b, "sim-golden") != 0)
			return cli_usage_error("bench allreduce",
					       "--backend: cpu, sim or sim-golden, not '%s'", b);
	for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long w = strtol(tok, &end, 10);
		if (*end || w < 1 || w > 64)
			return cli_usage_error("bench allreduce", "--ranks: numbers from 1 to 64");
	}
	char self[PATH_MAX - 32], bin[PATH_MAX];
	int st = bench_self_dir("bench allreduce", self, sizeof(self));
	if (st)
		return st;
	snprintf(bin, sizeof(bin), "%s/quire-bench-allreduce", self);
	if (access(bin, X_OK) != 0)
		return cli_fail(
		    "bench allreduce: %s not found (it is built where MPI is installed: "
		    "apt-get install libopenmpi-dev openmpi-bin)",
		    bin);
	if (geteuid() == 0) { /* mpirun refuses root unless told */
		setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
		setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	}
	char sizes[2][64];
	snprintf(sizes[0], sizeof(sizes[0]), "%llu", (unsigned long long)lo);
	snprintf(sizes[1], sizeof(sizes[1]), "%llu", (unsigned long long)hi);
	if (card_net && strcmp(card_net, "udp") != 0 && strcmp(card_net, "unix") != 0)
		return cli_usage_error("bench allreduce", "--card-net: udp or unix, not '%s'",
				       card_net);
	if (link && (drop || corrupt || verify || card_net))
		return cli_usage_error("bench allreduce",
				       "--link measures bandwidth on a loss-free network: no "
				       "--net-drop, --net-corrupt, --verify or --card-net with it");
	if (link)
		return bench_link(self, link, backends, ranks, sizes[0], sizes[1], repeat);
	/* UDP ports of this run's cards (wire_udp.h: BASE + address, BASE + 256 + address): another
	 * run may share the machine. */
	char udp[64];
	snprintf(udp, sizeof(udp), "udp:127.0.0.1:%d", 20000 + (int)(getpid() % 20000));
	snprintf(list, sizeof(list), "%s", ranks);
	for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		snprintf(blist, sizeof(blist), "%s", backends);
		for (char *bsave, *b = strtok_r(blist, ",", &bsave); b;
		     b = strtok_r(NULL, ",", &bsave)) {
			struct bench_run br = {.min = sizes[0],
					       .max = sizes[1],
					       .repeat = repeat,
					       .drop = drop,
					       .corrupt = corrupt,
					       .seed = seed,
					       .udp = card_net && !strcmp(card_net, "udp") ? udp
											   : NULL};
			int rc = 0, lossy = strcmp(b, "cpu") != 0 && (drop || corrupt);
			if (verify) { /* the loss-free run's bits, then the lossy run against them
				       */
				char dig[PATH_MAX];
				const char *tmp = getenv("TMPDIR");
				snprintf(dig, sizeof(dig), "%s/quire-verify-%d.txt",
					 tmp && *tmp ? tmp : "/tmp", (int)getpid());
				br.verify = verify;
				br.dig_file = dig;
				br.dig_flag = "--digests-out";
				br.drop = br.corrupt = NULL;
				printf("--- %s, W=%s: a loss-free network\n", b, tok);
				fflush(stdout);
				rc = run_bench_mpi(self, b, atoi(tok), &br);
				if (!rc && lossy) {
					br.dig_flag = "--digests-in";
					br.drop = drop;
					br.corrupt = corrupt;
					printf("--- %s, W=%s: --net-drop %s --net-corrupt %s\n", b,
					       tok, drop ? drop : "0", corrupt ? corrupt : "0");
					fflush(stdout);
					rc = run_bench_mpi(self, b, atoi(tok), &br);
				}
				unlink(dig);
			} else {
				rc = run_bench_mpi(self, b, atoi(tok), &br);
			}
			if (rc)
				return rc;
		}
	}
	return 0;
}
