// SPDX-License-Identifier: MIT
/*
 * The simulated network's loss recovery (reliable_link.h, docs/network.md, "Loss
 * recovery"), above the wire of wire.c (a port's two channels, Unix datagram sockets or
 * UDP, and the faults a test injects): a receive thread and a control thread per port.
 *
 * Recovery is selective repeat per pair of ports, under the ports: every frame goes
 * out behind a link header (include/quire/frame.h) with its number on the
 * link; the sender keeps each frame until the receiver acknowledges it, at most
 * LINK_HELD frames per destination (past that the port says BUSY, as when the
 * peer's buffer is full); the receiver hands the port only the next frame in
 * order, whole (link header and frame CRC checked), and acknowledges it once the
 * port has taken it. Frames that come ahead of a gap are kept (the sender holds
 * no more than LINK_HELD, so neither does the receiver) and handed on when it is
 * filled: between network namespaces the kernel swaps datagrams, and a swap is
 * not a loss. A gap with LINK_REORDER frames kept behind it, or a damaged frame
 * in its place, is answered with a NACK naming the frame wanted, and the sender
 * sends that one again (selective repeat: what came after it is kept), not
 * twice within a round trip. A frame whose ACK does not come within the
 * retransmission timeout is sent again alone (a lost last frame, or a lost ACK);
 * the timeout follows the measured round trip (smoothed, plus four times its
 * variation, as TCP's, frames sent more than once not measured), at least
 * LINK_RTO_MIN_NS, doubling after each expiry up to LINK_RTO_MAX_NS: behind a
 * shaped link a full window waits in the queue, and ACKs wait behind the
 * receiver's own frames, far longer than the minimum.
 * The wire's faults hit every datagram, recovery's own included.
 *
 * A session is bound to the receiving port's incarnation: a random number, never 0, that
 * each port draws when it opens. Its ACKs and NACKs carry it; a sender keeps, per
 * destination, the one it last learned (0 at first) and names it in every DATA header. A
 * receiver takes a frame only when it names the receiver's own incarnation. One that names
 * another (0: the sender has not met this port yet; an earlier one: this port was started
 * again at the same address since the sender last heard from it, or the datagram is a replay
 * of one sent before it started) takes nothing and is answered with a NACK of frame 0 that
 * carries this port's incarnation; the sender learns it and starts a new session in which the
 * frames it holds are numbered from 1 and sent again. So the first contact costs a round trip
 * (while the incarnation is unknown only the first frame goes out), and a restarted port is
 * noticed at the first frame that reaches it. Within an incarnation a receiver takes a
 * sender's session only from its frame 1: one met past its start (frame 1 late) is answered
 * the same way. Nothing of a session answered so was delivered, so nothing is delivered twice.
 *
 * On a UDP network, and on Unix sockets when the job has a key, every datagram carries a
 * tag (frame_auth.h) under a key derived from the
 * job's key and the run's identity, over its link header (session, number and incarnation
 * included) and what follows it; one whose CRCs hold and tag fails is forged or of another job
 * or run, and is dropped and counted, never delivered nor answered. Replays of the job's own
 * datagrams are refused: one sent before this port started names an earlier incarnation; a
 * frame already delivered is a duplicate; a session this port has left is not taken again;
 * and each ACK or NACK carries a number of its own, which must grow.
 */
#include "sim/reliable_link.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quire/status.h"
#include "sim/clock.h"
#include "sim/crc32_fast.h"
#include "sim/frame_auth.h"
#include "sim/job_key.h"
#include "sim/le.h"
#include "sim/wire.h"
#include "sim/wire_udp.h"

#define LINK_HELD         64u         /* frames kept per destination until acknowledged */
#define LINK_RTO_MIN_NS   10000000ll  /* 10 ms: first retransmission timeout */
#define LINK_RTO_MAX_NS   200000000ll /* 200 ms: the longest, after doublings */
#define LINK_NACK_GAP_NS  2000000ll   /* 2 ms between two NACKs for one frame, at least */
#define LINK_REORDER      3u          /* frames kept past a gap before it is taken for a loss */
#define LINK_TICK_MS      10          /* the control thread looks at its timers this often */
#define LINK_SPARE        LINK_HELD   /* acknowledged frames' buffers kept for the next ones */
#define LINK_PAST         32u         /* sessions a source left, remembered to refuse them again */
#define LINK_ANSWER_BYTES 4u          /* an ACK's or NACK's own number, after its tag (tagged) */

/* A sent frame kept until acknowledged. */
struct held {
	struct held *next;
	uint32_t seq, len, tries;
	int64_t first_ns; /* when it was first sent: its ACK times the round trip */
	uint8_t frame[];
};

/* This port's side of the link to one destination. */
struct tx_peer {
	uint16_t dst;
	uint32_t session, next_seq;
	struct held *head, *tail;
	uint32_t count;
	int64_t sent_ns, rto_ns;    /* when head was last sent; its timeout */
	int64_t srtt_ns, rttvar_ns; /* the round trip, smoothed, and its variation (0: none yet) */
	uint32_t back_seq;          /* the last frame sent again for a NACK, and when */
	int64_t back_ns;
	uint32_t answer;      /* tagged: the number of the last ACK or NACK taken in this session */
	uint32_t incarnation; /* the receiver's, from its last NACK of frame 0 (0: none yet) */
};

/* A frame that came ahead of a gap, kept until the gap is filled. */
struct early {
	uint32_t seq, len; /* len 0: none */
	uint8_t *frame;    /* QUIRE_NET_FRAME_MAX bytes, allocated when first needed */
};

/* This port's side of the link from one source (the receive thread's alone). */
struct rx_peer {
	uint16_t src;
	uint32_t session, expected;
	uint32_t nack_seq, ctl_sent;
	int64_t nack_ns;
	struct early *early;      /* LINK_HELD places, frame seq at seq % LINK_HELD, or NULL */
	uint32_t n_early;         /* frames kept there */
	uint32_t past[LINK_PAST]; /* tagged: sessions of this source it left, most recent ... */
	uint32_t n_past;          /* ... at (n_past - 1) % LINK_PAST */
	uint32_t over_session;    /* a session joined past its start, asked to start over ... */
	int64_t over_ns;          /* ... last asked then */
};

struct quire_reliable_link {
	struct quire_wire *wire; /* the port's two channels */
	int fd, ctl_fd;          /* their sockets, to poll */
	int stop_pipe[2];
	pthread_t rx_thread, ctl_thread;
	int have_thread, have_ctl;
	struct quire_reliable_link_rx_ops rx;
	void *ctx;
	uint16_t addr;
	uint32_t incarnation; /* this port's, drawn when it opens: its senders name it */
	uint64_t seed;
	/* Tags, on a UDP network (else NULL): one MAC per thread that uses it, the senders'
	 * under the lock, the receive thread's, the control thread's. */
	struct quire_frame_auth *auth_tx, *auth_rx, *auth_ctl;
	uint32_t hdr_bytes;   /* what comes before a frame: the link header, and its tag */
	int told_forged;      /* the first forged datagram was said on stderr */
	pthread_mutex_t lock; /* tx peers, sends with a frame, stats */
	struct tx_peer *tx;
	uint32_t n_tx;
	/* Buffers of held frames (QUIRE_NET_FRAME_MAX bytes each) whose frame was acknowledged,
	 * for the next frames: a malloc and free of 64 KiB a frame, in two threads, had glibc
	 * give pages back to the kernel and fault them in again. */
	struct held *spare;
	uint32_t n_spare;
	struct rx_peer *rxp; /* the receive thread's */
	uint32_t n_rx;
	struct quire_reliable_link_stats st;
	uint8_t buf[QUIRE_WIRE_HEADROOM + QUIRE_WIRE_DATAGRAM_MAX + 1]; /* the receive thread's */
};

uint32_t quire_net_frame_crc(const uint8_t *f, uint32_t len)
{
	static const uint8_t zero[4];
	uint32_t crc = quire_sim_crc32(0, f, QUIRE_FRAME_OFF_CRC);
	crc = quire_sim_crc32(crc, zero, 4);
	return quire_sim_crc32(crc, f + QUIRE_FRAME_HDR_BYTES, len - QUIRE_FRAME_HDR_BYTES);
}

static void link_hdr(uint8_t h[QUIRE_LINK_HDR_BYTES], uint32_t version, uint32_t kind, uint16_t src,
		     uint32_t session, uint32_t seq, uint32_t incarnation)
{
	quire_st32(h, version | kind << 8 | (uint32_t)src << 16);
	quire_st32(h + QUIRE_LINK_OFF_SESSION, session);
	quire_st32(h + QUIRE_LINK_OFF_SEQ, seq);
	quire_st32(h + QUIRE_LINK_OFF_INCARNATION, incarnation);
	quire_st32(h + QUIRE_LINK_OFF_CRC, quire_sim_crc32(0, h, QUIRE_LINK_OFF_CRC));
}

/* A header that came whole (of this link's version: tagged or not): its kind, else 0. */
static uint32_t link_hdr_ok(const struct quire_reliable_link *l, const uint8_t *h, size_t len)
{
	uint32_t version = l->auth_rx ? QUIRE_LINK_VERSION_TAGGED : QUIRE_LINK_VERSION;
	if (len < l->hdr_bytes || h[0] != version ||
	    quire_ld32(h + QUIRE_LINK_OFF_CRC) != quire_sim_crc32(0, h, QUIRE_LINK_OFF_CRC))
		return 0;
	return h[1];
}

/* Whether the tag after the header h is that of h and the len bytes that follow the tag
 * (untagged: always); a forged datagram is counted, and the first one said. */
static int tag_ok(struct quire_reliable_link *l, struct quire_frame_auth *a, const uint8_t *h,
		  uint32_t len)
{
	if (!a || quire_frame_auth_check(a, h, QUIRE_LINK_HDR_BYTES, h + l->hdr_bytes, len,
					 h + QUIRE_LINK_HDR_BYTES))
		return 1;
	pthread_mutex_lock(&l->lock);
	l->st.rx_forged++;
	int tell = !l->told_forged;
	l->told_forged = 1;
	pthread_mutex_unlock(&l->lock);
	if (tell)
		fprintf(stderr,
			"quire card %u: refusing datagrams whose tag fails (not this job's key, or "
			"not this run's): the first claims address %u\n",
			l->addr, quire_ld32(h) >> 16);
	return 0;
}

/* Send one datagram of the link, its header (kind, session, seq, the receiving port's
 * incarnation), its tag when a is set (over the header and the body), then the body (a
 * frame, an answer's number, or none: len 0), to channel ch of address dst, through the
 * wire's faults. Called with the lock held when a frame goes with it (the wire damages a
 * copy of it in a buffer of its own). */
static int link_send(struct quire_reliable_link *l, struct quire_frame_auth *a,
		     enum quire_wire_chan ch, uint32_t dst, uint32_t kind, uint32_t session,
		     uint32_t seq, uint32_t incarnation, const uint8_t *body, uint32_t len,
		     uint32_t attempt, enum quire_wire_fate *fate)
{
	uint8_t hdr[QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES];
	link_hdr(hdr, a ? QUIRE_LINK_VERSION_TAGGED : QUIRE_LINK_VERSION, kind, l->addr, session,
		 seq, incarnation);
	if (a)
		quire_frame_auth_tag(a, hdr, QUIRE_LINK_HDR_BYTES, body, len,
				     hdr + QUIRE_LINK_HDR_BYTES);
	struct quire_wire_name name = {.kind = kind, .seq = seq, .attempt = attempt};
	return quire_wire_send(l->wire, ch, dst, hdr, l->hdr_bytes, body, len, &name, fate);
}

/* ---- sending side ------------------------------------------------------------ */

/* A buffer for a frame to keep: a spare one, else a new one. Lock held. */
static struct held *held_get(struct quire_reliable_link *l)
{
	struct held *h = l->spare;
	if (!h)
		return malloc(sizeof(*h) + QUIRE_NET_FRAME_MAX);
	l->spare = h->next;
	l->n_spare--;
	return h;
}

/* A kept frame's buffer, no longer needed. Lock held. */
static void held_put(struct quire_reliable_link *l, struct held *h)
{
	if (l->n_spare >= LINK_SPARE) {
		free(h);
		return;
	}
	h->next = l->spare;
	l->spare = h;
	l->n_spare++;
}

static void tx_forget(struct quire_reliable_link *l, struct tx_peer *p)
{
	while (p->head) {
		struct held *h = p->head;
		p->head = h->next;
		held_put(l, h);
	}
	p->tail = NULL;
	p->count = 0;
}

/* A new session to p->dst, numbered from 1; what p holds is left to the caller. */
static void tx_new_session(struct quire_reliable_link *l, struct tx_peer *p)
{
	uint32_t s;
	do
		s = (uint32_t)quire_wire_hash(l->seed ^ (uint64_t)quire_sim_mono_ns() ^
					      (uint64_t)getpid() << 20 ^ (uint64_t)p->dst << 48 ^
					      (uint64_t)(uintptr_t)p);
	while (s == 0 || s == p->session);
	p->session = s;
	p->next_seq = 0;
	p->rto_ns = LINK_RTO_MIN_NS;
	p->srtt_ns = p->rttvar_ns = 0;
	p->back_seq = 0;
	p->answer = 0;
}

/* Start the link to p->dst over: a new session, nothing kept, and the port that answers
 * next met anew (the one p knew is gone, or started over). */
static void tx_restart(struct quire_reliable_link *l, struct tx_peer *p)
{
	tx_forget(l, p);
	tx_new_session(l, p);
	p->incarnation = 0;
}

static struct tx_peer *tx_peer(struct quire_reliable_link *l, uint32_t dst, int make)
{
	for (uint32_t i = 0; i < l->n_tx; i++)
		if (l->tx[i].dst == dst)
			return &l->tx[i];
	if (!make)
		return NULL;
	struct tx_peer *t = realloc(l->tx, (l->n_tx + 1) * sizeof(*t));
	if (!t)
		return NULL;
	l->tx = t;
	struct tx_peer *p = &t[l->n_tx++];
	memset(p, 0, sizeof(*p));
	p->dst = (uint16_t)dst;
	tx_restart(l, p);
	return p;
}

/* (Re)send frame h to p->dst. Lock held. */
static int tx_frame(struct quire_reliable_link *l, struct tx_peer *p, const struct held *h,
		    uint32_t attempt)
{
	enum quire_wire_fate fate;
	int st = link_send(l, l->auth_tx, QUIRE_WIRE_FRAMES, p->dst, QUIRE_LINK_DATA, p->session,
			   h->seq, p->incarnation, h->frame, h->len, attempt, &fate);
	if (fate == QUIRE_WIRE_LOST)
		l->st.wire_lost++;
	else if (fate == QUIRE_WIRE_DAMAGED)
		l->st.wire_damaged++;
	return st;
}

/* Send the head of what p holds again (the receiver keeps what came after it). */
static void tx_again(struct quire_reliable_link *l, struct tx_peer *p)
{
	struct held *h = p->head;
	int st = tx_frame(l, p, h, ++h->tries);
	if (st == QUIRE_ERR_NO_DEVICE) { /* the peer is gone: so is what it was owed */
		tx_restart(l, p);
		return;
	}
	if (st != QUIRE_OK)
		return; /* its buffer is full: the timeout brings us back */
	l->st.retransmits++;
	p->sent_ns = quire_sim_mono_ns();
}

/* The receiver has taken nothing of p's session (it named another incarnation of the
 * receiver, or frame 1 came late): a new session, the frames p holds numbered from 1 in it
 * and sent again, in order. */
static void tx_start_over(struct quire_reliable_link *l, struct tx_peer *p)
{
	tx_new_session(l, p);
	for (struct held *h = p->head; h; h = h->next) {
		h->seq = ++p->next_seq;
		h->tries++; /* its ACK could answer either send: no round trip measured (Karn) */
	}
	l->st.starts_over++;
	p->sent_ns = quire_sim_mono_ns();
	for (struct held *h = p->head; h; h = h->next) {
		int st = tx_frame(l, p, h, h->tries);
		if (st == QUIRE_ERR_NO_DEVICE) { /* the peer is gone again */
			tx_restart(l, p);
			return;
		}
		if (st != QUIRE_OK)
			return; /* its buffer is full: the timeout sends the head again */
		l->st.retransmits++;
	}
}

int quire_reliable_link_send(struct quire_reliable_link *l, uint32_t dst, uint8_t *f, uint32_t len,
			     int *nobody)
{
	*nobody = 0;
	if (dst > 0xffffu || len > QUIRE_NET_FRAME_MAX)
		return QUIRE_ERR_RANGE;
	pthread_mutex_lock(&l->lock);
	struct tx_peer *p = tx_peer(l, dst, 1);
	struct held *h = NULL;
	int st = !p ? QUIRE_ERR_NOMEM : p->count >= LINK_HELD ? QUIRE_ERR_BUSY : QUIRE_OK;
	if (st == QUIRE_OK && !(h = held_get(l)))
		st = QUIRE_ERR_NOMEM;
	if (st == QUIRE_OK) {
		h->next = NULL;
		h->seq = p->next_seq + 1;
		h->len = len;
		h->tries = 0;
		h->first_ns = quire_sim_mono_ns();
		memcpy(h->frame, f, len);
		/* While the receiver's incarnation is unknown it takes no frame: the first goes
		 * out to learn it, and its NACK of frame 0 has them all sent again. */
		if (p->incarnation || !p->head)
			st = tx_frame(l, p, h, 0);
	}
	if (st == QUIRE_ERR_NO_DEVICE) { /* no port has that address (any more): lost */
		tx_restart(l, p);
		*nobody = 1;
		st = QUIRE_OK;
	} else if (st == QUIRE_OK) { /* kept until acknowledged */
		p->next_seq = h->seq;
		if (!p->head)
			p->sent_ns = quire_sim_mono_ns();
		if (p->tail)
			p->tail->next = h;
		else
			p->head = h;
		p->tail = h;
		p->count++;
		h = NULL;
	}
	if (h)
		held_put(l, h);
	pthread_mutex_unlock(&l->lock);
	return st; /* BUSY: the peer's buffer, or what is kept for it, is full: try again */
}

/* The receiver has every frame up to seq: let them go. Lock held. */
/* The retransmission timeout after a round trip of rtt ns (RFC 6298's estimator). */
static void tx_rtt(struct tx_peer *p, int64_t rtt)
{
	if (!p->srtt_ns) {
		p->srtt_ns = rtt;
		p->rttvar_ns = rtt / 2;
	} else {
		int64_t d = p->srtt_ns > rtt ? p->srtt_ns - rtt : rtt - p->srtt_ns;
		p->rttvar_ns += (d - p->rttvar_ns) / 4;
		p->srtt_ns += (rtt - p->srtt_ns) / 8;
	}
}

static int64_t tx_rto(const struct tx_peer *p)
{
	int64_t rto = p->srtt_ns + 4 * p->rttvar_ns;
	return rto < LINK_RTO_MIN_NS   ? LINK_RTO_MIN_NS
	       : rto > LINK_RTO_MAX_NS ? LINK_RTO_MAX_NS
				       : rto;
}

static void tx_acked(struct quire_reliable_link *l, struct tx_peer *p, uint32_t seq)
{
	int64_t t = quire_sim_mono_ns(), rtt = -1;
	int moved = 0;
	while (p->head && (int32_t)(seq - p->head->seq) >= 0) {
		struct held *h = p->head;
		/* Only a frame sent once times the round trip: an ACK after a resend could be
		 * either send's (Karn). */
		rtt = h->tries == 0 ? t - h->first_ns : -1;
		p->head = h->next;
		held_put(l, h);
		p->count--;
		moved = 1;
	}
	if (!p->head)
		p->tail = NULL;
	if (moved) {
		if (rtt >= 0)
			tx_rtt(p, rtt);
		p->rto_ns = tx_rto(p);
		p->sent_ns = t; /* the new head's clock starts now */
	}
}

static void ctl_datagram(struct quire_reliable_link *l, const uint8_t *h, uint32_t n)
{
	uint32_t body = l->auth_ctl ? LINK_ANSWER_BYTES : 0;
	uint32_t kind = n == l->hdr_bytes + body ? link_hdr_ok(l, h, (size_t)n) : 0;
	if (kind && !tag_ok(l, l->auth_ctl, h, body))
		return;
	pthread_mutex_lock(&l->lock);
	struct tx_peer *p = kind ? tx_peer(l, quire_ld32(h) >> 16, 0) : NULL;
	if (!kind)
		l->st.rx_damaged++;
	if (!p || quire_ld32(h + QUIRE_LINK_OFF_SESSION) != p->session) {
		pthread_mutex_unlock(&l->lock); /* damaged, or of an earlier session */
		return;
	}
	uint32_t incarnation = quire_ld32(h + QUIRE_LINK_OFF_INCARNATION);
	if (kind == QUIRE_LINK_NACK && quire_ld32(h + QUIRE_LINK_OFF_SEQ) == 0 && incarnation) {
		/* A NACK of frame 0: the receiver took nothing of this session and asks for it
		 * from the start, in a session that names the incarnation it tells. Its number
		 * is not checked (a restarted port numbers its answers from 1): it moves this
		 * port to a new session, so it is taken once, and a replay of it names a session
		 * left. */
		p->incarnation = incarnation;
		tx_start_over(l, p);
		pthread_mutex_unlock(&l->lock);
		return;
	}
	if (incarnation != p->incarnation) { /* not of the port that took this session */
		pthread_mutex_unlock(&l->lock);
		return;
	}
	if (body) { /* tagged: an answer's number grows; an older one is replayed or overtaken */
		uint32_t number = quire_ld32(h + l->hdr_bytes);
		if ((int32_t)(number - p->answer) <= 0) {
			l->st.rx_replayed++;
			pthread_mutex_unlock(&l->lock);
			return;
		}
		p->answer = number;
	}
	uint32_t seq = quire_ld32(h + QUIRE_LINK_OFF_SEQ);
	if (kind == QUIRE_LINK_ACK) {
		tx_acked(l, p, seq);
	} else if (kind == QUIRE_LINK_NACK && seq >= 1) {
		if (seq > p->next_seq) {
			/* asks for what was never sent: nothing to do */
		} else if (p->head && (int32_t)(seq - p->head->seq) < 0) {
			tx_restart(l, p); /* asks for what it acknowledged: it started over */
		} else {
			tx_acked(l, p, seq - 1);
			/* The frame asked for, once a round trip: the NACKs of one gap come on
			 * while the frames behind it arrive, and its resend is on its way. */
			int64_t t = quire_sim_mono_ns(),
				gap = p->srtt_ns > LINK_NACK_GAP_NS ? p->srtt_ns : LINK_NACK_GAP_NS;
			if (p->head && (p->back_seq != seq || t - p->back_ns >= gap)) {
				p->back_seq = seq;
				p->back_ns = t;
				tx_again(l, p);
			}
		}
	}
	pthread_mutex_unlock(&l->lock);
}

/* Frames whose ACK is late: the head of each destination goes again. */
static void ctl_timers(struct quire_reliable_link *l)
{
	pthread_mutex_lock(&l->lock);
	int64_t t = quire_sim_mono_ns();
	for (uint32_t i = 0; i < l->n_tx; i++) {
		struct tx_peer *p = &l->tx[i];
		if (!p->head || t - p->sent_ns < p->rto_ns)
			continue;
		tx_again(l, p);
		p->rto_ns = p->rto_ns * 2 < LINK_RTO_MAX_NS ? p->rto_ns * 2 : LINK_RTO_MAX_NS;
	}
	pthread_mutex_unlock(&l->lock);
}

static void *ctl_main(void *arg)
{
	struct quire_reliable_link *l = arg;
	uint8_t h[QUIRE_WIRE_HEADROOM + QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES +
		  LINK_ANSWER_BYTES + 1];
	const uint8_t *d;
	for (;;) {
		struct pollfd fds[2] = {{l->ctl_fd, POLLIN, 0}, {l->stop_pipe[0], POLLIN, 0}};
		if (poll(fds, 2, LINK_TICK_MS) < 0 && errno != EINTR)
			return NULL;
		if (fds[1].revents)
			return NULL;
		uint32_t n;
		int64_t src;
		for (int r; (fds[0].revents & POLLIN) &&
			    (r = quire_wire_recv(l->wire, QUIRE_WIRE_LINK, h, sizeof(h), &d, &n,
						 &src)) >= 0;)
			if (r)
				ctl_datagram(l, d, n);
		ctl_timers(l);
	}
}

/* ---- receiving side ---------------------------------------------------------- */

static struct rx_peer *rx_peer(struct quire_reliable_link *l, uint32_t src)
{
	for (uint32_t i = 0; i < l->n_rx; i++)
		if (l->rxp[i].src == src)
			return &l->rxp[i];
	struct rx_peer *t = realloc(l->rxp, (l->n_rx + 1) * sizeof(*t));
	if (!t)
		return NULL;
	l->rxp = t;
	struct rx_peer *r = &t[l->n_rx++];
	memset(r, 0, sizeof(*r));
	r->src = (uint16_t)src;
	return r;
}

/* ACK or NACK of frame seq in session to r->src's control address, with this port's
 * incarnation; lost if its buffer is full (a later one, or the sender's timeout, makes up
 * for it). */
static void rx_answer(struct quire_reliable_link *l, struct rx_peer *r, uint32_t kind,
		      uint32_t session, uint32_t seq)
{
	enum quire_wire_fate fate;
	uint8_t number[LINK_ANSWER_BYTES];
	quire_st32(number, ++r->ctl_sent);
	(void)link_send(l, l->auth_rx, QUIRE_WIRE_LINK, r->src, kind, session, seq, l->incarnation,
			l->auth_rx ? number : NULL, l->auth_rx ? LINK_ANSWER_BYTES : 0, r->ctl_sent,
			&fate);
}

static void rx_nack(struct quire_reliable_link *l, struct rx_peer *r)
{
	int64_t t = quire_sim_mono_ns();
	if (r->nack_seq == r->expected && t - r->nack_ns < LINK_NACK_GAP_NS)
		return; /* asked already: the frames behind the gap are on their way */
	r->nack_seq = r->expected;
	r->nack_ns = t;
	rx_answer(l, r, QUIRE_LINK_NACK, r->session, r->expected);
	pthread_mutex_lock(&l->lock);
	l->st.nacks++;
	pthread_mutex_unlock(&l->lock);
}

static void rx_count(struct quire_reliable_link *l, uint64_t *counter)
{
	pthread_mutex_lock(&l->lock);
	(*counter)++;
	pthread_mutex_unlock(&l->lock);
}

/* A whole frame: as long as its header says, with its CRC. */
static int frame_whole(const uint8_t *f, size_t len)
{
	return len >= QUIRE_FRAME_HDR_BYTES && len <= QUIRE_NET_FRAME_MAX &&
	       quire_ld32(f + QUIRE_FRAME_OFF_LEN) == len - QUIRE_FRAME_HDR_BYTES &&
	       quire_ld32(f + QUIRE_FRAME_OFF_CRC) == quire_net_frame_crc(f, (uint32_t)len);
}

/* Let go of the frames kept ahead of a gap (the sender started over). */
static void early_clear(struct rx_peer *r)
{
	for (uint32_t i = 0; r->early && i < LINK_HELD; i++)
		r->early[i].len = 0;
	r->n_early = 0;
}

/* Keep frame seq, which came ahead of the gap at r->expected. */
static void early_keep(struct quire_reliable_link *l, struct rx_peer *r, uint32_t seq,
		       const uint8_t *f, uint32_t len)
{
	if (!r->early && !(r->early = calloc(LINK_HELD, sizeof(*r->early))))
		return; /* not kept: it is asked for again */
	struct early *e = &r->early[seq % LINK_HELD];
	if (e->len && e->seq == seq) {
		rx_count(l, &l->st.rx_duplicates);
		return;
	}
	if (!e->frame && !(e->frame = malloc(QUIRE_NET_FRAME_MAX)))
		return;
	if (!e->len)
		r->n_early++;
	memcpy(e->frame, f, len);
	e->len = len;
	e->seq = seq;
	rx_count(l, &l->st.rx_out_of_order);
}

/* A frame in order: to the port, then those kept behind it that follow, then the ACK. */
static void rx_in_order(struct quire_reliable_link *l, struct rx_peer *r, const uint8_t *f,
			uint32_t len)
{
	l->rx.deliver(l->ctx, f, len);
	r->expected++;
	while (r->n_early) {
		struct early *e = &r->early[r->expected % LINK_HELD];
		if (!e->len || e->seq != r->expected || !l->rx.room(l->ctx))
			break;
		l->rx.deliver(l->ctx, e->frame, e->len);
		e->len = 0;
		r->n_early--;
		r->expected++;
	}
	rx_answer(l, r, QUIRE_LINK_ACK, r->session, r->expected - 1);
	if (r->n_early >= LINK_REORDER) /* another gap, with frames behind it: a loss */
		rx_nack(l, r);
}

/* Whether r has left session before (tagged links: a replay of an earlier session). */
static int rx_left_before(const struct rx_peer *r, uint32_t session)
{
	uint32_t kept = r->n_past < LINK_PAST ? r->n_past : LINK_PAST;
	for (uint32_t i = 0; i < kept; i++)
		if (r->past[i] == session)
			return 1;
	return 0;
}

/* A session of r's sender not to be taken: it names another incarnation of this port, or
 * it was met past its start (frame 1 late). Nothing of it is taken, since what came before
 * is unknown; a NACK of frame 0 with this port's incarnation asks the sender to start over
 * (once in LINK_NACK_GAP_NS per session: the frames of one burst come on), and it sends what
 * it holds again, from 1, in a new session that names this port's incarnation. */
static void rx_ask_start_over(struct quire_reliable_link *l, struct rx_peer *r, uint32_t session)
{
	int64_t t = quire_sim_mono_ns();
	if (r->over_session == session && t - r->over_ns < LINK_NACK_GAP_NS)
		return;
	r->over_session = session;
	r->over_ns = t;
	rx_answer(l, r, QUIRE_LINK_NACK, session, 0);
	rx_count(l, &l->st.nacks);
}

/* A datagram from the port of address src (-1: unknown) to this one. */
static void rx_datagram(struct quire_reliable_link *l, const uint8_t *h, size_t n, int64_t src)
{
	uint32_t kind = link_hdr_ok(l, h, n);
	if (kind != QUIRE_LINK_DATA) {
		/* Damaged on the way: whose it was, the transport says. */
		rx_count(l, &l->st.rx_damaged);
		struct rx_peer *r = src < 0 ? NULL : rx_peer(l, (uint32_t)src);
		if (r && r->session)
			rx_nack(l, r);
		return;
	}
	const uint8_t *f = h + l->hdr_bytes;
	size_t len = n - l->hdr_bytes;
	int whole = frame_whole(f, len);
	/* Tagged: a whole frame (a damaged one is no forgery: its loss is asked for again) must
	 * carry the tag before anything it says is believed. */
	if (whole && !tag_ok(l, l->auth_rx, h, (uint32_t)len))
		return;
	struct rx_peer *r = rx_peer(l, quire_ld32(h) >> 16);
	if (!r)
		return;
	uint32_t session = quire_ld32(h + QUIRE_LINK_OFF_SESSION),
		 seq = quire_ld32(h + QUIRE_LINK_OFF_SEQ),
		 incarnation = quire_ld32(h + QUIRE_LINK_OFF_INCARNATION);
	if (incarnation != l->incarnation) {
		/* For another start of this port: its sender has not met it (0), or met an
		 * earlier one (this port started again since; or a replay of a datagram sent
		 * before it started, refused and, tagged, counted). Nothing of it is taken; the
		 * sender is told this incarnation. A damaged one is dropped: the sender's
		 * timeout sends it again. */
		if (!whole) {
			rx_count(l, &l->st.rx_damaged);
			return;
		}
		if (incarnation && l->auth_rx)
			rx_count(l, &l->st.rx_replayed);
		rx_ask_start_over(l, r, session);
		return;
	}
	if (session != r->session && !whole && l->auth_rx) {
		rx_count(l, &l->st.rx_damaged); /* an untagged claim of a new session: dropped */
		return;
	}
	if (session != r->session) { /* a sender new to this port, or started over */
		if (l->auth_rx && rx_left_before(r, session)) {
			rx_count(l, &l->st.rx_replayed);
			return;
		}
		if (seq != 1 || session == r->over_session) {
			if (whole)
				rx_ask_start_over(l, r, session);
			else
				rx_count(l, &l->st.rx_damaged);
			return;
		}
		if (l->auth_rx && r->session)
			r->past[r->n_past++ % LINK_PAST] = r->session;
		r->session = session;
		r->expected = 1;
		r->nack_seq = 0;
		early_clear(r);
	}
	int32_t ahead = (int32_t)(seq - r->expected);
	if (ahead < 0) { /* had it: its ACK was lost, or late */
		rx_count(l, &l->st.rx_duplicates);
		rx_answer(l, r, QUIRE_LINK_ACK, r->session, r->expected - 1);
		return;
	}
	if (!whole) {
		rx_count(l, &l->st.rx_damaged);
		if (ahead == 0) /* the very frame wanted (a later one: the gap shows it) */
			rx_nack(l, r);
		return;
	}
	if (ahead == 0) {
		rx_in_order(l, r, f, (uint32_t)len);
		return;
	}
	if ((uint32_t)ahead < LINK_HELD) /* beyond: not of the sender's window */
		early_keep(l, r, seq, f, (uint32_t)len);
	if (r->n_early >= LINK_REORDER)
		rx_nack(l, r);
}

static void *rx_main(void *arg)
{
	struct quire_reliable_link *l = arg;
	for (;;) {
		if (!l->rx.room(l->ctx)) /* full: the senders wait (their frames stay kept) */
			return NULL;
		struct pollfd fds[2] = {{l->fd, POLLIN, 0}, {l->stop_pipe[0], POLLIN, 0}};
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			return NULL;
		if (fds[1].revents)
			return NULL;
		if (!(fds[0].revents & POLLIN))
			continue;
		uint32_t n;
		int64_t src;
		const uint8_t *d;
		if (quire_wire_recv(l->wire, QUIRE_WIRE_FRAMES, l->buf, sizeof(l->buf), &d, &n,
				    &src) == 1)
			rx_datagram(l, d, n, src);
	}
}

/* ---- the link ---------------------------------------------------------------- */

/* The tags' MACs of a job with a key: the job key from the environment, the run's identity from
 * the wire's rendezvous or QUIRE_JOB_RUN (none: zero, and the key alone tells jobs apart).
 * What is wrong is said on stderr, as the rendezvous' failures are. */
static int link_auth(struct quire_reliable_link *l, const struct quire_job_key *key)
{
	uint8_t run[QUIRE_JOB_RUN_BYTES], link_key[QUIRE_FRAME_AUTH_MAC_BYTES];
	if (!quire_wire_run(l->wire, run) && quire_job_run_from_env(run) < 0) {
		fprintf(stderr, "quire card %u: %s is not 32 hex digits\n", l->addr,
			QUIRE_JOB_RUN_ENV);
		return QUIRE_ERR_INVALID;
	}
	int st = quire_frame_auth_derive(key, run, link_key);
	if (st == QUIRE_OK)
		st = quire_frame_auth_new(link_key, &l->auth_tx);
	if (st == QUIRE_OK)
		st = quire_frame_auth_new(link_key, &l->auth_rx);
	if (st == QUIRE_OK)
		st = quire_frame_auth_new(link_key, &l->auth_ctl);
	explicit_bzero(link_key, sizeof(link_key));
	l->hdr_bytes = QUIRE_LINK_HDR_BYTES + QUIRE_LINK_TAG_BYTES;
	return st;
}

/* The job key from the environment: a UDP network needs one, Unix sockets tag their
 * datagrams when there is one (the directory's permissions keep other users out, not a
 * process of the same user outside the job). What is wrong, on stderr. */
static int link_key(uint16_t addr, int required, struct quire_job_key *key)
{
	char why[512];
	int st = quire_job_key_from_env(key, why, sizeof(why));
	if (st == QUIRE_OK && !key->len && required) {
		snprintf(why, sizeof(why),
			 "the cards' UDP network needs the job's key: set %s (32 hex digits) or %s "
			 "(a file of mode 0600); quire-cluster makes one",
			 QUIRE_JOB_KEY_ENV, QUIRE_JOB_KEY_FILE_ENV);
		st = QUIRE_ERR_INVALID;
	}
	if (st != QUIRE_OK)
		fprintf(stderr, "quire card %u: %s\n", addr, why);
	return st;
}

/* This port's incarnation: random (a port started again at the same address must not draw
 * its last one: a peer would take it for the same port), never 0 (what a sender names
 * before it has learned one). */
static int link_incarnation(struct quire_reliable_link *l)
{
	uint8_t b[4];
	do {
		if (quire_job_random(b, sizeof(b)) != QUIRE_OK) {
			fprintf(stderr, "quire card %u: no random number from the kernel\n",
				l->addr);
			return QUIRE_ERR_IO;
		}
		l->incarnation = quire_ld32(b);
	} while (!l->incarnation);
	return QUIRE_OK;
}

int quire_reliable_link_open(const struct quire_netport_config *cfg,
			     const struct quire_reliable_link_rx_ops *rx, void *ctx,
			     struct quire_reliable_link **out)
{
	*out = NULL;
	if (!cfg || !cfg->dir || !rx || cfg->drop < 0 || cfg->drop > 1 || cfg->corrupt < 0 ||
	    cfg->corrupt > 1)
		return QUIRE_ERR_INVALID;
	struct quire_reliable_link *l = calloc(1, sizeof(*l));
	if (!l)
		return QUIRE_ERR_NOMEM;
	l->rx = *rx;
	l->ctx = ctx;
	l->addr = cfg->addr;
	l->seed = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ull;
	l->stop_pipe[0] = l->stop_pipe[1] = -1;
	l->hdr_bytes = QUIRE_LINK_HDR_BYTES;
	pthread_mutex_init(&l->lock, NULL);
	struct quire_job_key key = {{0}, 0};
	int udp = quire_wire_udp_is(cfg->dir);
	int st = link_incarnation(l);
	if (st == QUIRE_OK)
		st = link_key(cfg->addr, udp, &key);
	if (st == QUIRE_OK)
		st = quire_wire_open(cfg, udp ? &key : NULL, &l->wire);
	if (st == QUIRE_OK && key.len)
		st = link_auth(l, &key);
	explicit_bzero(&key, sizeof(key));
	if (st == QUIRE_OK) {
		l->fd = quire_wire_fd(l->wire, QUIRE_WIRE_FRAMES);
		l->ctl_fd = quire_wire_fd(l->wire, QUIRE_WIRE_LINK);
	}
	if (st == QUIRE_OK && pipe2(l->stop_pipe, O_CLOEXEC) != 0)
		st = QUIRE_ERR_IO;
	if (st == QUIRE_OK && pthread_create(&l->rx_thread, NULL, rx_main, l) != 0)
		st = QUIRE_ERR_NOMEM;
	l->have_thread = st == QUIRE_OK;
	if (st == QUIRE_OK && pthread_create(&l->ctl_thread, NULL, ctl_main, l) != 0)
		st = QUIRE_ERR_NOMEM;
	l->have_ctl = st == QUIRE_OK;
	if (st != QUIRE_OK) {
		quire_reliable_link_close(l);
		return st;
	}
	*out = l;
	return QUIRE_OK;
}

void quire_reliable_link_stats(struct quire_reliable_link *l, struct quire_reliable_link_stats *st)
{
	pthread_mutex_lock(&l->lock);
	*st = l->st;
	pthread_mutex_unlock(&l->lock);
}

void quire_reliable_link_close(struct quire_reliable_link *l)
{
	if (!l)
		return;
	if (l->have_thread || l->have_ctl)
		(void)!write(l->stop_pipe[1], "x", 1);
	if (l->have_thread)
		pthread_join(l->rx_thread, NULL);
	if (l->have_ctl)
		pthread_join(l->ctl_thread, NULL);
	if (l->st.rx_forged || l->st.rx_replayed)
		fprintf(stderr,
			"quire card %u: refused %llu forged datagrams (tag failed) and %llu "
			"replayed (of before this port started, of a session left, an old answer); "
			"%llu frames came again\n",
			l->addr, (unsigned long long)l->st.rx_forged,
			(unsigned long long)l->st.rx_replayed,
			(unsigned long long)l->st.rx_duplicates);
	quire_frame_auth_free(l->auth_tx);
	quire_frame_auth_free(l->auth_rx);
	quire_frame_auth_free(l->auth_ctl);
	quire_wire_close(l->wire);
	if (l->stop_pipe[0] >= 0)
		close(l->stop_pipe[0]);
	if (l->stop_pipe[1] >= 0)
		close(l->stop_pipe[1]);
	for (uint32_t i = 0; i < l->n_tx; i++)
		tx_forget(l, &l->tx[i]);
	while (l->spare) {
		struct held *h = l->spare;
		l->spare = h->next;
		free(h);
	}
	free(l->tx);
	for (uint32_t i = 0; i < l->n_rx; i++) {
		for (uint32_t k = 0; l->rxp[i].early && k < LINK_HELD; k++)
			free(l->rxp[i].early[k].frame);
		free(l->rxp[i].early);
	}
	free(l->rxp);
	pthread_mutex_destroy(&l->lock);
	free(l);
}
