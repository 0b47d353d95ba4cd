/* SPDX-License-Identifier: MIT */
/*
 * quire bench faults: what its three kinds of process say to each other. The campaign
 * (bench_faults.c) starts W card processes, W ranks (bench_faults_rank.c) and the wire
 * between the cards (bench_faults_wire.c), and talks to the ranks and the wire over
 * socket pairs in these fixed-size messages.
 */
#ifndef QUIRE_CLI_BENCH_FAULTS_H
#define QUIRE_CLI_BENCH_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#define FAULTS_CARDS 4 /* the ranks and cards of the campaign's communicator */
/* The address a forged frame claims: no card of the job has it. */
#define FAULTS_FOREIGN_ADDR 9u

/* The collectives the campaign runs. */
enum faults_coll {
	COLL_ALLREDUCE,
	COLL_REDUCE_SCATTER,
	COLL_BROADCAST,
	COLL_ALLGATHER,
	COLL_BARRIER,
	COLL_KINDS
};

/* One collective, as every rank runs it: the inputs of rank r are drawn from data_seed and r. */
struct faults_op {
	uint32_t coll;   /* enum faults_coll */
	uint32_t format; /* enum quire_format (all-reduce, reduce-scatter) */
	uint32_t mean;   /* QUIRE_OP_MEAN rather than SUM */
	uint32_t count;  /* elements; bytes for broadcast and all-gather */
	uint32_t root;   /* broadcast */
	uint64_t data_seed;
};

/* Campaign -> rank. */
enum faults_cmd_type { CMD_COMM = 1, CMD_OP = 2, CMD_QUIT = 3 };
struct faults_cmd {
	uint32_t type;
	uint32_t comm_id;    /* CMD_COMM: the new communicator's id */
	uint32_t reopen;     /* CMD_COMM: close the context and attach to the card again */
	uint32_t plant_flip; /* CMD_OP: flip one bit of this rank's result before the check
			      * (the planted fault that shows the checker catches a wrong sum) */
	struct faults_op op;
};

/* Rank -> campaign. */
enum faults_verdict { VERDICT_EXACT = 0, VERDICT_ERROR = 1, VERDICT_WRONG = 2 };
struct faults_reply {
	int32_t status;   /* QUIRE_ status of the call, or of the wait */
	uint32_t verdict; /* enum faults_verdict (CMD_COMM: EXACT for ready) */
	uint64_t digest;  /* FNV-1a of the result: all ranks of an all-reduce agree */
	int64_t card_ms;  /* CMD_OP: ms of the card's own clock from the submission to the
			   * answer; -1 when the clock could not be read after it (the card
			   * frozen or gone: the answer is the host's, in wall time) */
	char what[96];    /* the error, or the first differing element */
};

/* The faults the wire puts on a collective's frames, and what the campaign does to
 * processes; one per collective at most. */
enum faults_kind {
	FAULT_NONE,
	FAULT_LOST,      /* the wire loses some of the collective's frames */
	FAULT_CORRUPT,   /* flips one bit of some of them (after the sender's CRC) */
	FAULT_DUPLICATE, /* delivers some twice */
	FAULT_REORDER,   /* holds one back until after the next on its link */
	FAULT_DELAY,     /* holds some for a while, well within the timeout */
	FAULT_FORGED,    /* a foreign sender's frame, CRC valid, joins the collective */
	FAULT_THAW,      /* a card frozen (SIGSTOP), thawed within the timeout */
	FAULT_FREEZE,    /* a card frozen past the timeout */
	FAULT_KILL_CARD, /* a card process killed */
	FAULT_KILL_RANK, /* a rank (host process) killed */
	FAULT_KINDS
};
extern const char *const faults_kind_name[FAULT_KINDS];

/* Campaign -> wire. */
/* WIRE_CARD_DOWN: card `card` is gone, so are the sockets named after it, as its own port
 * on a shared directory (a peer's link then starts over with it); WIRE_CARD_UP: again. */
enum faults_wire_cmd {
	WIRE_ARM = 1,
	WIRE_DISARM = 2,
	WIRE_QUIT = 3,
	WIRE_CARD_DOWN = 4,
	WIRE_CARD_UP = 5
};
struct faults_wire_msg {
	uint32_t type;
	uint32_t kind;     /* WIRE_ARM: enum faults_kind (FAULT_NONE..FAULT_FORGED; the others:
			    * only the notice that the collective is on card `card`) */
	uint32_t comm_id;  /* the frames of this communicator ... */
	uint32_t coll_seq; /* ... and collective */
	uint32_t card;     /* whose frames (sent by it) carry the fault; whose are watched */
	uint32_t frames;   /* how many of its frames */
	uint32_t delay_ms; /* FAULT_DELAY */
	uint64_t seed;     /* which bit a corruption flips, the forged payload */
};

/* Wire -> campaign. */
enum faults_wire_note {
	NOTE_IN_FLIGHT = 1,
	NOTE_FORGED_SENT = 2,
	NOTE_DISARMED = 3,
	NOTE_CARD_UP = 4, /* the sockets named after a card started again are bound */
};
struct faults_wire_note_msg {
	uint32_t type;
	uint32_t card;
	uint32_t coll_seq;
	uint32_t done; /* frames the armed fault was applied to */
};

/* Counts the wire keeps, read at the end. */
struct faults_wire_stats {
	uint64_t forwarded, lost, corrupted, duplicated, reordered, delayed, forged, overflow;
	uint64_t forged_answered; /* the cards' links' ACKs and NACKs to the forger */
};

/*
 * The wire: card i's port sends to <net>/n<i>/port-<j> and link-<j>, sockets the wire binds
 * for every j != i, and the wire passes each datagram on to card j's own port in
 * <net>/n<j>, from a socket named after i there, applying the armed fault. Runs in the
 * calling (forked, single-threaded) process until WIRE_QUIT on ctl; 0, or 1 on a failure
 * it printed. The stats go back on ctl before it returns.
 */
int faults_wire_run(const char *net, int cards, int ctl);

/* Where a datagram's frame starts: after the link header, and its tag when the link is
 * tagged (include/quire/frame.h). */
size_t faults_link_bytes(const uint8_t *d, size_t len);

/*
 * The forged frame: from `real`, a frame of the collective on its way to card dst (link
 * header, tag if any, and frame, len bytes), a datagram that a sender outside the job would
 * send: src FAULTS_FOREIGN_ADDR in both headers, its own link session numbered from 1,
 * payload drawn from seed, and both CRCs valid. It has no key, so a tag stays the real
 * frame's, which no longer matches. Writes at most cap bytes to out; the length.
 */
size_t faults_forge(const uint8_t *real, size_t len, uint64_t seed, uint8_t *out, size_t cap);

/*
 * A rank: attaches to the card at sock, takes commands on fd until CMD_QUIT or the
 * campaign's end, and answers each. timeout_ms is the context's and the communicator's.
 */
int faults_rank_run(int rank, const char *sock, int timeout_ms, int fd);

/* The inputs of rank r of op (count floats or int32s, or bytes), and the result every rank
 * must see at the given rank (the reference, computed here on the CPU). */
void faults_inputs(const struct faults_op *op, int rank, void *x);
int faults_reference(const struct faults_op *op, int rank, void *y, size_t *bytes);
/* FNV-1a of n bytes. */
uint64_t faults_digest(const void *p, size_t n);

#endif /* QUIRE_CLI_BENCH_FAULTS_H */
