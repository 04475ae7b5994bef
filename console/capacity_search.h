/* capacity_search — a capacity search while it runs: each step judged on its own
 * seconds, the stop at the first failing step, and the capacity found.
 *
 * What it is for: `quern run --capacity START:STEP:HOLD[:MAX]` plays a
 * staircase of loads (common/capacity.h). The console hands capacity_search each
 * merged second; capacity_search adds the seconds a step is judged on
 * (capacity_second: whole seconds of the step's window, once its settle time
 * has passed) into that step's totals, and at the step's last such second
 * judges the run's own thresholds (--threshold and the script's, not the
 * defaults) on them alone: tps over the judged seconds, percentiles of the
 * step's merged histogram, the step's error rate. A failing step asks the
 * caller to stop the run (every sample is kept). The capacity is the load of
 * the last step that passed before the first failure; none when START
 * failed.
 *
 * A step that passed its thresholds with more than
 * CAPACITY_SEARCH_INJ_DROPPED_MAX of its arrivals dropped failed all the
 * same ("load not sent"): a pass at a load not sent is no capacity.
 * A step is injector-limited when quern, not the server, did not keep up
 * with it, by evidence: the injector saturated in its own seconds (CPU and
 * loop lag, a loop stall, quern's own start lag, behind its schedule:
 * common/saturation.h) in more than CAPACITY_SEARCH_INJ_SATURATED_MAX of
 * them and at least two (one marginal second of a 4 s step never decides:
 * console/verdict.h's verdict_saturated); or its failed threshold failed
 * on quern's own delay (console/blame.h: the same threshold on the service
 * times passes, and quern's own start lag explains the gap). Its figures,
 * counted from each arrival's scheduled time, are then quern's own queue.
 * Arrivals that waited for a VU, for new VUs' init or for a full pool,
 * waited for the server's time, never the injector's: by Little's law rate
 * x response time passed the pool (--max-vus), or the server's queue grew
 * until it held the pool, or its init is slow (--vus makes the pool before
 * the first step): a limit of the server (pool_limited). When a step up to
 * the first failing one was injector-limited, passed or failed (a pass at a
 * load not sent is no capacity), the search is limited by the injector: the
 * capacity is the last clean step's, a lower bound ("at least 10000/s"),
 * and the verdict inconclusive (exit 1), or, with --allow-saturation, judged
 * as usual with the warning (allowed); limited by the server when the
 * thresholds failed with the injector keeping up; by MAX when every step
 * passed.
 *
 * Only one step is summed at a time (the current one's agg); each judged
 * step keeps its figures. Cost per second: proportional to the steps of the
 * script, as agg's.
 *
 * Usage:
 *     capacity_search *cs = capacity_search_new(o.cap, o.cap_settle_us, nsteps, nscens);
 *     each merged second:
 *         if (capacity_search_second(cs, second, sum, ths, nth, ids, names)) control_stop(...);
 *     at the end: capacity_search_end(cs, ths, nth, ids, names); capacity_search_print(cs, stdout);
 *     json_t *j = capacity_search_json(cs); ...; capacity_search_free(cs); */
#ifndef QUERN_CAPACITY_SEARCH_H
#define QUERN_CAPACITY_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/capacity.h"
#include "console/agg.h"
#include "console/blame.h"
#include "console/thresh.h"
#include "console/verdict.h"
#include "proto/interval_sum.h"

struct json_t;

/** Longest text of capacity_search_step.failed. */
#define CAPACITY_SEARCH_FAILED_MAX (THRESH_EXPR_MAX + THRESH_DESC_MAX + 8)

/** A step is injector-limited above this share of its arrivals dropped... */
#define CAPACITY_SEARCH_INJ_DROPPED_MAX 0.02
/** ... or above this share waited for a VU (late, or for a new VU's init). */
#define CAPACITY_SEARCH_INJ_LATE_MAX 0.10
/** A step is injector-limited with the injector saturated in more than this
 *  share of its seconds (console/verdict.h's VERDICT_SATURATED_MAX), and in
 *  at least VERDICT_SATURATED_MIN_S of them. */
#define CAPACITY_SEARCH_INJ_SATURATED_MAX VERDICT_SATURATED_MAX
/** Longest text of capacity_search_step.injector. */
#define CAPACITY_SEARCH_INJECTOR_MAX (BLAME_WHY_MAX + 32)

/** One step of the staircase, as judged. */
typedef struct capacity_search_step {
    double load;      /**< arrivals a second, or VUs */
    int64_t t0_us;    /**< the step's window [t0_us, t1_us) from the run's start */
    int64_t t1_us;    /**< its end */
    int64_t from_us;  /**< the first judged second's start (t0_us + the settle, rounded up) */
    int judged;       /**< 1 once judged (0: the run ended before any of its judged seconds) */
    int passed;       /**< 1 when every threshold passed on its seconds */
    unsigned seconds; /**< seconds judged */
    unsigned saturated_seconds; /**< of them, seconds in which a worker did not keep up */
    unsigned clear_seconds;     /**< of those, seconds a worker was clearly saturated in */
    uint64_t count;             /**< samples of every script step in them */
    double tps, p50_ms, p95_ms, p99_ms, errors_pct; /**< the step's figures */
    char failed[CAPACITY_SEARCH_FAILED_MAX]; /**< "p95<200ms: p95 of all steps = ..."; "" when
                                                passed */
    thresh_result *rs; /**< owned once judged: each threshold's verdict on the step */
    size_t nrs;        /**< entries in rs */
    uint64_t arr_scheduled, arr_late, arr_dropped; /**< the open model's arrivals in its seconds */
    uint64_t arr_init_waits; /**< of them, started after waiting for a new VU's init */
    uint64_t arr_started;    /**< started in its seconds (late and init waits included) */
    uint64_t arr_inits;      /**< VUs made in its seconds: their init ran in the step */
    int blame;               /**< a failed step: whose delay failed it (enum blame_who) */
    double lag_p99_ms;       /**< their start lag p99 (0: none) */
    int injector_saturated;  /**< 1 when capacity_search_step_injector says so */
    /** "injector saturated in 3 of 4 s; 17661 started, 0 late, 0 dropped of
     *  99999 arrivals, ..." when injector_saturated, else "" */
    char injector[CAPACITY_SEARCH_INJECTOR_MAX];
    /** 1 when its arrivals waited for VUs past the shares, or its failed
     *  threshold failed on that wait, the injector keeping up: the server's
     *  time (its response time filled the pool, or its init is slow) */
    int pool_limited;
    /** "pool too small for the server's response time: 60/s x 0.201 s = 12
     *  VUs busy, the pool has 10; ..." when pool_limited, else "" */
    char pool[CAPACITY_SEARCH_INJECTOR_MAX + 64];
    uint32_t vus_peak;     /**< the most VUs at one of its seconds' ends */
    uint64_t runs, run_us; /**< runs ended in its seconds, their durations summed */
} capacity_search_step;

/** The search's state; created by capacity_search_new. */
typedef struct capacity_search {
    capacity_plan plan;          /**< a copy of --capacity */
    int64_t settle_us;           /**< --capacity-settle */
    size_t nsteps;               /**< the script's steps */
    size_t nscens;               /**< the script's scenarios */
    capacity_search_step *steps; /**< owned: plan.nsteps entries */
    size_t cur;                  /**< the step being summed */
    int summing;                 /**< 1 while cur has seconds in a */
    agg a;                       /**< owned: the totals of cur's judged seconds */
    int failed;                  /**< 1 once a step failed: nothing more is judged */
    size_t failed_step;          /**< that step */
    unsigned pool;               /**< the open model's pool (--max-vus); 0: unknown or closed. Set
                                      by the caller after capacity_search_new */
    int allow_saturation;        /**< --allow-saturation: an injector-limited search is judged
                                      as usual, with the warning. Set by the caller */
} capacity_search;

/** Whether a step's arrivals waited for VUs past what a server's step
 *  allows: more than CAPACITY_SEARCH_INJ_DROPPED_MAX of its scheduled
 *  arrivals dropped, or more than CAPACITY_SEARCH_INJ_LATE_MAX waited (late,
 *  or for a new VU's init). 1 or 0. */
int capacity_search_step_waited(uint64_t scheduled, uint64_t waited, uint64_t dropped);

/** Whether a step's seconds say the injector was saturated:
 *  saturated_seconds of its seconds past CAPACITY_SEARCH_INJ_SATURATED_MAX
 *  and at least VERDICT_SATURATED_MIN_S, or clear_seconds of them (clearly
 *  saturated) at least one (verdict_saturated). Waits for VUs
 *  are never the injector's (see the top). 1 or 0. */
int capacity_search_step_injector(unsigned seconds, unsigned saturated_seconds,
                                  unsigned clear_seconds);

/** What decided the search: "injector" (a judged step was injector-limited,
 *  passed or failed), "server" (a step failed on its thresholds otherwise),
 *  "max" (every step passed), "stopped" (the run ended before a step
 *  failed); NULL when nothing was judged. A static string. */
const char *capacity_search_limited_by(const capacity_search *cs);

/** A search over plan (copied), for a script of nsteps steps and nscens scenarios. */
capacity_search *capacity_search_new(const capacity_plan *plan, int64_t settle_us, size_t nsteps,
                                     size_t nscens);

/** Releases cs; NULL is fine. */
void capacity_search_free(capacity_search *cs);

/** Takes one merged second; late: the rest of a second already taken (a
 *  sender that reported after the merge), added to its step if that step
 *  is not judged yet. Judges the step with the nth thresholds ths at its
 *  last judged second, the staircase's last step only at capacity_search_end (the
 *  run's last second often comes in parts); ids and names are the script's
 *  step ids and display names. Returns 1 when the step failed just now: the
 *  caller stops the run. */
int capacity_search_second(capacity_search *cs, uint64_t second, const interval_sum *sum, int late,
                           const thresh *const *ths, size_t nth, const char *const *ids,
                           const char *const *names);

/** At the run's end: judges the step being summed if the run stopped
 *  before its last second (Ctrl-C, the last step's end cut short). */
void capacity_search_end(capacity_search *cs, const thresh *const *ths, size_t nth,
                         const char *const *ids, const char *const *names);

/** The capacity: 1 with the index of the last step that passed before any
 *  failure or injector-limited step in *step; 0 when none did. */
int capacity_search_found(const capacity_search *cs, size_t *step);

/** The verdict of threshold i on the step that decided the search (the
 *  capacity's step, or the first step when it failed), its description
 *  prefixed with the step's load, into *out: 1, or 0 when no step decided
 *  (nothing judged). */
int capacity_search_result(const capacity_search *cs, size_t i, thresh_result *out);

/** Steps judged (those in the summary: up to and including the failing one). */
size_t capacity_search_judged(const capacity_search *cs);

/** A capacity search's verdict, given v decided without thresholds (an
 *  aborted, degraded or empty run keeps its own): inconclusive with exit 1
 *  when limited by the injector; else passed with exit 0 when a capacity
 *  was found, failed with exit 1 when even START failed. */
void capacity_search_verdict(const capacity_search *cs, verdict *v);

/** Prints the steps and the capacity ("Capacity: 300/s (400/s failed: ...)"). */
void capacity_search_print(const capacity_search *cs, FILE *out);

/** One line for the verdict: "capacity 300/s: ..." or "no capacity: the
 *  first step ... failed: ...", into buf. Returns buf. */
char *capacity_search_why(const capacity_search *cs, char *buf, size_t len);

/** The summary JSON's "capacity": found, value (null when not found), unit,
 *  settle_s, limited_by, steps [{load, tps, p50_ms, p95_ms, p99_ms,
 *  errors_pct, passed, failed, injector_saturated, injector (its figures, when
 *  saturated), pool_limited, pool (its figures, when), arrivals (open model:
 *  {scheduled, late, dropped, start_lag_p99_ms})}]. A new reference: the caller releases it. */
struct json_t *capacity_search_json(const capacity_search *cs);

#endif
