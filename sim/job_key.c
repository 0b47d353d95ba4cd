// SPDX-License-Identifier: MIT
/*
 * The job key of the cards' UDP network (job_key.h): read from the environment or a file
 * whose owner and mode are checked, or made from the kernel's random bytes.
 */
#include "sim/job_key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quire/status.h"
#include "sim/why.h"

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits into bytes (n even): -1 when all are hex, else the position (from 1) of the
 * first that is not. */
static long unhex(const char *hex, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i += 2) {
		int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
		if (hi < 0 || lo < 0)
			return (long)(hi < 0 ? i + 1 : i + 2);
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return -1;
}

int quire_job_key_parse(const char *hex, size_t n, struct quire_job_key *k, char *why,
			size_t why_len)
{
	memset(k, 0, sizeof(*k));
	if (n && hex[n - 1] == '\n')
		n--;
	if (n != 2 * QUIRE_JOB_KEY_BYTES && n != 2 * QUIRE_JOB_KEY_MAX_BYTES)
		return quire_sim_why(why, why_len, QUIRE_ERR_INVALID,
				     "the job key has %zu hex digits: it takes 32 (128 bits) or 64",
				     n);
	long bad = unhex(hex, n, k->bytes);
	if (bad >= 0) {
		memset(k, 0, sizeof(*k));
		return quire_sim_why(why, why_len, QUIRE_ERR_INVALID,
				     "the job key is not hex: the character at position %ld", bad);
	}
	k->len = (uint32_t)(n / 2);
	return QUIRE_OK;
}

int quire_job_key_load_file(const char *path, struct quire_job_key *k, char *why, size_t why_len)
{
	memset(k, 0, sizeof(*k));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return quire_sim_why(
		    why, why_len, errno == ELOOP ? QUIRE_ERR_INVALID : QUIRE_ERR_NO_DEVICE,
		    "job key file %s: %s", path,
		    errno == ELOOP ? "a symbolic link (name the file itself)" : strerror(errno));
	struct stat sb;
	int st = QUIRE_OK;
	if (fstat(fd, &sb) != 0)
		st = quire_sim_why(why, why_len, QUIRE_ERR_NO_DEVICE, "job key file %s: %s", path,
				   strerror(errno));
	else if (!S_ISREG(sb.st_mode))
		st = quire_sim_why(why, why_len, QUIRE_ERR_INVALID,
				   "job key file %s: not a regular file", path);
	else if (sb.st_uid != geteuid())
		st = quire_sim_why(why, why_len, QUIRE_ERR_INVALID,
				   "job key file %s: owned by uid %u, not by this user (uid %u)",
				   path, (unsigned)sb.st_uid, (unsigned)geteuid());
	else if (sb.st_mode & 077)
		st = quire_sim_why(
		    why, why_len, QUIRE_ERR_INVALID,
		    "job key file %s: mode %04o lets others read or write it (chmod 600)", path,
		    (unsigned)(sb.st_mode & 07777));
	char text[2 * QUIRE_JOB_KEY_MAX_BYTES + 2];
	ssize_t got = st == QUIRE_OK ? read(fd, text, sizeof(text)) : 0;
	close(fd);
	if (st != QUIRE_OK)
		return st;
	if (got < 0)
		return quire_sim_why(why, why_len, QUIRE_ERR_NO_DEVICE, "job key file %s: %s", path,
				     strerror(errno));
	char inner[256];
	st = quire_job_key_parse(text, (size_t)got, k, inner, sizeof(inner));
	if (st != QUIRE_OK)
		return quire_sim_why(why, why_len, st, "job key file %s: %s", path,
				     (size_t)got == sizeof(text)
					 ? "longer than 64 hex digits and a newline"
					 : inner);
	return QUIRE_OK;
}

int quire_job_key_from_env(struct quire_job_key *k, char *why, size_t why_len)
{
	memset(k, 0, sizeof(*k));
	const char *hex = getenv(QUIRE_JOB_KEY_ENV), *file = getenv(QUIRE_JOB_KEY_FILE_ENV);
	if (hex && *hex && file && *file)
		return quire_sim_why(why, why_len, QUIRE_ERR_INVALID,
				     "both %s and %s are set: give the job key one way",
				     QUIRE_JOB_KEY_ENV, QUIRE_JOB_KEY_FILE_ENV);
	if (hex && *hex) {
		char inner[200];
		int st = quire_job_key_parse(hex, strlen(hex), k, inner, sizeof(inner));
		return st == QUIRE_OK
			   ? st
			   : quire_sim_why(why, why_len, st, "%s: %s", QUIRE_JOB_KEY_ENV, inner);
	}
	if (file && *file)
		return quire_job_key_load_file(file, k, why, why_len);
	return QUIRE_OK;
}

int quire_job_random(uint8_t *out, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t k = getrandom(out + off, n - off, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return QUIRE_ERR_IO;
		off += (size_t)k;
	}
	return QUIRE_OK;
}

void quire_job_hex(const uint8_t *bytes, size_t n, char *out)
{
	static const char digit[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digit[bytes[i] >> 4];
		out[2 * i + 1] = digit[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

int quire_job_run_from_env(uint8_t run[QUIRE_JOB_RUN_BYTES])
{
	memset(run, 0, QUIRE_JOB_RUN_BYTES);
	const char *hex = getenv(QUIRE_JOB_RUN_ENV);
	if (!hex || !*hex)
		return 0;
	if (strlen(hex) != 2 * QUIRE_JOB_RUN_BYTES || unhex(hex, strlen(hex), run) >= 0) {
		memset(run, 0, QUIRE_JOB_RUN_BYTES);
		return -1;
	}
	return 1;
}
