/* delivery — how much of the load a run asked for was not sent, and why.
 *
 * What it is for: a run whose injector could not send the load it was
 * asked must not pass as if the server had been tested at that load
 * (console/verdict.h's rule 8). The end of a run tells delivery what was
 * asked and what went out; delivery_compute gives the share not sent and
 * one line saying how much and why:
 *   - the open model: arrivals dropped / arrivals scheduled. Scheduled is
 *     what the rate asked by each second's end (worker/engine/arrive.h), whether
 *     the worker took the arrivals or fell behind; those never taken by
 *     the stop are dropped. An arrival late (it waited for a VU) was sent, late: it counts in
 * `late`, not in the share. The reason: the injector saturated (when it was); the pool was too
 * small (its peak reached --max-vus); else the arrivals waited past --max-lag for VUs still
 * starting;
 *   - the closed model: the VUs that never started, and the pacing's runs
 *     not sent by those that did. A VU never started is one the schedule
 *     asked to start (its start time on the ramp or the stages came before
 *     the run stopped; not one that left before its start) that never
 *     began a first run (its init never ended: a slow or blocked login, a
 *     worker behind): it sent none of its load, and the VUs active at a
 *     second's end do not show it. Their share: never started / planned.
 *     A VU that finished its --runs early did start;
 *   - the closed model with pacing: the slot time lost over the time the
 *     pacing's runs took. A run due at its slot (the previous run's start +
 *     the pacing) whose VU was still busy starts late by some time; the VU
 *     then sends fewer runs than its pacing asks: over the same time T, the
 *     pacing asked T / pacing runs and it ran N, the share not sent
 *     1 - N x pacing / T, which is lost / (asked + lost) with asked the
 *     pacing slots summed and lost the lateness of each late start summed
 *     (pacing 1 s, runs of 1.5 s: 0.5 / 1.5, a third). A run missing its
 *     slot by 0.1 s loses 0.1 s of load, not a whole run;
 *   - both: the share never started, plus the pacing's share of the rest.
 * A mixed run (a scenario at a rate beside closed ones) takes the larger
 * of the open and the closed share.
 *
 * Usage:
 *     delivery_in in = {.arrivals = all, .open = 1, .pool = o.max_vus, .pool_peak = peak,
 *                       .vus_planned = a.vus_planned, .vus_started = a.vus_started, ...};
 *     delivery d;
 *     delivery_compute(&in, &d);   // d.share, d.why, d.asked, d.sent ... */
#ifndef QUERN_DELIVERY_H
#define QUERN_DELIVERY_H

#include <stddef.h>
#include <stdint.h>

#include "common/rate.h"

/** Length of delivery.why. */
#define DELIVERY_WHY_MAX 384

/** What the run asked and what it sent. */
typedef struct delivery_in {
    int open;               /**< 1 when some scenario plays arrivals (the open model) */
    rate_counts arrivals;   /**< every scenario's arrivals together */
    unsigned pool;          /**< --max-vus: the pool's size */
    uint32_t pool_peak;     /**< the most VUs the run had at a second's end */
    uint64_t runs;          /**< runs completed, every scenario */
    uint64_t missed_pacing; /**< of them, those that missed their pacing slot */
    uint64_t pace_asked_us; /**< the pacing slots of the runs paced, summed */
    uint64_t pace_lost_us;  /**< how late those runs started past their slot, summed */
    uint64_t vus_planned;   /**< closed-model VUs the schedule asked to start by the stop */
    uint64_t vus_started;   /**< closed-model VUs that began a first run */
    int saturated;          /**< 1 when the injector was saturated (its CPU, its loop) */
} delivery_in;

/** The load asked against the load sent. */
typedef struct delivery {
    uint64_t asked;             /**< arrivals scheduled (open), else runs */
    uint64_t sent;              /**< arrivals started (open), else runs in their slot */
    uint64_t dropped;           /**< arrivals never started */
    uint64_t late;              /**< arrivals started after waiting for a VU */
    uint64_t missed_pacing;     /**< runs behind their pacing slot */
    uint64_t pace_lost_us;      /**< the slot time those runs lost, summed */
    uint64_t vus_planned;       /**< closed-model VUs asked to start */
    uint64_t vus_never;         /**< of them, VUs that never began a run */
    double share;               /**< the load asked that was not sent, 0..1 */
    char why[DELIVERY_WHY_MAX]; /**< "96 of 120 arrivals dropped: ...", "1,200 of
                                     10,000 VUs never started: ..."; "" when all was sent */
} delivery;

/** Computes *out from *in (see the top of this file). */
void delivery_compute(const delivery_in *in, delivery *out);

#endif
