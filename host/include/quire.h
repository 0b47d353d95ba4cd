/* SPDX-License-Identifier: MIT */
/*
 * libquire: the C API of quire.
 *
 * - The gradient codec on this CPU: bfp8, bfp16 and fp16 encode/decode with
 *   error feedback, exact integer sums, a whole W-worker all-reduce, and the
 *   encoded tensor file; scalar, AVX2 or AVX-512, the same bits as the card.
 * - Cards: a context per backend (quire_open: "cpu", "sim", "sim:PATH",
 *   "sim:cluster", "sim:inproc"), quire_get_info, buffers the card reaches, and
 *   operations submitted as requests (quire_submit, then quire_test or
 *   quire_wait; quire_run submits, waits and frees), the int8 MLP's MLP_LOAD
 *   and MLP_SCORE among them (quire_model_* over them for a scheduler). A card
 *   that shows no progress for the timeout (QUIRE_TIMEOUT_MS, default 5000 ms;
 *   quire_set_timeout) makes its context
 *   fail with QUIRE_ERR_TIMEOUT, then QUIRE_ERR_UNRESPONSIVE, until quire_reset.
 * - Collectives across ranks on communicators (quire_comm): all-reduce,
 *   reduce-scatter, broadcast, all-gather, barrier, with error-feedback state;
 *   run by the cards over their network, or on the cpu backend over MPI
 *   (<quire_mpi.h>).
 * Every backend gives the same bits; the numbers are defined in
 * docs/contract-bfp.md and docs/contract-mlp.md.
 *
 * Functions return a quire status code (<quire/status.h>: 0 = QUIRE_OK;
 * quire_strerror() gives the text; docs/formats.md lists them).
 * Thread safety: the codec functions are reentrant, and the codec choice
 * (quire_codec_use) is process-wide and atomic; a context, and a communicator,
 * serves one thread at a time.
 */
#ifndef QUIRE_H
#define QUIRE_H

#include <stddef.h>
#include <stdint.h>

#include <quire/cmd.h>
#include <quire/format.h>
#include <quire/mlp.h>
#include <quire/status.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QUIRE_VERSION_MAJOR 0
#define QUIRE_VERSION_MINOR 1
#define QUIRE_VERSION_PATCH 0

#define QUIRE_MAX_WORKERS   1024u /* largest W of one reduction */

/* Version of the library actually loaded, "major.minor.patch". */
const char *quire_version(void);

/* ---- The CPU codec implementation ---------------------------------------- */

enum quire_codec_impl {
	QUIRE_CODEC_AUTO = 0,   /* the best this CPU has (the default) */
	QUIRE_CODEC_SCALAR = 1, /* the hls/ C model itself */
	QUIRE_CODEC_AVX2 = 2,   /* AVX2 + F16C */
	QUIRE_CODEC_AVX512 = 3, /* AVX-512F */
};

/*
 * Choose the implementation for the whole process. QUIRE_ERR_NOT_SUPPORTED if
 * this CPU lacks it. The environment variable QUIRE_CODEC (scalar, avx2,
 * avx512) sets the first choice. All give identical bits; only speed differs.
 */
int quire_codec_use(enum quire_codec_impl impl);
/* Name of the implementation in use: "scalar", "avx2" or "avx512". */
const char *quire_codec_impl_name(void);
/* Parse "auto", "scalar", "avx2", "avx512"; -1 if unknown. */
int quire_codec_impl_parse(const char *name);

/* ---- Codec ------------------------------------------------------------------ */

/*
 * Exponent pass: the local block exponents of x, or of fp32(x + resid) when
 * resid != NULL (error feedback). fmt: BFP8 or BFP16. exp has ceil(n/64) entries.
 */
int quire_codec_exponents(enum quire_format fmt, size_t n, const float *x, const float *resid,
			  int8_t *exp);

/*
 * Encode pass.
 * BFP8/BFP16: q (int8_t[n] or int16_t[n]) from x. With shared_exp != NULL the
 *   given exponents are used (a reduction); with shared_exp == NULL each block
 *   uses its own exponent, written to exp_out. resid != NULL: error feedback,
 *   resid[n] is read and updated.
 * FP16: q is uint16_t[n] (binary16); shared_exp, exp_out and resid must be NULL.
 * Exponents outside [-126, 127] give QUIRE_ERR_RANGE, with nothing written.
 */
int quire_codec_encode(enum quire_format fmt, size_t n, const float *x, float *resid,
		       const int8_t *shared_exp, int8_t *exp_out, void *q);

/*
 * Decode to fp32. fmt BFP8/BFP16 with vals of val_fmt INT8, INT16 or INT32 (one
 * encoding or an exact sum of encodings); fmt FP16 with val_fmt FP16.
 * mean_w > 1 divides by mean_w in fp32 (a mean over W workers); 0 or 1: the sum.
 */
int quire_codec_decode(enum quire_format fmt, enum quire_format val_fmt, size_t n, const void *vals,
		       const int8_t *exp, uint32_t mean_w, float *y);

/*
 * acc_out = acc_in (if not NULL) + in[0] + ... + in[w-1], element-wise.
 * Integer formats (in INT8/INT16/INT32, acc INT16/INT32) are summed exactly;
 * QUIRE_ERR_OVERFLOW if a sum does not fit acc_fmt. fp16/fp32 inputs with
 * acc FP32 or FP16 are added in fp32 in the fixed order acc_in, in[0], in[1], ...
 * (a NaN sum is the one quiet NaN; an FP16 acc is rounded once, at the end).
 */
int quire_codec_sum(enum quire_format in_fmt, enum quire_format acc_fmt, uint32_t w, size_t n,
		    const void *const *in, const void *acc_in, void *acc_out);

/* out[b] = max over w of in[w][b]: the shared exponents of a reduction. */
int quire_codec_max_exponents(uint32_t w, size_t blocks, const int8_t *const *in, int8_t *out);

/*
 * A whole W-worker all-reduce computed on this host, bit for bit what W cards
 * return: for BFP8/BFP16, local exponents, shared exponents (max), encode with
 * them, exact int32 sum, decode; for FP16, encode, then fp32 sum in worker
 * order; for FP32, fp32 sum in worker order. op SUM or MEAN.
 * resid: NULL, or W residual arrays (error feedback, BFP only), updated.
 */
int quire_codec_allreduce(enum quire_format fmt, enum quire_reduce_op op, uint32_t w, size_t n,
			  const float *const *x, float *const *resid, float *y);

/* Bytes of the values of n elements in format fmt (0 for an unknown format). */
size_t quire_format_bytes(enum quire_format fmt, size_t n);
/* "fp32", "bfp8", ...; NULL for an unknown id. And back: 0 if unknown. */
const char *quire_format_name(enum quire_format fmt);
enum quire_format quire_format_parse(const char *name);

/* ---- Encoded tensor files (docs/codec-file.md) -------------------------------- */

struct quire_encoded {
	enum quire_format format;     /* FP16, BFP8 or BFP16 */
	enum quire_format val_format; /* FP16, INT8, INT16 or INT32 */
	uint32_t workers;             /* 1, or W for an exact sum of W encodings */
	uint64_t n;                   /* elements */
	int8_t *exp;                  /* ceil(n/64) block exponents (BFP), else NULL */
	void *vals;                   /* n values of val_format */
};

/* Write / read an encoded tensor file. Reading checks the header, sizes and CRC:
 * QUIRE_ERR_CORRUPT for a malformed file, QUIRE_ERR_IO for a system error
 * (errno kept). quire_encoded_read allocates; quire_encoded_free releases.
 * The reader takes exactly the headers the writer writes; the writer refuses
 * (QUIRE_ERR_INVALID) the rest: n >= 1, 1 <= workers <= QUIRE_MAX_WORKERS, fp16
 * only with workers = 1, and the value format its format and workers imply. */
int quire_encoded_write(const char *path, const struct quire_encoded *e);
int quire_encoded_read(const char *path, struct quire_encoded *e);
void quire_encoded_free(struct quire_encoded *e);
/* Why quire_encoded_read refuses the file at path (QUIRE_ERR_CORRUPT or _VERSION): the
 * field at fault and what is wrong with it, e.g. "workers: not 1 to 1024". NULL when the
 * file reads fine or cannot be read at all. */
const char *quire_encoded_fault(const char *path);

/* ---- Cards: contexts, buffers, requests ------------------------------------------------ */

struct quire_ctx;
struct quire_buf;
struct quire_req;

/*
 * Open a backend by URI:
 *   "cpu"         no card: the operations run on this CPU (same bits as a card);
 *   "sim"         start a simulated card process (quire-sim) for this context,
 *                 ended by quire_close;
 *   "sim:PATH"    connect to a running quire-sim serving the Unix socket PATH;
 *   "sim:cluster" inside quire-cluster: the card of this process's rank (QUIRE_RANK or
 *                 mpirun's OMPI_COMM_WORLD_RANK / PMIX_RANK / PMI_RANK);
 *   "sim:inproc"  a simulated card inside this process (tests, tools);
 *   "sim:inproc,net=DIR,addr=N[,drop=P,corrupt=P,seed=S]"  the same with a network
 *                 port at address N of the simulated network in directory DIR
 *                 (drop, corrupt: injected faults per frame, for tests).
 * A context serves one thread at a time; use one context per thread.
 */
int quire_open(const char *uri, struct quire_ctx **ctx);
/*
 * Why this thread's last quire_open failed, where the backend can say more than the status:
 * for a card process (sim:PATH, sim:cluster, sim), QUIRE_ERR_TIMEOUT "card at PATH did not
 * answer the attach within N ms" and QUIRE_ERR_BUSY "card at PATH is in use by pid P since
 * HH:MM:SS (N s), waited N ms for it" (how long: QUIRE_ATTACH_WAIT_MS, default 30000;
 * docs/failures.md). NULL when that open succeeded or has nothing to add; valid until the
 * thread's next quire_open.
 */
const char *quire_open_fault(void);
/* Close a context. Free its requests first (quire_req_free); buffers still allocated
 * are freed here (their handles become invalid); a card process it started is ended. */
void quire_close(struct quire_ctx *ctx);

/*
 * How long the card may show no progress (no completion, no heartbeat) while it has
 * work, in ms: default 5000, or QUIRE_TIMEOUT_MS from the environment; -1: no limit.
 * A slow card is waited for; one that stands still this long is unresponsive: the call
 * that finds it out returns QUIRE_ERR_TIMEOUT, and every later call on the context
 * fails at once with QUIRE_ERR_UNRESPONSIVE (close it and open it again). Freeing
 * requests, communicators and the context then waits for nothing (docs/failures.md).
 */
void quire_set_timeout(struct quire_ctx *ctx, int timeout_ms);
/*
 * Make the context usable again after its card stopped answering, if the card answers
 * now: requests still in flight complete with QUIRE_ERR_UNRESPONSIVE, the card drops
 * whatever it had of them, and communicators made on this context are gone (free them
 * and make new ones); buffers are kept. QUIRE_OK; QUIRE_ERR_TIMEOUT if the card still
 * does not answer within the timeout (the context stays unresponsive); QUIRE_ERR_PEER if
 * it is gone (reopen). On a context that is working, the same: a fresh start.
 */
int quire_reset(struct quire_ctx *ctx);
#define QUIRE_WAIT_DEFAULT    (-2)
#define QUIRE_WAIT_FOREVER    (-1)

#define QUIRE_INFO_MAX_BLOCKS 16
struct quire_info {
	char backend[16];    /* "cpu", "sim" */
	char board[48];      /* what the card says it is */
	uint32_t if_version; /* QUIRE_INTERFACE_VERSION the card implements */
	uint32_t fw_build;   /* firmware build id (git commit prefix) */
	uint32_t fw_state;   /* QUIRE_FW_STATE_* */
	uint32_t caps;       /* QUIRE_CAP_* */
	uint32_t clock_hz;
	uint64_t hw_build;
	uint64_t mem_bytes;
	uint32_t cmds_ok, cmds_err;
	struct {                     /* the card's network port (all 0 without one) */
		uint32_t link, addr; /* link 1: up; addr: the port's network address */
		uint32_t tx_frames, rx_frames, rx_errors, tx_drops;
		uint64_t tx_bytes; /* frame bytes sent, headers included */
		/* frames the port's link sent again after a loss (0 where the card does not
		 * count them: the RTL card's link is its harness's) */
		uint64_t retransmits;
	} net;
	uint32_t n_blocks; /* register blocks, as walked from BAR offset 0 */
	struct {
		uint32_t offset, type, version;
	} blocks[QUIRE_INFO_MAX_BLOCKS];
};
int quire_get_info(struct quire_ctx *ctx, struct quire_info *info);
/* The card's own clock, in ms of card time (its cycle counter over its clock rate): what a
 * communicator's timeout and the context's timeout count, which a simulated card may run
 * slower than the wall clock. QUIRE_ERR_NOT_SUPPORTED where the backend cannot read it (cpu:
 * no card; kdrv: not in uAPI 1.0); as quire_get_info when the card does not answer. */
int quire_card_clock_ms(struct quire_ctx *ctx, int64_t *ms);

/* What a context's backend offers, whatever it is called. */
#define QUIRE_BACKEND_CAP_CARD     (1u << 0) /* a card runs the operations (timeouts, quire_reset) */
#define QUIRE_BACKEND_CAP_CARD_NET (1u << 1) /* communicators run over the cards' own network */
#define QUIRE_BACKEND_CAP_DMABUF   (1u << 2) /* buffers shared as dma-bufs (quire_buf_export) */
uint32_t quire_backend_caps(const struct quire_ctx *ctx);
/* Name of a register block type, e.g. "cmdq"; "?" if unknown. */
const char *quire_block_name(uint32_t type);

/* Memory the card can reach. Freed buffers must not be in use by a request. */
int quire_buf_alloc(struct quire_ctx *ctx, size_t bytes, struct quire_buf **buf);
void *quire_buf_ptr(const struct quire_buf *buf);
size_t quire_buf_size(const struct quire_buf *buf);
void quire_buf_free(struct quire_buf *buf);

/*
 * Buffers shared with another context, or with another device, as Linux dma-buf file
 * descriptors (DRM PRIME), on backends with QUIRE_BACKEND_CAP_DMABUF (kdrv); on the others
 * QUIRE_ERR_NOT_SUPPORTED, with nothing done.
 * quire_buf_export: *fd is a new dma-buf of buf's memory (close-on-exec, readable and
 *   writable), the caller's to close; -1 on error. The memory lives as long as the fd or
 *   anything imported from it, after quire_buf_free too. Its size is buf's, rounded up
 *   to whole pages.
 * quire_buf_import: a buffer of ctx over the dma-buf fd, which stays the caller's (the
 *   buffer holds its own reference): its size is the dma-buf's, its pointer a mapping of
 *   it in this process, and operations on ctx use it as any buffer of ctx, the card
 *   reading and writing the shared memory itself. QUIRE_ERR_INVALID if fd is not a
 *   dma-buf; QUIRE_ERR_IO if its exporter does not let it be mapped. Importing a buffer
 *   into the context it came from gives the same memory (the same pointer).
 * A dma-buf of a card's driver is only good for cards and devices of the same machine.
 */
int quire_buf_export(struct quire_buf *buf, int *fd);
int quire_buf_import(struct quire_ctx *ctx, int fd, struct quire_buf **buf);

/* A place in a buffer. */
struct quire_ref {
	struct quire_buf *buf;
	size_t offset;
};

/*
 * One operation, as a command descriptor says it (include/quire/cmd.h, one
 * field each), with buffers instead of addresses. Unused references stay
 * {NULL, 0}. Checked in full before it reaches any card.
 */
struct quire_op {
	enum quire_opcode opcode;
	uint32_t flags; /* QUIRE_CMD_F_* */
	enum quire_format format, val_format;
	uint32_t count, workers;
	struct quire_ref src, dst, exp, aux;
	uint64_t stride;
};

/*
 * Submit without waiting for the operation. On success *req is in flight; free it with
 * quire_req_free. With the card's queue full it waits for room, as long as the card makes
 * progress by its own clock (a card that stands still for the context's timeout fails the
 * context: QUIRE_ERR_TIMEOUT, docs/failures.md).
 */
int quire_submit(struct quire_ctx *ctx, const struct quire_op *op, struct quire_req **req);
/* QUIRE_ERR_BUSY while in flight, else the operation's final status (or the context's
 * failure: QUIRE_ERR_TIMEOUT when this call finds the card unresponsive, then
 * QUIRE_ERR_UNRESPONSIVE; QUIRE_ERR_PEER once the card is gone). */
int quire_test(struct quire_req *req);
/* The final status; QUIRE_ERR_TIMEOUT if still in flight after timeout_ms of wall time
 * (the caller's patience: the context stays usable), or sooner when the card stopped
 * making progress (QUIRE_WAIT_DEFAULT: only then); QUIRE_ERR_PEER if the card is gone. */
int quire_wait(struct quire_req *req, int timeout_ms);
/* MLP_SCORE: the chosen candidate; INFO: bytes written. */
uint32_t quire_req_result(const struct quire_req *req);
/* Card cycles the operation took (0 on the cpu backend). */
uint32_t quire_req_cycles(const struct quire_req *req);
/* Which descriptor field an error is about (enum quire_detail). */
uint32_t quire_req_detail(const struct quire_req *req);
/* Release a request; one still in flight is waited for first (at most the context's
 * timeout, not at all on an unresponsive card) and otherwise abandoned. */
void quire_req_free(struct quire_req *req);

/* Submit, wait, free: the final status; *result as quire_req_result (may be NULL). */
int quire_run(struct quire_ctx *ctx, const struct quire_op *op, uint32_t *result);

/* ---- The scoring network for a scheduler (docs/sched-api.md) -------------------------------- */

/*
 * A model image (include/quire/mlp.h, docs/mlp.md) loaded onto a context's card, and batches
 * of candidates scored with it: per call up to QUIRE_MLP_MAX_CANDIDATES (1024) rows of int8
 * features plus a feasibility byte each give int32 scores and the feasible candidate with
 * the largest score (ties to the lowest index). The arithmetic is docs/contract-mlp.md's,
 * run by the card's MLP engine (MLP_LOAD, MLP_SCORE): the same bits on every backend.
 * A card holds one model at a time: a model used after another MLP_LOAD on its context (or a
 * quire_reset) is loaded again before it scores. A model belongs to its context's thread.
 */
struct quire_model;

/*
 * Would a card take this image? QUIRE_OK, or the status MLP_LOAD would end with
 * (QUIRE_ERR_CORRUPT, _VERSION, _SHAPE, _RANGE; QUIRE_ERR_SIZE past
 * QUIRE_MLP_MAX_IMAGE_BYTES), with *offset the byte at fault and why (may be NULL) a line
 * such as "offset 44: layer 0 bias[3] = 1073741824, |b| must be below 2^30".
 */
int quire_model_check(const void *image, size_t len, size_t *offset, char *why, size_t whylen);
/* A model file read into *image (malloc'd, the caller frees) and checked as above;
 * QUIRE_ERR_IO (errno kept) when it cannot be read; why says what is wrong. */
int quire_model_read(const char *path, void **image, size_t *len, char *why, size_t whylen);
/* Check the image, copy it to the card's memory and MLP_LOAD it: *model, or the status of
 * the check (quire_model_check says where) or of the card. */
int quire_model_load(struct quire_ctx *ctx, const void *image, size_t len,
		     struct quire_model **model);
/* The model's input width n_0: the bytes of one candidate's feature row. 0 for NULL. */
uint32_t quire_model_inputs(const struct quire_model *model);
/*
 * Score count candidates: features[k * width + i] int8, feasible[k] != 0 for the candidates
 * that may be chosen. scores (count int32, may be NULL) and *choice (may be NULL) are
 * written. QUIRE_OK; QUIRE_ERR_NO_FEASIBLE when none is feasible (the "none" answer: scores
 * written, *choice not); QUIRE_ERR_SHAPE when width is not the model's input width;
 * QUIRE_ERR_SIZE for count 0 or above 1024; QUIRE_ERR_INVALID for a NULL model (none
 * loaded), features or feasible; else the card's status (QUIRE_ERR_TIMEOUT, ...).
 */
int quire_model_score(struct quire_model *model, uint32_t count, const int8_t *features,
		      uint32_t width, const uint8_t *feasible, int32_t *scores, uint32_t *choice);
/* Card cycles of the last quire_model_score (0 on the cpu backend). */
uint32_t quire_model_cycles(const struct quire_model *model);
/* Free the model's buffers (the card's engine keeps the weights until the next load).
 * Free models before quire_close of their context, as requests. */
void quire_model_free(struct quire_model *model);

/* ---- Collectives across ranks ------------------------------------------------------------ */

/*
 * A communicator: W ranks, each with its own context. On cards (sim), the
 * cards run the collectives over their own network ports; on the cpu backend
 * MPI carries them. quire_comm_from_mpi (<quire_mpi.h>, libquire_mpi) makes
 * either from an MPI communicator; quire_comm_create makes a card one from an
 * address table any bootstrap can exchange. A communicator is used by one
 * thread at a time; every rank calls the same collectives in the same order.
 * After a collective fails on cards (a peer timed out, a frame was lost), the
 * communicator only reports QUIRE_ERR_PEER: free it and make a new one.
 */
struct quire_comm;

/* The network address of the context's card; QUIRE_ERR_NOT_SUPPORTED without one. */
int quire_card_address(struct quire_ctx *ctx, uint16_t *addr);

struct quire_comm_config {
	int rank, size;
	const uint16_t *addrs; /* each rank's card address (quire_card_address), in rank order */
	uint16_t id;           /* the same on every rank, unused on each member card; from 1 */
	int timeout_ms; /* how long a card waits for a silent peer; 0: QUIRE_TIMEOUT_MS or 5000 */
};
/* A communicator of cards; every rank calls this with its own rank. */
int quire_comm_create(struct quire_ctx *ctx, const struct quire_comm_config *cfg,
		      struct quire_comm **out);
/*
 * A communicator of cards without MPI: the W ranks meet in directory dir (which
 * must exist; one communicator per directory, e.g. $QUIRE_CLUSTER_DIR inside
 * quire-cluster), trading their cards' addresses through files addr-RANK and
 * ready-RANK that stay there (quire-cluster removes its directory with them).
 * QUIRE_ERR_TIMEOUT when some rank has not come within wait_ms.
 */
int quire_comm_rendezvous(struct quire_ctx *ctx, const char *dir, int rank, int size, int wait_ms,
			  struct quire_comm **out);

/* A communicator of this rank alone (as MPI_COMM_SELF): collectives on one worker. */
int quire_comm_self(struct quire_ctx *ctx, struct quire_comm **out);

int quire_comm_rank(const struct quire_comm *comm);
int quire_comm_size(const struct quire_comm *comm);
void quire_comm_free(struct quire_comm *comm);

/*
 * Options of a communicator's later all-reduces, QUIRE_COMM_OPT_* or'ed (none at first).
 * Every rank must set the same: a bfp all-reduce whose ranks' options differ fails on every
 * rank with QUIRE_ERR_MISMATCH, before any value is summed or any residual moves.
 *
 * QUIRE_COMM_OPT_REQUANT, the requantized all-gather (bfp8 and bfp16 all-reduces; others
 * and reduce-scatter are unchanged): the owner of each segment requantizes its reduced
 * part to the all-reduce's format with its own block exponents before the all-gather, so
 * the all-gather sends int8 (bfp8) and an exponent byte per block instead of int16 sums,
 * and every rank returns the owner's requantized values (docs/contract-bfp.md). With error
 * feedback (args->ef), the owner's residual of its segment is kept in the quire_ef after
 * the tensor's own (quire_ef_owner_len) and carried into the next all-reduce: use one
 * quire_ef per tensor per communicator. bfp8 at W = 4: 2.04 bytes per element on the wire,
 * not 2.77 (quire_allreduce_wire_bytes_opt).
 */
#define QUIRE_COMM_OPT_REQUANT 1u
/* QUIRE_OK; QUIRE_ERR_INVALID for NULL or an unknown option bit. Not while a collective
 * of comm is in flight. */
int quire_comm_set_options(struct quire_comm *comm, unsigned options);
unsigned quire_comm_options(const struct quire_comm *comm);

/*
 * The part of a count-element vector that rank k owns after a reduce-scatter:
 * W contiguous chunks of whole 64-element blocks, the first (blocks % W)
 * chunks one block longer. This is also the order of fp16/fp32 sums: chunk k
 * adds ranks k+1, k+2, ..., k (mod W), the order of a ring reduce-scatter.
 */
void quire_comm_chunk(size_t count, int size, int k, size_t *offset, size_t *len);

/*
 * Error-feedback state of one gradient tensor on one rank: its residual, in
 * memory the card reaches (on a card it never leaves the card's side of the
 * collective). Starts at +0.0; quire_ef_reset zeroes it again.
 */
struct quire_ef;
int quire_ef_create(struct quire_ctx *ctx, size_t count, struct quire_ef **ef);
void quire_ef_reset(struct quire_ef *ef);
/*
 * The residual, count fp32 values, copied out (read) or in (write): to carry error
 * feedback across a change of layout, as when a trainer regroups its gradients (PyTorch
 * DDP rebuilds its buckets). Not while a collective with ef is in flight. QUIRE_OK;
 * QUIRE_ERR_INVALID for NULL; QUIRE_ERR_SIZE if count is not the ef's.
 */
int quire_ef_read(const struct quire_ef *ef, float *dst, size_t count);
int quire_ef_write(struct quire_ef *ef, const float *src, size_t count);
/*
 * The owner residual (QUIRE_COMM_OPT_REQUANT): as many fp32 as this rank's segment of the
 * tensor (quire_comm_chunk), 0 until a requantized all-reduce with ef first ran; it starts
 * at +0.0, again whenever a collective with another segment length or without the option
 * uses ef, and with quire_ef_reset. quire_ef_read_owner copies it out (count:
 * quire_ef_owner_len); quire_ef_write_owner makes src the owner residual, of count
 * elements (this rank's segment: the next requantized all-reduce's, or it starts over at
 * +0.0), as quire_ef_write does the tensor's.
 */
size_t quire_ef_owner_len(const struct quire_ef *ef);
int quire_ef_read_owner(const struct quire_ef *ef, float *dst, size_t count);
int quire_ef_write_owner(struct quire_ef *ef, const float *src, size_t count);
void quire_ef_free(struct quire_ef *ef);

struct quire_allreduce_args {
	enum quire_format format; /* BFP8, BFP16: exact; FP16, FP32: fixed order; INT32: exact */
	enum quire_reduce_op op;  /* SUM or MEAN (MEAN: not for INT32) */
	size_t count;
	struct quire_ref src; /* count fp32 (int32 for INT32) */
	struct quire_ref dst; /* count fp32 (int32); may be src */
	struct quire_ef *ef;  /* BFP only: error feedback, or NULL */
};

/*
 * All-reduce. BFP: every rank agrees the block exponents (a max), encodes with
 * them, the integer values are summed exactly and decoded: every rank, every
 * rank order and every backend gets the same bits. On the cpu backend over MPI
 * the collectives run to completion inside the call; *req is then already done.
 */
int quire_allreduce(struct quire_comm *comm, const struct quire_allreduce_args *args,
		    struct quire_req **req);
/*
 * Bytes one rank sends, on average over the ranks, for an all-reduce of count
 * elements over W ranks on the cards' network, frame headers not counted: the
 * ring's reduce-scatter (step 0 one contribution in its own type, then partial
 * sums: bfp8 int16 up to 258 ranks, bfp16 int32, int32 int64) and all-gather
 * (the finished sums), and for BFP the exponents' max. bfp8, W=4: 2.77 bytes per
 * element against fp32's 6.
 */
uint64_t quire_allreduce_wire_bytes(enum quire_format fmt, int size, size_t count);
/* The same for a communicator with options (QUIRE_COMM_OPT_*): with REQUANT a bfp
 * all-gather carries the format's values and an exponent byte per block. */
uint64_t quire_allreduce_wire_bytes_opt(enum quire_format fmt, int size, size_t count,
					unsigned options);

/* count elements of src all-reduced; dst gets this rank's chunk (quire_comm_chunk). */
int quire_reduce_scatter(struct quire_comm *comm, const struct quire_allreduce_args *args,
			 struct quire_req **req);
/* bytes from root's buf to every rank's buf. */
int quire_broadcast(struct quire_comm *comm, struct quire_ref buf, size_t bytes, int root,
		    struct quire_req **req);
/* bytes from every rank's src into dst, W x bytes in rank order. */
int quire_allgather(struct quire_comm *comm, struct quire_ref src, struct quire_ref dst,
		    size_t bytes, struct quire_req **req);
int quire_barrier(struct quire_comm *comm, struct quire_req **req);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_H */
