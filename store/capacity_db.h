/* capacity_db — a run's capacity search in the results database: written by the
 * console at the run's end, read by the report, the comparison and any rule
 * that works per step window.
 *
 * What it is for: `quern run --capacity` records the capacity found and
 * each judged step of its staircase (tables capacity and capacity_steps,
 * store/schema.sql, migrations 7 and 10). A step is a window [t0_us, t1_us) of
 * the run's time (microseconds from runs.started_us, the clock the
 * intervals' seconds use), judged from from_us on. capacity_db_windows lists just
 * the windows, for readers that look at other per-second data by step (the
 * system under test's resources, a bottleneck per step).
 *
 * Usage:
 *     capacity_db_run c = {...};
 *     capacity_db_write(d, run_id, &c, err, sizeof(err));        // the console
 *     capacity_db_run got;
 *     if (capacity_db_read(sq, run_id, &got, err, sizeof(err)) == 1) { ...; capacity_db_free(&got);
 * } capacity_db_window w[CAPACITY_DB_STEPS_MAX]; size_t n; capacity_db_windows(sq, run_id, w,
 * CAPACITY_DB_STEPS_MAX, &n, err, sizeof(err));
 */
#ifndef QUERN_CAPACITY_DB_H
#define QUERN_CAPACITY_DB_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

struct sqlite3;

/** Most steps recorded for one run (common/capacity.h's CAPACITY_STEPS_MAX). */
#define CAPACITY_DB_STEPS_MAX 100
/** Longest text kept of a step's failed threshold. */
#define CAPACITY_DB_FAILED_MAX 800

/** Longest text kept of a step's injector figures. */
#define CAPACITY_DB_INJECTOR_MAX 352

/** One judged step. */
typedef struct capacity_db_step {
    double load;                                    /**< in the run's unit */
    int64_t t0_us, t1_us;                           /**< the window, from the run's start */
    int64_t from_us;                                /**< the first judged second's start */
    unsigned seconds;                               /**< seconds judged */
    uint64_t count;                                 /**< samples in them, every script step */
    double tps, p50_ms, p95_ms, p99_ms, errors_pct; /**< over them */
    int passed;                                     /**< 1 passed, 0 failed */
    char failed[CAPACITY_DB_FAILED_MAX];     /**< the threshold that failed, "" when passed */
    int injector_saturated;                  /**< 1: the step's arrivals were late or dropped past
                                                  console/capacity_search.h's rule (quern's own limit) */
    char injector[CAPACITY_DB_INJECTOR_MAX]; /**< its figures then ("44872 late, ..."), else "" */
    double runs_s;      /**< runs ended a second in them (the open model's throughput in its
                             load's unit); -1 unknown (a search before schema 18) */
    int64_t inits;      /**< VUs made in them, their init run then; -1 unknown */
    int64_t init_waits; /**< arrivals started after waiting for one; -1 unknown */
} capacity_db_step;

/** A run's capacity search. */
typedef struct capacity_db_run {
    int found;               /**< 1 when a step passed before the first failing one */
    double value;            /**< that step's load (0 when not found) */
    char unit[8];            /**< "/s" or "vus" */
    int64_t settle_us;       /**< the start of each step not judged */
    char limited_by[12];     /**< "injector", "server", "max", "stopped"; "" unknown (older run) */
    size_t nsteps;           /**< entries in steps */
    capacity_db_step *steps; /**< owned (capacity_db_read) or borrowed (capacity_db_write) */
} capacity_db_run;

/** A step window only. */
typedef struct capacity_db_window {
    unsigned step;        /**< from 0 */
    double load;          /**< in the run's unit */
    int64_t t0_us, t1_us; /**< [t0_us, t1_us) from the run's start */
    int64_t from_us;      /**< judged from here */
    int passed;           /**< 1 passed, 0 failed */
} capacity_db_window;

/** Records c for run run_id in one transaction. 0, or -1 with err. */
int capacity_db_write(db *d, int64_t run_id, const capacity_db_run *c, char *err, size_t errlen);

/** Reads run run_id's search into *out: 1 (release with capacity_db_free), 0
 *  when the run had none, -1 with err. */
int capacity_db_read(struct sqlite3 *sq, int64_t run_id, capacity_db_run *out, char *err,
                     size_t errlen);

/** Releases what capacity_db_read put in c; a zeroed c is fine. */
void capacity_db_free(capacity_db_run *c);

/** The step windows of run run_id, in order, at most max into out, *n the
 *  count (0 for a run without a search). 0, or -1 with err. */
int capacity_db_windows(struct sqlite3 *sq, int64_t run_id, capacity_db_window *out, size_t max,
                        size_t *n, char *err, size_t errlen);

#endif
