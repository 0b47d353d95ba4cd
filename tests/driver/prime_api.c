// SPDX-License-Identifier: MIT
/*
 * prime_api: libquire's dma-buf sharing (quire_buf_export, quire_buf_import) on a card
 * behind quire.ko, inside the QEMU guest (tests/driver/qemu_test.sh), through the kdrv
 * backend and its public API only. Linked to libquire.so like the quire CLI.
 *
 * Two contexts on the card: a buffer of context A filled with fp32 values and exported;
 * context B imports it, A frees its buffer, and the card encodes (bfp8) from the import
 * through B: the bits are those of quire_codec_encode on this CPU. Around it: the backend
 * says it can (QUIRE_BACKEND_CAP_DMABUF), a buffer imported back into its own context
 * shares its memory and outlives neither nor is outlived by the other's free, and a file
 * descriptor that is no dma-buf is refused.
 *
 * Prints "ok ..." or "FAIL ..." per check, then "prime api: N passed, N failed".
 * Usage: prime_api [URI]   (default "kdrv")
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "quire.h"

#define N      1024u
#define BLOCKS (N / QUIRE_BFP_BLOCK)

static int passed, failed;

static int check(int cond, const char *what)
{
	printf("%s %s\n", cond ? "ok  " : "FAIL", what);
	if (cond)
		passed++;
	else
		failed++;
	return cond;
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "kdrv";
	char msg[200];
	struct quire_ctx *a = NULL, *b = NULL;
	int st = quire_open(uri, &a);
	if (st == QUIRE_OK)
		st = quire_open(uri, &b);
	snprintf(msg, sizeof(msg), "two contexts on %s: %s", uri, quire_strerror(st));
	if (!check(st == QUIRE_OK, msg))
		goto out;
	check(quire_backend_caps(a) & QUIRE_BACKEND_CAP_DMABUF,
	      "the backend shares buffers as dma-bufs (QUIRE_BACKEND_CAP_DMABUF)");

	static float x[N];
	uint32_t r = 7;
	for (uint32_t i = 0; i < N; i++) {
		r = r * 1664525u + 1013904223u;
		x[i] = ldexpf((float)(r >> 8) / 8388608.0f - 1.0f, (int)(i / 64) - 8);
	}
	struct quire_buf *xa = NULL, *xb = NULL, *back = NULL, *q = NULL, *e = NULL;
	int fd = -1;
	st = quire_buf_alloc(a, sizeof(x), &xa);
	if (!check(st == QUIRE_OK, "a buffer in context A"))
		goto out;
	memcpy(quire_buf_ptr(xa), x, sizeof(x));
	st = quire_buf_export(xa, &fd);
	snprintf(msg, sizeof(msg), "quire_buf_export: %s, fd %d", quire_strerror(st), fd);
	if (!check(st == QUIRE_OK && fd >= 0, msg))
		goto out;

	/* Back into A: the same memory, and freeing one leaves the other alone. */
	st = quire_buf_import(a, fd, &back);
	check(st == QUIRE_OK && quire_buf_ptr(back) == quire_buf_ptr(xa),
	      "imported back into A: the same mapping");
	quire_buf_free(back);
	check(memcmp(quire_buf_ptr(xa), x, sizeof(x)) == 0,
	      "A's buffer still there after the import's free");

	st = quire_buf_import(b, fd, &xb);
	close(fd); /* B holds its own reference */
	snprintf(msg, sizeof(msg), "quire_buf_import into B: %s, %zu bytes", quire_strerror(st),
		 quire_buf_size(xb));
	if (!check(st == QUIRE_OK && quire_buf_size(xb) == sizeof(x), msg))
		goto out;
	quire_buf_free(xa); /* from here only B's import holds the memory */
	check(memcmp(quire_buf_ptr(xb), x, sizeof(x)) == 0, "B reads what A wrote");

	if (quire_buf_alloc(b, N, &q) != QUIRE_OK || quire_buf_alloc(b, BLOCKS, &e) != QUIRE_OK) {
		check(0, "B's buffers for the encode");
		goto out;
	}
	struct quire_op op = {.opcode = QUIRE_OPC_ENCODE,
			      .format = QUIRE_FMT_BFP8,
			      .count = N,
			      .src = {xb, 0},
			      .dst = {q, 0},
			      .exp = {e, 0}};
	st = quire_run(b, &op, NULL);
	int8_t want_q[N], want_e[BLOCKS];
	int gold = quire_codec_encode(QUIRE_FMT_BFP8, N, x, NULL, NULL, want_e, want_q);
	snprintf(msg, sizeof(msg),
		 "the card encodes from the import (%s): the bits of quire_codec_encode",
		 quire_strerror(st));
	check(st == QUIRE_OK && gold == QUIRE_OK && memcmp(quire_buf_ptr(q), want_q, N) == 0 &&
		  memcmp(quire_buf_ptr(e), want_e, BLOCKS) == 0,
	      msg);

	int nul = open("/dev/null", O_RDWR);
	struct quire_buf *bad = NULL;
	st = quire_buf_import(b, nul, &bad);
	snprintf(msg, sizeof(msg), "importing /dev/null: %s", quire_strerror(st));
	check(st == QUIRE_ERR_INVALID && bad == NULL, msg);
	close(nul);
out:
	quire_close(a);
	quire_close(b);
	printf("prime api: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
