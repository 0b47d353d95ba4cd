// SPDX-License-Identifier: MIT
/*
 * The job key of the cards' UDP network (sim/job_key.c, sim/frame_auth.c, sim/reliable_link.c):
 * the key read from hex and from a file, refused for a bad digit, a wrong length, a file others
 * may read, owned by another user, a symbolic link, or both ways given at once; a tag that
 * refuses a one-bit flip anywhere in the header (the sequence number and session included),
 * the payload or itself, and a key of another run; and a link on loopback that takes a sender
 * holding the key, drops and counts forged datagrams (valid CRCs, no or a wrong tag, a tag of
 * another run), delivers nothing twice when its frames are replayed, and refuses a session it
 * has left.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "quire/status.h"
#include "sim/crc32_fast.h"
#include "sim/frame_auth.h"
#include "sim/job_key.h"
#include "sim/le.h"
#include "sim/reliable_link.h"
#include "sim/wire_udp.h"
#include "test_util.h"

#define KEY_HEX "000102030405060708090a0b0c0d0e0f"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	return test_tmpdir_make(tmpdir, sizeof(tmpdir), "quire-wire-udp-auth");
}

static int teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(tmpdir);
}

static void says(const char *why, const char *what)
{
	if (!strstr(why, what))
		fail_msg("'%s' does not say '%s'", why, what);
}

/* A file under tmpdir holding text, of mode mode; its path in path. */
static void key_file(char *path, size_t n, const char *name, const char *text, mode_t mode)
{
	snprintf(path, n, "%s/%s", tmpdir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void key_loading(void **state)
{
	(void)state;
	struct quire_job_key k;
	char why[512], path[256], link_path[256];
	assert_int_equal(quire_job_key_parse(KEY_HEX, 32, &k, why, sizeof(why)), QUIRE_OK);
	assert_int_equal(k.len, 16);
	assert_int_equal(k.bytes[15], 0x0f);
	assert_int_equal(quire_job_key_parse(KEY_HEX KEY_HEX "\n", 65, &k, why, sizeof(why)),
			 QUIRE_OK);
	assert_int_equal(k.len, 32);
	static const struct {
		const char *hex, *why;
	} bad[] = {
	    {"000102030405060708090a0b0c0d0e0", "31 hex digits: it takes 32 (128 bits) or 64"},
	    {"000102030405060708090a0b0c0d0e0f0", "33 hex digits"},
	    {KEY_HEX "0001020304050607", "48 hex digits"},
	    {"", "0 hex digits"},
	    {"000102030405060708090a0b0c0d0e0g", "not hex: the character at position 32"},
	    {"x00102030405060708090a0b0c0d0e0f", "not hex: the character at position 1"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(
		    quire_job_key_parse(bad[i].hex, strlen(bad[i].hex), &k, why, sizeof(why)),
		    QUIRE_ERR_INVALID);
		assert_int_equal(k.len, 0);
		says(why, bad[i].why);
	}
	/* Files: 0600 and 0400 taken; readable by the group or others refused. */
	key_file(path, sizeof(path), "ok", KEY_HEX "\n", 0600);
	assert_int_equal(quire_job_key_load_file(path, &k, why, sizeof(why)), QUIRE_OK);
	assert_int_equal(k.len, 16);
	assert_int_equal(chmod(path, 0400), 0);
	assert_int_equal(quire_job_key_load_file(path, &k, why, sizeof(why)), QUIRE_OK);
	static const mode_t open_modes[] = {0640, 0604, 0644, 0660, 0602};
	for (size_t i = 0; i < sizeof(open_modes) / sizeof(open_modes[0]); i++) {
		assert_int_equal(chmod(path, open_modes[i]), 0);
		assert_int_equal(quire_job_key_load_file(path, &k, why, sizeof(why)),
				 QUIRE_ERR_INVALID);
		says(why, "lets others read or write it (chmod 600)");
	}
	key_file(path, sizeof(path), "badhex", "zz0102030405060708090a0b0c0d0e0f\n", 0600);
	assert_int_equal(quire_job_key_load_file(path, &k, why, sizeof(why)), QUIRE_ERR_INVALID);
	says(why, "not hex");
	key_file(path, sizeof(path), "short", "0001020304\n", 0600);
	assert_int_equal(quire_job_key_load_file(path, &k, why, sizeof(why)), QUIRE_ERR_INVALID);
	says(why, "10 hex digits");
	key_file(path, sizeof(path), "long", KEY_HEX KEY_HEX KEY_HEX "\n", 0600);
	assert_int_equal(quire_job_key_load_file(path, &k, why, sizeof(why)), QUIRE_ERR_INVALID);
	says(why, "longer than 64 hex digits");
	/* Another user's file (as root, chown it away; else any file of root's will do). */
	key_file(path, sizeof(path), "theirs", KEY_HEX, 0600);
	if (geteuid() == 0)
		assert_int_equal(chown(path, 1, 1), 0);
	else
		snprintf(path, sizeof(path), "/etc/hostname");
	assert_int_equal(quire_job_key_load_file(path, &k, why, sizeof(why)), QUIRE_ERR_INVALID);
	says(why, "not by this user");
	/* A symbolic link, a directory, nothing. */
	key_file(path, sizeof(path), "target", KEY_HEX, 0600);
	snprintf(link_path, sizeof(link_path), "%s/link", tmpdir);
	assert_int_equal(symlink(path, link_path), 0);
	assert_int_equal(quire_job_key_load_file(link_path, &k, why, sizeof(why)),
			 QUIRE_ERR_INVALID);
	says(why, "a symbolic link");
	assert_int_equal(quire_job_key_load_file(tmpdir, &k, why, sizeof(why)), QUIRE_ERR_INVALID);
	says(why, "not a regular file");
	snprintf(link_path, sizeof(link_path), "%s/none", tmpdir);
	assert_int_equal(quire_job_key_load_file(link_path, &k, why, sizeof(why)),
			 QUIRE_ERR_NO_DEVICE);
	/* The environment: one way, or none. */
	unsetenv(QUIRE_JOB_KEY_ENV);
	unsetenv(QUIRE_JOB_KEY_FILE_ENV);
	assert_int_equal(quire_job_key_from_env(&k, why, sizeof(why)), QUIRE_OK);
	assert_int_equal(k.len, 0);
	setenv(QUIRE_JOB_KEY_ENV, "abc", 1);
	assert_int_equal(quire_job_key_from_env(&k, why, sizeof(why)), QUIRE_ERR_INVALID);
	says(why, "QUIRE_JOB_KEY: the job key has 3 hex digits");
	setenv(QUIRE_JOB_KEY_ENV, KEY_HEX, 1);
	setenv(QUIRE_JOB_KEY_FILE_ENV, path, 1);
	assert_int_equal(quire_job_key_from_env(&k, why, sizeof(why)), QUIRE_ERR_INVALID);
	says(why, "both QUIRE_JOB_KEY and QUIRE_JOB_KEY_FILE are set");
	unsetenv(QUIRE_JOB_KEY_ENV);
	assert_int_equal(quire_job_key_from_env(&k, why, sizeof(why)), QUIRE_OK);
	assert_int_equal(k.len, 16);
	unsetenv(QUIRE_JOB_KEY_FILE_ENV);
	/* The run's identity: 32 hex digits or nothing. */
	uint8_t run[QUIRE_JOB_RUN_BYTES];
	setenv(QUIRE_JOB_RUN_ENV, "0123", 1);
	assert_int_equal(quire_job_run_from_env(run), -1);
	setenv(QUIRE_JOB_RUN_ENV, KEY_HEX, 1);
	assert_int_equal(quire_job_run_from_env(run), 1);
	assert_int_equal(run[1], 1);
	unsetenv(QUIRE_JOB_RUN_ENV);
	assert_int_equal(quire_job_run_from_env(run), 0);
}

/* The link's MAC for the test's key and run byte r. */
static struct quire_frame_auth *auth_for(uint8_t r)
{
	struct quire_job_key k;
	char why[128];
	uint8_t run[QUIRE_JOB_RUN_BYTES] = {r}, lk[QUIRE_FRAME_AUTH_MAC_BYTES];
	struct quire_frame_auth *a;
	assert_int_equal(quire_job_key_parse(KEY_HEX, 32, &k, why, sizeof(why)), QUIRE_OK);
	assert_int_equal(quire_frame_auth_derive(&k, run, lk), QUIRE_OK);
	assert_int_equal(quire_frame_auth_new(lk, &a), QUIRE_OK);
	return a;
}

/* A planted one-bit flip anywhere (header: kind, source, session, sequence number; payload;
 * the tag itself) is refused; so is the tag of another run's key. */
static void tag_flips(void **state)
{
	(void)state;
	struct quire_frame_auth *a = auth_for(0), *other = auth_for(1);
	uint8_t hdr[QUIRE_LINK_HDR_BYTES], body[300], tag[QUIRE_LINK_TAG_BYTES];
	for (size_t i = 0; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)(i * 11 + 1);
	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)(i * 7 + 3);
	quire_frame_auth_tag(a, hdr, sizeof(hdr), body, sizeof(body), tag);
	assert_int_equal(quire_frame_auth_check(a, hdr, sizeof(hdr), body, sizeof(body), tag), 1);
	assert_int_equal(quire_frame_auth_check(other, hdr, sizeof(hdr), body, sizeof(body), tag),
			 0);
	int refused = 0, tried = 0;
	for (size_t bit = 0; bit < 8 * sizeof(hdr); bit++, tried++) { /* seq: bytes 8-11 */
		hdr[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		refused += !quire_frame_auth_check(a, hdr, sizeof(hdr), body, sizeof(body), tag);
		hdr[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (size_t bit = 0; bit < 8 * sizeof(body); bit += 7, tried++) {
		body[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		refused += !quire_frame_auth_check(a, hdr, sizeof(hdr), body, sizeof(body), tag);
		body[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (size_t bit = 0; bit < 8 * sizeof(tag); bit++, tried++) {
		tag[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		refused += !quire_frame_auth_check(a, hdr, sizeof(hdr), body, sizeof(body), tag);
		tag[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_int_equal(refused, tried);
	/* One byte less of payload: refused too. */
	assert_int_equal(quire_frame_auth_check(a, hdr, sizeof(hdr), body, sizeof(body) - 1, tag),
			 0);
	assert_int_equal(quire_frame_auth_check(a, hdr, sizeof(hdr), body, sizeof(body), tag), 1);
	quire_frame_auth_free(a);
	quire_frame_auth_free(other);
}

/* ---- a link on loopback and a sender of the test's own ---------------------------- */

#define MAX_GOT 32

struct sink {
	pthread_mutex_t lock;
	int n;
	uint32_t first[MAX_GOT]; /* each frame's first payload word */
};

static int room(void *ctx)
{
	(void)ctx;
	return 1;
}

static void deliver(void *ctx, const uint8_t *f, uint32_t len)
{
	struct sink *s = ctx;
	pthread_mutex_lock(&s->lock);
	if (s->n < MAX_GOT && len >= QUIRE_FRAME_HDR_BYTES + 4)
		s->first[s->n++] = quire_ld32(f + QUIRE_FRAME_HDR_BYTES);
	pthread_mutex_unlock(&s->lock);
}

static int delivered(struct sink *s)
{
	pthread_mutex_lock(&s->lock);
	int n = s->n;
	pthread_mutex_unlock(&s->lock);
	return n;
}

static unsigned base;
static int from5; /* the test's sender: address 5's frames channel */

/* Datagram: a link header (version, DATA, from address 5, session, seq), its tag under a
 * (NULL: 16 zero bytes), a frame whose first payload word is word; sent to address 0. */
static void send_frame(struct quire_frame_auth *a, uint8_t version, uint32_t session, uint32_t seq,
		       uint32_t word)
{
	uint8_t d[8 + QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES + QUIRE_FRAME_HDR_BYTES + 16] = {
	    0x71, 0, 1, 0};
	static uint32_t piece_seq;
	quire_st32(d + 4, ++piece_seq);
	uint8_t *h = d + 8, *f = h + QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES;
	quire_st32(h, version | QUIRE_LINK_DATA << 8 | 5u << 16);
	quire_st32(h + 4, session);
	quire_st32(h + 8, seq);
	quire_st32(h + 12, 0);
	quire_st32(h + 12, quire_sim_crc32(0, h, 12)); /* the link header's CRC */
	memset(f, 0, QUIRE_FRAME_HDR_BYTES + 16);
	f[0] = QUIRE_FRAME_VERSION;
	quire_st32(f + QUIRE_FRAME_OFF_LEN, 16);
	quire_st32(f + QUIRE_FRAME_HDR_BYTES, word);
	quire_st32(f + QUIRE_FRAME_OFF_CRC, quire_net_frame_crc(f, QUIRE_FRAME_HDR_BYTES + 16));
	if (a)
		quire_frame_auth_tag(a, h, QUIRE_LINK_HDR_BYTES, f, QUIRE_FRAME_HDR_BYTES + 16,
				     h + QUIRE_LINK_HDR_BYTES);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)base)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(sendto(from5, d, sizeof(d), 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)sizeof(d));
}

/* Waits (at most 2 s) until the link's counters reach forged and replayed, and the sink
 * holds n frames. */
static void settle(struct quire_reliable_link *l, struct sink *s, uint64_t forged,
		   uint64_t replayed, int n)
{
	struct quire_reliable_link_stats st;
	for (int t = 0; t < 2000; t++) {
		quire_reliable_link_stats(l, &st);
		if (st.rx_forged >= forged && st.rx_replayed >= replayed && delivered(s) >= n)
			break;
		usleep(1000);
	}
	usleep(20000); /* and nothing more comes */
	quire_reliable_link_stats(l, &st);
	assert_int_equal(st.rx_forged, forged);
	assert_int_equal(st.rx_replayed, replayed);
	assert_int_equal(delivered(s), n);
}

static void link_refuses(void **state)
{
	(void)state;
	base = 30000u + (unsigned)getpid() % 20000u;
	char net[64];
	snprintf(net, sizeof(net), "udp:127.0.0.1:%u", base);
	struct quire_netport_config cfg = {.dir = net, .addr = 0};
	struct sink s = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct quire_reliable_link *l;
	const struct quire_reliable_link_rx_ops ops = {room, deliver};
	/* No key: a UDP link is refused. */
	unsetenv(QUIRE_JOB_KEY_ENV);
	unsetenv(QUIRE_JOB_KEY_FILE_ENV);
	unsetenv(QUIRE_JOB_RUN_ENV);
	assert_int_equal(quire_reliable_link_open(&cfg, &ops, &s, &l), QUIRE_ERR_INVALID);
	setenv(QUIRE_JOB_KEY_ENV, KEY_HEX, 1);
	assert_int_equal(quire_reliable_link_open(&cfg, &ops, &s, &l), QUIRE_OK);
	from5 = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons((uint16_t)(base + 5))};
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(from5, (struct sockaddr *)&me, sizeof(me)), 0);
	struct quire_frame_auth *a = auth_for(0), *old_run = auth_for(1);
	/* The key's frames, session 77: taken in order. */
	for (uint32_t q = 1; q <= 3; q++)
		send_frame(a, QUIRE_LINK_VERSION_TAGGED, 77, q, 100 + q);
	settle(l, &s, 0, 0, 3);
	/* Forged: no tag (the untagged version), a zero tag, a tag of another run, a tag of
	 * frame 4 on frame 5's bytes; none taken, each counted. */
	send_frame(NULL, QUIRE_LINK_VERSION, 77, 4, 666); /* not the link's version: damaged */
	send_frame(NULL, QUIRE_LINK_VERSION_TAGGED, 77, 4, 666);
	send_frame(old_run, QUIRE_LINK_VERSION_TAGGED, 77, 4, 666);
	send_frame(old_run, QUIRE_LINK_VERSION_TAGGED, 99, 1, 666); /* a new session, even */
	settle(l, &s, 3, 0, 3);
	/* Replayed: frames 1-3 again (duplicates, not delivered again). */
	for (uint32_t q = 1; q <= 3; q++)
		send_frame(a, QUIRE_LINK_VERSION_TAGGED, 77, q, 100 + q);
	settle(l, &s, 3, 0, 3);
	/* The sender starts over (session 78): taken; then session 77 replayed: refused. */
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 78, 1, 201);
	settle(l, &s, 3, 0, 4);
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 77, 1, 101);
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 77, 4, 104);
	settle(l, &s, 3, 2, 4);
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 78, 2, 202);
	settle(l, &s, 3, 2, 5);
	static const uint32_t want[5] = {101, 102, 103, 201, 202};
	for (int i = 0; i < 5; i++)
		assert_int_equal(s.first[i], want[i]);
	struct quire_reliable_link_stats st;
	quire_reliable_link_stats(l, &st);
	print_message("forged refused %llu, replays refused %llu, duplicates %llu, damaged %llu\n",
		      (unsigned long long)st.rx_forged, (unsigned long long)st.rx_replayed,
		      (unsigned long long)st.rx_duplicates, (unsigned long long)st.rx_damaged);
	assert_int_equal(st.rx_duplicates, 3);
	assert_int_equal(st.rx_damaged, 1);
	quire_reliable_link_close(l);
	quire_frame_auth_free(a);
	quire_frame_auth_free(old_run);
	close(from5);
	pthread_mutex_destroy(&s.lock);
	unsetenv(QUIRE_JOB_KEY_ENV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(key_loading),
	    cmocka_unit_test(tag_flips),
	    cmocka_unit_test(link_refuses),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
