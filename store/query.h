/* query — the results store's read side: the run model and every query the
 * readers share.
 *
 * What it is for: `quern runs`, `report` and `compare` read the results
 * database (store/schema.sql) through here and store/catalog.h only, so
 * that their renderers (runs.c, report_html.c, compare_html.c) hold no SQL. query_open opens the
 * file for reading (it must exist); query_run_load reads everything known about one run into a
 * query_run: its row, steps, intervals as time series, whole-run totals (summed from the intervals
 * when the run did not end: partial totals), agents, errors, scenarios, thresholds and verdict
 * (store/runverdict.h); a run left running by a console that is gone (store/abandon.h) is
 * loaded with status "abandoned". Which runs there are is store/catalog.h.
 *
 * The time series of a run are built by store/series.h.
 *
 * Usage:
 *     int rc;
 *     db *d = query_open("report", path, &rc);       // NULL: message printed, exit rc
 *     query_run *r = query_run_load(d, id, 0, &missing, err, sizeof(err));
 *     ... r->steps[i].p95_us, r->all.ts.rps[k] ...
 *     query_run_free(r);
 *     db_close(d);
 */
#ifndef QUERN_QUERY_H
#define QUERN_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "common/shade.h"
#include "store/db.h"
#include "store/kindseries.h"
#include "store/dbtally.h"
#include "store/monitor_series.h"
#include "store/runverdict.h"

struct sqlite3;
struct sqlite3_stmt;
struct hist;

/** For the commands that read results (runs, report, compare): opens the
 *  database at path, which must exist. On failure prints one line as
 *  "quern CMD: ..." and sets *exit_rc: 2 when there is none, 3 when it
 *  cannot be read. */
db *query_open(const char *cmd, const char *path, int *exit_rc);

/** Most points a run's time series are read into, and so a chart of it is
 *  given: a longer run is bucketed (width_s seconds a point). */
#define QUERY_POINTS_MAX 600
/** Most steps a run may have to be reported. */
#define QUERY_STEPS_MAX 1000
/** Longest run reported, in seconds (31 days); later seconds are ignored. */
#define QUERY_SECONDS_MAX (31u * 86400u)

/** Per-point series of one step or of the whole run. All owned, npts
 *  entries each; NAN where there is nothing to show (no sample, or a final
 *  point too short to give a rate). */
typedef struct query_series {
    double *rps;         /**< owned: requests (samples) per second */
    double *ok_ps;       /**< owned: successful samples per second */
    double *tech_ps;     /**< owned: technical errors per second */
    double *func_ps;     /**< owned: functional errors per second */
    double *mean_ms;     /**< owned: the mean of the point's merged histogram (response times) */
    double *p50_ms;      /**< owned: the median of the point's merged histogram (response times) */
    double *p95_ms;      /**< owned: its 95th percentile */
    double *p99_ms;      /**< owned: its 99th percentile */
    double *svc_p50_ms;  /**< owned: the same three of the service times */
    double *svc_p95_ms;  /**< owned */
    double *svc_p99_ms;  /**< owned */
    double *msg_sent_ps; /**< owned: WebSocket messages sent per second */
    double *msg_recv_ps; /**< owned: WebSocket messages received per second */
} query_series;

/** A step's whole-run figures: from step_totals, or summed from the
 *  intervals when the run did not end (has_totals 0). */
typedef struct query_step {
    char *test_id;  /**< owned: "SC-<scenario>-STEP-<n>" ("step N" if undeclared) */
    char *label;    /**< owned */
    char *scenario; /**< owned */
    int declared;   /**< 1: in the steps table (0: only rows refer to its index) */
    int has_totals;
    uint64_t count, err_tech, err_func, bytes_in, bytes_out;
    uint64_t requests; /**< HTTP requests sent (0 for a run before schema 9) */
    /** WebSocket messages sent and received and their payload bytes (0 before schema 12) */
    uint64_t ws_sent, ws_recv, ws_bytes_sent, ws_bytes_recv;
    double tps, mean_us;
    uint64_t min_us, p50_us, p90_us, p95_us, p99_us, max_us;
    query_series ts; /**< this step over time */
} query_step;

/** One agent row. */
typedef struct query_agent {
    char *name, *host, *status; /**< owned */
    int64_t workers, vus, lost, requests, errors;
    int64_t vus_peak; /**< the most VUs active on it in a second; -1 unknown (older run) */
} query_agent;

/** One errors row. */
typedef struct query_error {
    int64_t step;        /**< step index */
    char *kind, *sample; /**< owned */
    int64_t count, first_second, last_second;
    char *trace_id; /**< owned: the sample's request's trace id, NULL when none */
} query_error;

/** One slowest row: one of a step's slowest samples. */
typedef struct query_slow {
    int64_t step, rank; /**< step index; 1 the slowest */
    int64_t latency_us, start_us, vu;
    char *trace_id; /**< owned, NULL when none */
} query_slow;

/** One steers row: a change made to the running load (quern ctl). */
typedef struct query_steer {
    int64_t at_us;  /**< from the start of the load */
    char *kind;     /**< owned: "pause", "vus", "rate", "stop" */
    double value;   /**< the VUs or the rate asked (NAN: none) */
    int64_t end_us; /**< a pause's resume, from the start; -1: none */
} query_steer;

/** One scenario_totals row. */
typedef struct query_scen {
    char *name; /**< owned */
    int64_t runs, missed;
    int64_t arr_scheduled, arr_started, arr_late, arr_dropped; /**< the open model's, else 0 */
    int64_t arr_init_waits; /**< of started, after waiting for a new VU's init */
    int64_t arr_inits;      /**< VUs made during the load (their init run then) */
} query_scen;

/** One thresholds row. */
typedef struct query_threshold {
    char *expr, *source, *unit, *description; /**< owned */
    int passed;
    int measurable; /**< 0: measured is NULL in the database */
    double measured, limit;
} query_threshold;

/** A run as the reports see it. Everything owned; query_run_free. */
typedef struct query_run {
    int64_t id;
    char *name, *tags, *script, *script_hash, *properties, *quern_version; /**< owned */
    char *status, *started_at, *ended_at; /**< owned; ended_at NULL while running */
    int64_t vus, started_us;
    int64_t vus_peak;    /**< the most VUs at a second's end, -1 when not recorded */
    int64_t vu_pool;     /**< the open model's pool, 0 in the closed model */
    int64_t ended_us;    /**< -1 when not ended */
    int64_t duration_us; /**< measured (or, not ended, the sum of the intervals) */
    int64_t elapsed_us;  /**< sum of the intervals' lengths */

    query_step *steps; /**< owned: nsteps, by step index */
    size_t nsteps;
    query_step all; /**< every step together (test_id "all"; totals merged) */

    size_t npts;      /**< points of every series */
    unsigned width_s; /**< seconds per point */
    double *vus_ts;   /**< owned: most active VUs in each point (NAN: no row) */

    query_agent *agents; /**< owned: nagents */
    size_t nagents;
    query_error *errors; /**< owned: nerrors */
    size_t nerrors;
    query_slow *slow; /**< owned: nslow, by step, then rank */
    size_t nslow;
    kindseries kinds;  /**< errors by kind, with their errors per second (store/kindseries.h) */
    query_scen *scens; /**< owned: nscens */
    size_t nscens;
    query_steer *steers; /**< owned: the changes made while it ran, in order */
    size_t nsteers;

    /* What the run was asked to do (-1 or NULL: not recorded, an older quern). */
    int64_t req_duration_us;  /**< --duration (0: none) */
    int64_t req_ramp_up_us;   /**< --ramp-up */
    int64_t req_runs;         /**< --runs (0: none) */
    char *req_stages;         /**< owned: --stages ("3s:20,4s:20,3s:0"), NULL: none */
    char *command_line;       /**< owned; redacted when recorded */
    char *console_host;       /**< owned */
    int64_t console_pid;      /**< 0: not recorded */
    char *status_reason;      /**< owned: why it ended so, or why it is abandoned; NULL: none */
    char *run_verdict;        /**< owned: runs.verdict ("passed"/"failed"), NULL: none */
    char *run_verdict_reason; /**< owned: runs.verdict_reason, NULL: none */
    monitor_series mon;       /**< the --monitor hosts' figures, in the same points */
    struct capacity_db_run
        *capacity; /**< owned: its --capacity search (store/capacity_db.h), NULL: none */
    struct little_row *little; /**< owned: Little's law per second (store/little.h) */
    size_t nlittle;            /**< entries in little (0: none, a run from an older quern) */
    struct injector_row *inj;  /**< owned: the injector's own load per second (store/injector.h) */
    size_t ninj;               /**< entries in inj (0: none, a run from an older quern) */
    shade sat;     /**< the saturated seconds of inj as bands, shaded on every time chart */
    shade paused;  /**< the seconds paused (steers), shaded beside them */
    int abandoned; /**< 1: left running by a console that is gone (status is then
                        "abandoned", status_reason says why) */

    dbtally tally; /**< the script's checks and custom metrics (store/dbtally.h) */

    query_threshold *thresholds; /**< owned: nthresholds, by position */
    size_t nthresholds;
    runverdict verdict; /**< the run's verdict (store/runverdict.h) */
} query_run;

/** 1 when r is not a complete run: still running, or abandoned. */
int query_run_incomplete(const query_run *r);

/** Number of seconds run id covers (its last second + 1, 0 when it has no
 *  interval), for choosing a common width_s for several runs. 0, or -1 with
 *  err set. */
int query_run_seconds(db *d, int64_t id, uint64_t *seconds, char *err, size_t errlen);

/** Reads run id. width_s is the seconds per point (0: the smallest giving at
 *  most QUERY_POINTS_MAX points). Returns NULL with err set when the
 *  run does not exist (*missing set to 1) or the database cannot be read
 *  (*missing 0). missing may be NULL. */
query_run *query_run_load(db *d, int64_t id, unsigned width_s, int *missing, char *err,
                          size_t errlen);

/** 1 if s is worth showing: declared by the script, or with samples (an
 *  index only rows refer to, without any, is left out). */
int query_step_shown(const query_step *s);

/** Releases r; NULL is fine. */
void query_run_free(query_run *r);

/* The row helpers of the read side (catalog.c, series.c). */

/** A statement of sq reading run id (bound as its first parameter); NULL with err set ("cannot read
 * the database: ..."). */
struct sqlite3_stmt *query_stmt(struct sqlite3 *sq, const char *sql, int64_t id, char *err,
                                size_t errlen);

/** Column i of st as an owned string (xfree), "" for NULL. */
char *query_col_str(struct sqlite3_stmt *st, int i);

/** Column i of st as a count (a negative or NULL value is 0). */
uint64_t query_col_u64(struct sqlite3_stmt *st, int i);

/** Merges the histogram BLOB in column i of st into h; a malformed one is
 *  skipped (its counters still count). */
void query_col_hist(struct sqlite3_stmt *st, int i, struct hist *h);

/** Ends a row loop over st: 0 when rc (the last sqlite3_step) is
 *  SQLITE_DONE, else -1 with err set. Finalises st either way. */
int query_stmt_done(struct sqlite3 *sq, struct sqlite3_stmt *st, int rc, char *err, size_t errlen);

#endif
