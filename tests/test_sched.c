// SPDX-License-Identifier: MIT
/*
 * sched/: the placement and fragmentation math on hand-made clusters whose answers are
 * worked out in the comments, the policies' choices on them, the CSV readers' errors on
 * bad rows (FILE:LINE, never a crash), and a replay's determinism and bookkeeping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <zlib.h>

#include "hls/mlp.h"
#include "cli/sched_mlp.h"
#include "quire.h"
#include "sched/sched.h"

static struct sched_models models;

static struct sched_node gpu_node(int ngpu, const char *model)
{
	struct sched_node n;
	memset(&n, 0, sizeof(n));
	n.cpu = 32000;
	n.mem = 131072;
	n.ngpu = ngpu;
	n.model = sched_model_find(&models, model);
	return n;
}

static struct sched_nstate state_of(const struct sched_node *n, const int32_t *free)
{
	struct sched_nstate s;
	memset(&s, 0, sizeof(s));
	s.cpu_free = n->cpu;
	s.mem_free = n->mem;
	for (int g = 0; g < n->ngpu; g++)
		s.gpu_free[g] = free[g];
	return s;
}

static struct sched_class cls(int32_t cpu, int32_t ngpu, int32_t milli, uint32_t spec,
			      int64_t count)
{
	struct sched_class c = {cpu, 1024, ngpu, milli, spec, count};
	return c;
}

/*
 * One V100M16 node with 4 GPUs free 1000, 500, 300, 0 (1800 milli-GPUs free):
 *   a 400-milli share fits (GPUs 0 and 1 have >= 400): fragments are the GPUs below 400:
 *     300 + 0 = 300;
 *   one whole GPU fits (GPU 0): fragments are the GPUs below 1000: 500 + 300 + 0 = 800;
 *   two whole GPUs do not fit (one GPU fully free): all 1800 free are fragments;
 *   a CPU-only pod: every free GPU share is a fragment for it: 1800;
 *   the 400 share with 40000 milli-CPUs (node has 32000): cannot run: 1800;
 *   the 400 share limited to T4s: cannot run here: 1800.
 * F_n(M) for counts {400-share x2, whole x1, CPU-only x1}: 2*300 + 800 + 1800 = 3200.
 */
static void test_frag_measure(void **state)
{
	(void)state;
	struct sched_node n = gpu_node(4, "V100M16");
	const int32_t free[4] = {1000, 500, 300, 0};
	struct sched_nstate s = state_of(&n, free);
	struct sched_class share = cls(1000, 1, 400, 0, 2), whole = cls(1000, 1, 1000, 0, 1);
	struct sched_class two = cls(1000, 2, 1000, 0, 1), cpu = cls(1000, 0, 0, 0, 1);
	struct sched_class big = cls(40000, 1, 400, 0, 1);
	struct sched_class t4 = cls(1000, 1, 400, 1u << sched_model_find(&models, "T4"), 1);
	assert_int_equal(sched_frag_class(&n, &s, &share), 300);
	assert_int_equal(sched_frag_class(&n, &s, &whole), 800);
	assert_int_equal(sched_frag_class(&n, &s, &two), 1800);
	assert_int_equal(sched_frag_class(&n, &s, &cpu), 1800);
	assert_int_equal(sched_frag_class(&n, &s, &big), 1800);
	assert_int_equal(sched_frag_class(&n, &s, &t4), 1800);
	struct sched_class m[3] = {share, whole, cpu};
	assert_int_equal(sched_frag_node(&n, &s, m, 3), 3200);
	/* A node with no GPU free has no GPU fragment, whatever the workload. */
	const int32_t none[4] = {0, 0, 0, 0};
	struct sched_nstate full = state_of(&n, none);
	assert_int_equal(sched_frag_node(&n, &full, m, 3), 0);
	/* Feasibility: memory counts too, and the model constraint. */
	assert_true(sched_fits(&n, &s, 1000, 1024, 1, 400, 0));
	assert_false(sched_fits(&n, &s, 1000, 200000, 1, 400, 0));
	assert_false(sched_fits(&n, &s, 1000, 1024, 1, 400, t4.spec));
	assert_true(sched_fits(&n, &s, 1000, 1024, 1, 1000, 0));
	assert_false(sched_fits(&n, &s, 1000, 1024, 2, 1000, 0));
	assert_true(sched_fits(&n, &s, 1000, 1024, 0, 0, t4.spec)); /* CPU pods: any node */
}

/*
 * Two nodes of 2 GPUs, same CPU and memory: A with GPUs free {1000, 600}, B with {1000,
 * 1000}. Workload: one 400-milli share class and one whole-GPU class, one pod each.
 * A 400-milli pod arrives; its candidates: 0 = A/GPU0, 1 = A/GPU1, 2 = B/GPU0 (B's GPU1
 * is the same choice as its GPU0).
 *   F_A before: share fits, no GPU below 400: 0; whole fits on GPU0, GPU1 (600) is a
 *   fragment: 600. F_A = 600. F_B = 0 + 0 = 0.
 *   0: A {600, 600}: share 0; whole cannot run: 1200. F = 1200, dF = +600.
 *   1: A {1000, 200}: share: 200 below 400: 200; whole: 200. F = 400, dF = -200.
 *   2: B {600, 1000}: share 0; whole: 600. F = 600, dF = +600.
 * FGD takes 1 (the only decrease). first-fit: 0. best-fit: least GPU left, A (1200 vs
 * 1600 milli), then the least free GPU taken there: 1. least-loaded: B (nothing used): 2.
 * Tetris: the GPU term (400/2000) * free/2000 is larger on B (2000 free vs 1600): 2.
 */
static void test_policies_choose(void **state)
{
	(void)state;
	struct sched_node nodes[2] = {gpu_node(2, "V100M16"), gpu_node(2, "V100M16")};
	const int32_t fa[2] = {1000, 600}, fb[2] = {1000, 1000};
	struct sched_nstate st[2] = {state_of(&nodes[0], fa), state_of(&nodes[1], fb)};
	struct sched_class m[2] = {cls(1000, 1, 400, 0, 1), cls(1000, 1, 1000, 0, 1)};
	struct sched_cluster cl = {nodes, st, 2, &models, 4000, 400, 32000, 131072, 2};
	struct sched_pod pod;
	memset(&pod, 0, sizeof(pod));
	pod.cpu = 1000;
	pod.mem = 1024;
	pod.ngpu = 1;
	pod.milli = 400;
	pod.qos = SCHED_QOS_LS;
	struct sched_cand cand[3] = {{0, 1u << 0, 0}, {0, 1u << 1, 0}, {1, 1u << 0, 0}};
	uint8_t feasible[3] = {1, 1, 1};
	const int64_t want[3] = {600, -200, 600};
	for (int i = 0; i < 3; i++) {
		int k = cand[i].node;
		int64_t before = sched_frag_node(&nodes[k], &st[k], m, 2);
		struct sched_nstate after = st[k];
		after.cpu_free -= pod.cpu;
		after.mem_free -= pod.mem;
		for (int g = 0; g < 2; g++)
			if (cand[i].gpu_mask & (1u << g))
				after.gpu_free[g] -= pod.milli;
		cand[i].dfrag = sched_frag_node(&nodes[k], &after, m, 2) - before;
		assert_int_equal(cand[i].dfrag, want[i]);
	}
	struct sched_decision d = {&cl, &pod, 0, 0, 3, cand, feasible, NULL};
	const struct {
		const char *name;
		int want;
	} exp[] = {
	    {"fgd", 1}, {"first-fit", 0}, {"best-fit", 1}, {"least-loaded", 2}, {"tetris", 2}};
	for (size_t i = 0; i < sizeof(exp) / sizeof(exp[0]); i++) {
		struct sched_policy p;
		assert_int_equal(sched_policy_get(exp[i].name, &p), 0);
		int got = p.choose(&p, &d);
		if (got != exp[i].want)
			fail_msg("%s chose %d, want %d", exp[i].name, got, exp[i].want);
	}
	/* Masked candidates are never chosen; none feasible: -1. */
	feasible[1] = 0;
	struct sched_policy p;
	sched_policy_get("fgd", &p);
	assert_int_not_equal(p.choose(&p, &d), 1);
	memset(feasible, 0, sizeof(feasible));
	for (const char *const *n = sched_policy_names; *n; n++) {
		sched_policy_get(*n, &p);
		assert_int_equal(p.choose(&p, &d), -1);
	}
	/* random: only feasible ones, every one in time. */
	feasible[0] = feasible[2] = 1;
	sched_policy_get("random", &p);
	p.rng = 7;
	int seen[3] = {0};
	for (int i = 0; i < 200; i++)
		seen[p.choose(&p, &d)]++;
	assert_int_equal(seen[1], 0);
	assert_true(seen[0] > 0 && seen[2] > 0);
	assert_int_equal(sched_policy_get("worst-fit", &p), -1);
}

static void test_jain(void **state)
{
	(void)state;
	const double same[3] = {2, 2, 2}, two[2] = {1, 3};
	assert_true(sched_jain(same, 3) == 1.0);
	/* (1 + 3)^2 / (2 * (1 + 9)) = 16 / 20 */
	assert_true(sched_jain(two, 2) == 0.8);
	assert_true(sched_jain(NULL, 0) == 1.0);
}

static void test_models(void **state)
{
	(void)state;
	struct sched_models m;
	char err[SCHED_ERR_LEN];
	sched_models_default(&m);
	assert_int_equal(sched_models_parse(&m, "H100=2.5,T4=0.5", err, sizeof(err)), 0);
	assert_true(m.speed[sched_model_find(&m, "H100")] == 2.5);
	assert_true(m.speed[sched_model_find(&m, "T4")] == 0.5);
	assert_int_not_equal(sched_models_parse(&m, "T4=0", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "bad speed factor"));
	assert_int_not_equal(sched_models_parse(&m, "T4", err, sizeof(err)), 0);
	assert_int_not_equal(sched_models_parse(&m, "=2", err, sizeof(err)), 0);
}

static char tmpdir[] = "/tmp/quire-sched-XXXXXX";

static const char *write_tmp(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

#define POD_HEADER                                                                                 \
	"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"        \
	"deletion_time,scheduled_time\n"
#define POD_OK "p0,1000,1024,1,500,,LS,Running,0,100,0\n"

/* Each bad file: the error names the file and the line, and nothing is returned. */
static void test_bad_pods(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {POD_HEADER POD_OK "p1,abc,1024,1,500,,LS,Running,0,100,0\n",
	     ":3: cpu_milli 'abc' is not an integer"},
	    {POD_HEADER POD_OK "p1,1000,1024,1,1500,,LS,Running,0,100,0\n",
	     ":3: gpu_milli 1500 outside 0..1000"},
	    {POD_HEADER "p1,1000,1024,1,500,H100,LS,Running,0,100,0\n",
	     ":2: unknown GPU model 'H100' in gpu_spec"},
	    {POD_HEADER "p1,1000,1024,1,500,,Gold,Running,0,100,0\n", ":2: unknown qos 'Gold'"},
	    {POD_HEADER POD_OK "p1,1000,1024,1\n", ":3: 4 columns, the header has more"},
	    {POD_HEADER "p1,1000,1024,1,500,,LS,Running,0,50,60\n",
	     ":2: deletion_time 50 before scheduled_time 60"},
	    {POD_HEADER "p1,1000,1024,0,500,,LS,Running,0,100,0\n",
	     ":2: gpu_milli 500 with num_gpu 0"},
	    {POD_HEADER "p1,1000,1024,9,1000,,LS,Running,0,100,0\n", ":2: num_gpu 9 outside 0..8"},
	    {POD_HEADER "p1,1000,1024,1,500,,LS,Running,0,,0\n",
	     ":2: scheduled pod without deletion_time"},
	    {POD_HEADER "p1,1000,1024,1,\"500\",,LS,Running,0,100,0\n", ":2: NUL bytes or quotes"},
	    {POD_HEADER "p1,1000,1024,1,500,,LS,Running,100,200,50\n",
	     ":2: scheduled_time 50 before creation_time 100"},
	    {POD_HEADER "p1,1000,1024,1,500,|,LS,Running,0,100,0\n", ":2: empty gpu_spec '|'"},
	    {POD_HEADER "p1,1000,1024,2,0,,LS,Running,0,100,0\n", ":2: num_gpu 2 with gpu_milli 0"},
	    {POD_HEADER "p1,1000,1024,1,500,,LS,Running,-5,100,0\n",
	     ":2: creation_time -5 outside"},
	    {POD_HEADER "a-name-of-more-than-forty-seven-characters-long-xx,1000,1024,1,500,,LS,"
			"Running,0,100,0\n",
	     ":2: name 'a-name-of-more-than-forty-seven-characters-long-xx' empty or longer"},
	    {"name,cpu_milli\np1,1\n", ":1: no column 'memory_mib'"},
	    {"", ": empty file"},
	    {POD_HEADER, ": no pods"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = write_tmp("pods.csv", cases[i].text);
		struct sched_pod *pods = (void *)1;
		size_t n = 99;
		char err[SCHED_ERR_LEN] = "";
		assert_int_not_equal(sched_read_pods(path, &models, &pods, &n, err, sizeof(err)),
				     0);
		assert_null(pods);
		assert_int_equal(n, 0);
		if (!strstr(err, path) || !strstr(err, cases[i].want))
			fail_msg("case %zu: '%s' does not name %s and '%s'", i, err, path,
				 cases[i].want);
	}
	/* A line longer than the reader's limit is an error too, not two rows. */
	size_t big = 5000;
	char *text = malloc(big + sizeof(POD_HEADER) + 2);
	strcpy(text, POD_HEADER);
	memset(text + strlen(text), 'x', big);
	strcpy(text + sizeof(POD_HEADER) - 1 + big, "\n");
	const char *path = write_tmp("pods.csv", text);
	free(text);
	struct sched_pod *pods;
	size_t n;
	char err[SCHED_ERR_LEN];
	assert_int_not_equal(sched_read_pods(path, &models, &pods, &n, err, sizeof(err)), 0);
	assert_non_null(strstr(err, ":2: line longer than"));
	/* Good rows: "nan" and empty gpu_spec are any model; '|' joins models; a Pending pod
	 * is never scheduled; CRLF endings are fine. */
	path = write_tmp("pods.csv", POD_HEADER "a,1,2,1,1000,nan,BE,Running,5,9,6\r\n"
						"b,1,2,2,1000,T4|A10,Burstable,Succeeded,5,9,6\n"
						"c,1,2,0,0,,Guaranteed,Pending,7,8,\n");
	assert_int_equal(sched_read_pods(path, &models, &pods, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pods[0].spec, 0);
	assert_int_equal(pods[1].spec, (1u << sched_model_find(&models, "T4")) |
					   (1u << sched_model_find(&models, "A10")));
	assert_int_equal(pods[1].qos, SCHED_QOS_BURSTABLE);
	assert_int_equal(pods[2].scheduled, -1);
	assert_int_equal(pods[2].line, 4);
	free(pods);
}

static void test_bad_nodes(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,2,H100\n",
	     ":2: unknown GPU model 'H100' (give its speed with --speed H100=F)"},
	    {"sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,2,T4\nn1,1000,1024,2,\n",
	     ":3: 2 GPUs but no model"},
	    {"sn,cpu_milli,memory_mib,gpu,model\nn0,0,1024,2,T4\n", ":2: cpu_milli 0 outside"},
	    {"sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,16,T4\n", ":2: gpu 16 outside 0..8"},
	    {"sn,cpu_milli,memory_mib,gpu\nn0,1000,1024,2\n", ":1: no column 'model'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = write_tmp("nodes.csv", cases[i].text);
		struct sched_node *nodes;
		size_t n;
		char err[SCHED_ERR_LEN] = "";
		assert_int_not_equal(sched_read_nodes(path, &models, &nodes, &n, err, sizeof(err)),
				     0);
		if (!strstr(err, path) || !strstr(err, cases[i].want))
			fail_msg("case %zu: '%s' does not name %s and '%s'", i, err, path,
				 cases[i].want);
	}
	char err[SCHED_ERR_LEN];
	struct sched_node *nodes;
	size_t n;
	assert_int_not_equal(
	    sched_read_nodes("/nonexistent/nodes.csv", &models, &nodes, &n, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "No such file"));
	/* CPU-only nodes: gpu 0 and an empty or "nan" model. */
	const char *path = write_tmp("nodes.csv", "model,gpu,sn,memory_mib,cpu_milli\n,0,c0,1024,"
						  "1000\nnan,0,c1,1024,1000\nG2,8,g0,4096,8000\n");
	assert_int_equal(sched_read_nodes(path, &models, &nodes, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(nodes[0].model, -1);
	assert_int_equal(nodes[2].ngpu, 8);
	assert_int_equal(nodes[2].cpu, 8000);
	free(nodes);
}

/* A small synthetic trace: the replay runs every pod once, the same way twice. */
static void test_replay(void **state)
{
	(void)state;
	struct sched_node nodes[4] = {gpu_node(2, "T4"), gpu_node(8, "G2"), gpu_node(4, "V100M16"),
				      gpu_node(1, "P100")};
	enum { N = 400 };
	struct sched_pod *pods = calloc(N, sizeof(*pods));
	uint64_t x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		struct sched_pod *p = &pods[i];
		snprintf(p->name, sizeof(p->name), "p%d", i);
		p->cpu = 1000 + (int32_t)(x >> 60) * 500;
		p->mem = 2048;
		int kind = (int)((x >> 40) % 4);
		p->ngpu = kind == 0 ? 0 : kind == 3 ? 2 : 1;
		p->milli = kind == 0 ? 0 : kind == 1 ? 100 + (int32_t)((x >> 20) % 9) * 100 : 1000;
		p->qos = (int)((x >> 10) % 4);
		p->creation = i * 60;
		p->scheduled = (x >> 33) % 10 == 0 ? -1 : p->creation;
		p->deletion = p->creation + 100 + (int64_t)((x >> 24) % 3000);
	}
	/* One pod no node can hold: 8 whole GPUs of a model with 1 GPU per node. */
	pods[5].ngpu = 8;
	pods[5].milli = 1000;
	pods[5].spec = 1u << sched_model_find(&models, "P100");
	pods[5].scheduled = pods[5].creation;
	struct sched_config cfg;
	sched_config_default(&cfg);
	cfg.nodes_count = 0;
	cfg.load = 0.8;
	for (const char *const *name = sched_policy_names; *name; name++) {
		struct sched_policy p;
		struct sched_result r1, r2;
		char err[SCHED_ERR_LEN];
		sched_policy_get(*name, &p);
		if (sched_replay(pods, N, nodes, 4, &models, &cfg, &p, &r1, err, sizeof(err)))
			fail_msg("%s: %s", *name, err);
		sched_policy_get(*name, &p);
		assert_int_equal(
		    sched_replay(pods, N, nodes, 4, &models, &cfg, &p, &r2, err, sizeof(err)), 0);
		assert_int_equal(r1.unplaceable, 1);
		assert_int_equal(r1.pods + r1.never_scheduled + r1.unplaceable, N);
		assert_int_equal(r1.gpus, 15);
		assert_true(fabs(r1.offered - 0.8) < 1e-6);
		assert_true(r1.avg_jct == r2.avg_jct && r1.frag == r2.frag &&
			    r1.avg_bsld == r2.avg_bsld && r1.jain == r2.jain);
		assert_true(r1.avg_bsld >= 1.0 && r1.p95_jct > 0 && r1.avg_wait >= 0);
		assert_true(r1.alloc > 0 && r1.alloc <= 1 && r1.frag >= 0 && r1.frag <= 1);
		assert_true(r1.jain > 0 && r1.jain <= 1.0);
		assert_true(r1.decisions >= r1.pods);
		sched_result_free(&r1);
		sched_result_free(&r2);
	}
	/* A load these pods cannot offer is refused with the reachable bound. */
	cfg.load = 50;
	struct sched_policy p;
	struct sched_result r;
	char err[SCHED_ERR_LEN];
	sched_policy_get("fgd", &p);
	assert_int_not_equal(
	    sched_replay(pods, N, nodes, 4, &models, &cfg, &p, &r, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "out of reach"));
	free(pods);
}

/*
 * A replay worked out by hand. One V100M16 node (speed 1.0), 2 GPUs, so C = 2. Pods, all LS:
 * p0 at 0 s and p1 at 1 s, 2 whole GPUs for 1000 s each; p2 at 2 s, CPU only, 1000 s; p3 at
 * 100 s, CPU only, 10 s. Offsets A = 0, 1, 2, 100. The GPU load of c (docs/sched.md):
 *   (2 min(1000, 100c) + 2 min(1000, 99c)) / (2 * 100c), which is 20 / c once 99c >= 1000;
 * load 1.0 gives c = 20: arrivals 0, 20, 40, 2000, window W = 2000.
 * p0 runs 0-1000. p1 does not fit until then: waits 980 s, runs 1000-2000. p2 arrives at 40
 * behind p1, which does not fit: it is skipped over, p2 starts at once, 40-1040. p3 2000-2010.
 * JCT 1000, 1980, 1000, 10: average 997.5, p95 (4th of 4) 1980; wait 980 / 4 = 245;
 * bounded slowdown 1, 1.98, 1, 1 (10 / max(10, 10)): average 1.245. Both GPUs are allocated
 * over the whole window: allocation 1.0, nothing free, fragmentation 0. One QoS class:
 * Jain 1.
 */
static void test_replay_by_hand(void **state)
{
	(void)state;
	struct sched_node node = gpu_node(2, "V100M16");
	struct sched_pod pods[4];
	memset(pods, 0, sizeof(pods));
	const int64_t at[4] = {0, 1, 2, 100}, dur[4] = {1000, 1000, 1000, 10};
	for (int i = 0; i < 4; i++) {
		snprintf(pods[i].name, sizeof(pods[i].name), "p%d", i);
		pods[i].cpu = 1000;
		pods[i].mem = 1024;
		pods[i].ngpu = i < 2 ? 2 : 0;
		pods[i].milli = i < 2 ? 1000 : 0;
		pods[i].qos = SCHED_QOS_LS;
		pods[i].creation = pods[i].scheduled = at[i];
		pods[i].deletion = at[i] + dur[i];
	}
	struct sched_config cfg;
	sched_config_default(&cfg);
	cfg.load = 1.0;
	for (const char *const *name = sched_policy_names; *name; name++) {
		struct sched_policy p;
		struct sched_result r;
		char err[SCHED_ERR_LEN];
		sched_policy_get(*name, &p);
		if (sched_replay(pods, 4, &node, 1, &models, &cfg, &p, &r, err, sizeof(err)))
			fail_msg("%s: %s", *name, err);
		assert_int_equal(r.pods, 4);
		assert_true(fabs(r.compress - 20.0) < 1e-4);
		assert_true(fabs(r.window - 2000.0) < 1e-2);
		assert_true(fabs(r.avg_jct - 997.5) < 1e-2);
		assert_true(fabs(r.p95_jct - 1980.0) < 1e-2);
		assert_true(fabs(r.avg_wait - 245.0) < 1e-2);
		assert_true(fabs(r.avg_bsld - 1.245) < 1e-5);
		assert_true(fabs(r.alloc - 1.0) < 1e-6);
		assert_true(r.frag == 0.0);
		assert_true(r.jain == 1.0);
		assert_true(fabs(r.makespan - 2010.0) < 1e-2);
		sched_result_free(&r);
	}
}

/* The parts by time: the earliest 60% train, the next 20% select, the latest 20% eval, of
 * the pods in creation order (ties in file order) whatever the file's order; disjoint and
 * complete; and a part's pods do not depend on what the later rows hold. */
static void test_parts(void **state)
{
	(void)state;
	assert_int_equal(sched_part_parse("eval"), SCHED_PART_EVAL);
	assert_int_equal(sched_part_parse("test"), -1);
	assert_int_equal(sched_part_of(0, 25), SCHED_PART_TRAIN);
	assert_int_equal(sched_part_of(14, 25), SCHED_PART_TRAIN);
	assert_int_equal(sched_part_of(15, 25), SCHED_PART_SELECT);
	assert_int_equal(sched_part_of(19, 25), SCHED_PART_SELECT);
	assert_int_equal(sched_part_of(20, 25), SCHED_PART_EVAL);
	assert_int_equal(sched_part_of(24, 25), SCHED_PART_EVAL);
	struct sched_pod pods[25];
	size_t total = 0;
	for (int part = SCHED_PART_TRAIN; part <= SCHED_PART_EVAL; part++) {
		/* File order reversed in time, two pods per creation time. */
		for (int i = 0; i < 25; i++) {
			memset(&pods[i], 0, sizeof(pods[i]));
			pods[i].line = i + 2;
			pods[i].creation = (25 - i) / 2;
			pods[i].cpu = 1000;
		}
		size_t n = sched_pods_part(pods, 25, part);
		for (size_t i = 0; i < n; i++) {
			/* Rank in time: creation, then line. */
			size_t rank = 0;
			for (int k = 0; k < 25; k++) {
				int64_t c = (25 - k) / 2;
				rank += c < pods[i].creation ||
					(c == pods[i].creation && k + 2 < pods[i].line);
			}
			assert_int_equal(sched_part_of(rank, 25), part);
			assert_true(i == 0 || pods[i - 1].creation <= pods[i].creation);
		}
		total += n;
	}
	assert_int_equal(total, 25);
	/* The train and select pods are the same whatever the eval rows hold. */
	struct sched_pod a[25], b[25];
	for (int i = 0; i < 25; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].line = i + 2;
		a[i].creation = i;
		a[i].cpu = 1000 + i;
		b[i] = a[i];
		if (i >= 20)
			b[i].cpu = 7, b[i].creation = 1000000 + i;
	}
	for (int part = SCHED_PART_TRAIN; part <= SCHED_PART_SELECT; part++) {
		struct sched_pod x[25], y[25];
		memcpy(x, a, sizeof(a));
		memcpy(y, b, sizeof(b));
		size_t nx = sched_pods_part(x, 25, part), ny = sched_pods_part(y, 25, part);
		assert_int_equal(nx, ny);
		assert_memory_equal(x, y, nx * sizeof(*x));
	}
}

struct label_log {
	int records;
	int base;
	size_t count;
	struct sched_rollout ro[4];
	float speed[4];
};

static int keep_label(void *arg, const struct sched_decision *d, int base,
		      const struct sched_rollout *ro, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	struct label_log *l = arg;
	l->records++;
	l->base = base;
	l->count = d->count;
	for (size_t i = 0; i < d->count && i < 4; i++) {
		l->ro[i] = ro[i];
		l->speed[i] = d->features[i * SCHED_FEATURES + SCHED_F_SPEED];
	}
	return 0;
}

/*
 * Rollouts by hand. Nodes A (T4, speed 0.45) and B (V100M16, 1.0), one GPU each. p0 (one
 * GPU, 1000 s) at 0, p1 (one GPU, 100 s) at 10. Load 0.5: the window's GPU work is p0's
 * 1000 s (p1 arrives at the window's end), 1000 / (1.45 W) = 0.5, W = 1379.31 s, c = W / 10.
 * p0's decision is the only one with two feasible candidates; FGD takes A (equal dfrag,
 * lowest index). Horizon 1: up to p1's arrival at W, p1 placed there by FGD.
 *   A: p0 runs 1000 / 0.45 = 2222.22 s; p1 takes B: 100 s. run 2322.22, wait 0.
 *   B: p0 runs 1000 s, ends at 1000; p1 takes A (lowest index): 222.22 s. run 1222.22.
 * No fragmentation: each node is either fully free or fully taken.
 */
static void test_rollouts_by_hand(void **state)
{
	(void)state;
	struct sched_node nodes[2] = {gpu_node(1, "T4"), gpu_node(1, "V100M16")};
	struct sched_pod pods[2];
	memset(pods, 0, sizeof(pods));
	const int64_t at[2] = {0, 10}, dur[2] = {1000, 100};
	for (int i = 0; i < 2; i++) {
		snprintf(pods[i].name, sizeof(pods[i].name), "p%d", i);
		pods[i].cpu = 1000;
		pods[i].mem = 1024;
		pods[i].ngpu = 1;
		pods[i].milli = 1000;
		pods[i].creation = pods[i].scheduled = at[i];
		pods[i].deletion = at[i] + dur[i];
	}
	struct label_log log;
	memset(&log, 0, sizeof(log));
	struct sched_label_config lc = {1.0, 1, 4, 7, keep_label, &log};
	struct sched_config cfg;
	sched_config_default(&cfg);
	cfg.load = 0.5;
	cfg.label = &lc;
	struct sched_policy p;
	struct sched_result r;
	char err[SCHED_ERR_LEN];
	sched_policy_get("fgd", &p);
	if (sched_replay(pods, 2, nodes, 2, &models, &cfg, &p, &r, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(fabs(r.window - 1379.3103) < 1e-3);
	sched_result_free(&r);
	assert_int_equal(log.records, 1);
	assert_int_equal(log.count, 2);
	assert_int_equal(log.base, 0);
	assert_true(log.ro[0].done && log.ro[1].done);
	assert_true(fabs(log.ro[0].run - (1000 / 0.45 + 100)) < 1e-6);
	assert_true(fabs(log.ro[1].run - (1000 + 100 / 0.45)) < 1e-6);
	assert_true(log.ro[0].wait == 0 && log.ro[1].wait == 0);
	assert_true(log.ro[0].frag == 0 && log.ro[1].frag == 0);
	assert_int_equal(log.ro[0].pending, 0);
	assert_true(fabsf(log.speed[0] - 0.225f) < 1e-6f && fabsf(log.speed[1] - 0.5f) < 1e-6f);
	/* The labels change no replay: the same figures without them. */
	struct sched_result r2;
	cfg.label = NULL;
	if (sched_replay(pods, 2, nodes, 2, &models, &cfg, &p, &r2, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(r2.avg_jct == 1000 / 0.45 / 2 + 50 && r2.decisions == 2);
	sched_result_free(&r2);
}

/* A model image [SCHED_FEATURES, 8, 1] of pseudo-random weights, valid by construction. */
static size_t tiny_model(uint8_t *img, uint32_t n0, uint32_t seed)
{
	const uint32_t w[3] = {n0, 8, 1};
	uint8_t *p = img + QUIRE_MLP_HEADER_BYTES;
	uint32_t x = seed;
#define NEXT() (x = x * 1664525u + 1013904223u, x >> 8)
	for (int l = 0; l < 2; l++) {
		for (uint32_t i = 0; i < w[l] * w[l + 1]; i++)
			*p++ = (uint8_t)NEXT();
		p += (4 - (w[l] * w[l + 1]) % 4) % 4;
		for (uint32_t o = 0; o < w[l + 1]; o++, p += 4) {
			int32_t b = (int32_t)(NEXT() % 2001) - 1000;
			memcpy(p, &b, 4);
		}
		if (l == 1)
			break;
		for (uint32_t o = 0; o < w[l + 1]; o++, p += 4) {
			int32_t m = (int32_t)(0x40000000u + NEXT() % 0x3fffffffu);
			memcpy(p, &m, 4);
		}
		for (uint32_t o = 0; o < w[l + 1]; o++)
			*p++ = (uint8_t)(40 + NEXT() % 4);
		p += (4 - w[l + 1] % 4) % 4;
	}
#undef NEXT
	uint32_t payload = (uint32_t)(p - img) - QUIRE_MLP_HEADER_BYTES;
	uint32_t crc = (uint32_t)crc32(0, img + QUIRE_MLP_HEADER_BYTES, payload);
	uint32_t magic = QUIRE_MLP_MAGIC;
	uint16_t version = QUIRE_MLP_VERSION, layers = 2, zero = 0;
	memset(img, 0, QUIRE_MLP_HEADER_BYTES);
	memcpy(img + QUIRE_MLP_HDR_MAGIC, &magic, 4);
	memcpy(img + QUIRE_MLP_HDR_VERSION, &version, 2);
	memcpy(img + QUIRE_MLP_HDR_LAYERS, &layers, 2);
	for (int l = 0; l < 3; l++) {
		uint16_t v = (uint16_t)w[l];
		memcpy(img + QUIRE_MLP_HDR_WIDTH + 2 * l, &v, 2);
	}
	memcpy(img + QUIRE_MLP_HDR_FLAGS, &zero, 2);
	memcpy(img + QUIRE_MLP_HDR_PAYLOAD_BYTES, &payload, 4);
	memcpy(img + QUIRE_MLP_HDR_PAYLOAD_CRC, &crc, 4);
	return (size_t)(p - img);
}

static const char *write_bin(const char *name, const uint8_t *b, size_t n)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
	return path;
}

/*
 * The neural policy scoring through libquire (cpu backend, MLP_LOAD and MLP_SCORE) gives the
 * scores and choices of an independent reference, tests/ref/mlp_score.py (numpy, from
 * docs/contract-mlp.md and the image layout; itself checked against mlp_ref.py's golden
 * vectors in tests/run.sh), on the same features quantized here by the documented gains;
 * the best-scoring candidate of all, made infeasible, is never chosen. Not quire_mlp_score:
 * the cpu backend computes with it, so it could not tell the two apart.
 */
enum { NEURAL_ROUNDS = 20, NEURAL_C = 300 };

/* Each round's candidates in the reference's order: all feasible, then the best masked. */
struct neural_round {
	size_t count;
	float feat[NEURAL_C * SCHED_FEATURES];
	int8_t q[NEURAL_C * SCHED_FEATURES];
	uint8_t feas[2][NEURAL_C];
	int32_t ref[2][NEURAL_C]; /* the reference's scores */
	int32_t choice[2];        /* and choices (-1: none feasible) */
};

static void put_call(FILE *f, const struct neural_round *r, int k)
{
	uint32_t head[2] = {(uint32_t)r->count, SCHED_FEATURES};
	assert_int_equal(fwrite(head, sizeof(head), 1, f), 1);
	assert_int_equal(fwrite(r->q, SCHED_FEATURES, r->count, f), r->count);
	assert_int_equal(fwrite(r->feas[k], 1, r->count, f), r->count);
}

/* Runs the reference on the model file and every round's calls (one python3 start). */
static void reference_scores(const char *model, struct neural_round *rounds, int n)
{
	char calls[256], out[256], cmd[1024];
	snprintf(calls, sizeof(calls), "%s/calls.bin", tmpdir);
	snprintf(out, sizeof(out), "%s/ref.bin", tmpdir);
	FILE *f = fopen(calls, "wb");
	assert_non_null(f);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 2; k++)
			put_call(f, &rounds[i], k);
	assert_int_equal(fclose(f), 0);
	/* The script beside the test data (tests/data/../ref), wherever the test runs from. */
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/../ref/mlp_score.py %s %s %s",
		 QUIRE_TEST_DATA, model, calls, out);
	if (system(cmd) != 0)
		fail_msg("%s failed (python3-numpy?)", cmd);
	f = fopen(out, "rb");
	assert_non_null(f);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			struct neural_round *r = &rounds[i];
			assert_int_equal(fread(r->ref[k], 4, r->count, f), r->count);
			assert_int_equal(fread(&r->choice[k], 4, 1, f), 1);
		}
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	unlink(calls);
	unlink(out);
}

static void test_neural_golden(void **state)
{
	(void)state;
	static uint8_t img[4096];
	size_t len = tiny_model(img, SCHED_FEATURES, 12345);
	const char *path = write_bin("tiny.qmlp", img, len);
	static struct neural_round rounds[NEURAL_ROUNDS];
	uint32_t x = 99;
	for (int i = 0; i < NEURAL_ROUNDS; i++) {
		struct neural_round *r = &rounds[i];
		r->count = 1 + (size_t)(i * 17) % NEURAL_C;
		for (size_t j = 0; j < r->count * SCHED_FEATURES; j++) {
			x = x * 1664525u + 1013904223u;
			r->feat[j] = (float)(x >> 8) / (float)(1u << 24);
			float v = rintf(r->feat[j] * sched_feature_gain[j % SCHED_FEATURES]);
			r->q[j] = (int8_t)(v > 127 ? 127 : v);
		}
		memset(r->feas[0], 1, r->count);
		memset(r->feas[1], 1, r->count);
	}
	/* The best of all, from a first pass of the reference, is masked in the second call. */
	reference_scores(path, rounds, NEURAL_ROUNDS);
	for (int i = 0; i < NEURAL_ROUNDS; i++)
		if (rounds[i].count > 1)
			rounds[i].feas[1][rounds[i].choice[0]] = 0;
	reference_scores(path, rounds, NEURAL_ROUNDS);

	struct quire_ctx *ctx;
	assert_int_equal(quire_open("cpu", &ctx), QUIRE_OK);
	struct sched_mlp mlp;
	char err[SCHED_ERR_LEN];
	if (sched_mlp_load(&mlp, ctx, path, err, sizeof(err)))
		fail_msg("%s", err);
	struct sched_neural nn;
	memset(&nn, 0, sizeof(nn));
	nn.score = sched_mlp_score;
	nn.arg = &mlp;
	struct sched_policy p;
	assert_int_equal(sched_policy_get("neural", &p), 0);
	p.state = &nn;
	static struct sched_cand cand[NEURAL_C];
	static int32_t got[NEURAL_C];
	int masked = 0;
	for (int i = 0; i < NEURAL_ROUNDS; i++) {
		struct neural_round *r = &rounds[i];
		for (size_t j = 0; j < r->count; j++)
			cand[j] = (struct sched_cand){(uint32_t)j, 0, 0};
		for (int k = 0; k < 2; k++) {
			if (sched_mlp_score(&mlp, r->q, r->feas[k], r->count, got, err,
					    sizeof(err)))
				fail_msg("round %d: %s", i, err);
			for (size_t j = 0; j < r->count; j++)
				if (got[j] != r->ref[k][j])
					fail_msg(
					    "round %d, candidate %zu: score %d, the reference %d",
					    i, j, got[j], r->ref[k][j]);
			struct sched_decision d = {NULL,     NULL, 0,          0,
						   r->count, cand, r->feas[k], r->feat};
			int choice = p.choose(&p, &d);
			if (choice != r->choice[k])
				fail_msg("round %d, call %d: chose %d, the reference %d", i, k,
					 choice, r->choice[k]);
		}
		masked += r->count > 1 && r->choice[1] != r->choice[0];
	}
	/* The masked calls chose another candidate: the mask was applied, in every round. */
	assert_int_equal(masked, NEURAL_ROUNDS - 1);
	assert_true(mlp.calls >= 2 * NEURAL_ROUNDS);
	sched_mlp_close(&mlp);
	quire_close(ctx);
	sched_neural_free(&nn);
	unlink(path);
}

/* A scorer for the shortlist test: a row's score is its fragmentation feature. */
static int score_by_dfrag(void *arg, const int8_t *q, const uint8_t *feasible, size_t count,
			  int32_t *scores, char *err, size_t errlen)
{
	(void)arg, (void)feasible, (void)err, (void)errlen;
	for (size_t i = 0; i < count; i++)
		scores[i] = q[i * SCHED_FEATURES + SCHED_F_DFRAG];
	return 0;
}

/* More than 64 nodes able to take the pod: the network ranks, of each node kind (GPU model
 * and count), the 4 candidates with the smallest FGD change (lowest index first); on 64
 * nodes or fewer, every candidate. */
static void test_neural_shortlist(void **state)
{
	(void)state;
	enum { N = 80 };
	static struct sched_node nodes[N];
	static struct sched_cand cand[N];
	static uint8_t feas[N];
	static float feat[N * SCHED_FEATURES];
	for (int i = 0; i < N; i++) {
		/* Kind A: nodes 0-39, model 0, 8 GPUs; kind B: 40-79, model 1, 2 GPUs. */
		nodes[i] =
		    (struct sched_node){"n", 64000, 1 << 20, i < 40 ? 8 : 2, i < 40 ? 0 : 1, 0};
		cand[i] = (struct sched_cand){(uint32_t)i, 1, i % 7};
		feas[i] = 1;
		feat[i * SCHED_FEATURES + SCHED_F_DFRAG] = (float)i / 127.0f;
	}
	struct sched_cluster cl = {nodes, NULL, N, NULL, 0, 0, 0, 0, 0};
	struct sched_neural nn;
	memset(&nn, 0, sizeof(nn));
	nn.score = score_by_dfrag;
	struct sched_policy p;
	assert_int_equal(sched_policy_get("neural", &p), 0);
	p.state = &nn;
	struct sched_decision d = {&cl, NULL, 0, 0, N, cand, feas, feat};
	/* Kind A keeps 0, 7, 14, 21 (dfrag 0), kind B 42, 49, 56, 63: the best score is 63's. */
	assert_int_equal(p.choose(&p, &d), 63);
	/* 64 nodes: no shortlist, the best score of all. */
	d.count = 64;
	assert_int_equal(p.choose(&p, &d), 63);
	d.count = 60;
	assert_int_equal(p.choose(&p, &d), 59);
	/* 65 nodes, but only 64 of them feasible: no shortlist. */
	d.count = 65;
	feas[3] = 0;
	assert_int_equal(p.choose(&p, &d), 64);
	sched_neural_free(&nn);
}

/* Model files that are missing, truncated, for another feature count, or corrupt. */
static void test_model_errors(void **state)
{
	(void)state;
	static uint8_t img[4096];
	size_t len = tiny_model(img, SCHED_FEATURES, 7);
	struct quire_ctx *ctx;
	assert_int_equal(quire_open("cpu", &ctx), QUIRE_OK);
	struct sched_mlp mlp;
	char err[SCHED_ERR_LEN];
	char missing[300];
	snprintf(missing, sizeof(missing), "%s/none.qmlp", tmpdir);
	assert_int_not_equal(sched_mlp_load(&mlp, ctx, missing, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "none.qmlp"));
	const char *p = write_bin("short.qmlp", img, 20);
	assert_int_not_equal(sched_mlp_load(&mlp, ctx, p, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "short.qmlp: offset"));
	assert_non_null(strstr(err, "truncated"));
	unlink(p);
	p = write_bin("cut.qmlp", img, len - 8);
	assert_int_not_equal(sched_mlp_load(&mlp, ctx, p, err, sizeof(err)), 0);
	assert_non_null(strstr(err, ": offset "));
	unlink(p);
	static uint8_t bad[4096];
	memcpy(bad, img, len);
	bad[len - 1] ^= 1; /* the CRC no longer matches */
	p = write_bin("crc.qmlp", bad, len);
	assert_int_not_equal(sched_mlp_load(&mlp, ctx, p, err, sizeof(err)), 0);
	assert_non_null(strstr(err, ": offset "));
	unlink(p);
	size_t l2 = tiny_model(bad, 16, 7);
	p = write_bin("n16.qmlp", bad, l2);
	assert_int_not_equal(sched_mlp_load(&mlp, ctx, p, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "input width 16"));
	unlink(p);
	quire_close(ctx);
}

/* The fp32 reference: a one-layer network scored by hand, and its file's errors. */
static void test_fp32_file(void **state)
{
	(void)state;
	char text[2048];
	int n = snprintf(text, sizeof(text), "QSF32 1 1 %d 1\n", SCHED_FEATURES);
	for (int i = 0; i < SCHED_FEATURES; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%d", i ? " " : "", i + 1);
	snprintf(text + n, sizeof(text) - (size_t)n, "\n-0.5\n");
	struct sched_fp32 m;
	char err[SCHED_ERR_LEN];
	const char *path = write_tmp("m.fp32", text);
	if (sched_fp32_read(path, &m, err, sizeof(err)))
		fail_msg("%s", err);
	float x[SCHED_FEATURES] = {0};
	x[0] = 1.0f;
	x[2] = 0.5f; /* 1 * 1 + 3 * 0.5 - 0.5 = 2 */
	assert_true(sched_fp32_score(&m, x) == 2.0f);
	sched_fp32_free(&m);
	static const struct {
		const char *text, *want;
	} bad[] = {
	    {"QMLP\n", ":1: not an fp32 model"},
	    {"QSF32 1 1 16 1\n", ":1: widths must start"},
	    {"QSF32 1 5 17 1\n", ":1: bad layer count"},
	    {"QSF32 1 1 17 1\n1 2 3\n", ":2: number 4 of 17"},
	    {"QSF32 1 1 17 1\n", ":2: truncated"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = write_tmp("m.fp32", bad[i].text);
		assert_int_not_equal(sched_fp32_read(path, &m, err, sizeof(err)), 0);
		if (!strstr(err, bad[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].want);
	}
	snprintf(text + n, sizeof(text) - (size_t)n, "\n-0.5\n7\n");
	path = write_tmp("m.fp32", text);
	assert_int_not_equal(sched_fp32_read(path, &m, err, sizeof(err)), 0);
	assert_non_null(strstr(err, ":4: data after the last layer"));
	unlink(path);
}

static int setup(void **state)
{
	(void)state;
	sched_models_default(&models);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char path[256];
	snprintf(path, sizeof(path), "%s/pods.csv", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nodes.csv", tmpdir);
	unlink(path);
	return rmdir(tmpdir);
}

static void test_quantize_features(void **state)
{
	(void)state;
	/* Each feature times its gain, rounded half to even, saturated to int8. */
	float f[2 * SCHED_FEATURES] = {0};
	f[SCHED_F_CPU_FREE] = 0.5f;                                 /* 63.5 -> 64 (even) */
	f[SCHED_F_MEM_FREE] = 0.25f;                                /* 31.75 -> 32 */
	f[SCHED_F_GPU_FREE] = 0.75f;                                /* 95.25 -> 95 */
	f[SCHED_F_NODE_GPUS] = 1.0f;                                /* 127 */
	f[SCHED_F_SPEED] = 3.0f;                                    /* 381 -> 127 */
	f[SCHED_F_REQ_CPU] = 0.125f;                                /* gain 508: 63.5 -> 64 */
	f[SCHED_F_REQ_MEM] = 0.5f;                                  /* 254 -> 127 */
	f[SCHED_F_REQ_GPU] = -1.0f;                                 /* -508 -> -128 */
	f[SCHED_FEATURES + SCHED_F_DFRAG] = 0.5f / 127.0f * 125.0f; /* second row: 62.5 -> 62 */
	int8_t want[2 * SCHED_FEATURES] = {0};
	want[SCHED_F_CPU_FREE] = 64;
	want[SCHED_F_MEM_FREE] = 32;
	want[SCHED_F_GPU_FREE] = 95;
	want[SCHED_F_NODE_GPUS] = 127;
	want[SCHED_F_SPEED] = 127;
	want[SCHED_F_REQ_CPU] = 64;
	want[SCHED_F_REQ_MEM] = 127;
	want[SCHED_F_REQ_GPU] = -128;
	want[SCHED_FEATURES + SCHED_F_DFRAG] = 62;
	int8_t q[2 * SCHED_FEATURES];
	sched_quantize_features(f, 2, q);
	assert_memory_equal(q, want, sizeof(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_frag_measure),
	    cmocka_unit_test(test_policies_choose),
	    cmocka_unit_test(test_jain),
	    cmocka_unit_test(test_models),
	    cmocka_unit_test(test_bad_pods),
	    cmocka_unit_test(test_bad_nodes),
	    cmocka_unit_test(test_replay),
	    cmocka_unit_test(test_replay_by_hand),
	    cmocka_unit_test(test_parts),
	    cmocka_unit_test(test_neural_shortlist),
	    cmocka_unit_test(test_rollouts_by_hand),
	    cmocka_unit_test(test_neural_golden),
	    cmocka_unit_test(test_model_errors),
	    cmocka_unit_test(test_fp32_file),
	    cmocka_unit_test(test_quantize_features),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
