// SPDX-License-Identifier: MIT
/*
 * The xrt backend where no XRT card is: its URIs, its check of XILINX_XRT, and, through a
 * fake libxrt_coreutil (tests/xrt/fake_xrt.c) loaded by the backend's own dlopen path,
 * every way an open fails (no device, no image, an image of no board or of another UUID,
 * a failed load, kernel, buffer or sync) and the whole command protocol on the card model
 * the fake puts behind XRT's calls. The real XRT is met in tests/cli/test_xrt.sh, in
 * processes of their own (XRT 2.13 may end a process it is loaded in).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "host/src/backend/xrt.h"
#include "quire.h"
#include "quire/boards.h"
#include "quire/format.h"
#include "quire/regs.h"

#define U250_PLATFORM QUIRE_BOARD_ALVEO_U250_PLATFORM
#define GOOD_UUID     "0b5e3c1a-7d2f-4e61-9a3b-5c8d7e6f1a20"
#define OTHER_UUID    "0b5e3c1a-7d2f-4e61-9a3b-5c8d7e6f1a21"

static char dir[256], xclbin[300], logpath[300];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A fake xclbin (the fake's own format) for platform, with uuid and kernel. */
static void image(const char *platform, const char *uuid, const char *kernel)
{
	char text[512];
	snprintf(text, sizeof(text), "platform %s\nuuid %s\nkernel %s\n", platform, uuid, kernel);
	write_file(xclbin, text);
}

/* Whether the fake's log holds a line beginning with what; the log is emptied. */
static int logged(const char *what)
{
	FILE *f = fopen(logpath, "r");
	char line[256];
	int found = 0;
	while (f && fgets(line, sizeof(line), f))
		found |= strncmp(line, what, strlen(what)) == 0;
	if (f)
		fclose(f);
	unlink(logpath);
	return found;
}

/* The environment of a working fake card: one device, a good image, its UUID accepted. */
static int setup(void **state)
{
	(void)state;
	setenv("QUIRE_XRT_LIB", QUIRE_TEST_XRT_FAKE, 1);
	setenv("XILINX_XRT", QUIRE_TEST_XRT_ROOT, 1);
	setenv("QUIRE_SIM_LIB", QUIRE_TEST_SIM_LIB, 1);
	setenv("FAKE_XRT_DEVICES", "1", 1);
	setenv("FAKE_XRT_LOG", logpath, 1);
	setenv("QUIRE_XCLBIN", xclbin, 1);
	setenv("QUIRE_XRT_UUID", GOOD_UUID, 1);
	setenv("QUIRE_XRT_HOST_MB", "64", 1);
	unsetenv("FAKE_XRT_FAIL");
	unsetenv("FAKE_XRT_BDF");
	image(U250_PLATFORM, GOOD_UUID, QUIRE_BOARD_ALVEO_U250_XRT_KERNEL);
	unlink(logpath);
	return 0;
}

static void test_parse(void **state)
{
	(void)state;
	struct xrt_where w;
	assert_int_equal(xrt_parse_where(NULL, &w), QUIRE_OK);
	assert_false(w.by_bdf);
	assert_int_equal(w.index, 0);
	assert_int_equal(xrt_parse_where("3", &w), QUIRE_OK);
	assert_int_equal(w.index, 3);
	assert_int_equal(xrt_parse_where("0000:3B:00.1", &w), QUIRE_OK);
	assert_true(w.by_bdf);
	assert_string_equal(w.bdf, "0000:3b:00.1"); /* as XRT and sysfs spell it */
	static const char *const bad[] = {"",
					  "x",
					  "-1",
					  "12345",
					  "3b:00.0",
					  "0000:3b:20.0",
					  "0000:3b:00.8",
					  "0000:3b:00.0x",
					  "0000-3b:00.0",
					  "0000:3b:0.00",
					  "00000:3b:00.0",
					  "0x12"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(xrt_parse_where(bad[i], &w), QUIRE_ERR_INVALID);
	struct quire_ctx *ctx = (void *)1;
	assert_int_equal(quire_open("xrt:bogus", &ctx), QUIRE_ERR_INVALID);
	assert_null(ctx);
}

/* What XRT 2.13 needs before it is called: $XILINX_XRT/lib/libxrt_core.so.2, loadable. */
static void test_check_root(void **state)
{
	(void)state;
	assert_int_equal(xrt_check_root(NULL), QUIRE_ERR_NO_DEVICE);
	assert_int_equal(xrt_check_root(""), QUIRE_ERR_NO_DEVICE);
	assert_int_equal(xrt_check_root("/nonexistent"), QUIRE_ERR_NO_DEVICE);
	assert_int_equal(xrt_check_root(dir), QUIRE_ERR_NO_DEVICE); /* an empty directory */
	char lib[300];
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	assert_int_equal(mkdir(lib, 0700), 0);
	snprintf(lib, sizeof(lib), "%s/lib/libxrt_core.so.2", dir);
	write_file(lib, "not a library"); /* there, but XRT could not load it */
	assert_int_equal(xrt_check_root(dir), QUIRE_ERR_NO_DEVICE);
	unlink(lib);
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	rmdir(lib);
	assert_int_equal(xrt_check_root(QUIRE_TEST_XRT_ROOT), QUIRE_OK);
}

static int open_status(const char *uri)
{
	struct quire_ctx *ctx = (void *)1;
	int st = quire_open(uri, &ctx);
	if (st == QUIRE_OK)
		quire_close(ctx);
	else
		assert_null(ctx);
	return st;
}

/* No usable XRT root: refused before any call into XRT (the fake logs none). */
static void test_no_root(void **state)
{
	(void)state;
	unsetenv("XILINX_XRT");
	assert_int_equal(open_status("xrt"), QUIRE_ERR_NO_DEVICE);
	setenv("XILINX_XRT", dir, 1);
	assert_int_equal(open_status("xrt:0"), QUIRE_ERR_NO_DEVICE);
	setenv("XILINX_XRT", "/usr", 1);
	assert_int_equal(open_status("xrt:0000:3b:00.0"), QUIRE_ERR_NO_DEVICE);
	assert_false(logged("open"));
}

static void test_no_device(void **state)
{
	(void)state;
	setenv("FAKE_XRT_DEVICES", "0", 1);
	assert_int_equal(open_status("xrt"), QUIRE_ERR_NO_DEVICE);
	assert_int_equal(open_status("xrt:0000:3b:00.0"), QUIRE_ERR_NO_DEVICE);
	setenv("FAKE_XRT_DEVICES", "1", 1);
	assert_int_equal(open_status("xrt:1"), QUIRE_ERR_NO_DEVICE);
	assert_int_equal(open_status("xrt:0000:3b:00.1"), QUIRE_ERR_NO_DEVICE);
	assert_false(logged("load")); /* no device: no image loaded anywhere */
}

static void test_image_refused(void **state)
{
	(void)state;
	unsetenv("QUIRE_XCLBIN");
	assert_int_equal(open_status("xrt"), QUIRE_ERR_INVALID);
	setenv("QUIRE_XCLBIN", "/nonexistent/quire.xclbin", 1);
	assert_int_equal(open_status("xrt"), QUIRE_ERR_CORRUPT);
	setenv("QUIRE_XCLBIN", xclbin, 1);
	write_file(xclbin, "xclbin2\0garbage");
	assert_int_equal(open_status("xrt"), QUIRE_ERR_CORRUPT);
	/* For a platform no board has, or one XRT does not reach (the simulated board). */
	image("xilinx_unknown_platform_1", GOOD_UUID, "quire_card");
	assert_int_equal(open_status("xrt"), QUIRE_ERR_NO_DEVICE);
	image(QUIRE_BOARD_SIM_PLATFORM, GOOD_UUID, "quire_card");
	assert_int_equal(open_status("xrt"), QUIRE_ERR_NO_DEVICE);
	/* The UUID: another than the one accepted, or none pinned (no U250 image was built). */
	image(U250_PLATFORM, OTHER_UUID, "quire_card");
	assert_int_equal(open_status("xrt"), QUIRE_ERR_VERSION);
	image(U250_PLATFORM, GOOD_UUID, "quire_card");
	unsetenv("QUIRE_XRT_UUID");
	assert_int_equal(open_status("xrt"), QUIRE_ERR_VERSION);
	assert_false(logged("load")); /* refused before it reached the card */
	setenv("QUIRE_XRT_UUID", GOOD_UUID, 1);
	/* Loaded, but without the board's kernel. */
	image(U250_PLATFORM, GOOD_UUID, "other_kernel");
	assert_int_equal(open_status("xrt"), QUIRE_ERR_NO_DEVICE);
	assert_true(logged("load " U250_PLATFORM));
}

static void test_xrt_fails(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		int status;
	} fails[] = {
	    {"load", QUIRE_ERR_IO},        {"kernel", QUIRE_ERR_NO_DEVICE},
	    {"group", QUIRE_ERR_NOMEM},    {"alloc", QUIRE_ERR_NOMEM},
	    {"map", QUIRE_ERR_NOMEM},      {"sync", QUIRE_ERR_IO},
	    {"read", QUIRE_ERR_NO_DEVICE},
	};
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++) {
		setenv("FAKE_XRT_FAIL", fails[i].what, 1);
		assert_int_equal(open_status("xrt"), fails[i].status);
	}
	unsetenv("FAKE_XRT_FAIL");
	setenv("QUIRE_XRT_HOST_MB", "1024", 1); /* more host memory than the device gives */
	assert_int_equal(open_status("xrt"), QUIRE_ERR_NOMEM);
}

/* The whole protocol through the fake: a card model behind XRT's calls. */
static void test_card(void **state)
{
	(void)state;
	static const char *const uris[] = {"xrt", "xrt:0", "xrt:0000:3b:00.0"};
	for (size_t u = 0; u < sizeof(uris) / sizeof(uris[0]); u++) {
		struct quire_ctx *ctx;
		assert_int_equal(quire_open(uris[u], &ctx), QUIRE_OK);
		assert_true(logged("kernel " QUIRE_BOARD_ALVEO_U250_XRT_KERNEL));
		assert_int_equal(quire_backend_caps(ctx) & QUIRE_BACKEND_CAP_CARD,
				 QUIRE_BACKEND_CAP_CARD);
		struct quire_info in;
		assert_int_equal(quire_get_info(ctx, &in), QUIRE_OK);
		assert_string_equal(in.backend, "xrt");
		assert_string_equal(in.board, QUIRE_BOARD_SIM_NAME); /* what the model reports */
		assert_int_equal(in.fw_state, QUIRE_FW_STATE_RUNNING);

		/* Encode on the card and on cpu: the same bits. */
		enum { N = 3000 };
		struct quire_ctx *cpu;
		assert_int_equal(quire_open("cpu", &cpu), QUIRE_OK);
		struct quire_buf *b[2][3];
		struct quire_ctx *on[2] = {ctx, cpu};
		for (int k = 0; k < 2; k++) {
			assert_int_equal(quire_buf_alloc(on[k], N * 4, &b[k][0]), QUIRE_OK);
			assert_int_equal(quire_buf_alloc(on[k], N, &b[k][1]), QUIRE_OK);
			assert_int_equal(quire_buf_alloc(on[k], QUIRE_BFP_BLOCKS(N), &b[k][2]),
					 QUIRE_OK);
			float *x = quire_buf_ptr(b[k][0]);
			for (int i = 0; i < N; i++)
				x[i] = (float)((i * 7919) % 1000 - 500) / 64.0f;
			struct quire_op op = {.opcode = QUIRE_OPC_ENCODE,
					      .format = QUIRE_FMT_BFP8,
					      .count = N,
					      .src = {b[k][0], 0},
					      .dst = {b[k][1], 0},
					      .exp = {b[k][2], 0}};
			assert_int_equal(quire_run(on[k], &op, NULL), QUIRE_OK);
		}
		assert_memory_equal(quire_buf_ptr(b[0][1]), quire_buf_ptr(b[1][1]), N);
		assert_memory_equal(quire_buf_ptr(b[0][2]), quire_buf_ptr(b[1][2]),
				    QUIRE_BFP_BLOCKS(N));
		struct quire_op nop = {.opcode = QUIRE_OPC_NOP};
		assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_OK);
		assert_int_equal(quire_get_info(ctx, &in), QUIRE_OK);
		assert_int_equal(in.cmds_ok, 2);
		quire_close(cpu);
		quire_close(ctx);
	}
}

/* A card that stops answering XRT's calls mid-run: the context reports it, no hang. */
static void test_card_lost(void **state)
{
	(void)state;
	struct quire_ctx *ctx;
	assert_int_equal(quire_open("xrt", &ctx), QUIRE_OK);
	struct quire_op nop = {.opcode = QUIRE_OPC_NOP};
	assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_OK);
	setenv("FAKE_XRT_FAIL", "sync", 1);
	assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_ERR_PEER);
	struct quire_info in;
	assert_int_equal(quire_get_info(ctx, &in), QUIRE_ERR_PEER);
	quire_close(ctx);
	unsetenv("FAKE_XRT_FAIL");
	assert_int_equal(quire_open("xrt", &ctx), QUIRE_OK);
	setenv("FAKE_XRT_FAIL", "read", 1);
	assert_int_equal(quire_get_info(ctx, &in), QUIRE_ERR_PEER);
	quire_close(ctx);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/quire-xrt-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(xclbin, sizeof(xclbin), "%s/quire.xclbin", dir);
	snprintf(logpath, sizeof(logpath), "%s/fake.log", dir);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_check_root),
	    cmocka_unit_test_setup(test_no_root, setup),
	    cmocka_unit_test_setup(test_no_device, setup),
	    cmocka_unit_test_setup(test_image_refused, setup),
	    cmocka_unit_test_setup(test_xrt_fails, setup),
	    cmocka_unit_test_setup(test_card, setup),
	    cmocka_unit_test_setup(test_card_lost, setup),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(xclbin);
	unlink(logpath);
	rmdir(dir);
	return failed;
}
