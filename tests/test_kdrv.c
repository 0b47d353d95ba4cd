// SPDX-License-Identifier: MIT
/*
 * The kdrv backend where no quire card is: its URIs parsed, and every way of not
 * finding a card a clear status, never an abort. A render node of another DRM driver,
 * if this machine has one, is refused. (Against the driver itself: the QEMU test.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "host/src/backend/kdrv.h"
#include "quire.h"

static void test_parse_good(void **state)
{
	(void)state;
	struct kdrv_where w;
	assert_int_equal(kdrv_parse_where(NULL, &w), QUIRE_OK);
	assert_int_equal(w.kind, KDRV_FIRST);
	assert_int_equal(kdrv_parse_where("/dev/dri/renderD128", &w), QUIRE_OK);
	assert_int_equal(w.kind, KDRV_NODE);
	assert_string_equal(w.path, "/dev/dri/renderD128");
	assert_int_equal(kdrv_parse_where("/dev/accel/accel0", &w), QUIRE_OK);
	assert_int_equal(w.kind, KDRV_NODE);
	assert_int_equal(kdrv_parse_where("pci:0000:03:00.0", &w), QUIRE_OK);
	assert_int_equal(w.kind, KDRV_PCI);
	assert_int_equal(w.domain, 0);
	assert_int_equal(w.bus, 3);
	assert_int_equal(w.dev, 0);
	assert_int_equal(w.func, 0);
	assert_int_equal(kdrv_parse_where("pci:10ab:Ff:1f.7", &w), QUIRE_OK);
	assert_int_equal(w.domain, 0x10ab);
	assert_int_equal(w.bus, 0xff);
	assert_int_equal(w.dev, 0x1f);
	assert_int_equal(w.func, 7);
	/* Without a domain, as lspci prints it by default: domain 0. */
	assert_int_equal(kdrv_parse_where("pci:3b:02.1", &w), QUIRE_OK);
	assert_int_equal(w.kind, KDRV_PCI);
	assert_int_equal(w.domain, 0);
	assert_int_equal(w.bus, 0x3b);
	assert_int_equal(w.dev, 2);
	assert_int_equal(w.func, 1);
}

static void test_parse_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "",
	    "bogus",
	    "dev/dri/renderD128",
	    "renderD128",
	    "pci:",
	    "pci:0000:03:00",
	    "pci:0000:03:00.",
	    "pci:0000:03:00.8",
	    "pci:0000:03:20.0",
	    "pci:zzzz:03:00.0",
	    "pci:00000:03:00.0",
	    "pci:0000:003:00.0",
	    "pci:0000:03:00.0x",
	    "pci:0000:03:00.0:",
	    "pci:100:00.0",
	    "pci:0000-03:00.0",
	    "PCI:0000:03:00.0",
	    "pci:0000:03:00.00",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kdrv_where w;
		if (kdrv_parse_where(bad[i], &w) != QUIRE_ERR_INVALID)
			fail_msg("'%s' was not refused", bad[i]);
		/* And through quire_open, as a caller meets it. */
		char uri[64];
		snprintf(uri, sizeof(uri), "kdrv:%s", bad[i]);
		struct quire_ctx *ctx = (struct quire_ctx *)1;
		int st = quire_open(uri, &ctx);
		/* "kdrv:" with nothing after it is no scheme quire_open knows. */
		assert_int_equal(st, bad[i][0] ? QUIRE_ERR_INVALID : QUIRE_ERR_NO_DEVICE);
		assert_null(ctx);
	}
}

/* Not a quire card, each a different way: a clear QUIRE_ERR_NO_DEVICE. */
static void test_no_device(void **state)
{
	(void)state;
	static const char *const uris[] = {
	    "kdrv:/nonexistent",                  /* not there */
	    "kdrv:/dev/null",                     /* a character device, not DRM */
	    "kdrv:/",                             /* a directory */
	    "kdrv:" QUIRE_TEST_DATA "/README.md", /* a regular file */
	    "kdrv:pci:ffff:ff:1f.7",              /* no such slot */
	};
	for (size_t i = 0; i < sizeof(uris) / sizeof(uris[0]); i++) {
		struct quire_ctx *ctx = (struct quire_ctx *)1;
		int st = quire_open(uris[i], &ctx);
		if (st != QUIRE_ERR_NO_DEVICE)
			fail_msg("%s: %s, want 'no device found'", uris[i], quire_strerror(st));
		assert_null(ctx);
	}
}

/* The driver of a render node, from sysfs; "" when it cannot be told. */
static void node_driver(const char *node, char *name, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX];
	snprintf(link, sizeof(link), "/sys/class/drm/%s/device/driver", basename((char *)node));
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	name[0] = '\0';
	if (n > 0) {
		target[n] = '\0';
		snprintf(name, len, "%s", basename(target));
	}
}

/* "kdrv" here: no device unless a quire card is loaded; every other driver's node refused. */
static void test_render_nodes(void **state)
{
	(void)state;
	glob_t g;
	int quire_nodes = 0, others = 0;
	if (glob("/dev/dri/renderD*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char drv[64], uri[PATH_MAX + 8];
			node_driver(g.gl_pathv[i], drv, sizeof(drv));
			snprintf(uri, sizeof(uri), "kdrv:%s", g.gl_pathv[i]);
			struct quire_ctx *ctx = NULL;
			int st = quire_open(uri, &ctx);
			if (strcmp(drv, "quire") == 0) {
				quire_nodes++;
				quire_close(ctx);
				continue;
			}
			others++;
			if (st != QUIRE_ERR_NO_DEVICE)
				fail_msg("%s (driver '%s'): %s, want refused", g.gl_pathv[i], drv,
					 quire_strerror(st));
			assert_null(ctx);
		}
		globfree(&g);
	}
	struct quire_ctx *ctx = NULL;
	int st = quire_open("kdrv", &ctx);
	if (quire_nodes == 0)
		assert_int_equal(st, QUIRE_ERR_NO_DEVICE);
	quire_close(ctx);
	printf("kdrv: %d render node(s) of other drivers refused, %d of quire\n", others,
	       quire_nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_good),
	    cmocka_unit_test(test_parse_bad),
	    cmocka_unit_test(test_no_device),
	    cmocka_unit_test(test_render_nodes),
	};
	return cmocka_run_group_tests_name("kdrv backend", tests, NULL, NULL);
}
