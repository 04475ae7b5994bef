/* arrive — the open model in one worker: the arrival timer and the VU pool.
 *
 * Each of this worker's arrivals (common/rate.h: the k of its stripe) is
 * due at its time from the run's start, whatever the previous runs are
 * doing. One wake of the timer takes every arrival due by then (each with
 * its own due time, from which its lag and its response time count), then
 * arms the timer once for the next. An arrival takes an idle VU of the
 * pool, which plays one run of its scenario at once; the pool (engine_cfg.
 * vu_count slots, the worker's share of --max-vus) is grown ahead of need,
 * a few VUs idle or in their init beyond those busy (arrive_spare), so that
 * an arrival seldom waits for a VU to be made; when none is idle all the
 * same, a new VU is created for it (its init first, then the run). When
 * every VU is busy and the pool is full, the arrival waits in a queue,
 * first come first served, for the next VU to come back, and is counted
 * late when it starts (one that waited for a VU's init is counted apart,
 * init_waits: the server's init time, not a full pool); one whose wait reaches --max-lag is dropped
 * and counted, and so is one the timer takes that late (the worker fell behind its schedule). Those
 * still waiting when the run stops are dropped too: nothing is lost silently.
 *
 * Several scenarios with a weight share the rate: each plays its own stream
 * of arrivals at rate x weight / sum of weights (its stages scaled so), with
 * its own share of the pool (the slots split by weight, at least one each
 * when there are enough) and its own queue: a VU plays its scenario only.
 *
 * The engine calls arrive_set_init to make one arrive per weighted scenario
 * (engine.arr, engine.narr), arrive_start at the run's start, arrive_vu_free
 * each time a VU is ready for a run (its init done, or its run over) and
 * arrive_stop when the run stops; the counts go in each interval
 * (engine.acount), arrive_count_due adding the arrivals scheduled at the
 * interval's end. Scheduled counts what the schedule asked by then (the
 * rate's stages, this worker's stripe), whether the timer took them or
 * not: a worker behind its schedule leaves arrivals untaken, and they are
 * asked all the same; those still untaken at the stop are dropped.
 * Internal to worker/. */
#ifndef QUERN_ARRIVE_H
#define QUERN_ARRIVE_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "common/rate.h"
#include "worker/wire/duetimer.h"

struct engine;
struct vu;

/** What an arrival waits for. */
enum arrive_wait_for {
    ARRIVE_WAIT_NONE = -1, /**< it found a VU ready (never queued) */
    ARRIVE_WAIT_INIT = 0,  /**< a VU being made for it: its init (the server's time) */
    ARRIVE_WAIT_FREE = 1,  /**< the pool was full: the next VU to come back (late) */
};

/** An arrival waiting for a VU. */
typedef struct arrive_wait {
    int64_t due_us; /**< from the run's start */
    int64_t own_us; /**< how late the timer took it: quern's own part of its start lag */
    uint8_t wait;   /**< enum arrive_wait_for */
} arrive_wait;

/** Starts one arrival due at due_us (from the run's start); ctx is the
 *  caller's. */
typedef void (*arrive_start_fn)(void *ctx, int64_t due_us);

/** The open model's state in one engine. */
typedef struct arrive {
    rate_stage *st; /**< owned copy of the rate stages */
    size_t nst;
    rate_cursor cur; /**< this worker's arrivals, in order */
    int64_t next_us; /**< the next one's due time, -1 when none is left */
    int64_t max_lag_us;
    uint32_t open_vus; /**< VUs with a global index up to this are created at the start */
    uint16_t scen;     /**< the scenario the arrivals play */
    duetimer due;      /**< wakes the loop at next_us, to the microsecond */
    arrive_wait *q;    /**< owned ring of the arrivals waiting, oldest at qhead */
    size_t qhead, qlen, qcap;
    uint32_t *idle; /**< owned: indexes in engine.vus of the idle VUs (a stack) */
    uint32_t nidle;
    uint32_t cap;        /**< VUs this scenario may have: its share of the pool */
    uint32_t made;       /**< VUs created for it */
    uint32_t pre;        /**< of them, created before the start (its share of --vus) */
    uint32_t starting;   /**< VUs created whose init has not ended */
    double share;        /**< of the run's rate, this scenario's (its weight's share) */
    uint32_t stripes;    /**< the workers sharing the arrivals (rate / stripes is this one's) */
    uint32_t spare;      /**< VUs kept ready ahead of need (arrive_spare) */
    int64_t spare_at_us; /**< when spare is next looked up, from the run's start */
    uint64_t taken;      /**< arrivals taken off the schedule (started, waiting, dropped) */
    uint64_t counted;    /**< arrivals counted as scheduled so far (arrive_count_due) */
    int64_t behind_us;   /**< at the last arrive_count_due, how late the next arrival not
                              taken yet was (0: none due): the worker behind its schedule */
    struct engine *eng;  /**< borrowed: the engine a belongs to */
    int stopped;
} arrive;

/** Sets up e->arr, one arrive per scenario with a weight (e->narr), from the
 *  engine's configuration (rate stages scaled by weight, stripe from
 *  vu_first and arrival_stripes, pool slots split by weight); 0, or -1 with
 *  err (e->arr may then hold some: arrive_free each, as engine_free does).
 *  Each arrive has its timerfd from here: no file descriptor is left to
 *  find once the load has begun. */
int arrive_set_init(struct engine *e, char *err, size_t errlen);
/** The arrive of scenario sidx, or NULL if it plays no arrivals. */
arrive *arrive_of(struct engine *e, uint16_t sidx);
/** Splits total among n weights (largest remainder, ties to the first) into
 *  out; when total >= n, each gets at least one. Exact: out sums to total. */
void arrive_split(const double *weights, size_t n, uint32_t total, uint32_t *out);
/** Takes the arrivals of a due by now_us (from the run's start), at most
 *  max, in order: start(ctx, due) for each, due its own scheduled time
 *  (never the wake's), and a->next_us then the first one left. The timer's
 *  wake calls it once for all the arrivals due (the clock read again when
 *  the batch is done), then arms the timer once for the next. Returns how
 *  many it took; none once a is stopped. */
size_t arrive_take(arrive *a, int64_t now_us, size_t max, arrive_start_fn start, void *ctx);
/** Arrivals of a's stripe due by t_us (from the run's start) on the
 *  schedule: k with L(k's due) <= L(t_us) (common/rate.h), at most the
 *  stripe's total. */
uint64_t arrive_due_by(const arrive *a, int64_t t_us);
/** An interval ends at t_us: adds to e->acount the arrivals of a the
 *  schedule asked since the last call (arrive_due_by, never fewer than
 *  those taken; once stopped, exactly those taken), and drops those not
 *  taken by --max-lag after their time. */
void arrive_count_due(arrive *a, struct engine *e, int64_t t_us);
/** VUs to keep ready ahead of need at per_s arrivals a second (this
 *  worker's): those expected over 2 ms, plus one, at most 256. */
uint32_t arrive_spare(double per_s);
/** Creates the VUs asked for before the start, and the spare ones
 *  (arrive_spare) beyond them within the cap, and arms the timer. */
void arrive_start(arrive *a, struct engine *e);
/** Makes a's share of --vus (a->pre) and starts their init, before the
 *  start (engine_prefill). */
void arrive_prefill(arrive *a, struct engine *e);
/** VU v is ready for a run: it takes the oldest arrival of its scenario
 *  waiting, or goes idle. */
void arrive_vu_free(struct engine *e, struct vu *v);
/** The run stops: no more arrivals; those waiting are dropped (counted). */
void arrive_stop(arrive *a, struct engine *e);
/** A pause (worker/engine/steer.h) stops the timer; its end arms it again, on the
 *  load clock moved on by the pause. */
void arrive_pause(arrive *a, struct engine *e, int paused);
/** arrive_set_rate's schedule alone (stripe: this worker's, of a's
 *  stripes): a's stages cut at at_us, then per_s x a->share held to the
 *  planned end (a->st, owned, replaced), the cursor at the next arrival not
 *  taken; no timer touched. 0, or -1 (nothing changed) when at_us is past
 *  the end or a stopped. */
int arrive_restage(arrive *a, uint32_t stripe, int64_t at_us, double per_s);
/** The rate becomes per_s of the whole run (a's share of it) from at_us of
 *  the load clock to the planned end; the arrivals already taken stay, the
 *  next one is the next k of the new list. 0, or -1 when at_us is past the
 *  end or a stopped. */
int arrive_set_rate(arrive *a, struct engine *e, int64_t at_us, double per_s);
/** Stops the timer's watcher (the loop has ended; arrive_stop does it too). */
void arrive_halt(arrive *a, struct engine *e);
/** Releases what a owns, its timerfd closed. */
void arrive_free(arrive *a);

#endif
