// SPDX-License-Identifier: MIT
/*
 * The cpu backend: no card. A checked descriptor runs right here, through the
 * same codec and kernels a card uses, so results are the cards' bits.
 * Descriptor addresses are plain pointers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hls/mlp.h"
#include "host/src/core/core.h"
#include "quire/regs.h"

struct cpu {
	struct quire_mlp_net *net;
};

/* A descriptor's address (little-endian, quire/cmd.h) as a pointer: the cpu backend's
 * "DMA addresses" are the buffers' own. */
static void *ptr(__le64 addr)
{
	return (void *)(uintptr_t)quire_le64_to_cpu(addr);
}

static int run_reduce(const struct quire_cmd *c)
{
	uint32_t workers = quire_le16_to_cpu(c->workers);
	uint64_t stride = quire_le64_to_cpu(c->stride);
	const void **in = malloc(workers * sizeof(*in));
	if (!in)
		return QUIRE_ERR_NOMEM;
	for (uint32_t k = 0; k < workers; k++)
		in[k] = (const uint8_t *)ptr(c->src) + stride * k;
	int st = quire_codec_sum(quire_le16_to_cpu(c->val_format), quire_le16_to_cpu(c->format),
				 workers, quire_le32_to_cpu(c->count), in, NULL, ptr(c->dst));
	free(in);
	return st;
}

static int execute(struct cpu *cpu, const struct quire_cmd *c, uint32_t *result)
{
	int ef = c->flags & QUIRE_CMD_F_EF, shared = c->flags & QUIRE_CMD_F_SHARED_EXP;
	uint16_t format = quire_le16_to_cpu(c->format);
	uint32_t count = quire_le32_to_cpu(c->count);
	float *resid = ef ? ptr(c->aux) : NULL;
	switch (c->opcode) {
	case QUIRE_OPC_NOP:
		return QUIRE_OK;
	case QUIRE_OPC_INFO: {
		struct quire_card_info info = {
		    .magic = quire_cpu_to_le32(QUIRE_ID_MAGIC_VALUE),
		    .if_version = quire_cpu_to_le32(QUIRE_INTERFACE_VERSION),
		    .caps = quire_cpu_to_le32(QUIRE_CAP_CODEC | QUIRE_CAP_REDUCE | QUIRE_CAP_MLP)};
		memcpy(ptr(c->dst), &info, sizeof(info));
		*result = sizeof(info);
		return QUIRE_OK;
	}
	case QUIRE_OPC_EXPONENTS:
		return quire_codec_exponents(format, count, ptr(c->src), resid, ptr(c->exp));
	case QUIRE_OPC_ENCODE:
		if (format == QUIRE_FMT_FP16)
			return quire_codec_encode(format, count, ptr(c->src), NULL, NULL, NULL,
						  ptr(c->dst));
		return quire_codec_encode(format, count, ptr(c->src), resid,
					  shared ? ptr(c->exp) : NULL, shared ? NULL : ptr(c->exp),
					  ptr(c->dst));
	case QUIRE_OPC_DECODE:
		return quire_codec_decode(format, quire_le16_to_cpu(c->val_format), count,
					  ptr(c->src),
					  format == QUIRE_FMT_FP16 ? NULL : ptr(c->exp),
					  quire_le16_to_cpu(c->workers), ptr(c->dst));
	case QUIRE_OPC_REDUCE:
		return run_reduce(c);
	case QUIRE_OPC_MLP_LOAD:
		return quire_mlp_load(ptr(c->src), count, cpu->net);
	case QUIRE_OPC_MLP_SCORE:
		return quire_mlp_score(cpu->net, count, ptr(c->src), ptr(c->aux), ptr(c->dst),
				       result);
	default:
		return QUIRE_ERR_OPCODE;
	}
}

static int cpu_submit(struct quire_ctx *ctx, struct quire_req *req)
{
	uint32_t result = 0;
	int st = execute(ctx->priv, &req->cmd, &result);
	quire_req_complete(req, st, result, 0,
			   st == QUIRE_OK ? QUIRE_DETAIL_NONE : QUIRE_DETAIL_ENGINE);
	return QUIRE_OK;
}

static int cpu_wait(struct quire_ctx *ctx, struct quire_req *req, int timeout_ms)
{
	(void)ctx;
	(void)timeout_ms;
	return req->done ? QUIRE_OK : QUIRE_ERR_INTERNAL;
}

static void cpu_abandon(struct quire_ctx *ctx, struct quire_req *req)
{
	(void)ctx;
	(void)req;
}

static int cpu_info(struct quire_ctx *ctx, struct quire_info *info)
{
	(void)ctx;
	strcpy(info->backend, "cpu");
	strcpy(info->board, "none (this CPU)");
	info->if_version = QUIRE_INTERFACE_VERSION;
	info->fw_state = QUIRE_FW_STATE_RUNNING;
	info->caps = QUIRE_CAP_CODEC | QUIRE_CAP_REDUCE | QUIRE_CAP_MLP;
	return QUIRE_OK;
}

static int cpu_buf_alloc(struct quire_ctx *ctx, size_t bytes, void **p, uint64_t *dma)
{
	(void)ctx;
	*p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	if (!*p)
		return QUIRE_ERR_NOMEM;
	*dma = (uint64_t)(uintptr_t)*p;
	return QUIRE_OK;
}

static void cpu_buf_free(struct quire_ctx *ctx, void *p, size_t bytes)
{
	(void)ctx;
	(void)bytes;
	free(p);
}

static void cpu_close(struct quire_ctx *ctx)
{
	struct cpu *cpu = ctx->priv;
	free(cpu->net);
	free(cpu);
}

static const struct quire_backend_ops cpu_ops = {
    .name = "cpu",
    .caps = 0, /* the operations run here; communicators need a host transport (MPI) */
    .info = cpu_info,
    .buf_alloc = cpu_buf_alloc,
    .buf_free = cpu_buf_free,
    .submit = cpu_submit,
    .wait = cpu_wait,
    .abandon = cpu_abandon,
    .close = cpu_close,
};

int quire_backend_cpu_open(struct quire_ctx *ctx, const char *arg)
{
	(void)arg; /* "cpu" takes none */
	struct cpu *cpu = calloc(1, sizeof(*cpu));
	if (!cpu || !(cpu->net = calloc(1, sizeof(*cpu->net)))) {
		free(cpu);
		return QUIRE_ERR_NOMEM;
	}
	ctx->ops = &cpu_ops;
	ctx->priv = cpu;
	return QUIRE_OK;
}
