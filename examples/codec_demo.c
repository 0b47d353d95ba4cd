// SPDX-License-Identifier: MIT
/*
 * quire's codec on real training: data-parallel SGD of an MLP on Fashion-MNIST
 * with W simulated workers. Every step each worker computes its gradient on
 * its share of the batch, and the W gradients are all-reduced through
 * quire_codec_allreduce in one format: exactly the arithmetic W cards perform
 * (agreed block exponents, exact integer sums). Same seed, data order and
 * epochs for every format; reported: test accuracy, gradient error against
 * the exact mean, encoded bytes per element.
 *
 * The multi-card version (gradients exchanged by simulated cards over their
 * network ports) replaces this one once the card simulator and collectives exist.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmnist/idx.h"
#include "fmnist/loop.h"
#include "fmnist/mlp.h"
#include "quire.h"

struct options {
	unsigned workers, epochs, hidden, batch;
	float lr;
	size_t train_limit;
	uint64_t seed;
	const char *data, *out;
};

struct variant {
	const char *label;
	enum quire_format fmt;
	int error_feedback;
	double bytes_per_elem; /* encoded size: values plus block exponents */
};

static const struct variant variants[] = {
    {"fp32", QUIRE_FMT_FP32, 0, 4.0},
    {"fp16", QUIRE_FMT_FP16, 0, 2.0},
    {"bfp16", QUIRE_FMT_BFP16, 0, 2.0 + 1.0 / QUIRE_BFP_BLOCK},
    {"bfp8", QUIRE_FMT_BFP8, 0, 1.0 + 1.0 / QUIRE_BFP_BLOCK},
    {"bfp8+ef", QUIRE_FMT_BFP8, 1, 1.0 + 1.0 / QUIRE_BFP_BLOCK},
};
#define N_VARIANTS (sizeof(variants) / sizeof(variants[0]))

struct result {
	double test_acc, loss, grad_err, drift, seconds;
	double *epoch_acc, *epoch_loss;
};

static const char usage[] =
    "Usage: quire-codec-demo [OPTIONS]\n"
    "Data-parallel training on Fashion-MNIST with gradients all-reduced through quire's codec\n"
    "(fp32, fp16, bfp16, bfp8, bfp8 with error feedback), W simulated workers.\n\n"
    "  --workers W      simulated workers (default 4)\n"
    "  --epochs E       epochs per format (default 5)\n"
    "  --hidden H       hidden units (default 128)\n"
    "  --batch B        samples per worker per step (default 32)\n"
    "  --lr LR          learning rate (default 0.1)\n"
    "  --train-limit N  use only the first N training images (default all)\n"
    "  --seed S         initialisation and shuffling seed (default 1)\n"
    "  --data DIR       Fashion-MNIST directory (default " FMNIST_DEFAULT_DIR ")\n"
    "  --out DIR        results directory (default results/codec-demo)\n";

static int train(const struct options *o, const struct variant *v, const struct fmnist_set *tr,
		 const struct fmnist_set *te, struct result *res)
{
	struct mlp m;
	if (mlp_init(&m, FMNIST_PIXELS, o->hidden, FMNIST_CLASSES, o->seed))
		return -1;
	size_t n = m.n_params, w = o->workers, train_n = tr->count;
	if (o->train_limit && o->train_limit < train_n)
		train_n = o->train_limit;
	float **grads = calloc(w, sizeof(*grads)), **resid = calloc(w, sizeof(*resid));
	float *avg = malloc(n * sizeof(float));
	size_t *order = malloc(train_n * sizeof(size_t));
	/* Running sums of what was applied and of the exact means: error feedback keeps them close.
	 */
	double *sum_applied = calloc(n, sizeof(double)), *sum_exact = calloc(n, sizeof(double));
	int rc = -1;
	if (!grads || !resid || !avg || !order || !sum_applied || !sum_exact)
		goto out;
	for (size_t k = 0; k < w; k++)
		if (!(grads[k] = malloc(n * sizeof(float))) ||
		    !(resid[k] = calloc(n, sizeof(float))))
			goto out;
	for (size_t i = 0; i < train_n; i++)
		order[i] = i;
	uint64_t rs = o->seed + 12345;
	size_t global = (size_t)o->batch * w, steps = train_n / global;
	double err_sum = 0, t0 = loop_seconds();
	size_t err_count = 0;
	for (unsigned e = 0; e < o->epochs; e++) {
		loop_shuffle(order, train_n, &rs);
		double loss = 0;
		for (size_t s = 0; s < steps; s++) {
			for (size_t k = 0; k < w; k++)
				loss += mlp_gradient(&m, tr->images, tr->labels,
						     order + s * global + k * o->batch, o->batch,
						     grads[k]);
			int st = quire_codec_allreduce(v->fmt, QUIRE_OP_MEAN, (uint32_t)w, n,
						       (const float *const *)grads,
						       v->error_feedback ? resid : NULL, avg);
			if (st) {
				fprintf(stderr, "quire-codec-demo: all-reduce: %s\n",
					quire_strerror(st));
				goto out;
			}
			/* How far the reduced gradient is from the exact mean (in double). */
			double num = 0, den = 0;
			for (size_t i = 0; i < n; i++) {
				double exact = 0;
				for (size_t k = 0; k < w; k++)
					exact += grads[k][i];
				exact /= (double)w;
				num += (avg[i] - exact) * (avg[i] - exact);
				den += exact * exact;
				sum_applied[i] += avg[i];
				sum_exact[i] += exact;
			}
			err_sum += den > 0 ? sqrt(num / den) : 0;
			err_count++;
			mlp_step(&m, avg, o->lr);
		}
		res->epoch_loss[e] = loss / (double)(steps * global);
		res->epoch_acc[e] = mlp_accuracy(&m, te->images, te->labels, te->count);
		printf("%-8s epoch %u/%u  train loss %.4f  test accuracy %6.2f%%  "
		       "grad error %.2e  bytes/elem %.3f  %.1fs\n",
		       v->label, e + 1, o->epochs, res->epoch_loss[e], 100 * res->epoch_acc[e],
		       err_sum / (double)err_count, v->bytes_per_elem, loop_seconds() - t0);
		fflush(stdout);
	}
	res->test_acc = res->epoch_acc[o->epochs - 1];
	res->loss = res->epoch_loss[o->epochs - 1];
	res->grad_err = err_sum / (double)(err_count ? err_count : 1);
	double num = 0, den = 0;
	for (size_t i = 0; i < n; i++) {
		num += (sum_applied[i] - sum_exact[i]) * (sum_applied[i] - sum_exact[i]);
		den += sum_exact[i] * sum_exact[i];
	}
	res->drift = den > 0 ? sqrt(num / den) : 0;
	res->seconds = loop_seconds() - t0;
	rc = 0;
out:
	for (size_t k = 0; k < w; k++) {
		free(grads ? grads[k] : NULL);
		free(resid ? resid[k] : NULL);
	}
	free(grads);
	free(resid);
	free(avg);
	free(order);
	free(sum_applied);
	free(sum_exact);
	mlp_free(&m);
	return rc;
}

static int write_results(const struct options *o, struct result *res)
{
	char path[4096];
	if (loop_make_dirs(o->out) != 0) {
		fprintf(stderr, "quire-codec-demo: %s: %s\n", o->out, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/summary.csv", o->out);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "quire-codec-demo: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "format,workers,epochs,test_accuracy,train_loss,grad_rel_error,drift,"
		   "bytes_per_element,seconds\n");
	for (size_t i = 0; i < N_VARIANTS; i++)
		fprintf(f, "%s,%u,%u,%.4f,%.4f,%.3e,%.3e,%.4f,%.1f\n", variants[i].label,
			o->workers, o->epochs, res[i].test_acc, res[i].loss, res[i].grad_err,
			res[i].drift, variants[i].bytes_per_elem, res[i].seconds);
	fclose(f);
	snprintf(path, sizeof(path), "%s/epochs.csv", o->out);
	if (!(f = fopen(path, "w")))
		return -1;
	fprintf(f, "format,epoch,test_accuracy,train_loss\n");
	for (size_t i = 0; i < N_VARIANTS; i++)
		for (unsigned e = 0; e < o->epochs; e++)
			fprintf(f, "%s,%u,%.4f,%.4f\n", variants[i].label, e + 1,
				res[i].epoch_acc[e], res[i].epoch_loss[e]);
	fclose(f);
	return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {{"workers", required_argument, 0, 'w'},
					     {"epochs", required_argument, 0, 'e'},
					     {"hidden", required_argument, 0, 'H'},
					     {"batch", required_argument, 0, 'b'},
					     {"lr", required_argument, 0, 'l'},
					     {"train-limit", required_argument, 0, 't'},
					     {"seed", required_argument, 0, 's'},
					     {"data", required_argument, 0, 'd'},
					     {"out", required_argument, 0, 'o'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		char *end = NULL;
		int numeric = c == 'w' || c == 'e' || c == 'H' || c == 'b' || c == 't' || c == 's';
		unsigned long v = numeric ? strtoul(optarg, &end, 10) : 0;
		int bad_num = numeric && (*end != '\0' || optarg[0] == '-');
		switch (c) {
		case 'w':
			o->workers = (unsigned)v;
			bad_num |= v < 1 || v > QUIRE_MAX_WORKERS;
			break;
		case 'e':
			o->epochs = (unsigned)v;
			bad_num |= v < 1 || v > 1000;
			break;
		case 'H':
			o->hidden = (unsigned)v;
			bad_num |= v < 1 || v > 4096;
			break;
		case 'b':
			o->batch = (unsigned)v;
			bad_num |= v < 1 || v > 4096;
			break;
		case 't':
			o->train_limit = v;
			break;
		case 's':
			o->seed = v;
			break;
		case 'l':
			o->lr = strtof(optarg, &end);
			bad_num = *end != '\0' || !(o->lr > 0 && o->lr < 100);
			break;
		case 'd':
			o->data = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fprintf(stderr, "quire-codec-demo: unknown option or missing value: %s\n%s",
				argv[optind - 1], usage);
			return -1;
		}
		if (bad_num) {
			fprintf(stderr, "quire-codec-demo: bad value '%s' for %s\n", optarg,
				argv[optind - 2 >= 0 ? optind - 2 : 0]);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "quire-codec-demo: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = {4, 5, 128, 32, 0.1f, 0, 1, FMNIST_DEFAULT_DIR, "results/codec-demo"};
	if (parse(argc, argv, &o))
		return 2;
	struct fmnist_set tr, te;
	if (fmnist_load(o.data, "train", &tr) || fmnist_load(o.data, "t10k", &te))
		return 1;
	size_t used = o.train_limit && o.train_limit < tr.count ? o.train_limit : tr.count;
	if (used < (size_t)o.batch * o.workers) {
		fprintf(stderr,
			"quire-codec-demo: %zu training images are fewer than one step's "
			"%u x %u\n",
			used, o.workers, o.batch);
		return 2;
	}
	printf("quire codec demo: Fashion-MNIST, MLP 784-%u-10, %u workers x %u samples per step, "
	       "%u epochs, %zu training / %zu test images, codec %s\n",
	       o.hidden, o.workers, o.batch, o.epochs, used, te.count, quire_codec_impl_name());
	struct result res[N_VARIANTS] = {0};
	int rc = 0;
	for (size_t i = 0; i < N_VARIANTS && !rc; i++) {
		res[i].epoch_acc = calloc(o.epochs, sizeof(double));
		res[i].epoch_loss = calloc(o.epochs, sizeof(double));
		rc = !res[i].epoch_acc || !res[i].epoch_loss ||
		     train(&o, &variants[i], &tr, &te, &res[i]);
	}
	if (!rc) {
		printf("\n%-8s %14s %10s %15s %13s %11s %12s\n", "format", "test accuracy",
		       "vs fp32", "step error", "total drift", "bytes/elem", "x fp32 size");
		for (size_t i = 0; i < N_VARIANTS; i++)
			printf("%-8s %13.2f%% %+8.2fpp %15.2e %13.2e %11.3f %12.3f\n",
			       variants[i].label, 100 * res[i].test_acc,
			       100 * (res[i].test_acc - res[0].test_acc), res[i].grad_err,
			       res[i].drift, variants[i].bytes_per_elem,
			       variants[i].bytes_per_elem / 4.0);
		printf(
		    "\nstep error: |reduced - exact mean| / |exact mean| per step, averaged.\n"
		    "total drift: the same for the sums over all steps (what the model "
		    "integrates);\n"
		    "error feedback carries each step's quantization error into the next step, so\n"
		    "its step error is larger by design and its drift is what it keeps small.\n");
		rc = write_results(&o, res);
		if (!rc)
			printf("\nresults: %s/summary.csv, %s/epochs.csv\n", o.out, o.out);
	}
	for (size_t i = 0; i < N_VARIANTS; i++) {
		free(res[i].epoch_acc);
		free(res[i].epoch_loss);
	}
	fmnist_free(&tr);
	fmnist_free(&te);
	return rc ? 1 : 0;
}
