/* report — `quern report [RUN] [--db F] [-o FILE]`, and the run model that
 * `quern compare` shares.
 *
 * What it is for: everything known about one recorded run, read from the
 * results database alone (reports/schema.sql) into a report_run, then
 * written as one self-contained HTML page: summary, charts (inline SVG) of
 * throughput, response-time percentiles, errors and active VUs for the run
 * and for each step, then the step, agent, error and scenario tables and the
 * run's settings. Its verdict (reports/verdict.h) heads the page, with a
 * section listing each threshold's verdict; a run left running by a console
 * that is gone (reports/abandon.h) is loaded with status "abandoned" and
 * said to be incomplete.
 *
 * Time series: the run's seconds are grouped into points of width_s seconds
 * (1 unless the run is longer than HTML_CHART_POINTS_MAX seconds). A point's
 * counters are the sums of every step_intervals row of its seconds (late
 * rows from agents included), its percentiles come from the merged
 * histograms of those rows (never from averaged percentiles), and its rates
 * divide by the measured length of its intervals. A last point shorter than
 * half its width (the run's final, partial second) is folded into the one
 * before, so that a few samples over a few milliseconds do not show as a
 * spike.
 *
 * Usage:
 *     report_run *r = report_run_load(d, id, 0, err, sizeof(err));
 *     ... r->steps[i].p95_us, r->all.rps[k] ...
 *     report_run_free(r);
 */
#ifndef QUERN_REPORT_H
#define QUERN_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reports/db.h"
#include "reports/runverdict.h"

/** Most steps a run may have to be reported. */
#define REPORT_STEPS_MAX 1000
/** Longest run reported, in seconds (31 days); later seconds are ignored. */
#define REPORT_SECONDS_MAX (31u * 86400u)

/** Per-point series of one step or of the whole run. All owned, npts
 *  entries each; NAN where there is nothing to show (no sample, or a final
 *  point too short to give a rate). */
typedef struct report_series {
    double *rps;     /**< requests (samples) per second */
    double *ok_ps;   /**< successful samples per second */
    double *tech_ps; /**< technical errors per second */
    double *func_ps; /**< functional errors per second */
    double *p50_ms;  /**< percentiles of the point's merged histogram */
    double *p95_ms;
    double *p99_ms;
} report_series;

/** A step's whole-run figures: from step_totals, or summed from the
 *  intervals when the run did not end (has_totals 0). */
typedef struct report_step {
    char *test_id;  /**< owned: "SC-<scenario>-STEP-<n>" ("step N" if undeclared) */
    char *label;    /**< owned */
    char *scenario; /**< owned */
    int declared;   /**< 1: in the steps table (0: only rows refer to its index) */
    int has_totals;
    uint64_t count, err_tech, err_func, bytes_in, bytes_out;
    double tps, mean_us;
    uint64_t min_us, p50_us, p90_us, p95_us, p99_us, max_us;
    report_series ts; /**< this step over time */
} report_step;

/** One agent row. */
typedef struct report_agent {
    char *name, *host, *status; /**< owned */
    int64_t workers, vus, lost, requests, errors;
} report_agent;

/** One errors row. */
typedef struct report_error {
    int64_t step;        /**< step index */
    char *kind, *sample; /**< owned */
    int64_t count, first_second, last_second;
} report_error;

/** One scenario_totals row. */
typedef struct report_scen {
    char *name; /**< owned */
    int64_t runs, missed;
} report_scen;

/** One thresholds row. */
typedef struct report_threshold {
    char *expr, *source, *unit, *description; /**< owned */
    int passed;
    int measurable; /**< 0: measured is NULL in the database */
    double measured, limit;
} report_threshold;

/** A run as the reports see it. Everything owned; report_run_free. */
typedef struct report_run {
    int64_t id;
    char *name, *tags, *script, *script_hash, *properties, *quern_version; /**< owned */
    char *status, *started_at, *ended_at; /**< owned; ended_at NULL while running */
    int64_t vus, started_us;
    int64_t ended_us;    /**< -1 when not ended */
    int64_t duration_us; /**< measured (or, not ended, the sum of the intervals) */
    int64_t elapsed_us;  /**< sum of the intervals' lengths */

    report_step *steps; /**< nsteps, by step index */
    size_t nsteps;
    report_step all; /**< every step together (test_id "all"; totals merged) */

    size_t npts;      /**< points of every series */
    unsigned width_s; /**< seconds per point */
    double *vus_ts;   /**< owned: most active VUs in each point (NAN: no row) */

    report_agent *agents;
    size_t nagents;
    report_error *errors;
    size_t nerrors;
    report_scen *scens;
    size_t nscens;

    /* What the run was asked to do (-1 or NULL: not recorded, an older quern). */
    int64_t req_duration_us;  /**< --duration (0: none) */
    int64_t req_ramp_up_us;   /**< --ramp-up */
    int64_t req_runs;         /**< --runs (0: none) */
    char *command_line;       /**< owned; redacted when recorded */
    char *console_host;       /**< owned */
    int64_t console_pid;      /**< 0: not recorded */
    char *status_reason;      /**< owned: why it ended so, or why it is abandoned; NULL: none */
    char *run_verdict;        /**< owned: runs.verdict ("passed"/"failed"), NULL: none */
    char *run_verdict_reason; /**< owned: runs.verdict_reason, NULL: none */
    int abandoned;            /**< 1: left running by a console that is gone (status is then
                                   "abandoned", status_reason says why) */

    report_threshold *thresholds; /**< nthresholds, by position */
    size_t nthresholds;
    runverdict verdict; /**< the run's verdict (reports/runverdict.h) */
} report_run;

/** 1 when r is not a complete run: still running, or abandoned. */
int report_run_incomplete(const report_run *r);

/** Number of seconds run id covers (its last second + 1, 0 when it has no
 *  interval), for choosing a common width_s for several runs. 0, or -1 with
 *  err set. */
int report_run_seconds(db *d, int64_t id, uint64_t *seconds, char *err, size_t errlen);

/** Reads run id. width_s is the seconds per point (0: the smallest giving at
 *  most HTML_CHART_POINTS_MAX points). Returns NULL with err set when the
 *  run does not exist (*missing set to 1) or the database cannot be read
 *  (*missing 0). missing may be NULL. */
report_run *report_run_load(db *d, int64_t id, unsigned width_s, int *missing, char *err,
                            size_t errlen);

/** 1 if s is worth showing: declared by the script, or with samples (an
 *  index only rows refer to, without any, is left out). */
int report_step_shown(const report_step *s);

/** Releases r; NULL is fine. */
void report_run_free(report_run *r);

/** The id of the newest run (name NULL) or of the newest run named name
 *  with an id below before (before 0: no bound), into *id; *id is 0 when
 *  there is none. 0, or -1 with err set. */
int report_run_find(db *d, const char *name, int64_t before, int64_t *id, char *err, size_t errlen);

/** Whether run id is complete into *complete: 0 when it is still running or
 *  was abandoned (its row says "running" or "abandoned"), else 1. 0, or -1
 *  with err set. */
int report_run_complete(db *d, int64_t id, int *complete, char *err, size_t errlen);

/** Parses a run id argument ("12"): > 0, or 0 when it is not one. */
int64_t report_parse_id(const char *s);

/** Writes the HTML report of r to out. */
void report_html(FILE *out, const report_run *r);

/** Writes a whole file through emit(out, arg) into path, atomically (a
 *  temporary file renamed). 0, or -1 with err set. */
int report_write_file(const char *path, void (*emit)(FILE *out, const void *arg), const void *arg,
                      char *err, size_t errlen);

/** Runs the command; argv[0] is "report". Returns 0, 2 on a usage error
 *  (unknown run included), 3 when the database or the output cannot be
 *  read or written. */
int report_main(int argc, char **argv);
/** Prints the command's help. */
void report_usage(FILE *out);

#endif
