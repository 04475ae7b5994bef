/* steer — the running load steered from the console (quern ctl): pause,
 * resume, a new number of VUs, a new rate.
 *
 * What it is for: `quern ctl pause` holds every VU at its next request or
 * sleep (a request in flight finishes; a VU whose timer is running keeps
 * the time it had left) and stops the schedule's clock: at resume the
 * ramp, the stages' descents, the pacing slots, the open model's arrivals
 * and the planned end all come later by the pause, so that a response time
 * counted from its intended start never counts the pause. The engine's
 * load clock (engine.load_t0_us) is the run's start moved on by every
 * pause; each interval says how long it was paused (steer_paused_in).
 *
 * `vus N` (the closed model): the VUs of global index up to N
 * are the active ones from then on (with stages, the first cuts them: the
 * VUs due to leave by then leave, the starts after it are dropped, and N
 * counts the ids still in the load, in order, then those beyond), within the ids the run has (the
 * console gives more ids than --vus, the ceiling, to a run it may steer):
 * those beyond N end their current run and wait, dormant, and those within
 * it start (their init first, once) at once. `rate R` (the open model)
 * holds the rate at R a second from a moment of the load clock to the
 * planned end: the list of stages is cut there and the arrivals go on from
 * the next one, numbered as before, so every worker's stripe stays its own.
 *
 * Usage (worker/wproc.c, on the loop): steer_pause(e), steer_resume(e),
 * steer_vus(e, n), steer_rate(e, at_us, per_s); the engine calls the hooks
 * below. Internal to worker/. */
#ifndef QUERN_STEER_H
#define QUERN_STEER_H

#include <stdint.h>

struct engine;
struct vu;

/** Holds the load (nothing when already paused or stopping). */
void steer_pause(struct engine *e);
/** Lets it go on, every clock of the schedule moved by the pause. */
void steer_resume(struct engine *e);
/** The closed model: VUs of rank up to n active from now on; with stages
 *  the first cuts them at at_us of the load clock. 0, or -1 when the run
 *  cannot (the open model, a scenario's stages): logged. */
int steer_vus(struct engine *e, int64_t at_us, uint32_t n);
/** The open model: per_s arrivals a second of the whole run from at_us of
 *  the load clock to the planned end. 0, or -1 when the run has no rate. */
int steer_rate(struct engine *e, int64_t at_us, double per_s);

/** vu_wait_timer's hook: 1 when the engine is paused and v's wait of us is
 *  held instead (started at the resume). */
int steer_hold_timer(struct vu *v, int64_t us);
/** engine_start_xfer's hook: 1 when the engine is paused and v's request
 *  waits for the resume. */
int steer_hold_xfer(struct vu *v);
/** vu_next_run's hook: 1 when v is beyond the VUs asked (steer_vus) and
 *  went dormant instead of its next run. */
int steer_out(struct vu *v);
/** At start: 1 when v, beyond the VUs active at the start, stays dormant. */
int steer_dormant_at_start(struct vu *v);
/** The time paused since the interval began (its start iv_start_us, now
 *  now, monotonic), which the next interval no longer counts. */
uint64_t steer_paused_in(struct engine *e, int64_t iv_start_us, int64_t now);

#endif
