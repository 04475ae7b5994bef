/* enginefix — a worker's engine the unit tests run to its end over a
 * script file, every interval the sink got summed: what quern says of the
 * run, for the tests to hold against what their server saw (loopsrv.h).
 *
 * Use:
 *     enginefix f;
 *     engine_cfg cfg;
 *     enginefix_cfg(&cfg, path, 2, 3);   (2 VUs, 3 runs each; then any change)
 *     enginefix_new(&f, &cfg, -1, -1);   (engine_new: a failure fails the test)
 *     enginefix_run(&f);                 (engine_run, timed)
 *     ... f.steps[i], f.runs, f.status ...
 *     enginefix_free(&f);
 * Link tests/unit/enginefix.c. */
#ifndef QUERN_TESTS_ENGINEFIX_H
#define QUERN_TESTS_ENGINEFIX_H

#include <stddef.h>
#include <stdint.h>

#include "common/stats.h"
#include "common/tally.h"
#include "worker/engine/engine.h"

/** An engine and the sum of its intervals. */
typedef struct enginefix {
    engine *e;                 /**< owned */
    step_stats *steps;         /**< owned: each step's statistics, every interval merged */
    size_t nsteps;             /**< entries of steps: the script's steps */
    uint64_t runs;             /**< runs completed, every scenario's */
    uint64_t missed_pacing;    /**< runs started late, every scenario's */
    uint64_t pace_asked_us;    /**< the pacing slots of the runs paced */
    uint64_t vus_started;      /**< VUs that began their first run */
    uint64_t paused_us;        /**< how long the load was paused (worker/engine/steer.h) */
    uint32_t active_end;       /**< VUs active at the end of the last interval */
    tally tally;               /**< owned: the script's checks and metrics, every interval merged */
    uint64_t intervals;        /**< intervals the sink got */
    int seconds_in_order;      /**< 1 while each interval's number was the count before it */
    int stop_fd;               /**< borrowed: readable, the run is asked to stop; -1 none */
    int stopped_fd;            /**< borrowed: written a byte once it was asked; -1 none */
    enum engine_status status; /**< what engine_run returned */
    int64_t run_us;            /**< how long engine_run took */
} enginefix;

/** A run of the script at path: vus VUs (1..vus of vus), runs runs each
 *  (0: until the duration), a grace of 2 s, no signals handled. */
void enginefix_cfg(engine_cfg *cfg, const char *path, uint32_t vus, uint32_t runs);
/** Makes f's engine from cfg (its sink and ctl are f's); stop_fd, when
 *  not -1, is a descriptor that asks the run to stop (engine_stop,
 *  ENGINE_STOPPED) once readable, after which a byte is written to
 *  stopped_fd (when not -1). */
void enginefix_new(enginefix *f, engine_cfg *cfg, int stop_fd, int stopped_fd);
/** Plays the run to its end. */
void enginefix_run(enginefix *f);
/** Releases the engine and the sums. */
void enginefix_free(enginefix *f);

#endif
