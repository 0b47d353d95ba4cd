// SPDX-License-Identifier: MIT
/*
 * The trace's CSV files: pods and nodes with the columns of Alibaba's
 * cluster-trace-gpu-v2023, found by name in the header (any order, extra columns
 * ignored). Every malformed row is an error naming FILE:LINE; nothing is guessed.
 * And one decision's input (quire sched place): the same rows as CSV, or as JSON read by
 * Jansson, whose errors name the object ("stdin: nodes[3]").
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sched/internal.h"
#include "sched/sched.h"

#define MAX_LINE 4096
#define MAX_COLS 32

static const char *const qos_names[SCHED_QOS_COUNT] = {"LS", "Guaranteed", "Burstable", "BE"};

const char *sched_qos_name(int qos)
{
	return qos >= 0 && qos < SCHED_QOS_COUNT ? qos_names[qos] : "?";
}

/*
 * Speed factors relative to a V100 (1.0), for training throughput: rough ratios of the
 * models' published dense fp16/fp32 rates. G2 and G3 are models the trace does not name:
 * taken as 1.0. docs/sched.md says why these and how to change them (--speed).
 */
void sched_models_default(struct sched_models *m)
{
	static const struct {
		const char *name;
		double speed;
	} d[] = {{"P100", 0.55}, {"T4", 0.45}, {"V100M16", 1.0}, {"V100M32", 1.0},
		 {"A10", 1.2},   {"G1", 1.0},  {"G2", 1.0},      {"G3", 1.0}};
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		snprintf(m->name[i], sizeof(m->name[i]), "%s", d[i].name);
		m->speed[i] = d[i].speed;
	}
	m->count = (int)(sizeof(d) / sizeof(d[0]));
}

int sched_model_find(const struct sched_models *m, const char *name)
{
	for (int i = 0; i < m->count; i++)
		if (strcmp(m->name[i], name) == 0)
			return i;
	return -1;
}

int sched_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int sched_models_parse(struct sched_models *m, const char *list, char *err, size_t errlen)
{
	char buf[512];
	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return sched_fail(err, errlen, "speed list too long");
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok || eq - tok >= 16)
			return sched_fail(err, errlen, "bad speed '%s' (MODEL=FACTOR expected)",
					  tok);
		*eq = 0;
		char *end;
		errno = 0;
		double v = strtod(eq + 1, &end);
		if (errno || end == eq + 1 || *end || !(v > 0.0 && v <= 100.0))
			return sched_fail(err, errlen,
					  "bad speed factor '%s' for %s (0 < F <= 100)", eq + 1,
					  tok);
		int i = sched_model_find(m, tok);
		if (i < 0) {
			if (m->count >= SCHED_MAX_MODELS)
				return sched_fail(err, errlen, "more than %d GPU models",
						  SCHED_MAX_MODELS);
			i = m->count++;
			snprintf(m->name[i], sizeof(m->name[i]), "%s", tok);
		}
		m->speed[i] = v;
	}
	return 0;
}

/* A CSV file read line by line, its header mapped to the columns asked for. */
struct csv {
	FILE *f;
	const char *path;
	int line;
	char where[128]; /* what errors name: "path:line", or a JSON object's path */
	char buf[MAX_LINE + 2];
	char *field[MAX_COLS];
	int nfields;
};

/* Next row split in place. 1: a row; 0: end; -1: error (err set). */
static int csv_row(struct csv *c, char *err, size_t errlen)
{
	for (;;) {
		if (!fgets(c->buf, sizeof(c->buf), c->f)) {
			if (ferror(c->f))
				return sched_fail(err, errlen, "%s: read error", c->path);
			return 0;
		}
		c->line++;
		snprintf(c->where, sizeof(c->where), "%s:%d", c->path, c->line);
		size_t len = strlen(c->buf);
		if (len && c->buf[len - 1] == '\n')
			c->buf[--len] = 0;
		else if (!feof(c->f))
			return sched_fail(err, errlen, "%s: line longer than %d bytes", c->where,
					  MAX_LINE);
		if (len && c->buf[len - 1] == '\r')
			c->buf[--len] = 0;
		if (len == 0)
			continue; /* blank lines (a trailing one) carry nothing */
		if (memchr(c->buf, 0, len) || strchr(c->buf, '"'))
			return sched_fail(err, errlen,
					  "%s: NUL bytes or quotes: not a trace CSV row", c->where);
		c->nfields = 0;
		char *p = c->buf;
		for (;;) {
			if (c->nfields == MAX_COLS)
				return sched_fail(err, errlen, "%s: more than %d columns", c->where,
						  MAX_COLS);
			c->field[c->nfields++] = p;
			char *comma = strchr(p, ',');
			if (!comma)
				break;
			*comma = 0;
			p = comma + 1;
		}
		return 1;
	}
}

/* Opens path and finds each of names[0..n) in the header: col[i]. */
static int csv_open(struct csv *c, const char *path, const char *const *names, int n, int *col,
		    char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	if (!(c->f = fopen(path, "r")))
		return sched_fail(err, errlen, "%s: %s", path, strerror(errno));
	int r = csv_row(c, err, errlen);
	if (r <= 0) {
		if (r == 0)
			sched_fail(err, errlen, "%s: empty file (a header row expected)", path);
		fclose(c->f);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		col[i] = -1;
		for (int j = 0; j < c->nfields; j++)
			if (strcmp(c->field[j], names[i]) == 0)
				col[i] = j;
		if (col[i] < 0) {
			fclose(c->f);
			return sched_fail(err, errlen, "%s:1: no column '%s' in the header", path,
					  names[i]);
		}
	}
	return 0;
}

/* A whole decimal integer in [lo, hi]. */
static int parse_int(const struct csv *c, const char *s, const char *what, int64_t lo, int64_t hi,
		     int64_t *v, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (*s == 0 || errno || *end)
		return sched_fail(err, errlen, "%s: %s '%s' is not an integer", c->where, what, s);
	if (x < lo || x > hi)
		return sched_fail(err, errlen, "%s: %s %lld outside %lld..%lld", c->where, what, x,
				  (long long)lo, (long long)hi);
	*v = x;
	return 0;
}

/* A column that may be empty or "nan": -1 then. */
static int parse_opt_time(const struct csv *c, const char *s, const char *what, int64_t *v,
			  char *err, size_t errlen)
{
	if (*s == 0 || strcmp(s, "nan") == 0) {
		*v = -1;
		return 0;
	}
	return parse_int(c, s, what, 0, INT64_C(1) << 50, v, err, errlen);
}

/* Grows *arr (of *cap elements of size sz) to hold one more. */
static int grow(void **arr, size_t *cap, size_t count, size_t sz)
{
	if (count < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 1024;
	void *p = realloc(*arr, ncap * sz);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int copy_name(const struct csv *c, char *dst, const char *s, char *err, size_t errlen)
{
	if (*s == 0 || strlen(s) >= SCHED_NAME_LEN)
		return sched_fail(err, errlen, "%s: name '%.60s' empty or longer than %d", c->where,
				  s, SCHED_NAME_LEN - 1);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

enum {
	P_NAME,
	P_CPU,
	P_MEM,
	P_NGPU,
	P_MILLI,
	P_SPEC,
	P_QOS,
	P_PHASE,
	P_CREATE,
	P_DELETE,
	P_SCHED,
	P_COLS
};
static const char *const pod_cols[P_COLS] = {
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

/* A pod's requests (cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec and, unless q is
 * NULL, qos) from their fields, checked. */
static int pod_request(const struct csv *c, const char *cpu, const char *mem, const char *ngpu,
		       const char *milli, const char *spec, const char *q,
		       const struct sched_models *m, struct sched_pod *p, char *err, size_t errlen)
{
	int64_t v;
	if (parse_int(c, cpu, "cpu_milli", 0, 100000000, &v, err, errlen))
		return -1;
	p->cpu = (int32_t)v;
	if (parse_int(c, mem, "memory_mib", 0, INT64_C(1) << 40, &p->mem, err, errlen))
		return -1;
	if (parse_int(c, ngpu, "num_gpu", 0, SCHED_MAX_GPUS, &v, err, errlen))
		return -1;
	p->ngpu = (int32_t)v;
	if (parse_int(c, milli, "gpu_milli", 0, SCHED_MILLI, &v, err, errlen))
		return -1;
	p->milli = (int32_t)v;
	if (p->ngpu == 0 && p->milli != 0)
		return sched_fail(err, errlen, "%s: gpu_milli %d with num_gpu 0", c->where,
				  p->milli);
	if (p->ngpu > 0 && p->milli == 0)
		return sched_fail(err, errlen, "%s: num_gpu %d with gpu_milli 0 (1..1000 expected)",
				  c->where, p->ngpu);
	/* gpu_spec: empty or "nan" for any model, else models joined by '|'. */
	if (*spec && strcmp(spec, "nan") != 0) {
		char buf[256];
		if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf))
			return sched_fail(err, errlen, "%s: gpu_spec too long", c->where);
		char *save = NULL;
		for (char *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
			int i = sched_model_find(m, t);
			if (i < 0)
				return sched_fail(
				    err, errlen,
				    "%s: unknown GPU model '%s' in gpu_spec (give its "
				    "speed with --speed %s=F)",
				    c->where, t, t);
			p->spec |= 1u << i;
		}
		if (!p->spec)
			return sched_fail(err, errlen, "%s: empty gpu_spec '%s'", c->where, spec);
	}
	p->qos = -1;
	if (!q)
		return 0;
	for (int i = 0; i < SCHED_QOS_COUNT; i++)
		if (strcmp(q, qos_names[i]) == 0)
			p->qos = i;
	if (p->qos < 0)
		return sched_fail(err, errlen,
				  "%s: unknown qos '%s' (LS, Guaranteed, Burstable, BE)", c->where,
				  q);
	return 0;
}

static int pod_row(struct csv *c, const int *col, const struct sched_models *m, struct sched_pod *p,
		   char *err, size_t errlen)
{
	const char *const *f = (const char *const *)c->field;
	memset(p, 0, sizeof(*p));
	p->line = c->line;
	if (copy_name(c, p->name, f[col[P_NAME]], err, errlen))
		return -1;
	if (pod_request(c, f[col[P_CPU]], f[col[P_MEM]], f[col[P_NGPU]], f[col[P_MILLI]],
			f[col[P_SPEC]], f[col[P_QOS]], m, p, err, errlen))
		return -1;
	if (parse_int(c, f[col[P_CREATE]], "creation_time", 0, INT64_C(1) << 50, &p->creation, err,
		      errlen) ||
	    parse_opt_time(c, f[col[P_DELETE]], "deletion_time", &p->deletion, err, errlen) ||
	    parse_opt_time(c, f[col[P_SCHED]], "scheduled_time", &p->scheduled, err, errlen))
		return -1;
	/* A Pending pod was never scheduled, whatever the column holds (0 in some rows). */
	if (strcmp(f[col[P_PHASE]], "Pending") == 0)
		p->scheduled = -1;
	if (p->scheduled >= 0) {
		if (p->deletion < 0)
			return sched_fail(err, errlen, "%s: scheduled pod without deletion_time",
					  c->where);
		if (p->deletion < p->scheduled)
			return sched_fail(
			    err, errlen, "%s: deletion_time %lld before scheduled_time %lld",
			    c->where, (long long)p->deletion, (long long)p->scheduled);
		if (p->scheduled < p->creation)
			return sched_fail(
			    err, errlen, "%s: scheduled_time %lld before creation_time %lld",
			    c->where, (long long)p->scheduled, (long long)p->creation);
	}
	return 0;
}

typedef int (*row_fn)(struct csv *c, const int *col, const struct sched_models *m, void *out,
		      char *err, size_t errlen);

/* Reads every row of path into a growing array of elements of size sz. */
static int read_rows(const char *path, const char *const *names, int ncols, row_fn row,
		     const struct sched_models *m, size_t sz, const char *what, void **out,
		     size_t *count, char *err, size_t errlen)
{
	struct csv c;
	int col[MAX_COLS];
	*out = NULL;
	*count = 0;
	if (csv_open(&c, path, names, ncols, col, err, errlen))
		return -1;
	char *arr = NULL;
	size_t n = 0, cap = 0;
	int r;
	while ((r = csv_row(&c, err, errlen)) == 1) {
		r = 0;
		if (grow((void **)&arr, &cap, n, sz)) {
			r = sched_fail(err, errlen, "%s: out of memory", path);
			break;
		}
		for (int i = 0; i < ncols && !r; i++)
			if (col[i] >= c.nfields)
				r = sched_fail(err, errlen, "%s: %d columns, the header has more",
					       c.where, c.nfields);
		if (r || (r = row(&c, col, m, arr + n * sz, err, errlen)))
			break;
		n++;
	}
	fclose(c.f);
	if (r == 0 && n == 0)
		r = sched_fail(err, errlen, "%s: no %s", path, what);
	if (r) {
		free(arr);
		return -1;
	}
	*out = arr;
	*count = n;
	return 0;
}

static int pod_row_v(struct csv *c, const int *col, const struct sched_models *m, void *out,
		     char *err, size_t errlen)
{
	return pod_row(c, col, m, out, err, errlen);
}

int sched_read_pods(const char *path, const struct sched_models *m, struct sched_pod **pods,
		    size_t *count, char *err, size_t errlen)
{
	return read_rows(path, pod_cols, P_COLS, pod_row_v, m, sizeof(**pods), "pods",
			 (void **)pods, count, err, errlen);
}

enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, N_COLS };
static const char *const node_cols[N_COLS] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

static int node_row(struct csv *c, const int *col, const struct sched_models *m,
		    struct sched_node *nd, char *err, size_t errlen)
{
	const char *const *f = (const char *const *)c->field;
	int64_t v;
	memset(nd, 0, sizeof(*nd));
	nd->line = c->line;
	if (copy_name(c, nd->name, f[col[N_SN]], err, errlen))
		return -1;
	if (parse_int(c, f[col[N_CPU]], "cpu_milli", 1, 100000000, &v, err, errlen))
		return -1;
	nd->cpu = (int32_t)v;
	if (parse_int(c, f[col[N_MEM]], "memory_mib", 1, INT64_C(1) << 40, &nd->mem, err, errlen))
		return -1;
	if (parse_int(c, f[col[N_GPU]], "gpu", 0, SCHED_MAX_GPUS, &v, err, errlen))
		return -1;
	nd->ngpu = (int32_t)v;
	const char *model = f[col[N_MODEL]];
	nd->model = -1;
	if (nd->ngpu > 0) {
		if (*model == 0 || strcmp(model, "nan") == 0)
			return sched_fail(err, errlen, "%s: %d GPUs but no model", c->where,
					  nd->ngpu);
		if ((nd->model = sched_model_find(m, model)) < 0)
			return sched_fail(err, errlen,
					  "%s: unknown GPU model '%s' (give its speed with --speed "
					  "%s=F)",
					  c->where, model, model);
	}
	return 0;
}

static int node_row_v(struct csv *c, const int *col, const struct sched_models *m, void *out,
		      char *err, size_t errlen)
{
	return node_row(c, col, m, out, err, errlen);
}

int sched_read_nodes(const char *path, const struct sched_models *m, struct sched_node **nodes,
		     size_t *count, char *err, size_t errlen)
{
	return read_rows(path, node_cols, N_COLS, node_row_v, m, sizeof(**nodes), "nodes",
			 (void **)nodes, count, err, errlen);
}

/* ---- Parts of the trace ------------------------------------------------------------------- */

int sched_part_parse(const char *name)
{
	static const char *const names[] = {"all", "train", "select", "eval"};
	for (int i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

/* Interleaved, not by time: each part spans the whole trace (its quiet weeks, its busy
 * month, its long pods) and the parts are disjoint. */
int sched_part_of(size_t row)
{
	size_t r = row % 10;
	return r < 6 ? SCHED_PART_TRAIN : r < 8 ? SCHED_PART_SELECT : SCHED_PART_EVAL;
}

size_t sched_pods_part(struct sched_pod *pods, size_t count, int part)
{
	if (part == SCHED_PART_ALL)
		return count;
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		if (sched_part_of(i) == part)
			pods[n++] = pods[i];
	return n;
}

/* ---- One decision's input (quire sched place, docs/sched-api.md) ------------------------- */

void sched_place_free(struct sched_place *pl)
{
	free(pl->nodes);
	free(pl->state);
	free(pl->classes);
	memset(pl, 0, sizeof(*pl));
}

static int want_fields(const struct csv *c, int n, const char *what, char *err, size_t errlen)
{
	if (c->nfields != n)
		return sched_fail(err, errlen, "%s: %s row: %d fields, %d expected (%s)", c->where,
				  c->field[0], c->nfields, n, what);
	return 0;
}

static const char task_fields[] =
    "task,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,waited_s";
static const char node_fields[] =
    "node,sn,cpu_milli,memory_mib,gpu,model,cpu_free,memory_free,gpu_free";
static const char class_fields[] = "class,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,count";

static int place_node(struct csv *c, const struct sched_models *m, struct sched_node *nd,
		      struct sched_nstate *st, char *err, size_t errlen)
{
	static const int col[N_COLS] = {1, 2, 3, 4, 5}; /* sn, cpu_milli, memory_mib, gpu, model */
	if (want_fields(c, 9, node_fields, err, errlen) || node_row(c, col, m, nd, err, errlen))
		return -1;
	int64_t v;
	memset(st, 0, sizeof(*st));
	if (parse_int(c, c->field[6], "cpu_free", 0, nd->cpu, &v, err, errlen) ||
	    parse_int(c, c->field[7], "memory_free", 0, nd->mem, &st->mem_free, err, errlen))
		return -1;
	st->cpu_free = (int32_t)v;
	/* gpu_free: the free milli-GPUs of each GPU, joined by '|'; empty for no GPU. */
	char buf[128];
	const char *g = c->field[8];
	if (snprintf(buf, sizeof(buf), "%s", strcmp(g, "nan") == 0 ? "" : g) >= (int)sizeof(buf))
		return sched_fail(err, errlen, "%s: gpu_free too long", c->where);
	int k = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save), k++) {
		if (k == nd->ngpu)
			return sched_fail(err, errlen,
					  "%s: gpu_free '%s': more values than the node's %d "
					  "GPUs",
					  c->where, g, nd->ngpu);
		if (parse_int(c, t, "gpu_free", 0, SCHED_MILLI, &v, err, errlen))
			return -1;
		st->gpu_free[k] = (int32_t)v;
	}
	if (k != nd->ngpu)
		return sched_fail(err, errlen,
				  "%s: gpu_free '%s': %d values for the node's %d GPUs (free "
				  "milli-GPUs of each, joined by '|')",
				  c->where, g, k, nd->ngpu);
	return 0;
}

/* The reading of one decision's input: what has been read so far. */
struct place_in {
	struct sched_place *pl;
	const struct sched_models *m;
	size_t cap, scap, ccap;
	int task_line;
};

/* One row (c->field[0] its kind, task, node or class; c->line its line) into pl. */
static int place_row(struct csv *c, struct place_in *in, char *err, size_t errlen)
{
	struct sched_place *pl = in->pl;
	const char *kind = c->field[0], *name = c->path;
	if (strcmp(kind, "task") == 0) {
		if (in->task_line)
			return sched_fail(err, errlen,
					  "%s: a second task row (the first at line %d): one "
					  "decision, one task",
					  c->where, in->task_line);
		if (want_fields(c, 8, task_fields, err, errlen) ||
		    pod_request(c, c->field[1], c->field[2], c->field[3], c->field[4], c->field[5],
				c->field[6], in->m, &pl->pod, err, errlen))
			return -1;
		char *end;
		errno = 0;
		pl->waited = strtod(c->field[7], &end);
		if (!*c->field[7] || *end || errno || !(pl->waited >= 0) || pl->waited > 1e12)
			return sched_fail(err, errlen,
					  "%s: waited_s '%s' is not a number of seconds from 0",
					  c->where, c->field[7]);
		in->task_line = c->line;
		pl->pod.line = c->line;
		snprintf(pl->pod.name, sizeof(pl->pod.name), "task");
		return 0;
	}
	if (strcmp(kind, "node") == 0) {
		if (pl->count == SCHED_PLACE_MAX_NODES)
			return sched_fail(err, errlen, "%s: more than %d nodes", c->where,
					  SCHED_PLACE_MAX_NODES);
		if (grow((void **)&pl->nodes, &in->cap, pl->count, sizeof(*pl->nodes)) ||
		    grow((void **)&pl->state, &in->scap, pl->count, sizeof(*pl->state)))
			return sched_fail(err, errlen, "%s: out of memory", name);
		if (place_node(c, in->m, &pl->nodes[pl->count], &pl->state[pl->count], err, errlen))
			return -1;
		pl->count++;
		return 0;
	}
	if (strcmp(kind, "class") == 0) {
		struct sched_pod p = {0};
		int64_t n;
		if (want_fields(c, 7, class_fields, err, errlen) ||
		    pod_request(c, c->field[1], c->field[2], c->field[3], c->field[4], c->field[5],
				NULL, in->m, &p, err, errlen) ||
		    parse_int(c, c->field[6], "count", 1, INT64_C(1) << 40, &n, err, errlen))
			return -1;
		if (grow((void **)&pl->classes, &in->ccap, pl->nclasses, sizeof(*pl->classes)))
			return sched_fail(err, errlen, "%s: out of memory", name);
		pl->classes[pl->nclasses++] =
		    (struct sched_class){p.cpu, p.mem, p.ngpu, p.milli, p.spec, n};
		return 0;
	}
	return sched_fail(err, errlen, "%s: row kind '%.40s': task, node or class expected",
			  c->where, kind);
}

/* ---- The same input as JSON (Jansson) ------------------------------------------------------ */

#define JSON_MAX_BYTES (4 << 20)
#define JSON_FIELD     256

/* A scalar as a CSV field would hold it: a string as it is (no control character and no
 * comma, as a CSV field can hold neither), an integer in decimal, a real in the shortest form
 * that reads back the same and still reads as a real ("600.0", not "600"), so that where the
 * CSV wants an integer a JSON real is refused as the CSV's 6e2 is. */
static int json_field_text(const json_t *v, char *out, size_t cap)
{
	if (json_is_string(v)) {
		const char *t = json_string_value(v);
		size_t n = json_string_length(v);
		if (n >= cap)
			return -1;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)t[i] < 0x20 || t[i] == ',')
				return -1;
		memcpy(out, t, n + 1);
		return 0;
	}
	if (json_is_integer(v))
		return snprintf(out, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < (int)cap
			   ? 0
			   : -1;
	if (!json_is_real(v))
		return -1;
	double x = json_real_value(v);
	if (x == floor(x) && fabs(x) < 1e15)
		return snprintf(out, cap, "%.1f", x) < (int)cap ? 0 : -1; /* 6e2: "600.0" */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(out, cap, "%.*g", prec, x);
		if (strtod(out, NULL) == x)
			break;
	}
	if (!strpbrk(out, ".eEn") && strlen(out) + 2 < cap)
		strcat(out, ".0");
	return 0;
}

/* One object of a kind: its keys (the CSV row's fields, in order; those in `optional` may
 * be left out, as empty) into c->field, then the row read as a CSV row. Scalars, or for
 * gpu_free and gpu_spec arrays of scalars, joined by '|'. Errors name the object by its
 * place in the input (c->where: "stdin: nodes[3]"). */
static int place_json_row(struct csv *c, const json_t *obj, const char *kind, const char *fields,
			  const char *optional, struct place_in *in, char (*store)[JSON_FIELD],
			  char *err, size_t errlen)
{
	const char *names[MAX_COLS];
	char list[128];
	snprintf(list, sizeof(list), "%s", fields);
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(list, ",", &save); t && n < MAX_COLS;
	     t = strtok_r(NULL, ",", &save))
		names[n++] = t;
	if (!json_is_object(obj))
		return sched_fail(err, errlen, "%s: an object expected (%s)", c->where, fields);
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)obj, key, v)
	{
		int k = 1;
		while (k < n && strcmp(names[k], key) != 0)
			k++;
		if (k == n)
			return sched_fail(err, errlen, "%s: unknown key '%.40s' in a %s (%s)",
					  c->where, key, kind, fields);
	}
	for (int k = 1; k < n; k++) {
		c->field[k] = store[k];
		store[k][0] = 0;
		if (!(v = json_object_get(obj, names[k]))) {
			char opt[64];
			snprintf(opt, sizeof(opt), ",%s,", names[k]);
			if (!strstr(optional, opt))
				return sched_fail(err, errlen, "%s: no '%s' (%s)", c->where,
						  names[k], fields);
			continue;
		}
		if (!json_is_array(v)) {
			if (json_field_text(v, store[k], JSON_FIELD))
				goto bad;
			continue;
		}
		size_t used = 0, i;
		json_t *e;
		json_array_foreach(v, i, e)
		{
			if (i) {
				if (used + 2 >= JSON_FIELD)
					goto bad;
				store[k][used++] = '|';
			}
			if (json_is_array(e) ||
			    json_field_text(e, store[k] + used, JSON_FIELD - used))
				goto bad;
			used += strlen(store[k] + used);
		}
		continue;
	bad:
		return sched_fail(
		    err, errlen,
		    "%s: '%s' is not a string or number of at most %d characters without "
		    "a comma%s",
		    c->where, names[k], JSON_FIELD - 1,
		    strcmp(names[k], "gpu_free") && strcmp(names[k], "gpu_spec")
			? ""
			: ", or an array of them");
	}
	snprintf(store[0], JSON_FIELD, "%s", kind);
	c->field[0] = store[0];
	c->nfields = n;
	return place_row(c, in, err, errlen);
}

/* {"task": {...}, "nodes": [{...}, ...], "classes": [{...}, ...]}: the rows of the CSV. */
static int place_json(struct csv *c, const char *text, size_t len, struct place_in *in, char *err,
		      size_t errlen)
{
	json_error_t je;
	/* Duplicate keys are refused: a second "cpu_free" is a mistake, not an override. */
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return sched_fail(err, errlen, "%s:%d: JSON: %s", c->path, c->line - 1 + je.line,
				  je.text);
	char(*store)[JSON_FIELD] = malloc(MAX_COLS * sizeof(*store));
	int r = 0;
	if (!store)
		r = sched_fail(err, errlen, "%s: out of memory", c->path);
	else if (!json_is_object(root))
		r = sched_fail(err, errlen, "%s: JSON: an object expected (task, nodes, classes)",
			       c->path);
	const char *key;
	json_t *v;
	if (r == 0)
		json_object_foreach(root, key, v)
		{
			if (strcmp(key, "task") && strcmp(key, "nodes") && strcmp(key, "classes")) {
				r = sched_fail(err, errlen,
					       "%s: unknown key '%.40s' (task, nodes, classes)",
					       c->path, key);
				break;
			}
		}
	if (r == 0 && (v = json_object_get(root, "task"))) {
		snprintf(c->where, sizeof(c->where), "%s: task", c->path);
		r = place_json_row(c, v, "task", task_fields, ",gpu_spec,", in, store, err, errlen);
	}
	static const struct {
		const char *key, *kind, *fields, *optional;
	} lists[] = {{"nodes", "node", node_fields, ",model,gpu_free,"},
		     {"classes", "class", class_fields, ",gpu_spec,"}};
	for (int l = 0; l < 2 && r == 0; l++) {
		if (!(v = json_object_get(root, lists[l].key)))
			continue;
		if (!json_is_array(v)) {
			r = sched_fail(err, errlen, "%s: %s: an array expected", c->path,
				       lists[l].key);
			break;
		}
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
		{
			snprintf(c->where, sizeof(c->where), "%s: %s[%zu]", c->path, lists[l].key,
				 i);
			if ((r = place_json_row(c, e, lists[l].kind, lists[l].fields,
						lists[l].optional, in, store, err, errlen)))
				break;
		}
	}
	free(store);
	json_decref(root);
	return r;
}

int sched_read_place(FILE *f, const char *name, const struct sched_models *m,
		     struct sched_place *pl, char *err, size_t errlen)
{
	memset(pl, 0, sizeof(*pl));
	struct csv *c = calloc(1, sizeof(*c));
	if (!c)
		return sched_fail(err, errlen, "%s: out of memory", name);
	c->f = f;
	c->path = name;
	struct place_in in = {pl, m, 0, 0, 0, 0};
	int r, ch;
	/* JSON when the first character that is not white space is '{'; CSV otherwise. */
	while ((ch = getc(f)) != EOF && strchr(" \t\r\n", ch))
		if (ch == '\n')
			c->line++;
	if (ch == '{') {
		char *text = malloc(JSON_MAX_BYTES + 1);
		size_t len = 0;
		if (!text) {
			free(c);
			return sched_fail(err, errlen, "%s: out of memory", name);
		}
		text[len++] = '{';
		len += fread(text + len, 1, JSON_MAX_BYTES + 1 - len, f);
		if (ferror(f))
			r = sched_fail(err, errlen, "%s: read error", name);
		else if (len > JSON_MAX_BYTES)
			r = sched_fail(err, errlen, "%s: more than %d bytes of JSON", name,
				       JSON_MAX_BYTES);
		else {
			c->line++; /* the line of the '{' */
			r = place_json(c, text, len, &in, err, errlen);
		}
		free(text);
	} else {
		if (ch != EOF)
			ungetc(ch, f);
		while ((r = csv_row(c, err, errlen)) > 0) {
			if (*c->field[0] == '#')
				continue; /* a comment */
			if (place_row(c, &in, err, errlen) < 0) {
				r = -1;
				break;
			}
		}
	}
	free(c);
	if (r == 0 && !in.task_line)
		r = sched_fail(err, errlen, "%s: no task (%s)", name, task_fields);
	if (r == 0 && !pl->count)
		r = sched_fail(err, errlen, "%s: no node (%s)", name, node_fields);
	if (r < 0) {
		sched_place_free(pl);
		return -1;
	}
	return 0;
}
