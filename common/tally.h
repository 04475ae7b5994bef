/* tally — a script's named counts: soft checks and custom metrics.
 *
 * What it is for: a script counts things by name (quern.check's passes and
 * failures, quern.metric's counters, gauges and trends: docs/scenarios.md).
 * A worker keeps one tally, records into it by index (the name is looked up
 * once, when it is first used or declared), sends it up every second and
 * empties it (tally_next); an agent and the console add the tallies of one
 * second together (tally_add_second), and the console adds each merged
 * second into the run's totals (tally_add_run). Every merge is exact:
 * counts and counter totals add, trends merge bucket by bucket.
 *
 * Gauges: a worker's gauge is its latest value, sent every second once set.
 * A second's gauge is the sum of every worker's latest value (a queue depth
 * of the whole run), and the run keeps the latest second's sum as the
 * gauge's value, and the least and the most of those seconds' sums.
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
 *     tally_gauge_set(&t.metrics[m], 12);
 *     ...each second: send t, then tally_next(&t)...
 *     tally_free(&t); */
#ifndef QUERN_TALLY_H
#define QUERN_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"

#define TALLY_CHECKS_MAX 64  /* check names a run may use */
#define TALLY_METRICS_MAX 64 /* custom metrics a run may declare */
#define TALLY_NAME_MAX 128   /* bytes of a name, NUL included */
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
    double value;   /**< gauge: the latest value (a sum of senders' in a second) */
    double min;     /**< gauge: the least value (tally_add_run: of the seconds) */
    double max;     /**< gauge: the most */
    hist *h;        /**< owned, trend only: the values, in thousandths */
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
/** Empties t's counts for a new second, keeping the names, the kinds and a
 *  gauge's latest value (a worker's state: sent again next second). */
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
void tally_gauge_set(tally_metric *m, double v);
void tally_trend_add(tally_metric *m, double v);

/** The checks' passes and failures, every name together. */
void tally_checks_all(const tally *t, uint64_t *passes, uint64_t *fails);
/** A trend's statistic in the script's unit: "count", "mean", "min", "max",
 *  or a percentile pct (0..100) when what is NULL. 0 when empty. */
double tally_trend_stat(const tally_metric *m, const char *what, double pct);

/** Adds one sender's second src into dst, the sum of that second; -1 with
 *  err when a metric of src has another kind in dst, or dst is full (dst
 *  holds what came before). */
int tally_add_second(tally *dst, const tally *src, char *err, size_t errlen);
/** Adds one merged second sec into the run's totals run (gauges: the value
 *  becomes sec's, min and max are over the seconds); -1 as above. */
int tally_add_run(tally *run, const tally *sec, char *err, size_t errlen);

#endif
