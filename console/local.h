/* local — the agent a one-machine run starts for itself.
 *
 * `quern run` without --agents is the same distributed run as on a lab of
 * injectors, with one agent on this host: the console writes a one-time
 * random token to a private file, starts `quern agent` as a child process
 * connected to its loopback port, and stops it when the run is over. The
 * child is in its own process group (a terminal's Ctrl-C reaches only the
 * console, which stops the run gracefully) and dies with the console. */
#ifndef QUERN_LOCAL_H
#define QUERN_LOCAL_H

#include <stddef.h>
#include <sys/types.h>

typedef struct local_agent {
    pid_t pid;            /**< the agent process, 0 when none */
    char token_path[256]; /**< owned file: the one-time token, "" when none */
} local_agent;

/** Writes a fresh random token to a new mode-600 file (path kept in la) in
 *  $TMPDIR (else /tmp), which must pass the agent's check of its work folder
 *  (agent/rundir.h), and hands back the same token in *token (owned by the
 *  caller, auth_token_free) and *token_len. 0 ok; -1 with err. */
int local_token(local_agent *la, char **token, size_t *token_len, char *err, size_t errlen);
/** Starts the agent for the console on 127.0.0.1:port with workers worker
 *  processes (0: the agent's default, one per core). 0 ok; -1 with err. */
int local_agent_start(local_agent *la, unsigned port, unsigned workers, char *err, size_t errlen);
/** Removes the token file: once the agent has authenticated, it and the
 *  console hold the token in memory and the file is not needed any more
 *  (a console killed later leaves no secret on disk). Safe to repeat. */
void local_token_drop(local_agent *la);
/** Whether the agent has already exited (reaped here, la->pid then 0):
 *  1 with its exit status in *code (128 + the signal when killed), 0 while
 *  it runs or when none was started. A run waiting for its agent stops at
 *  once instead of waiting out --wait. */
int local_agent_exited(local_agent *la, int *code);
/** Stops the agent (SIGTERM, then SIGKILL after a while), reaps it and
 *  removes the token file. Safe to call on an unstarted la. */
void local_agent_stop(local_agent *la);

#endif
