/* blame — whose delay made a threshold fail: quern's, or the server's.
 *
 * What it is for: an open-model response time counts from each run's
 * intended start, so it holds three delays: the server's service time,
 * quern's own delay in starting the run (its timer, its loop: the start
 * lag, worker/engine/arrive.h) and the wait for a VU (a new VU's init, or a full
 * pool: the server's time, through the pool). A failed response-time
 * threshold is quern's to answer for only when the evidence says so, and
 * the rule, judged on the very threshold that failed, over the same samples:
 *   1. the same threshold on the service times (from each request's actual
 *      start) passes: the server answered in time, and the delay before the
 *      request's start made the failure. Otherwise the server is to blame:
 *      its own time fails;
 *   2. of that delay, quern's own start lag at the same percentile (the
 *      mean for a mean, the largest for a max) is at least half of the gap
 *      between the response and the service times there: the delay was
 *      inside quern, and the injector is to blame (BLAME_INJECTOR);
 *   3. otherwise the delay was the wait for a VU: arrivals waited for a new
 *      VU's init or for a full pool, the server's slowness seen through the
 *      pool (BLAME_POOL, the server's side); in the closed model, runs that
 *      overran their pacing slot.
 * CPU figures take no part: a starved box has low CPU and a late loop, a
 * busy one may be on time. Other thresholds (errors, tps, counts, checks,
 * metrics, and service.* ones) are the server's, and so is a windowed one
 * ("p95[5s]", console/rollwin.h): it failed in its worst window, of which
 * the run's figures are no evidence.
 *
 * Usage:
 *     blame b;
 *     blame_threshold(t, &a, ids, names, secs, &b);   // t failed on a
 *     if (b.who == BLAME_INJECTOR) ... inconclusive: b.why ...
 * Pure: reads a, writes b. */
#ifndef QUERN_BLAME_H
#define QUERN_BLAME_H

#include <stddef.h>

#include "console/agg.h"
#include "console/thresh.h"

/** Length of blame.why. */
#define BLAME_WHY_MAX 320

/** Whose delay made a threshold fail. */
enum blame_who {
    BLAME_SERVER = 0,   /**< the service time fails, or not a response-time threshold */
    BLAME_POOL = 1,     /**< the wait for a VU: the server's time through the pool */
    BLAME_INJECTOR = 2, /**< quern's own start lag */
};

/** The evidence, at the threshold's percentile (ms). */
typedef struct blame {
    int who;                 /**< enum blame_who */
    double response_ms;      /**< the failed figure, from the intended starts */
    double service_ms;       /**< the same over the service times */
    double own_lag_ms;       /**< quern's own start lag there (0: none, closed model) */
    int service_passed;      /**< 1 when the threshold on the service times passes */
    char why[BLAME_WHY_MAX]; /**< "p95 33.7 ms of response times, 0.1 ms of service
                                  times (passes); quern's own start lag p95 34.9 ms" */
} blame;

/** Judges whose delay made t (which failed on a) fail, by the rule above;
 *  ids and names are the script's step ids and display names, secs the
 *  seconds a covers. */
void blame_threshold(const thresh *t, const agg *a, const char *const *ids,
                     const char *const *names, double secs, blame *out);

/** "injector", "pool" or "server". A static string. */
const char *blame_name(int who);

#endif
