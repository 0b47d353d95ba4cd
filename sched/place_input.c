// SPDX-License-Identifier: MIT
/*
 * One decision's input (quire sched place, docs/sched-api.md): the task, the nodes with
 * their free resources and the classes of the tasks waiting, as CSV rows of the trace's
 * row readers (trace_rows.h), or the same rows as JSON read by Jansson, whose errors name
 * the object ("stdin: nodes[3]").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sched/internal.h"
#include "sched/sched.h"
#include "sched/trace_rows.h"

void sched_place_free(struct sched_place *pl)
{
	free(pl->nodes);
	free(pl->state);
	free(pl->classes);
	memset(pl, 0, sizeof(*pl));
}

static int want_fields(const struct sched_csv *c, int n, const char *what, char *err, size_t errlen)
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

static int place_node(struct sched_csv *c, const struct sched_models *m, struct sched_node *nd,
		      struct sched_nstate *st, char *err, size_t errlen)
{
	static const int col[NODE_COLS] = {1, 2, 3, 4,
					   5}; /* sn, cpu_milli, memory_mib, gpu, model */
	if (want_fields(c, 9, node_fields, err, errlen) ||
	    sched_node_row(c, col, m, nd, err, errlen))
		return -1;
	int64_t v;
	memset(st, 0, sizeof(*st));
	if (sched_csv_int(c, c->field[6], "cpu_free", 0, nd->cpu, &v, err, errlen) ||
	    sched_csv_int(c, c->field[7], "memory_free", 0, nd->mem, &st->mem_free, err, errlen))
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
		if (sched_csv_int(c, t, "gpu_free", 0, SCHED_MILLI, &v, err, errlen))
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
static int place_row(struct sched_csv *c, struct place_in *in, char *err, size_t errlen)
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
		    sched_pod_request(c, c->field[1], c->field[2], c->field[3], c->field[4],
				      c->field[5], c->field[6], in->m, &pl->pod, err, errlen))
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
		if (sched_grow((void **)&pl->nodes, &in->cap, pl->count, sizeof(*pl->nodes)) ||
		    sched_grow((void **)&pl->state, &in->scap, pl->count, sizeof(*pl->state)))
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
		    sched_pod_request(c, c->field[1], c->field[2], c->field[3], c->field[4],
				      c->field[5], NULL, in->m, &p, err, errlen) ||
		    sched_csv_int(c, c->field[6], "count", 1, INT64_C(1) << 40, &n, err, errlen))
			return -1;
		if (sched_grow((void **)&pl->classes, &in->ccap, pl->nclasses,
			       sizeof(*pl->classes)))
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
static int place_json_row(struct sched_csv *c, const json_t *obj, const char *kind,
			  const char *fields, const char *optional, struct place_in *in,
			  char (*store)[JSON_FIELD], char *err, size_t errlen)
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
static int place_json(struct sched_csv *c, const char *text, size_t len, struct place_in *in,
		      char *err, size_t errlen)
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

/* ---- The same rows given as fields (quire sched serve) ------------------------------------- */

struct sched_place_rows {
	struct place_in in;
	struct sched_csv c;
};

struct sched_place_rows *sched_place_rows_begin(struct sched_place *pl,
						const struct sched_models *m)
{
	memset(pl, 0, sizeof(*pl));
	struct sched_place_rows *r = calloc(1, sizeof(*r));
	if (r)
		r->in = (struct place_in){pl, m, 0, 0, 0, 0};
	return r;
}

int sched_place_rows_add(struct sched_place_rows *r, const char *const *fields, int nfields,
			 const char *where, char *err, size_t errlen)
{
	if (nfields < 1 || nfields > MAX_COLS)
		return sched_fail(err, errlen, "%s: %d fields", where, nfields);
	for (int i = 0; i < nfields; i++)
		r->c.field[i] = (char *)fields[i];
	r->c.nfields = nfields;
	r->c.path = where;
	r->c.line++; /* a task's row number marks that there is one */
	snprintf(r->c.where, sizeof(r->c.where), "%s", where);
	return place_row(&r->c, &r->in, err, errlen);
}

int sched_place_rows_end(struct sched_place_rows *r, const char *name, int failed, char *err,
			 size_t errlen)
{
	struct sched_place *pl = r->in.pl;
	int rc = failed ? -1 : 0;
	if (rc == 0 && !r->in.task_line)
		rc = sched_fail(err, errlen, "%s: no task", name);
	if (rc == 0 && !pl->count)
		rc = sched_fail(err, errlen, "%s: no node", name);
	free(r);
	if (rc)
		sched_place_free(pl);
	return rc;
}

int sched_read_place(FILE *f, const char *name, const struct sched_models *m,
		     struct sched_place *pl, char *err, size_t errlen)
{
	memset(pl, 0, sizeof(*pl));
	struct sched_csv *c = calloc(1, sizeof(*c));
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
		while ((r = sched_csv_row(c, err, errlen)) > 0) {
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
