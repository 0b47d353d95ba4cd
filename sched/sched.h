/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's replay simulator: the Alibaba GPU trace (v2023, "openb") read from
 * CSV, a sampled cluster, a FIFO queue with skipping, placement policies behind one
 * function, and the metrics of docs/sched.md. Library code; `quire sched replay` is
 * its command line (host/cli/sched.c).
 */
#ifndef QUIRE_SCHED_H
#define QUIRE_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCHED_MAX_GPUS   8  /* GPUs of one node (the trace's largest nodes have 8) */
#define SCHED_MAX_MODELS 16 /* GPU models a run knows (gpu_spec is a bit mask of them) */
#define SCHED_MILLI      1000
#define SCHED_NAME_LEN   48
#define SCHED_ERR_LEN    256

enum sched_qos {
	SCHED_QOS_LS,
	SCHED_QOS_GUARANTEED,
	SCHED_QOS_BURSTABLE,
	SCHED_QOS_BE,
	SCHED_QOS_COUNT
};
const char *sched_qos_name(int qos);

/* GPU models and their speed factors (docs/sched.md): a duration in the trace is taken
 * as measured on a GPU of speed 1.0; on a model of speed s it lasts duration / s. */
struct sched_models {
	int count;
	char name[SCHED_MAX_MODELS][16];
	double speed[SCHED_MAX_MODELS];
};
/* The documented defaults. */
void sched_models_default(struct sched_models *m);
/* The model's index, or -1. */
int sched_model_find(const struct sched_models *m, const char *name);
/* "MODEL=F[,MODEL=F...]": overrides or adds speeds. Non-zero and err set on a bad list. */
int sched_models_parse(struct sched_models *m, const char *list, char *err, size_t errlen);

struct sched_pod {
	char name[SCHED_NAME_LEN];
	int32_t cpu;      /* milli-CPUs */
	int64_t mem;      /* MiB */
	int32_t ngpu;     /* GPUs, each with at least `milli` free */
	int32_t milli;    /* per GPU: 1..1000 (1000: whole GPUs), 0 when ngpu == 0 */
	uint32_t spec;    /* allowed GPU models, bit per sched_models index; 0: any */
	int qos;          /* enum sched_qos */
	int64_t creation; /* seconds from the trace start */
	int64_t deletion;
	int64_t scheduled; /* -1: never scheduled in the trace */
	int line;          /* in its file */
};

struct sched_node {
	char name[SCHED_NAME_LEN];
	int32_t cpu;
	int64_t mem;
	int32_t ngpu;
	int model; /* sched_models index; -1 when ngpu == 0 */
	int line;
};

/* Read a CSV with the trace's columns (any order, header row). Returns 0, or non-zero
 * with err as "FILE:LINE: what" (or "FILE: what"). Unknown GPU models are errors. */
int sched_read_pods(const char *path, const struct sched_models *m, struct sched_pod **pods,
		    size_t *count, char *err, size_t errlen);
int sched_read_nodes(const char *path, const struct sched_models *m, struct sched_node **nodes,
		     size_t *count, char *err, size_t errlen);

/* ---- Cluster state and fragmentation (FGD, ATC'23) ---------------------------------------- */

/* A class of the target workload: pods with the same requests, weighted by count. */
struct sched_class {
	int32_t cpu;
	int64_t mem;
	int32_t ngpu, milli;
	uint32_t spec;
	int64_t count;
};

struct sched_nstate {
	int32_t cpu_free;
	int64_t mem_free;
	int32_t gpu_free[SCHED_MAX_GPUS]; /* milli-GPUs free on each GPU */
};

/* Can pod requests (cpu, mem, ngpu, milli, spec) run on node n in state s? */
int sched_fits(const struct sched_node *n, const struct sched_nstate *s, int32_t cpu, int64_t mem,
	       int32_t ngpu, int32_t milli, uint32_t spec);
/* F_n(m) of the paper, in milli-GPUs: the free GPU share of node n that class m cannot use. */
int64_t sched_frag_class(const struct sched_node *n, const struct sched_nstate *s,
			 const struct sched_class *m);
/* Sum over the classes of count_m * F_n(m): F_n(M) times the total count. */
int64_t sched_frag_node(const struct sched_node *n, const struct sched_nstate *s,
			const struct sched_class *classes, size_t nclasses);

/* ---- Policies ----------------------------------------------------------------------------- */

/* One placement of the pod being decided: a node and the GPUs it takes there. */
struct sched_cand {
	uint32_t node;     /* index in the cluster */
	uint32_t gpu_mask; /* GPUs taken (bit g: GPU g) */
	int64_t dfrag;     /* F_n(M) after minus before (count-weighted), if asked for */
};

/* Per-candidate features (floats in about [0, 1]), docs/sched.md lists them. */
enum sched_feature {
	SCHED_F_CPU_FREE,
	SCHED_F_MEM_FREE,
	SCHED_F_GPU_FREE,
	SCHED_F_NODE_GPUS,
	SCHED_F_SPEED,
	SCHED_F_REQ_CPU,
	SCHED_F_REQ_MEM,
	SCHED_F_REQ_GPU,
	SCHED_F_CPU_AFTER,
	SCHED_F_MEM_AFTER,
	SCHED_F_GPU_AFTER,
	SCHED_F_TAKEN_FREE_AFTER,
	SCHED_F_DFRAG,
	SCHED_F_QOS_LS,
	SCHED_F_QOS_BE,
	SCHED_F_WAIT,
	SCHED_F_CLUSTER_ALLOC,
	SCHED_FEATURES
};

struct sched_cluster {
	const struct sched_node *nodes;
	struct sched_nstate *state;
	size_t count;
	const struct sched_models *models;
	int64_t gpu_milli_total, gpu_milli_alloc;
	int32_t cpu_max;
	int64_t mem_max;
	int32_t gpu_max;
};

/* What a policy decides on: the pod, every candidate (infeasible nodes as one masked
 * candidate each), the mask, and (when the policy asks) a features row per candidate. */
struct sched_decision {
	const struct sched_cluster *cl;
	const struct sched_pod *pod;
	double now, waited;
	size_t count;
	const struct sched_cand *cand;
	const uint8_t *feasible;
	const float *features; /* count x SCHED_FEATURES, or NULL */
};

#define SCHED_NEED_DFRAG    1u
#define SCHED_NEED_FEATURES 2u

struct sched_policy {
	const char *name;
	unsigned needs;
	/* The chosen candidate's index (feasible), or -1 to leave the pod queued. */
	int (*choose)(struct sched_policy *self, const struct sched_decision *d);
	uint64_t rng; /* the random policy's state, seeded per run */
	void *state;  /* a policy's own (a network's weights) */
};

/* The candidates of pod p on every node of cl, in node order (docs/sched.md): a GPU share
 * gives one per distinct free amount among the node's GPUs that fit, other pods one; a node
 * where p does not fit one masked candidate. cand and feasible hold cl->count *
 * SCHED_MAX_GPUS. Sets *count; returns how many are feasible. */
size_t sched_candidates(const struct sched_cluster *cl, const struct sched_pod *p,
			struct sched_cand *cand, uint8_t *feasible, size_t *count);
/* cand[i].dfrag of the feasible candidates: F_n(M) after placing p minus before, weighted
 * by the classes' counts. nfrag: each node's sched_frag_node now, or NULL to compute it. */
void sched_dfrag(const struct sched_cluster *cl, const struct sched_pod *p,
		 const struct sched_class *classes, size_t nclasses, const int64_t *nfrag,
		 struct sched_cand *cand, const uint8_t *feasible, size_t count);
/* One row of SCHED_FEATURES floats in [0, 1] per candidate (docs/sched.md), into
 * features[i * SCHED_FEATURES]. waited: seconds p has waited; workload: the pods of the
 * target workload (the classes' total count) that dfrag is weighted by. */
void sched_features(const struct sched_cluster *cl, const struct sched_pod *p, double waited,
		    int64_t workload, const struct sched_cand *cand, size_t count, float *features);
/* Features in [0, 1] as the MLP's int8 inputs: rne(x * 127) (docs/mlp.md), saturated. */
void sched_features_int8(const float *f, size_t n, int8_t *q);

/* "first-fit", "best-fit", "least-loaded", "tetris", "random", "fgd". 0, or -1. */
int sched_policy_get(const char *name, struct sched_policy *p);
/* The names, NULL-terminated. */
extern const char *const sched_policy_names[];

/* ---- A replay ----------------------------------------------------------------------------- */

struct sched_config {
	size_t nodes_count; /* sampled; 0 or >= the list: all */
	uint64_t seed;
	double load;      /* target GPU load in the arrival window */
	double max_gap;   /* trace inter-arrival gaps are capped at this (s); 0: no cap */
	double tau;       /* bounded slowdown's threshold (s) */
	int qos_priority; /* queue ordered by QoS class, then arrival */
	size_t series;    /* points of the allocation time series */
	/* Called now and then with done/total pods; may be NULL. */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
};
void sched_config_default(struct sched_config *c);

struct sched_result {
	size_t pods, never_scheduled, unplaceable, decisions;
	size_t nodes, gpus;
	double compress; /* c: trace gaps (after the cap) times c */
	double window;   /* arrival window after compression (s) */
	double offered;  /* the GPU load reached by c (equal to the target within 1e-6) */
	double avg_jct, p95_jct, avg_wait, avg_bsld;
	double qos_bsld[SCHED_QOS_COUNT];
	size_t qos_pods[SCHED_QOS_COUNT];
	double jain;
	double alloc;     /* mean GPU allocation rate in the arrival window */
	double frag;      /* mean fragmented GPU share of all GPUs in the window */
	double frag_idle; /* fragmented over unallocated GPUs (the paper's fragmentation rate) */
	double makespan;
	size_t nseries;
	double *series_t, *series_alloc, *series_frag; /* owned; sched_result_free */
};
void sched_result_free(struct sched_result *r);

/* Replays pods on nodes sampled with c->seed, placing with policy p. 0, or non-zero with
 * err set (a load the trace cannot reach, a cluster that cannot hold any pod, ...). */
int sched_replay(const struct sched_pod *pods, size_t npods, const struct sched_node *nodes,
		 size_t nnodes, const struct sched_models *m, const struct sched_config *c,
		 struct sched_policy *p, struct sched_result *r, char *err, size_t errlen);

/* ---- One decision from outside a replay (quire sched place) ---------------------------- */

#define SCHED_PLACE_MAX_NODES 1024

/* The task, the nodes with their free resources, and (optional) the target workload's
 * classes, as `quire sched place` reads them (CSV, docs/sched-api.md). */
struct sched_place {
	struct sched_pod pod;
	double waited; /* seconds */
	struct sched_node *nodes;
	struct sched_nstate *state;
	size_t count;
	struct sched_class *classes;
	size_t nclasses;
};
/* Reads f to its end; name is what errors call it ("stdin"). 0, or -1 with err as
 * "NAME:LINE: what" naming the field at fault. GPU models must be known to m. */
int sched_read_place(FILE *f, const char *name, const struct sched_models *m,
		     struct sched_place *pl, char *err, size_t errlen);
void sched_place_free(struct sched_place *pl);

/* Jain's index of x[0..n): (sum x)^2 / (n sum x^2); 1 for n == 0. */
double sched_jain(const double *x, size_t n);

#endif /* QUIRE_SCHED_H */
