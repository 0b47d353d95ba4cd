// SPDX-License-Identifier: MIT
/*
 * A card communicator without MPI: the ranks meet in a directory they share
 * (a simulated cluster's, or any shared file system). Each writes its card's
 * address to addr-RANK, reads everyone's, joins, then writes ready-RANK and
 * waits for everyone's, so no frame reaches a card before it has joined.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"

/* Write "value\n" to dir/name-rank, whole or not at all (rename is atomic). */
static int publish(const char *dir, const char *name, int rank, unsigned value)
{
	char tmp[4096], path[4096];
	snprintf(tmp, sizeof(tmp), "%s/.%s-%d.%d", dir, name, rank, (int)getpid());
	snprintf(path, sizeof(path), "%s/%s-%d", dir, name, rank);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return errno == ENOENT ? QUIRE_ERR_NO_DEVICE : QUIRE_ERR_IO;
	int bad = fprintf(f, "%u\n", value) < 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		unlink(tmp);
		return QUIRE_ERR_IO;
	}
	return QUIRE_OK;
}

/* Read every rank's dir/name-rank into values[], waiting up to wait_ms for them. */
static int gather(const char *dir, const char *name, int size, int wait_ms, unsigned *values)
{
	int64_t t0 = quire_now_ms();
	for (int r = 0; r < size;) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s-%d", dir, name, r);
		FILE *f = fopen(path, "r");
		if (f) {
			int got = fscanf(f, "%u", &values[r]);
			fclose(f);
			if (got != 1)
				return QUIRE_ERR_CORRUPT;
			r++;
			continue;
		}
		if (quire_now_ms() - t0 > wait_ms)
			return QUIRE_ERR_TIMEOUT; /* a rank never came */
		usleep(2000);
	}
	return QUIRE_OK;
}

int quire_comm_rendezvous(struct quire_ctx *ctx, const char *dir, int rank, int size, int wait_ms,
			  struct quire_comm **out)
{
	if (!ctx || !dir || !out || size < 1 || (uint32_t)size > QUIRE_MAX_WORKERS || rank < 0 ||
	    rank >= size || wait_ms < 0)
		return QUIRE_ERR_INVALID;
	*out = NULL;
	uint16_t mine;
	int st = quire_card_address(ctx, &mine);
	if (st != QUIRE_OK)
		return st;
	unsigned *v = calloc((size_t)size, sizeof(*v));
	uint16_t *addrs = calloc((size_t)size, sizeof(*addrs));
	if (!v || !addrs) {
		free(v);
		free(addrs);
		return QUIRE_ERR_NOMEM;
	}
	st = publish(dir, "addr", rank, mine);
	if (!st)
		st = gather(dir, "addr", size, wait_ms, v);
	for (int r = 0; !st && r < size; r++) {
		if (v[r] > 0xffff)
			st = QUIRE_ERR_CORRUPT;
		addrs[r] = (uint16_t)v[r];
	}
	/* Every rank derives the same id from the directory's name: one communicator each. */
	uint32_t h = 2166136261u;
	for (const char *p = dir; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	struct quire_comm_config cfg = {rank, size, addrs, (uint16_t)(h % 0xffffu + 1), 0};
	if (!st)
		st = quire_comm_create(ctx, &cfg, out);
	if (!st)
		st = publish(dir, "ready", rank, 1);
	if (!st)
		st = gather(dir, "ready", size, wait_ms, v);
	if (st && *out) {
		quire_comm_free(*out);
		*out = NULL;
	}
	free(v);
	free(addrs);
	return st;
}
