// SPDX-License-Identifier: MIT
/*
 * All-reduce, reduce-scatter and barrier over the card network: a ring reduce-scatter, then a
 * ring all-gather, frame by frame, so every card works on one chunk while its
 * neighbours work on others (docs/collectives.md).
 *
 * Member r owns segment r (quire_comm_chunk's split, whole 64-element blocks).
 * Reduce-scatter step s: r sends segment r-s-1, having added its own part to
 * what r-1 sent at step s-1; segment k therefore adds the members in the order
 * k+1, k+2, ..., k, which fixes the fp16/fp32 result. After W-1 steps r holds
 * segment r whole; the all-gather passes the finished segments round the ring.
 *
 * All of it runs in rounds of FW_RING_WINDOW frames of every segment (layout.h): round j is
 * that schedule over frames [j * FW_RING_WINDOW, (j + 1) * FW_RING_WINDOW) of each segment.
 * A member's frames sent then run at most a round ahead of its frames received, which the
 * next member's receive ring has room for, so members that all send before they receive
 * never wait on each other's full rings. The frames are the same; only their order differs.
 *
 * Within that order the core starts transfers, engine runs and frames and goes on where the
 * next step does not need their result: a frame is queued (fw_net_post) while the next is
 * made in the other transmit buffer, the contribution to the next chunk is encoded ahead
 * from the kept input while frames go and come (at step 0, into the next frame while the
 * one before goes: step0_go), an all-gather frame is passed on while it
 * is decoded and the next one taken meanwhile, a reduce-scatter chunk's REDUCE (and the
 * one that finishes this member's own chunk) runs while the next frame is taken (rs_send
 * sends its frame once it is over), results go to the host from a ring of buffers, and the
 * exponents' ring starts on a segment as soon as its part of the input is in. QUANT
 * and REDUCE have a port of card memory each, so the contribution to the next chunk is
 * encoded while this chunk's REDUCE runs.
 *
 * BFP first agrees on block exponents: the same ring over the exponent vector,
 * with max instead of sum. Partial sums travel in the narrowest integer that
 * cannot overflow: step 0 carries one contribution in its own type (int8 for
 * bfp8, int16 for bfp16, int32), later steps int16 for bfp8 up to 258 members,
 * else int32, and int64 for int32 inputs, narrowed (saturated and reported)
 * once, at the owner.
 *
 * With QUIRE_CMD_F_REQUANT (bfp), the owner requantizes its finished segment before the
 * all-gather (docs/contract-bfp.md): QUANT DECODE with the mean, then EXPONENTS and ENCODE
 * with error feedback on the owner's residual and its own exponents; the all-gather frames
 * carry the values and, after them, one exponent byte per block, and every member decodes
 * those. Every frame of such an all-reduce is marked, and a member that meets a frame marked
 * otherwise than its own fails the collective for all with QUIRE_ERR_MISMATCH.
 */
#include "dma.h"
#include "engines.h"
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/format.h"
#include "quire/frame.h"
#include "quire/regs.h"
#include "quire/status.h"

#define NONE 0xffffffffu /* no received partial sum: this member alone */
/* The whole fp32 input, kept in card memory from the exponent pass to the value pass when it
 * fits (and without error feedback, whose residual would need a copy too), so that the
 * host link carries it once: the staging buffers and REDUCE's inputs, idle in a collective. */
#define X_KEPT       FW_BUF_A
#define X_KEPT_BYTES (FW_COLL_EXP - FW_BUF_A)

/*
 * An input kept whole in card memory (X_KEPT) runs in parts: part q is elements
 * [part_at(q), part_at(q + 1)) of every segment, and each part has its exponents' ring,
 * then its values' ring. The parts grow from KEPT_FIRST, doubling, to KEPT_PART: the first
 * part's input is all that comes before anything else can start, each part's values go
 * round about as long as the next part's input takes to come, and what is left once the
 * input is all in is a part at most (larger parts leave more of it; smaller ones cost
 * more exponents' rings, each alone: docs/rtl-card.md). The input comes over the
 * host link in pieces of KEPT_STEP elements, part by part, in a part segment by segment in
 * the order the reduce-scatter sends them (this member's own last), up to FEED_AHEAD pieces
 * posted to DMA channel 0 ahead as transfers that write their local exponents on the way
 * (QUIRE_DMA_TO_CARD_EXPS): the exponents' ring sends a segment as soon as its pieces are
 * in, while the rest of the input still comes, and the next parts' pieces come while a
 * part's values go round. A piece is (q, j, at): element `at` of the j-th segment in that
 * order, in part q.
 */
#define KEPT_STEP  32768u
#define KEPT_FIRST 65536u  /* 2 frames of int16 partial sums a segment */
#define KEPT_PART  262144u /* 8 of them: half a round (FW_RING_WINDOW) */
#define FEED_AHEAD 16u     /* QUIRE_DMA_QUEUE_DEPTH: channel 0 carries nothing else meanwhile */
struct feed_at {
	uint32_t q, j, at;
	uint32_t seg, first, end; /* segment seg's elements: [first, end) */
	uint32_t to; /* where the span `at` is in ends (0: none found yet, or past the last) */
};
struct feed {
	uint32_t part;             /* the part whose exponents' ring runs */
	uint32_t longest;          /* elements of segment 0, the longest */
	struct feed_at post, run;  /* the next piece to post; to take once it is in */
	uint32_t posted, run_done; /* pieces posted, and taken (in, counted) */
	int all_posted;
	int st;                    /* a piece's transfer failed: its status */
	uint32_t mark[FEED_AHEAD]; /* channel 0's DONE_COUNT once piece k % FEED_AHEAD is in */
	uint32_t failed;           /* channel 0's FAILED_COUNT when last seen */
};

struct pass {
	struct quire_fw *fw;
	struct quire_fw_comm *c;
	const struct quire_cmd *d;
	uint32_t n; /* elements of the vector (0: a barrier) */
	/* The split of its blocks (QUIRE_RING_SEG_*): the blocks each member has at least, and
	 * how many members (the first) have one more; kept, since the core divides slowly. */
	uint32_t seg_blocks, seg_spare;
	/* The part of every segment this pass runs: units [from, upto) of each (all: 0, ~0u). */
	uint32_t from, upto;
	int exps;        /* the exponent pass: units are blocks */
	uint32_t chunk;  /* units per frame */
	uint32_t val;    /* format of this member's contribution */
	uint32_t part;   /* of partial sums (reduce-scatter) */
	uint32_t fin;    /* of finished sums (all-gather) */
	uint32_t mean_w; /* decode divides by this (0: a sum) */
	int overflow;    /* some int32 sum saturated */
	int scatter;     /* reduce-scatter: only this member's segment, to dst from its start */
	uint32_t out0;   /* the element dst starts with */
	uint32_t rq;     /* QUIRE_FRAME_F_REQUANT on every frame (requantized all-gather), or 0 */
	uint32_t own0;   /* requantized: the first element of this member's segment */
	uint32_t kept;   /* the input's element 0 in card memory (X_KEPT), or 0: from the host */
	/* The results go to the host from FW_COLL_Y_BUFS buffers in turn (layout.h): y is the
	 * one the next is decoded into; out_len the bytes still going from each (0: none),
	 * gone once channel OUT_CH's DONE_COUNT reaches out_mark; out_failed its FAILED_COUNT
	 * when last seen. */
	uint32_t y, out_len[FW_COLL_Y_BUFS], out_mark[FW_COLL_Y_BUFS], out_failed;
	/* With dst on a line, a received all-gather frame's results go to the host decoded by
	 * the mover on the way (QUIRE_DMA_TO_HOST_DECODE on OUT_CH), QUANT left to encode; the
	 * frame is kept (fw_net_keep) until then. The frames kept, oldest first: the DONE_COUNT
	 * each one's transfer is over at and its bytes, or 0 bytes for one a DECODE left
	 * running reads (over once deliver_end is). */
	int decode_out;
	uint32_t n_frames, frame_mark[QUIRE_FW_NET_KEEP], frame_bytes[QUIRE_FW_NET_KEEP];
	uint32_t tx; /* the payload the next frame is made in: FW_COLL_TX's or FW_COLL_TX2's */
	/* With the input kept, this member's contribution to the chunk combined next (want_*)
	 * is encoded ahead into the FW_COLL_L slot the chunk combined last does not use, while
	 * the port sends and the next frame is taken: ahead_state AHEAD_*, its run's faults
	 * and, once over, its status. */
	uint32_t want, want_off, want_len;
	struct feed *feed; /* the exponent pass of a kept input: the input still coming */
	/* A received chunk's DECODE still running (dec_len elements, 0: none), its result to
	 * go to the host at dec_out once over; its frame kept (fw_net_keep) until then. */
	uint32_t dec_len, dec_faults;
	uint64_t dec_out;
	uint32_t l_slot, ahead_state, ahead_off, ahead_len, ahead_slot, ahead_faults;
	/* A reduce-scatter chunk's REDUCE (rs_engine) left running while the next frame is
	 * taken, or step 0's ENCODE (QUANT) while the chunk before goes (rs_send): its faults,
	 * and its frame to send at p->tx once it is over; the frame a REDUCE reads kept
	 * (fw_net_keep) until then. */
	int rs_running, rs_own; /* rs_own: this member's finished chunk (flags rs_flags) */
	uint32_t rs_engine;
	uint32_t rs_faults, rs_step, rs_off, rs_len, rs_bytes, rs_flags;
	int ahead_st;
};

#define AHEAD_NONE    0u
#define AHEAD_RUNNING 1u
#define AHEAD_DONE    2u

static uint32_t l_at(uint32_t slot)
{
	return FW_COLL_L + slot * FW_COLL_L_SLOT;
}

/* A frame made at p->tx, queued (fw_net_post): the next one is made in the other buffer
 * while the port sends it. */
static int post(struct pass *p, uint32_t step, uint32_t flags, uint32_t off, uint32_t len)
{
	int st = fw_net_post(p->fw, p->c, step, flags, off, len, p->tx);
	p->tx = p->tx == FW_COLL_TX + QUIRE_FRAME_HDR_BYTES ? FW_COLL_TX2 + QUIRE_FRAME_HDR_BYTES
							    : FW_COLL_TX + QUIRE_FRAME_HDR_BYTES;
	return st;
}

/* The results go to the host on DMA channel OUT_CH while the core goes on; every other
 * transfer of the collective is on channel 0, so the two overlap. */
#define OUT_CH 1u

static uint32_t y_at(uint32_t y)
{
	return FW_COLL_Y + y * FW_COLL_Y_BYTES;
}

/* A transfer of len bytes on OUT_CH, over once its DONE_COUNT reaches `mark`, waited for:
 * its status (a failure of any transfer on OUT_CH since the last one seen). */
static int out_over(struct pass *p, uint32_t mark, uint32_t len)
{
	struct quire_fw *fw = p->fw;
	while (!fw_dma_reached(fw_dma_reg(fw, OUT_CH, QUIRE_DMA_DONE_COUNT), mark))
		;
	uint32_t failed = fw_dma_reg(fw, OUT_CH, QUIRE_DMA_FAILED_COUNT);
	if (failed != p->out_failed) {
		p->out_failed = failed;
		return (int)fw_dma_reg(fw, OUT_CH, QUIRE_DMA_FAILED_STATUS);
	}
	fw->dma_bytes += len;
	fw_heartbeat(fw); /* a data transfer */
	return QUIRE_OK;
}

/* Room in OUT_CH's queue for one more transfer. */
static void out_room(struct pass *p)
{
	struct quire_fw *fw = p->fw;
	while (fw->dma_posted[OUT_CH] - fw_dma_reg(fw, OUT_CH, QUIRE_DMA_DONE_COUNT) >=
	       QUIRE_DMA_QUEUE_DEPTH)
		;
}

/* Result buffer y's transfer to the host, if one is under way, waited for: the buffer is
 * written again only after. */
static int out_wait_y(struct pass *p, uint32_t y)
{
	uint32_t len = p->out_len[y];
	if (!len)
		return QUIRE_OK;
	p->out_len[y] = 0;
	return out_over(p, p->out_mark[y], len);
}

/* The oldest kept frame given back, its transfer (if any) over: that transfer's status. */
static int frame_free(struct pass *p)
{
	int st = p->frame_bytes[0] ? out_over(p, p->frame_mark[0], p->frame_bytes[0]) : QUIRE_OK;
	fw_net_unkeep(p->fw);
	p->n_frames--;
	for (uint32_t k = 0; k < p->n_frames; k++) {
		p->frame_mark[k] = p->frame_mark[k + 1];
		p->frame_bytes[k] = p->frame_bytes[k + 1];
	}
	return st;
}

/* The kept frames read by nothing under way given back (every one, waited for, with
 * `all`); to be called with no DECODE running: the first failure seen. */
static int frames_free(struct pass *p, int all)
{
	int st = QUIRE_OK;
	while (p->n_frames && (all || !p->frame_bytes[0] ||
			       fw_dma_reached(fw_dma_reg(p->fw, OUT_CH, QUIRE_DMA_DONE_COUNT),
					      p->frame_mark[0]))) {
		int sk = frame_free(p);
		if (!st)
			st = sk;
	}
	return st;
}

/* The frame the last receive lent kept until what reads it is over: the transfer just
 * posted to OUT_CH (bytes), or a DECODE left running (0). */
static void frame_keep(struct pass *p, uint32_t bytes)
{
	fw_net_keep(p->fw);
	p->frame_mark[p->n_frames] = p->fw->dma_posted[OUT_CH];
	p->frame_bytes[p->n_frames++] = bytes;
}

/* Every result's transfer over. */
static int out_wait(struct pass *p)
{
	int st = QUIRE_OK;
	for (uint32_t k = 1; k <= FW_COLL_Y_BUFS; k++) { /* the oldest first */
		int sk = out_wait_y(p, (p->y + k) % FW_COLL_Y_BUFS);
		if (!st)
			st = sk;
	}
	return st;
}

/* Where element off of the vector goes in dst. */
static uint64_t dst_at(const struct pass *p, uint32_t off)
{
	return quire_le64_to_cpu(p->d->dst) + 4ull * (off - p->out0);
}

/* Result buffer p->y's len fp32 to the host at `out`, from `at` in it: as they are, or with
 * `decode` (QUIRE_DMA_DECODE_WORD) decoded by the mover from the values there and the
 * exponents at exp; the core goes on, and the next result goes to the next buffer. */
static void out_go(struct pass *p, uint64_t out, uint32_t at, uint32_t len, uint32_t exp,
		   uint32_t decode)
{
	out_room(p);
	if (decode)
		fw_dma_load_decode(p->fw, OUT_CH, out, at, 4 * len, exp, decode);
	else
		fw_dma_load(p->fw, OUT_CH, out, at, 4 * len, QUIRE_DMA_TO_HOST);
	fw_dma_go(p->fw, OUT_CH);
	p->out_len[p->y] = 4 * len;
	p->out_mark[p->y] = p->fw->dma_posted[OUT_CH];
	p->y = (p->y + 1) % FW_COLL_Y_BUFS;
}

/* The split of p->n's blocks over the members, once a pass. */
static void split(struct pass *p)
{
	uint32_t blocks = QUIRE_BFP_BLOCKS(p->n);
	p->seg_blocks = blocks / p->c->size;
	p->seg_spare = blocks % p->c->size;
}

/* Member k's first block and its blocks, from the split. */
static uint32_t seg_first(const struct pass *p, uint32_t k, uint32_t *nb)
{
	*nb = QUIRE_RING_SEG_BLOCKS_OF(p->seg_blocks, p->seg_spare, k);
	return QUIRE_RING_SEG_FIRST_OF(p->seg_blocks, p->seg_spare, k);
}

/* The member whose segment is sent at step s (of w) by member r: r - s - 1, mod w. */
static uint32_t step_member(uint32_t r, uint32_t w, uint32_t s)
{
	uint32_t k = r + w - 1 - s;
	return k >= w ? k - w : k;
}

/* Member k's segment, in units, from unit `skip` of it on: 0 when it ends before (a segment
 * is there from unit 0 even when empty). */
static int segment(const struct pass *p, uint32_t k, uint32_t skip, uint32_t *off, uint32_t *len)
{
	uint32_t nb, first = seg_first(p, k, &nb);
	if (!p->exps) {
		uint64_t o = (uint64_t)first * QUIRE_BFP_BLOCK,
			 e = (uint64_t)(first + nb) * QUIRE_BFP_BLOCK;
		first = (uint32_t)(o < p->n ? o : p->n);
		nb = (uint32_t)(e < p->n ? e : p->n) - first;
	}
	if (skip && skip >= nb)
		return 0;
	*off = first + skip;
	*len = nb - skip;
	return 1;
}

/* Units of a segment's [off, off + len) at unit `skip` of it that the round there takes: at
 * most FW_RING_WINDOW frames' worth, and none past the pass's part. */
static uint32_t round_len(const struct pass *p, uint32_t skip, uint32_t len)
{
	return min_u32(len, min_u32(FW_RING_WINDOW * p->chunk, p->upto - skip));
}

/* The REDUCE engine over w inputs `stride` elements apart at `in`, plus acc_in unless NONE:
 * run, or with `faults` only started (fw_engine_start). */
static int reduce_w(struct quire_fw *fw, uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t w,
		    uint32_t stride, uint32_t n, uint32_t in, uint32_t acc_in, uint32_t out,
		    uint32_t *faults)
{
	uint32_t a[QUIRE_REDUCE_ARGS] = {op,
					 in_fmt,
					 acc_fmt,
					 w,
					 n,
					 stride,
					 acc_in == NONE ? 0 : QUIRE_REDUCE_F_ACC_IN,
					 in,
					 acc_in == NONE ? 0 : acc_in,
					 out};
	if (faults)
		return fw_engine_start(fw, QUIRE_ENGINE_REDUCE, a, QUIRE_REDUCE_ARGS, faults);
	return fw_engine_run(fw, QUIRE_ENGINE_REDUCE, a, QUIRE_REDUCE_ARGS);
}

static int reduce(struct quire_fw *fw, uint32_t op, uint32_t in_fmt, uint32_t acc_fmt, uint32_t n,
		  uint32_t in, uint32_t acc_in, uint32_t out)
{
	return reduce_w(fw, op, in_fmt, acc_fmt, 1, 0, n, in, acc_in, out, NULL);
}

/* Step 0 of the reduce-scatter carries one member's contribution, which fits the
 * contribution's own integer type: the narrowest on the wire (int8 for bfp8). */
static int narrow_first_step(const struct pass *p)
{
	return !p->exps && p->val != p->part;
}

static int quant(struct quire_fw *fw, uint32_t op, uint32_t fmt, uint32_t val_fmt, uint32_t flags,
		 uint32_t n, uint32_t mean_w, uint32_t x, uint32_t resid, uint32_t exp, uint32_t q,
		 uint32_t y)
{
	uint32_t a[QUIRE_QUANT_ARGS] = {op, fmt, val_fmt, flags, n, mean_w, x, resid, exp, q, y};
	return fw_engine_run(fw, QUIRE_ENGINE_QUANT, a, QUIRE_QUANT_ARGS);
}

/* The contribution encoded ahead, over: QUANT free for another run. */
static void ahead_wait(struct pass *p)
{
	if (p->ahead_state == AHEAD_RUNNING) {
		p->ahead_st = fw_engine_finish(p->fw, QUIRE_ENGINE_QUANT, p->ahead_faults);
		p->ahead_state = AHEAD_DONE;
	}
}

static int deliver_end(struct pass *p);

/* QUANT free for a run of the caller's: the contribution encoded ahead, and a DECODE left
 * running, over; the DECODE's status. */
static int quant_free(struct pass *p)
{
	ahead_wait(p);
	return deliver_end(p);
}

/* The kept input's [off, off + len) encoded by QUANT into `at`, started (fw_engine_start)
 * for the core to go on. */
static int encode_start(struct pass *p, uint32_t off, uint32_t len, uint32_t at, uint32_t *faults)
{
	uint32_t a[QUIRE_QUANT_ARGS] = {QUIRE_QUANT_OP_ENCODE,
					quire_le16_to_cpu(p->d->format),
					0,
					0,
					len,
					0,
					p->kept + 4 * off,
					0,
					FW_COLL_EXP + off / QUIRE_BFP_BLOCK,
					at,
					0};
	return fw_engine_start(p->fw, QUIRE_ENGINE_QUANT, a, QUIRE_QUANT_ARGS, faults);
}

/* The contribution p->want names, encoded from the kept input into the FW_COLL_L slot the
 * chunk combined last leaves alone; QUANT runs it while the core goes on (REDUCE adding up
 * that chunk, the port sending, the next frame taken), started once no other QUANT run (a
 * DECODE, or step 0's ENCODE) is under way. */
static void ahead_go(struct pass *p)
{
	if (!p->want || p->ahead_state != AHEAD_NONE || p->dec_len ||
	    (p->rs_running && p->rs_engine == QUIRE_ENGINE_QUANT))
		return;
	uint32_t slot = p->l_slot ^ 1u;
	p->want = 0;
	p->ahead_st = encode_start(p, p->want_off, p->want_len, l_at(slot), &p->ahead_faults);
	p->ahead_state = p->ahead_st == QUIRE_OK ? AHEAD_RUNNING : AHEAD_DONE;
	p->ahead_off = p->want_off;
	p->ahead_len = p->want_len;
	p->ahead_slot = slot;
}

/* This member's contribution to elements [off, off + len), in p->val, at `at`. */
static int local(struct pass *p, uint32_t off, uint32_t len, uint32_t at)
{
	struct quire_fw *fw = p->fw;
	const struct quire_cmd *d = p->d;
	int ef = d->flags & QUIRE_CMD_F_EF;
	int st = quant_free(p);
	if (st)
		return st;
	if (quire_le16_to_cpu(d->format) == QUIRE_FMT_FP32 ||
	    quire_le16_to_cpu(d->format) == QUIRE_FMT_INT32)
		return fw_dma(fw, quire_le64_to_cpu(d->src) + 4ull * off, at, 4 * len,
			      QUIRE_DMA_TO_CARD);
	if (p->kept) /* read once already, by the exponent pass */
		return quant(fw, QUIRE_QUANT_OP_ENCODE, quire_le16_to_cpu(d->format), 0, 0, len, 0,
			     p->kept + 4 * off, 0, FW_COLL_EXP + off / QUIRE_BFP_BLOCK, at, 0);
	st = fw_dma(fw, quire_le64_to_cpu(d->src) + 4ull * off, FW_COLL_X, 4 * len,
		    QUIRE_DMA_TO_CARD);
	if (!st && ef)
		st = fw_dma(fw, quire_le64_to_cpu(d->aux) + 4ull * off, FW_COLL_R, 4 * len,
			    QUIRE_DMA_TO_CARD);
	if (!st)
		st = quant(fw, QUIRE_QUANT_OP_ENCODE, quire_le16_to_cpu(d->format), 0,
			   ef ? QUIRE_QUANT_F_EF : 0, len, 0, FW_COLL_X, FW_COLL_R,
			   FW_COLL_EXP + off / QUIRE_BFP_BLOCK, at, 0);
	/* Each element is encoded once per all-reduce, so its new residual is final here. */
	if (!st && ef)
		st = fw_dma(fw, quire_le64_to_cpu(d->exp) + 4ull * off, FW_COLL_R, 4 * len,
			    QUIRE_DMA_TO_HOST);
	return st;
}

/* This member's contribution to [off, off + len) in a slot of FW_COLL_L (*at): the one
 * encoded ahead, or encoded now into the slot that one is not in. */
static int local_l(struct pass *p, uint32_t off, uint32_t len, uint32_t *at)
{
	if (p->ahead_state != AHEAD_NONE) {
		ahead_wait(p);
		p->ahead_state = AHEAD_NONE;
		if (p->ahead_off == off && p->ahead_len == len) {
			p->l_slot = p->ahead_slot;
			*at = l_at(p->l_slot);
			return p->ahead_st;
		}
	}
	p->l_slot ^= 1u;
	*at = l_at(p->l_slot);
	return local(p, off, len, *at);
}

/* The first partial sum of a segment: this member's part alone, at `out`. */
static int first(struct pass *p, uint32_t off, uint32_t len, uint32_t out)
{
	if (len == 0)
		return QUIRE_OK;
	if (p->exps)
		return reduce(p->fw, QUIRE_REDUCE_OP_MAX_EXP, 0, 0, len, FW_COLL_EXP + off, NONE,
			      out);
	if (p->val == p->part)
		return local(p, off, len, out);
	uint32_t l;
	int st = local_l(p, off, len, &l);
	if (st)
		return st;
	ahead_go(p); /* beside the REDUCE */
	return reduce(p->fw, QUIRE_REDUCE_OP_SUM, p->val, p->part, len, l, NONE, out);
}

/* out <- the partial sum at `in` (one member's contribution alone when `narrow`) plus this
 * member's part; with `later`, a REDUCE of the values is left running (p->rs_running). */
static int combine(struct pass *p, uint32_t off, uint32_t len, uint32_t in, int narrow,
		   uint32_t out, int later)
{
	if (len == 0)
		return QUIRE_OK;
	if (in == NONE)
		return first(p, off, len, out);
	if (p->exps)
		return reduce(p->fw, QUIRE_REDUCE_OP_MAX_EXP, 0, 0, len, FW_COLL_EXP + off, in,
			      out);
	uint32_t l;
	int st = local_l(p, off, len, &l);
	if (st)
		return st;
	ahead_go(p); /* beside the REDUCE */
	/* Two contributions in card memory, in then L above it (an integer sum, or one fp32
	 * addition: the same in either order); their span holds no other buffer (layout.h). */
	uint32_t *faults = later ? &p->rs_faults : NULL;
	st = narrow
		 ? reduce_w(p->fw, QUIRE_REDUCE_OP_SUM, p->val, p->part, 2,
			    (l - in) / quire_format_elem_bytes(p->val), len, in, NONE, out, faults)
		 : reduce_w(p->fw, QUIRE_REDUCE_OP_SUM, p->val, p->part, 1, 0, len, l, in, out,
			    faults);
	p->rs_running = later && st == QUIRE_OK;
	return st;
}

/* The owner's last addition: the finished sum, in p->fin, at `out`. */
static int finish(struct pass *p, uint32_t off, uint32_t len, uint32_t in, int narrow, uint32_t out,
		  uint32_t *flags)
{
	*flags = 0;
	if (p->part == p->fin || len == 0)
		return combine(p, off, len, in, narrow, out, 0);
	int st = combine(p, off, len, in, narrow, FW_COLL_T, 0);
	if (!st)
		st = reduce(p->fw, QUIRE_REDUCE_OP_SUM, p->part, p->fin, len, FW_COLL_T, NONE, out);
	if (st == QUIRE_ERR_OVERFLOW) { /* saturated, and every member will say so */
		*flags = QUIRE_FRAME_F_OVERFLOW;
		st = QUIRE_OK;
	}
	return st;
}

/* A finished chunk at `at`: into the exponents, or decoded into the caller's dst. */
/* The DECODE deliver left running, over, and its result on its way to the host. */
static int deliver_end(struct pass *p)
{
	if (!p->dec_len)
		return QUIRE_OK;
	int st = fw_engine_finish(p->fw, QUIRE_ENGINE_QUANT, p->dec_faults);
	if (!st)
		out_go(p, p->dec_out, y_at(p->y), p->dec_len, 0, 0);
	p->dec_len = 0;
	return st;
}

/* QUANT's DECODE into the result buffer p->y, then out to the host at `out`: with `later`,
 * left running (deliver_end). */
static int decode(struct pass *p, uint32_t fmt, uint32_t val_fmt, uint32_t len, uint32_t mean_w,
		  uint32_t exp, uint32_t q, uint64_t out, int later)
{
	uint32_t a[QUIRE_QUANT_ARGS] = {
	    QUIRE_QUANT_OP_DECODE, fmt, val_fmt, 0, len, mean_w, 0, 0, exp, q, y_at(p->y)};
	int st = fw_engine_start(p->fw, QUIRE_ENGINE_QUANT, a, QUIRE_QUANT_ARGS, &p->dec_faults);
	if (st)
		return st;
	p->dec_len = len;
	p->dec_out = out;
	return later ? QUIRE_OK : deliver_end(p);
}

/* The mover's decode of len results at `at` (exponents at exp) to the host at `out`, the
 * received frame they lie in kept until it is over. */
static int decode_out(struct pass *p, uint32_t val_fmt, uint32_t len, uint32_t mean_w, uint32_t exp,
		      uint32_t at, uint64_t out)
{
	struct quire_fw *fw = p->fw;
	int st = p->n_frames == QUIRE_FW_NET_KEEP ? frame_free(p) : QUIRE_OK;
	out_room(p);
	fw_dma_load_decode(fw, OUT_CH, out, at, 4 * len, exp,
			   QUIRE_DMA_DECODE_WORD(quire_le16_to_cpu(p->d->format), val_fmt, mean_w));
	fw_dma_go(fw, OUT_CH);
	frame_keep(p, 4 * len);
	return st;
}

/* A finished chunk at `at` (in the frame the last receive lent, with `frame`): into the
 * exponents, or decoded into the caller's dst, by QUANT (left running with `later`) or, for
 * a frame, by the mover on its way out (p->decode_out). */
static int deliver(struct pass *p, uint32_t off, uint32_t len, uint32_t at, uint32_t flags,
		   int later, int frame)
{
	struct quire_fw *fw = p->fw;
	const struct quire_cmd *d = p->d;
	if (flags & QUIRE_FRAME_F_OVERFLOW)
		p->overflow = 1;
	if (len == 0)
		return QUIRE_OK;
	if (p->exps)
		return reduce(fw, QUIRE_REDUCE_OP_MAX_EXP, 0, 0, len, at, NONE, FW_COLL_EXP + off);
	uint64_t out = dst_at(p, off);
	int bfp = quire_le16_to_cpu(d->format) == QUIRE_FMT_BFP8 ||
		  quire_le16_to_cpu(d->format) == QUIRE_FMT_BFP16;
	if (frame && p->decode_out && p->rq) /* values, then the owner's exponents */
		return decode_out(p, p->val, len, 0, at + len * quire_format_elem_bytes(p->val), at,
				  out);
	if (frame && p->decode_out && bfp)
		return decode_out(p, p->fin, len, p->mean_w, FW_COLL_EXP + off / QUIRE_BFP_BLOCK,
				  at, out);
	ahead_wait(p);                /* QUANT free */
	int st = out_wait_y(p, p->y); /* its result buffer free again */
	if (st)
		return st;
	if (p->rq) /* values, then the owner's exponents; the mean is in them */
		st = decode(p, quire_le16_to_cpu(d->format), p->val, len, 0,
			    at + len * quire_format_elem_bytes(p->val), at, out, later);
	else if (quire_le16_to_cpu(d->format) == QUIRE_FMT_INT32 ||
		 (quire_le16_to_cpu(d->format) == QUIRE_FMT_FP32 && !p->mean_w))
		return fw_dma(fw, out, at, 4 * len, QUIRE_DMA_TO_HOST);
	else
		st = decode(p, quire_le16_to_cpu(d->format), p->fin, len, p->mean_w,
			    bfp ? FW_COLL_EXP + off / QUIRE_BFP_BLOCK : 0, at, out, later);
	if (!st && frame && p->dec_len)
		frame_keep(p, 0); /* until the DECODE is over */
	return st;
}

static uint32_t unit_bytes(const struct pass *p, uint32_t fmt)
{
	return p->exps ? 1 : quire_format_elem_bytes(fmt);
}

/*
 * The owner's finished sums of [off, off + len) at `at` become the all-gather's payload
 * there: the values requantized with the owner's own exponents and residual, then those
 * exponents (docs/contract-bfp.md, "Requantized all-gather").
 */
static int requantize(struct pass *p, uint32_t off, uint32_t len, uint32_t at)
{
	struct quire_fw *fw = p->fw;
	const struct quire_cmd *d = p->d;
	int ef = d->flags & QUIRE_CMD_F_EF;
	uint32_t fmt = quire_le16_to_cpu(d->format), flags = ef ? QUIRE_QUANT_F_EF : 0,
		 exps = at + len * quire_format_elem_bytes(p->val);
	/* The owner's residual lies after the worker's count elements. */
	uint64_t res = 4ull * quire_le32_to_cpu(d->count) + 4ull * (off - p->own0);
	int st = quant_free(p); /* which may start a result's transfer: p->y moves on */
	if (!st)
		st = out_wait_y(p, p->y);
	uint32_t y = y_at(p->y); /* the next result's buffer, meanwhile */
	if (!st)
		st = quant(fw, QUIRE_QUANT_OP_DECODE, fmt, p->fin, 0, len, p->mean_w, 0, 0,
			   FW_COLL_EXP + off / QUIRE_BFP_BLOCK, at, y);
	if (!st && ef)
		st = fw_dma(fw, quire_le64_to_cpu(d->aux) + res, FW_COLL_R, 4 * len,
			    QUIRE_DMA_TO_CARD);
	if (!st)
		st = quant(fw, QUIRE_QUANT_OP_EXPONENTS, fmt, 0, flags, len, 0, y, FW_COLL_R, exps,
			   0, 0);
	if (!st)
		st = quant(fw, QUIRE_QUANT_OP_ENCODE, fmt, 0, flags, len, 0, y, FW_COLL_R, exps, at,
			   0);
	if (!st && ef)
		st = fw_dma(fw, quire_le64_to_cpu(d->exp) + res, FW_COLL_R, 4 * len,
			    QUIRE_DMA_TO_HOST);
	return st;
}

/* Payload bytes of an all-gather frame of len units. */
static uint32_t gathered_bytes(const struct pass *p, uint32_t len)
{
	if (p->rq && !p->exps)
		return len * quire_format_elem_bytes(p->val) + QUIRE_BFP_BLOCKS(len);
	return len * unit_bytes(p, p->fin);
}

/* A received frame of the same kind of all-reduce as this member's. */
static int agreed(const struct pass *p, uint32_t flags)
{
	return (flags & QUIRE_FRAME_F_REQUANT) == p->rq ? QUIRE_OK : QUIRE_ERR_MISMATCH;
}

/* The j-th segment the reduce-scatter sends (this member's own at j = w - 1), in elements:
 * [*first, *end). */
static void feed_segment(const struct pass *p, uint32_t j, uint32_t *first, uint32_t *end)
{
	uint32_t nb, fb = seg_first(p, step_member(p->c->rank, p->c->size, j), &nb);
	uint64_t f = (uint64_t)fb * QUIRE_BFP_BLOCK, e = f + (uint64_t)nb * QUIRE_BFP_BLOCK;
	*first = (uint32_t)(f < p->n ? f : p->n);
	*end = (uint32_t)(e < p->n ? e : p->n);
}

/* Where part q begins, in elements of each segment: KEPT_FIRST doubling, RAMP parts, then
 * KEPT_PART each. */
#define RAMP 2u
_Static_assert(KEPT_FIRST << RAMP == KEPT_PART, "the parts double up to KEPT_PART");
static uint32_t part_at(uint32_t q)
{
	if (q <= RAMP)
		return KEPT_FIRST * ((1u << q) - 1);
	return KEPT_FIRST * ((1u << RAMP) - 1) + (q - RAMP) * KEPT_PART;
}

/* Piece x moved past the segments and parts it has reached the end of; its length, 0 past
 * the last part (none begins past the longest segment's end). */
static uint32_t feed_piece(const struct pass *p, struct feed_at *x)
{
	if (x->at < x->to) /* within the span found last */
		return min_u32(KEPT_STEP, x->to - x->at);
	for (; x->q == 0 || part_at(x->q) < p->feed->longest; x->q++, x->j = 0, x->at = 0) {
		uint32_t part = part_at(x->q), next = part_at(x->q + 1);
		for (; x->j < p->c->size; x->j++, x->at = 0) {
			if (x->seg != x->j) { /* its bounds cost divisions: once a segment */
				x->seg = x->j;
				feed_segment(p, x->j, &x->first, &x->end);
			}
			if (x->end - x->first <= part)
				continue;
			uint32_t from = x->first + part;
			uint32_t to = x->end - x->first < next ? x->end : x->first + next;
			if (x->at < from)
				x->at = from;
			if (x->at < to) {
				x->to = to;
				return min_u32(KEPT_STEP, to - x->at);
			}
		}
	}
	x->to = 0; /* past the last part: 0 again on every call */
	return 0;
}

/* Every piece posted, in. */
static void feed_drain(struct quire_fw *fw)
{
	while (fw_dma_reg(fw, 0, QUIRE_DMA_DONE_COUNT) != fw->dma_posted[0])
		;
}

/* Piece f->run, len elements, its transfer over: its bytes counted, or the transfer's
 * failure, which is the feed's from then on (nothing is posted after it). Its local
 * exponents are in FW_COLL_EXP: the mover computed them as the piece came. */
static int feed_take(struct pass *p, uint32_t len)
{
	struct quire_fw *fw = p->fw;
	struct feed *f = p->feed;
	f->run_done++;
	f->run.at += len;
	uint32_t failed = fw_dma_reg(fw, 0, QUIRE_DMA_FAILED_COUNT);
	if (failed != f->failed) {
		f->failed = failed;
		f->st = (int)fw_dma_reg(fw, 0, QUIRE_DMA_FAILED_STATUS);
		f->all_posted = 1;
		return f->st;
	}
	fw->dma_bytes += 4 * len;
	fw_heartbeat(fw); /* a data transfer */
	return QUIRE_OK;
}

/* Has piece k's transfer ended? */
static int feed_in(const struct pass *p, uint32_t k)
{
	return fw_dma_reached(fw_dma_reg(p->fw, 0, QUIRE_DMA_DONE_COUNT),
			      p->feed->mark[k % FEED_AHEAD]);
}

/* The pieces that are in, taken, and more posted while fewer than FEED_AHEAD are not taken;
 * never waits. */
static void feed_post(struct pass *p)
{
	struct quire_fw *fw = p->fw;
	struct feed *f = p->feed;
	while (!f->st && f->run_done != f->posted && feed_in(p, f->run_done))
		feed_take(p, feed_piece(p, &f->run));
	while (!f->all_posted && f->posted - f->run_done < FEED_AHEAD) {
		uint32_t len = feed_piece(p, &f->post);
		f->all_posted = len == 0;
		if (len == 0)
			return;
		fw_dma_load_exps(fw, 0, quire_le64_to_cpu(p->d->src) + 4ull * f->post.at,
				 X_KEPT + 4 * f->post.at, 4 * len,
				 FW_COLL_EXP + f->post.at / QUIRE_BFP_BLOCK);
		fw_dma_go(fw, 0);
		f->mark[f->posted++ % FEED_AHEAD] = fw->dma_posted[0];
		f->post.at += len;
	}
}

/* The local exponents of the j-th segment's part f->part in (and those before it); pieces of
 * the later ones posted meanwhile. On failure nothing is left under way. */
static int feed_until(struct pass *p, uint32_t j)
{
	struct feed *f = p->feed;
	for (;;) {
		feed_post(p);
		uint32_t len = f->st ? 0 : feed_piece(p, &f->run);
		if (!f->st &&
		    (len == 0 || f->run.q > f->part || (f->run.q == f->part && f->run.j > j)))
			return QUIRE_OK;
		while (!f->st && !feed_in(p, f->run_done))
			;
		if (f->st || feed_take(p, len)) {
			feed_drain(p->fw);
			return f->st;
		}
	}
}

/* Where step s of the round at skip runs (s < w - 1: reduce-scatter step s; w - 1: this
 * member's own segment, finished): 0 when its segment has nothing there. */
static int step_span(const struct pass *p, uint32_t skip, uint32_t s, uint32_t *off, uint32_t *len)
{
	uint32_t w = p->c->size;
	if (!segment(p, step_member(p->c->rank, w, s), skip, off, len) || *len == 0)
		return 0;
	*len = round_len(p, skip, *len);
	return 1;
}

/* With the input kept, the chunk after [off, off + len) of step s, whose span in the round
 * ends at `end`, that adds this member's contribution to a received one (steps 1 to w - 1
 * of the round; none past it) becomes p->want, for ahead_go. */
static void want_next(struct pass *p, uint32_t skip, uint32_t s, uint32_t off, uint32_t len,
		      uint32_t end)
{
	uint32_t so, sl;
	p->want = 0;
	if (!p->kept || p->exps || p->c->size < 2)
		return;
	if (off + len < end) { /* the step's next chunk: its span known, no division */
		if (s == 0)
			return; /* step 0 sends the contribution alone, encoded into the frame */
		p->want_off = off + len;
		p->want_len = min_u32(p->chunk, end - p->want_off);
		p->want = 1;
		return;
	}
	for (s++; s < p->c->size; s++)
		if (step_span(p, skip, s, &so, &sl)) {
			p->want_off = so;
			p->want_len = min_u32(p->chunk, sl);
			p->want = 1;
			return;
		}
}

/* This member's finished segment goes to the host decoded by the mover on the way, QUANT
 * left to encode: with dst on a line, a bfp format's sums not requantized. */
static int own_by_mover(const struct pass *p)
{
	uint32_t fmt = quire_le16_to_cpu(p->d->format);
	return p->decode_out && !p->rq && !p->exps &&
	       (fmt == QUIRE_FMT_BFP8 || fmt == QUIRE_FMT_BFP16);
}

/* Where result buffer y holds a finished chunk for the mover to decode: a frame's payload,
 * on a line, its header before it. */
static uint32_t own_at(uint32_t y)
{
	return y_at(y) + 2 * QUIRE_FRAME_HDR_BYTES;
}

/* The finished chunk [off, off + len) in result buffer p->y to the host, decoded by the
 * mover (QUIRE_DMA_TO_HOST_DECODE on OUT_CH); the next chunk goes to the next buffer. */
static void own_out(struct pass *p, uint32_t off, uint32_t len, uint32_t flags)
{
	if (flags & QUIRE_FRAME_F_OVERFLOW)
		p->overflow = 1;
	if (len)
		out_go(p, dst_at(p, off), own_at(p->y), len, FW_COLL_EXP + off / QUIRE_BFP_BLOCK,
		       QUIRE_DMA_DECODE_WORD(quire_le16_to_cpu(p->d->format), p->fin, p->mean_w));
	else
		p->y = (p->y + 1) % FW_COLL_Y_BUFS;
}

/* The chunk whose REDUCE (or step 0's ENCODE) was left running: over, the frame a REDUCE
 * read given back, and (unless it failed, or `st` already says the pass failed) its frame sent,
 * made at p->tx; or, this member's finished chunk, sent as the all-gather's first frame from
 * its result buffer and its results on their way to the host. The first failure. */
static int rs_send(struct pass *p, int st)
{
	if (!p->rs_running)
		return st;
	p->rs_running = 0;
	int ended = fw_engine_finish(p->fw, p->rs_engine, p->rs_faults);
	if (p->rs_engine == QUIRE_ENGINE_REDUCE)
		fw_net_unkeep_newest(p->fw);
	if (st || ended)
		return st ? st : ended;
	if (!p->rs_own)
		return post(p, p->rs_step, p->rq, p->rs_off, p->rs_bytes);
	p->rs_own = 0;
	if (!p->scatter)
		st = fw_net_post(p->fw, p->c, p->rs_step, p->rs_flags, p->rs_off, p->rs_bytes,
				 own_at(p->y));
	if (!st)
		own_out(p, p->rs_off, p->rs_len, p->rs_flags);
	return st;
}

/* A run of `engine` left going for the chunk [off, off + len) while the core goes on, for
 * rs_send to finish: its frame, `bytes` of payload at `step`, goes once it is over; the
 * received frame a REDUCE reads kept (fw_net_keep) until then. */
static void rs_later(struct pass *p, uint32_t engine, uint32_t step, uint32_t off, uint32_t len,
		     uint32_t bytes)
{
	if (engine == QUIRE_ENGINE_REDUCE)
		fw_net_keep(p->fw);
	p->rs_running = 1;
	p->rs_engine = engine;
	p->rs_step = step;
	p->rs_off = off;
	p->rs_len = len;
	p->rs_bytes = bytes;
}

/* Step 0 of a kept input: this member's contribution to [off, off + len) alone, encoded by
 * QUANT into the frame made at p->tx while the chunk before it goes (rs_send sends it once
 * the ENCODE is over). */
static int step0_go(struct pass *p, uint32_t step, uint32_t off, uint32_t len, uint32_t bytes)
{
	int st = rs_send(p, QUIRE_OK);
	if (!st)
		st = quant_free(p);
	if (!st)
		st = encode_start(p, off, len, p->tx, &p->rs_faults);
	if (!st)
		rs_later(p, QUIRE_ENGINE_QUANT, step, off, len, bytes);
	return st;
}

static int ring(struct pass *p)
{
	struct quire_fw_comm *c = p->c;
	struct quire_fw *fw = p->fw;
	uint32_t w = c->size, r = c->rank, pb = unit_bytes(p, p->part);
	int rqv = p->rq && !p->exps; /* the owner requantizes what it finishes */
	int narrow = narrow_first_step(p);
	uint32_t b0 = narrow ? unit_bytes(p, p->val) : pb; /* bytes per unit at step 0 */
	uint32_t rs = p->exps ? QUIRE_PHASE_EXP_RS : QUIRE_PHASE_RS;
	uint32_t ag = p->exps ? QUIRE_PHASE_EXP_AG : QUIRE_PHASE_AG;
	uint32_t so, sl, fl, rx; /* rx: a received frame's payload, in its receive buffer */
	int st = QUIRE_OK;
	/* Round by round, FW_RING_WINDOW frames of every segment a round (layout.h); segment 0
	 * is the longest: the split gives the first ones the spare blocks. */
	uint32_t span = FW_RING_WINDOW * p->chunk;
	for (uint32_t skip = p->from; skip < p->upto && segment(p, 0, skip, &so, &sl);
	     skip += span) {
		for (uint32_t s = 0; s + 1 < w; s++) { /* reduce-scatter */
			if (p->exps && p->feed && (st = feed_until(p, s)) != QUIRE_OK)
				return st;
			if (!segment(p, step_member(r, w, s), skip, &so, &sl))
				continue;
			FW_FOR_CHUNKS(so, round_len(p, skip, sl), p->chunk, off, len)
			{
				want_next(p, skip, s, off, len, so + round_len(p, skip, sl));
				if (p->feed && !p->exps)
					feed_post(p); /* the next parts' input, meanwhile */
				if (s == 0 && narrow && p->kept && len) {
					st = step0_go(p, QUIRE_FRAME_STEP(rs, 0), off, len,
						      len * b0);
				} else if (s == 0 && narrow) {
					st = len ? local(p, off, len, p->tx) : QUIRE_OK;
				} else if (s == 0) {
					st = first(p, off, len, p->tx);
				} else {
					/* taken while the chunk before is added up; that one's
					 * frame goes once it is */
					st = fw_net_recv(fw, c, QUIRE_FRAME_STEP(rs, s - 1), off,
							 len * (s == 1 ? b0 : pb), &rx, &fl);
					st = rs_send(p, st);
					if (!st)
						st = agreed(p, fl);
					if (!st && p->n_frames == QUIRE_FW_NET_KEEP)
						st = frame_free(p); /* room to keep this frame */
					if (!st)
						st = combine(p, off, len, rx, narrow && s == 1,
							     p->tx, !p->exps);
					if (!st && p->rs_running)
						rs_later(p, QUIRE_ENGINE_REDUCE,
							 QUIRE_FRAME_STEP(rs, s), off, len,
							 len * pb);
				}
				if (!st && !p->rs_running)
					st = post(p, QUIRE_FRAME_STEP(rs, s), p->rq, off,
						  len * (s == 0 ? b0 : pb));
				if (!st)
					ahead_go(
					    p); /* while the port sends and the next one comes */
				if (st)
					return rs_send(p, st);
			}
			if ((st = rs_send(p, QUIRE_OK)) != QUIRE_OK)
				return st;
			ahead_go(p); /* one that step 0's last ENCODE held back */
		}
		/* this member's segment: finished here (alone, the input is the sum) */
		if (p->exps && p->feed && (st = feed_until(p, w - 1)) != QUIRE_OK)
			return st;
		if (segment(p, r, skip, &so, &sl))
			FW_FOR_CHUNKS(so, round_len(p, skip, sl), p->chunk, off, len)
			{
				rx = NONE;
				fl = p->rq;
				want_next(p, skip, w - 1, off, len, so + round_len(p, skip, sl));
				if (p->feed && !p->exps)
					feed_post(p);
				if (w > 1)
					st = fw_net_recv(fw, c, QUIRE_FRAME_STEP(rs, w - 2), off,
							 len * (w == 2 ? b0 : pb), &rx, &fl);
				st = rs_send(p, st); /* the chunk before, added up meanwhile */
				if (!st)
					st = agreed(p, fl);
				/* With the mover decoding, the finished sums are made in the
				 * result buffer p->y that carries them to the host, and where
				 * one REDUCE finishes them, it is left running while the next
				 * frame is taken (rs_send sends them on). */
				int mover = own_by_mover(p);
				uint32_t at = mover ? own_at(p->y) : p->tx;
				if (!st && mover)
					st = out_wait_y(p, p->y);
				int later = mover && w > 1 && p->part == p->fin;
				if (!st && later && p->n_frames == QUIRE_FW_NET_KEEP)
					st = frame_free(p); /* room to keep this frame */
				if (!st && later)
					st = combine(p, off, len, rx, narrow && w == 2, at, 1);
				if (!st && p->rs_running) {
					rs_later(p, QUIRE_ENGINE_REDUCE, QUIRE_FRAME_STEP(ag, 0),
						 off, len, gathered_bytes(p, len));
					p->rs_own = 1;
					p->rs_flags = 0; /* finish's: a sum in its own format */
					ahead_go(p);
					continue;
				}
				if (!st)
					st = finish(p, off, len, rx, narrow && w == 2, at, &fl);
				if (!st && rqv)
					st = requantize(p, off, len, at);
				/* on its way while it is delivered here, the port and the engine
				 * (or the mover) both reading it */
				if (!st && !p->scatter && w > 1)
					st = mover ? fw_net_post(fw, c, QUIRE_FRAME_STEP(ag, 0), fl,
								 off, gathered_bytes(p, len), at)
						   : post(p, QUIRE_FRAME_STEP(ag, 0), fl | p->rq,
							  off, gathered_bytes(p, len));
				/* left running while the next chunk is added: REDUCE has its own
				 * port, and the frame is made in the other transmit buffer */
				if (!st)
					st = deliver_end(p);
				if (!st && mover)
					own_out(p, off, len, fl);
				else if (!st)
					st = deliver(p, off, len, at, fl, 1, 0);
				if (st)
					return rs_send(p, st);
				ahead_go(p);
			}
		if ((st = rs_send(p, QUIRE_OK)) != QUIRE_OK)
			return st;
		/* all-gather: passed on from where it came */
		for (uint32_t s = 0; !p->scatter && s + 1 < w && !st; s++) {
			if (!segment(p, step_member(r, w, s), skip, &so, &sl))
				continue;
			FW_FOR_CHUNKS(so, round_len(p, skip, sl), p->chunk, off, len)
			{
				if (p->feed)
					feed_post(p);
				/* taken while the chunk before is decoded from its frame */
				st = fw_net_recv(fw, c, QUIRE_FRAME_STEP(ag, s), off,
						 gathered_bytes(p, len), &rx, &fl);
				int ended = deliver_end(p);
				int freed = frames_free(p, 0);
				if (!st)
					st = ended ? ended : freed;
				if (!st)
					st = agreed(p, fl);
				/* decoded (by the mover on its way out, or QUANT), and passed on
				 * from its receive buffer meanwhile */
				if (!st)
					st = deliver(p, off, len, rx, fl, 1, 1);
				if (!st && s + 2 < w)
					st = fw_net_post(fw, c, QUIRE_FRAME_STEP(ag, s + 1), fl,
							 off, gathered_bytes(p, len), rx);
				if (st)
					break;
			}
		}
		int ended = deliver_end(p);
		int freed = frames_free(p, 0);
		if (st || ended || freed)
			return st ? st : ended ? ended : freed;
	}
	return fw_net_settle(fw);
}

/* Where the input stays from the exponent pass on (X_KEPT), or 0 where it cannot: with error
 * feedback (its residual would need a copy too), too large, or src off a line (the mover
 * computes the exponents of pieces on lines). */
static uint32_t kept_input(const struct quire_cmd *d)
{
	return !(d->flags & QUIRE_CMD_F_EF) && 4ull * quire_le32_to_cpu(d->count) <= X_KEPT_BYTES &&
		       quire_le64_to_cpu(d->src) % 64 == 0
		   ? X_KEPT
		   : 0;
}

/* Local block exponents of the whole vector into FW_COLL_EXP, a staging buffer at a time. */
static int exponents(struct quire_fw *fw, const struct quire_cmd *d)
{
	int ef = d->flags & QUIRE_CMD_F_EF;
	for (uint32_t i = 0; i < quire_le32_to_cpu(d->count); i += FW_CHUNK_ELEMS) {
		uint32_t len = min_u32(FW_CHUNK_ELEMS, quire_le32_to_cpu(d->count) - i);
		int st = fw_dma(fw, quire_le64_to_cpu(d->src) + 4ull * i, FW_BUF_A, 4 * len,
				QUIRE_DMA_TO_CARD);
		if (!st && ef)
			st = fw_dma(fw, quire_le64_to_cpu(d->aux) + 4ull * i, FW_BUF_B, 4 * len,
				    QUIRE_DMA_TO_CARD);
		if (!st)
			st = quant(fw, QUIRE_QUANT_OP_EXPONENTS, quire_le16_to_cpu(d->format), 0,
				   ef ? QUIRE_QUANT_F_EF : 0, len, 0, FW_BUF_A, FW_BUF_B,
				   FW_COLL_EXP + i / QUIRE_BFP_BLOCK, 0, 0);
		if (st)
			return st;
	}
	return QUIRE_OK;
}

int fw_allreduce(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	int st;
	struct quire_fw_comm *c = fw_comm_get(fw, quire_le16_to_cpu(d->workers), &st, detail);
	if (!c)
		return st;
	uint32_t w = c->size;
	struct pass p = {.fw = fw,
			 .c = c,
			 .d = d,
			 .n = quire_le32_to_cpu(d->count),
			 .mean_w = d->flags & QUIRE_CMD_F_MEAN ? w : 0,
			 .upto = ~0u,
			 .tx = FW_COLL_TX + QUIRE_FRAME_HDR_BYTES,
			 .out_failed = fw_dma_reg(fw, OUT_CH, QUIRE_DMA_FAILED_COUNT),
			 .decode_out = quire_le64_to_cpu(d->dst) % 64 == 0};
	split(&p);
	if (d->flags & QUIRE_CMD_F_REQUANT)
		p.rq = QUIRE_FRAME_F_REQUANT;
	if (d->opcode == QUIRE_OPC_REDUCE_SCATTER || p.rq) {
		uint32_t len;
		p.scatter = !p.rq;
		segment(&p, c->rank, 0, p.rq ? &p.own0 : &p.out0, &len);
		/* the host's idea of this member's segment differs */
		if (len != quire_le64_to_cpu(d->stride)) {
			*detail = QUIRE_DETAIL_STRIDE;
			return fw_comm_end(fw, c, QUIRE_ERR_SIZE, detail);
		}
	}
	p.val =
	    QUIRE_RING_VAL(quire_le16_to_cpu(d->format)); /* FP16 and FP32 travel as themselves */
	p.part = QUIRE_RING_PART(quire_le16_to_cpu(d->format), w);
	p.fin = QUIRE_RING_FIN(quire_le16_to_cpu(d->format), w);
	/* As many elements per frame as the wider of the two wire formats allows. */
	uint32_t wide = quire_format_elem_bytes(p.part) > quire_format_elem_bytes(p.fin)
			    ? quire_format_elem_bytes(p.part)
			    : quire_format_elem_bytes(p.fin);
	p.chunk = QUIRE_FRAME_MAX_PAYLOAD / wide;
	if (quire_le16_to_cpu(d->format) == QUIRE_FMT_BFP8 ||
	    quire_le16_to_cpu(d->format) == QUIRE_FMT_BFP16) {
		struct pass e = p;
		e.exps = 1;
		e.scatter = 0; /* every member encodes every segment: all need every exponent */
		e.chunk = FW_FRAME_BLOCKS;
		struct feed f = {.post.seg = ~0u,
				 .run.seg = ~0u,
				 .failed = fw_dma_reg(fw, 0, QUIRE_DMA_FAILED_COUNT)};
		p.kept = kept_input(d);
		if (p.kept)
			e.feed = p.feed = &f;
		st = p.kept ? QUIRE_OK : exponents(fw, d);
		/* Part by part (a kept input), or all at once: the exponents' ring, then the
		 * values'. */
		/* Segment 0 is the longest: the split gives the first ones the spare blocks. */
		uint32_t first;
		feed_segment(&p, (w + c->rank - 1) % w, &first, &f.longest);
		f.longest -= first;
		for (uint32_t q = 0; !st && (q == 0 || (p.kept && part_at(q) < f.longest)); q++) {
			uint32_t next = p.kept ? part_at(q + 1) : ~0u;
			f.part = q;
			p.from = p.kept ? part_at(q) : 0;
			p.upto = next < f.longest ? next : ~0u;
			e.from = p.from / QUIRE_BFP_BLOCK;
			e.upto = p.upto == ~0u ? ~0u : p.upto / QUIRE_BFP_BLOCK;
			st = ring(&e);
			if (!st)
				st = ring(&p);
		}
		if (p.kept)
			feed_drain(fw); /* nothing left coming after a failure */
	} else {
		st = ring(&p);
	}
	ahead_wait(&p); /* QUANT free, even after a failure */
	int sent = deliver_end(&p);
	int freed = frames_free(&p, 1); /* every frame's transfer over, even after a failure */
	if (!sent)
		sent = freed;
	int last = out_wait(&p); /* the last result's transfer, even after a failure */
	if (!sent)
		sent = last;
	if (!st)
		st = sent;
	if (st == QUIRE_OK && p.overflow)
		st = QUIRE_ERR_OVERFLOW;
	if (st != QUIRE_OK && !*detail)
		*detail = st == QUIRE_ERR_OVERFLOW ? QUIRE_DETAIL_ENGINE : QUIRE_DETAIL_NET;
	return fw_comm_end(fw, c, st, detail);
}

int fw_barrier(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	int st;
	struct quire_fw_comm *c = fw_comm_get(fw, quire_le16_to_cpu(d->workers), &st, detail);
	if (!c)
		return st;
	/* An exponent pass over nothing: one empty frame per step, W-1 there and W-1 back, so
	 * no member leaves before every member has arrived. */
	struct pass p = {.fw = fw,
			 .c = c,
			 .d = d,
			 .exps = 1,
			 .upto = ~0u,
			 .chunk = FW_FRAME_BLOCKS,
			 .tx = FW_COLL_TX + QUIRE_FRAME_HDR_BYTES};
	split(&p);
	return fw_comm_end(fw, c, ring(&p), detail);
}
