/* steer — the running load steered from the console; see steer.h. */
#include "worker/engine/steer.h"

#include <ev.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/stages.h"
#include "worker/engine/engine_int.h"

enum { HELD_NONE, HELD_TIMER, HELD_XFER };

/* Waits a pause freezes: those of the VU's own timer that resume it on
 * their own (a WebSocket's or a stream's timeout is tied to its socket,
 * which goes on). */
static int holdable(const vu *v)
{
    if (v->phase == VU_WAITING || v->phase == VU_PACE)
        return v->wait == VU_SLEEP || v->wait == VU_PACING || v->wait == VU_YIELD;
    return v->wait == VU_SLEEP || v->wait == VU_THINK || v->wait == VU_YIELD;
}

int steer_hold_timer(vu *v, int64_t us)
{
    if (!v->eng->paused || !holdable(v))
        return 0;
    v->held = HELD_TIMER;
    v->held_left_us = us > 0 ? us : 0;
    return 1;
}

int steer_hold_xfer(vu *v)
{
    if (!v->eng->paused)
        return 0;
    v->held = HELD_XFER;
    return 1;
}

void steer_pause(engine *e)
{
    int64_t now = clock_mono_us();

    if (e->paused || e->stopping)
        return;
    e->paused = 1;
    e->paused_at_us = now;
    ev_now_update(e->loop);
    for (uint32_t i = 0; i < e->nvus; i++) {
        vu *v = &e->vus[i];
        if (v->held || v->dormant || !holdable(v) ||
            !(ev_is_active(&v->timer) || ev_is_pending(&v->timer)))
            continue;
        v->held = HELD_TIMER;
        v->held_left_us = (int64_t)(ev_timer_remaining(e->loop, &v->timer) * 1e6);
        if (v->held_left_us < 0)
            v->held_left_us = 0;
        ev_timer_stop(e->loop, &v->timer);
    }
    e->end_left_us = -1;
    if (ev_is_active(&e->end_timer)) {
        e->end_left_us = (int64_t)(ev_timer_remaining(e->loop, &e->end_timer) * 1e6);
        ev_timer_stop(e->loop, &e->end_timer);
    }
    ev_timer_stop(e->loop, &e->leave_timer);
    for (size_t i = 0; i < e->narr; i++)
        arrive_pause(&e->arr[i], e, 1);
    log_msg(LOG_INFO, "paused");
}

void steer_resume(engine *e)
{
    int64_t now = clock_mono_us(), len;

    if (!e->paused)
        return;
    len = now - e->paused_at_us;
    e->paused = 0;
    e->load_t0_us += len;
    e->iv_paused_us +=
        (uint64_t)(now - (e->paused_at_us > e->iv_start_us ? e->paused_at_us : e->iv_start_us));
    for (uint32_t i = 0; i < e->nvus; i++) {
        vu *v = &e->vus[i];
        uint8_t held = v->held;
        /* Its intended times come later by the pause: a run's slot, its
         * arrival, the start of the run and of the sample under way. */
        if (v->run_due_us != 0)
            v->run_due_us += len;
        if (v->phase == VU_RUN || v->phase == VU_INIT)
            v->run_start_us += len;
        if (v->pend.step >= 0 && held)
            v->pend.start_us += len;
        if (v->wait == VU_SLOT)
            v->slot_since_us += len; /* its wait for a handle, without the pause */
        v->held = HELD_NONE;
        if (held == HELD_TIMER && v->phase != VU_DONE) {
            ev_timer_set(&v->timer, engine_after(e, v->held_left_us), 0.);
            ev_timer_start(e->loop, &v->timer);
        } else if (held == HELD_XFER && v->wait == VU_XFER) {
            engine_start_xfer(e, v);
        }
    }
    if (e->end_left_us >= 0 && !e->stopping) {
        ev_timer_set(&e->end_timer, engine_after(e, e->end_left_us), 0.);
        ev_timer_start(e->loop, &e->end_timer);
    }
    if (e->leave_next < e->nleave && !e->stopping) {
        int64_t at = e->leave[e->leave_next].at_us - (now - e->load_t0_us);
        ev_timer_set(&e->leave_timer, engine_after(e, at > 0 ? at : 0), 0.);
        ev_timer_start(e->loop, &e->leave_timer);
    }
    for (size_t i = 0; i < e->narr; i++)
        arrive_pause(&e->arr[i], e, 0);
    log_msg(LOG_INFO, "resumed after %.1f s", (double)len / 1e6);
}

uint64_t steer_paused_in(engine *e, int64_t iv_start_us, int64_t now)
{
    uint64_t p = e->iv_paused_us;

    e->iv_paused_us = 0;
    if (e->paused)
        p += (uint64_t)(now - (e->paused_at_us > iv_start_us ? e->paused_at_us : iv_start_us));
    return p;
}

/* v leaves the load until steer_vus asks for it again: not active, no
 * timer, no run. */
static void go_dormant(vu *v)
{
    engine *e = v->eng;

    ev_timer_stop(e->loop, &v->timer);
    v->wait = VU_IDLE;
    v->held = HELD_NONE;
    v->dormant = 1;
    e->ndormant++;
    if (v->started) {
        v->started = 0;
        engine_active(e, -1, clock_mono_us());
    }
}

int steer_dormant_at_start(vu *v)
{
    engine *e = v->eng;

    if (!e->steer_vus || v->rank <= e->vus_target)
        return 0;
    v->phase = VU_WAITING;
    go_dormant(v);
    return 1;
}

int steer_out(vu *v)
{
    engine *e = v->eng;

    if (!e->steer_vus || v->rank <= e->vus_target)
        return 0;
    v->phase = VU_PACE;
    go_dormant(v);
    engine_check_dormant(e);
    return 1;
}

/* Whether the global id g is still in the load at at_us of the load clock:
 * beyond the stages' ids, or one of theirs that has not left by then. */
static int stage_kept(const engine *e, uint32_t g, int64_t at_us)
{
    int64_t start, leave;

    if (stages_id_times(e->cfg.stages, e->cfg.nstages, g, &start, &leave) != 0)
        return 1;
    return leave < 0 || leave > at_us;
}

/* The first vus N of a staged run: the stages end at at_us (the console's
 * moment, the same on every worker). The VUs due to leave by then leave,
 * none after; each VU's rank is then its place among the ids still in the
 * load, counted over every id of the run so that all workers agree. Once
 * a run: from then on the ranks stay. */
static void cut_stages(engine *e, int64_t at_us)
{
    uint32_t rank = 0, g = 1;

    while (e->leave_next < e->nleave && e->leave[e->leave_next].at_us <= at_us)
        vu_leave(&e->vus[e->leave[e->leave_next++].vu]);
    e->leave_next = e->nleave;
    ev_timer_stop(e->loop, &e->leave_timer);
    vustart_cut(&e->vstart, at_us); /* starts after the cut are vus N's to ask */
    for (uint32_t i = 0; i < e->nvus; i++) {
        vu *v = &e->vus[i];
        int kept = 0;
        for (; g <= v->gid; g++) {
            kept = stage_kept(e, g, at_us);
            rank += (uint32_t)kept;
        }
        v->rank = kept && !v->leaving ? rank : UINT32_MAX;
    }
    e->stages_cut = 1;
}

int steer_vus(engine *e, int64_t at_us, uint32_t n)
{
    int64_t now = clock_mono_us();

    if (!e->steer_vus) {
        log_msg(LOG_WARN,
                "vus %u: this run's VUs cannot be steered (the open model, a scenario's stages)",
                n);
        return -1;
    }
    if (n > e->cfg.vus_total)
        n = e->cfg.vus_total; /* the console checked it: the ceiling */
    if (e->cfg.nstages > 0 && !e->stages_cut)
        cut_stages(e, at_us);
    e->vus_target = n;
    for (uint32_t i = 0; i < e->nvus && !e->stopping; i++) {
        vu *v = &e->vus[i];
        if (v->phase == VU_DONE || v->leaving)
            continue;
        if (v->rank <= n && v->phase == VU_WAITING && !v->dormant && !v->started) {
            /* a stage's start not come yet: at once */
            ev_timer_stop(e->loop, &v->timer);
            vu_schedule_start(v, 0);
            vustart_add(&e->vstart, now - e->load_t0_us);
            vustart_sorted(&e->vstart);
        } else if (v->rank <= n && v->dormant) {
            v->dormant = 0;
            e->ndormant--;
            if (v->phase == VU_WAITING) {
                vu_schedule_start(v, 0);
                vustart_add(&e->vstart, now - e->load_t0_us);
                vustart_sorted(&e->vstart);
            } else {
                vu_wait_timer(v, 0, VU_PACING); /* its next run, at once */
            }
        } else if (v->rank > n && !v->dormant && (v->phase == VU_WAITING || v->phase == VU_PACE)) {
            go_dormant(v); /* not in a run: at once */
        }
        /* those in a run go dormant at its end (steer_out) */
    }
    log_msg(LOG_INFO, "VUs: %u from now on", n);
    engine_check_dormant(e);
    return 0;
}

int steer_rate(engine *e, int64_t at_us, double per_s)
{
    if (e->narr == 0) {
        log_msg(LOG_WARN, "rate: this run has no arrival rate (the closed model)");
        return -1;
    }
    for (size_t i = 0; i < e->narr; i++)
        arrive_set_rate(&e->arr[i], e, at_us, per_s);
    return 0;
}
