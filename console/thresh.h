/* thresh — pass/fail thresholds of a run ("p95<500ms", "SC-*-STEP-1: errors<1%").
 *
 * What it is for: `quern run --threshold EXPR` (repeatable, or declared in
 * the script: quern.threshold) turns a run into a CI verdict. Each expression is
 * parsed once into a thresh; at the end of the run (and, for
 * --abort-on-fail, after every interval) it is evaluated against the run's
 * totals (agg) into a thresh_result, which says passed or failed and carries
 * a one-line description for people ("p95 of SC-X-STEP-2 = 612.3 ms,
 * limit < 500 ms").
 *
 * Grammar (whitespace allowed around the parts):
 *     [SCOPE ":"] METRIC OP VALUE
 *     SCOPE   a glob (fnmatch) on step ids or display names: "SC-X-STEP-2",
 *             "SC-*-STEP-1". Without it, all steps merged (histograms merged,
 *             counts summed). The scope ends at the last ':'.
 *     METRIC  pN (percentile, N in [0, 100], e.g. p95, p99.9), mean (or avg),
 *             max: response time, VALUE a duration ("500ms", "1s", "1m") or
 *             a bare number of milliseconds ("100", "0.5"); service.pN,
 *             service.mean, service.max: the same over the service times
 *             (common/stats.h);
 *             errors, errors.technical, errors.functional: error rate over
 *             all samples, VALUE a percentage with '%' ("1%", "0.5%");
 *             tps: samples per second over the elapsed time, VALUE a number
 *             (an optional "/s" is accepted);
 *             count: samples, VALUE a whole number;
 *             arrivals.scheduled, arrivals.started, arrivals.late,
 *             arrivals.dropped: the open model's arrivals of every
 *             scenario (worker/engine/arrive.h), VALUE a whole number; no scope.
 *     OP      < <= > >=
 *     WINDOW  after a response-time, error or tps METRIC, "[D]" (whole
 *             seconds, 1s to THRESH_WINDOW_MAX_S: "p95[10s]<300ms",
 *             "errors[30s]<1%"): the threshold holds in every window of D
 *             consecutive seconds of the run, judged exactly on the
 *             per-second merged histograms (console/rollwin.h), and its
 *             verdict is the worst window's; a run shorter than D is one
 *             window. Not with a scope-less count, arrivals, checks or metrics.
 *
 * The script's soft checks and custom metrics (common/tally.h), without a
 * scope (their braces name them; a name runs to the last '}'):
 *     checks OP PCT            every check's passes over its runs, merged
 *     checks{NAME} OP PCT      one check's ("checks{status is 200}>=99%")
 *     metric{NAME}[.FIELD] OP NUMBER
 *             a custom metric, in the script's unit: a counter's total
 *             (the default) or rate (per second); a gauge's value (the
 *             default), min or max; a trend's pN, mean, min, max or count
 *             (a trend has no default). ':' may stand for '.'
 *             ("metric{basket}:p95<200").
 *
 * Verdicts: a scope that matches no step fails, a check or metric the run
 * never recorded fails (a metric the script does not declare is refused
 * before the run: threshtally_check); a response-time or error
 * threshold over steps without a single sample fails ("no samples"): a
 * threshold that could not be checked is not a pass.
 *
 * Usage:
 *     char err[ERR_MAX];
 *     thresh *t = thresh_parse("p95<500ms", err, sizeof(err));
 *     if (t == NULL)
 *         fprintf(stderr, "quern run: --threshold %s\n", err);
 *     thresh_result r;
 *     thresh_eval(t, &a, ids, names, (double)a.elapsed_us / 1e6, &r);
 *     printf("%s %s\n", r.passed ? "PASS" : "FAIL", r.desc);
 *     thresh_free(t);
 *
 * --abort-on-fail: evaluate each threshold on the data so far after each
 * interval and stop the run when thresh_can_still_pass says 0 (see there). */
#ifndef QUERN_THRESH_H
#define QUERN_THRESH_H

#include <stddef.h>
#include <stdint.h>

#include "console/agg.h"

/** Longest rolling window of a threshold ("p95[10m]"), seconds. */
#define THRESH_WINDOW_MAX_S 600

/** Longest expression accepted, in bytes. */
#define THRESH_EXPR_MAX 512

/** --abort-on-fail waits for this much of the run before judging a
 *  threshold that may still recover (percentiles, mean, errors, tps<). */
#define THRESH_ABORT_MIN_S 10.0
/** ... and for this many samples in the threshold's steps. */
#define THRESH_ABORT_MIN_SAMPLES 100

/** What a threshold measures. */
enum thresh_metric {
    THRESH_PERCENTILE,    /**< pN response time */
    THRESH_MEAN,          /**< mean response time */
    THRESH_MAX,           /**< largest response time */
    THRESH_ERRORS,        /**< (technical + functional) errors / count */
    THRESH_ERR_TECH,      /**< technical errors / count */
    THRESH_ERR_FUNC,      /**< functional errors / count */
    THRESH_TPS,           /**< count / elapsed seconds */
    THRESH_COUNT,         /**< count */
    THRESH_ARR_SCHEDULED, /**< arrivals due (the open model) */
    THRESH_ARR_STARTED,   /**< arrivals started */
    THRESH_ARR_LATE,      /**< arrivals that waited for a VU of a full pool */
    THRESH_ARR_DROPPED,   /**< arrivals never started */
    THRESH_CHECKS,        /**< soft checks' passes / runs (name: one check, else all) */
    THRESH_METRIC,        /**< a custom metric's field (name, field) */
};

/** Comparison: the measured value must be OP the limit to pass. */
enum thresh_op {
    THRESH_LT, /**< < */
    THRESH_LE, /**< <= */
    THRESH_GT, /**< > */
    THRESH_GE, /**< >= */
};

/** One parsed threshold; read-only for callers, built by thresh_parse. */
typedef struct thresh {
    char *expr;                /**< owned: the expression as given, trimmed */
    char *scope;               /**< owned: the step glob, NULL for all steps */
    enum thresh_metric metric; /**< what is measured */
    enum thresh_op op;         /**< how it is compared */
    double pct;                /**< THRESH_PERCENTILE: N of pN */
    int service;               /**< service.pN, service.mean, service.max: the service times
                                    (from each step's actual start), not the response times */
    int64_t limit_us;          /**< response-time metrics: the limit, microseconds */
    uint64_t limit_pct_e9;     /**< error metrics: the limit in percent times 10^9 (exact) */
    double limit_tps;          /**< THRESH_TPS: the limit, samples per second */
    uint64_t limit_count;      /**< THRESH_COUNT and the arrivals: the limit */
    char *name;                /**< owned: THRESH_CHECKS's check (NULL: every check),
                                    THRESH_METRIC's metric */
    char field[16];            /**< THRESH_METRIC: "" (the kind's default), "total", "rate",
                                    "value", "min", "max", "count", "mean" or "pN" (pct) */
    double limit_val;          /**< THRESH_METRIC: the limit, in the script's unit */
    unsigned window_s;         /**< "p95[10s]": judged in every window of this many seconds
                                    (console/rollwin.h); 0: over the whole run */
} thresh;

/** Length of thresh_result.desc. */
#define THRESH_DESC_MAX 256

/** The verdict of one threshold on some data. */
typedef struct thresh_result {
    int passed;                 /**< 1 passed, 0 failed */
    double measured;            /**< in the metric's unit: ms, percent, per second, samples */
    double limit;               /**< the limit in the same unit */
    uint64_t samples;           /**< samples in the threshold's steps */
    size_t nsteps;              /**< steps the scope matched (all steps without a scope) */
    char desc[THRESH_DESC_MAX]; /**< "p95 of SC-X-STEP-2 = 612.3 ms, limit < 500 ms" */
} thresh_result;

/** Parses one expression. Returns a new thresh (release with thresh_free),
 *  or NULL with a message in err naming the expression and what is wrong:
 *  "'p95<abc': \"abc\" is not a duration (...)". The caller prefixes where
 *  it came from ("--threshold ", "scenario X: "). */
thresh *thresh_parse(const char *expr, char *err, size_t errlen);

/** Releases t; NULL is fine. */
void thresh_free(thresh *t);

/** 1 when step (its id or its display name) is within t's scope: always
 *  for a threshold without scope. step_name may be NULL. */
int thresh_covers(const thresh *t, const char *step_id, const char *step_name);

/** Checks that t's scope matches at least one of the nsteps steps; 0, or -1
 *  with a message in err ("'SC-Y*: p95<1s': no step matches \"SC-Y*\"").
 *  Steps are known once the script is loaded: call it before the run starts
 *  so that a typo is a usage error, not a failed run. */
int thresh_check_scope(const thresh *t, const char *const *step_ids, const char *const *step_names,
                       size_t nsteps, char *err, size_t errlen);

/** Evaluates t on a's totals (a->nsteps steps, whose ids and display names
 *  are step_ids[i] and step_names[i]; step_names may be NULL), elapsed_s
 *  being the seconds the data covers (for tps). Fills *out and returns
 *  out->passed. Works as well on partial data during the run. */
int thresh_eval(const thresh *t, const agg *a, const char *const *step_ids,
                const char *const *step_names, double elapsed_s, thresh_result *out);

/** The unit of t's measured value and limit: "ms", "%", "/s", or "" for a
 *  count. Static string. */
const char *thresh_unit(const thresh *t);

/** 1 when r, t's evaluation, measured something; 0 when t's scope matched
 *  no step, or a response-time or error threshold had no sample: r->measured
 *  is then meaningless (stored as NULL, written as null). */
int thresh_measured(const thresh *t, const thresh_result *r);

/** For --abort-on-fail: given r, t's evaluation on the data so far after
 *  elapsed_s seconds of the run, returns 1 if t may still pass by the end of
 *  the run, 0 if the run should stop now. Rules:
 *  - a passing threshold may still pass;
 *  - count and max only grow: "count<", "count<=", "max<", "max<=" that fail
 *    now fail for good (0 at once); "count>", "count>=", "max>", "max>=",
 *    "tps>" and "tps>=" may always still pass (never abort);
 *  - a scope that matches no step never will (0);
 *  - any other failing threshold (percentiles, mean, errors, "tps<") is
 *    judged final only once elapsed_s >= THRESH_ABORT_MIN_S and r->samples
 *    >= THRESH_ABORT_MIN_SAMPLES (early samples are noisy: warm-up,
 *    connection set-up), as k6 does with its abortOnFail delay. */
int thresh_can_still_pass(const thresh *t, const thresh_result *r, double elapsed_s);

/** Formats v as thresholds print numbers: at most 3 decimals, no trailing
 *  zeros ("612.3", "0.5", "2"). Returns buf. */
const char *thresh_num(double v, char *buf, size_t len);
/** The comparison's text: "<", "<=", ">", ">=". */
const char *thresh_op_str(enum thresh_op op);
/** 1 when v OP limit holds (a NaN passes nothing). */
int thresh_holds(enum thresh_op op, double v, double limit);
/** The same between two integers, exactly. */
int thresh_holds_exact(enum thresh_op op, unsigned __int128 v, unsigned __int128 limit);
/** 1 when t is about errors (errors, errors.technical, errors.functional). */
int thresh_about_errors(const thresh *t);

#endif
