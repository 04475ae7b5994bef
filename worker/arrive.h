/* arrive — the open model in one worker: the arrival timer and the VU pool.
 *
 * Each of this worker's arrivals (common/rate.h: the k of its stripe) is
 * due at its time from the run's start, whatever the previous runs are
 * doing. At its time an arrival takes an idle VU of the pool, which plays
 * one run of its scenario at once; when none is idle and the pool may grow
 * (engine_cfg.vu_count slots, the worker's share of --max-vus), a new VU is
 * created for it (its init first, then the run). When every VU is busy and
 * the pool is full, the arrival waits in a queue, first come first served,
 * for the next VU to come back, and is counted late when it starts; one
 * whose wait reaches --max-lag is dropped and counted. Those still waiting
 * when the run stops are dropped too: nothing is lost silently.
 *
 * The engine calls arrive_start at the run's start, arrive_vu_free each time
 * a VU is ready for a run (its init done, or its run over) and arrive_stop
 * when the run stops; the counts go in each interval (engine.acount).
 * Internal to worker/. */
#ifndef QUERN_ARRIVE_H
#define QUERN_ARRIVE_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "common/rate.h"

struct engine;
struct vu;

/** An arrival waiting for a VU. */
typedef struct arrive_wait {
    int64_t due_us; /**< from the run's start */
    uint8_t late;   /**< no VU could be created for it: the pool was full */
} arrive_wait;

/** The open model's state in one engine. */
typedef struct arrive {
    rate_stage *st; /**< owned copy of the rate stages */
    size_t nst;
    rate_cursor cur; /**< this worker's arrivals, in order */
    int64_t next_us; /**< the next one's due time, -1 when none is left */
    int64_t max_lag_us;
    uint32_t open_vus; /**< VUs with a global index up to this are created at the start */
    uint16_t scen;     /**< the scenario the arrivals play */
    ev_timer timer;    /**< fires at next_us */
    arrive_wait *q;    /**< owned ring of the arrivals waiting, oldest at qhead */
    size_t qhead, qlen, qcap;
    uint32_t *idle; /**< owned: indexes in engine.vus of the idle VUs (a stack) */
    uint32_t nidle;
    uint32_t starting; /**< VUs created whose init has not ended */
    int stopped;
} arrive;

/** Sets a up from the engine's configuration (rate stages copied, stripe from
 *  vu_first and arrival_stripes); 0, or -1 with err. */
int arrive_init(arrive *a, struct engine *e, char *err, size_t errlen);
/** Creates the VUs asked for before the start and arms the timer. */
void arrive_start(arrive *a, struct engine *e);
/** VU v is ready for a run: it takes the oldest arrival waiting, or goes
 *  idle. */
void arrive_vu_free(arrive *a, struct engine *e, struct vu *v);
/** The run stops: no more arrivals; those waiting are dropped (counted). */
void arrive_stop(arrive *a, struct engine *e);
/** Releases what a owns. */
void arrive_free(arrive *a);

#endif
