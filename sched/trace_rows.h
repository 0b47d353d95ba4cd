/* SPDX-License-Identifier: MIT */
/*
 * The trace's CSV rows, read by trace.c for the trace's files and by place_input.c for one
 * decision's input (quire sched place), so both check a pod's requests and a node the same
 * way and name the same FILE:LINE. Not part of sched's interface (sched.h).
 */
#ifndef QUIRE_SCHED_TRACE_ROWS_H
#define QUIRE_SCHED_TRACE_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sched/sched.h"

#define MAX_LINE 4096
#define MAX_COLS 32

/* A CSV file read line by line, its header mapped to the columns asked for. */
struct sched_csv {
	FILE *f;
	const char *path;
	int line;
	char where[128]; /* what errors name: "path:line", or a JSON object's path */
	char buf[MAX_LINE + 2];
	char *field[MAX_COLS];
	int nfields;
};

/* Next row split in place. 1: a row; 0: end; -1: error (err set). */
int sched_csv_row(struct sched_csv *c, char *err, size_t errlen);

/* A whole decimal integer in [lo, hi]; an error names c->where and what. */
int sched_csv_int(const struct sched_csv *c, const char *s, const char *what, int64_t lo,
		  int64_t hi, int64_t *v, char *err, size_t errlen);

/* Grows *arr (of *cap elements of size sz) to hold one more. */
int sched_grow(void **arr, size_t *cap, size_t count, size_t sz);

/* A pod's requests (cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec and, unless q is
 * NULL, qos) from their fields, checked. */
int sched_pod_request(const struct sched_csv *c, const char *cpu, const char *mem, const char *ngpu,
		      const char *milli, const char *spec, const char *q,
		      const struct sched_models *m, struct sched_pod *p, char *err, size_t errlen);

/* A node's columns (sn, cpu_milli, memory_mib, gpu, model) at c's fields col[NODE_*]. */
enum { NODE_SN, NODE_CPU, NODE_MEM, NODE_GPU, NODE_MODEL, NODE_COLS };
int sched_node_row(struct sched_csv *c, const int *col, const struct sched_models *m,
		   struct sched_node *nd, char *err, size_t errlen);

#endif /* QUIRE_SCHED_TRACE_ROWS_H */
