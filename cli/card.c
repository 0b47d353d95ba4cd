// SPDX-License-Identifier: MIT
/* quire info and quire selftest: a card (or any backend) as its user meets it. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli.h"
#include "quire.h"
#include "quire/regs.h"

static const char info_help[] =
    "Usage: quire info [--backend URI]\n"
    "Describe a backend's card: board, firmware, capabilities, register blocks.\n\n"
    "  -b, --backend URI  cpu; sim (start a card process; the default);\n"
    "                     sim:PATH (a running quire-sim on socket PATH);\n"
    "                     sim:cluster (inside quire-cluster: this rank's card);\n"
    "                     sim:inproc (a card inside this process;\n"
    "                     sim:inproc,net=DIR,addr=N with a network port);\n"
    "                     kdrv (the first card of the quire kernel driver),\n"
    "                     kdrv:/dev/dri/renderDN, kdrv:pci:DDDD:BB:DD.F\n"
    "                     xrt, xrt:N, xrt:DDDD:BB:DD.F (a card through Xilinx XRT,\n"
    "                     the xclbin named by QUIRE_XCLBIN);\n"
    "                     opencl (platform 0, device 0), opencl:PLATFORM:DEVICE\n"
    "  -h, --help         this text\n";

int cli_open(const char *cmd, const char *uri, struct quire_ctx **ctx)
{
	int st = quire_open(uri, ctx);
	int kdrv = strncmp(uri, "kdrv", 4) == 0 && (uri[4] == '\0' || uri[4] == ':');
	if (kdrv && st == QUIRE_ERR_NO_DEVICE)
		return cli_fail("%s: backend '%s': %s (no render node of the quire kernel driver: "
				"is quire.ko loaded, and libdrm.so.2 installed? driver/README.md)",
				cmd, uri, quire_strerror(st));
	if (kdrv && st == QUIRE_ERR_INVALID)
		return cli_fail("%s: backend '%s': %s (kdrv URIs: kdrv, kdrv:/dev/dri/renderDN, "
				"kdrv:pci:DDDD:BB:DD.F)",
				cmd, uri, quire_strerror(st));
	int xrt = strncmp(uri, "xrt", 3) == 0 && (uri[3] == '\0' || uri[3] == ':');
	if (xrt && st == QUIRE_ERR_NO_DEVICE)
		return cli_fail(
		    "%s: backend '%s': no XRT device (%s: needs XRT's libxrt_coreutil.so.2, "
		    "XILINX_XRT naming a directory whose lib/ holds libxrt_core.so.2, "
		    "and a card XRT opens whose xclbin, QUIRE_XCLBIN, is for one of "
		    "boards/; docs/backend-xrt.md)",
		    cmd, uri, quire_strerror(st));
	if (xrt && st == QUIRE_ERR_INVALID)
		return cli_fail("%s: backend '%s': %s (xrt URIs: xrt, xrt:N, xrt:DDDD:BB:DD.F; "
				"QUIRE_XCLBIN must name the card's xclbin)",
				cmd, uri, quire_strerror(st));
	if (xrt && st == QUIRE_ERR_VERSION)
		return cli_fail("%s: backend '%s': %s (the xclbin's UUID is not the one its board "
				"pins, boards/*.toml [xrt] xclbin_uuid, nor QUIRE_XRT_UUID)",
				cmd, uri, quire_strerror(st));
	int opencl = strncmp(uri, "opencl", 6) == 0 && (uri[6] == '\0' || uri[6] == ':');
	if (opencl && st == QUIRE_ERR_NO_DEVICE)
		return cli_fail("%s: backend '%s': %s (no such OpenCL platform and device: is "
				"libOpenCL.so.1 installed, with an ICD such as pocl-opencl-icd? "
				"docs/backend-opencl.md)",
				cmd, uri, quire_strerror(st));
	if (opencl && st == QUIRE_ERR_INVALID)
		return cli_fail(
		    "%s: backend '%s': %s (opencl URIs: opencl, opencl:PLATFORM:DEVICE, "
		    "indices from 0)",
		    cmd, uri, quire_strerror(st));
	if (st == QUIRE_ERR_NO_DEVICE)
		return cli_fail("%s: backend '%s': %s (URIs: cpu, sim, sim:PATH, sim:cluster, "
				"sim:inproc, kdrv, xrt, opencl)",
				cmd, uri, quire_strerror(st));
	if (st && quire_open_fault())
		return cli_fail("%s: backend '%s': %s: %s", cmd, uri, quire_strerror(st),
				quire_open_fault());
	if (st)
		return cli_fail("%s: backend '%s': %s", cmd, uri, quire_strerror(st));
	return 0;
}

/* Every OpenCL platform's devices, by the URI that opens each. */
static void list_opencl(void)
{
	printf("opencl devices:\n");
	for (unsigned p = 0; p < 256; p++) {
		unsigned d = 0;
		for (; d < 256; d++) {
			char uri[32];
			struct quire_ctx *ctx;
			struct quire_info in;
			snprintf(uri, sizeof(uri), "opencl:%u:%u", p, d);
			if (quire_open(uri, &ctx) != QUIRE_OK)
				break;
			if (quire_get_info(ctx, &in) == QUIRE_OK)
				printf("  %-14s %s\n", uri, in.board);
			quire_close(ctx);
		}
		if (d == 0)
			break;
	}
}

static int card_info(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"backend", required_argument, 0, 'b'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *uri = "sim";
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:h", opts, NULL)) != -1) {
		if (c == 'b')
			uri = optarg;
		else if (c == 'h')
			return fputs(info_help, stdout), 0;
		else
			return cli_bad_option("info", c, argv);
	}
	if (optind != argc)
		return cli_usage_error("info", "unexpected argument '%s'", argv[optind]);
	struct quire_ctx *ctx;
	if (cli_open("info", uri, &ctx))
		return CLI_EXIT_FAIL;
	struct quire_info in;
	int st = quire_get_info(ctx, &in);
	if (st) {
		quire_close(ctx);
		return cli_fail("info: %s", quire_strerror(st));
	}
	static const char *const states[] = {"booting", "running", "halted"};
	printf("backend        %s\n", in.backend);
	printf("board          %s\n", in.board);
	printf("interface      version %u (this library: %u)\n", in.if_version,
	       QUIRE_INTERFACE_VERSION);
	printf("firmware       build %08x, %s\n", in.fw_build,
	       in.fw_state < 3 ? states[in.fw_state] : "unknown state");
	printf("hardware       build %016llx\n", (unsigned long long)in.hw_build);
	printf("capabilities  %s%s%s%s\n", in.caps & QUIRE_CAP_CODEC ? " codec" : "",
	       in.caps & QUIRE_CAP_REDUCE ? " reduce" : "", in.caps & QUIRE_CAP_MLP ? " mlp" : "",
	       in.caps & QUIRE_CAP_NET ? " net" : "");
	if (in.mem_bytes)
		printf("card memory    %llu MiB, clock %u MHz\n",
		       (unsigned long long)(in.mem_bytes >> 20), in.clock_hz / 1000000);
	printf("commands       %u completed, %u with errors\n", in.cmds_ok, in.cmds_err);
	if (in.net.link)
		printf(
		    "network port   address %u, link up; %u frames sent (%llu bytes), %u received, "
		    "%u bad, %u to no one, %llu sent again\n",
		    in.net.addr, in.net.tx_frames, (unsigned long long)in.net.tx_bytes,
		    in.net.rx_frames, in.net.rx_errors, in.net.tx_drops,
		    (unsigned long long)in.net.retransmits);
	else if (in.caps & QUIRE_CAP_NET || in.n_blocks)
		printf("network port   link down (start the card on a network: quire-sim --net)\n");
	if (in.n_blocks) {
		printf("register blocks (walked from BAR0 offset 0):\n");
		for (uint32_t i = 0; i < in.n_blocks; i++)
			printf("  0x%04x  %-9s type %08x  version %u.%u\n", in.blocks[i].offset,
			       quire_block_name(in.blocks[i].type), in.blocks[i].type,
			       in.blocks[i].version >> 16, in.blocks[i].version & 0xffff);
	}
	quire_close(ctx);
	if (strcmp(in.backend, "opencl") == 0)
		list_opencl();
	return 0;
}

/* ---- selftest --------------------------------------------------------------- */

static const char selftest_help[] =
    "Usage: quire selftest [--backend URI] [--max-size BYTES]\n"
    "Run every operation on the backend and on cpu with the same inputs (random and\n"
    "edge-case), and compare every output bit. One line per check, then a summary.\n"
    "Operations of an engine the card's capabilities do not name are skipped (said so),\n"
    "and so is a check the card answers with 'operation not supported'.\n\n"
    "  -b, --backend URI     as for quire info (default: sim)\n"
    "  -m, --max-size BYTES  largest fp32 tensor (default 16MiB)\n"
    "  -h, --help            this text\n";

struct selftest {
	struct quire_ctx *dev, *cpu;
	unsigned passed, failed, skipped;
	uint32_t caps; /* the card's (quire_get_info): engines it lacks are skipped */
	uint64_t rng;
};

static uint64_t next(struct selftest *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

/* Gradients with every kind of block the contract names: zeros, subnormals, huge values, ties, NaN,
 * Inf. */
static void gradients(struct selftest *t, float *x, size_t n)
{
	for (size_t b = 0; b * 64 < n; b++) {
		uint32_t kind = (uint32_t)(next(t) % 9);
		int scale = (int)(next(t) % 60) - 40;
		for (size_t j = 0; j < 64 && b * 64 + j < n; j++) {
			uint32_t bits = (uint32_t)next(t);
			float v;
			switch (kind) {
			case 0:
				v = (bits & 1) ? -0.0f : 0.0f;
				break;
			case 1:
				bits &= 0x807fffffu; /* subnormal */
				memcpy(&v, &bits, 4);
				break;
			case 2:
				bits = 0x7e800000u + (bits & 0x00ffffffu) % 0x00ffffffu;
				memcpy(&v, &bits, 4);
				break;
			case 3:
				v = j == 0 ? 1.0f : ((float)(bits % 127) - 63.5f) / 64;
				break;
			default:
				v = ldexpf(((float)(bits >> 8) / 16777216.0f) - 0.5f, scale);
			}
			x[b * 64 + j] = v;
		}
		if (next(t) % 16 == 0) {
			static const uint32_t specials[] = {0x7fc00000u, 0xff800000u, 0x7f800000u,
							    0x7fa00001u};
			memcpy(&x[b * 64 + next(t) % 64 % (n - b * 64 < 64 ? n - b * 64 : 64)],
			       &specials[next(t) % 4], 4);
		}
	}
}

struct io {
	size_t bytes;
	const void *init; /* NULL: filled with a pattern, the same on both backends */
};

/* Run op on both backends with the same buffers' contents; compare status, result, all buffers. */
static void check(struct selftest *t, const char *name, struct quire_op op, const struct io io[4])
{
	struct quire_ctx *ctxs[2] = {t->dev, t->cpu};
	struct quire_buf *bufs[2][4] = {{0}};
	int st[2] = {0, 0};
	uint32_t result[2] = {0, 0};
	const char *why = NULL;
	struct quire_ref *refs[4] = {&op.src, &op.dst, &op.exp, &op.aux};
	for (int k = 0; k < 2 && !why; k++) {
		for (int f = 0; f < 4 && !why; f++) {
			*refs[f] = (struct quire_ref){NULL, 0};
			if (!io[f].bytes)
				continue;
			st[k] = quire_buf_alloc(ctxs[k], io[f].bytes, &bufs[k][f]);
			if (st[k] != QUIRE_OK) {
				why = "cannot allocate buffers";
				break;
			}
			if (io[f].init)
				memcpy(quire_buf_ptr(bufs[k][f]), io[f].init, io[f].bytes);
			else
				memset(quire_buf_ptr(bufs[k][f]), 0xa5, io[f].bytes);
			*refs[f] = (struct quire_ref){bufs[k][f], 0};
		}
		if (!why)
			st[k] = quire_run(ctxs[k], &op, &result[k]);
	}
	if (!why && st[0] == QUIRE_ERR_NOT_SUPPORTED && st[1] == QUIRE_OK) {
		/* The card says it cannot (an engine without that mode): not a wrong answer. */
		t->skipped++;
		printf("skip %-44s the card does not support it (%s)\n", name,
		       quire_strerror(st[0]));
		fflush(stdout);
		for (int k = 0; k < 2; k++)
			for (int f = 0; f < 4; f++)
				quire_buf_free(bufs[k][f]);
		return;
	}
	if (!why && st[0] != st[1])
		why = "status differs";
	if (!why && result[0] != result[1])
		why = "result differs";
	for (int f = 0; f < 4 && !why; f++)
		if (io[f].bytes &&
		    memcmp(quire_buf_ptr(bufs[0][f]), quire_buf_ptr(bufs[1][f]), io[f].bytes) != 0)
			why = f == 0   ? "src differs"
			      : f == 1 ? "dst differs"
			      : f == 2 ? "exp differs"
				       : "aux differs";
	if (why) {
		t->failed++;
		printf("FAIL %-44s %s (status %s / cpu %s)\n", name, why, quire_strerror(st[0]),
		       quire_strerror(st[1]));
	} else {
		t->passed++;
		printf("ok   %-44s %s\n", name, st[0] == QUIRE_OK ? "" : quire_strerror(st[0]));
	}
	fflush(stdout);
	for (int k = 0; k < 2; k++)
		for (int f = 0; f < 4; f++)
			quire_buf_free(bufs[k][f]);
}

static void codec_checks(struct selftest *t, size_t n)
{
	float *x = malloc(4 * n), *r = malloc(4 * n);
	int8_t *exp = malloc(QUIRE_BFP_BLOCKS(n));
	int32_t *sums = malloc(4 * n);
	if (!x || !r || !exp || !sums) {
		t->failed++;
		printf("FAIL out of memory for n=%zu\n", n);
		goto out;
	}
	gradients(t, x, n);
	gradients(t, r, n);
	for (size_t i = 0; i < n; i++)
		r[i] = isfinite(r[i]) ? r[i] * 0.001f : 0.0f;
	size_t nb = QUIRE_BFP_BLOCKS(n);
	char name[96];
	static const enum quire_format fmts[] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16, QUIRE_FMT_FP16};
	for (int f = 0; f < 3; f++) {
		enum quire_format fmt = fmts[f];
		int bfp = fmt != QUIRE_FMT_FP16;
		size_t vb = quire_format_bytes(fmt, 1);
		struct quire_op op = {
		    .opcode = QUIRE_OPC_ENCODE, .format = fmt, .count = (uint32_t)n};
		struct io io[4] = {{4 * n, x}, {vb * n, NULL}, {bfp ? nb : 0, NULL}, {0, NULL}};
		snprintf(name, sizeof(name), "encode %s n=%zu", quire_format_name(fmt), n);
		check(t, name, op, io);
		if (!bfp)
			continue;
		op.flags = QUIRE_CMD_F_EF;
		io[3] = (struct io){4 * n, r};
		snprintf(name, sizeof(name), "encode %s + error feedback n=%zu",
			 quire_format_name(fmt), n);
		check(t, name, op, io);
		/* Shared exponents: another worker's, max'ed with ours, as a reduction agrees them.
		 */
		quire_codec_exponents(fmt, n, x, NULL, exp);
		for (size_t b = 0; b < nb; b++)
			exp[b] = exp[b] < 100 ? (int8_t)(exp[b] + (int8_t)(next(t) % 3)) : exp[b];
		op = (struct quire_op){.opcode = QUIRE_OPC_ENCODE,
				       .flags = QUIRE_CMD_F_SHARED_EXP,
				       .format = fmt,
				       .count = (uint32_t)n};
		io[2] = (struct io){nb, exp};
		io[3] = (struct io){0, NULL};
		snprintf(name, sizeof(name), "encode %s, shared exponents n=%zu",
			 quire_format_name(fmt), n);
		check(t, name, op, io);
		op = (struct quire_op){.opcode = QUIRE_OPC_EXPONENTS,
				       .flags = QUIRE_CMD_F_EF,
				       .format = fmt,
				       .count = (uint32_t)n};
		struct io eio[4] = {{4 * n, x}, {0, NULL}, {nb, NULL}, {4 * n, r}};
		snprintf(name, sizeof(name), "exponents %s + error feedback n=%zu",
			 quire_format_name(fmt), n);
		check(t, name, op, eio);
	}
	/* Decode exact sums of up to 8 workers, as a mean over 8. */
	quire_codec_exponents(QUIRE_FMT_BFP8, n, x, NULL, exp);
	for (size_t i = 0; i < n; i++)
		sums[i] = (int32_t)(next(t) % 2033) - 1016;
	struct quire_op op = {.opcode = QUIRE_OPC_DECODE,
			      .format = QUIRE_FMT_BFP8,
			      .val_format = QUIRE_FMT_INT32,
			      .count = (uint32_t)n,
			      .workers = 8};
	struct io dio[4] = {{4 * n, sums}, {4 * n, NULL}, {nb, exp}, {0, NULL}};
	snprintf(name, sizeof(name), "decode bfp8 int32 sums, mean of 8 n=%zu", n);
	check(t, name, op, dio);
	/* Reduce: W = 4 int8 vectors into int32, stride with a gap. */
	size_t stride = n + 64;
	int8_t *q = t->caps & QUIRE_CAP_REDUCE ? malloc(4 * stride) : NULL;
	if (q) {
		for (size_t i = 0; i < 4 * stride; i++)
			q[i] = (int8_t)(next(t) % 255 - 127);
		op = (struct quire_op){.opcode = QUIRE_OPC_REDUCE,
				       .format = QUIRE_FMT_INT32,
				       .val_format = QUIRE_FMT_INT8,
				       .count = (uint32_t)n,
				       .workers = 4,
				       .stride = stride};
		struct io rio[4] = {{3 * stride + n, q}, {4 * n, NULL}, {0, NULL}, {0, NULL}};
		snprintf(name, sizeof(name), "reduce int8 -> int32, W=4 n=%zu", n);
		check(t, name, op, rio);
		free(q);
	}
out:
	free(x);
	free(r);
	free(exp);
	free(sums);
}

static void mlp_checks(struct selftest *t)
{
	static uint8_t img[65536];
	const uint32_t n0 = 24, c = 1000;
	size_t len = cli_model_image(img, 3, (const uint32_t[]){n0, 32, 16, 1}, &t->rng);
	struct quire_op load = {.opcode = QUIRE_OPC_MLP_LOAD, .count = (uint32_t)len};
	struct io lio[4] = {{len, img}, {0, NULL}, {0, NULL}, {0, NULL}};
	check(t, "mlp load [24, 32, 16, 1]", load, lio);
	int8_t *feat = malloc((size_t)c * n0);
	uint8_t *feas = malloc(c);
	for (uint32_t i = 0; i < c * n0; i++)
		feat[i] = (int8_t)next(t);
	for (uint32_t i = 0; i < c; i++)
		feas[i] = next(t) % 4 != 0;
	struct quire_op score = {.opcode = QUIRE_OPC_MLP_SCORE, .count = c};
	struct io sio[4] = {{(size_t)c * n0, feat}, {4 * c, NULL}, {0, NULL}, {c, feas}};
	check(t, "mlp score 1000 candidates", score, sio);
	memset(feas, 0, c);
	check(t, "mlp score, none feasible", score, sio);
	free(feat);
	free(feas);
}

static int card_selftest(int argc, char **argv)
{
	static const struct option opts[] = {{"backend", required_argument, 0, 'b'},
					     {"max-size", required_argument, 0, 'm'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *uri = "sim";
	uint64_t max_bytes = 16u << 20;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:m:h", opts, NULL)) != -1) {
		if (c == 'b') {
			uri = optarg;
		} else if (c == 'm') {
			max_bytes = cli_parse_size(optarg);
			if (max_bytes < 4 || max_bytes > (256u << 20))
				return cli_usage_error("selftest", "--max-size: 4 bytes to 256MiB");
		} else if (c == 'h') {
			return fputs(selftest_help, stdout), 0;
		} else {
			return cli_bad_option("selftest", c, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("selftest", "unexpected argument '%s'", argv[optind]);
	struct selftest t = {.rng = 0x9e3779b97f4a7c15ull};
	if (cli_open("selftest", uri, &t.dev))
		return CLI_EXIT_FAIL;
	if (quire_open("cpu", &t.cpu) != QUIRE_OK) {
		quire_close(t.dev);
		return cli_fail("selftest: cannot open the cpu backend");
	}
	struct quire_info in;
	if (quire_get_info(t.dev, &in) != QUIRE_OK) {
		memset(&in, 0, sizeof(in));
		snprintf(in.board, sizeof(in.board), "unknown board");
		in.caps = QUIRE_CAP_CODEC | QUIRE_CAP_REDUCE | QUIRE_CAP_MLP; /* test them all */
	}
	t.caps = in.caps;
	printf("quire selftest: backend %s (%s), against cpu\n", uri, in.board);
	static const struct {
		uint32_t cap;
		const char *engine, *ops;
	} engines[] = {{QUIRE_CAP_CODEC, "codec", "encode, exponents, decode"},
		       {QUIRE_CAP_REDUCE, "reduce", "reduce"},
		       {QUIRE_CAP_MLP, "mlp", "mlp load, mlp score"}};
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!(t.caps & engines[i].cap))
			printf("skipped: the card has no %s engine (its capabilities do not name "
			       "it): %s\n",
			       engines[i].engine, engines[i].ops);
	struct quire_op nop = {.opcode = QUIRE_OPC_NOP};
	struct io none[4] = {{0, NULL}};
	check(&t, "nop", nop, none);
	/* Edges of a block and of a line of blocks; sizes that end inside a card's chunks (its
	 * firmware moves 32 Ki, 16 Ki and 4 Ki elements at a time); a long odd one. */
	static const size_t sizes[] = {1, 63, 64, 65, 4099, 20481, 40000, (1u << 20) + 7};
	if (t.caps & QUIRE_CAP_CODEC) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (sizes[i] * 4 <= max_bytes)
				codec_checks(&t, sizes[i]);
		codec_checks(&t, (size_t)(max_bytes / 4));
	}
	if (t.caps & QUIRE_CAP_MLP)
		mlp_checks(&t);
	if (t.skipped)
		printf("selftest: %u passed, %u failed, %u skipped\n", t.passed, t.failed,
		       t.skipped);
	else
		printf("selftest: %u passed, %u failed\n", t.passed, t.failed);
	quire_close(t.cpu);
	quire_close(t.dev);
	return t.failed ? CLI_EXIT_FAIL : 0;
}

int cli_info(int argc, char **argv)
{
	return card_info(argc + 1, argv - 1);
}

int cli_selftest(int argc, char **argv)
{
	return card_selftest(argc + 1, argv - 1);
}
