/* delivery — how much of the load a run asked for was not sent, and why.
 *
 * What it is for: a run whose injector could not send the load it was
 * asked must not pass as if the server had been tested at that load
 * (console/verdict.h's rule 7). The end of a run tells delivery what was
 * asked and what went out; delivery_compute gives the share not sent and
 * one line saying how much and why:
 *   - the open model: arrivals dropped / arrivals scheduled. An arrival
 *     late (it waited for a VU) was sent, late: it counts in `late`, not in
 *     the share. The reason: the injector saturated (when it was); the pool
 *     was too small (its peak reached --max-vus); else the arrivals waited
 *     past --max-lag for VUs still starting;
 *   - the closed model with pacing: runs that missed their pacing slot /
 *     runs. A missed slot is a run the schedule asked for at a time the VU
 *     was still busy with the previous one: it went out late, so the VU
 *     sent fewer runs than its pacing asks; counted as load not sent.
 * A mixed run (a scenario at a rate beside closed ones) takes the larger
 * of the two shares. VUs that never started are not counted: the
 * intervals carry the VUs active at each second's end, not how many ever
 * started (one that finished its --runs early is not one that never ran).
 *
 * Usage:
 *     delivery_in in = {.arrivals = all, .open = 1, .pool = o.max_vus, .pool_peak = peak};
 *     delivery d;
 *     delivery_compute(&in, &d);   // d.share, d.why, d.asked, d.sent ... */
#ifndef QUERN_DELIVERY_H
#define QUERN_DELIVERY_H

#include <stddef.h>
#include <stdint.h>

#include "common/rate.h"

/** Length of delivery.why. */
#define DELIVERY_WHY_MAX 256

/** What the run asked and what it sent. */
typedef struct delivery_in {
    int open;               /**< 1 when some scenario plays arrivals (the open model) */
    rate_counts arrivals;   /**< every scenario's arrivals together */
    unsigned pool;          /**< --max-vus: the pool's size */
    uint32_t pool_peak;     /**< the most VUs the run had at a second's end */
    uint64_t runs;          /**< runs completed, every scenario */
    uint64_t missed_pacing; /**< of them, those that missed their pacing slot */
    int saturated;          /**< 1 when the injector was saturated (its CPU, its loop) */
} delivery_in;

/** The load asked against the load sent. */
typedef struct delivery {
    uint64_t asked;             /**< arrivals scheduled (open), else runs */
    uint64_t sent;              /**< arrivals started (open), else runs in their slot */
    uint64_t dropped;           /**< arrivals never started */
    uint64_t late;              /**< arrivals started after waiting for a VU */
    uint64_t missed_pacing;     /**< runs behind their pacing slot */
    double share;               /**< the load asked that was not sent, 0..1 */
    char why[DELIVERY_WHY_MAX]; /**< "96 of 120 arrivals dropped: ..."; "" when all was sent */
} delivery;

/** Computes *out from *in (see the top of this file). */
void delivery_compute(const delivery_in *in, delivery *out);

#endif
