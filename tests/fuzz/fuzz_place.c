// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the input of `quire sched place` (sched_read_place, sched/place_input.c), CSV
 * or JSON. An input is read or refused with a message that names "stdin" (and a line
 * where there is one); never a crash, a leak or a read past the input. What is read is a
 * task and 1 to 1024 nodes whose free resources lie within their capacities. Seeds:
 * tests/fuzz/corpus-place. Build and run: make fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sched_models models;
	if (!models.count)
		sched_models_default(&models);
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		abort();
	if (!size)
		fgetc(f); /* an empty input: fmemopen wants a size of 1 at least */
	struct sched_place pl;
	char err[SCHED_ERR_LEN] = "";
	int r = sched_read_place(f, "stdin", &models, &pl, err, sizeof(err));
	fclose(f);
	if (r != 0) {
		if (strncmp(err, "stdin", 5) != 0) {
			fprintf(stderr, "refused without naming the input: '%s'\n", err);
			abort();
		}
		return 0;
	}
	if (err[0] || pl.count < 1 || pl.count > SCHED_PLACE_MAX_NODES || pl.pod.line < 1)
		abort();
	for (size_t i = 0; i < pl.count; i++) {
		const struct sched_node *n = &pl.nodes[i];
		const struct sched_nstate *s = &pl.state[i];
		if (s->cpu_free < 0 || s->cpu_free > n->cpu || s->mem_free < 0 ||
		    s->mem_free > n->mem || n->ngpu < 0 || n->ngpu > SCHED_MAX_GPUS)
			abort();
		for (int g = 0; g < n->ngpu; g++)
			if (s->gpu_free[g] < 0 || s->gpu_free[g] > SCHED_MILLI)
				abort();
	}
	sched_place_free(&pl);
	return 0;
}
