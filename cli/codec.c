// SPDX-License-Identifier: MIT
/* quire codec: encode, decode and reduce gradient tensors held in files. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "quire.h"

static const char encode_help[] =
    "Usage: quire codec encode --format FMT [--residual FILE] IN.f32 OUT\n"
    "Encode a raw little-endian fp32 file into a quire tensor file (docs/codec-file.md).\n\n"
    "  -f, --format FMT      bfp8, bfp16 or fp16\n"
    "  -r, --residual FILE   error feedback (bfp only): FILE holds the fp32 residual,\n"
    "                        read if it exists (else zeros) and rewritten\n"
    "  -h, --help            this text\n";

static const char decode_help[] =
    "Usage: quire codec decode [--mean] IN OUT.f32\n"
    "Decode a quire tensor file to raw little-endian fp32.\n\n"
    "  -m, --mean   divide a sum of W encodings by W (the file says W)\n"
    "  -h, --help   this text\n";

static const char reduce_help[] =
    "Usage: quire codec reduce --format FMT [--mean] --out OUT.f32 IN1.f32 ... INW.f32\n"
    "All-reduce W workers' fp32 gradients exactly as W cards do: agree block exponents,\n"
    "quantize each worker with them, sum exactly in int32, decode. Bit for bit what any\n"
    "quire backend returns for the same inputs, in any worker order (bfp8, bfp16).\n\n"
    "  -f, --format FMT   bfp8 or bfp16; also fp16 and fp32 (fp32 sum in worker order)\n"
    "  -m, --mean         the mean instead of the sum\n"
    "  -o, --out FILE     where to write the result (raw fp32)\n"
    "  -h, --help         this text\n";

static enum quire_format parse_format(const char *s, int allow_plain)
{
	enum quire_format f = quire_format_parse(s);
	if (f == QUIRE_FMT_BFP8 || f == QUIRE_FMT_BFP16 || f == QUIRE_FMT_FP16)
		return f;
	if (allow_plain && f == QUIRE_FMT_FP32)
		return f;
	return 0;
}

static float *load_residual(const char *path, size_t n)
{
	FILE *f = fopen(path, "rb");
	if (!f && errno == ENOENT) {
		float *r = calloc(n, sizeof(float)); /* a new residual starts at +0.0 */
		if (!r)
			cli_fail("out of memory");
		return r;
	}
	if (f)
		fclose(f);
	size_t rn = 0;
	float *r = cli_read_f32(path, &rn);
	if (r && rn != n) {
		cli_fail("%s: residual has %zu elements, the input %zu", path, rn, n);
		free(r);
		return NULL;
	}
	return r;
}

static int codec_encode(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, 0, 'f'},
					     {"residual", required_argument, 0, 'r'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *fmt_s = NULL, *resid_path = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:r:h", opts, NULL)) != -1) {
		if (c == 'f')
			fmt_s = optarg;
		else if (c == 'r')
			resid_path = optarg;
		else if (c == 'h')
			return fputs(encode_help, stdout), 0;
		else
			return cli_bad_option("codec encode", c, argv);
	}
	if (!fmt_s)
		return cli_usage_error("codec encode", "--format is required");
	enum quire_format fmt = parse_format(fmt_s, 0);
	if (!fmt)
		return cli_usage_error("codec encode", "unknown format '%s' (bfp8, bfp16, fp16)",
				       fmt_s);
	if (argc - optind != 2)
		return cli_usage_error("codec encode", "expected IN.f32 and OUT, got %d file(s)",
				       argc - optind);
	if (resid_path && fmt == QUIRE_FMT_FP16)
		return cli_usage_error("codec encode", "--residual applies to bfp8 and bfp16 only");

	const char *in[] = {argv[optind], resid_path};
	if (cli_output_not_input(argv[optind + 1], in, resid_path ? 2 : 1) ||
	    (resid_path && cli_output_not_input(resid_path, in, 1)))
		return CLI_EXIT_FAIL;
	size_t n = 0;
	float *x = cli_read_f32(argv[optind], &n);
	if (!x)
		return CLI_EXIT_FAIL;
	int rc = CLI_EXIT_FAIL;
	struct cli_output out = {0}, resid_out = {0};
	float *resid = resid_path ? load_residual(resid_path, n) : NULL;
	struct quire_encoded e = {
	    .format = fmt,
	    .val_format = fmt == QUIRE_FMT_BFP8    ? QUIRE_FMT_INT8
			  : fmt == QUIRE_FMT_BFP16 ? QUIRE_FMT_INT16
						   : QUIRE_FMT_FP16,
	    .workers = 1,
	    .n = n,
	};
	e.vals = malloc(quire_format_bytes(e.val_format, n));
	e.exp = fmt == QUIRE_FMT_FP16 ? NULL : malloc(QUIRE_BFP_BLOCKS(n));
	if ((resid_path && !resid) || !e.vals || (fmt != QUIRE_FMT_FP16 && !e.exp)) {
		if (!resid_path || resid)
			cli_fail("out of memory");
		goto out;
	}
	/* Both outputs, or neither: each is written beside its place, then moved there. */
	if (cli_output_open(&out, argv[optind + 1]) ||
	    (resid_path && cli_output_open(&resid_out, resid_path)))
		goto out;
	int st = quire_codec_encode(fmt, n, x, resid, NULL, e.exp, e.vals);
	if (st) {
		cli_fail("encode: %s", quire_strerror(st));
		goto out;
	}
	st = quire_encoded_write(cli_output_file(&out), &e);
	if (st) {
		cli_fail("%s: %s%s%s", out.path, quire_strerror(st), st == QUIRE_ERR_IO ? ": " : "",
			 st == QUIRE_ERR_IO ? strerror(errno) : "");
		goto out;
	}
	if ((resid && cli_output_write(&resid_out, resid, n * sizeof(float))) ||
	    cli_output_commit(&out) || cli_output_commit(&resid_out))
		goto out;
	rc = 0;
out:
	cli_output_abort(&out);
	cli_output_abort(&resid_out);
	free(x);
	free(resid);
	free(e.vals);
	free(e.exp);
	return rc;
}

static int codec_decode(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"mean", no_argument, 0, 'm'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int mean = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":mh", opts, NULL)) != -1) {
		if (c == 'm')
			mean = 1;
		else if (c == 'h')
			return fputs(decode_help, stdout), 0;
		else
			return cli_bad_option("codec decode", c, argv);
	}
	if (argc - optind != 2)
		return cli_usage_error("codec decode", "expected IN and OUT.f32, got %d file(s)",
				       argc - optind);
	if (cli_output_not_input(argv[optind + 1], (const char *const *)&argv[optind], 1))
		return CLI_EXIT_FAIL;
	struct quire_encoded e;
	int st = quire_encoded_read(argv[optind], &e);
	if (st == QUIRE_ERR_IO)
		return cli_fail("%s: %s", argv[optind], strerror(errno));
	if (st == QUIRE_ERR_CORRUPT) {
		const char *fault = quire_encoded_fault(argv[optind]);
		return cli_fail("%s: not a valid quire tensor file: %s", argv[optind],
				fault ? fault : "bad header, size or checksum");
	}
	if (st)
		return cli_fail("%s: %s", argv[optind], quire_strerror(st));
	int rc = CLI_EXIT_FAIL;
	struct cli_output out = {0};
	float *y = malloc(e.n * sizeof(float));
	if (!y) {
		cli_fail("out of memory");
	} else if ((st = quire_codec_decode(e.format, e.val_format, e.n, e.vals, e.exp,
					    mean ? e.workers : 1, y))) {
		cli_fail("decode: %s", quire_strerror(st));
	} else if (!cli_output_open(&out, argv[optind + 1]) &&
		   !cli_output_write(&out, y, e.n * sizeof(float)) && !cli_output_commit(&out)) {
		rc = 0;
	}
	cli_output_abort(&out);
	free(y);
	quire_encoded_free(&e);
	return rc;
}

static int codec_reduce(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, 0, 'f'},
					     {"mean", no_argument, 0, 'm'},
					     {"out", required_argument, 0, 'o'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *fmt_s = NULL, *out = NULL;
	int mean = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:mo:h", opts, NULL)) != -1) {
		if (c == 'f')
			fmt_s = optarg;
		else if (c == 'm')
			mean = 1;
		else if (c == 'o')
			out = optarg;
		else if (c == 'h')
			return fputs(reduce_help, stdout), 0;
		else
			return cli_bad_option("codec reduce", c, argv);
	}
	if (!fmt_s || !out)
		return cli_usage_error("codec reduce", "--format and --out are required");
	enum quire_format fmt = parse_format(fmt_s, 1);
	if (!fmt)
		return cli_usage_error("codec reduce",
				       "unknown format '%s' (bfp8, bfp16, fp16, fp32)", fmt_s);
	int w = argc - optind;
	if (w < 1 || w > (int)QUIRE_MAX_WORKERS)
		return cli_usage_error("codec reduce", "expected 1 to %u input files, got %d",
				       QUIRE_MAX_WORKERS, w);
	if (cli_output_not_input(out, (const char *const *)&argv[optind], w))
		return CLI_EXIT_FAIL;
	float **x = calloc((size_t)w, sizeof(*x));
	float *y = NULL;
	int rc = CLI_EXIT_FAIL;
	struct cli_output result = {0};
	size_t n = 0;
	if (!x) {
		cli_fail("out of memory");
		goto out;
	}
	for (int k = 0; k < w; k++) {
		size_t nk = 0;
		if (!(x[k] = cli_read_f32(argv[optind + k], &nk)))
			goto out;
		if (k > 0 && nk != n) {
			cli_fail(
			    "%s: %zu elements, but %s has %zu: all workers need the same shape",
			    argv[optind + k], nk, argv[optind], n);
			goto out;
		}
		n = nk;
	}
	if (!(y = malloc(n * sizeof(float)))) {
		cli_fail("out of memory");
		goto out;
	}
	int st = quire_codec_allreduce(fmt, mean ? QUIRE_OP_MEAN : QUIRE_OP_SUM, (uint32_t)w, n,
				       (const float *const *)x, NULL, y);
	if (st) {
		cli_fail("reduce: %s", quire_strerror(st));
		goto out;
	}
	if (!cli_output_open(&result, out) && !cli_output_write(&result, y, n * sizeof(float)) &&
	    !cli_output_commit(&result))
		rc = 0;
out:
	cli_output_abort(&result);
	for (int k = 0; x && k < w; k++)
		free(x[k]);
	free(x);
	free(y);
	return rc;
}

static const struct cli_command codec_commands[] = {
    {"encode", "fp32 file -> quire tensor file (bfp8, bfp16, fp16)", codec_encode},
    {"decode", "quire tensor file -> fp32 file", codec_decode},
    {"reduce", "all-reduce W fp32 files as W cards would", codec_reduce},
};

int cli_codec(int argc, char **argv)
{
	return cli_dispatch("codec", codec_commands,
			    sizeof(codec_commands) / sizeof(codec_commands[0]), argc, argv);
}
