/* SPDX-License-Identifier: MIT */
/*
 * The neural placement policy's scorer: the int8 network run through libquire's
 * scheduler API (quire_model_*), on whatever backend the context has.
 */
#ifndef QUIRE_CLI_SCHED_MLP_H
#define QUIRE_CLI_SCHED_MLP_H

#include <stddef.h>
#include <stdint.h>

#include <quire.h>

struct sched_mlp {
	struct quire_model *model; /* on the caller's context */
	uint64_t calls;            /* quire_model_score calls (MLP_SCORE commands) */
};

/* Reads a model image file into *image (malloc'd) and checks it, its input width the
 * scheduler's feature count. 0, or non-zero with err ("FILE: offset N: what (status)"). */
int sched_mlp_read(const char *path, void **image, size_t *len, char *err, size_t errlen);
/* Reads a model image file, checks it and loads it (its input width must be the
 * scheduler's feature count). 0, or non-zero with err ("FILE: what", "FILE: offset N: what"). */
int sched_mlp_load(struct sched_mlp *m, struct quire_ctx *ctx, const char *path, char *err,
		   size_t errlen);
/* struct sched_neural's scorer: count candidates, in calls of up to 1,024. */
int sched_mlp_score(void *arg, const int8_t *q, const uint8_t *feasible, size_t count,
		    int32_t *scores, char *err, size_t errlen);
void sched_mlp_close(struct sched_mlp *m);

#endif /* QUIRE_CLI_SCHED_MLP_H */
