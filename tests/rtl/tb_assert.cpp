// SPDX-License-Identifier: MIT
/*
 * The checkers of rtl/assert/ catch what they say they catch, and nothing else: each
 * sequence below runs in a child process of its own (a failed assertion stops the
 * simulation), which must end cleanly for a sequence that keeps the rules and by the
 * assertion for one that breaks them. Prints "ok"/"FAIL" per sequence and
 * "rtl assert: N passed, N failed"; main returns 0 on pass.
 */
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "Vtb_assert_top.h"
#include "verilated.h"

namespace {

/* One cycle's inputs. */
struct Step {
	int valid, ready, data, done, req, rvalid;
};

struct Case {
	const char *name;
	bool breaks; /* the checkers must stop it */
	std::vector<Step> steps;
};

void run(const Case &c)
{
	Vtb_assert_top m;
	m.clk_i = 0;
	m.rst_ni = 0;
	m.eval();
	m.rst_ni = 1;
	m.eval();
	for (const Step &s : c.steps) {
		m.valid_i = s.valid;
		m.ready_i = s.ready;
		m.data_i = s.data;
		m.done_i = s.done;
		m.req_i = s.req;
		m.rvalid_i = s.rvalid;
		m.eval();
		m.clk_i = 1;
		m.eval();
		m.clk_i = 0;
		m.eval();
	}
	m.final();
}

} // namespace

int main()
{
	const std::vector<Case> cases = {
	    {"a beat held until taken", false,
	     {{1, 0, 7, 0, 0, 0}, {1, 0, 7, 0, 0, 0}, {1, 1, 7, 0, 0, 0}, {0, 0, 9, 0, 0, 0}}},
	    {"a new beat every cycle while ready", false,
	     {{1, 1, 1, 0, 0, 0}, {1, 1, 2, 0, 0, 0}, {1, 1, 3, 0, 0, 0}}},
	    {"valid dropped before the beat was taken", true,
	     {{1, 0, 7, 0, 0, 0}, {0, 0, 7, 0, 0, 0}}},
	    {"the beat changed while it waited", true, {{1, 0, 7, 0, 0, 0}, {1, 0, 8, 0, 0, 0}}},
	    {"a beat withdrawn once the consumer is done", false,
	     {{1, 0, 7, 0, 0, 0}, {1, 0, 7, 1, 0, 0}, {1, 0, 7, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}},
	    {"requests answered one at a time", false,
	     {{0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 1, 0},
	      {0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 1}}},
	    {"a request while another waits", true,
	     {{0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 1, 0}}},
	    {"an answer to no request", true, {{0, 0, 0, 0, 0, 1}}},
	};
	unsigned passed = 0, failed = 0;
	for (const Case &c : cases) {
		std::fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			run(c);
			std::_Exit(0);
		}
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) != pid) {
			std::printf("FAIL %s: could not run it\n", c.name);
			failed++;
			continue;
		}
		bool stopped = !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		if (stopped == c.breaks) {
			std::printf("ok   %s: %s\n", c.name, stopped ? "stopped" : "ran through");
			passed++;
		} else {
			std::printf("FAIL %s: %s\n", c.name,
				    stopped ? "stopped, but it keeps the rules" : "not stopped");
			failed++;
		}
	}
	std::printf("rtl assert: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
