/* dist — the console side of a run: every run is distributed.
 *
 * Without --agents nor --listen, the console listens on a loopback port and
 * starts a local agent itself (console/local.h): one machine, one command.
 * `quern run SCRIPT.lua --listen HOST:PORT --agents N --token-file F` listens
 * for agents (agent/agent.h), authenticates each (proto/auth.h: a refused or
 * broken peer is logged and dropped, nothing else is affected), waits for N
 * of them (--wait, exit 3 if they do not come), ships them the scenario's
 * folder as a bundle, gives each a share of the VUs in proportion to its
 * workers with interleaved global indices, holds the start barrier (all Ready
 * -> Go; the first error aborts everywhere and is printed, exit 2), merges
 * the agents' statistics per second into the same agg as a local run
 * (console/agg.h), prints a line per second, and ends with the same summary
 * (console/summary.h) plus a per-agent breakdown.
 *
 * Faults: an agent lost mid-run is reported at once, its data so far is
 * kept, the run goes on and ends "degraded" (exit 1 unless
 * --allow-agent-loss). SIGINT/SIGTERM sends Stop to every agent (graceful;
 * the second one is immediate) and the run ends "stopped".
 *
 * Before anything is sent, the console loads the script itself, so a broken
 * script is reported with its own file:line and exit 2. */
#ifndef QUERN_DIST_H
#define QUERN_DIST_H

#include <stdio.h>

/** Default listen address of the console. */
#define DIST_LISTEN_DEFAULT "127.0.0.1:6372"

/** Runs `quern run`; argv[0] is "run".
 *  Understands every option of a local run plus those of dist_usage. Returns
 *  the exit status (console/run.h: 0 ok or stopped, 1 degraded, 2 usage or
 *  script error, 3 could not start). */
int dist_main(int argc, char **argv);

/** Prints the options of a distributed run (for `quern help run`). */
void dist_usage(FILE *out);

#endif
