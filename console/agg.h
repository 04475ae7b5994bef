/* agg — the console's running totals of a run.
 *
 * The agents' seconds, merged (proto/interval_window.h), arrive once per second; agg
 * keeps the whole-run totals per step and per scenario by
 * merging, and the latest interval for the live display. Its cost per second
 * is proportional to the number of steps, never to the number of requests. */
#ifndef QUERN_AGG_H
#define QUERN_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "common/rate.h"
#include "common/stats.h"
#include "common/tally.h"
#include "console/injtot.h"

/** The running totals of a run. */
typedef struct agg {
    size_t nsteps;
    step_stats *total; /**< owned: whole run, per step */
    step_stats last;   /**< owned: all steps of the latest interval merged */
    size_t nscens;
    uint64_t *runs;          /**< owned: per scenario */
    uint64_t *missed_pacing; /**< owned: per scenario */
    rate_counts *arrivals;   /**< owned: per scenario, the open model's arrivals */
    hist **start_lag;        /**< owned: per scenario, NULL until one came: the start lags */
    uint64_t intervals;      /**< intervals merged */
    int64_t elapsed_us;      /**< sum of interval lengths */
    int64_t paused_us;       /**< the load's time paused (quern ctl pause), as the workers
                                  paused it: the merged seconds' paused_us summed */
    int64_t last_length_us;
    uint32_t active_vus;    /**< at the latest interval's end */
    uint32_t vus_peak;      /**< the most at an interval's end (the open model: the pool's peak) */
    uint64_t held;          /**< requests held back for a handle (--max-in-flight) */
    uint64_t held_us;       /**< their waits, summed */
    uint64_t held_max_us;   /**< the longest */
    uint64_t vus_planned;   /**< closed-model VUs the schedule started (console/delivery.h) */
    uint64_t vus_started;   /**< of every VU, those that began a first run */
    uint64_t pace_asked_us; /**< the pacing slots of the runs paced, summed */
    uint64_t pace_lost_us;  /**< how late those runs started past their slot, summed */
    injtot inj;             /**< the workers' own load, per worker and per second */
    injtot console;         /**< the console's own load, its seconds (console/selfload.h) */
    tally tally;            /**< the script's checks and custom metrics, the run's totals */
    int tally_warned;       /**< 1 once a merge of tally was refused and said so */
} agg;

/** Initialises for nsteps steps and nscens scenarios. */
void agg_init(agg *a, size_t nsteps, size_t nscens);
/** Releases what a owns. */
void agg_free(agg *a);
/** Merges one interval: steps[nsteps], runs/missed per scenario. */
void agg_add(agg *a, const step_stats *steps, const uint64_t *runs, const uint64_t *missed,
             int64_t length_us, uint32_t active_vus);
/** Adds one interval's arrivals (nscens entries, borrowed). */
void agg_add_arrivals(agg *a, const rate_counts *arr);
/** Adds one interval's requests held back by --max-in-flight: n of them,
 *  waits summed us, the longest max_us. */
void agg_add_held(agg *a, uint64_t n, uint64_t us, uint64_t max_us);
/** Adds one interval's load asked against load sent: VUs planned and
 *  started, pacing slots asked and slot time lost (Interval's fields). */
void agg_add_delivery(agg *a, uint32_t planned, uint32_t started, uint64_t asked_us,
                      uint64_t lost_us);
/** The mean wait of the requests held back, in ms; 0 when none was. */
double agg_held_mean_ms(const agg *a);
/** Merges one interval's start lags (nscens entries, borrowed; NULL ones
 *  and lag NULL add nothing). */
void agg_add_lag(agg *a, hist *const *lag);
/** Adds one merged second's checks and custom metrics (tally_merge);
 *  what passes the tally's bounds is dropped, with one warning. */
void agg_add_tally(agg *a, const tally *sec);
/** The arrivals of every scenario together into *out; 1 when the run had
 *  any (an open model), else 0. */
int agg_arrivals_all(const agg *a, rate_counts *out);

#endif
