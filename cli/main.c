// SPDX-License-Identifier: MIT
/* quire: the command-line tool. `quire --help` lists its commands. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "link.h"
#include "quire.h"

static void vreport(const char *fmt, va_list ap)
{
	fputs("quire: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return CLI_EXIT_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'quire %s --help' for more information.\n", cmd);
	return CLI_EXIT_USAGE;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
	const char *arg = argv[optind - 1];
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", arg);
	if (optopt)
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_dispatch(const char *group, const struct cli_command *cmds, size_t count, int argc,
		 char **argv)
{
	if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0 ||
	    strcmp(argv[0], "help") == 0) {
		printf("Usage: quire %s COMMAND [OPTIONS] ...\n\nCommands:\n", group);
		for (size_t i = 0; i < count; i++)
			printf("  %-10s %s\n", cmds[i].name, cmds[i].summary);
		printf("\n'quire %s COMMAND --help' describes a command.\n", group);
		return argc < 1 ? CLI_EXIT_USAGE : 0;
	}
	for (size_t i = 0; i < count; i++)
		if (strcmp(argv[0], cmds[i].name) == 0)
			return cmds[i].run(argc, argv);
	return cli_usage_error(group, "unknown command '%s %s'", group, argv[0]);
}

float *cli_read_f32(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		cli_fail("%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat sb;
	float *x = NULL;
	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
		cli_fail("%s: not a regular file", path);
	} else if (sb.st_size == 0) {
		cli_fail("%s: empty file (raw little-endian fp32 expected)", path);
	} else if (sb.st_size % 4 != 0) {
		cli_fail("%s: size %lld is not a multiple of 4 (raw little-endian fp32 expected)",
			 path, (long long)sb.st_size);
	} else if (!(x = malloc((size_t)sb.st_size))) {
		cli_fail("%s: out of memory for %lld bytes", path, (long long)sb.st_size);
	} else if (fread(x, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
		cli_fail("%s: read error", path);
		free(x);
		x = NULL;
	} else {
		*n = (size_t)sb.st_size / 4;
	}
	fclose(f);
	return x;
}

int cli_output_open(struct cli_output *o, const char *path)
{
	o->path = path;
	o->tmp = NULL;
	struct stat sb;
	int exists = lstat(path, &sb) == 0;
	if (exists && S_ISDIR(sb.st_mode))
		return cli_fail("%s: %s", path, strerror(EISDIR));
	if (exists && !S_ISREG(sb.st_mode))
		return 0;
	size_t len = strlen(path) + sizeof(".quire-XXXXXX");
	if (!(o->tmp = malloc(len)))
		return cli_fail("%s: out of memory", path);
	snprintf(o->tmp, len, "%s.quire-XXXXXX", path);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		int saved = errno;
		free(o->tmp);
		o->tmp = NULL;
		return cli_fail("%s: %s", path, strerror(saved));
	}
	/* mkstemp makes it 0600: give it the mode the file has, or a new file would get. */
	mode_t umask_bits = umask(0);
	umask(umask_bits);
	(void)!fchmod(fd, exists ? sb.st_mode & 07777 : 0666 & ~umask_bits);
	close(fd);
	return 0;
}

int cli_output_not_input(const char *out, const char *const *in, int n)
{
	struct stat so, si;
	if (stat(out, &so) != 0 || !S_ISREG(so.st_mode))
		return 0; /* a new file, or a device written in place: no input of ours */
	for (int k = 0; k < n; k++)
		if (stat(in[k], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return cli_fail("%s: the output is also the input %s: name another output",
					out, in[k]);
	return 0;
}

const char *cli_output_file(const struct cli_output *o)
{
	return o->tmp ? o->tmp : o->path;
}

int cli_output_write(const struct cli_output *o, const void *data, size_t bytes)
{
	FILE *f = fopen(cli_output_file(o), "wb");
	if (!f)
		return cli_fail("%s: %s", o->path, strerror(errno));
	int ok = fwrite(data, 1, bytes, f) == bytes;
	if (fclose(f) != 0)
		ok = 0;
	return ok ? 0 : cli_fail("%s: write error", o->path);
}

int cli_output_commit(struct cli_output *o)
{
	if (!o->tmp)
		return 0;
	if (rename(o->tmp, o->path) != 0) {
		int saved = errno;
		cli_output_abort(o);
		return cli_fail("%s: %s", o->path, strerror(saved));
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void cli_output_abort(struct cli_output *o)
{
	if (!o->tmp)
		return;
	unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

int cli_parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < lo || *v > hi ? -1 : 0;
}

uint64_t cli_parse_size(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return 0;
	static const struct {
		const char *suffix;
		uint64_t mul;
	} units[] = {{"", 1},          {"K", 1024},    {"KiB", 1024},   {"M", 1 << 20},
		     {"MiB", 1 << 20}, {"G", 1 << 30}, {"GiB", 1 << 30}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].suffix) == 0)
			return v > UINT64_MAX / units[i].mul ? 0 : v * units[i].mul;
	return 0;
}

static int cli_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("quire %s (codec: %s)\n", quire_version(), quire_codec_impl_name());
	return 0;
}

static const struct cli_command top_commands[] = {
    {"codec", "encode, decode and reduce gradient tensors (bfp8, bfp16, fp16)", cli_codec},
    {"info", "describe a card: board, firmware, register blocks", cli_info},
    {"selftest", "every operation on a backend against cpu, bit for bit", cli_selftest},
    {"bench", "measure throughput (quire bench codec, card, allreduce)", cli_bench},
    {"link", "run a command per rank in network namespaces on shaped links (quire link run)",
     cli_link},
    {"sched", "replay the GPU cluster trace with placement policies (quire sched replay)",
     cli_sched},
    {"version", "print the version", cli_version},
};

static void top_help(FILE *out)
{
	fprintf(out,
		"quire %s: gradient quantization, exact all-reduce and scheduling inference\n"
		"for FPGA SmartNICs.\n\nUsage: quire COMMAND [OPTIONS] ...\n\nCommands:\n",
		quire_version());
	for (size_t i = 0; i < sizeof(top_commands) / sizeof(top_commands[0]); i++)
		fprintf(out, "  %-10s %s\n", top_commands[i].name, top_commands[i].summary);
	fprintf(out, "\n'quire COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		top_help(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		top_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0)
		return cli_version(0, NULL);
	for (size_t i = 0; i < sizeof(top_commands) / sizeof(top_commands[0]); i++)
		if (strcmp(argv[1], top_commands[i].name) == 0)
			return top_commands[i].run(argc - 2, argv + 2);
	fprintf(stderr, "quire: unknown command '%s'\nTry 'quire --help'.\n", argv[1]);
	return CLI_EXIT_USAGE;
}
