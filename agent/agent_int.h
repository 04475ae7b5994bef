/* agent_int — what the agent's files share: the agent, its run and worker
 * slots, and the functions one file calls in another. Internal to agent/.
 *
 * agent.c owns the process (main, signals, the tick), agentopt.c the
 * options, uplink.c the link to the console (connect, retry, handshake,
 * the console's messages), agent_run.c the run (bundle, workers, barrier,
 * merging, crashes, result files). */
#ifndef QUERN_AGENT_INT_H
#define QUERN_AGENT_INT_H

#include <ev.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "agent/fileup.h"
#include "agent/stall.h"
#include "common/ratelog.h"
#include "proto/handshake.h"
#include "proto/interval_window.h"
#include "proto/peer.h"

#define AGENT_BACKOFF_MIN 1.0
#define AGENT_BACKOFF_MAX 30.0
#define AGENT_CONNECT_TIMEOUT 5.0
#define AGENT_SILENCE_US 5000000      /* console silent this long: lost */
#define AGENT_HANDSHAKE_US 5000000    /* connected this long and not registered: drop it */
#define AGENT_REFUSAL_LOG_US 10000000 /* one line per this much about refusals */
/* A worker still there this long after SIGTERM and the grace, or past the
 * run's planned end, is judged by agent/stall.h: killed if held, waited for
 * (up to a ceiling) while it still sends its seconds. */
#define AGENT_KILL_AFTER_US STALL_DUE_AFTER_US
#define AGENT_OVERRUN_US STALL_DUE_AFTER_US
#define AGENT_MERGE_GRACE_US 1500000 /* send a second without a late worker after this */
#define AGENT_WORKERS_MAX 1024
#define AGENT_QUEUE_MAX (FRAME_MAX_DEFAULT + 4096u)

/** Where the console link is: connecting, in the handshake, or ready. */
enum conn_state { CS_IDLE, CS_CONNECTING, CS_HELLO, CS_PROOF, CS_RESULT, CS_REGISTER, CS_READY };

struct agent;
struct agent_run;

/** One worker process of the current run. */
typedef struct wslot {
    struct agent_run *run; /**< borrowed: the run it belongs to */
    unsigned index;
    pid_t pid; /**< 0 once reaped */
    peer link; /**< the socketpair to it */
    int ready, finished, eof, signalled;
    int overran; /**< SIGKILLed for not ending in time: lost, not stopped */
    uint32_t vus;
    int64_t last_rx_us;         /**< when it last sent a frame: its progress (agent/stall.h) */
    enum stall_verdict judged;  /**< why it was killed past its time (STALL_WAIT: it was not) */
    int64_t silent_us, late_us; /**< at that kill: how long it had been silent, and how long
                                     past its time to end (the planned end or stop + grace) */
} wslot;

/** The run in progress. */
typedef struct agent_run {
    struct agent *a; /**< borrowed */
    uint64_t run_id;
    char dir[PATH_MAX]; /**< the unpacked bundle, "" if none */
    int dir_hold;       /**< owned: dir's descriptor, locked (rundir_hold); -1: none */
    unsigned nworkers;
    wslot *w; /**< owned: nworkers entries */
    int have_steps, ready_sent, failed, go, stopping, orphan;
    int immediate;        /**< the stop was immediate: workers are SIGKILLed at once, by choice */
    int64_t kill_at_us;   /**< immediate: SIGKILL what is left at this time; else the stop's due
                               time, past which agent/stall.h judges each worker (0: not armed) */
    int64_t grace_us;     /**< the schedule's grace */
    int64_t planned_us;   /**< duration + grace from Go, 0 when the run has no duration */
    int64_t end_by_us;    /**< the planned end's due time: a worker still there is judged by
                               agent/stall.h (0: none) */
    int64_t paused_at_us; /**< a Steer paused the load then (monotonic; 0: not paused): the
                               planned end is not due, and comes later by the pause */
    size_t nsteps, nscens;
    char **scen_names;   /**< owned: nscens owned names */
    interval_window win; /**< the seconds being merged from the workers */
    uint64_t crashed;    /**< workers that crashed */
    const char *status;  /**< borrowed literal: "completed", "stopped", ... */
    int want_files;      /**< StartRun asked for the JTL or the Grinder logs */
    fileup *up;          /**< owned: those files going up, once the workers are gone */
    uint64_t lua_mem;    /**< bytes each worker's Lua state may hold (--worker-memory) */
    struct probe
        *probe; /**< owned: the targets profiled during the run (agent/probe.h), NULL none */
} agent_run;

/** The agent process: its console link and its run. */
typedef struct agent {
    struct ev_loop *loop; /**< owned */
    const char *host;     /**< borrowed from argv */
    char port[16];
    char name[128];
    unsigned workers;
    uint64_t lua_mem;     /**< --worker-memory, 0: from the host's memory (common/memsize.h) */
    const char *work_dir; /**< borrowed from argv: where run folders go, NULL: $TMPDIR or /tmp */
    uint32_t vus_max;     /**< VUs this host can hold (runchk_agent_vus_max) */
    int same_host;        /**< --same-host: a run may name its folder (StartRun.local_folder) */
    const char *profile_allow; /**< borrowed from argv: --profile-allow, NULL: none */
    char *token;               /**< owned (auth_token_free) */
    size_t token_len;

    enum conn_state cs;
    int cfd;        /**< owned: socket while connecting, else -1 */
    ev_io cio;      /**< connect completion */
    ev_timer retry; /**< back-off, and the connect timeout */
    double backoff;
    peer con;     /**< the console, once connected */
    handshake hs; /**< this connection's nonces and keys */
    int64_t last_rx_us;
    int64_t conn_us;  /**< when the connection was made (handshake deadline) */
    ratelog refusals; /**< lines about consoles that refused us or failed the handshake */
    uint64_t ping_seq;
    ev_timer tick; /**< 100 ms: pings, silence, reaping, merge grace */

    agent_run *run; /**< owned: NULL when idle */
    int sigpipe[2]; /**< owned: self-pipe of SIGINT/SIGTERM */
    ev_io sigio;
    int quitting;
    int rc; /**< exit status once the loop ends */
} agent;

/* agent.c */

/** In a forked worker: the default SIGINT/SIGTERM and no self-pipe. */
void agent_child_signals(void);

/* agentopt.c */

/** Parses `quern agent`'s arguments into a (workers, name, host, port, log
 *  level) and *token_file (borrowed from argv). Returns 0, or -1 after a
 *  message on stderr. */
int agentopt_parse(agent *a, int argc, char **argv, const char **token_file);

/** Prints the command's help. */
void agentopt_usage(FILE *out);

/* uplink.c */

/** Starts connecting to the console (a failure retries after the back-off). */
void uplink_connect(agent *a);

/** Sends env to the console if the link is registered, else drops it. */
void uplink_send(agent *a, Quern__Envelope *env);

/** The 100 ms tick of the link: silence, handshake deadline, pings. */
void uplink_tick(agent *a, int64_t now_us);

/** The watcher callbacks, set up by agent_main. */
void uplink_on_connected(struct ev_loop *loop, ev_io *w, int revents);
void uplink_on_retry(struct ev_loop *loop, ev_timer *w, int revents);

/* agent_run.c */

/** Starts the run sr asks for (or answers Ready(false) why not). */
void agent_run_start(agent *a, const Quern__StartRun *sr);

/** Stops the workers: immediate SIGKILLs them, else Stop or SIGTERM. */
void agent_run_stop(agent_run *r, int immediate, const char *why);
/** The console's Steer (env->steer, run r's): checked, then passed to every
 *  live worker as it is (each takes its own share of a new number of VUs,
 *  its stripe of a new rate); dropped before Go or once stopping. */
void agent_run_steer(agent_run *r, const Quern__Envelope *env);

/** Reaps exited workers, enforces the deadlines, ends the run when every
 *  worker is gone. */
void agent_run_check(agent *a);

/** Kills what is left of r and frees it; fine on NULL. */
void agent_run_free(agent_run *r);

#endif
