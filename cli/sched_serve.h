/* SPDX-License-Identifier: MIT */
/*
 * quire sched serve: the Kubernetes scheduler extender's JSON (docs/sched-serve.md). A
 * request's ExtenderArgs (the Pod, and the Nodes or the NodeNames of a node list given at
 * start) read with Jansson into the input of one decision (struct sched_place), and the
 * answers: ExtenderFilterResult and HostPriorityList. No HTTP and no libquire here, so the
 * fuzzer (tests/fuzz/fuzz_serve.c) runs all of it.
 */
#ifndef QUIRE_CLI_SCHED_SERVE_H
#define QUIRE_CLI_SCHED_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "sched/sched.h"
#include "sched_decide.h"

/* HostPriority scores: 0 where the pod does not fit, 1..10 (MaxExtenderPriority) by the
 * network's score where it does. */
#define SERVE_MAX_PRIORITY 10

/* The node list given at start (kubectl get nodes -o json), by name: what a request of
 * NodeNames (nodeCacheCapable) is about, and the free resources of a node object that
 * does not carry them. */
struct serve_nodes {
	json_t *list;   /* the file, owned */
	json_t *byname; /* name -> the node's object in list */
};
/* 0, or -1 with err naming the file ("FILE: ...", "FILE: items[3]: ..."). */
int serve_nodes_read(struct serve_nodes *n, const char *path, char *err, size_t errlen);
void serve_nodes_free(struct serve_nodes *n);

/* One request, read. */
struct serve_args {
	json_t *root;      /* the request's JSON, owned */
	int by_name;       /* NodeNames (nodeCacheCapable), not Nodes */
	size_t count;      /* nodes, in the request's order: pl's order */
	json_t **node;     /* each node's object: the request's, or the node list's */
	const char **name; /* each node's name (inside root or the node list) */
	struct sched_place pl;
};

/*
 * Reads an ExtenderArgs (len bytes of body): the Pod as the task, each node with its
 * allocatable resources and free ones (docs/sched-serve.md). now: the wall clock, in
 * seconds since 1970, the pod's wait is counted to. 0, or -1 with err saying what and
 * where ("Pod.spec.containers[0].resources.requests.cpu: ..."): the request is bad (HTTP
 * 400).
 */
int serve_args_read(struct serve_args *a, const char *body, size_t len,
		    const struct serve_nodes *nodes, const struct sched_models *m, double now,
		    char *err, size_t errlen);
void serve_args_free(struct serve_args *a);

/* Answers, as JSON text (malloc'd; NULL when out of memory). filter: the nodes where the
 * pod fits (objects or names, as asked), the others in FailedNodes with what is free
 * there. prioritize: d's scores (d->scores of every candidate) made HostPriority scores. */
char *serve_filter_answer(const struct serve_args *a, const struct cli_decision *d);
char *serve_prioritize_answer(const struct serve_args *a, const struct cli_decision *d);
/* {"Error": msg}: the body of a refusal (4xx), in the shape of ExtenderFilterResult. */
char *serve_error_answer(const char *msg);

#endif /* QUIRE_CLI_SCHED_SERVE_H */
