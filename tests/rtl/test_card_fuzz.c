// SPDX-License-Identifier: MIT
/*
 * The fuzz corpus (tests/fuzz/corpus) replayed on the RTL card (quire-sim's rtl device:
 * the firmware ELF on the core) and on the emu, each input as fuzz_card.c runs it
 * (tests/fuzz/fuzz_host.c): the RTL card must answer every descriptor, in order, each
 * within FUZZ_HANG_CYCLES of its own clock (no hang; no wall-clock limit, so an input
 * passes or fails alike on a machine of any speed or load), serve a NOP after each input,
 * and give each descriptor the emu's completion: status, detail, opcode and result. The emu is made
 * the RTL card's twin: its caps do not name the engines the RTL card lacks. No difference is
 * allowed.
 *
 * Usage: test_card_fuzz FIRMWARE.elf [--every K] FILE|DIR...
 * --every K replays every K-th input of the sorted list (the whole list by default).
 * Prints the longest wait for a completion in the RTL card's cycles (the figure
 * FUZZ_HANG_CYCLES is chosen against), and "rtl fuzz replay: N passed, N failed" (one
 * case per input).
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sim/emu/emu.h"
#include "sim/rtl/rtl_device.h"
#include "tests/fuzz/fuzz_host.h"
#include "quire/format.h"
#include "quire/regs.h"
#include "quire/status.h"

#define INPUT_BYTES 4096
#define MAX_FILES   4096
#define ALL_ENGINES (QUIRE_CAP_CODEC | QUIRE_CAP_REDUCE | QUIRE_CAP_MLP)

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files named, a directory standing for its files; sorted. */
static size_t list_inputs(char **args, int n, char **out)
{
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (stat(args[i], &st) != 0)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (k < MAX_FILES)
				out[k++] = strdup(args[i]);
			continue;
		}
		DIR *d = opendir(args[i]);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL && k < MAX_FILES) {
			if (e->d_name[0] == '.')
				continue;
			size_t len = strlen(args[i]) + strlen(e->d_name) + 2;
			out[k] = malloc(len);
			snprintf(out[k++], len, "%s/%s", args[i], e->d_name);
		}
		if (d)
			closedir(d);
	}
	qsort(out, k, sizeof(out[0]), cmp_str);
	return k;
}

static int same_cpl(const struct quire_cpl *a, const struct quire_cpl *b)
{
	return a->seq == b->seq && a->status == b->status && a->opcode == b->opcode &&
	       a->result == b->result && a->detail == b->detail;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s FIRMWARE.elf [--every K] FILE|DIR...\n", argv[0]);
		return 2;
	}
	int first = 2, every = 1;
	if (argc > 4 && strcmp(argv[2], "--every") == 0) {
		every = atoi(argv[3]);
		first = 4;
	}
	if (every < 1)
		return fprintf(stderr, "--every: 1 or more\n"), 2;
	static char *files[MAX_FILES];
	size_t nfiles = list_inputs(argv + first, argc - first, files);
	if (nfiles == 0)
		return fprintf(stderr, "no input files\n"), 2;

	char error[256] = "";
	struct quire_rtl_config rcfg = {
	    .fw_elf = argv[1], .error = error, .error_len = sizeof error};
	struct quire_device *rtl = quire_rtl_device_create(&rcfg);
	if (!rtl)
		return fprintf(stderr, "the RTL card does not start: %s\n", error), 1;
	uint32_t caps = rtl->ops->mmio_read(rtl, QUIRE_ID_CAPS); /* ID at BAR offset 0 */
	struct quire_emu_config ecfg = {.caps_off = ALL_ENGINES & ~caps};
	struct quire_device *emu = quire_emu_create(&ecfg);
	struct fuzz_host rh, eh;
	if (!emu || fuzz_host_setup(&rh, rtl, FUZZ_HANG_CYCLES) ||
	    fuzz_host_setup(&eh, emu, FUZZ_HANG_CYCLES_EMU))
		return fprintf(stderr, "cannot set up the cards\n"), 1;

	int passed = 0, failed = 0;
	unsigned descriptors = 0, refused = 0;
	double t0 = now();
	const char *longest = "none";
	static uint8_t data[INPUT_BYTES];
	for (size_t f = 0; f < nfiles; f += (size_t)every) {
		FILE *in = fopen(files[f], "rb");
		size_t size = in ? fread(data, 1, sizeof data, in) : 0;
		if (in)
			fclose(in);
		struct fuzz_result rr, er;
		const char *why = NULL;
		int ok = 1;
		if (fuzz_host_run(&eh, data, size, &er, &why)) {
			printf("FAIL %s: emu: %s\n", files[f], why);
			ok = 0;
		} else {
			uint64_t before = rh.longest_wait;
			if (fuzz_host_run(&rh, data, size, &rr, &why)) {
				printf("FAIL %s: rtl: %s\n", files[f], why);
				ok = 0;
			}
			if (rh.longest_wait > before)
				longest = files[f];
		}
		for (size_t i = 0; ok && i < rr.n; i++) {
			const struct quire_cpl *r = &rr.cpls[i], *e = &er.cpls[i];
			const struct quire_cmd *c = &rr.cmds[i];
			descriptors++;
			refused += r->status != QUIRE_OK;
			if (same_cpl(r, e))
				continue;
			printf(
			    "FAIL %s #%zu (opcode %u format %u val_format %u workers %u count %u): "
			    "rtl status %u detail %u result %u, emu status %u detail %u result "
			    "%u\n",
			    files[f], i, c->opcode, c->format, c->val_format, c->workers, c->count,
			    r->status, r->detail, r->result, e->status, e->detail, e->result);
			ok = 0;
		}
		if (ok)
			passed++;
		else
			failed++;
	}
	uint64_t clocked = 0, skipped = 0;
	quire_rtl_device_stats(rtl, &clocked, &skipped);
	printf("rtl fuzz replay: %d inputs (every %d of %zu), %u descriptors (%u refused); %.1f s, "
	       "%" PRIu64 " cycles clocked; longest wait for a completion %" PRIu64
	       " cycles (%s; a hang: %llu)\n",
	       passed + failed, every, nfiles, descriptors, refused, now() - t0, clocked,
	       rh.longest_wait, longest, FUZZ_HANG_CYCLES);
	fuzz_host_free(&rh);
	fuzz_host_free(&eh);
	rtl->ops->destroy(rtl);
	emu->ops->destroy(emu);
	for (size_t f = 0; f < nfiles; f++)
		free(files[f]);
	printf("rtl fuzz replay: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
