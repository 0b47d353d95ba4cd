// SPDX-License-Identifier: MIT
/* Contexts and buffers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "quire/regs.h"

/* One default for every wait on something that shows no sign of life: the card's own
 * wait for a silent peer (COMM_INIT's) and the host's for a card that stands still. */
#define DEFAULT_TIMEOUT_MS ((int)QUIRE_COMM_TIMEOUT_DEFAULT_MS)

int64_t quire_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int quire_env_timeout_ms(void)
{
	const char *v = getenv("QUIRE_TIMEOUT_MS");
	char *end;
	long ms = v ? strtol(v, &end, 10) : 0;
	return v && *v && !*end && ms > 0 && ms <= (long)QUIRE_COMM_TIMEOUT_MAX_MS ? (int)ms : 0;
}

int quire_env_attach_wait_ms(void)
{
	const char *v = getenv("QUIRE_ATTACH_WAIT_MS");
	char *end;
	long ms = v ? strtol(v, &end, 10) : -1;
	return v && *v && !*end && ms >= 0 && ms <= (long)QUIRE_COMM_TIMEOUT_MAX_MS
		   ? (int)ms
		   : QUIRE_ATTACH_WAIT_DEFAULT_MS;
}

/* Per thread: a context serves one thread, and so does its opening. */
static _Thread_local char open_fault[320];

void quire_open_fault_set(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(open_fault, sizeof(open_fault), fmt, ap);
	va_end(ap);
}

const char *quire_open_fault(void)
{
	return open_fault[0] ? open_fault : NULL;
}

/* Every backend, by URI scheme. */
static const struct quire_backend backends[] = {
    {"cpu", 0, quire_backend_cpu_open},       {"sim", 1, quire_backend_sim_open},
    {"kdrv", 1, quire_backend_kdrv_open},     {"xrt", 1, quire_backend_xrt_open},
    {"opencl", 1, quire_backend_opencl_open},
};

int quire_open(const char *uri, struct quire_ctx **out)
{
	open_fault[0] = '\0';
	if (!uri || !out)
		return QUIRE_ERR_INVALID;
	*out = NULL;
	struct quire_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return QUIRE_ERR_NOMEM;
	ctx->timeout_ms = quire_env_timeout_ms() ? quire_env_timeout_ms() : DEFAULT_TIMEOUT_MS;
	ctx->next_seq = 1;
	int st = QUIRE_ERR_NO_DEVICE; /* a scheme nobody knows */
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		size_t n = strlen(backends[i].scheme);
		if (strncmp(uri, backends[i].scheme, n) != 0)
			continue;
		if (uri[n] == '\0')
			st = backends[i].open(ctx, NULL);
		else if (uri[n] == ':' && uri[n + 1] && backends[i].takes_arg)
			st = backends[i].open(ctx, uri + n + 1);
		else
			continue;
		break;
	}
	if (st != QUIRE_OK) {
		free(ctx);
		return st;
	}
	open_fault[0] = '\0'; /* what a backend tried before it succeeded is no fault */
	*out = ctx;
	return QUIRE_OK;
}

void quire_ctx_fail(struct quire_ctx *ctx, int status)
{
	if (!ctx->failed)
		ctx->failed = status == QUIRE_ERR_PEER ? QUIRE_ERR_PEER : QUIRE_ERR_UNRESPONSIVE;
}

void quire_close(struct quire_ctx *ctx)
{
	if (!ctx)
		return;
	while (ctx->bufs)
		quire_buf_free(ctx->bufs);
	ctx->ops->close(ctx);
	free(ctx);
}

int quire_reset(struct quire_ctx *ctx)
{
	if (!ctx)
		return QUIRE_ERR_INVALID;
	if (ctx->failed == QUIRE_ERR_PEER)
		return QUIRE_ERR_PEER; /* gone: only a new context can find another card */
	int st = ctx->ops->reset ? ctx->ops->reset(ctx, QUIRE_ERR_UNRESPONSIVE) : QUIRE_OK;
	if (st != QUIRE_OK) {
		quire_ctx_fail(ctx, st);
		return st;
	}
	ctx->failed = 0;
	ctx->in_flight = 0;
	ctx->mlp_loads++; /* the card may have lost its model: quire_model loads it again */
	ctx->progress_at = ctx->beat_read_at = quire_now_ms();
	return QUIRE_OK;
}

uint32_t quire_backend_caps(const struct quire_ctx *ctx)
{
	return ctx ? ctx->ops->caps : 0;
}

void quire_set_timeout(struct quire_ctx *ctx, int timeout_ms)
{
	if (ctx)
		ctx->timeout_ms = timeout_ms < 0 ? QUIRE_WAIT_FOREVER : timeout_ms;
}

int quire_get_info(struct quire_ctx *ctx, struct quire_info *info)
{
	if (!ctx || !info)
		return QUIRE_ERR_INVALID;
	memset(info, 0, sizeof(*info));
	if (quire_ctx_failed(ctx))
		return quire_ctx_failed(ctx);
	int st = ctx->ops->info(ctx, info);
	if (st == QUIRE_ERR_TIMEOUT || st == QUIRE_ERR_PEER)
		quire_ctx_fail(ctx, st);
	return st;
}

int quire_card_clock_ms(struct quire_ctx *ctx, int64_t *ms)
{
	if (!ctx || !ms)
		return QUIRE_ERR_INVALID;
	*ms = -1;
	if (quire_ctx_failed(ctx))
		return quire_ctx_failed(ctx);
	if (!ctx->ops->heartbeat)
		return QUIRE_ERR_NOT_SUPPORTED;
	uint32_t beat;
	int st = ctx->ops->heartbeat(ctx, &beat, ms, ctx->timeout_ms);
	if (st == QUIRE_ERR_TIMEOUT || st == QUIRE_ERR_PEER)
		quire_ctx_fail(ctx, st);
	if (st == QUIRE_OK && *ms < 0)
		st = QUIRE_ERR_NOT_SUPPORTED;
	if (st != QUIRE_OK)
		*ms = -1;
	return st;
}

const char *quire_block_name(uint32_t type)
{
	switch (type) {
	case QUIRE_RB_TYPE_ID:
		return "id";
	case QUIRE_RB_TYPE_CMDQ:
		return "cmdq";
	case QUIRE_RB_TYPE_CPLQ:
		return "cplq";
	case QUIRE_RB_TYPE_IRQ:
		return "irq";
	case QUIRE_RB_TYPE_ENGINES:
		return "engines";
	case QUIRE_RB_TYPE_NETPORT:
		return "netport";
	case QUIRE_RB_TYPE_COUNTERS:
		return "counters";
	default:
		return "?";
	}
}

/* b, its memory given by the backend, becomes one of ctx's buffers (quire_close frees them). */
static struct quire_buf *buf_link(struct quire_ctx *ctx, struct quire_buf *b)
{
	b->ctx = ctx;
	b->prev = NULL;
	b->next = ctx->bufs;
	if (ctx->bufs)
		ctx->bufs->prev = b;
	ctx->bufs = b;
	return b;
}

int quire_buf_alloc(struct quire_ctx *ctx, size_t bytes, struct quire_buf **out)
{
	if (!ctx || !out || bytes == 0)
		return QUIRE_ERR_INVALID;
	*out = NULL;
	if (quire_ctx_failed(ctx))
		return quire_ctx_failed(ctx);
	struct quire_buf *b = calloc(1, sizeof(*b));
	if (!b)
		return QUIRE_ERR_NOMEM;
	int st = ctx->ops->buf_alloc(ctx, bytes, &b->ptr, &b->dma);
	if (st != QUIRE_OK) {
		free(b);
		return st;
	}
	b->size = bytes;
	*out = buf_link(ctx, b);
	return QUIRE_OK;
}

/* The backend can share buffers as dma-bufs: its caps say so, and it has the means. */
static int dmabuf_status(const struct quire_ctx *ctx)
{
	if (quire_ctx_failed(ctx))
		return quire_ctx_failed(ctx);
	if (!(ctx->ops->caps & QUIRE_BACKEND_CAP_DMABUF) || !ctx->ops->buf_export ||
	    !ctx->ops->buf_import)
		return QUIRE_ERR_NOT_SUPPORTED;
	return QUIRE_OK;
}

int quire_buf_export(struct quire_buf *buf, int *fd)
{
	if (fd)
		*fd = -1;
	if (!buf || !fd)
		return QUIRE_ERR_INVALID;
	int st = dmabuf_status(buf->ctx);
	return st != QUIRE_OK ? st : buf->ctx->ops->buf_export(buf->ctx, buf->ptr, fd);
}

int quire_buf_import(struct quire_ctx *ctx, int fd, struct quire_buf **out)
{
	if (out)
		*out = NULL;
	if (!ctx || !out || fd < 0)
		return QUIRE_ERR_INVALID;
	int st = dmabuf_status(ctx);
	if (st != QUIRE_OK)
		return st;
	struct quire_buf *b = calloc(1, sizeof(*b));
	if (!b)
		return QUIRE_ERR_NOMEM;
	st = ctx->ops->buf_import(ctx, fd, &b->size, &b->ptr, &b->dma);
	if (st != QUIRE_OK) {
		free(b);
		return st;
	}
	*out = buf_link(ctx, b);
	return QUIRE_OK;
}

void *quire_buf_ptr(const struct quire_buf *buf)
{
	return buf ? buf->ptr : NULL;
}

size_t quire_buf_size(const struct quire_buf *buf)
{
	return buf ? buf->size : 0;
}

void quire_buf_free(struct quire_buf *buf)
{
	if (!buf)
		return;
	if (buf->prev)
		buf->prev->next = buf->next;
	else
		buf->ctx->bufs = buf->next;
	if (buf->next)
		buf->next->prev = buf->prev;
	buf->ctx->ops->buf_free(buf->ctx, buf->ptr, buf->size);
	free(buf);
}
