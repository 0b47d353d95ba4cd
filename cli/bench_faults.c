// SPDX-License-Identifier: MIT
/*
 * quire bench faults: a seeded, bounded campaign of collectives on four simulated cards with
 * faults mixed in, and the check after every one of them on every rank: the loss-free bits
 * (the reference computed on the CPU in the same run), or a clear error on every rank within
 * two timeouts; never a wrong result, never a hang, nothing left behind. This file is the
 * campaign: it starts the wire (bench_faults_wire.c), the cards (quire-sim, emu or RTL) and
 * the ranks (bench_faults_rank.c), draws each collective and its fault from the seed, injects
 * process faults once the wire has seen the collective reach the card, classifies the
 * ranks' answers, rebuilds what a fault broke, and prints the matrix of faults against
 * outcomes (docs/fault-campaign.md).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_faults.h"
#include "cli.h"
#include "quire.h"
#include "sim/locate.h"

const char *const faults_kind_name[FAULT_KINDS] = {
    "none",           "lost frames",  "corrupted frames", "duplicated frames",   "reordered frames",
    "delayed frames", "forged frame", "frozen, thawed",   "frozen past timeout", "killed card",
    "killed rank"};
static const char *const fault_key[FAULT_KINDS] = {"none",    "lost",      "corrupt",  "duplicate",
						   "reorder", "delay",     "forged",   "thaw",
						   "freeze",  "kill-card", "kill-rank"};
/* How often each is drawn, relative: the ones that cost a timeout less often. */
static const int fault_weight[FAULT_KINDS] = {0, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1};

enum outcome { OUT_EXACT, OUT_ERROR_ALL, OUT_MIXED, OUT_WRONG, OUT_HANG, OUTCOMES };
static const char *const outcome_name[OUTCOMES] = {"exact", "error-all", "mixed", "WRONG", "HANG"};
static const char *const coll_name[COLL_KINDS] = {"allreduce", "reduce-scatter", "broadcast",
						  "allgather", "barrier"};

static const char usage[] =
    "Usage: quire bench faults [--ops N] [--seed S] [--timeout MS] [--model emu|rtl]\n"
    "                          [--max-count N] [--fault-rate P] [--faults LIST]\n"
    "Run N collectives (all-reduce and reduce-scatter in bfp8, bfp16, fp16, fp32 and int32,\n"
    "broadcast, all-gather, barrier) on 4 simulated cards, each drawn from the seed with a\n"
    "fault mixed into some: frames lost, corrupted, duplicated, reordered or delayed on the\n"
    "wire, a forged frame from a sender outside the job, a card frozen and thawed within the\n"
    "timeout, a card frozen past it, a card killed, a rank killed. After every collective\n"
    "every rank must hold the loss-free bits or a clear error, every rank an error within\n"
    "two timeouts if any has one. Prints the faults against the outcomes; exit 1 on any\n"
    "wrong result, hang or leftover process or file.\n\n"
    "  --ops N          collectives (default 2000)\n"
    "  --seed S         the campaign's seed (default: from the clock; printed)\n"
    "  --timeout MS     the contexts' and communicator's timeout (default 1000; rtl 10000)\n"
    "  --model M        the cards: emu (default) or rtl (quire-sim --model rtl)\n"
    "  --max-count N    largest all-reduce, in elements (default 16384; rtl 1024)\n"
    "  --fault-rate P   share of the collectives with a fault (default 0.3)\n"
    "  --faults LIST    which faults, of: lost,corrupt,duplicate,reorder,delay,forged,\n"
    "                   thaw,freeze,kill-card,kill-rank (default: all)\n"
    "  --verbose        every collective that did not end exact, rank by rank\n";

struct campaign {
	long ops, timeout_ms, max_count, plant_op;
	uint64_t seed;
	double fault_rate;
	const char *model;
	int enabled[FAULT_KINDS];
	char sim[PATH_MAX], dir[QUIRE_SIM_DIR_MAX], net[QUIRE_SIM_DIR_MAX + 8];
	char key[2 * 16 + 1]; /* the job's key, hex: the cards tag their datagrams with it */
	pid_t card[FAULTS_CARDS], rank[FAULTS_CARDS], wire;
	int rank_fd[FAULTS_CARDS], wire_fd;
	uint32_t comm_id, coll_seq;
	int need_comm;
	long count[FAULT_KINDS][OUTCOMES], missed[FAULT_KINDS];
	double worst_error[FAULT_KINDS]; /* the longest answer_s of an error */
	long failures;
	struct faults_wire_stats wire_stats;
	long forged_sent;
	int verbose;
};

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig)
{
	stop_signal = sig;
}

static void describe(const struct faults_op *op, char *s, size_t len);

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ms / 1000, ms % 1000 * 1000000}, NULL);
}

/* Waits at most s seconds for pid; 1 when it ended (reaped). */
static int reap_within(pid_t pid, double s)
{
	double end = bench_now() + s;
	do {
		pid_t r = waitpid(pid, NULL, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return 1;
		sleep_ms(5);
	} while (bench_now() < end);
	return 0;
}

static void end_process(pid_t *pid, int sig, double grace)
{
	if (*pid <= 0)
		return;
	kill(*pid, SIGCONT);
	kill(*pid, sig);
	if (!reap_within(*pid, grace)) {
		kill(*pid, SIGKILL);
		reap_within(*pid, 10);
	}
	*pid = 0;
}

/* A child of the campaign, which dies with it: 0 in the child, its pid in the campaign, -1
 * (said) when fork fails. */
static pid_t fork_child(void)
{
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		cli_fail("bench faults: fork: %s", strerror(errno));
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
	}
	return pid;
}

static int start_card(struct campaign *c, int i)
{
	char sock[QUIRE_SIM_DIR_MAX + 32], net[QUIRE_SIM_DIR_MAX + 16], addr[8];
	snprintf(sock, sizeof(sock), "%s/card-%d.sock", c->dir, i);
	snprintf(net, sizeof(net), "%s/n%d", c->net, i);
	snprintf(addr, sizeof(addr), "%d", i);
	unlink(sock); /* a killed card's */
	pid_t pid = fork_child();
	if (pid < 0)
		return CLI_EXIT_FAIL;
	if (pid == 0) {
		/* Only the cards hold the key (docs/network.md, "The job's key"); the forger,
		 * outside the job, does not. */
		setenv("QUIRE_JOB_KEY", c->key, 1);
		const char *argv[] = {c->sim, "--socket", sock,      "--net",  net, "--addr",
				      addr,   "--quiet",  "--model", c->model, NULL};
		execv(c->sim, (char *const *)argv);
		fprintf(stderr, "quire: bench faults: cannot run %s: %s\n", c->sim,
			strerror(errno));
		_exit(127);
	}
	c->card[i] = pid;
	double end = bench_now() + (strcmp(c->model, "rtl") ? 60 : 300);
	struct stat st;
	while (stat(sock, &st) != 0) {
		if (waitpid(pid, NULL, WNOHANG) == pid || bench_now() > end || stop_signal) {
			c->card[i] = 0;
			return cli_fail("bench faults: card %d (%s --model %s) did not start", i,
					c->sim, c->model);
		}
		sleep_ms(5);
	}
	return 0;
}

static int start_rank(struct campaign *c, int i)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return cli_fail("bench faults: socketpair: %s", strerror(errno));
	char sock[QUIRE_SIM_DIR_MAX + 32];
	snprintf(sock, sizeof(sock), "%s/card-%d.sock", c->dir, i);
	pid_t pid = fork_child();
	if (pid < 0)
		return CLI_EXIT_FAIL;
	if (pid == 0) {
		signal(SIGINT, SIG_IGN); /* the campaign ends its ranks itself */
		signal(SIGTERM, SIG_DFL);
		close(sv[0]);
		_exit(faults_rank_run(i, sock, (int)c->timeout_ms, sv[1]));
	}
	close(sv[1]);
	c->rank[i] = pid;
	c->rank_fd[i] = sv[0];
	return 0;
}

static void end_rank(struct campaign *c, int i, int sig)
{
	if (c->rank_fd[i] >= 0)
		close(c->rank_fd[i]);
	c->rank_fd[i] = -1;
	end_process(&c->rank[i], sig, 10);
}

static int start_wire(struct campaign *c)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return cli_fail("bench faults: socketpair: %s", strerror(errno));
	pid_t pid = fork_child();
	if (pid < 0)
		return CLI_EXIT_FAIL;
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);
		close(sv[0]);
		_exit(faults_wire_run(c->net, FAULTS_CARDS, sv[1]));
	}
	close(sv[1]);
	c->wire = pid;
	c->wire_fd = sv[0];
	char ready = 0;
	struct pollfd pf = {c->wire_fd, POLLIN, 0};
	if (poll(&pf, 1, 10000) != 1 || read(c->wire_fd, &ready, 1) != 1 || ready != 'r')
		return cli_fail("bench faults: the wire did not start");
	return 0;
}

/* A new communicator on every rank (after a fault, on contexts attached again). */
static int make_comm(struct campaign *c, int reopen)
{
	for (int attempt = 0; attempt < 3 && !stop_signal; attempt++) {
		c->comm_id = c->comm_id % 65535 + 1;
		struct faults_cmd cmd = {.type = CMD_COMM, .comm_id = c->comm_id, .reopen = reopen};
		int ok = 0;
		for (int i = 0; i < FAULTS_CARDS; i++)
			if (write(c->rank_fd[i], &cmd, sizeof(cmd)) != (ssize_t)sizeof(cmd))
				break;
		double end = bench_now() + 4.0 * (double)c->timeout_ms / 1000 + 30;
		for (int i = 0; i < FAULTS_CARDS; i++) {
			struct faults_reply rep = {0};
			struct pollfd pf = {c->rank_fd[i], POLLIN, 0};
			int ms = (int)((end - bench_now()) * 1000);
			if (ms > 0 && poll(&pf, 1, ms) == 1 &&
			    read(c->rank_fd[i], &rep, sizeof(rep)) == (ssize_t)sizeof(rep) &&
			    rep.status == QUIRE_OK)
				ok++;
			else if (ms > 0 && pf.revents)
				fprintf(stderr, "quire: bench faults: rank %d: %s\n", i, rep.what);
		}
		if (ok == FAULTS_CARDS) {
			c->coll_seq = 0;
			c->need_comm = 0;
			return 0;
		}
		/* A rank that did not answer is started again; then every context anew. */
		for (int i = 0; i < FAULTS_CARDS; i++) {
			struct pollfd pf = {c->rank_fd[i], POLLIN, 0};
			if (poll(&pf, 1, 0) == 1) {
				struct faults_reply rep;
				if (read(c->rank_fd[i], &rep, sizeof(rep)) <= 0)
					end_rank(c, i, SIGKILL);
			}
			if (!c->rank[i] && start_rank(c, i))
				return -1;
		}
		reopen = 1;
		sleep_ms(100);
	}
	return cli_fail("bench faults: cannot make a communicator again after a fault");
}

/* One collective and its fault, as drawn from the seed. */
struct trial {
	struct faults_op op;
	enum faults_kind fault;
	int target, frames, delay_ms;
	uint64_t fault_seed;
};

static int wire_send(struct campaign *c, const struct faults_wire_msg *m)
{
	return write(c->wire_fd, m, sizeof(*m)) == (ssize_t)sizeof(*m) ? 0 : -1;
}

static void draw(const struct campaign *c, long k, struct trial *t)
{
	uint64_t r[8];
	for (int i = 0; i < 8; i++)
		r[i] = mix(c->seed ^ mix((uint64_t)k * 8 + (uint64_t)i));
	memset(t, 0, sizeof(*t));
	static const uint32_t colls[20] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					   1, 1, 1, 2, 2, 2, 3, 3, 3, 4};
	static const uint32_t formats[5] = {QUIRE_FMT_BFP8, QUIRE_FMT_BFP16, QUIRE_FMT_FP16,
					    QUIRE_FMT_FP32, QUIRE_FMT_INT32};
	struct faults_op *op = &t->op;
	op->coll = colls[r[0] % 20];
	op->format = formats[r[1] % 5];
	op->mean = op->format != QUIRE_FMT_INT32 && (r[1] >> 8) % 2;
	/* sizes spread over powers of two, with odd tails now and then */
	uint64_t max = (uint64_t)c->max_count, n = 64;
	while (n * 2 <= max && (r[2] >> (n == 64 ? 0 : 3)) % 3 != 0)
		n *= 2, r[2] = mix(r[2]);
	n += (r[3] % 4 == 0) ? r[3] % 97 : 0;
	if (op->coll == COLL_BROADCAST || op->coll == COLL_ALLGATHER)
		n = 1 + r[3] % (n * 4);
	op->count = (uint32_t)(n > max * 4 ? max * 4 : n);
	op->root = (uint32_t)(r[4] % FAULTS_CARDS);
	op->data_seed = r[5];
	t->fault_seed = r[6];
	t->target = (int)(r[7] % FAULTS_CARDS);
	if (op->coll == COLL_BROADCAST &&
	    t->target == (int)(op->root + FAULTS_CARDS - 1) % FAULTS_CARDS)
		t->target = (int)op->root; /* the ring's last card sends no frame */
	t->frames = 1 + (int)((r[7] >> 8) % 3);
	t->delay_ms =
	    (int)(c->timeout_ms / 10 + (long)((r[7] >> 16) % (uint64_t)(c->timeout_ms / 6 + 1)));
	if ((double)(r[6] >> 11) * (1.0 / 9007199254740992.0) >= c->fault_rate)
		return;
	int total = 0;
	for (int f = 1; f < FAULT_KINDS; f++)
		total += c->enabled[f] * fault_weight[f];
	if (!total)
		return;
	int pick = (int)((r[6] >> 20) % (uint64_t)total);
	for (int f = 1; f < FAULT_KINDS; f++) {
		pick -= c->enabled[f] * fault_weight[f];
		if (pick < 0) {
			t->fault = (enum faults_kind)f;
			break;
		}
	}
}

static int is_process_fault(enum faults_kind f)
{
	return f >= FAULT_THAW;
}

/* What happened to one collective. */
struct result {
	int replied[FAULTS_CARDS], expected[FAULTS_CARDS], dead[FAULTS_CARDS];
	struct faults_reply rep[FAULTS_CARDS];
	double at[FAULTS_CARDS];
	double t_ref;
	int injected, applied;
};

static void inject(struct campaign *c, const struct trial *t, struct result *res, double *thaw_at)
{
	int k = t->target;
	res->injected = 1;
	res->t_ref = bench_now();
	switch (t->fault) {
	case FAULT_THAW:
		kill(c->card[k], SIGSTOP);
		*thaw_at = res->t_ref + (double)c->timeout_ms / 4000;
		break;
	case FAULT_FREEZE:
		kill(c->card[k], SIGSTOP);
		break;
	case FAULT_KILL_CARD: {
		kill(c->card[k], SIGKILL);
		struct faults_wire_msg down = {.type = WIRE_CARD_DOWN, .card = (uint32_t)k};
		(void)wire_send(c, &down);
		break;
	}
	case FAULT_KILL_RANK:
		kill(c->rank[k], SIGKILL);
		res->expected[k] = 0;
		break;
	default:
		break;
	}
}

/* Runs trial t as collective number k; fills res. */
static void run_trial(struct campaign *c, long k, const struct trial *t, struct result *res)
{
	memset(res, 0, sizeof(*res));
	struct faults_wire_msg arm = {WIRE_ARM,
				      (uint32_t)t->fault,
				      c->comm_id,
				      ++c->coll_seq,
				      (uint32_t)t->target,
				      is_process_fault(t->fault) ? 0 : (uint32_t)t->frames,
				      (uint32_t)t->delay_ms,
				      t->fault_seed};
	if (t->fault == FAULT_FORGED)
		arm.frames = 1;
	int armed = t->fault != FAULT_NONE && !wire_send(c, &arm);
	struct faults_cmd cmd = {.type = CMD_OP, .op = t->op};
	/* The planted flip goes to the first collective from the one asked for on whose result
	 * rank 1 has bytes for sure. */
	if (k == c->plant_op && (t->op.coll == COLL_BARRIER || t->op.coll == COLL_REDUCE_SCATTER))
		c->plant_op++;
	double t0 = bench_now(), thaw_at = 0;
	res->t_ref = t0;
	for (int i = 0; i < FAULTS_CARDS; i++) {
		cmd.plant_flip = k == c->plant_op && i == 1;
		res->expected[i] = write(c->rank_fd[i], &cmd, sizeof(cmd)) == (ssize_t)sizeof(cmd);
	}
	/* The ranks' own patience is four timeouts, of their cards' clocks: past five of wall
	 * time a rank on the emu (whose clock is the machine's) is hung. An RTL card's clock
	 * runs slower than the wall clock, by a factor no one can promise: this wait is only
	 * the net under the ranks' own patience, and it is wide. */
	double hang_s = (strcmp(c->model, "rtl") ? 5.0 : 50.0) * (double)c->timeout_ms / 1000 + 1;
	for (;;) {
		int left = 0;
		struct pollfd pf[FAULTS_CARDS + 1];
		int who[FAULTS_CARDS + 1], n = 0;
		for (int i = 0; i < FAULTS_CARDS; i++)
			if (res->expected[i] && !res->replied[i] && !res->dead[i]) {
				who[n] = i;
				pf[n++] = (struct pollfd){c->rank_fd[i], POLLIN, 0};
				left++;
			}
		if (!left)
			break;
		double now = bench_now(), end = res->t_ref + hang_s;
		if (now >= end || stop_signal)
			break;
		if (thaw_at && now >= thaw_at) {
			kill(c->card[t->target], SIGCONT);
			thaw_at = 0;
		}
		who[n] = -1;
		pf[n++] = (struct pollfd){c->wire_fd, POLLIN, 0};
		double until = thaw_at && thaw_at < end ? thaw_at : end;
		int ms = (int)((until - now) * 1000) + 1;
		if (poll(pf, (nfds_t)n, ms) <= 0)
			continue;
		for (int j = 0; j < n; j++) {
			if (!pf[j].revents)
				continue;
			if (who[j] < 0) {
				struct faults_wire_note_msg m;
				if (read(c->wire_fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
					continue;
				if (m.type == NOTE_IN_FLIGHT && is_process_fault(t->fault) &&
				    !res->injected)
					inject(c, t, res, &thaw_at);
				else if (m.type == NOTE_FORGED_SENT)
					c->forged_sent++;
				continue;
			}
			int i = who[j];
			ssize_t got = read(c->rank_fd[i], &res->rep[i], sizeof(res->rep[i]));
			if (got == (ssize_t)sizeof(res->rep[i])) {
				res->replied[i] = 1;
				res->at[i] = bench_now();
			} else { /* the rank died unasked: no answer will come */
				res->dead[i] = 1;
				res->replied[i] = 0;
			}
		}
	}
	if (thaw_at || t->fault == FAULT_FREEZE)
		kill(c->card[t->target], SIGCONT);
	if (armed) { /* how many frames the fault was put on */
		struct faults_wire_msg dis = {.type = WIRE_DISARM};
		struct faults_wire_note_msg m = {0};
		if (!wire_send(c, &dis)) {
			struct pollfd pf = {c->wire_fd, POLLIN, 0};
			while (poll(&pf, 1, 10000) == 1 &&
			       read(c->wire_fd, &m, sizeof(m)) == (ssize_t)sizeof(m) &&
			       m.type != NOTE_DISARMED)
				; /* a notice that came after the answers */
		}
		res->applied = is_process_fault(t->fault) ? res->injected : m.done > 0;
	}
}

/*
 * How long rank i took to answer, in seconds: of its card's clock from the submission
 * (what a timeout counts: an RTL card's clock runs slower than the wall clock) where the
 * rank could read it, else of wall time from the fault (a frozen or killed card: the
 * error is its host's). The first starts before the fault, so it only errs long.
 */
static double answer_s(const struct result *res, int i)
{
	if (res->rep[i].card_ms >= 0)
		return (double)res->rep[i].card_ms / 1000;
	return res->at[i] - res->t_ref;
}

/* The outcome of a collective; *last: answer_s of the last rank's error. */
static enum outcome classify(const struct campaign *c, const struct result *res, double *last)
{
	int exact = 0, error = 0, wrong = 0, hung = 0;
	*last = 0;
	double bound = 2.0 * (double)c->timeout_ms / 1000 * 1.25; /* two timeouts, and a quarter */
	for (int i = 0; i < FAULTS_CARDS; i++) {
		if (!res->expected[i])
			continue;
		if (!res->replied[i]) {
			hung++;
			continue;
		}
		if (res->rep[i].verdict == VERDICT_WRONG)
			wrong++;
		else if (res->rep[i].verdict == VERDICT_EXACT)
			exact++;
		else {
			error++;
			double s = answer_s(res, i);
			*last = s > *last ? s : *last;
			if (s > bound)
				hung++;
		}
	}
	if (wrong)
		return OUT_WRONG;
	if (hung)
		return OUT_HANG;
	if (!error)
		return OUT_EXACT;
	return exact ? OUT_MIXED : OUT_ERROR_ALL;
}

static void report_failure(struct campaign *c, long k, const struct trial *t,
			   const struct result *res, enum outcome o)
{
	if ((o == OUT_WRONG || o == OUT_HANG) && ++c->failures > 20)
		return;
	char what[96];
	describe(&t->op, what, sizeof(what));
	printf("  %s at collective %ld: %s, fault %s (card %d)\n", outcome_name[o], k, what,
	       faults_kind_name[t->fault], t->target);
	for (int i = 0; i < FAULTS_CARDS; i++)
		if (res->expected[i])
			printf("    rank %d: %s%s (%.2f s %s)\n", i,
			       !res->replied[i]                       ? "no answer"
			       : res->rep[i].verdict == VERDICT_EXACT ? "exact"
								      : res->rep[i].what,
			       res->replied[i] && res->rep[i].verdict == VERDICT_WRONG ? " WRONG"
										       : "",
			       res->replied[i] ? answer_s(res, i) : -1.0,
			       res->replied[i] && res->rep[i].card_ms >= 0
				   ? "of its card's clock after the submission"
				   : "after the fault");
}

/*
 * Has the wire bind again the sockets the others send to card k on, and waits until it
 * has: a peer that sent to the card before would find no one there (QUIRE_ERR_NO_DEVICE),
 * as a dead card's peers do, and the communicator made next would fail for it.
 */
static int card_up(struct campaign *c, int k)
{
	struct faults_wire_msg up = {.type = WIRE_CARD_UP, .card = (uint32_t)k};
	if (wire_send(c, &up))
		return -1;
	struct faults_wire_note_msg m;
	struct pollfd pf = {c->wire_fd, POLLIN, 0};
	while (poll(&pf, 1, 10000) == 1 && read(c->wire_fd, &m, sizeof(m)) == (ssize_t)sizeof(m)) {
		if (m.type == NOTE_CARD_UP && m.card == (uint32_t)k)
			return 0;
		if (m.type == NOTE_FORGED_SENT)
			c->forged_sent++;
	}
	return cli_fail("bench faults: the wire did not take card %d back", k);
}

/* Puts back what the fault broke: a hung or killed rank, a killed or frozen card. */
static int recover(struct campaign *c, const struct trial *t, const struct result *res)
{
	for (int i = 0; i < FAULTS_CARDS; i++)
		if (!res->expected[i] || !res->replied[i]) {
			end_rank(c, i, SIGKILL);
			if (start_rank(c, i))
				return -1;
		}
	if (t->fault == FAULT_KILL_CARD && res->injected) {
		reap_within(c->card[t->target], 10);
		c->card[t->target] = 0;
		if (start_card(c, t->target) || card_up(c, t->target))
			return -1;
	}
	c->need_comm = 1;
	return 0;
}

static int parse_faults(struct campaign *c, const char *list)
{
	memset(c->enabled, 0, sizeof(c->enabled));
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int f = 1;
		while (f < FAULT_KINDS && strcmp(tok, fault_key[f]))
			f++;
		if (f == FAULT_KINDS)
			return cli_usage_error("bench faults", "unknown fault '%s'", tok);
		c->enabled[f] = 1;
	}
	return 0;
}

static int parse_args(struct campaign *c, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"ops", required_argument, 0, 'n'},        /* collectives */
	    {"seed", required_argument, 0, 's'},       /* what is drawn */
	    {"timeout", required_argument, 0, 't'},    /* contexts' and communicators' */
	    {"model", required_argument, 0, 'm'},      /* emu or rtl cards */
	    {"max-count", required_argument, 0, 'c'},  /* the largest all-reduce */
	    {"fault-rate", required_argument, 0, 'r'}, /* collectives with a fault */
	    {"faults", required_argument, 0, 'f'},     /* which */
	    {"verbose", no_argument, 0, 'v'},          /* every collective with a fault */
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0}};
	long v;
	int opt, timeout_set = 0, count_set = 0;
	char *end;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (cli_parse_long(optarg, 1, 10000000, &c->ops))
				return cli_usage_error("bench faults", "--ops wants 1 or more");
			break;
		case 's':
			errno = 0;
			c->seed = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg)
				return cli_usage_error("bench faults", "--seed wants a number");
			break;
		case 't':
			if (cli_parse_long(optarg, 100, 600000, &c->timeout_ms))
				return cli_usage_error("bench faults",
						       "--timeout wants 100 to 600000 ms");
			timeout_set = 1;
			break;
		case 'm':
			if (strcmp(optarg, "emu") && strcmp(optarg, "rtl"))
				return cli_usage_error("bench faults", "--model is emu or rtl");
			c->model = optarg;
			break;
		case 'c':
			if (cli_parse_long(optarg, 64, 1 << 20, &c->max_count))
				return cli_usage_error("bench faults",
						       "--max-count wants 64 to 1048576");
			count_set = 1;
			break;
		case 'r':
			c->fault_rate = strtod(optarg, &end);
			if (*end || !*optarg || !(c->fault_rate >= 0 && c->fault_rate <= 1))
				return cli_usage_error("bench faults", "--fault-rate wants 0 to 1");
			break;
		case 'f':
			if (parse_faults(c, optarg))
				return CLI_EXIT_USAGE;
			break;
		case 'v':
			c->verbose = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			return cli_bad_option("bench faults", opt, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("bench faults", "unexpected argument '%s'", argv[optind]);
	int rtl = !strcmp(c->model, "rtl");
	if (!timeout_set)
		c->timeout_ms = rtl ? 10000 : 1000;
	if (!count_set)
		c->max_count = rtl ? 1024 : 16384;
	/* The planted wrong result of the campaign's own test (tests/cli/test_fault_campaign.sh):
	 * rank 1 flips a bit of collective N's result before its check. */
	const char *plant = getenv("QUIRE_BENCH_FAULTS_PLANT");
	if (plant && cli_parse_long(plant, 0, 10000000, &v) == 0)
		c->plant_op = v;
	return 0;
}

static void print_matrix(const struct campaign *c, double wall)
{
	printf("\n%-20s", "fault \\ outcome");
	for (int o = 0; o < OUTCOMES; o++)
		printf(" %9s", outcome_name[o]);
	printf(" %9s %12s\n", "missed", "last error");
	for (int f = 0; f < FAULT_KINDS; f++) {
		if (f && !c->enabled[f])
			continue;
		printf("%-20s", faults_kind_name[f]);
		for (int o = 0; o < OUTCOMES; o++)
			printf(" %9ld", c->count[f][o]);
		if (f)
			printf(" %9ld", c->missed[f]);
		else
			printf(" %9s", "-");
		if (c->worst_error[f] > 0)
			printf(" %10.2f s\n", c->worst_error[f]);
		else
			printf(" %12s\n", "-");
	}
	long tot[OUTCOMES] = {0};
	for (int f = 0; f < FAULT_KINDS; f++)
		for (int o = 0; o < OUTCOMES; o++)
			tot[o] += c->count[f][o];
	printf("%-20s", "total");
	for (int o = 0; o < OUTCOMES; o++)
		printf(" %9ld", tot[o]);
	printf("\n\nwire: %llu datagrams passed on; %llu lost, %llu corrupted, %llu duplicated, "
	       "%llu reordered, %llu delayed; %llu forged frames sent, answered %llu times by the "
	       "cards' links; %llu held past the wire's room\n",
	       (unsigned long long)c->wire_stats.forwarded, (unsigned long long)c->wire_stats.lost,
	       (unsigned long long)c->wire_stats.corrupted,
	       (unsigned long long)c->wire_stats.duplicated,
	       (unsigned long long)c->wire_stats.reordered,
	       (unsigned long long)c->wire_stats.delayed, (unsigned long long)c->wire_stats.forged,
	       (unsigned long long)c->wire_stats.forged_answered,
	       (unsigned long long)c->wire_stats.overflow);
	printf("seed %llu, %ld collectives, %s cards, timeout %ld ms, wall %.1f s\n",
	       (unsigned long long)c->seed, c->ops, c->model, c->timeout_ms, wall);
}

/* Kills, one by one, the processes still children of this one (by /proc: what the
 * campaign started, or was left to it as their subreaper); how many. */
static int kill_children(void)
{
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[64], stat[512];
		long pid = strtol(e->d_name, NULL, 10), ppid = 0;
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		FILE *f = fopen(path, "r");
		size_t len = f ? fread(stat, 1, sizeof(stat) - 1, f) : 0;
		if (f)
			fclose(f);
		stat[len] = '\0';
		const char *close_paren = strrchr(stat, ')');
		if (close_paren && sscanf(close_paren + 1, " %*c %ld", &ppid) == 1 &&
		    ppid == (long)getpid()) {
			fprintf(stderr, "quire: bench faults: process %ld left; killing it\n", pid);
			kill((pid_t)pid, SIGKILL);
			n++;
		}
	}
	if (d)
		closedir(d);
	return n ? n : 1;
}

/* Everything the campaign started ends, and its directory goes; the number of leftovers. */
static int teardown(struct campaign *c)
{
	int left = 0;
	struct faults_cmd quit = {.type = CMD_QUIT};
	for (int i = 0; i < FAULTS_CARDS; i++) {
		if (c->rank_fd[i] >= 0 &&
		    write(c->rank_fd[i], &quit, sizeof(quit)) != (ssize_t)sizeof(quit))
			kill(c->rank[i], SIGKILL);
		end_rank(c, i, 0);
	}
	for (int i = 0; i < FAULTS_CARDS; i++)
		end_process(&c->card[i], SIGTERM, 5);
	if (c->wire > 0) {
		struct faults_wire_msg q = {.type = WIRE_QUIT};
		struct pollfd pf = {c->wire_fd, POLLIN, 0};
		if (!wire_send(c, &q) && poll(&pf, 1, 10000) == 1 &&
		    read(c->wire_fd, &c->wire_stats, sizeof(c->wire_stats)) !=
			(ssize_t)sizeof(c->wire_stats))
			memset(&c->wire_stats, 0, sizeof(c->wire_stats));
		close(c->wire_fd);
		end_process(&c->wire, 0, 10);
	}
	/* Anything of ours still there (this process is the subreaper of what they started). */
	double end = bench_now() + 5;
	for (;;) {
		pid_t p = waitpid(-1, NULL, WNOHANG);
		if (p < 0 && errno == ECHILD)
			break;
		if (p == 0 && bench_now() > end) {
			left += kill_children();
			end = bench_now() + 5;
		}
		if (p == 0)
			sleep_ms(10);
	}
	/* The files: killed cards leave their sockets, which the campaign removes; anything
	 * else is a leftover. */
	for (int i = 0; i < FAULTS_CARDS; i++) {
		char p[QUIRE_SIM_DIR_MAX + 32];
		snprintf(p, sizeof(p), "%s/card-%d.sock", c->dir, i);
		unlink(p);
		snprintf(p, sizeof(p), "%s/n%d/port-%d", c->net, i, i);
		unlink(p);
		snprintf(p, sizeof(p), "%s/n%d/link-%d", c->net, i, i);
		unlink(p);
		snprintf(p, sizeof(p), "%s/n%d", c->net, i);
		if (rmdir(p) && errno != ENOENT) {
			fprintf(stderr, "quire: bench faults: files left in %s\n", p);
			left++;
		}
	}
	if ((rmdir(c->net) && errno != ENOENT) || (rmdir(c->dir) && errno != ENOENT)) {
		fprintf(stderr, "quire: bench faults: files left in %s\n", c->dir);
		left++;
	}
	return left;
}

static int setup(struct campaign *c)
{
	quire_sim_locate(c->sim, sizeof(c->sim));
	uint8_t key[16];
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key))
		return cli_fail("bench faults: no random job key: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(key); i++)
		snprintf(c->key + 2 * i, 3, "%02x", key[i]);
	if (quire_sim_mkdtemp(c->dir, sizeof(c->dir), "quire-faults"))
		return cli_fail("bench faults: cannot make a directory: %s", strerror(errno));
	snprintf(c->net, sizeof(c->net), "%s/net", c->dir);
	if (mkdir(c->net, 0700))
		return cli_fail("bench faults: cannot make %s: %s", c->net, strerror(errno));
	for (int i = 0; i < FAULTS_CARDS; i++) {
		char p[QUIRE_SIM_DIR_MAX + 16];
		snprintf(p, sizeof(p), "%s/n%d", c->net, i);
		if (mkdir(p, 0700))
			return cli_fail("bench faults: cannot make %s: %s", p, strerror(errno));
	}
	if (start_wire(c))
		return -1;
	for (int i = 0; i < FAULTS_CARDS; i++)
		if (start_card(c, i))
			return -1;
	for (int i = 0; i < FAULTS_CARDS; i++)
		if (start_rank(c, i))
			return -1;
	return make_comm(c, 0);
}

int bench_faults(int argc, char **argv)
{
	static struct campaign c0;
	struct campaign *c = &c0;
	memset(c, 0, sizeof(*c));
	c->ops = 2000;
	c->seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
	c->fault_rate = 0.3;
	c->model = "emu";
	c->plant_op = -1;
	c->wire_fd = -1;
	for (int f = 1; f < FAULT_KINDS; f++)
		c->enabled[f] = 1;
	for (int i = 0; i < FAULTS_CARDS; i++)
		c->rank_fd[i] = -1;
	int rc = parse_args(c, argc, argv);
	if (rc)
		return rc;
	struct sigaction sa = {.sa_handler = on_stop}, old[3];
	static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	printf("quire bench faults: seed %llu, %ld collectives on %d %s cards, timeout %ld ms\n",
	       (unsigned long long)c->seed, c->ops, FAULTS_CARDS, c->model, c->timeout_ms);
	fflush(stdout);
	double start = bench_now();
	rc = setup(c) ? CLI_EXIT_FAIL : 0;
	long k = 0;
	for (; !rc && k < c->ops && !stop_signal; k++) {
		if (c->need_comm && make_comm(c, 1)) {
			rc = CLI_EXIT_FAIL;
			break;
		}
		struct trial t;
		struct result res;
		draw(c, k, &t);
		run_trial(c, k, &t, &res);
		if (stop_signal) /* the collective interrupted is not counted */
			break;
		double last;
		enum outcome o = classify(c, &res, &last);
		enum faults_kind row = t.fault != FAULT_NONE && !res.applied ? FAULT_NONE : t.fault;
		if (row != t.fault)
			c->missed[t.fault]++;
		c->count[row][o]++;
		if (o != OUT_EXACT && last > c->worst_error[row])
			c->worst_error[row] = last;
		/* Said always: an error where no process was taken out is not expected either. */
		if (o == OUT_WRONG || o == OUT_HANG ||
		    (o != OUT_EXACT && (c->verbose || !is_process_fault(row))))
			report_failure(c, k, &t, &res, o);
		else if (c->verbose && t.fault != FAULT_NONE)
			printf("  exact at collective %ld, fault %s (card %d)%s\n", k,
			       faults_kind_name[t.fault], t.target, res.applied ? "" : ", missed");
		int broken = o != OUT_EXACT ||
			     (is_process_fault(t.fault) && res.injected && t.fault != FAULT_THAW);
		if (broken && recover(c, &t, &res))
			rc = CLI_EXIT_FAIL;
		if ((k + 1) % 500 == 0) {
			printf("  %ld collectives, %.1f s\n", k + 1, bench_now() - start);
			fflush(stdout);
		}
	}
	int left = teardown(c);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (stop_signal) {
		printf("stopped by signal %d after %ld collectives\n", (int)stop_signal, k);
		rc = 128 + stop_signal;
	}
	c->ops = k;
	print_matrix(c, bench_now() - start);
	long bad = 0;
	for (int f = 0; f < FAULT_KINDS; f++)
		bad += c->count[f][OUT_WRONG] + c->count[f][OUT_HANG];
	printf("%ld wrong or hung, %d left behind: %s\n", bad, left,
	       !rc && !bad && !left ? "pass" : "FAIL");
	return rc ? rc : bad || left ? CLI_EXIT_FAIL : 0;
}

static void describe(const struct faults_op *op, char *s, size_t len)
{
	static const char *const fmt_name[] = {"?",     "fp32", "fp16",  "bfp8",
					       "bfp16", "int8", "int16", "int32"};
	if (op->coll == COLL_ALLREDUCE || op->coll == COLL_REDUCE_SCATTER)
		snprintf(s, len, "%s %s %s of %u", coll_name[op->coll],
			 fmt_name[op->format < 8 ? op->format : 0], op->mean ? "mean" : "sum",
			 op->count);
	else if (op->coll == COLL_BROADCAST)
		snprintf(s, len, "broadcast of %u bytes from rank %u", op->count, op->root);
	else if (op->coll == COLL_ALLGATHER)
		snprintf(s, len, "allgather of %u bytes", op->count);
	else
		snprintf(s, len, "barrier");
}
