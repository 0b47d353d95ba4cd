// SPDX-License-Identifier: MIT
/*
 * quire sched split: the pods file cut by time into the parts of docs/sched.md (the
 * earliest 60% of the rows in creation order train, the next 20% select, the latest 20%
 * eval), each written as a pods file of its own (the header, then its rows verbatim, in
 * creation order). `make sched-train` writes only train.csv and select.csv and gives its
 * steps nothing else: the evaluation rows are not in any file they can open.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "sched/sched.h"

static void split_help(FILE *out)
{
	fprintf(out,
		"Usage: quire sched split --pods FILE --out DIR [--parts train,select,eval]\n\n"
		"Cuts the pods file by time into the train, select and eval parts (the\n"
		"earliest 60%% of the rows in creation order, the next 20%%, the latest 20%%;\n"
		"docs/sched.md) and writes each asked for as DIR/PART.csv: the header, then\n"
		"its rows as they are in FILE, in creation order.\n\n"
		"  --pods FILE     pods CSV (the columns of quire sched replay)\n"
		"  --out DIR       where PART.csv go (made if missing)\n"
		"  --parts LIST    which parts to write (default train,select,eval)\n"
		"  --speed M=F     GPU model speed factors (makes a model known)\n");
}

/* FILE's lines, each ended by a NUL (the newline dropped; a CR before it kept: the rows
 * are written back as they were). */
static char **read_lines(const char *path, size_t *count)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		cli_fail("%s: %s", path, strerror(errno));
		return NULL;
	}
	char **lines = NULL, *buf = NULL;
	size_t n = 0, cap = 0, bcap = 0;
	ssize_t len;
	while ((len = getline(&buf, &bcap, f)) >= 0) {
		if (len > 0 && buf[len - 1] == '\n')
			buf[--len] = 0;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			char **g = realloc(lines, cap * sizeof(*lines));
			if (!g)
				break;
			lines = g;
		}
		if (!(lines[n] = strdup(buf)))
			break;
		n++;
	}
	int bad = ferror(f) || !feof(f);
	free(buf);
	fclose(f);
	if (bad) {
		for (size_t i = 0; i < n; i++)
			free(lines[i]);
		free(lines);
		cli_fail("%s: read error or out of memory", path);
		return NULL;
	}
	*count = n;
	return lines;
}

int cli_sched_split(int argc, char **argv)
{
	/* Each option's value is the index of the string it sets, plus one. */
	enum { O_PODS = 1, O_OUT, O_PARTS, O_SPEED, O_HELP };
	static const struct option opts[] = {
	    {"pods", required_argument, 0, O_PODS},   {"out", required_argument, 0, O_OUT},
	    {"parts", required_argument, 0, O_PARTS}, {"speed", required_argument, 0, O_SPEED},
	    {"help", no_argument, 0, O_HELP},         {0, 0, 0, 0}};
	const char *arg[O_HELP] = {NULL, NULL, NULL, "train,select,eval", NULL};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h' || c == O_HELP) {
			split_help(stdout);
			return 0;
		}
		if (c < O_PODS || c > O_SPEED)
			return cli_bad_option("sched split", c, argv);
		arg[c] = optarg;
	}
	const char *pods_path = arg[O_PODS], *out = arg[O_OUT], *parts = arg[O_PARTS],
		   *speed = arg[O_SPEED];
	if (optind < argc)
		return cli_usage_error("sched split", "unexpected argument '%s'", argv[optind]);
	if (!pods_path || !out)
		return cli_usage_error("sched split", "--pods and --out are required");
	int want[4] = {0};
	char pbuf[64];
	if (snprintf(pbuf, sizeof(pbuf), "%s", parts) >= (int)sizeof(pbuf))
		return cli_usage_error("sched split", "--parts too long");
	char *save = NULL;
	for (char *t = strtok_r(pbuf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int p = sched_part_parse(t);
		if (p <= SCHED_PART_ALL)
			return cli_usage_error("sched split", "bad part '%s' (train, select, eval)",
					       t);
		want[p] = 1;
	}
	if (!want[1] && !want[2] && !want[3])
		return cli_usage_error("sched split", "empty --parts");
	struct sched_models models;
	char err[SCHED_ERR_LEN];
	sched_models_default(&models);
	if (speed && sched_models_parse(&models, speed, err, sizeof(err)))
		return cli_usage_error("sched split", "--speed: %s", err);
	/* Every row checked as the replay reads it; then the lines written as they are. */
	struct sched_pod *pods;
	size_t npods, nlines;
	if (sched_read_pods(pods_path, &models, &pods, &npods, err, sizeof(err)))
		return cli_fail("%s", err);
	char **lines = read_lines(pods_path, &nlines);
	int rc = 0;
	if (!lines) {
		free(pods);
		return CLI_EXIT_FAIL;
	}
	if (mkdir(out, 0777) != 0 && errno != EEXIST) {
		rc = cli_fail("%s: %s", out, strerror(errno));
		goto done;
	}
	for (int p = SCHED_PART_TRAIN; p <= SCHED_PART_EVAL && !rc; p++) {
		if (!want[p])
			continue;
		static const char *const names[] = {"all", "train", "select", "eval"};
		struct sched_pod *part = malloc((npods ? npods : 1) * sizeof(*part));
		if (!part) {
			rc = cli_fail("out of memory");
			break;
		}
		memcpy(part, pods, npods * sizeof(*part));
		size_t n = sched_pods_part(part, npods, p);
		char path[1100];
		snprintf(path, sizeof(path), "%s/%s.csv", out, names[p]);
		FILE *f = fopen(path, "w");
		if (!f) {
			rc = cli_fail("%s: %s", path, strerror(errno));
			free(part);
			break;
		}
		fprintf(f, "%s\n", lines[0]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s\n", lines[part[i].line - 1]);
		if (fclose(f) != 0)
			rc = cli_fail("%s: write error", path);
		else
			printf("%s: %zu pods\n", path, n);
		free(part);
	}
done:
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	free(pods);
	return rc;
}
