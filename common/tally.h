/* tally — a script's named counts: soft checks and custom metrics.
 *
 * What it is for: a script counts things by name (quern.check's passes and
 * failures, quern.metric's counters, gauges and trends: docs/scenarios.md).
 * A worker keeps one tally, records into it by index (the name is looked up
 * once, when it is first used or declared), sends it up every second and
 * empties it (tally_next); an agent and the console add the tallies of one
 * second together, and the console adds each merged second into the run's
 * totals, both with tally_merge. Every merge is exact: counts and counter
 * totals add, trends merge bucket by bucket.
 *
 * Gauges: one value for the whole run, as k6's: the value last set, by any
 * VU of any worker (the latest by wall clock, each worker's own), and the
 * least and the most ever set. A worker sends its gauge every second once
 * set (its latest value, when it was set, its least and its most), so the
 * merge is the same whatever seconds the workers' last reports fall in.
 *
 * Trends hold their values as thousandths of the script's unit in a hist
 * (common/hist.h): 0.001 is the resolution; values up to HIST_MAX_US / 1000
 * (3,600,000) keep the histogram's precision, larger ones are exact in the
 * max and the mean only.
 *
 * Bounds: at most TALLY_CHECKS_MAX check names and TALLY_METRICS_MAX metrics,
 * names at most TALLY_NAME_MAX - 1 bytes: a receiver drops what is beyond.
 *
 * Usage:
 *     tally t; tally_init(&t);
 *     int c = tally_check_id(&t, "status is 200"); t.checks[c].passes++;
 *     int m = tally_metric_def(&t, "queue", TALLY_GAUGE, err, sizeof(err));
 *     tally_gauge_set(&t.metrics[m], 12, clock_wall_us());
 *     ...each second: send t, then tally_next(&t)...
 *     tally_free(&t); */
#ifndef QUERN_TALLY_H
#define QUERN_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"

#define TALLY_CHECKS_MAX 64      /* check names a run may use */
#define TALLY_METRICS_MAX 64     /* custom metrics a run may declare */
#define TALLY_NAME_MAX 128       /* bytes of a name, NUL included */
#define TALLY_TREND_SCALE 1000.0 /* a trend's values are kept as thousandths */

/** The kinds of custom metric (their numbers travel on the wire). */
enum tally_kind {
    TALLY_COUNTER = 1, /**< a total: add(n) */
    TALLY_GAUGE = 2,   /**< a value: set(v) */
    TALLY_TREND = 3,   /**< a distribution: add(v) */
};

/** One check name's results. */
typedef struct tally_check {
    char name[TALLY_NAME_MAX];
    uint64_t passes;
    uint64_t fails;
} tally_check;

/** One custom metric. */
typedef struct tally_metric {
    char name[TALLY_NAME_MAX];
    enum tally_kind kind;
    uint64_t n;     /**< observations (adds, sets) since the last tally_next */
    double sum;     /**< counter: the total added */
    int has_value;  /**< gauge: set at least once (value, min and max mean something) */
    double value;   /**< gauge: the value last set */
    int64_t set_us; /**< gauge: when it was set, wall clock (epoch microseconds) */
    double min;     /**< gauge: the least value ever set */
    double max;     /**< gauge: the most */
    hist *h;        /**< owned, trend only: the values, in thousandths */
    int fraction;   /**< trend: a value had a fraction; without one, its percentiles, min
                         and max are whole numbers, as its values were (the histogram's
                         buckets would say 1.002 of a run of 1s) */
} tally_metric;

/** A script's checks and metrics. */
typedef struct tally {
    tally_check checks[TALLY_CHECKS_MAX];
    size_t nchecks;
    tally_metric metrics[TALLY_METRICS_MAX];
    size_t nmetrics;
} tally;

/** Initialises t empty. */
void tally_init(tally *t);
/** Releases what t owns (the trends' histograms); t is then empty. */
void tally_free(tally *t);
/** Empties t's counts for a new second, keeping the names, the kinds and the
 *  gauges (a worker's state: sent again next second). */
void tally_next(tally *t);
/** Empties t entirely, names kept: a sum of senders starting again. */
void tally_reset(tally *t);

/** The index of check name, added when new; -1 when TALLY_CHECKS_MAX are
 *  used or the name is empty or too long. */
int tally_check_id(tally *t, const char *name);
/** The index of check name, or -1 when t has none. */
int tally_check_find(const tally *t, const char *name);

/** 1 when name is a valid metric name: [A-Za-z_][A-Za-z0-9_]*, at most
 *  TALLY_NAME_MAX - 1 bytes (it ends up in Prometheus names). */
int tally_name_ok(const char *name);
/** Declares metric name of kind: its index (the same one when declared again
 *  with the same kind), or -1 with err set (a bad name, another kind, too
 *  many metrics). */
int tally_metric_def(tally *t, const char *name, enum tally_kind kind, char *err, size_t errlen);
/** The index of metric name, or -1 when t has none. */
int tally_metric_find(const tally *t, const char *name);
/** Static name of a kind: "counter", "gauge", "trend" ("?" otherwise). */
const char *tally_kind_name(enum tally_kind kind);

/** Records one observation into m (its kind's way; trend: v >= 0). */
void tally_counter_add(tally_metric *m, double n);
void tally_gauge_set(tally_metric *m, double v, int64_t now_wall_us);
void tally_trend_add(tally_metric *m, double v);

/** Merges a gauge's report into d (a gauge): the value set latest wins,
 *  min and max are both's. */
void tally_gauge_merge(tally_metric *d, double value, int64_t set_us, double min, double max);
/** The checks' passes and failures, every name together. */
void tally_checks_all(const tally *t, uint64_t *passes, uint64_t *fails);
/** A trend's statistic in the script's unit: "count", "mean", "min", "max",
 *  or a percentile pct (0..100) when what is NULL. 0 when empty. */
double tally_trend_stat(const tally_metric *m, const char *what, double pct);

/** Adds src into dst: one sender's second into the sum of that second, or a
 *  merged second into the run's totals (the same rule). -1 with err when a
 *  metric of src has another kind in dst, or dst is full (dst then holds
 *  what came before it). */
int tally_merge(tally *dst, const tally *src, char *err, size_t errlen);

#endif
