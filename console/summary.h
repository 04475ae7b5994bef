/* summary — the end-of-run table and the --summary-json file. */
#ifndef QUERN_SUMMARY_H
#define QUERN_SUMMARY_H

#include <stdio.h>

#include "console/agg.h"

struct delivery;
struct json_t;
struct thresh;
struct thresh_result;

/** What the summary needs to know about the steps and scenarios. All
 *  borrowed: the caller fills it for the calls below. */
typedef struct summary_info {
    const char *status;   /**< borrowed: "completed", "stopped", "aborted" */
    long long run_id;     /**< the run's id in the results database; 0: none (--db none) */
    const char *name;     /**< borrowed: the run's name (--name, else the script's) */
    int64_t started_us;   /**< Go, wall clock, microseconds since the epoch; 0: unknown */
    unsigned vus;         /**< the VUs asked for (with stages, the largest target) */
    unsigned vus_steered; /**< the closed model's VUs the last `vus N` asked, 0: never steered */
    unsigned vu_ids; /**< the distinct VUs (ids) the run may use: vus, or every id of the stages */
    const char *const *step_ids;    /**< borrowed: nsteps "SC-X-STEP-n" */
    const char *const *step_labels; /**< borrowed: nsteps labels */
    const char *const *step_names;  /**< borrowed: nsteps "SC-X-STEP-n)label" */
    const char *const *scen_names;  /**< borrowed: nscens */
    /* The thresholds of the run and their verdicts (the JSON's "thresholds"). */
    const struct thresh *const *thresholds;        /**< borrowed: nthresholds; NULL when none */
    const struct thresh_result *threshold_results; /**< borrowed: nthresholds verdicts */
    const char *const *threshold_sources; /**< borrowed: "cli" or "file:line"; may be NULL */
    size_t nthresholds;
    int verdict_passed;      /**< the run's verdict (console/verdict.h) */
    int verdict_allowed;     /**< --allow-saturation judged it as usual (verdict.allowed) */
    const char *verdict;     /**< borrowed: its line: "passed: ...", "failed: ..."; NULL: none */
    struct json_t *capacity; /**< borrowed: the JSON's "capacity" (--capacity), NULL: none */
    struct json_t *profile;  /**< borrowed: the JSON's "profile" (--profile), NULL: none */
    unsigned max_in_flight;  /**< --max-in-flight, 0: none (the JSON's run.held_back) */
    unsigned vu_pool;        /**< the open model: --max-vus, the pool's size; 0: closed */
    unsigned vus_peak;       /**< the open model: the pool's peak (VUs at a second's end) */
    const struct delivery *load; /**< borrowed: the load asked against sent (the JSON's
                                      run.load, the line "Load: ..."); NULL: none */
    int64_t paused_us;           /**< time paused by quern ctl, left out of the duration
                                      (the JSON's run.paused_s); 0: none */
} summary_info;

/** The share by which a step's service times (from each request's actual
 *  start) must fall below its response times (from the intended start), in
 *  mean or p95, for the table to show them too. */
#define SUMMARY_SVC_SHARE 0.10

/** Prints the per-step table (count, errors, TPS, mean, percentiles, max of
 *  the response times), saying which latency it shows, then the service
 *  times of the steps where they differ (SUMMARY_SVC_SHARE). */
void summary_print(FILE *out, const agg *a, const summary_info *si);
/** The JSON summary (what --summary-json writes), owned by the caller
 *  (json_decref). */
struct json_t *summary_json(const agg *a, const summary_info *si);

/** Prints the injector's line: "Injector: saturated 12 of 40 s (agent local,
 *  worker 0: CPU 100 %, loop lag p99 280 ms)" or "Injector: kept up (CPU max
 *  43 %, loop lag p99 2 ms)", then the console's own seconds ("; console kept
 *  up (CPU max 5 %, loop lag p99 1 ms)" or "; console saturated 2 of 40 s
 *  (...)"); nothing when neither a worker nor the console measured its load. */
void summary_print_injector(FILE *out, const agg *a);
/** The JSON's run.injector: {saturated_s, measured_s, cpu_max_pct,
 *  loop_lag_p99_ms, workers: [{agent, worker, saturated_s, cpu_max_pct,
 *  loop_lag_p99_ms}], console: {saturated_s, measured_s, cpu_max_pct,
 *  loop_lag_p99_ms, loop_lag_max_ms}} (the workers' figures only count the
 *  workers; console is there once the console measured a second). */
struct json_t *summary_injector_json(const agg *a);
/** Writes the JSON summary to path; 0 ok, -1 with err. */
int summary_write_json(const char *path, const agg *a, const summary_info *si, char *err,
                       size_t errlen);
/** Writes it to out (--summary-json -: the standard output kept for it),
 *  flushed; 0 ok, -1 with err. */
int summary_dump_json(FILE *out, const agg *a, const summary_info *si, char *err, size_t errlen);

#endif
