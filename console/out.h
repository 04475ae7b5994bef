/* out — `quern run --out KIND=TARGET`: the merged seconds pushed while the
 * run goes, once per merged second and once at the end, from the console
 * (one stream for the whole distributed run).
 *
 * Kinds: jsonl=FILE (console/outjsonl.h), influxdb=URL (console/outinflux.h,
 * the URL as given: InfluxDB 1.x /write?db=, 2.x /api/v2/write?org=&bucket=),
 * prometheus-rw=URL (console/outprw.h, remote write 1.0). --out-header
 * 'Name: value' (repeatable) goes with every HTTP push, and so does
 * "Authorization: Bearer TOKEN" with --out-token-file (the token is never
 * shown; the command line stored shows secret headers masked).
 *
 * A receiver never slows the run: the loop only renders a push (its cost
 * is proportional to the steps) and queues it; each output has a thread of
 * its own that sends. Bounds: OUT_QUEUE_MAX pushes pending per output (a
 * new one past it drops the oldest), OUT_PUSH_MAX bytes a push, each try
 * OUT_TRY_MS at most, OUT_TRIES tries, then the push is dropped and
 * counted; the end of the run waits OUT_END_WAIT_MS at most for what is
 * pending, and one warning per output says what was lost. URLs are shown
 * redacted (out_redact), never with their credentials.
 *
 * Usage:
 *     if (out_check(&o) != 0) return 2;                  // after opts_parse
 *     outs *s = out_start(&o, err, sizeof(err));         // NULL: err
 *     ... each merged second: out_second(s, &v, second, sum, late);
 *     out_end(s, &v);   // the totals, the bounded wait, the warnings
 * where v, an out_run, is the run as the pushes see it, filled by the run's
 * control for each call (control_out_view, console/control.h).
 *     out_free(s); */
#ifndef QUERN_OUT_H
#define QUERN_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "common/props.h"
#include "common/rate.h"
#include "common/stats.h"
#include "console/agg.h"
#include "console/opts.h"
#include "proto/interval_sum.h"

/** Pushes pending per output at most. */
#define OUT_QUEUE_MAX 16
/** Largest push, bytes (a larger one is dropped and counted). */
#define OUT_PUSH_MAX (8u << 20)
/** One try's bound, milliseconds (connecting included). */
#define OUT_TRY_MS 2000
/** Tries per push. */
#define OUT_TRIES 3
/** How long the end of the run waits for the pending pushes, ms. */
#define OUT_END_WAIT_MS 3000
/** Longest token of --out-token-file, bytes. */
#define OUT_TOKEN_MAX 4096
/** --out flags at most. */
#define OUT_MAX 8

/** What one push shows: one merged second, or (final) the run's totals. */
typedef struct out_input {
    const char *run;          /**< borrowed: the run's name */
    uint64_t run_id;          /**< the run's id in the database */
    uint64_t second;          /**< the second's index; at the end, the seconds merged */
    int late, final;          /**< a late second; the totals at the end */
    size_t nsteps;            /**< entries of steps, names, scens */
    const step_stats *steps;  /**< borrowed: the second's (final: the run's) per step */
    const char *const *names; /**< borrowed: full step names */
    const char *const *scens; /**< borrowed: each step's scenario ("" unknown) */
    uint32_t vus;             /**< active VUs at the second's end */
    int has_arrivals;         /**< an open model: arrivals below are meaningful */
    rate_counts arrivals;     /**< every scenario's, in the second (final: the run) */
    const props *tags;        /**< borrowed: --tag pairs, or NULL */
    const agg *a;             /**< borrowed: the totals so far (remote write's counters) */
    uint32_t vus_max;         /**< --vus */
    int64_t now_ns;           /**< wall clock of the push, ns since the epoch */
    const tally *tally;       /**< borrowed: the second's (final: the run's) checks and custom
                                   metrics, or NULL */
    double seconds;           /**< the seconds tally covers (a counter's rate) */
} out_input;

/** The run as its pushes see it, borrowed from the run for one call. */
typedef struct out_run {
    uint64_t run_id;               /**< the run's id */
    size_t nsteps;                 /**< entries of ids and names */
    const char *const *ids;        /**< borrowed: the steps' test ids */
    const char *const *names;      /**< borrowed: their full names */
    size_t nscens;                 /**< entries of scen_names */
    const char *const *scen_names; /**< borrowed: the scenarios' names */
    const props *tags;             /**< borrowed: --tag pairs, or NULL */
    const agg *a; /**< borrowed: the totals so far; NULL before the steps are known */
} out_run;

/** The outputs of a run; opaque. */
typedef struct outs outs;

/** Checks the --out and --out-header flags: kinds, URLs' schemes,
 *  headers' form. 0, or -1 after one usage line on stderr. */
int out_check(const run_opts *o);

/** Opens the files and starts one thread per output. NULL without --out
 *  (not an error: *err is then ""), or NULL with a message in err. */
outs *out_start(const run_opts *o, char *err, size_t errlen);

/** Queues one merged second of the run v for every output (v->a not
 *  NULL). Loop thread only; s may be NULL. */
void out_second(outs *s, const out_run *v, uint64_t second, const interval_sum *sum, int late);

/** Queues the totals of the run v (none when v->a is NULL), waits
 *  OUT_END_WAIT_MS at most for every output to send what is pending, stops
 *  the threads and warns once per output that lost pushes. NULL s is fine. */
void out_end(outs *s, const out_run *v);

/** Frees s (stopping its threads if out_end was not called). NULL is fine. */
void out_free(outs *s);

/** Copies url to buf with its credentials masked (common/redact.h's
 *  redact_url: the password of its user-info, the value of a query
 *  parameter that names a secret). Returns buf. */
const char *out_redact(const char *url, char *buf, size_t buflen);

#endif
