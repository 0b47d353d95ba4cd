/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's replay simulator: the Alibaba GPU trace (v2023, "openb") read from
 * CSV, a sampled cluster, a FIFO queue with skipping, placement policies behind one
 * function, and the metrics of docs/sched.md. Library code; `quire sched replay` is
 * its command line (cli/sched_replay.c).
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
/* "first-fit", "best-fit", "least-loaded", "tetris", "random", "fgd", or "neural" (whose
 * state must then be set to a struct sched_neural). 0, or -1. */
int sched_policy_get(const char *name, struct sched_policy *p);
/* The heuristics' names (what "all" means), NULL-terminated; "neural" is not among them. */
extern const char *const sched_policy_names[];

/* ---- The neural policy (sched/neural.c) --------------------------------------------------- */

/* Features to the int8 network inputs: q = clamp(rne(x * sched_feature_gain[f]), -128, 127),
 * a fixed scale per feature (docs/sched.md lists them); the exporter folds them into the
 * first layer. */
extern const float sched_feature_gain[SCHED_FEATURES];
void sched_quantize_features(const float *features, size_t count, int8_t *q);

/* A float MLP (the fp32 reference of an int8 model): widths[0] == SCHED_FEATURES, ReLU on
 * hidden layers, one output. Weights [out][in] then biases, per layer. */
#define SCHED_MLP_MAX_LAYERS 4
#define SCHED_MLP_MAX_WIDTH  256
struct sched_fp32 {
	int layers;
	int width[SCHED_MLP_MAX_LAYERS + 1];
	float *w[SCHED_MLP_MAX_LAYERS], *b[SCHED_MLP_MAX_LAYERS];
};
/* Reads the text format the exporter writes (docs/sched.md); errors name FILE:LINE. */
int sched_fp32_read(const char *path, struct sched_fp32 *m, char *err, size_t errlen);
void sched_fp32_free(struct sched_fp32 *m);
/* The float score of one candidate's features. */
float sched_fp32_score(const struct sched_fp32 *m, const float *features);

/*
 * The neural policy's state: a scorer (the int8 network through libquire, given by the
 * caller: sched/ links no library) and, optionally, the fp32 reference whose choice is
 * compared at every decision. The network's inputs are the features on the int8 grid,
 * q / gain: the fp32 reference sees them too. The choice is the feasible candidate with the largest
 * int8 score, ties to the lowest index (docs/contract-mlp.md).
 */
struct sched_neural {
	/* Scores count candidates (int8 rows of SCHED_FEATURES); 0, or non-zero with err. */
	int (*score)(void *arg, const int8_t *q, const uint8_t *feasible, size_t count,
		     int32_t *scores, char *err, size_t errlen);
	void *arg;
	const struct sched_fp32 *fp32; /* may be NULL */
	/* Decisions compared; the same node chosen by int8 and by fp32 on the int8 grid's
	 * inputs (what it was trained on), and on the raw float features (compared_raw: only
	 * decisions of at most SCHED_RAW_MAX_ROWS distinct int8 rows). */
	size_t compared, agree, compared_raw, agree_raw;
	int8_t *q, *uq;  /* the rows, the distinct ones */
	int32_t *scores; /* of the distinct rows */
	uint32_t *first, *row_of, *table;
	float *fscores, xf[SCHED_FEATURES];
	uint8_t *mask;      /* the candidates the network ranks (feasible, shortlisted) */
	void *block;        /* where the buffers above are carved from */
	uint8_t ones[1024]; /* feasibility of the distinct rows scored, a call at a time */
	size_t cap;
	char err[SCHED_ERR_LEN]; /* why choose() returned SCHED_CHOOSE_FAILED */
};
void sched_neural_free(struct sched_neural *n);
#define SCHED_RAW_MAX_ROWS 64
/* When more than SCHED_SHORTLIST_MAX nodes can take the pod, the network ranks a shortlist:
 * of each node kind (GPU model and count) the SCHED_SHORTLIST_KIND candidates with the
 * smallest FGD change. */
#define SCHED_SHORTLIST_MAX  64
#define SCHED_SHORTLIST_KIND 4

/* What choose() returns when the policy failed (the replay stops with its error). */
#define SCHED_CHOOSE_FAILED (-2)

/* ---- Parts of a trace: train / select / evaluation ---------------------------------------- */

enum sched_part { SCHED_PART_ALL, SCHED_PART_TRAIN, SCHED_PART_SELECT, SCHED_PART_EVAL };
/* "all", "train", "select", "eval"; -1 for another name. */
int sched_part_parse(const char *name);
/* The part of the row-th of count pods in creation order (ties in file order): the
 * earliest 60% train, the next 20% select, the latest 20% eval (docs/sched.md). */
int sched_part_of(size_t row, size_t count);
/* Keeps the pods of one part, in creation order (in place); returns how many are left. */
size_t sched_pods_part(struct sched_pod *pods, size_t count, int part);

/* ---- Labels from lookahead rollouts ------------------------------------------------------- */

/* One rolled-out candidate: the horizon's pods (queued at the decision, and the arrivals up
 * to the horizon's end) and the fragmentation over the horizon. */
struct sched_rollout {
	uint8_t done;     /* rolled out (else the fields are 0) */
	double wait;      /* sum of queueing delays (s); pods not started: till the end */
	double run;       /* sum of run times (s) on the GPU taken; not started: speed 1.0 */
	double frag;      /* integral of the fragmented GPUs over the horizon (GPU-s) */
	uint32_t pending; /* horizon pods not started by its end */
};

struct sched_label_config {
	double rate;    /* share of decisions with >= 2 feasible candidates labelled */
	size_t horizon; /* arrivals after the decision the horizon spans (>= 1) */
	size_t topk;    /* candidates by FGD's dfrag rolled out, plus the best of each GPU model */
	uint64_t seed;  /* of the sampling of decisions */
	/* One labelled decision (features set): base is the replay policy's choice; ro has
	 * d->count entries. Non-zero stops the replay with err. */
	int (*emit)(void *arg, const struct sched_decision *d, int base,
		    const struct sched_rollout *ro, char *err, size_t errlen);
	void *arg;
};

/* ---- A replay ----------------------------------------------------------------------------- */

struct sched_config {
	size_t nodes_count; /* sampled; 0 or >= the list: all */
	uint64_t seed;
	double load; /* target GPU load in the arrival window */
	/* > 1: the replayed pods drawn inflate times over with replacement (docs/sched.md,
	 * "Inflation"), so that a large cluster sees a load the trace alone cannot offer. */
	size_t inflate;
	double max_gap;   /* trace inter-arrival gaps are capped at this (s); 0: no cap */
	double tau;       /* bounded slowdown's threshold (s) */
	int qos_priority; /* queue ordered by QoS class, then arrival */
	size_t series;    /* points of the allocation time series */
	/* Called now and then with done/total pods; may be NULL. */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
	/* Lookahead rollouts at sampled decisions (sched dataset); NULL: none. The base
	 * policy of the rollouts is FGD. */
	const struct sched_label_config *label;
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

/* ---- The saturation experiment (FGD's, ATC'23) -------------------------------------------- */

/* The cluster after each step of arrived GPU demand: pods arrive in creation order (the
 * inflated workload of cfg->inflate), none leaves, each is placed at once or fails. Point
 * k is the state when the arrived demand first reaches max_demand (k + 1) / points of the
 * cluster's GPUs; shares are of the cluster's GPUs. */
struct sched_saturation {
	size_t nodes, gpus, points, reached;
	size_t arrived_pods, failed_pods, decisions;
	double *unalloc; /* GPUs left unallocated */
	double *frag;    /* fragmented GPUs, F(M) */
	double *failed;  /* GPU demand of the pods that failed so far */
};
/* 0, or non-zero with err (a workload too small for max_demand: inflate it more). */
int sched_saturate(const struct sched_pod *pods, size_t npods, const struct sched_node *nodes,
		   size_t nnodes, const struct sched_models *m, const struct sched_config *cfg,
		   double max_demand, size_t points, struct sched_policy *p,
		   struct sched_saturation *out, char *err, size_t errlen);
void sched_saturation_free(struct sched_saturation *s);

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
/* The same input built row by row (quire sched serve: rows made of Kubernetes objects):
 * fields[0] the kind ("task", "node" or "class"), then the CSV row's fields, checked as
 * sched_read_place checks them; errors name `where`. _end (failed: an _add failed) checks
 * that there was a task and a node, frees the builder and, on an error, pl. */
struct sched_place_rows;
struct sched_place_rows *sched_place_rows_begin(struct sched_place *pl,
						const struct sched_models *m);
int sched_place_rows_add(struct sched_place_rows *r, const char *const *fields, int nfields,
			 const char *where, char *err, size_t errlen);
int sched_place_rows_end(struct sched_place_rows *r, const char *name, int failed, char *err,
			 size_t errlen);

/* Jain's index of x[0..n): (sum x)^2 / (n sum x^2); 1 for n == 0. */
double sched_jain(const double *x, size_t n);

#endif /* QUIRE_SCHED_H */
