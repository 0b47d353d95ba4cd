// SPDX-License-Identifier: MIT
/*
 * A card that stops answering without going away: a quire-sim process stopped with
 * SIGSTOP, as a hung simulator or a wedged card behaves. The wait that finds out
 * returns QUIRE_ERR_TIMEOUT within one timeout; every later call on the context fails
 * at once with QUIRE_ERR_UNRESPONSIVE; freeing waits for nothing; quire_reset brings the
 * context back once the card answers again, and not before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"
#include "quire.h"

#define LIMIT_MS 500
/* How long a call that must fail "at once" may take: under half of a timeout this long,
 * set for those calls, so a call that waited a timeout cannot pass, while a loaded machine
 * that is slow to run the call cannot fail it. */
#define LONG_LIMIT_MS 60000

struct card {
	char dir[64], sock[96], uri[112];
	pid_t pid;
};

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int card_up(void **state)
{
	struct card *c = calloc(1, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/tmp/quire-freeze-XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(c->sock, sizeof(c->sock), "%s/card.sock", c->dir);
	snprintf(c->uri, sizeof(c->uri), "sim:%s", c->sock);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		execl(QUIRE_TEST_SIM, "quire-sim", "--socket", c->sock, "--quiet", (char *)NULL);
		_exit(127);
	}
	struct stat st;
	for (int i = 0; i < 400 && stat(c->sock, &st) != 0; i++)
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	assert_int_equal(stat(c->sock, &st), 0);
	*state = c;
	return 0;
}

static int card_down(void **state)
{
	struct card *c = *state;
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	unlink(c->sock);
	rmdir(c->dir);
	free(c);
	return 0;
}

static struct quire_buf *buf_of(struct quire_ctx *ctx, size_t bytes)
{
	struct quire_buf *b;
	assert_int_equal(quire_buf_alloc(ctx, bytes, &b), QUIRE_OK);
	memset(quire_buf_ptr(b), 0, bytes);
	return b;
}

static void test_frozen_card(void **state)
{
	struct card *c = *state;
	struct quire_ctx *ctx;
	assert_int_equal(quire_open(c->uri, &ctx), QUIRE_OK);
	quire_set_timeout(ctx, LIMIT_MS);
	struct quire_op nop = {.opcode = QUIRE_OPC_NOP};
	assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_OK);
	size_t n = 1u << 20;
	struct quire_buf *x = buf_of(ctx, 4 * n), *q = buf_of(ctx, n), *e = buf_of(ctx, n / 64);
	struct rng g = {3};
	fill_edge_gradients(&g, quire_buf_ptr(x), n, 1);
	struct quire_op enc = {.opcode = QUIRE_OPC_ENCODE,
			       .format = QUIRE_FMT_BFP8,
			       .count = (uint32_t)n,
			       .src = {x, 0},
			       .dst = {q, 0},
			       .exp = {e, 0}};

	/* Frozen with a request in flight (submitted to the stopped card: it cannot end): one
	 * timeout, then TIMEOUT. */
	assert_int_equal(kill(c->pid, SIGSTOP), 0);
	struct quire_req *req;
	assert_int_equal(quire_submit(ctx, &enc, &req), QUIRE_OK);
	int64_t t0 = now_ms();
	assert_int_equal(quire_wait(req, QUIRE_WAIT_DEFAULT), QUIRE_ERR_TIMEOUT);
	int64_t took = now_ms() - t0;
	assert_true(took >= LIMIT_MS - 50 && took < 3 * LIMIT_MS);

	/* Everything after it fails at once, and freeing waits for nothing. */
	quire_set_timeout(ctx, LONG_LIMIT_MS);
	t0 = now_ms();
	assert_int_equal(quire_wait(req, QUIRE_WAIT_DEFAULT), QUIRE_ERR_UNRESPONSIVE);
	assert_int_equal(quire_test(req), QUIRE_ERR_UNRESPONSIVE);
	assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_ERR_UNRESPONSIVE);
	struct quire_info info;
	assert_int_equal(quire_get_info(ctx, &info), QUIRE_ERR_UNRESPONSIVE);
	struct quire_buf *more;
	assert_int_equal(quire_buf_alloc(ctx, 64, &more), QUIRE_ERR_UNRESPONSIVE);
	struct quire_comm *self;
	assert_int_equal(quire_comm_self(ctx, &self), QUIRE_ERR_UNRESPONSIVE);
	quire_req_free(req);
	assert_true(now_ms() - t0 < LONG_LIMIT_MS / 2);

	/* A reset finds the card still silent: one timeout, and the context stays as it was. */
	quire_set_timeout(ctx, LIMIT_MS);
	assert_int_equal(quire_submit(ctx, &enc, &req), QUIRE_ERR_UNRESPONSIVE);
	t0 = now_ms();
	assert_int_equal(quire_reset(ctx), QUIRE_ERR_TIMEOUT);
	took = now_ms() - t0;
	assert_true(took >= LIMIT_MS - 50 && took < 3 * LIMIT_MS);
	assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_ERR_UNRESPONSIVE);

	/* The card runs again: a reset makes the context whole, the same bits as the cpu. */
	assert_int_equal(kill(c->pid, SIGCONT), 0);
	assert_int_equal(quire_reset(ctx), QUIRE_OK);
	assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_OK);
	memset(quire_buf_ptr(q), 0x77, n);
	assert_int_equal(quire_run(ctx, &enc, NULL), QUIRE_OK);
	int8_t *ref_q = malloc(n), *ref_e = malloc(n / 64);
	assert_int_equal(
	    quire_codec_encode(QUIRE_FMT_BFP8, n, quire_buf_ptr(x), NULL, NULL, ref_e, ref_q),
	    QUIRE_OK);
	assert_memory_equal(quire_buf_ptr(q), ref_q, n);
	assert_memory_equal(quire_buf_ptr(e), ref_e, n / 64);
	free(ref_q);
	free(ref_e);
	assert_int_equal(quire_get_info(ctx, &info), QUIRE_OK);
	quire_close(ctx);
}

/* A killed card is gone for good: PEER, and a reset cannot change that. */
static void test_killed_card(void **state)
{
	struct card *c = *state;
	struct quire_ctx *ctx;
	assert_int_equal(quire_open(c->uri, &ctx), QUIRE_OK);
	quire_set_timeout(ctx, LONG_LIMIT_MS); /* a close that waited for the card would show */
	struct quire_op nop = {.opcode = QUIRE_OPC_NOP};
	assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_OK);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	int st = quire_run(ctx, &nop, NULL);
	assert_true(st == QUIRE_ERR_PEER);
	assert_int_equal(quire_run(ctx, &nop, NULL), QUIRE_ERR_PEER);
	assert_int_equal(quire_reset(ctx), QUIRE_ERR_PEER);
	int64_t t0 = now_ms();
	quire_close(ctx);
	assert_true(now_ms() - t0 < LONG_LIMIT_MS / 2);
}

/* A working context: a reset is a fresh start that keeps the buffers. */
static void test_reset_working(void **state)
{
	struct card *c = *state;
	struct quire_ctx *ctx;
	assert_int_equal(quire_open(c->uri, &ctx), QUIRE_OK);
	struct quire_buf *b = buf_of(ctx, 4096);
	struct quire_op info = {.opcode = QUIRE_OPC_INFO, .dst = {b, 0}};
	uint32_t bytes = 0;
	assert_int_equal(quire_run(ctx, &info, &bytes), QUIRE_OK);
	assert_int_equal(quire_reset(ctx), QUIRE_OK);
	for (int i = 0; i < 300; i++) /* past a whole ring after the restart */
		assert_int_equal(quire_run(ctx, &info, &bytes), QUIRE_OK);
	assert_int_equal(bytes, 64);
	quire_close(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_frozen_card, card_up, card_down),
	    cmocka_unit_test_setup_teardown(test_killed_card, card_up, card_down),
	    cmocka_unit_test_setup_teardown(test_reset_working, card_up, card_down),
	};
	return cmocka_run_group_tests_name("frozen card", tests, NULL, NULL);
}
