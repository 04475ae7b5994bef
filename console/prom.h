/* prom — a run's totals as Prometheus text (exposition format 0.0.4).
 *
 * What it is for: --metrics (console/serve/metrics.h) serves this text; the
 * console's loop renders it once per merged second from the run's totals
 * (console/agg.h), so a scrape only copies a buffer. Every series carries
 * the labels run (the run's name in the database) and, per step, step (the
 * full step name "SC-...-STEP-n)label"):
 *   quern_requests_total, quern_errors_total{kind="technical|functional"},
 *   quern_bytes_received_total, quern_bytes_sent_total   counters, per step;
 *   quern_websocket_{messages,bytes}_{sent,received}_total   counters, per
 *       step, in a run with WebSocket messages only;
 *   quern_latency_seconds   a classic histogram per step: cumulative
 *       _bucket{le=...} at the PROM_NBOUNDS bounds of prom_bounds_us (ten a
 *       decade, 100 us to 80 s) then le="+Inf", _sum, _count, counted from
 *       the merged HDR histograms (hist_cumulative), never from percentiles;
 *       response times, from each sample's intended start;
 *   quern_service_seconds   the same over the service times (actual start);
 *   quern_arrivals_total{state="scheduled|started|late|dropped"}   the open
 *       model's arrivals, every scenario together (absent in a closed run);
 *   quern_injector_cpu_ratio{agent,worker}, quern_injector_loop_lag_seconds
 *       {agent,worker}   gauges: each worker's CPU (1 = a core) and worst
 *       loop lag in its latest second; quern_injector_saturated_seconds_total
 *       the seconds a worker could not keep up in (absent until one reported);
 *   quern_checks_total{check,result="pass|fail"}   the script's soft checks;
 *   quern_metric_NAME_total   a custom counter (quern.metric.counter);
 *   quern_metric_NAME   a custom gauge (the value last set), or a custom
 *       trend as a summary: quantile="0.5|0.9|0.95|0.99", _sum, _count, in
 *       the script's unit, from the merged HDR histogram; one family each;
 *   quern_vus, quern_vus_max   gauges: active VUs, the VUs asked for;
 *   quern_paused   gauge: 1 while quern ctl holds the load, else 0;
 *   quern_threshold_passed{expr=...}   1 or 0, per threshold.
 * Label values are escaped as the format says (\\, \", \n).
 *
 * Usage:
 *     prom_input in = {"nightly", names, &agg, 50, ths, nth, 0};
 *     size_t len;
 *     char *text = prom_render(&in, &len);   // owned, NUL-terminated; NULL: too big
 *     ...
 *     xfree(text); */
#ifndef QUERN_PROM_H
#define QUERN_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "console/agg.h"

/** The Content-Type of the text prom_render writes. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/** Bounds of quern_latency_seconds, besides +Inf. */
#define PROM_NBOUNDS 60
/** Longest text prom_render writes, in bytes (about 6,000 steps). */
#define PROM_TEXT_MAX (64u << 20)

/** The bucket bounds, microseconds, ascending: 1, 1.25, 1.6, 2, 2.5, 3.2,
 *  4, 5, 6.3 and 8 times each power of ten from 100 us to 10 s. */
extern const uint64_t prom_bounds_us[PROM_NBOUNDS];

/** A threshold's verdict so far. */
typedef struct prom_threshold {
    const char *expr; /**< borrowed: the expression as given */
    int passed;       /**< 1 passed, 0 failed */
} prom_threshold;

/** What one rendering shows. */
typedef struct prom_input {
    const char *run;          /**< borrowed: the run's name */
    const char *const *steps; /**< borrowed: a->nsteps full step names */
    const agg *a;             /**< borrowed: the totals so far; NULL before the steps are known */
    uint32_t vus_max;         /**< the VUs asked for (--vus, or quern ctl's vus N) */
    const prom_threshold *th; /**< borrowed: nth verdicts */
    size_t nth;
    int paused; /**< quern ctl paused the load */
} prom_input;

/** Renders in as exposition text: HELP and TYPE lines then the samples of
 *  each family. Returns an owned NUL-terminated string of *len bytes (free
 *  it with xfree), or NULL when it would exceed PROM_TEXT_MAX. */
char *prom_render(const prom_input *in, size_t *len);

/** Writes the decimal form of us microseconds as seconds into buf, with no
 *  trailing zeros ("0.000125", "2.5", "80"). Returns buf. */
const char *prom_seconds(uint64_t us, char *buf, size_t buflen);

#endif
