// SPDX-License-Identifier: MIT
/*
 * quire sched serve: a Kubernetes scheduler extender over HTTP (libmicrohttpd): POST
 * /filter keeps the nodes where the pod fits, POST /prioritize scores them with the int8
 * network through libquire on any backend, one context and model per server thread. The
 * JSON is sched_serve_json.c's; a decision's inputs are cli/sched_decide.c's, as `quire
 * sched place` builds them. SIGTERM or SIGINT stops it after every request under way has
 * had its whole answer. docs/sched-serve.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cli.h"
#include "quire.h"
#include "sched_decide.h"
#include "sched_mlp.h"
#include "sched_serve.h"

#define DEFAULT_PORT     8888
#define DEFAULT_MAX_BODY (16u << 20)
#define MAX_THREADS      64

static const char serve_help[] =
    "Usage: quire sched serve --model-file FILE [--backend URI] [--listen ADDR]\n"
    "                         [--port N] [--threads N] [--nodes FILE] [--max-body SIZE]\n"
    "                         [--speed M=F,...] [--verbose]\n"
    "A Kubernetes scheduler extender (docs/sched-serve.md): POST /filter answers an\n"
    "ExtenderArgs with an ExtenderFilterResult (the nodes where the pod fits), POST\n"
    "/prioritize with a HostPriorityList (each node's best placement scored by the\n"
    "model, 1..10; 0 where the pod does not fit); GET /healthz answers 'ok'. A bad\n"
    "request gets a 4xx and {\"Error\": \"...\"}. It prints the address it listens on,\n"
    "and stops on SIGTERM or SIGINT once every request under way is answered.\n\n"
    "  -m, --model-file FILE  model image (include/quire/mlp.h) with 17 inputs\n"
    "  -b, --backend URI      where the model runs (default cpu; sim, opencl, kdrv, ...)\n"
    "  -l, --listen ADDR      the address to listen on (default 127.0.0.1; 0.0.0.0 all)\n"
    "  -p, --port N           the port (default 8888; 0: any free one, printed)\n"
    "  -t, --threads N        server threads, each with its own context (default 2)\n"
    "  -n, --nodes FILE       the cluster's nodes, a v1.NodeList (kubectl get nodes -o\n"
    "                         json): what NodeNames (nodeCacheCapable) name, and the\n"
    "                         free resources of nodes that do not carry them\n"
    "      --max-body SIZE    the largest request body (default 16MiB)\n"
    "      --speed M=F[,...]  GPU model speed factors (override or add a model)\n"
    "  -v, --verbose          a line on stderr when a request starts and ends\n"
    "  -h, --help             this text\n";

/* One server thread's card: a context and the model loaded on it. */
struct scorer {
	struct quire_ctx *ctx;
	struct sched_mlp mlp;
};

struct server {
	struct sched_models models;
	struct serve_nodes nodes;
	size_t max_body;
	int verbose;
	struct scorer *scorer;
	int nscorers, *idle, nidle; /* the scorers no request holds */
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a scorer idle again, or a request answered */
	int in_flight;          /* requests begun and not yet answered to the end */
	int stopping;
	unsigned long long requests, answered;
};

/* One request: its body, gathered as it comes. */
struct request {
	unsigned long long id;
	char *body;
	size_t len, cap;
	int too_big;    /* 1: refused at its headers (Content-Length); 2: while it came */
	size_t dropped; /* bytes of a body too big read and dropped */
};

enum verb { VERB_NONE, VERB_FILTER, VERB_PRIORITIZE, VERB_HEALTH };

static enum verb verb_of(const char *url)
{
	if (strcmp(url, "/filter") == 0)
		return VERB_FILTER;
	if (strcmp(url, "/prioritize") == 0)
		return VERB_PRIORITIZE;
	if (strcmp(url, "/healthz") == 0)
		return VERB_HEALTH;
	return VERB_NONE;
}

/* Queues text (malloc'd, taken) with status; NULL text: out of memory, a 500. */
static enum MHD_Result answer(struct server *sv, struct MHD_Connection *conn, unsigned status,
			      char *text, const char *type, const char *timing)
{
	static char oom[] = "{\"Error\":\"quire sched serve: out of memory\"}";
	struct MHD_Response *r =
	    text ? MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE)
		 : MHD_create_response_from_buffer(strlen(oom), oom, MHD_RESPMEM_PERSISTENT);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	if (!text)
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (timing)
		MHD_add_response_header(r, "Server-Timing", timing);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "POST");
	pthread_mutex_lock(&sv->lock);
	int stopping = sv->stopping;
	pthread_mutex_unlock(&sv->lock);
	if (stopping) /* no next request on this connection: the server is going */
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	enum MHD_Result ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result refuse(struct server *sv, struct MHD_Connection *conn, unsigned status,
			      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static enum MHD_Result refuse(struct server *sv, struct MHD_Connection *conn, unsigned status,
			      const char *fmt, ...)
{
	char msg[SCHED_ERR_LEN + 128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return answer(sv, conn, status, serve_error_answer(msg), "application/json", NULL);
}

/* The network's scores of d's candidates, on an idle scorer. 0, or -1 with err. */
static int score(struct server *sv, struct cli_decision *d, char *err, size_t errlen)
{
	pthread_mutex_lock(&sv->lock);
	while (!sv->nidle) /* as many scorers as threads: only a moment's wait */
		pthread_cond_wait(&sv->changed, &sv->lock);
	int k = sv->idle[--sv->nidle];
	pthread_mutex_unlock(&sv->lock);
	int r = d->count ? sched_mlp_score(&sv->scorer[k].mlp, d->q, d->feasible, d->count,
					   d->scores, err, errlen)
			 : 0;
	pthread_mutex_lock(&sv->lock);
	sv->idle[sv->nidle++] = k;
	pthread_cond_broadcast(&sv->changed);
	pthread_mutex_unlock(&sv->lock);
	return r;
}

/* A whole request: read, decided, answered. */
static enum MHD_Result decide(struct server *sv, struct MHD_Connection *conn, enum verb v,
			      const struct request *rq)
{
	char err[SCHED_ERR_LEN + 64];
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	struct serve_args a;
	if (serve_args_read(&a, rq->body ? rq->body : "", rq->len, &sv->nodes, &sv->models,
			    (double)time(NULL), err, sizeof(err)))
		return refuse(sv, conn, MHD_HTTP_BAD_REQUEST, "quire sched serve: %s", err);
	struct cli_decision d;
	if (cli_decision_build(&d, &a.pl, &sv->models, v == VERB_PRIORITIZE)) {
		serve_args_free(&a);
		return answer(sv, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "", NULL);
	}
	char *text = NULL;
	unsigned status = MHD_HTTP_OK;
	if (v == VERB_FILTER)
		text = serve_filter_answer(&a, &d);
	else if (score(sv, &d, err, sizeof(err)) == 0)
		text = serve_prioritize_answer(&a, &d);
	else {
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		char msg[sizeof(err) + 64];
		snprintf(msg, sizeof(msg), "quire sched serve: scoring failed: %s", err);
		text = serve_error_answer(msg);
	}
	cli_decision_free(&d);
	serve_args_free(&a);
	/* This thread's CPU time for the request, read to the answer written (with the
	 * scoring on cpu; a card's own time is not in it): the standard Server-Timing header,
	 * which quire bench sched-serve reports beside the latency. */
	char timing[64];
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	snprintf(timing, sizeof(timing), "cpu;dur=%.3f",
		 (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	return answer(sv, conn, status, text, "application/json", timing);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	(void)version;
	struct server *sv = cls;
	struct request *rq = *con_cls;
	enum verb v = verb_of(url);
	if (!rq) { /* the headers: the request begins */
		if (!(rq = calloc(1, sizeof(*rq))))
			return MHD_NO;
		*con_cls = rq;
		pthread_mutex_lock(&sv->lock);
		sv->in_flight++;
		rq->id = ++sv->requests;
		pthread_mutex_unlock(&sv->lock);
		if (sv->verbose)
			fprintf(stderr, "quire sched serve: request %llu: %s %s begins\n", rq->id,
				method, url);
		const char *len = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							      MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (len && strtoull(len, NULL, 10) > sv->max_body) {
			rq->too_big = 1; /* said at once: the body is not read */
			return refuse(
			    sv, conn, MHD_HTTP_CONTENT_TOO_LARGE,
			    "quire sched serve: a body of %s bytes: at most %zu (--max-body)", len,
			    sv->max_body);
		}
		return MHD_YES;
	}
	if (*upload_size) {
		size_t n = *upload_size;
		*upload_size = 0;
		if (!rq->too_big && n > sv->max_body - rq->len) {
			/* A body of no stated length (chunked) gone past the limit: the answer
			 * can only follow its end. It is read and dropped, up to a bound. */
			rq->too_big = 2;
			free(rq->body);
			rq->body = NULL;
		}
		if (rq->too_big) {
			rq->dropped += n;
			if (rq->dropped / 4 > sv->max_body) {
				fprintf(stderr,
					"quire sched serve: request %llu: a body of more than %zu "
					"bytes and no end: connection closed\n",
					rq->id, 4 * sv->max_body);
				return MHD_NO;
			}
			return MHD_YES;
		}
		if (rq->len + n + 1 > rq->cap) {
			size_t cap = (rq->len + n + 1) * 2;
			cap = cap > sv->max_body + 1 ? sv->max_body + 1 : cap;
			char *b = realloc(rq->body, cap);
			if (!b)
				return MHD_NO;
			rq->body = b;
			rq->cap = cap;
		}
		memcpy(rq->body + rq->len, upload, n);
		rq->len += n;
		return MHD_YES;
	}
	if (rq->too_big == 1)
		return MHD_YES; /* answered already */
	if (rq->too_big)
		return refuse(sv, conn, MHD_HTTP_CONTENT_TOO_LARGE,
			      "quire sched serve: a body of more than %zu bytes (--max-body)",
			      sv->max_body);
	if (v == VERB_NONE)
		return refuse(sv, conn, MHD_HTTP_NOT_FOUND,
			      "quire sched serve: no '%.100s' here: POST /filter, POST "
			      "/prioritize, GET /healthz",
			      url);
	if (v == VERB_HEALTH)
		return answer(sv, conn, MHD_HTTP_OK, strdup("ok\n"), "text/plain", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
		return refuse(sv, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			      "quire sched serve: %.20s %s: POST expected", method, url);
	return decide(sv, conn, v, rq);
}

/* The request's answer is sent (or its connection gone): it is no longer in flight. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode why)
{
	(void)conn;
	struct server *sv = cls;
	struct request *rq = *con_cls;
	if (!rq)
		return;
	if (sv->verbose)
		fprintf(stderr, "quire sched serve: request %llu: %s\n", rq->id,
			why == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "answered"
								   : "ended unanswered");
	free(rq->body);
	free(rq);
	*con_cls = NULL;
	pthread_mutex_lock(&sv->lock);
	sv->in_flight--;
	sv->answered += why == MHD_REQUEST_TERMINATED_COMPLETED_OK;
	pthread_cond_broadcast(&sv->changed);
	pthread_mutex_unlock(&sv->lock);
}

/* MHD's own complaints (a port taken, a socket error) go where ours go. */
static void on_mhd_error(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("quire: sched serve: libmicrohttpd: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static void scorers_close(struct server *sv)
{
	for (int i = 0; i < sv->nscorers; i++) {
		sched_mlp_close(&sv->scorer[i].mlp);
		quire_close(sv->scorer[i].ctx);
	}
	free(sv->scorer);
	free(sv->idle);
}

/* n contexts on uri, each with the model. 0, or the exit status (printed). */
static int scorers_open(struct server *sv, int n, const char *uri, const char *model)
{
	sv->scorer = calloc((size_t)n, sizeof(*sv->scorer));
	sv->idle = calloc((size_t)n, sizeof(int));
	if (!sv->scorer || !sv->idle)
		return cli_fail("sched serve: out of memory");
	char err[SCHED_ERR_LEN];
	for (int i = 0; i < n; i++) {
		if (cli_open("sched serve", uri, &sv->scorer[i].ctx))
			return CLI_EXIT_FAIL;
		sv->nscorers = i + 1;
		if (sched_mlp_load(&sv->scorer[i].mlp, sv->scorer[i].ctx, model, err, sizeof(err)))
			return cli_fail("sched serve: %s", err);
		sv->idle[sv->nidle++] = i;
	}
	return 0;
}

int cli_sched_serve(int argc, char **argv)
{
	static const struct option opts[] = {{"model-file", required_argument, 0, 'm'},
					     {"backend", required_argument, 0, 'b'},
					     {"listen", required_argument, 0, 'l'},
					     {"port", required_argument, 0, 'p'},
					     {"threads", required_argument, 0, 't'},
					     {"nodes", required_argument, 0, 'n'},
					     {"max-body", required_argument, 0, 'B'},
					     {"speed", required_argument, 0, 'S'},
					     {"verbose", no_argument, 0, 'v'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *model = NULL, *uri = "cpu", *listen_addr = "127.0.0.1", *nodes_path = NULL;
	const char *speed = NULL;
	long port = DEFAULT_PORT, threads = 2;
	static struct server sv; /* the MHD threads' shared state */
	memset(&sv, 0, sizeof(sv));
	sv.max_body = DEFAULT_MAX_BODY;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:b:l:p:t:n:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			model = optarg;
			break;
		case 'b':
			uri = optarg;
			break;
		case 'l':
			listen_addr = optarg;
			break;
		case 'p':
			if (cli_parse_long(optarg, 0, 65535, &port))
				return cli_usage_error("sched serve",
						       "--port: 0 to 65535, not '%s'", optarg);
			break;
		case 't':
			if (cli_parse_long(optarg, 1, MAX_THREADS, &threads))
				return cli_usage_error("sched serve",
						       "--threads: 1 to %d, not '%s'", MAX_THREADS,
						       optarg);
			break;
		case 'n':
			nodes_path = optarg;
			break;
		case 'B': {
			uint64_t b = cli_parse_size(optarg);
			if (!b || b > (1u << 30))
				return cli_usage_error(
				    "sched serve", "--max-body: 1 byte to 1GiB, not '%s'", optarg);
			sv.max_body = (size_t)b;
			break;
		}
		case 'S':
			speed = optarg;
			break;
		case 'v':
			sv.verbose = 1;
			break;
		case 'h':
			fputs(serve_help, stdout);
			return 0;
		default:
			return cli_bad_option("sched serve", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("sched serve", "unexpected argument '%s'", argv[optind]);
	if (!model)
		return cli_usage_error("sched serve", "--model-file FILE is required");
	union {
		struct sockaddr sa;
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} addr;
	memset(&addr, 0, sizeof(addr));
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	if (inet_pton(AF_INET, listen_addr, &addr.in4.sin_addr) == 1) {
		addr.in4.sin_family = AF_INET;
		addr.in4.sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, listen_addr, &addr.in6.sin6_addr) == 1) {
		addr.in6.sin6_family = AF_INET6;
		addr.in6.sin6_port = htons((uint16_t)port);
		flags |= MHD_USE_IPv6;
	} else
		return cli_usage_error("sched serve", "--listen: an IPv4 or IPv6 address, not '%s'",
				       listen_addr);
	char err[SCHED_ERR_LEN];
	sched_models_default(&sv.models);
	if (speed && sched_models_parse(&sv.models, speed, err, sizeof(err)))
		return cli_usage_error("sched serve", "--speed: %s", err);
	if (nodes_path && serve_nodes_read(&sv.nodes, nodes_path, err, sizeof(err)))
		return cli_fail("sched serve: --nodes %s", err);
	pthread_mutex_init(&sv.lock, NULL);
	pthread_cond_init(&sv.changed, NULL);
	int rc = scorers_open(&sv, (int)threads, uri, model);
	if (rc) {
		scorers_close(&sv);
		serve_nodes_free(&sv.nodes);
		return rc;
	}
	/* The signals that stop the server are this thread's to take (sigwait): the server's
	 * threads, started below, inherit the mask. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* The logger first (MHD logs while it reads the rest); a pool only of 2 threads or
	 * more (1: the polling thread alone serves). */
	struct MHD_OptionItem options[] = {
	    {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_error, NULL},
	    {MHD_OPTION_SOCK_ADDR, 0, &addr.sa},
	    {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, &sv},
	    {MHD_OPTION_CONNECTION_TIMEOUT, 120, NULL},
	    {threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, threads, NULL},
	    {MHD_OPTION_END, 0, NULL}};
	struct MHD_Daemon *d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, &sv,
						MHD_OPTION_ARRAY, options, MHD_OPTION_END);
	if (!d) {
		rc = cli_fail("sched serve: cannot listen on %s port %ld", listen_addr, port);
		goto out;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("quire sched serve: listening on http://%s%s%s:%u (backend %s, %ld thread%s, "
	       "model %s)\n",
	       flags & MHD_USE_IPv6 ? "[" : "", listen_addr, flags & MHD_USE_IPv6 ? "]" : "",
	       info ? info->port : (unsigned)port, uri, threads, threads == 1 ? "" : "s", model);
	fflush(stdout);
	int sig = 0;
	sigwait(&stop, &sig);
	/* Stop: no new connection; every request begun is answered to its end first. */
	MHD_socket ls = MHD_quiesce_daemon(d);
	if (ls != MHD_INVALID_SOCKET)
		close(ls);
	pthread_mutex_lock(&sv.lock);
	sv.stopping = 1;
	fprintf(stderr, "quire sched serve: %s: stopping, %d request%s in flight\n",
		sig == SIGINT ? "SIGINT" : "SIGTERM", sv.in_flight, sv.in_flight == 1 ? "" : "s");
	while (sv.in_flight)
		pthread_cond_wait(&sv.changed, &sv.lock);
	pthread_mutex_unlock(&sv.lock);
	MHD_stop_daemon(d);
	fprintf(stderr, "quire sched serve: stopped; %llu requests, %llu answered\n", sv.requests,
		sv.answered);
out:
	scorers_close(&sv);
	serve_nodes_free(&sv.nodes);
	pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
	return rc;
}
