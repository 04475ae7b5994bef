/* injtot — the injector's own load over a run, per worker and per second.
 *
 * What it is for: every worker measures itself each second (common/selfmon.h)
 * and says whether it kept up (common/saturation.h); the entries come up
 * with the statistics, one per agent's worker (Interval.injector, kept apart
 * by proto/interval_sum.h). injtot keeps, per (agent, worker), the seconds it
 * reported and those it was saturated in, its CPU at worst and its loop lags
 * merged (an exact p99 over the run), and for the run the seconds measured
 * and the seconds in which any worker was saturated: the verdict's share
 * (console/verdict.h), the summary's "Injector:" line, the live line.
 *
 * Usage:
 *     injtot t; injtot_init(&t);
 *     each merged second: injtot_add(&t, second, sum->load, sum->nload, late);
 *     injtot_share(&t), injtot_worst(&t), injtot_describe(&t, ...);
 *     injtot_last_worst(&t, ...), injtot_name(&t, w, ...);   // the latest second
 *     injtot_free(&t);
 * Cost per second: proportional to the workers, never to the requests. A
 * second is counted once, even when a late worker's entry comes after it was
 * handed on; seconds past INJTOT_SECONDS_MAX are counted as they come. */
#ifndef QUERN_INJTOT_H
#define QUERN_INJTOT_H

#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"
#include "proto/interval_sum.h"

#define INJTOT_SECONDS_MAX (7u * 86400u) /* seconds whose flags are kept (a week) */
#define INJTOT_WORKERS_MAX 4096          /* workers kept apart; more are not counted */

/** One worker's figures over the run. */
typedef struct injtot_worker {
    char agent[INTERVAL_SUM_LOAD_NAME]; /**< the agent's name */
    uint32_t worker;                    /**< worker number inside it */
    uint64_t seconds;                   /**< seconds it reported */
    uint64_t saturated_s;               /**< of them, those it did not keep up in */
    unsigned why;                       /**< SATURATION_* bits seen over the run */
    uint32_t cpu_max_permille;          /**< its CPU at worst, 1000 = one core */
    uint32_t lag_max_us;                /**< its loop's worst lateness */
    hist *lag;                          /**< owned: its loop lag samples, merged */
    uint64_t last_second;               /**< the latest second it reported */
    uint32_t last_cpu_permille;         /**< its CPU in that second */
    uint32_t last_lag_us;               /**< its loop's worst lateness in that second */
    int last_saturated;                 /**< 1: saturated in that second */
} injtot_worker;

/** The run's figures. */
typedef struct injtot {
    injtot_worker *w; /**< owned: n entries, in order of first report */
    size_t n, cap;
    uint64_t measured_s;  /**< seconds with at least one worker's entry */
    uint64_t saturated_s; /**< of them, those with a worker saturated */
    uint64_t clear_s;     /**< of them, those with a worker clearly saturated
                               (common/saturation.h's saturation_clear) */
    uint8_t *clr;         /**< owned: a bit per second, 1: a worker clearly saturated */
    uint8_t *seen;        /**< owned: a bit per second, 1: measured */
    uint8_t *sat;         /**< owned: a bit per second, 1: a worker saturated */
    size_t nbytes;        /**< bytes in seen and in sat */
    uint64_t last_second; /**< the latest second added, not late */
    int last_saturated;   /**< 1: a worker was saturated in it */
    uint64_t bad;         /**< entries whose loop-lag histogram did not decode */
} injtot;

/** Initialises t empty. */
void injtot_init(injtot *t);
/** Releases what t owns. */
void injtot_free(injtot *t);
/** Adds one merged second's entries (n, borrowed); late: it came after the
 *  second was handed on (counted once all the same). */
void injtot_add(injtot *t, uint64_t second, const interval_sum_load *l, size_t n, int late);
/** 1 when the entry l says its worker was clearly saturated (not marginally). */
int injtot_load_clear(const interval_sum_load *l);
/** 1 when second was measured and some worker was saturated in it. */
int injtot_second_saturated(const injtot *t, uint64_t second);
/** Saturated seconds over measured seconds, 0..1; 0 when none was measured. */
double injtot_share(const injtot *t);
/** The worker with the most saturated seconds (ties: the higher CPU), or
 *  NULL when none reported. */
const injtot_worker *injtot_worst(const injtot *t);
/** The highest CPU of any worker, permille. */
uint32_t injtot_cpu_max(const injtot *t);
/** p99 of every worker's loop lag, us (0 without samples). */
uint64_t injtot_lag_p99_us(const injtot *t);
/** A worker's loop lag p99, us. */
uint64_t injtot_worker_lag_p99_us(const injtot_worker *w);
/** The latest second's worst worker: of those that reported t->last_second,
 *  a saturated one before any that kept up, then the worst loop lag; NULL
 *  when none did. *nsat and *n (each may be NULL) get how many of them were
 *  saturated and how many reported it. */
const injtot_worker *injtot_last_worst(const injtot *t, uint32_t *nsat, uint32_t *n);
/** Writes w's name into buf: "worker N", "worker A/N" when t holds workers
 *  of several agents. */
void injtot_name(const injtot *t, const injtot_worker *w, char *buf, size_t len);
/** Writes "agent A, worker N: CPU 100 %, loop lag p99 280 ms" for w into buf. */
void injtot_describe(const injtot_worker *w, char *buf, size_t len);

#endif
