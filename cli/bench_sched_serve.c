// SPDX-License-Identifier: MIT
/*
 * quire bench sched-serve: requests per second and latency of `quire sched serve`'s POST
 * /prioritize on loopback, for 100 and 1,000 nodes, from concurrent clients (libcurl, one
 * kept-alive connection each). The server is this program's own `quire sched serve`,
 * started for the run with the options given after "--"; the requests are ExtenderArgs of
 * generated nodes, as full node objects (nodeCacheCapable: false) and as names of the node
 * list the server is given (nodeCacheCapable: true). docs/sched-serve.md.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "bench.h"
#include "cli.h"
#include "sched/sched.h"
#include "sched_decide.h"
#include "sched_serve.h"

#define MAX_SIZES 8

static const char help[] =
    "Usage: quire bench sched-serve [--nodes N,...] [--clients N] [--requests N]\n"
    "                               [-- SERVE-OPTION...]\n"
    "Requests per second and latency (p50, p99, max) of quire sched serve's POST\n"
    "/prioritize on loopback: a server started for the run, --clients clients each on its\n"
    "own kept-alive connection, every request the same ExtenderArgs of generated nodes\n"
    "(a GPU share of 500 milli-GPUs to place; nodes of 0 to 8 GPUs of the trace's models,\n"
    "partly allocated), once with the nodes' objects and once with their names\n"
    "(nodeCacheCapable, the server given the node list).\n\n"
    "  -n, --nodes LIST       nodes per request (default 100,1000)\n"
    "  -c, --clients N        concurrent clients (default 4)\n"
    "  -r, --requests N       requests timed per row, over all clients (default 2000)\n"
    "  -h, --help             this text\n"
    "  -- SERVE-OPTION...     the server's options (quire sched serve --help): --backend,\n"
    "                         --threads, --model-file (without it, a random model of the\n"
    "                         shipped model's shape, 17-128-1), ...\n";

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A node object as the API server would send it: labels, quire's annotations of what is
 * free, allocatable and capacity, conditions. */
static json_t *make_node(size_t i, uint64_t *rng, const struct sched_models *m)
{
	static const int gpus[] = {0, 1, 2, 4, 8, 8};
	int ngpu = gpus[xorshift(rng) % 6], cpu = ngpu ? 16 * ngpu : 64;
	char name[64], gfree[96] = "", num[32], mem[32];
	snprintf(name, sizeof(name), "node-%04zu", i);
	size_t used = 0;
	for (int g = 0; g < ngpu; g++) {
		static const int share[] = {1000, 1000, 1000, 700, 500, 250, 0};
		used += (size_t)snprintf(gfree + used, sizeof(gfree) - used, "%s%d", g ? "|" : "",
					 share[xorshift(rng) % 7]);
	}
	json_t *labels = json_pack("{s:s,s:s,s:s}", "kubernetes.io/hostname", name,
				   "kubernetes.io/os", "linux", "kubernetes.io/arch", "amd64");
	if (ngpu)
		json_object_set_new(labels, "alibabacloud.com/gpu-card-model",
				    json_string(m->name[xorshift(rng) % 5]));
	snprintf(num, sizeof(num), "%dm", (int)(xorshift(rng) % (unsigned)(cpu * 1000)));
	snprintf(mem, sizeof(mem), "%dMi", (int)(xorshift(rng) % (unsigned)(cpu * 4096)));
	json_t *ann = json_pack("{s:s,s:s}", "quire/cpu-free", num, "quire/memory-free", mem);
	if (ngpu)
		json_object_set_new(ann, "quire/gpu-free", json_string(gfree));
	snprintf(num, sizeof(num), "%d", cpu);
	snprintf(mem, sizeof(mem), "%dGi", cpu * 4);
	json_t *alloc = json_pack("{s:s,s:s,s:s}", "cpu", num, "memory", mem, "pods", "110");
	if (ngpu)
		json_object_set_new(alloc, "nvidia.com/gpu", json_integer(ngpu));
	json_t *conditions = json_array();
	static const char *const kinds[] = {"MemoryPressure", "DiskPressure", "PIDPressure",
					    "Ready"};
	for (int k = 0; k < 4; k++)
		json_array_append_new(conditions,
				      json_pack("{s:s,s:s,s:s}", "type", kinds[k], "status",
						k == 3 ? "True" : "False", "lastHeartbeatTime",
						"2026-11-27T18:00:00Z"));
	return json_pack("{s:s,s:s,s:{s:s,s:o,s:o},s:{s:o,s:O,s:o}}", "apiVersion", "v1", "kind",
			 "Node", "metadata", "name", name, "labels", labels, "annotations", ann,
			 "status", "allocatable", alloc, "capacity", alloc, "conditions",
			 conditions);
}

static json_t *make_pod(void)
{
	return json_pack(
	    "{s:s,s:s,s:{s:s,s:s,s:s,s:{s:s,s:s}},s:{s:[{s:s,s:{s:{s:s,s:s}}}]},s:{s:s}}",
	    "apiVersion", "v1", "kind", "Pod", "metadata", "name", "train-0", "namespace",
	    "default", "creationTimestamp", "2026-11-27T18:00:00Z", "annotations",
	    "alibabacloud.com/gpu-milli", "500", "alibabacloud.com/gpu-count", "1", "spec",
	    "containers", "name", "main", "resources", "requests", "cpu", "4", "memory", "8Gi",
	    "status", "qosClass", "Burstable");
}

/* One client's run: its share of the requests, each one's latency. */
struct client {
	const char *url, *body;
	size_t len;
	int count;
	double *lat; /* seconds */
	double *cpu; /* the server thread's, from Server-Timing (s) */
	double last_cpu;
	int failed;
	char why[256];
};

static size_t gather(char *data, size_t size, size_t n, void *arg)
{
	(void)data;
	size_t *bytes = arg;
	*bytes += size * n;
	return size * n;
}

/* A header line of the answer: the server's CPU time from "Server-Timing: cpu;dur=MS". */
static size_t header(char *line, size_t size, size_t n, void *arg)
{
	struct client *c = arg;
	static const char name[] = "Server-Timing: cpu;dur=";
	size_t len = size * n;
	if (len > sizeof(name) && strncasecmp(line, name, sizeof(name) - 1) == 0)
		c->last_cpu = strtod(line + sizeof(name) - 1, NULL) / 1e3;
	return len;
}

static void *client_run(void *arg)
{
	struct client *c = arg;
	CURL *h = curl_easy_init();
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	hdr = curl_slist_append(hdr, "Expect:"); /* no 100-continue round trip */
	size_t bytes = 0;
	if (!h || !hdr) {
		snprintf(c->why, sizeof(c->why), "libcurl: out of memory");
		c->failed = 1;
	} else {
		curl_easy_setopt(h, CURLOPT_URL, c->url);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->len);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, gather);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &bytes);
		curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header);
		curl_easy_setopt(h, CURLOPT_HEADERDATA, c);
		curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
		curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
	}
	for (int i = 0; i < c->count && !c->failed; i++) {
		double t0 = bench_now();
		c->last_cpu = -1;
		CURLcode e = curl_easy_perform(h);
		c->lat[i] = bench_now() - t0;
		c->cpu[i] = c->last_cpu;
		long status = 0;
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		if (e == CURLE_OK && status == 200 && c->last_cpu < 0) {
			snprintf(c->why, sizeof(c->why), "no Server-Timing in the answer");
			c->failed = 1;
		} else if (e != CURLE_OK || status != 200) {
			snprintf(c->why, sizeof(c->why), "%s",
				 e != CURLE_OK ? curl_easy_strerror(e) : "");
			if (e == CURLE_OK)
				snprintf(c->why, sizeof(c->why), "HTTP status %ld", status);
			c->failed = 1;
		}
	}
	curl_slist_free_all(hdr);
	if (h)
		curl_easy_cleanup(h);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* `clients` clients sending `total` requests in all; the row printed. 0, or 1 (printed). */
static int bench_row(const char *url, const char *what, size_t nodes, size_t cands,
		     const char *body, int clients, int total)
{
	struct client *c = calloc((size_t)clients, sizeof(*c));
	pthread_t *t = calloc((size_t)clients, sizeof(*t));
	double *lat = calloc((size_t)total + (size_t)clients, sizeof(double));
	double *cpu = calloc((size_t)total + (size_t)clients, sizeof(double));
	if (!c || !t || !lat || !cpu) {
		free(c);
		free(t);
		free(lat);
		free(cpu);
		return cli_fail("bench sched-serve: out of memory");
	}
	int rc = 0;
	/* A warm-up round first (connections open, the server's buffers grown), untimed. */
	for (int round = 0; round < 2 && !rc; round++) {
		int per = round ? total / clients : 5, at = 0;
		double t0 = bench_now();
		for (int i = 0; i < clients; i++) {
			c[i] = (struct client){.url = url,
					       .body = body,
					       .len = strlen(body),
					       .count = per + (round && i < total % clients),
					       .lat = lat + at,
					       .cpu = cpu + at};
			at += c[i].count;
			pthread_create(&t[i], NULL, client_run, &c[i]);
		}
		for (int i = 0; i < clients; i++)
			pthread_join(t[i], NULL);
		double wall = bench_now() - t0;
		for (int i = 0; i < clients && !rc; i++)
			if (c[i].failed)
				rc = cli_fail("bench sched-serve: %s: %s", url, c[i].why);
		if (rc || !round)
			continue;
		qsort(lat, (size_t)at, sizeof(double), cmp_double);
		qsort(cpu, (size_t)at, sizeof(double), cmp_double);
		size_t p99 = (size_t)(at * 0.99);
		printf("%6zu %-10s %9.1f %7zu %8d %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f\n", nodes,
		       what, strlen(body) / 1024.0, cands, at, at / wall, lat[at / 2] * 1e6,
		       lat[p99] * 1e6, lat[at - 1] * 1e6, cpu[at / 2] * 1e6, cpu[p99] * 1e6);
		fflush(stdout);
	}
	free(c);
	free(t);
	free(lat);
	free(cpu);
	return rc;
}

/* The server: quire sched serve beside this program, port 0; its port read from its first
 * line. Its pid, or -1 (printed). */
static pid_t start_server(char **serve, int nserve, const char *model, const char *nodes,
			  unsigned *port)
{
	char dir[PATH_MAX - 16], bin[PATH_MAX];
	if (bench_self_dir("bench sched-serve", dir, sizeof(dir)))
		return -1;
	snprintf(bin, sizeof(bin), "%s/quire", dir);
	/* quire sched serve --port 0 --nodes FILE [--model-file FILE] SERVE-OPTION... */
	const char **argv = calloc((size_t)nserve + 10, sizeof(*argv));
	if (!argv)
		return cli_fail("bench sched-serve: out of memory"), -1;
	int n = 0;
	argv[n++] = bin;
	argv[n++] = "sched";
	argv[n++] = "serve";
	argv[n++] = "--port";
	argv[n++] = "0";
	argv[n++] = "--nodes";
	argv[n++] = nodes;
	if (model) {
		argv[n++] = "--model-file";
		argv[n++] = model;
	}
	for (int i = 0; i < nserve; i++)
		argv[n++] = serve[i];
	int fd[2];
	if (pipe(fd))
		return cli_fail("bench sched-serve: pipe: %s", strerror(errno)), -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execv(bin, (char *const *)argv);
		fprintf(stderr, "quire: bench sched-serve: cannot run %s: %s\n", bin,
			strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	free(argv);
	if (pid < 0) {
		close(fd[0]);
		return cli_fail("bench sched-serve: fork: %s", strerror(errno)), -1;
	}
	FILE *f = fdopen(fd[0], "r");
	char line[512];
	*port = 0;
	if (f && fgets(line, sizeof(line), f)) {
		fputs(line, stdout); /* where, on which backend, how many threads, which model */
		const char *p = strstr(line, "http://127.0.0.1:");
		if (p)
			*port = (unsigned)strtoul(p + strlen("http://127.0.0.1:"), NULL, 10);
	}
	if (f)
		fclose(f);
	else
		close(fd[0]);
	if (!*port) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return cli_fail("bench sched-serve: the server did not start"), -1;
	}
	return pid;
}

int bench_sched_serve(int argc, char **argv)
{
	static const struct option opts[] = {{"nodes", required_argument, 0, 'n'},
					     {"clients", required_argument, 0, 'c'},
					     {"requests", required_argument, 0, 'r'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	long sizes[MAX_SIZES] = {100, 1000}, clients = 4, requests = 2000;
	int nsizes = 2, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:c:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': {
			char buf[128], *save = NULL;
			snprintf(buf, sizeof(buf), "%s", optarg);
			nsizes = 0;
			for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
				if (nsizes == MAX_SIZES ||
				    cli_parse_long(s, 1, SCHED_PLACE_MAX_NODES, &sizes[nsizes++]))
					return cli_usage_error(
					    "bench sched-serve",
					    "--nodes: up to %d counts of 1 to %d", MAX_SIZES,
					    SCHED_PLACE_MAX_NODES);
			if (!nsizes)
				return cli_usage_error("bench sched-serve", "--nodes: empty");
			break;
		}
		case 'c':
			if (cli_parse_long(optarg, 1, 256, &clients))
				return cli_usage_error("bench sched-serve", "--clients: 1 to 256");
			break;
		case 'r':
			if (cli_parse_long(optarg, 1, 10000000, &requests))
				return cli_usage_error("bench sched-serve",
						       "--requests: 1 to 10000000");
			break;
		case 'h':
			fputs(help, stdout);
			return 0;
		default:
			return cli_bad_option("bench sched-serve", c, argv);
		}
	}
	/* What follows "--" is the server's; getopt has stepped over the "--". */
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0)
		return cli_usage_error("bench sched-serve",
				       "unexpected argument '%s' (the server's options follow --)",
				       argv[optind]);
	char **serve = argv + optind;
	int nserve = argc - optind, own_model = 0;
	char given[512] = "";
	size_t used = 0;
	for (int i = 0; i < nserve; i++) {
		own_model |= !strcmp(serve[i], "--model-file") || !strcmp(serve[i], "-m") ||
			     !strncmp(serve[i], "--model-file=", 13);
		if (used < sizeof(given))
			used +=
			    (size_t)snprintf(given + used, sizeof(given) - used, " %s", serve[i]);
	}
	if (requests < clients)
		requests = clients;
	char dir[] = "/tmp/quire-bench-serve-XXXXXX", path[PATH_MAX], nodes_path[PATH_MAX];
	if (!mkdtemp(dir))
		return cli_fail("bench sched-serve: mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/model.qmlp", dir);
	snprintf(nodes_path, sizeof(nodes_path), "%s/nodes.json", dir);
	int rc = 0;
	const char *model = NULL;
	if (!own_model) { /* a random model of the shipped model's shape */
		uint8_t *img = malloc(QUIRE_MLP_MAX_IMAGE_BYTES);
		uint32_t w[3] = {SCHED_FEATURES, 128, 1};
		uint64_t seed = 0x5eed5e77ull;
		FILE *f = img ? fopen(path, "wb") : NULL;
		size_t len = img ? cli_model_image(img, 2, w, &seed) : 0;
		if (!f || fwrite(img, 1, len, f) != len)
			rc = cli_fail("bench sched-serve: %s: cannot write", path);
		if (f && fclose(f))
			rc = cli_fail("bench sched-serve: %s: cannot write", path);
		free(img);
		model = path;
	}
	/* The nodes: the most any row asks for, the node list the server is given. */
	long most = 0;
	for (int i = 0; i < nsizes; i++)
		most = sizes[i] > most ? sizes[i] : most;
	struct sched_models models;
	sched_models_default(&models);
	uint64_t rng = 0x5eedbe7cull;
	json_t *items = json_array();
	for (long i = 0; i < most; i++)
		json_array_append_new(items, make_node((size_t)i, &rng, &models));
	json_t *list = json_pack("{s:s,s:s,s:{},s:O}", "apiVersion", "v1", "kind", "NodeList",
				 "metadata", "items", items);
	if (!rc && json_dump_file(list, nodes_path, JSON_COMPACT))
		rc = cli_fail("bench sched-serve: %s: cannot write", nodes_path);
	json_decref(list);
	unsigned port = 0;
	pid_t pid = rc ? -1 : start_server(serve, nserve, model, nodes_path, &port);
	if (pid < 0)
		rc = 1;
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/prioritize", port);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!rc) {
		printf("POST /prioritize on loopback, %ld clients; quire sched serve%s%s\n",
		       clients, model ? " (a random 17-128-1 model)" : "", given);
		printf("%6s %-10s %9s %7s %8s %9s %9s %9s %9s %9s %9s\n", "nodes", "request",
		       "body KiB", "cands", "requests", "req/s", "p50 us", "p99 us", "max us",
		       "cpu p50", "cpu p99");
	}
	json_t *pod = make_pod();
	for (int s = 0; s < nsizes && !rc; s++) {
		json_t *part = json_array(), *names = json_array();
		for (long i = 0; i < sizes[s]; i++) {
			json_t *n = json_array_get(items, (size_t)i);
			json_array_append(part, n);
			json_array_append(names,
					  json_object_get(json_object_get(n, "metadata"), "name"));
		}
		json_t *by_obj = json_pack("{s:O,s:{s:{},s:o},s:n}", "Pod", pod, "Nodes",
					   "metadata", "items", part, "NodeNames");
		json_t *by_name =
		    json_pack("{s:O,s:n,s:o}", "Pod", pod, "Nodes", "NodeNames", names);
		char *b1 = json_dumps(by_obj, JSON_COMPACT),
		     *b2 = json_dumps(by_name, JSON_COMPACT);
		/* The candidates the server scores: the same request read here. */
		struct serve_nodes none = {NULL, NULL};
		struct serve_args a;
		struct cli_decision d;
		char err[SCHED_ERR_LEN];
		size_t cands = 0;
		if (serve_args_read(&a, b1, strlen(b1), &none, &models, 0, err, sizeof(err)))
			rc = cli_fail("bench sched-serve: the generated request: %s", err);
		else {
			if (cli_decision_build(&d, &a.pl, &models, 0) == 0) {
				cands = d.count;
				cli_decision_free(&d);
			}
			serve_args_free(&a);
		}
		if (!rc)
			rc = bench_row(url, "Nodes", (size_t)sizes[s], cands, b1, (int)clients,
				       (int)requests);
		if (!rc)
			rc = bench_row(url, "NodeNames", (size_t)sizes[s], cands, b2, (int)clients,
				       (int)requests);
		free(b1);
		free(b2);
		json_decref(by_obj);
		json_decref(by_name);
	}
	json_decref(pod);
	json_decref(items);
	curl_global_cleanup();
	if (pid > 0) {
		int status = 0;
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
		if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
			rc = cli_fail("bench sched-serve: the server ended with status %d", status);
	}
	if (!rc)
		printf("latency (p50, p99, max): a client's wall time from sending the request to "
		       "the whole answer; cpu: the server thread's CPU time for the request, body "
		       "read to answer written (its Server-Timing header), in us; req/s: all "
		       "clients' requests over the row's wall time; cands: the candidates the "
		       "network scores per request\n");
	unlink(path);
	unlink(nodes_path);
	rmdir(dir);
	return rc;
}
