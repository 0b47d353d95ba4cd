// SPDX-License-Identifier: MIT
/*
 * quire sched serve's JSON, read and written with Jansson: a Kubernetes scheduler
 * extender's ExtenderArgs made the input of one decision, and its ExtenderFilterResult and
 * HostPriorityList made from the decision's candidates (docs/sched-serve.md). The Pod and
 * the nodes become the rows `quire sched place` reads (sched_place_rows_add checks them
 * as it checks its CSV), so the server and the command decide the same input alike.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sched_serve.h"

/* Where the pod's GPU share and the nodes' GPUs are: the names the Alibaba GPU trace's
 * scheduler simulator gives them (the trace's own columns), then the NVIDIA device
 * plugin's whole GPUs; and where quire reads what is free on a node. */
#define ANN_GPU_MILLI  "alibabacloud.com/gpu-milli"
#define ANN_GPU_COUNT  "alibabacloud.com/gpu-count"
#define ANN_GPU_MODEL  "alibabacloud.com/gpu-card-model"
#define RES_NVIDIA_GPU "nvidia.com/gpu"
#define LABEL_QOS      "koordinator.sh/qosClass"
#define ANN_CPU_FREE   "quire/cpu-free"
#define ANN_MEM_FREE   "quire/memory-free"
#define ANN_GPU_FREE   "quire/gpu-free"

#define FIELD_LEN      256

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* obj[key] when obj is an object, else NULL. */
static json_t *get(const json_t *obj, const char *key)
{
	return json_is_object(obj) ? json_object_get(obj, key) : NULL;
}

/* A top-level key of ExtenderArgs: its Go field name, matched as Go's decoder matches it
 * (exactly, else ignoring case: "pod" is "Pod"). */
static json_t *get_field(const json_t *obj, const char *name)
{
	json_t *v = get(obj, name);
	if (v)
		return v;
	const char *key;
	json_object_foreach((json_t *)obj, key, v)
	{
		if (strcasecmp(key, name) == 0)
			return v;
	}
	return NULL;
}

/*
 * A Kubernetes quantity ("500m", "1.5", "16Gi", "2e3", or a JSON integer) times mul / div,
 * rounded up or down (as requests and capacities round): exactly, in 128-bit integers.
 * 0; -1 when it is not a quantity; -2 when it is negative or too large.
 */
static int quantity(const json_t *v, int64_t mul, int64_t div, int up, int64_t *out)
{
	char num[32];
	const char *s;
	if (json_is_string(v)) {
		s = json_string_value(v);
		if (json_string_length(v) != strlen(s))
			return -1; /* a NUL inside */
	} else if (json_is_integer(v)) {
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		s = num;
	} else
		return -1;
	const char *p = s;
	if (*p == '-')
		return -2;
	if (*p == '+')
		p++;
	uint64_t m = 0;
	int ndig = 0, e10 = 0, e2 = 0, dot = 0, seen = 0;
	for (;; p++) {
		if (*p >= '0' && *p <= '9') {
			seen = 1;
			if (m == 0 && *p == '0') {
				e10 -= dot;
				continue;
			}
			if (ndig == 18)
				return -1; /* more digits than a quantity keeps */
			m = m * 10 + (uint64_t)(*p - '0');
			ndig++;
			e10 -= dot;
		} else if (*p == '.' && !dot)
			dot = 1;
		else
			break;
	}
	if (!seen)
		return -1;
	static const struct {
		const char *suffix;
		int e10, e2;
	} sfx[] = {{"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},
		   {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0},
		   {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
		   {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60}};
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		char *end;
		long x = strtol(p + 1, &end, 10);
		if (*end || x < -40 || x > 40)
			return -1;
		e10 += (int)x;
	} else {
		size_t k = 0;
		while (k < sizeof(sfx) / sizeof(sfx[0]) && strcmp(p, sfx[k].suffix) != 0)
			k++;
		if (k == sizeof(sfx) / sizeof(sfx[0]))
			return -1;
		e10 += sfx[k].e10;
		e2 = sfx[k].e2;
	}
	const unsigned __int128 limit = (unsigned __int128)1 << 120;
	unsigned __int128 n = (unsigned __int128)m * (uint64_t)mul, d = (uint64_t)div;
	if (n && e2 && n > (limit >> e2))
		return -2;
	n <<= e2;
	for (; e10 > 0; e10--) {
		if (n > limit / 10)
			return -2;
		n *= 10;
	}
	if (e10 < -27) { /* below 1e-9 of a unit: nothing, or the least there is */
		*out = up && n ? 1 : 0;
		return 0;
	}
	for (; e10 < 0; e10++)
		d *= 10;
	unsigned __int128 r = up ? (n + d - 1) / d : n / d;
	if (r > (unsigned __int128)(INT64_MAX / 4))
		return -2;
	*out = (int64_t)r;
	return 0;
}

/* A quantity as a decimal field; the error names where and what it is. */
static int quantity_field(const json_t *v, int64_t mul, int64_t div, int up, char *field,
			  const char *where, char *err, size_t errlen)
{
	int64_t x;
	int r = quantity(v, mul, div, up, &x);
	if (r == -1)
		return fail(err, errlen,
			    "%s: not a Kubernetes quantity (a string such as \"500m\", \"4\", "
			    "\"16Gi\")",
			    where);
	if (r == -2)
		return fail(err, errlen, "%s: negative or too large", where);
	snprintf(field, FIELD_LEN, "%lld", (long long)x);
	return 0;
}

/* A string value, or "" when absent; non-zero (err set) when it is not a string that fits. */
static int string_field(const json_t *v, char *field, const char *where, char *err, size_t errlen)
{
	field[0] = 0;
	if (!v)
		return 0;
	if (!json_is_string(v) || json_string_length(v) >= FIELD_LEN ||
	    json_string_length(v) != strlen(json_string_value(v)))
		return fail(err, errlen, "%s: a string of at most %d bytes expected", where,
			    FIELD_LEN - 1);
	memcpy(field, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* ---- The pod: the task row ------------------------------------------------------------------ */

/* The requests of one list of containers: summed (containers) or the largest (init
 * containers, which run one at a time before them). */
static int container_requests(const json_t *list, const char *what, int sum, int64_t req[3],
			      char *err, size_t errlen)
{
	static const char *const res[3] = {"cpu", "memory", RES_NVIDIA_GPU};
	static const int64_t mul[3] = {1000, 1, 1}, div[3] = {1, 1 << 20, 1};
	if (!list)
		return 0;
	if (!json_is_array(list))
		return fail(err, errlen, "Pod.spec.%s: an array expected", what);
	size_t i;
	json_t *c;
	json_array_foreach(list, i, c)
	{
		json_t *requests = get(get(c, "resources"), "requests");
		if (requests && !json_is_object(requests))
			return fail(err, errlen,
				    "Pod.spec.%s[%zu].resources.requests: an object "
				    "expected",
				    what, i);
		for (int k = 0; k < 3; k++) {
			json_t *v = get(requests, res[k]);
			int64_t x;
			if (!v)
				continue;
			int r = quantity(v, mul[k], div[k], 1, &x);
			if (r)
				return fail(err, errlen,
					    "Pod.spec.%s[%zu].resources.requests.%s: %s", what, i,
					    res[k],
					    r == -1 ? "not a Kubernetes quantity (\"500m\", \"4\", "
						      "\"16Gi\")"
						    : "negative or too large");
			if (sum) {
				if (req[k] > INT64_MAX / 4 - x)
					return fail(err, errlen, "Pod.spec.%s: requests too large",
						    what);
				req[k] += x;
			} else if (x > req[k])
				req[k] = x;
		}
	}
	return 0;
}

/* RFC 3339 in UTC, as the API server writes metadata.creationTimestamp. */
static int parse_time(const char *s, double *t)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		return -1;
	if (*end == '.') /* fractions of a second: not counted */
		while (isdigit((unsigned char)*++end))
			;
	if (strcmp(end, "Z") != 0)
		return -1;
	*t = (double)timegm(&tm);
	return 0;
}

static int pod_row(const json_t *pod, double now, struct sched_place_rows *rows, char *err,
		   size_t errlen)
{
	if (!json_is_object(pod))
		return fail(err, errlen, "Pod: an object expected (a v1.Pod)");
	const json_t *spec = get(pod, "spec"), *meta = get(pod, "metadata");
	if (!json_is_object(spec))
		return fail(err, errlen, "Pod.spec: an object expected");
	int64_t req[3] = {0, 0, 0}, init[3] = {0, 0, 0};
	if (container_requests(get(spec, "containers"), "containers", 1, req, err, errlen) ||
	    container_requests(get(spec, "initContainers"), "initContainers", 0, init, err, errlen))
		return -1;
	for (int k = 0; k < 3; k++)
		if (init[k] > req[k])
			req[k] = init[k];
	char f[8][FIELD_LEN];
	snprintf(f[0], FIELD_LEN, "task");
	snprintf(f[1], FIELD_LEN, "%lld", (long long)req[0]);
	snprintf(f[2], FIELD_LEN, "%lld", (long long)req[1]);
	/* The GPU share: the annotations of the trace's simulator, else whole GPUs. */
	const json_t *ann = get(meta, "annotations"), *labels = get(meta, "labels");
	const json_t *milli = get(ann, ANN_GPU_MILLI), *count = get(ann, ANN_GPU_COUNT);
	if (string_field(milli, f[4], "Pod.metadata.annotations." ANN_GPU_MILLI, err, errlen) ||
	    string_field(count, f[3], "Pod.metadata.annotations." ANN_GPU_COUNT, err, errlen) ||
	    string_field(get(ann, ANN_GPU_MODEL), f[5], "Pod.metadata.annotations." ANN_GPU_MODEL,
			 err, errlen))
		return -1;
	if (milli && !count)
		snprintf(f[3], FIELD_LEN, "1");
	else if (count && !milli) /* whole GPUs, or none */
		snprintf(f[4], FIELD_LEN, "%d", strcmp(f[3], "0") ? SCHED_MILLI : 0);
	else if (!milli && !count) {
		snprintf(f[3], FIELD_LEN, "%lld", (long long)req[2]);
		snprintf(f[4], FIELD_LEN, "%d", req[2] ? SCHED_MILLI : 0);
	}
	/* The QoS class: Koordinator's latency-sensitive and best-effort classes, else the
	 * API server's status.qosClass. */
	const char *kq = json_string_value(get(labels, LABEL_QOS));
	const char *sq = json_string_value(get(get(pod, "status"), "qosClass"));
	if (kq && (!strcmp(kq, "LS") || !strcmp(kq, "LSR") || !strcmp(kq, "LSE")))
		snprintf(f[6], FIELD_LEN, "LS");
	else if (kq && !strcmp(kq, "BE"))
		snprintf(f[6], FIELD_LEN, "BE");
	else if (sq && !strcmp(sq, "BestEffort"))
		snprintf(f[6], FIELD_LEN, "BE");
	else if (sq)
		snprintf(f[6], FIELD_LEN, "%.60s", sq);
	else
		snprintf(f[6], FIELD_LEN, "Burstable");
	/* How long it has waited: since its creation. */
	double waited = 0;
	const json_t *created = get(meta, "creationTimestamp");
	if (created) {
		double t;
		if (!json_is_string(created) || parse_time(json_string_value(created), &t))
			return fail(err, errlen,
				    "Pod.metadata.creationTimestamp: RFC 3339 in UTC expected "
				    "(\"2026-11-27T18:00:00Z\")");
		waited = now > t ? now - t : 0;
	}
	snprintf(f[7], FIELD_LEN, "%.3f", waited);
	const char *fields[8];
	for (int k = 0; k < 8; k++)
		fields[k] = f[k];
	return sched_place_rows_add(rows, fields, 8, "Pod", err, errlen);
}

/* ---- A node: the node row ------------------------------------------------------------------- */

/* An annotation of the node's own object, else of the node list's object of that name. */
static const json_t *node_annotation(const json_t *node, const json_t *listed, const char *key)
{
	const json_t *v = get(get(get(node, "metadata"), "annotations"), key);
	if (!v && listed)
		v = get(get(get(listed, "metadata"), "annotations"), key);
	return v;
}

static int node_row(const json_t *node, const json_t *listed, size_t index, const char *where,
		    struct sched_place_rows *rows, char *err, size_t errlen)
{
	char f[9][FIELD_LEN], w[320];
	const json_t *status = get(node, "status");
	const json_t *alloc = get(status, "allocatable");
	if (!alloc)
		alloc = get(status, "capacity");
	if (!json_is_object(alloc))
		return fail(err, errlen, "%s: no status.allocatable (nor status.capacity)", where);
	snprintf(f[0], FIELD_LEN, "node");
	snprintf(f[1], FIELD_LEN, "n%zu", index); /* the node's name is the caller's */
	snprintf(w, sizeof(w), "%.200s: status.allocatable.cpu", where);
	if (quantity_field(get(alloc, "cpu"), 1000, 1, 0, f[2], w, err, errlen))
		return -1;
	snprintf(w, sizeof(w), "%.200s: status.allocatable.memory", where);
	if (quantity_field(get(alloc, "memory"), 1, 1 << 20, 0, f[3], w, err, errlen))
		return -1;
	const json_t *gpus = get(alloc, ANN_GPU_COUNT);
	if (!gpus)
		gpus = get(alloc, RES_NVIDIA_GPU);
	snprintf(w, sizeof(w), "%.200s: status.allocatable GPUs", where);
	if (!gpus)
		snprintf(f[4], FIELD_LEN, "0");
	else if (quantity_field(gpus, 1, 1, 0, f[4], w, err, errlen))
		return -1;
	snprintf(w, sizeof(w), "%.200s: metadata.labels." ANN_GPU_MODEL, where);
	if (string_field(get(get(get(node, "metadata"), "labels"), ANN_GPU_MODEL), f[5], w, err,
			 errlen))
		return -1;
	/* What is free: quire's annotations (docs/sched-serve.md). */
	const json_t *cpu = node_annotation(node, listed, ANN_CPU_FREE);
	const json_t *mem = node_annotation(node, listed, ANN_MEM_FREE);
	const json_t *gfree = node_annotation(node, listed, ANN_GPU_FREE);
	if (!cpu || !mem || (!gfree && strcmp(f[4], "0") != 0))
		return fail(err, errlen,
			    "%s: what is free there is not known: annotate it with " ANN_CPU_FREE
			    ", " ANN_MEM_FREE " and " ANN_GPU_FREE
			    " (or give it in the --nodes list)",
			    where);
	snprintf(w, sizeof(w), "%.200s: " ANN_CPU_FREE, where);
	if (quantity_field(cpu, 1000, 1, 0, f[6], w, err, errlen))
		return -1;
	snprintf(w, sizeof(w), "%.200s: " ANN_MEM_FREE, where);
	if (quantity_field(mem, 1, 1 << 20, 0, f[7], w, err, errlen))
		return -1;
	snprintf(w, sizeof(w), "%.200s: " ANN_GPU_FREE, where);
	if (string_field(gfree, f[8], w, err, errlen))
		return -1;
	const char *fields[9];
	for (int k = 0; k < 9; k++)
		fields[k] = f[k];
	return sched_place_rows_add(rows, fields, 9, where, err, errlen);
}

/* A node object's metadata.name. */
static const char *node_name(const json_t *node)
{
	const json_t *v = get(get(node, "metadata"), "name");
	const char *s = json_string_value(v);
	return s && *s && json_string_length(v) == strlen(s) ? s : NULL;
}

/* ---- The node list given at start ------------------------------------------------------------ */

int serve_nodes_read(struct serve_nodes *n, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	n->byname = NULL;
	n->list = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!n->list)
		return fail(err, errlen, "%s:%d: %s", path, je.line, je.text);
	json_t *items = get(n->list, "items");
	if (!json_is_array(items)) {
		serve_nodes_free(n);
		return fail(err, errlen,
			    "%s: a v1.NodeList expected ({\"items\": [...]}, as "
			    "kubectl get nodes -o json writes)",
			    path);
	}
	n->byname = json_object();
	size_t i;
	json_t *node;
	json_array_foreach(items, i, node)
	{
		const char *name = node_name(node);
		if (!name) {
			serve_nodes_free(n);
			return fail(err, errlen, "%s: items[%zu]: no metadata.name", path, i);
		}
		if (json_object_get(n->byname, name)) {
			serve_nodes_free(n);
			return fail(err, errlen, "%s: items[%zu]: a second node '%.100s'", path, i,
				    name);
		}
		json_object_set(n->byname, name, node);
	}
	return 0;
}

void serve_nodes_free(struct serve_nodes *n)
{
	json_decref(n->byname);
	json_decref(n->list);
	n->byname = n->list = NULL;
}

/* ---- A request ------------------------------------------------------------------------------ */

void serve_args_free(struct serve_args *a)
{
	free(a->node);
	free(a->name);
	sched_place_free(&a->pl);
	json_decref(a->root);
	memset(a, 0, sizeof(*a));
}

int serve_args_read(struct serve_args *a, const char *body, size_t len,
		    const struct serve_nodes *nodes, const struct sched_models *m, double now,
		    char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	json_error_t je;
	a->root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!a->root)
		return fail(err, errlen, "JSON, line %d, column %d: %s", je.line, je.column,
			    je.text);
	if (!json_is_object(a->root)) {
		serve_args_free(a);
		return fail(err, errlen,
			    "an ExtenderArgs object expected ({\"Pod\": ..., "
			    "\"Nodes\": ... or \"NodeNames\": ...})");
	}
	json_t *pod = get_field(a->root, "Pod"), *list = get_field(a->root, "Nodes");
	json_t *names = get_field(a->root, "NodeNames"), *items = NULL;
	if (json_is_null(list))
		list = NULL;
	if (json_is_null(names))
		names = NULL;
	int r = 0;
	if (!pod || json_is_null(pod))
		r = fail(err, errlen, "no Pod");
	else if (!!list == !!names)
		r = fail(err, errlen, "%s",
			 list ? "both Nodes and NodeNames: one of them"
			      : "no Nodes and no NodeNames");
	else if (list && !json_is_array(items = get(list, "items")))
		r = fail(err, errlen, "Nodes: a v1.NodeList expected ({\"items\": [...]})");
	else if (names && !json_is_array(names))
		r = fail(err, errlen, "NodeNames: an array of strings expected");
	else if (names && !nodes->byname)
		r = fail(err, errlen,
			 "NodeNames given (nodeCacheCapable: true), but quire sched serve was "
			 "started without a node list (--nodes FILE)");
	if (r) {
		serve_args_free(a);
		return -1;
	}
	a->by_name = names != NULL;
	a->count = json_array_size(a->by_name ? names : items);
	if (a->count > SCHED_PLACE_MAX_NODES) {
		fail(err, errlen, "%zu nodes: one request takes at most %d", a->count,
		     SCHED_PLACE_MAX_NODES);
		serve_args_free(a);
		return -1;
	}
	a->node = calloc(a->count ? a->count : 1, sizeof(*a->node));
	a->name = calloc(a->count ? a->count : 1, sizeof(*a->name));
	struct sched_place_rows *rows = sched_place_rows_begin(&a->pl, m);
	if (!a->node || !a->name || !rows) {
		free(rows);
		fail(err, errlen, "out of memory");
		serve_args_free(a);
		return -1;
	}
	r = pod_row(pod, now, rows, err, errlen);
	char where[200];
	for (size_t i = 0; i < a->count && !r; i++) {
		const json_t *listed = NULL;
		if (a->by_name) {
			json_t *v = json_array_get(names, i);
			a->name[i] = json_string_value(v);
			if (!a->name[i] || json_string_length(v) != strlen(a->name[i])) {
				r = fail(err, errlen, "NodeNames[%zu]: a string expected", i);
				break;
			}
			listed = json_object_get(nodes->byname, a->name[i]);
			if (!listed) {
				r = fail(
				    err, errlen,
				    "NodeNames[%zu]: unknown node '%.100s' (not in the --nodes "
				    "list)",
				    i, a->name[i]);
				break;
			}
			a->node[i] = (json_t *)listed;
			snprintf(where, sizeof(where), "NodeNames[%zu] (%.100s)", i, a->name[i]);
		} else {
			a->node[i] = json_array_get(items, i);
			a->name[i] = node_name(a->node[i]);
			if (!a->name[i]) {
				r = fail(err, errlen, "Nodes.items[%zu]: no metadata.name", i);
				break;
			}
			if (nodes->byname)
				listed = json_object_get(nodes->byname, a->name[i]);
			snprintf(where, sizeof(where), "Nodes.items[%zu] (%.100s)", i, a->name[i]);
		}
		r = node_row(a->node[i], listed, i, where, rows, err, errlen);
	}
	char why[SCHED_ERR_LEN];
	if (sched_place_rows_end(rows, "ExtenderArgs", r != 0, why, sizeof(why)) && !r)
		r = fail(err, errlen, "%s", why);
	if (r) {
		serve_args_free(a);
		return -1;
	}
	return 0;
}

/* ---- Answers -------------------------------------------------------------------------------- */

/* Each node's best feasible score, and whether the pod fits there at all. */
static void node_best(const struct serve_args *a, const struct cli_decision *d, uint8_t *fits,
		      int32_t *best)
{
	memset(fits, 0, a->count);
	for (size_t i = 0; i < d->count; i++) {
		uint32_t n = d->cand[i].node;
		if (!d->feasible[i])
			continue;
		if (best && (!fits[n] || d->scores[i] > best[n]))
			best[n] = d->scores[i];
		fits[n] = 1;
	}
}

static char *dump(json_t *root)
{
	char *s = root ? json_dumps(root, JSON_COMPACT) : NULL;
	json_decref(root);
	return s;
}

char *serve_filter_answer(const struct serve_args *a, const struct cli_decision *d)
{
	uint8_t *fits = malloc(a->count ? a->count : 1);
	json_t *root = json_object(), *kept = json_array(), *failed = json_object();
	if (!fits || !root || !kept || !failed) {
		free(fits);
		json_decref(kept);
		json_decref(failed);
		json_decref(root);
		return NULL;
	}
	node_best(a, d, fits, NULL);
	for (size_t i = 0; i < a->count; i++) {
		if (fits[i]) {
			json_array_append(kept, a->by_name ? json_string(a->name[i]) : a->node[i]);
			if (a->by_name) /* the new string's one reference is the array's */
				json_decref(json_array_get(kept, json_array_size(kept) - 1));
			continue;
		}
		const struct sched_node *n = &a->pl.nodes[i];
		const struct sched_nstate *s = &a->pl.state[i];
		char why[320], gpus[96] = "";
		size_t used = 0;
		for (int g = 0; g < n->ngpu; g++)
			used += (size_t)snprintf(gpus + used, sizeof(gpus) - used, "%s%d",
						 g ? "|" : "", s->gpu_free[g]);
		if (n->ngpu)
			snprintf(why, sizeof(why),
				 "quire: the pod does not fit: free are %dm CPU, %lldMi memory "
				 "and %s milli-GPUs of %d %s",
				 s->cpu_free, (long long)s->mem_free, gpus, n->ngpu,
				 d->cl.models->name[n->model]);
		else
			snprintf(why, sizeof(why),
				 "quire: the pod does not fit: free are %dm CPU and %lldMi memory, "
				 "no GPU",
				 s->cpu_free, (long long)s->mem_free);
		json_object_set_new(failed, a->name[i], json_string(why));
	}
	free(fits);
	if (a->by_name) {
		json_object_set_new(root, "Nodes", json_null());
		json_object_set_new(root, "NodeNames", kept);
	} else {
		json_t *list = json_pack("{s:{},s:o}", "metadata", "items", kept);
		json_object_set_new(root, "Nodes", list);
		json_object_set_new(root, "NodeNames", json_null());
	}
	json_object_set_new(root, "FailedNodes", failed);
	json_object_set_new(root, "FailedAndUnresolvableNodes", json_object());
	json_object_set_new(root, "Error", json_string(""));
	return dump(root);
}

char *serve_prioritize_answer(const struct serve_args *a, const struct cli_decision *d)
{
	uint8_t *fits = malloc(a->count ? a->count : 1);
	int32_t *best = malloc((a->count ? a->count : 1) * sizeof(*best));
	json_t *list = json_array();
	if (!fits || !best || !list) {
		free(fits);
		free(best);
		json_decref(list);
		return NULL;
	}
	node_best(a, d, fits, best);
	/* The network's scores are int32 on their own scale: the range of those of the nodes
	 * where the pod fits becomes 1..10, the best node's 10 (one alone: 10). */
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < a->count; i++)
		if (fits[i]) {
			lo = best[i] < lo ? best[i] : lo;
			hi = best[i] > hi ? best[i] : hi;
		}
	for (size_t i = 0; i < a->count; i++) {
		int64_t score = 0;
		if (fits[i])
			score =
			    hi == lo
				? SERVE_MAX_PRIORITY
				: 1 + ((SERVE_MAX_PRIORITY - 1) * (best[i] - lo) + (hi - lo) / 2) /
					  (hi - lo);
		json_array_append_new(
		    list, json_pack("{s:s,s:I}", "Host", a->name[i], "Score", (json_int_t)score));
	}
	free(fits);
	free(best);
	return dump(list);
}

char *serve_error_answer(const char *msg)
{
	return dump(json_pack("{s:s}", "Error", msg));
}
