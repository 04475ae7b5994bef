/* interval_sum — one interval's statistics summed over senders, and the Interval
 * message built from them.
 *
 * What it is for: a worker turns its engine's interval into an Interval
 * message (interval_sum_msg_new); an agent adds its workers' Interval messages for
 * one second into an interval_sum and sends the sum up (interval_sum_add_msg, then
 * interval_sum_msg_new); the console adds its agents' messages the same way and
 * hands the sum to agg_add. Histograms travel encoded (hist_encode) and are
 * merged bucket by bucket, never averaged. A step's service times travel
 * only when they differ from its response times (service_histogram); a
 * sum keeps them apart from the first sender whose differ, adding the
 * others' response times in their place, so the sum is exact and a run
 * with nothing late merges one histogram a step (common/stats.h).
 *
 * The workers' own loads (Interval.injector) are not summed: each worker's
 * entry is kept apart, the sum concatenates them (at most INTERVAL_SUM_LOAD_MAX),
 * so that the console sees every agent's every worker.
 *
 * Scenarios travel by name (ScenarioCount.name); the receiver maps them to
 * its indices with the scenario name table it built from StepsDef.
 *
 * Usage:
 *     interval_sum s;
 *     interval_sum_init(&s, nsteps, nscens);
 *     if (interval_sum_add_msg(&s, msg, scen_names, err, sizeof(err)) != 0) ...;
 *     Quern__Interval *up = interval_sum_msg_new(run_id, second, s.steps, s.nsteps, ...);
 *     ...send it...; interval_sum_msg_free(up);
 *     interval_sum_free(&s);
 *
 * Cost: proportional to steps, never to requests. */
#ifndef QUERN_INTERVAL_SUM_H
#define QUERN_INTERVAL_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "common/rate.h"
#include "common/stats.h"
#include "common/tally.h"
#include "proto/quern.pb-c.h"

#define INTERVAL_SUM_LOAD_MAX 4096 /* injector entries kept in one sum; more are dropped */
#define INTERVAL_SUM_LOAD_NAME 64  /* bytes of an entry's agent name, NUL included */

/** One worker's own load in the interval (Interval.injector). */
typedef struct interval_sum_load {
    char agent[INTERVAL_SUM_LOAD_NAME]; /**< the agent's name, printable ASCII ("" until the agent)
                                         */
    uint32_t worker;                    /**< worker number inside the agent */
    uint32_t cpu_permille;              /**< CPU over wall time, 1000 = one core */
    uint32_t loop_lag_max_us;           /**< the event loop's worst lateness */
    uint32_t start_lag_p99_us;          /**< the open model's start lags, p99 */
    uint32_t why;                       /**< common/saturation.h SATURATION_* bits */
    int saturated;                      /**< 1: the worker did not keep up this second */
    uint8_t *lag;   /**< owned: encoded histogram of the loop's lateness, or NULL */
    size_t lag_len; /**< bytes in lag */
} interval_sum_load;

/** Sets l->lag to h encoded (replacing what it held); NULL or empty h: none. */
void interval_sum_load_set_lag(interval_sum_load *l, const hist *h);
/** Frees what l owns (its lag). */
void interval_sum_load_clear(interval_sum_load *l);

/** One interval's statistics being summed. */
typedef struct interval_sum {
    size_t nsteps;
    step_stats *steps; /**< owned: nsteps entries, by step index */
    size_t nscens;
    uint64_t *runs;          /**< owned: nscens entries, runs completed */
    uint64_t *missed;        /**< owned: nscens entries, missed pacings */
    rate_counts *arrivals;   /**< owned: nscens entries, the open model's arrivals */
    hist **lag;              /**< owned: nscens entries, each NULL until a start lag came: the
                                  open model's start lags (ScenarioCount.start_lag_histogram) */
    uint32_t active_vus;     /**< sum of the senders' active VUs */
    uint32_t finished_vus;   /**< sum of the senders' finished VUs */
    uint64_t vu_us;          /**< VUs in the system integrated over the interval (Little's N) */
    uint64_t run_us;         /**< durations of the runs that ended in it (Little's R, summed) */
    uint64_t wait_us;        /**< pauses between runs that ended in it (Little's Z, summed) */
    uint64_t held;           /**< requests held back for a handle (--max-in-flight) */
    uint64_t held_us;        /**< their waits, summed */
    uint64_t held_max_us;    /**< the longest of them */
    uint32_t vus_planned;    /**< closed-model VUs due to start in it by the schedule */
    uint32_t vus_started;    /**< VUs that began their first run in it */
    uint64_t pace_asked_us;  /**< the pacing slots of the runs paced in it, summed */
    uint64_t pace_lost_us;   /**< how late those runs started past their slot, summed */
    uint64_t paused_us;      /**< how long the load was paused in it (Steer), the senders' most */
    unsigned senders;        /**< messages added since init/reset */
    interval_sum_load *load; /**< owned: nload entries, the senders' workers' own loads,
                           concatenated in arrival order */
    size_t nload, capload;
    tally
        tally; /**< the script's checks and custom metrics of the second (proto/interval_tally.h) */
} interval_sum;

/** Initialises s empty for nsteps steps and nscens scenarios. */
void interval_sum_init(interval_sum *s, size_t nsteps, size_t nscens);
/** Releases what s owns; NULL fields are fine. */
void interval_sum_free(interval_sum *s);
/** Empties s, keeping its allocations. */
void interval_sum_reset(interval_sum *s);

/** Adds one received Interval. scen_names (nscens entries, borrowed) maps
 *  ScenarioCount.name to indices; unknown names are ignored. Returns 0, or -1
 *  with err set if a step index is out of range or a histogram is malformed
 *  (s may then hold part of the message: the sender is broken, drop it). */
int interval_sum_add_msg(interval_sum *s, const Quern__Interval *m, const char *const *scen_names,
                         char *err, size_t errlen);

/** Builds an Interval message from nsteps step_stats (only steps with samples
 *  are included) and nscens scenario counts named by scen_names (all
 *  borrowed; runs/missed may be NULL when nscens is 0). Returns a new message
 *  owning all its parts; free it with interval_sum_msg_free. */
Quern__Interval *interval_sum_msg_new(uint64_t run_id, uint64_t second, const step_stats *steps,
                                      size_t nsteps, const uint64_t *runs, const uint64_t *missed,
                                      const char *const *scen_names, size_t nscens,
                                      uint32_t active_vus, uint32_t finished_vus, int last);

/** Sets the arrivals of m's scenarios (built by interval_sum_msg_new from nscens
 *  names) from arr (nscens entries, borrowed); NULL leaves them 0. */
void interval_sum_msg_set_arrivals(Quern__Interval *m, const rate_counts *arr);

/** Sets m's Little's law sums (Interval.vu_us, run_us, wait_us). */
void interval_sum_msg_set_little(Quern__Interval *m, uint64_t vu_us, uint64_t run_us,
                                 uint64_t wait_us);
/** Sets m's requests held back for a handle (Interval.held_back, its _us
 *  and _max_us: --max-in-flight). */
void interval_sum_msg_set_held(Quern__Interval *m, uint64_t held, uint64_t held_us,
                               uint64_t max_us);
/** Sets m's load asked against load sent (Interval.vus_planned,
 *  vus_started, pacing_asked_us, pacing_lost_us). */
void interval_sum_msg_set_delivery(Quern__Interval *m, uint32_t vus_planned, uint32_t vus_started,
                                   uint64_t pace_asked_us, uint64_t pace_lost_us);
/** Sets how long m's sender was paused in the interval (Interval.paused_us). */
void interval_sum_msg_set_paused(Quern__Interval *m, uint64_t paused_us);
/** Sets the start lags of m's scenarios from lag (nscens entries, borrowed,
 *  NULL entries and lag NULL leave them empty). */
void interval_sum_msg_set_lag(Quern__Interval *m, hist *const *lag);

/** Sets m's injector entries from load (n entries, borrowed); agent, when not
 *  NULL, names the agent in each (an agent passing its workers' up). */
void interval_sum_msg_set_injector(Quern__Interval *m, const interval_sum_load *load, size_t n,
                                   const char *agent);

/** Frees a message from interval_sum_msg_new; NULL is fine. */
void interval_sum_msg_free(Quern__Interval *m);

#endif
