// SPDX-License-Identifier: MIT
/*
 * Programs the quire tool starts (mpirun, quire-cluster) end with it: a signal the
 * tool can catch is passed on and the tool waits for the program to finish its own
 * teardown; a second signal kills it; and if the tool itself is killed the program
 * gets SIGTERM from the kernel (PDEATHSIG).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CAUGHT (sizeof(caught) / sizeof(caught[0]))

int cli_run_child(const char *const *argv, const char *hint, int *stopped_by)
{
	struct sigaction sa = {.sa_handler = on_signal}, old[N_CAUGHT];
	got_signal = 0;
	for (size_t i = 0; i < N_CAUGHT; i++)
		sigaction(caught[i], &sa, &old[i]);
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		/* Its own group, so a terminal's Ctrl-C reaches it once, through us. */
		setpgid(0, 0);
		for (size_t i = 0; i < N_CAUGHT; i++)
			signal(caught[i], SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "quire: cannot run %s: %s%s\n", argv[0], strerror(errno),
			hint ? hint : "");
		_exit(127);
	}
	int status = 0, told = 0, rc = -1;
	while (pid > 0) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid) {
			rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
			break;
		}
		if (r < 0 && errno != EINTR)
			break;
		if (got_signal && !told) {
			kill(pid, got_signal == SIGHUP ? SIGTERM : got_signal);
			told = got_signal;
			got_signal = 0;
		} else if (got_signal) {
			kill(-pid, SIGKILL); /* asked twice */
			got_signal = 0;
		}
		usleep(10000); /* a signal cuts it short */
	}
	for (size_t i = 0; i < N_CAUGHT; i++)
		sigaction(caught[i], &old[i], NULL);
	*stopped_by = told;
	return rc;
}
