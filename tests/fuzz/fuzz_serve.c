// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: quire sched serve's JSON (cli/sched_serve_json.c): an input is a
 * request body, read as an ExtenderArgs with the node list of tests/data/sched_serve/
 * nodes.json for NodeNames, and refused with a message, or read into a decision whose
 * filter and prioritize answers are then written: never a crash, a leak or a read past the
 * input. What is read has 1 to SCHED_PLACE_MAX_NODES nodes, each named; the answers parse
 * back as JSON and hold every node once (filter: kept or failed; prioritize: a score of 0
 * to 10, 0 exactly where the pod fits nowhere on the node). The scores the answer is made
 * of come from the network's inputs (no model here: that part is libquire's). Seeds:
 * tests/data/sched_serve. Build and run: make fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/sched_serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct serve_nodes nodes;
static struct sched_models models;

static void check_answers(const struct serve_args *a, struct cli_decision *d)
{
	uint8_t *fits = calloc(a->count, 1);
	for (size_t i = 0; i < d->count; i++) {
		int32_t s = 0;
		for (int f = 0; f < SCHED_FEATURES; f++)
			s += d->q[i * SCHED_FEATURES + f] * (f + 1);
		d->scores[i] = s;
		if (d->feasible[i])
			fits[d->cand[i].node] = 1;
	}
	char *ft = serve_filter_answer(a, d), *pt = serve_prioritize_answer(a, d);
	json_t *f = ft ? json_loads(ft, 0, NULL) : NULL, *p = pt ? json_loads(pt, 0, NULL) : NULL;
	if (!f || !p || json_array_size(p) != a->count)
		abort();
	json_t *kept = a->by_name ? json_object_get(f, "NodeNames")
				  : json_object_get(json_object_get(f, "Nodes"), "items");
	size_t nkept = json_array_size(kept),
	       nfailed = json_object_size(json_object_get(f, "FailedNodes"));
	size_t nfits = 0;
	for (size_t i = 0; i < a->count; i++) {
		json_t *h = json_array_get(p, i);
		json_int_t score = json_integer_value(json_object_get(h, "Score"));
		if (strcmp(json_string_value(json_object_get(h, "Host")), a->name[i]) != 0 ||
		    score < 0 || score > SERVE_MAX_PRIORITY || (score == 0) != !fits[i])
			abort();
		nfits += fits[i];
	}
	/* A name given twice is one key of FailedNodes. */
	if (nkept != nfits || nfailed > a->count - nfits)
		abort();
	json_decref(f);
	json_decref(p);
	free(ft);
	free(pt);
	free(fits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[SCHED_ERR_LEN + 64] = "";
	if (!models.count) {
		sched_models_default(&models);
		if (serve_nodes_read(&nodes, "tests/data/sched_serve/nodes.json", err,
				     sizeof(err))) {
			fprintf(stderr, "%s (run from the repository's top)\n", err);
			abort();
		}
	}
	struct serve_args a;
	if (serve_args_read(&a, (const char *)data, size, &nodes, &models, 1.8e9, err,
			    sizeof(err))) {
		if (!err[0])
			abort();
		return 0;
	}
	if (a.count < 1 || a.count > SCHED_PLACE_MAX_NODES || a.pl.count != a.count)
		abort();
	for (size_t i = 0; i < a.count; i++)
		if (!a.name[i] || !a.node[i])
			abort();
	struct cli_decision d;
	if (cli_decision_build(&d, &a.pl, &models, 1) == 0) {
		check_answers(&a, &d);
		cli_decision_free(&d);
	}
	serve_args_free(&a);
	return 0;
}
