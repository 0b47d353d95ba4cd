// SPDX-License-Identifier: MIT
/*
 * Data-parallel training with quire: one process per rank (launched by
 * mpirun), each with its own quire context, its shard of every batch, and its
 * gradients all-reduced by quire_allreduce in one format (fp32, fp16, bfp8,
 * bfp16, optionally with error feedback, and with the requantized all-gather).
 * Every rank ends every step with the same bits, which the program checks after
 * each epoch.
 *
 *   mpirun -np 4 quire-train-dp --format bfp8 --ef --epochs 5 --out results/demo
 *
 * Rank 0 prints one line per epoch and writes OUT/LABEL.csv.
 */
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmnist/idx.h"
#include "fmnist/loop.h"
#include "fmnist/mlp.h"
#include "quire_mpi.h"

struct options {
	const char *backend, *format, *data, *out;
	int ef, requant;
	unsigned epochs, hidden, batch;
	float lr;
	size_t train_limit;
	uint64_t seed;
};

static int rank, size;

static void die(const char *fmt, const char *arg)
{
	if (rank == 0) {
		fprintf(stderr, "quire-train-dp: ");
		fprintf(stderr, fmt, arg);
		fprintf(stderr, "\n");
	}
	MPI_Finalize();
	exit(2);
}

static uint64_t hash_params(const struct mlp *m)
{
	uint64_t h = 1469598103934665603ull;
	const uint8_t *p = (const uint8_t *)m->params;
	for (size_t i = 0; i < m->n_params * sizeof(float); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static const char usage[] =
    "Usage: mpirun -np W quire-train-dp [OPTIONS]\n"
    "Data-parallel training of an MLP on Fashion-MNIST, gradients all-reduced by quire.\n\n"
    "  --format F       fp32, fp16, bfp8 or bfp16 (default bfp8)\n"
    "  --ef             error feedback (bfp formats)\n"
    "  --requant        the requantized all-gather (bfp formats; with --ef the owners keep\n"
    "                   residuals too): fewer bytes on the wire\n"
    "  --backend URI    quire backend of every rank (default cpu, MPI carries the gradients);\n"
    "                   sim:cluster inside quire-cluster: each rank's own simulated card, the\n"
    "                   cards all-reduce over their network\n"
    "  --epochs E       (default 5)    --hidden H (default 128)   --batch B per rank (default 32)\n"
    "  --lr LR          (default 0.1)  --seed S (default 1)\n"
    "  --train-limit N  use the first N training images only\n"
    "  --data DIR       Fashion-MNIST (default " FMNIST_DEFAULT_DIR ")\n"
    "  --out DIR        rank 0 writes DIR/LABEL.csv (default results/demo)\n";

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
	    {"format", required_argument, 0, 'f'}, {"ef", no_argument, 0, 'E'},
	    {"requant", no_argument, 0, 'R'},      {"backend", required_argument, 0, 'b'},
	    {"epochs", required_argument, 0, 'e'}, {"hidden", required_argument, 0, 'H'},
	    {"batch", required_argument, 0, 'B'},  {"lr", required_argument, 0, 'l'},
	    {"seed", required_argument, 0, 's'},   {"train-limit", required_argument, 0, 't'},
	    {"data", required_argument, 0, 'd'},   {"out", required_argument, 0, 'o'},
	    {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		long v = 0;
		if (c == 'e' || c == 'H' || c == 'B' || c == 's' || c == 't') {
			char *end;
			v = strtol(optarg, &end, 10);
			if (*end || v < (c == 's' || c == 't' ? 0 : 1) || v > 100000000)
				die("bad number '%s'", optarg);
		}
		switch (c) {
		case 'f':
			o->format = optarg;
			break;
		case 'E':
			o->ef = 1;
			break;
		case 'R':
			o->requant = 1;
			break;
		case 'b':
			o->backend = optarg;
			break;
		case 'e':
			o->epochs = (unsigned)v;
			break;
		case 'H':
			o->hidden = (unsigned)v;
			break;
		case 'B':
			o->batch = (unsigned)v;
			break;
		case 's':
			o->seed = (uint64_t)v;
			break;
		case 't':
			o->train_limit = (size_t)v;
			break;
		case 'd':
			o->data = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'l':
			o->lr = strtof(optarg, NULL);
			if (!(o->lr > 0 && o->lr < 100))
				die("bad learning rate '%s'", optarg);
			break;
		case 'h':
			if (rank == 0)
				fputs(usage, stdout);
			MPI_Finalize();
			exit(0);
		default:
			die("unknown option or missing value: %s (see --help)", argv[optind - 1]);
		}
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	struct options o = {
	    "cpu", "bfp8", FMNIST_DEFAULT_DIR, "results/demo", 0, 0, 5, 128, 32, 0.1f, 0, 1};
	parse(argc, argv, &o);
	enum quire_format fmt = quire_format_parse(o.format);
	if (fmt != QUIRE_FMT_FP32 && fmt != QUIRE_FMT_FP16 && fmt != QUIRE_FMT_BFP8 &&
	    fmt != QUIRE_FMT_BFP16)
		die("unknown format '%s' (fp32, fp16, bfp8, bfp16)", o.format);
	if (o.ef && (fmt == QUIRE_FMT_FP32 || fmt == QUIRE_FMT_FP16))
		die("--ef applies to bfp8 and bfp16, not %s", o.format);
	if (o.requant && (fmt == QUIRE_FMT_FP32 || fmt == QUIRE_FMT_FP16))
		die("--requant applies to bfp8 and bfp16, not %s", o.format);
	unsigned options = o.requant ? QUIRE_COMM_OPT_REQUANT : 0;

	struct quire_ctx *ctx;
	struct quire_comm *comm;
	int st = quire_open(o.backend, &ctx);
	if (st)
		die("cannot open the backend: %s",
		    quire_open_fault() ? quire_open_fault() : quire_strerror(st));
	st = quire_comm_from_mpi(ctx, MPI_COMM_WORLD, &comm);
	if (st == QUIRE_ERR_NOT_SUPPORTED)
		die("backend '%s': the card has no network port (start cards with quire-cluster)",
		    o.backend);
	if (!st)
		st = quire_comm_set_options(comm, options);
	if (st)
		die("cannot make a communicator: %s", quire_strerror(st));

	struct fmnist_set tr, te;
	if (fmnist_load(o.data, "train", &tr) || fmnist_load(o.data, "t10k", &te))
		die("cannot load Fashion-MNIST from %s", o.data);
	size_t train_n = o.train_limit && o.train_limit < tr.count ? o.train_limit : tr.count;
	size_t global = (size_t)o.batch * (size_t)size, steps = train_n / global;
	if (steps == 0)
		die("fewer training images than one step needs (%s)", "--train-limit");

	struct mlp m;
	mlp_init(&m, FMNIST_PIXELS, o.hidden, FMNIST_CLASSES, o.seed);
	size_t n = m.n_params;
	struct quire_buf *grad;
	struct quire_ef *ef = NULL;
	if (quire_buf_alloc(ctx, n * sizeof(float), &grad) ||
	    (o.ef && quire_ef_create(ctx, n, &ef)))
		die("out of memory for %s", "the gradients");
	size_t *order = malloc(train_n * sizeof(size_t));
	for (size_t i = 0; i < train_n; i++)
		order[i] = i;
	char label[32];
	snprintf(label, sizeof(label), "%s%s%s", o.format, o.ef ? "+ef" : "",
		 o.requant ? "+rq" : "");
	FILE *csv = NULL;
	if (rank == 0) {
		if (loop_make_dirs(o.out) != 0)
			die("cannot create %s", o.out);
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.csv", o.out, label);
		if (!(csv = fopen(path, "w")))
			die("cannot write %s", path);
		fprintf(csv, "format,epoch,train_loss,test_accuracy,wire_bytes_per_rank,wire_bytes_"
			     "per_element,seconds\n");
		printf("quire-train-dp: %d ranks, backend %s, %s, MLP 784-%u-10, %zu params, "
		       "%u x %d samples per step\n",
		       size, o.backend, label, o.hidden, n, o.batch, size);
	}
	/* Wire bytes: counted by the card's network port where there is one, else the ring's
	 * model (quire_allreduce_wire_bytes_opt) for the MPI transport. */
	struct quire_info info;
	int measured = quire_get_info(ctx, &info) == QUIRE_OK && info.net.link == 1;
	uint64_t rs = o.seed + 12345, wire = 0, tx0 = measured ? info.net.tx_bytes : 0;
	double t0 = loop_seconds();
	for (unsigned e = 0; e < o.epochs; e++) {
		loop_shuffle(order, train_n, &rs); /* the same order on every rank */
		double loss = 0;
		for (size_t s = 0; s < steps; s++) {
			loss += mlp_gradient(&m, tr.images, tr.labels,
					     order + s * global + (size_t)rank * o.batch, o.batch,
					     quire_buf_ptr(grad));
			struct quire_allreduce_args a = {fmt,       QUIRE_OP_MEAN, n,
							 {grad, 0}, {grad, 0},     ef};
			struct quire_req *req;
			st = quire_allreduce(comm, &a, &req);
			if (!st)
				st = quire_wait(req, QUIRE_WAIT_DEFAULT);
			quire_req_free(req);
			if (st)
				die("all-reduce failed: %s", quire_strerror(st));
			if (!measured)
				wire += quire_allreduce_wire_bytes_opt(fmt, size, n, options);
			mlp_step(&m, quire_buf_ptr(grad), o.lr);
		}
		if (measured && quire_get_info(ctx, &info) == QUIRE_OK)
			wire = info.net.tx_bytes - tx0;
		double total_loss;
		MPI_Allreduce(&loss, &total_loss, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		/* Determinism, checked: every rank holds the same bits. */
		uint64_t h = hash_params(&m), lo, hi;
		MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
		MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
		if (lo != hi)
			die("ranks hold different parameters after epoch %s: a bug", "(see above)");
		if (rank == 0) {
			double acc = mlp_accuracy(&m, te.images, te.labels, te.count);
			double mean_loss = total_loss / (double)(steps * global);
			/* Rounded once: this line, the CSV and run_demo.sh's table agree. */
			char per_elem[32];
			snprintf(per_elem, sizeof(per_elem), "%.3f",
				 (double)wire / (double)(steps * (e + 1)) / (double)n);
			printf("%-8s epoch %u/%u  train loss %.4f  test accuracy %6.2f%%  "
			       "wire %8.2f MB/rank (%s B/elem%s)  %.1fs\n",
			       label, e + 1, o.epochs, mean_loss, 100 * acc, (double)wire / 1e6,
			       per_elem, measured ? ", counted by the card" : ", ring model",
			       loop_seconds() - t0);
			fflush(stdout);
			fprintf(csv, "%s,%u,%.6f,%.5f,%llu,%s,%.2f\n", label, e + 1, mean_loss, acc,
				(unsigned long long)wire, per_elem, loop_seconds() - t0);
			fflush(csv);
		}
	}
	if (csv)
		fclose(csv);
	free(order);
	quire_ef_free(ef);
	quire_buf_free(grad);
	mlp_free(&m);
	fmnist_free(&tr);
	fmnist_free(&te);
	quire_comm_free(comm);
	quire_close(ctx);
	MPI_Finalize();
	return 0;
}
