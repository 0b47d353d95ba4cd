// SPDX-License-Identifier: MIT
/*
 * The trace's CSV files: pods and nodes with the columns of Alibaba's
 * cluster-trace-gpu-v2023, found by name in the header (any order, extra columns
 * ignored). Every malformed row is an error naming FILE:LINE; nothing is guessed.
 * The row readers (trace_rows.h) also read one decision's input (place_input.c). And the
 * GPU models' speed factors and the trace's parts.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/internal.h"
#include "sched/sched.h"
#include "sched/trace_rows.h"

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

/* Next row split in place. 1: a row; 0: end; -1: error (err set). */
int sched_csv_row(struct sched_csv *c, char *err, size_t errlen)
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
static int csv_open(struct sched_csv *c, const char *path, const char *const *names, int n,
		    int *col, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	if (!(c->f = fopen(path, "r")))
		return sched_fail(err, errlen, "%s: %s", path, strerror(errno));
	int r = sched_csv_row(c, err, errlen);
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
int sched_csv_int(const struct sched_csv *c, const char *s, const char *what, int64_t lo,
		  int64_t hi, int64_t *v, char *err, size_t errlen)
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
static int parse_opt_time(const struct sched_csv *c, const char *s, const char *what, int64_t *v,
			  char *err, size_t errlen)
{
	if (*s == 0 || strcmp(s, "nan") == 0) {
		*v = -1;
		return 0;
	}
	return sched_csv_int(c, s, what, 0, INT64_C(1) << 50, v, err, errlen);
}

/* Grows *arr (of *cap elements of size sz) to hold one more. */
int sched_grow(void **arr, size_t *cap, size_t count, size_t sz)
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

static int copy_name(const struct sched_csv *c, char *dst, const char *s, char *err, size_t errlen)
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
int sched_pod_request(const struct sched_csv *c, const char *cpu, const char *mem, const char *ngpu,
		      const char *milli, const char *spec, const char *q,
		      const struct sched_models *m, struct sched_pod *p, char *err, size_t errlen)
{
	int64_t v;
	if (sched_csv_int(c, cpu, "cpu_milli", 0, 100000000, &v, err, errlen))
		return -1;
	p->cpu = (int32_t)v;
	if (sched_csv_int(c, mem, "memory_mib", 0, INT64_C(1) << 40, &p->mem, err, errlen))
		return -1;
	if (sched_csv_int(c, ngpu, "num_gpu", 0, SCHED_MAX_GPUS, &v, err, errlen))
		return -1;
	p->ngpu = (int32_t)v;
	if (sched_csv_int(c, milli, "gpu_milli", 0, SCHED_MILLI, &v, err, errlen))
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

static int pod_row(struct sched_csv *c, const int *col, const struct sched_models *m,
		   struct sched_pod *p, char *err, size_t errlen)
{
	const char *const *f = (const char *const *)c->field;
	memset(p, 0, sizeof(*p));
	p->line = c->line;
	if (copy_name(c, p->name, f[col[P_NAME]], err, errlen))
		return -1;
	if (sched_pod_request(c, f[col[P_CPU]], f[col[P_MEM]], f[col[P_NGPU]], f[col[P_MILLI]],
			      f[col[P_SPEC]], f[col[P_QOS]], m, p, err, errlen))
		return -1;
	if (sched_csv_int(c, f[col[P_CREATE]], "creation_time", 0, INT64_C(1) << 50, &p->creation,
			  err, errlen) ||
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

typedef int (*row_fn)(struct sched_csv *c, const int *col, const struct sched_models *m, void *out,
		      char *err, size_t errlen);

/* Reads every row of path into a growing array of elements of size sz. */
static int read_rows(const char *path, const char *const *names, int ncols, row_fn row,
		     const struct sched_models *m, size_t sz, const char *what, void **out,
		     size_t *count, char *err, size_t errlen)
{
	struct sched_csv c;
	int col[MAX_COLS];
	*out = NULL;
	*count = 0;
	if (csv_open(&c, path, names, ncols, col, err, errlen))
		return -1;
	char *arr = NULL;
	size_t n = 0, cap = 0;
	int r;
	while ((r = sched_csv_row(&c, err, errlen)) == 1) {
		r = 0;
		if (sched_grow((void **)&arr, &cap, n, sz)) {
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

static int pod_row_v(struct sched_csv *c, const int *col, const struct sched_models *m, void *out,
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

static const char *const node_cols[NODE_COLS] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

int sched_node_row(struct sched_csv *c, const int *col, const struct sched_models *m,
		   struct sched_node *nd, char *err, size_t errlen)
{
	const char *const *f = (const char *const *)c->field;
	int64_t v;
	memset(nd, 0, sizeof(*nd));
	nd->line = c->line;
	if (copy_name(c, nd->name, f[col[NODE_SN]], err, errlen))
		return -1;
	if (sched_csv_int(c, f[col[NODE_CPU]], "cpu_milli", 1, 100000000, &v, err, errlen))
		return -1;
	nd->cpu = (int32_t)v;
	if (sched_csv_int(c, f[col[NODE_MEM]], "memory_mib", 1, INT64_C(1) << 40, &nd->mem, err,
			  errlen))
		return -1;
	if (sched_csv_int(c, f[col[NODE_GPU]], "gpu", 0, SCHED_MAX_GPUS, &v, err, errlen))
		return -1;
	nd->ngpu = (int32_t)v;
	const char *model = f[col[NODE_MODEL]];
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

static int node_row_v(struct sched_csv *c, const int *col, const struct sched_models *m, void *out,
		      char *err, size_t errlen)
{
	return sched_node_row(c, col, m, out, err, errlen);
}

int sched_read_nodes(const char *path, const struct sched_models *m, struct sched_node **nodes,
		     size_t *count, char *err, size_t errlen)
{
	return read_rows(path, node_cols, NODE_COLS, node_row_v, m, sizeof(**nodes), "nodes",
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

/* By time: the rows in creation order, the earliest 60% train, the next 20% select, the
 * latest 20% eval; a part's cut depends on the row count only, never on a later row's
 * content. */
int sched_part_of(size_t row, size_t count)
{
	return row < count * 6 / 10   ? SCHED_PART_TRAIN
	       : row < count * 8 / 10 ? SCHED_PART_SELECT
				      : SCHED_PART_EVAL;
}

static int by_creation_then_line(const void *a, const void *b)
{
	const struct sched_pod *x = a, *y = b;
	if (x->creation != y->creation)
		return x->creation < y->creation ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

size_t sched_pods_part(struct sched_pod *pods, size_t count, int part)
{
	if (part == SCHED_PART_ALL)
		return count;
	qsort(pods, count, sizeof(*pods), by_creation_then_line);
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		if (sched_part_of(i, count) == part)
			pods[n++] = pods[i];
	return n;
}
