/* SPDX-License-Identifier: MIT */
/*
 * libquire's core: contexts, buffers, requests, shared by every backend.
 *
 * The core turns a quire_op into the very command descriptor a card reads,
 * checks it with the firmware's own validator and against the caller's
 * buffers, and hands it to a backend. Backends only move descriptors and
 * completions: cpu runs them here, sim rings a (simulated) card.
 */
#ifndef QUIRE_CORE_H
#define QUIRE_CORE_H

#include <pthread.h>

#include "quire.h"

struct quire_backend_ops {
	const char *name;
	uint32_t caps; /* QUIRE_BACKEND_CAP_*: what callers may ask of it */
	int (*info)(struct quire_ctx *ctx, struct quire_info *info);
	/* Memory the card reaches: *ptr for the host, *dma for descriptors. */
	int (*buf_alloc)(struct quire_ctx *ctx, size_t bytes, void **ptr, uint64_t *dma);
	void (*buf_free)(struct quire_ctx *ctx, void *ptr, size_t bytes);
	/* QUIRE_BACKEND_CAP_DMABUF, else NULL. export: the buffer at ptr as a new dma-buf fd.
	 * import: a buffer over dma-buf fd (not taken), as buf_alloc, *bytes its size. */
	int (*buf_export)(struct quire_ctx *ctx, void *ptr, int *fd);
	int (*buf_import)(struct quire_ctx *ctx, int fd, size_t *bytes, void **ptr, uint64_t *dma);
	/* Start req->cmd (checked). On error the request was not started. */
	int (*submit)(struct quire_ctx *ctx, struct quire_req *req);
	/* Make progress until req is done or timeout_ms pass (-1: no limit):
	 * QUIRE_OK when done, QUIRE_ERR_TIMEOUT, or QUIRE_ERR_PEER when the card is gone. */
	int (*wait)(struct quire_ctx *ctx, struct quire_req *req, int timeout_ms);
	/* Forget a request still in flight: its completion will be dropped. */
	void (*abandon)(struct quire_ctx *ctx, struct quire_req *req);
	/* The card's heartbeat (QUIRE_CNT_HEARTBEAT) and its own clock, in milliseconds of
	 * card time (QUIRE_CNT_CYCLES over QUIRE_ID_CLOCK_HZ), both read within timeout_ms of
	 * wall time: QUIRE_OK, QUIRE_ERR_TIMEOUT when the card did not answer, QUIRE_ERR_PEER
	 * when it is gone. *card_ms is -1 when the backend cannot read the card's clock (the
	 * core then counts wall time). NULL for a backend without a card (its operations
	 * finish where they are run). */
	int (*heartbeat)(struct quire_ctx *ctx, uint32_t *beat, int64_t *card_ms, int timeout_ms);
	/* quire_reset: reach the card again (within the context's timeout) and restart its
	 * queues, completing every request in flight with `status`. NULL: nothing to reset. */
	int (*reset)(struct quire_ctx *ctx, int status);
	void (*close)(struct quire_ctx *ctx);
};

struct quire_ctx {
	const struct quire_backend_ops *ops;
	void *priv;
	int timeout_ms;
	uint32_t next_seq;
	uint32_t mlp_width0; /* input width of the model loaded through this context */
	uint32_t loading_width0;
	uint32_t
	    mlp_loads; /* MLP_LOADs submitted and resets: a quire_model reloads when it moved */
	struct quire_buf *bufs; /* every buffer still allocated: quire_close frees them */
	/* Liveness (request.c): the card has work while requests are in flight, and must
	 * show progress (a completion, or its heartbeat moving) within timeout_ms of its own
	 * clock. */
	uint32_t in_flight;
	uint32_t beat;        /* the heartbeat last read */
	int64_t progress_at;  /* when the host last saw progress (a completion, work given to
			       * an idle card, a reset), wall ms */
	int64_t beat_read_at; /* when the heartbeat was last read, wall ms */
	int64_t still_since;  /* the card's clock (ms) at the first read that found it without
			       * progress since: its standstill is measured from there */
	int failed;           /* QUIRE_ERR_UNRESPONSIVE or QUIRE_ERR_PEER: the context is done */
};

/* The context can take no more work: its status, for a call to return at once. */
static inline int quire_ctx_failed(const struct quire_ctx *ctx)
{
	return ctx->failed;
}

/* A backend call said the card stopped answering (TIMEOUT) or is gone (PEER): remember it. */
void quire_ctx_fail(struct quire_ctx *ctx, int status);

/* Has the card made progress within the context's timeout, by its own clock? QUIRE_OK, or
 * the status it failed the context with (request.c). For every wait on a card. */
int quire_ctx_check_progress(struct quire_ctx *ctx);

struct quire_buf {
	struct quire_ctx *ctx;
	struct quire_buf *prev, *next;
	void *ptr;
	size_t size;
	uint64_t dma;
};

struct quire_req {
	struct quire_ctx *ctx;
	struct quire_cmd cmd;
	int done;
	int status;
	uint32_t result, cycles, detail;
	/* Called once when the request completes (collectives commit state here). */
	void (*on_done)(void *arg, int status);
	void *done_arg;
};

/* Backends' constructors. */
/*
 * The backends quire_open knows, by the scheme of a URI ("cpu", "sim", "sim:PATH", "kdrv"): open
 * sets ctx->ops and ctx->priv; arg is what follows "scheme:", NULL for a bare scheme.
 */
struct quire_backend {
	const char *scheme;
	int takes_arg; /* "scheme:ARG" is allowed */
	int (*open)(struct quire_ctx *ctx, const char *arg);
};
int quire_backend_cpu_open(struct quire_ctx *ctx, const char *arg);
int quire_backend_sim_open(struct quire_ctx *ctx, const char *where);
int quire_backend_kdrv_open(struct quire_ctx *ctx, const char *where);
int quire_backend_xrt_open(struct quire_ctx *ctx, const char *where);
int quire_backend_opencl_open(struct quire_ctx *ctx, const char *where);

/* A backend reports a finished request. */
void quire_req_complete(struct quire_req *req, int status, uint32_t result, uint32_t cycles,
			uint32_t detail);

/* QUIRE_TIMEOUT_MS from the environment (1 to QUIRE_COMM_TIMEOUT_MAX_MS), else 0. */
int quire_env_timeout_ms(void);

/* Milliseconds on a monotonic clock. */
int64_t quire_now_ms(void);

/* How long an attach waits its turn at a card that serves another host, in ms:
 * QUIRE_ATTACH_WAIT_MS from the environment (0 to QUIRE_COMM_TIMEOUT_MAX_MS), else
 * QUIRE_ATTACH_WAIT_DEFAULT_MS. */
#define QUIRE_ATTACH_WAIT_DEFAULT_MS 30000
int quire_env_attach_wait_ms(void);

/* What quire_open_fault() says about the quire_open under way in this thread: a backend
 * that can say more than its status (which card, what it did) says it here. */
void quire_open_fault_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* QUIRE_CORE_H */
