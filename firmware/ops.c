// SPDX-License-Identifier: MIT
/*
 * Running a validated descriptor: check every host buffer against the DMA
 * window, then run it (the codec's and REDUCE's chunks through pipe.c). Nothing
 * is written to the host before every check passed.
 */
#include "dma.h"
#include "engines.h"
#include "hal.h"
#include "internal.h"
#include "layout.h"
#include "quire/format.h"
#include "quire/mlp.h"
#include "quire/regs.h"
#include "quire/status.h"

/* The host memory window: its base, and its size into *size. */
static uint64_t host_window(struct quire_fw *fw, uint64_t *size)
{
	*size = (uint64_t)hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_SIZE_HI) << 32 |
		hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_SIZE_LO);
	return (uint64_t)hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_BASE_HI) << 32 |
	       hal_read32(fw, QUIRE_CARD_CTL + QUIRE_CTL_HOST_WIN_BASE_LO);
}

/* Is [addr, addr + bytes) inside the window [base, base + size)? */
static int inside(uint64_t addr, uint64_t bytes, uint64_t base, uint64_t size)
{
	return addr >= base && bytes <= size && addr - base <= size - bytes;
}

/* Every host buffer of the descriptor inside the window, before anything moves. */
static int check_windows(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	const uint64_t addr[4] = {quire_le64_to_cpu(d->src), quire_le64_to_cpu(d->dst),
				  quire_le64_to_cpu(d->exp), quire_le64_to_cpu(d->aux)};
	static const uint32_t details[4] = {QUIRE_DETAIL_SRC, QUIRE_DETAIL_DST, QUIRE_DETAIL_EXP,
					    QUIRE_DETAIL_AUX};
	uint64_t ext[4], size, base = host_window(fw, &size);
	quire_cmd_extents(d, fw->mlp_width0, ext);
	for (uint32_t i = 0; i < 4; i++) {
		if (ext[i] && !inside(addr[i], ext[i], base, size)) {
			*detail = details[i];
			return QUIRE_ERR_RANGE;
		}
	}
	return QUIRE_OK;
}

static int mlp(struct quire_fw *fw, uint32_t op, uint32_t len, uint32_t c)
{
	uint32_t a[QUIRE_MLP_ARGS] = {op, len, c, FW_MODEL, FW_BUF_A, FW_BUF_B, FW_BUF_C, FW_SMALL};
	return fw_engine_run(fw, QUIRE_ENGINE_MLP, a, QUIRE_MLP_ARGS);
}

static int op_mlp_load(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *detail)
{
	fw->mlp_width0 = 0; /* a failed load leaves no model behind */
	int st = fw_dma(fw, quire_le64_to_cpu(d->src), FW_MODEL, quire_le32_to_cpu(d->count),
			QUIRE_DMA_TO_CARD);
	if (!st)
		st = mlp(fw, QUIRE_MLP_OP_LOAD, quire_le32_to_cpu(d->count), 0);
	if (st) {
		*detail = QUIRE_DETAIL_ENGINE;
		fw_qe_serve_update(fw);
		return st;
	}
	fw->mlp_width0 =
	    hal_mem_read32(fw, FW_MODEL + QUIRE_MLP_HDR_WIDTH) & 0xffffu; /* width[0] */
	fw_qe_serve_update(fw);
	return QUIRE_OK;
}

/* c candidates' features at src and feasibility bytes at aux scored, the scores to dst. */
static int mlp_score(struct quire_fw *fw, uint32_t c, uint64_t src, uint64_t aux, uint64_t dst,
		     uint32_t *result, uint32_t *detail)
{
	int st = fw_dma(fw, src, FW_BUF_A, c * fw->mlp_width0, QUIRE_DMA_TO_CARD);
	if (!st)
		st = fw_dma(fw, aux, FW_BUF_B, c, QUIRE_DMA_TO_CARD);
	if (!st) {
		st = mlp(fw, QUIRE_MLP_OP_SCORE, 0, c);
		/* No feasible candidate is an answer, not a failure: the scores go back too. */
		if (st == QUIRE_OK || st == QUIRE_ERR_NO_FEASIBLE) {
			int back = fw_dma(fw, dst, FW_BUF_C, 4 * c, QUIRE_DMA_TO_HOST);
			st = back ? back : st;
		}
		if (st == QUIRE_OK)
			*result = hal_mem_read32(fw, FW_SMALL);
	}
	if (st && !*detail)
		*detail = QUIRE_DETAIL_ENGINE;
	return st;
}

/* A host buffer a valid descriptor may name: present, `align`ed, not wrapping around for
 * its `most` bytes, and its `bytes` inside the window [base, base + size). */
static int quick_buffer(uint64_t addr, uint64_t bytes, uint64_t most, uint32_t align, uint64_t base,
			uint64_t size)
{
	return addr != 0 && (addr & (align - 1)) == 0 && addr + most >= addr &&
	       inside(addr, bytes, base, size);
}

/*
 * MLP_SCORE, a scheduler's decision, without the general path's steps: the descriptor is not
 * unpacked, validated opcode by opcode (quire_cmd_validate), nor its extents computed for any
 * opcode (check_windows). What those steps would refuse is all tested here, at once:
 * - the first word is the opcode alone (flags and format 0), and the other words not
 *   named (formats, workers, exp, stride, reserved) are 0;
 * - 1 to QUIRE_MLP_MAX_CANDIDATES candidates, the card has the engine, a model is loaded;
 * - src, aux and dst (4-byte aligned) present, not wrapping for their most bytes (a
 *   candidate's QUIRE_MLP_MAX_WIDTH features for src), and inside the host window for what
 *   the loaded model moves.
 * A descriptor that fails any of it takes the general path, which refuses it with its
 * status and the field at fault, in its own order; one that passes runs as fw_execute
 * would run it.
 */
int fw_mlp_score_quick(struct quire_fw *fw, uint32_t desc, uint32_t w0, uint32_t nonzero,
		       uint32_t *result, uint32_t *detail)
{
	if (!fw_mlp_score_may_be_quick(fw, w0, nonzero))
		return FW_NOT_QUICK;
	uint32_t count = hal_read32(fw, desc + 4 * QUIRE_CMD_W_COUNT);
	if (count == 0 || count > QUIRE_MLP_MAX_CANDIDATES)
		return FW_NOT_QUICK;
	uint64_t src = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_SRC + 4) << 32 |
		       hal_read32(fw, desc + 4 * QUIRE_CMD_W_SRC);
	uint64_t dst = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_DST + 4) << 32 |
		       hal_read32(fw, desc + 4 * QUIRE_CMD_W_DST);
	uint64_t aux = (uint64_t)hal_read32(fw, desc + 4 * QUIRE_CMD_W_AUX + 4) << 32 |
		       hal_read32(fw, desc + 4 * QUIRE_CMD_W_AUX);
	uint64_t size, base = host_window(fw, &size);
	uint64_t c = count;
	if (!quick_buffer(src, c * fw->mlp_width0, c * QUIRE_MLP_MAX_WIDTH, 1, base, size) ||
	    !quick_buffer(dst, 4 * c, 4 * c, 4, base, size) ||
	    !quick_buffer(aux, c, c, 1, base, size))
		return FW_NOT_QUICK;
	*result = 0;
	*detail = QUIRE_DETAIL_NONE;
	return mlp_score(fw, count, src, aux, dst, result, detail);
}

static int op_info(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *result)
{
	const uint32_t words[16] = {
	    QUIRE_ID_MAGIC_VALUE,
	    QUIRE_INTERFACE_VERSION,
	    QUIRE_FW_BUILD_ID,
	    hal_bar_read(fw, fw->bar.id, QUIRE_ID_CAPS),
	    hal_bar_read(fw, fw->bar.id, QUIRE_ID_MEM_LO),
	    hal_bar_read(fw, fw->bar.id, QUIRE_ID_MEM_HI),
	    hal_bar_read(fw, fw->bar.id, QUIRE_ID_CLOCK_HZ),
	    fw->cmds_ok,
	    fw->cmds_err,
	};
	for (uint32_t i = 0; i < 16; i++)
		hal_mem_write32(fw, FW_INFO + 4 * i, words[i]);
	*result = sizeof(struct quire_card_info);
	return fw_dma(fw, quire_le64_to_cpu(d->dst), FW_INFO, sizeof(struct quire_card_info),
		      QUIRE_DMA_TO_HOST);
}

/* The QUIRE_CAP_* engines an opcode runs on. A collective's sums are REDUCE's; its bfp
 * encoding, and fp32's mean, are QUANT's. */
static uint32_t caps_needed(const struct quire_cmd *d)
{
	switch (d->opcode) {
	case QUIRE_OPC_EXPONENTS:
	case QUIRE_OPC_ENCODE:
	case QUIRE_OPC_DECODE:
		return QUIRE_CAP_CODEC;
	case QUIRE_OPC_REDUCE:
		return QUIRE_CAP_REDUCE;
	case QUIRE_OPC_MLP_LOAD:
	case QUIRE_OPC_MLP_SCORE:
		return QUIRE_CAP_MLP;
	case QUIRE_OPC_ALLREDUCE:
	case QUIRE_OPC_REDUCE_SCATTER:
		return QUIRE_CAP_REDUCE |
		       (quire_le16_to_cpu(d->format) == QUIRE_FMT_INT32 ? 0 : QUIRE_CAP_CODEC);
	default:
		return 0;
	}
}

int fw_execute(struct quire_fw *fw, const struct quire_cmd *d, uint32_t *result, uint32_t *detail)
{
	*result = 0;
	*detail = QUIRE_DETAIL_NONE;
	/* An engine the card does not have is refused before anything moves. */
	if (caps_needed(d) & ~fw->caps) {
		*detail = QUIRE_DETAIL_ENGINE;
		return QUIRE_ERR_NOT_SUPPORTED;
	}
	if (d->opcode == QUIRE_OPC_MLP_SCORE && fw->mlp_width0 == 0) {
		*detail = QUIRE_DETAIL_ENGINE;
		return QUIRE_ERR_SHAPE; /* no model loaded */
	}
	int st = check_windows(fw, d, detail);
	if (st != QUIRE_OK)
		return st;
	switch (d->opcode) {
	case QUIRE_OPC_NOP:
		return QUIRE_OK;
	case QUIRE_OPC_INFO:
		return op_info(fw, d, result);
	case QUIRE_OPC_EXPONENTS:
	case QUIRE_OPC_ENCODE:
		return fw_op_encode(fw, d, detail);
	case QUIRE_OPC_DECODE:
		return fw_op_decode(fw, d, detail);
	case QUIRE_OPC_REDUCE:
		return fw_op_reduce(fw, d, detail);
	case QUIRE_OPC_MLP_LOAD:
		return op_mlp_load(fw, d, detail);
	case QUIRE_OPC_MLP_SCORE:
		return mlp_score(fw, quire_le32_to_cpu(d->count), quire_le64_to_cpu(d->src),
				 quire_le64_to_cpu(d->aux), quire_le64_to_cpu(d->dst), result,
				 detail);
	case QUIRE_OPC_COMM_INIT:
		return fw_comm_init(fw, d, detail);
	case QUIRE_OPC_COMM_FREE:
		return fw_comm_free(fw, d, detail);
	case QUIRE_OPC_ALLREDUCE:
	case QUIRE_OPC_REDUCE_SCATTER:
		return fw_allreduce(fw, d, detail);
	case QUIRE_OPC_ALLGATHER:
		return fw_allgather(fw, d, detail);
	case QUIRE_OPC_BROADCAST:
		return fw_broadcast(fw, d, detail);
	case QUIRE_OPC_BARRIER:
		return fw_barrier(fw, d, detail);
	default:
		*detail = QUIRE_DETAIL_OPCODE;
		return QUIRE_ERR_OPCODE;
	}
}
