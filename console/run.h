/* run — the state of one `quern run SCRIPT.lua [options]`, from its options
 * to its exit status. Every run is distributed: without --agents nor
 * --listen the console listens on a loopback port and starts a local agent
 * itself (console/local.h), one machine, one command.
 *
 * struct run is the state of the files that carry the run out: only these
 * include this header and see its fields (tests/lint/runstate.sh reads
 * the list):
 *   run.c      run_main, run_check: the script checked, the bundle, the
 *              database, the listener, the loop;
 *   agents.c   connections: handshake, registration, what agents send;
 *   control.c  the barrier, Go and Stop, merging, the tick, the signals;
 *   rundb.c    the results database;
 *   finish.c   the summary, the thresholds' verdicts, the exit status,
 *              JUnit, the summary JSON.
 * The rest of the console is handed what it needs for one call: a view
 * that control.c fills (out_run, webfeed_run, steering_run), what a check
 * prints (preview_input); main.c and verdict.c see console/runcmd.h. */
#ifndef QUERN_RUN_H
#define QUERN_RUN_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/props.h"
#include "common/ratelog.h"
#include "common/tally.h"
#include "console/agents.h"
#include "console/agg.h"
#include "console/capacity_search.h"
#include "console/gather.h"
#include "console/live.h"
#include "console/local.h"
#include "console/monitor.h"
#include "console/opts.h"
#include "console/out.h"
#include "console/rollwin.h"
#include "console/runcmd.h"
#include "console/selfload.h"
#include "console/serve/ctlsrv.h"
#include "console/serve/metrics.h"
#include "console/serve/web.h"
#include "console/steering.h"
#include "proto/bundle.h"
#include "proto/interval_window.h"
#include "store/db.h"
#include "store/monitor_db.h"
#include "console/profile.h"

/** Where the run stands (console/control.h says what each phase does). */
enum run_phase { PHASE_WAIT, PHASE_START, PHASE_RUN, PHASE_END };

/** One run of the console. */
typedef struct run {
    run_opts o;
    props *p;             /**< owned: merged properties */
    struct ev_loop *loop; /**< owned */
    int lfd;              /**< owned: listening socket */
    ev_io accept_io;
    ev_timer tick;
    ev_signal sigint, sigterm;
    char *token; /**< owned */
    size_t token_len;
    aconn **conns; /**< owned array of owned connections */
    size_t nconns;
    const agents_up *up; /**< borrowed: where agents.c hands an agent's frames of the run
                              (control_up, set by run_init) */
    unsigned running;    /**< agents_running's count, while running_known */
    int running_known;   /**< 0: an agent joined, finished or was lost since it was counted */
    unsigned next_index;
    enum run_phase phase;
    int64_t phase_us; /**< when the phase began */
    int64_t go_us, stop_us, end_us;
    int64_t go_wall_us;    /* Go, wall clock: the summary's run.started_at */
    unsigned pool_workers; /* the open model: worker processes, each a VU of the pool at least */
    FILE *json_out;        /* owned: the standard output kept for --summary-json -, or NULL */
    uint64_t run_id;
    bundle bundle; /**< the scenario's folder, packed once for every agent */
    bundle made;   /**< files the script's check made for the bundle (preflight.made) */
    /* Steps, from the first agent's StepsDef. */
    size_t nsteps, nscens;
    char **ids, **labels, **names, **scen_names; /**< owned arrays of owned strings */
    agg agg;
    int have_agg;
    interval_window win; /**< the seconds being merged from the agents */
    selfload self;       /**< the console's own load, from Go to the end */
    int interrupted, aborted, degraded, start_error, rc;
    /* The signal that stopped the load before its planned end (0: none, or
     * it came once the plan was done), and when, from Go. */
    int stop_signal;
    int64_t stop_signal_us;
    char start_msg[2048];
    uint64_t ping_seq;
    int64_t last_ping_us;
    db *db;                   /**< owned: results database, NULL when not recording */
    int64_t db_run;           /**< the run's id in it (0: not begun) */
    int db_failed;            /**< a write failed: no more progress is recorded */
    int64_t db_start_us;      /**< wall clock at Go */
    unsigned port;            /**< the port listened on */
    int64_t accept_paused_us; /**< accepting paused (out of descriptors) since, 0: not */
    live *live;               /**< owned: the live display, once the steps are known */
    int threshold_stop;       /**< --abort-on-fail stopped the run */
    char **th_src;            /**< owned: per o.th, NULL (--threshold) or owned "file:line" */
    size_t nth_user;          /**< o.th[nth_user..] are the defaults (console/verdict.h) */
    tally decl;               /**< the custom metrics the script declares (names, kinds): the
                                   run's totals start with them (a metric never given a value
                                   is shown too) */
    char degraded_why[512];   /**< what degraded the run, when not only a lost agent */
    local_agent la;           /**< the embedded agent, when o.embedded */
    ratelog refused_log;      /**< lines about peers refused during the handshake */
    ratelog token_log;        /**< lines about peers with a wrong token */
    gather *gather;           /**< owned: --jtl / --grinder-logs files, NULL without */
    metrics *metrics;         /**< owned: the --metrics endpoint, NULL without */
    outs *outs;               /**< owned: the --out pushes, NULL without */
    monitor *monitor;         /**< owned: the --monitor scrapes, from Go to the end; NULL without */
    monitor_db *monitor_db;   /**< owned: their statements, NULL when not recorded */
    profile *profile;         /**< owned: --profile's targets and their answers, NULL: none */
    web *web;                 /**< owned: the --web page, NULL without */
    ctlsrv *ctl;              /**< owned: the --control endpoint, NULL without */
    steering steer;           /**< what its commands carried out left (console/steering.h) */
    uint32_t ctl_vus_max;     /**< --control in the closed model: the ceiling of vus N (the
                                   run's VU ids), 0 when its VUs cannot be steered */
    capacity_search *cap;     /**< owned: the --capacity search once the steps are known, or NULL */
    rollwin *roll;            /**< owned: the windowed thresholds' windows ("p95[10s]"), or NULL */
    size_t has_setup, has_teardown; /**< scenarios with sc.setup, sc.teardown (preflight.h) */
    char *setup_data;               /**< owned: what setup returned, as JSON, or NULL (StartRun) */
    size_t setup_len;               /**< its bytes */
    int keep_pf;                    /**< run_load keeps the script's load in pf (quern check) */
    struct preflight *pf;           /**< owned: that load, or NULL */
    unsigned nwarnings;             /**< warnings the script's check printed (console/scan.h) */
} run;

/** What a run does before it starts anything, and all `quern check` does
 *  (console/preview.h): reads the properties into r->p (the file, then over;
 *  each within what an agent takes, agent/runchk.h), loads the script as every worker will
 * (agent/preflight.h), prints its warnings on stderr (console/scan.h), checks what it declares
 * against the options (stages, rate) and adds its thresholds. r->o is parsed. 0; -1 with one line
 * in err, *is_script set to 1 when it is the script's
 *  ("file:line: ...") and 0 when it is the run's. */
int run_load(run *r, const props *over, char *err, size_t errlen, int *is_script);
/** Sets r to an empty run with the options' defaults (for tests and fuzzing). */
void run_init(run *r, int argc, char **argv);
/** Frees what r owns (not r itself). */
void run_free(run *r);

#endif
