// SPDX-License-Identifier: MIT
/*
 * The job key of the cards' UDP network (sim/job_key.c, sim/frame_auth.c, sim/reliable_link.c):
 * the key read from hex and from a file, refused for a bad digit, a wrong length, a file others
 * may read, owned by another user, a symbolic link, or both ways given at once; a tag that
 * refuses a one-bit flip anywhere in the header (the sequence number, session and incarnation
 * included), the payload or itself, and a key of another run; a link on loopback that tells a
 * sender holding the key its incarnation, takes its frames once they name it, drops and counts
 * forged datagrams (valid CRCs, no or a wrong tag, a tag of another run), delivers nothing
 * twice when its frames are replayed, and refuses a session it has left or a frame naming
 * another incarnation; and a port started again at the same address that refuses a replay of
 * a frame sent before it started, then takes the sender's next frames once, in order.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
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

/* A planted one-bit flip anywhere (header: kind, source, session, number, incarnation; payload;
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
	for (size_t bit = 0; bit < 8 * sizeof(hdr); bit++, tried++) {
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

/* A whole frame of FRAME_BYTES at f: a 16-byte payload whose first word is word. */
#define FRAME_BYTES (QUIRE_FRAME_HDR_BYTES + 16)
static void make_frame(uint8_t *f, uint32_t word)
{
	memset(f, 0, FRAME_BYTES);
	f[0] = QUIRE_FRAME_VERSION;
	quire_st32(f + QUIRE_FRAME_OFF_LEN, 16);
	quire_st32(f + QUIRE_FRAME_HDR_BYTES, word);
	quire_st32(f + QUIRE_FRAME_OFF_CRC, quire_net_frame_crc(f, FRAME_BYTES));
}

/* A socket bound to loopback's port. */
static int udp_bound(unsigned port)
{
	int fd = test_udp_loopback(port);
	assert_true(fd >= 0);
	return fd;
}

static unsigned base;
static int from5;      /* the test's sender: address 5's frames channel */
static int link5;      /* and its link channel, where the receiver's answers come */
static uint32_t named; /* the receiver's incarnation, as the test's sender names it */

/* Datagram: a link header (version, DATA, from address 5, session, seq, incarnation named),
 * its tag under a (NULL: 16 zero bytes), a frame whose first payload word is word; sent to
 * address 0. */
static void send_frame(struct quire_frame_auth *a, uint8_t version, uint32_t session, uint32_t seq,
		       uint32_t word)
{
	uint8_t d[8 + QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES + QUIRE_FRAME_HDR_BYTES + 16] = {
	    0x71, 0, 1, 0};
	static uint32_t piece_seq;
	quire_st32(d + 4, ++piece_seq);
	uint8_t *h = d + 8, *f = h + QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES;
	quire_st32(h, version | QUIRE_LINK_DATA << 8 | 5u << 16);
	quire_st32(h + QUIRE_LINK_OFF_SESSION, session);
	quire_st32(h + QUIRE_LINK_OFF_SEQ, seq);
	quire_st32(h + QUIRE_LINK_OFF_INCARNATION, named);
	quire_st32(h + QUIRE_LINK_OFF_CRC, quire_sim_crc32(0, h, QUIRE_LINK_OFF_CRC));
	make_frame(f, word);
	if (a)
		quire_frame_auth_tag(a, h, QUIRE_LINK_HDR_BYTES, f, QUIRE_FRAME_HDR_BYTES + 16,
				     h + QUIRE_LINK_HDR_BYTES);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)base)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(sendto(from5, d, sizeof(d), 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)sizeof(d));
}

/* The incarnation told by the NACK of frame 0 in session that address 5's link channel
 * receives next (within 2 s), its tag checked under a; fails the test if none comes. */
static uint32_t learn_incarnation(struct quire_frame_auth *a, uint32_t session)
{
	uint8_t d[8 + QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES + 4 + 1];
	const uint8_t *h = d + 8;
	for (;;) {
		struct pollfd p = {link5, POLLIN, 0};
		if (poll(&p, 1, 2000) != 1)
			fail_msg("no NACK of frame 0 in session %u", session);
		if (recv(link5, d, sizeof(d), 0) != (ssize_t)sizeof(d) - 1 ||
		    h[1] != QUIRE_LINK_NACK || quire_ld32(h + QUIRE_LINK_OFF_SEQ) != 0 ||
		    quire_ld32(h + QUIRE_LINK_OFF_SESSION) != session)
			continue; /* an ACK, or an answer of before */
		assert_int_equal(
		    quire_frame_auth_check(a, h, QUIRE_LINK_HDR_BYTES,
					   h + QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES, 4,
					   h + QUIRE_LINK_HDR_BYTES),
		    1);
		uint32_t incarnation = quire_ld32(h + QUIRE_LINK_OFF_INCARNATION);
		assert_int_not_equal(incarnation, 0);
		return incarnation;
	}
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
	from5 = udp_bound(base + 5);
	link5 = udp_bound(base + QUIRE_WIRE_UDP_LINK_OFF + 5);
	struct quire_frame_auth *a = auth_for(0), *old_run = auth_for(1);
	/* First contact: a frame naming no incarnation is not taken; the answer, a NACK of
	 * frame 0 in its session, tagged, tells the port's. */
	named = 0;
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 76, 1, 666);
	named = learn_incarnation(a, 76);
	settle(l, &s, 0, 0, 0);
	/* One naming another incarnation (of this address before this port started): refused
	 * and counted, answered the same way. */
	uint32_t mine = named;
	named = mine + 1 ? mine + 1 : 1;
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 70, 1, 666);
	named = learn_incarnation(a, 70);
	assert_int_equal(named, mine);
	settle(l, &s, 0, 1, 0);
	/* The key's frames, session 77, naming the port's incarnation: taken in order. */
	for (uint32_t q = 1; q <= 3; q++)
		send_frame(a, QUIRE_LINK_VERSION_TAGGED, 77, q, 100 + q);
	settle(l, &s, 0, 1, 3);
	/* Forged: no tag (the untagged version), a zero tag, a tag of another run, a tag of
	 * frame 4 on frame 5's bytes; none taken, each counted. */
	send_frame(NULL, QUIRE_LINK_VERSION, 77, 4, 666); /* not the link's version: damaged */
	send_frame(NULL, QUIRE_LINK_VERSION_TAGGED, 77, 4, 666);
	send_frame(old_run, QUIRE_LINK_VERSION_TAGGED, 77, 4, 666);
	send_frame(old_run, QUIRE_LINK_VERSION_TAGGED, 99, 1, 666); /* a new session, even */
	settle(l, &s, 3, 1, 3);
	/* Replayed: frames 1-3 again (duplicates, not delivered again). */
	for (uint32_t q = 1; q <= 3; q++)
		send_frame(a, QUIRE_LINK_VERSION_TAGGED, 77, q, 100 + q);
	settle(l, &s, 3, 1, 3);
	/* The sender starts over (session 78): taken; then session 77 replayed: refused. */
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 78, 1, 201);
	settle(l, &s, 3, 1, 4);
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 77, 1, 101);
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 77, 4, 104);
	settle(l, &s, 3, 3, 4);
	send_frame(a, QUIRE_LINK_VERSION_TAGGED, 78, 2, 202);
	settle(l, &s, 3, 3, 5);
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
	close(link5);
	pthread_mutex_destroy(&s.lock);
	unsetenv(QUIRE_JOB_KEY_ENV);
}

/* ---- a port started again at the same address, and a replay of what came before -------- */

static void to_port(int fd, unsigned port, const uint8_t *d, size_t n)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	(void)sendto(fd, d, n, 0, (struct sockaddr *)&to, sizeof(to));
}

/* An eavesdropper between port A (address 1) and port B (address 0) on loopback: each
 * side's address table puts the other at the tap's ports, which pass every datagram on as
 * it came (piece tag, link header, tag and frame), keep a copy of the latest DATA frame 1
 * from A, and note the highest ACK from B. It can hold B's answers back, and send what it
 * kept to B from A's address, as anyone on the network can. */
struct tap {
	int from_a, from_a_link;   /* its ports where A sends to address 0: frames, link */
	int to_b, from_b_link;     /* its ports where B sends to address 1: frames, link */
	unsigned b_frames, a_link; /* B's frames port, A's link port */
	int stop[2];
	pthread_t thread;
	pthread_mutex_t lock;
	uint8_t frame1[256]; /* A's latest DATA datagram of seq 1, as it went on the wire */
	size_t frame1_len;
	atomic_uint acked;       /* the highest seq of B's ACKs passed on */
	atomic_int hold_answers; /* B's ACKs and NACKs are dropped */
};

#define TAP_LINK 8u /* the link header's offset in a UDP datagram: after the piece tag */

static void *tap_main(void *arg)
{
	struct tap *t = arg;
	uint8_t d[2048];
	for (;;) {
		struct pollfd fds[3] = {
		    {t->from_a, POLLIN, 0}, {t->from_b_link, POLLIN, 0}, {t->stop[0], POLLIN, 0}};
		if (poll(fds, 3, -1) < 0)
			continue;
		if (fds[2].revents)
			return NULL;
		ssize_t n;
		if ((fds[0].revents & POLLIN) && (n = recv(t->from_a, d, sizeof(d), 0)) > 0) {
			pthread_mutex_lock(&t->lock);
			if ((size_t)n >= TAP_LINK + QUIRE_LINK_HDR_BYTES &&
			    (size_t)n <= sizeof(t->frame1) && d[TAP_LINK + 1] == QUIRE_LINK_DATA &&
			    quire_ld32(d + TAP_LINK + QUIRE_LINK_OFF_SEQ) == 1) {
				memcpy(t->frame1, d, (size_t)n);
				t->frame1_len = (size_t)n;
			}
			pthread_mutex_unlock(&t->lock);
			to_port(t->to_b, t->b_frames, d, (size_t)n);
		}
		if ((fds[1].revents & POLLIN) && (n = recv(t->from_b_link, d, sizeof(d), 0)) > 0) {
			if (atomic_load(&t->hold_answers) ||
			    (size_t)n < TAP_LINK + QUIRE_LINK_HDR_BYTES)
				continue;
			to_port(t->from_a_link, t->a_link, d, (size_t)n);
			uint32_t seq = quire_ld32(d + TAP_LINK + QUIRE_LINK_OFF_SEQ);
			if (d[TAP_LINK + 1] == QUIRE_LINK_ACK && seq > atomic_load(&t->acked))
				atomic_store(&t->acked, seq);
		}
	}
}

/* Frame word from port l to address 0. */
static void send_word(struct quire_reliable_link *l, uint32_t word)
{
	uint8_t f[FRAME_BYTES];
	int nobody;
	make_frame(f, word);
	assert_int_equal(quire_reliable_link_send(l, 0, f, FRAME_BYTES, &nobody), QUIRE_OK);
	assert_int_equal(nobody, 0);
}

/* Waits (at most 2 s) until s holds n frames (and, with t, B's ACKs reached n), then 20 ms
 * more for anything that should not come. */
static void wait_delivered(struct sink *s, int n, struct tap *t)
{
	for (int k = 0;
	     k < 2000 && (delivered(s) < n || (t && atomic_load(&t->acked) < (unsigned)n)); k++)
		usleep(1000);
	usleep(20000);
}

/* Port A sends frames 101-103 to port B, which takes them; B is closed and a new port B
 * opened at its address. A datagram of A's session captured on the way (its frame 1,
 * tagged with the job's key) replayed to the new B is refused and counted, not delivered;
 * then A's next frames reach the new B, each once and in order, after it asks A to start
 * over. */
static void restart_refuses_replay(void **state)
{
	(void)state;
	unsigned b = 30600u + (unsigned)getpid() % 20000u;
	char net_a[96], net_b[96];
	/* A sees address 0 at the tap's ports b+4, b+260; B sees address 1 at b+6, b+262. */
	snprintf(net_a, sizeof(net_a), "udp:127.0.0.1:%u,127.0.0.1:%u", b + 4, b + 2);
	snprintf(net_b, sizeof(net_b), "udp:127.0.0.1:%u,127.0.0.1:%u", b, b + 5);
	setenv(QUIRE_JOB_KEY_ENV, KEY_HEX, 1);
	unsetenv(QUIRE_JOB_RUN_ENV);
	struct tap t = {.lock = PTHREAD_MUTEX_INITIALIZER};
	atomic_init(&t.acked, 0);
	atomic_init(&t.hold_answers, 0);
	t.from_a = udp_bound(b + 4);
	t.from_a_link = udp_bound(b + 4 + QUIRE_WIRE_UDP_LINK_OFF);
	t.to_b = udp_bound(b + 5 + 1);
	t.from_b_link = udp_bound(b + 5 + QUIRE_WIRE_UDP_LINK_OFF + 1);
	t.b_frames = b;
	t.a_link = b + 2 + QUIRE_WIRE_UDP_LINK_OFF + 1;
	assert_int_equal(pipe(t.stop), 0);
	assert_int_equal(pthread_create(&t.thread, NULL, tap_main, &t), 0);
	const struct quire_reliable_link_rx_ops ops = {room, deliver};
	struct sink sa = {.lock = PTHREAD_MUTEX_INITIALIZER},
		    sb = {.lock = PTHREAD_MUTEX_INITIALIZER},
		    sb2 = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct quire_netport_config ca = {.dir = net_a, .addr = 1}, cb = {.dir = net_b, .addr = 0};
	struct quire_reliable_link *a, *lb, *lb2;
	assert_int_equal(quire_reliable_link_open(&cb, &ops, &sb, &lb), QUIRE_OK);
	assert_int_equal(quire_reliable_link_open(&ca, &ops, &sa, &a), QUIRE_OK);
	for (uint32_t q = 1; q <= 3; q++)
		send_word(a, 100 + q);
	wait_delivered(&sb, 3, &t); /* and A has every ACK: nothing in flight to B */
	assert_int_equal(delivered(&sb), 3);
	assert_int_equal(atomic_load(&t.acked), 3);
	pthread_mutex_lock(&t.lock);
	uint8_t frame1[sizeof(t.frame1)];
	size_t frame1_len = t.frame1_len;
	memcpy(frame1, t.frame1, frame1_len);
	pthread_mutex_unlock(&t.lock);
	assert_true(frame1_len > TAP_LINK + QUIRE_LINK_HDR_BYTES);
	quire_reliable_link_close(lb);
	assert_int_equal(quire_reliable_link_open(&cb, &ops, &sb2, &lb2), QUIRE_OK);
	/* The replay, B's answer to it held back (A learns of the restart from its own frame). */
	atomic_store(&t.hold_answers, 1);
	to_port(t.to_b, t.b_frames, frame1, frame1_len);
	struct quire_reliable_link_stats st;
	for (int k = 0; k < 2000; k++) {
		quire_reliable_link_stats(lb2, &st);
		if (st.rx_replayed || delivered(&sb2))
			break;
		usleep(1000);
	}
	usleep(20000);
	quire_reliable_link_stats(lb2, &st);
	if (delivered(&sb2))
		fail_msg(
		    "the port started again took a replay of frame 1 of a session begun before it "
		    "started (first word %u); refused %llu",
		    sb2.first[0], (unsigned long long)st.rx_replayed);
	assert_int_equal(st.rx_replayed, 1);
	assert_int_equal(st.rx_forged, 0);
	atomic_store(&t.hold_answers, 0);
	send_word(a, 104);
	wait_delivered(&sb2, 1, NULL);
	send_word(a, 105);
	wait_delivered(&sb2, 2, NULL);
	assert_int_equal(delivered(&sb2), 2);
	assert_int_equal(sb2.first[0], 104);
	assert_int_equal(sb2.first[1], 105);
	static const uint32_t before[3] = {101, 102, 103};
	for (int i = 0; i < 3; i++)
		assert_int_equal(sb.first[i], before[i]);
	struct quire_reliable_link_stats sta;
	quire_reliable_link_stats(a, &sta);
	quire_reliable_link_stats(lb2, &st);
	print_message("the new port refused %llu datagrams of before it started; A started over "
		      "%llu times\n",
		      (unsigned long long)st.rx_replayed, (unsigned long long)sta.starts_over);
	quire_reliable_link_close(lb2);
	quire_reliable_link_close(a);
	assert_int_equal(write(t.stop[1], "x", 1), 1);
	pthread_join(t.thread, NULL);
	close(t.from_a);
	close(t.from_a_link);
	close(t.to_b);
	close(t.from_b_link);
	close(t.stop[0]);
	close(t.stop[1]);
	pthread_mutex_destroy(&t.lock);
	unsetenv(QUIRE_JOB_KEY_ENV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(key_loading),
	    cmocka_unit_test(tag_flips),
	    cmocka_unit_test(link_refuses),
	    cmocka_unit_test(restart_refuses_replay),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
