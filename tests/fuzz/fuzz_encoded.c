// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the encoded-file reader (quire_encoded_read, docs/codec-file.md).
 *
 * An input is a whole file. The reader takes it or refuses it with a known status and a
 * named fault; a file it takes is one the writer writes: written again, it is the same
 * bytes (so the reader takes nothing the writer would not write). The files live in
 * memory (memfd), reached by path as any file. Build and run: make fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "quire.h"

static int in_fd = -1, out_fd = -1;
static char in_path[64], out_path[64];

static void setup(void)
{
	in_fd = memfd_create("quire-fuzz-in", 0);
	out_fd = memfd_create("quire-fuzz-out", 0);
	if (in_fd < 0 || out_fd < 0)
		abort();
	snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", in_fd);
	snprintf(out_path, sizeof(out_path), "/proc/self/fd/%d", out_fd);
}

/* The writer's file is exactly the input. */
static int rewritten_same(const uint8_t *data, size_t size)
{
	if (lseek(out_fd, 0, SEEK_END) != (off_t)size)
		return 0;
	uint8_t *back = malloc(size);
	int same =
	    back && pread(out_fd, back, size, 0) == (ssize_t)size && memcmp(back, data, size) == 0;
	free(back);
	return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (in_fd < 0)
		setup();
	if (ftruncate(in_fd, 0) != 0 || pwrite(in_fd, data, size, 0) != (ssize_t)size)
		abort();
	struct quire_encoded e;
	int st = quire_encoded_read(in_path, &e);
	const char *fault = quire_encoded_fault(in_path);
	if (st == QUIRE_OK) {
		if (fault || quire_encoded_write(out_path, &e) != QUIRE_OK ||
		    !rewritten_same(data, size)) {
			fprintf(stderr, "taken, but not what the writer writes (fault: %s)\n",
				fault ? fault : "none");
			abort();
		}
		quire_encoded_free(&e);
	} else if ((st != QUIRE_ERR_CORRUPT && st != QUIRE_ERR_VERSION) || !fault || e.vals ||
		   e.exp) {
		fprintf(stderr, "refused with status %d (%s), fault %s\n", st, quire_strerror(st),
			fault ? fault : "none");
		abort();
	}
	return 0;
}
