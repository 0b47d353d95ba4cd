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

/* Features as int8 inputs: rne(x * 127) (docs/mlp.md), saturated. */
static void test_features_int8(void **state)
{
	(void)state;
	const float f[] = {0.0f, 1.0f, 0.5f, 0.25f, 0.75f, 3.0f, -1.0f, 0.999f};
	/* 63.5 -> 64 (even), 31.75 -> 32, 95.25 -> 95, 126.873 -> 127 */
	const int8_t want[] = {0, 127, 64, 32, 95, 127, -127, 127};
	int8_t q[8];
	sched_features_int8(f, 8, q);
	assert_memory_equal(q, want, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_frag_measure),  cmocka_unit_test(test_policies_choose),
	    cmocka_unit_test(test_jain),          cmocka_unit_test(test_models),
	    cmocka_unit_test(test_bad_pods),      cmocka_unit_test(test_bad_nodes),
	    cmocka_unit_test(test_replay),        cmocka_unit_test(test_replay_by_hand),
	    cmocka_unit_test(test_features_int8),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
