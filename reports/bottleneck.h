/* bottleneck — the bottleneck signature of one step window of a run, by rule.
 *
 * What it is for: a window is one stage of the run's load (runs.req_stages;
 * a capacity staircase is such a list). reports/monitor_html.c measures each window
 * (its load, throughput, errors, and the busiest monitored host's CPU and
 * disk) and bottleneck_judge names what the figures show, compared with the
 * window before, by these rules, in this order, and nothing else:
 *   1. errors: more than BOTTLENECK_ERRORS_PCT % of the window's samples failed:
 *      "errors first: a limit was hit" (a pool, a queue, a rate limit);
 *   2. not judged: the first window, or a load that did not rise by at least
 *      BOTTLENECK_LOAD_RISE_PCT % over the window before (a hold, a descent):
 *      throughput has nothing to follow;
 *   3. scales: throughput rose by at least BOTTLENECK_FOLLOW_PCT % of the load's
 *      relative rise (load +100 %, throughput +25 % or more);
 *   otherwise throughput is flat, and:
 *   4. CPU-bound: a monitored host's mean CPU busy is BOTTLENECK_CPU_SATURATED_PCT
 *      % or more (that host is named);
 *   5. contention: every monitored host's CPU busy and disk busy are below
 *      BOTTLENECK_ROOM_PCT %: the resources have room, so something else
 *      serialises the work (locks, a pool, a synchronized block);
 *   6. flat, unexplained: no monitored host (nothing to tell), or a
 *      resource between BOTTLENECK_ROOM_PCT and BOTTLENECK_CPU_SATURATED_PCT %.
 * Memory, network and the run queue have no known capacity in the data, so
 * no rule reads them. Pure: no I/O, unit-tested (tests/unit/test_bottleneck.c).
 *
 * Usage:
 *     bottleneck_window w = {.load = 20, .tps = 180, .errors_pct = 0, .cpu_pct = 97,
 *                       .cpu_host = "10.0.0.5:9100", .disk_pct = 3, .monitored = 1};
 *     char why[256];
 *     enum bottleneck_kind k = bottleneck_judge(&prev, &w, why, sizeof(why));   // prev NULL: the
 * first
 */
#ifndef QUERN_BOTTLENECK_H
#define QUERN_BOTTLENECK_H

#include <stddef.h>

/** Rule 1: a window whose errors pass this share of its samples, in %. */
#define BOTTLENECK_ERRORS_PCT 1.0
/** Rule 2: the least rise of the load over the window before, in %. */
#define BOTTLENECK_LOAD_RISE_PCT 10.0
/** Rule 3: throughput's rise, in % of the load's rise, that counts as following it. */
#define BOTTLENECK_FOLLOW_PCT 25.0
/** Rule 4: a host's mean CPU busy from which it is saturated, in %. */
#define BOTTLENECK_CPU_SATURATED_PCT 90.0
/** Rule 5: below this (CPU busy and disk busy, every host), a resource has room, in %. */
#define BOTTLENECK_ROOM_PCT 70.0

/** What a window's figures show. */
enum bottleneck_kind {
    BOTTLENECK_NOT_JUDGED = 0,
    BOTTLENECK_ERRORS,
    BOTTLENECK_SCALES,
    BOTTLENECK_CPU_BOUND,
    BOTTLENECK_CONTENTION,
    BOTTLENECK_FLAT
};

/** One window's figures. cpu_host borrowed. NAN: not measured. */
typedef struct bottleneck_window {
    double load;          /**< the stage's target: VUs, or arrivals per second */
    double tps;           /**< mean samples per second */
    double errors_pct;    /**< failed samples, % of the window's samples */
    double cpu_pct;       /**< the highest mean CPU busy of a monitored host, % */
    const char *cpu_host; /**< borrowed: that host, NULL: none */
    double disk_pct;      /**< the highest mean disk busy of a monitored host, % */
    int monitored;        /**< 1: at least one host gave figures in the window */
} bottleneck_window;

/** Short names of the kinds ("cpu-bound", ...), for pages and tests. */
const char *bottleneck_name(enum bottleneck_kind k);

/** Judges w against prev (the window before, NULL for the first) by the
 *  rules above; why gets one sentence with the figures that decided. */
enum bottleneck_kind bottleneck_judge(const bottleneck_window *prev, const bottleneck_window *w,
                                      char *why, size_t len);

#endif
