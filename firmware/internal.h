/* SPDX-License-Identifier: MIT */
/* Shared between the firmware's files; not part of its interface. */
#ifndef QUIRE_FW_INTERNAL_H
#define QUIRE_FW_INTERNAL_H

#include <stdint.h>

#include "fw.h"
#include "quire/regs.h"

static inline uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * Every chunk of at most `chunk` units of [first, first + count): `off` and `len` name
 * each. A collective sends a frame per chunk, and at least one even for nothing, so that
 * every step of the ring is seen.
 */
#define FW_FOR_CHUNKS(first, count, chunk, off, len)                                               \
	for (uint32_t off = (first), len = min_u32((chunk), (count)), once_ = 1;                   \
	     once_ || off < (first) + (count);                                                     \
	     off += (chunk), len = min_u32((chunk), (first) + (count)-off), once_ = 0)

/* bar.c */
int fw_find_blocks(struct quire_fw *fw);

/* pipe.c: the pipelined commands, validated descriptors whose buffers are inside the
 * host window; their status. */
int fw_op_encode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail);
int fw_op_decode(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail);
int fw_op_reduce(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail);
/* pipe.c: the first chunk's transfer in of the descriptor at `desc` (w0 its first word),
 * posted before it is validated; and, after its command, the wait for a prefetch the
 * command did not take (a refused descriptor's). */
void fw_pipe_prefetch(struct quire_fw *fw, uint32_t desc, uint32_t w0);
void fw_pipe_prefetch_end(struct quire_fw *fw);

/* ops.c: run a validated descriptor; *result is the completion's result field. */
int fw_execute(struct quire_fw *fw, const struct quire_cmd *cmd, uint32_t *result,
	       uint32_t *detail);
/* ops.c: an MLP_SCORE's words at `desc` (w0 its first word, nonzero which of the words
 * after seq are not 0) run as fw_execute would run them once validated, when they break
 * none of the rules; FW_NOT_QUICK (nothing done) when any may be broken. */
#define FW_NOT_QUICK (-1)
/* Its first tests, inline in the command loop so that other descriptors pay no call. */
static inline int fw_mlp_score_may_be_quick(const struct quire_fw *fw, uint32_t w0,
					    uint32_t nonzero)
{
	const uint32_t zero = 1u << QUIRE_CMD_W_FORMATS | 3u << QUIRE_CMD_W_EXP |
			      3u << QUIRE_CMD_W_STRIDE | 3u << QUIRE_CMD_W_RESERVED;
	return w0 == QUIRE_OPC_MLP_SCORE && (nonzero & zero) == 0 && (fw->caps & QUIRE_CAP_MLP) &&
	       fw->mlp_width0 != 0;
}
int fw_mlp_score_quick(struct quire_fw *fw, uint32_t desc, uint32_t w0, uint32_t nonzero,
		       uint32_t *result, uint32_t *detail);
/* cmdloop.c: the queue engine serves MLP_SCOREs itself while a model is loaded on a card
 * with the MLP engine (a card's queue engine may lack it: fw->qe_serves says). */
void fw_qe_serve_update(struct quire_fw *fw);

/* alive.c: liveness. fw_wait_until waits for an event or until the cycle counter reaches
 * `deadline` (waking sooner for the heartbeat and keepalives); 0, or -1 when the firmware
 * must stop. fw_idle is the command loop's sleep, the same with keepalives due. */
void fw_heartbeat(struct quire_fw *fw);
int fw_wait_until(struct quire_fw *fw, uint64_t deadline);
int fw_idle(struct quire_fw *fw);
void fw_keepalive_start(struct quire_fw *fw, struct quire_fw_comm *c);

/* net.c: the network port's rings (fw_net_init, when the card is on a network) and the
 * frames of communicator c. A sent frame's payload lies at card memory `payload`, its
 * header written just before it (FW_COLL_TX + QUIRE_FRAME_HDR_BYTES, or a received frame's
 * payload to pass it on). A receive takes the next frame from the ring neighbour, which
 * must be the one named (step, offset, len); *payload is where its payload lies, in a
 * receive buffer lent to the caller until the next fw_net_recv, fw_net_drain or
 * fw_net_drop_keepalives. */
void fw_net_init(struct quire_fw *fw);
int fw_net_send(struct quire_fw *fw, struct quire_fw_comm *c, uint32_t step, uint32_t flags,
		uint32_t offset, uint32_t len, uint32_t payload);
/* The same in two halves: queue the frame and go on (its payload and header left alone
 * until the answer), and the port's answer to it (fw_net_settle, which every later post,
 * send, keepalive, abort or receive that frees its buffer waits for first). At most one
 * frame is queued at a time, so frames go out in the order posted. */
int fw_net_post(struct quire_fw *fw, struct quire_fw_comm *c, uint32_t step, uint32_t flags,
		uint32_t offset, uint32_t len, uint32_t payload);
int fw_net_settle(struct quire_fw *fw);
/* The frame the last receive lent stays the caller's past later receives: kept, up to
 * QUIRE_FW_NET_KEEP at once, until fw_net_unkeep gives back the oldest, fw_net_unkeep_newest
 * the one kept last (or a drain all). */
void fw_net_keep(struct quire_fw *fw);
void fw_net_unkeep(struct quire_fw *fw);
void fw_net_unkeep_newest(struct quire_fw *fw);
int fw_net_recv(struct quire_fw *fw, struct quire_fw_comm *c, uint32_t step, uint32_t offset,
		uint32_t len, uint32_t *payload, uint32_t *flags);
/* Discard every frame of communicator id waiting in the port. */
void fw_net_drain(struct quire_fw *fw, uint32_t id);
/* Tell every other member that collective c->coll_seq failed with `status`. */
void fw_net_abort(struct quire_fw *fw, struct quire_fw_comm *c, int status);
/* Tell the next member that this one is alive; drop keepalives waiting in the port. */
void fw_net_keepalive(struct quire_fw *fw, struct quire_fw_comm *c);
void fw_net_drop_keepalives(struct quire_fw *fw, uint32_t id);

/* comm.c */
/* Member r's network address in the table (u16 per member) at card memory `table`. */
uint32_t fw_comm_member_addr(struct quire_fw *fw, uint32_t table, uint32_t r);
/* This card's communicator id, or NULL (id 0 is none). */
struct quire_fw_comm *fw_comm_find(struct quire_fw *fw, uint32_t id);
int fw_comm_init(struct quire_fw *fw, const struct quire_cmd *cmd, uint32_t *detail);
int fw_comm_free(struct quire_fw *fw, const struct quire_cmd *cmd, uint32_t *detail);
/* A new host: every communicator of the old one is gone. */
void fw_comm_reset(struct quire_fw *fw);
/* The communicator a collective names, NULL (and *status, *detail) if it cannot run. */
struct quire_fw_comm *fw_comm_get(struct quire_fw *fw, uint32_t id, int *status, uint32_t *detail);
/* A collective on c ended with `status`: on failure, c is failed and the others told. */
int fw_comm_end(struct quire_fw *fw, struct quire_fw_comm *c, int status, uint32_t *detail);

/* allreduce.c */
int fw_allreduce(struct quire_fw *fw, const struct quire_cmd *cmd, uint32_t *detail);
int fw_barrier(struct quire_fw *fw, const struct quire_cmd *cmd, uint32_t *detail);

/* gather.c */
int fw_allgather(struct quire_fw *fw, const struct quire_cmd *cmd, uint32_t *detail);
int fw_broadcast(struct quire_fw *fw, const struct quire_cmd *cmd, uint32_t *detail);

#endif
