/* agent — `quern agent`: the daemon on each load-injector host.
 *
 * It connects out to the console (back-off 1 s doubling to 30 s while none
 * answers), proves it knows the shared token and checks that the console does
 * too (proto/auth.h), registers, then serves runs one after another: for each
 * StartRun it unpacks the bundle (proto/bundle.h) into a private run folder
 * (agent/rundir.h), forks its worker processes (worker/wproc.h) with an
 * interleaved share of its VUs each, holds the start barrier (Ready up when
 * every worker is ready, or the first error), relays Go and Stop down,
 * merges its workers' statistics per second (proto/interval_sum.h) and sends them
 * up, reports a crashed worker, and sends RunFinished when every worker has
 * ended.
 *
 * If the console goes away (EOF, error, or silence for 5 s), every worker is
 * told to stop at once (SIGTERM, SIGKILL 5 s later): no load without a
 * console watching. A wrong token ends the agent with status 1 and a message
 * saying so; SIGINT/SIGTERM stop it (workers first).
 *
 * Files: agent.c the process (main, signals, tick), agentopt.c the options
 * and their help, uplink.c the console link and its handshake
 * (proto/handshake.h), agent_run.c the run and its workers, rundir.c the run
 * folder, runchk.c the checks of a StartRun, fileup.c the result files sent
 * up, preflight.c the script loaded once for the console. */
#ifndef QUERN_AGENT_H
#define QUERN_AGENT_H

#include <stdio.h>

/** Runs `quern agent`; argv[0] is "agent". Returns the exit status: 0 after
 *  SIGINT/SIGTERM, 1 if the console refused us (or failed to prove the
 *  token), 2 on a usage error. */
int agent_main(int argc, char **argv);

/** Prints the command's help. */
void agent_usage(FILE *out);

#endif
