/* inflight — a bound on the requests a worker's VUs hold at once (inflight.h). */
#include "worker/engine/inflight.h"

#include "common/clock.h"
#include "worker/engine/engine_int.h"

uint32_t inflight_share(uint32_t max_total, uint32_t vu_count, uint32_t vus_total)
{
    uint64_t n;

    if (max_total == 0)
        return 0;
    if (vus_total == 0 || vu_count >= vus_total)
        return max_total;
    n = ((uint64_t)max_total * vu_count + vus_total - 1) / vus_total;
    return n > 0 ? (uint32_t)n : 1;
}

int inflight_wait(vu *v)
{
    engine *e = v->eng;

    if (e->max_xfers == 0 || v->xh != NULL)
        return 0;
    /* Those already queued go first, even when a handle is free now: it is
     * theirs, lent on the loop's next turn. */
    if (e->slotq == NULL && e->xh_out < e->max_xfers)
        return 0;
    v->wait = VU_SLOT;
    v->slot_since_us = clock_mono_us();
    if (!v->in_slotq) { /* still linked from a wait a stop cut short: it keeps its place */
        v->in_slotq = 1;
        v->slot_next = NULL;
        *e->slotq_tail = v;
        e->slotq_tail = &v->slot_next;
    }
    return 1;
}

void inflight_given_back(engine *e)
{
    while (e->slotq != NULL && e->xh_out < e->max_xfers) {
        vu *v = e->slotq;

        e->slotq = v->slot_next;
        if (e->slotq == NULL)
            e->slotq_tail = &e->slotq;
        v->in_slotq = 0;
        v->slot_next = NULL;
        if (v->wait != VU_SLOT || v->xh != NULL || v->phase == VU_DONE)
            continue; /* stopped or killed while it waited */
        v->xh = xh_get(e);
        /* Resumed by its timer (on_timer): this may run inside another VU's
         * Lua call, which must not be re-entered. */
        ev_timer_set(&v->timer, 0., 0.);
        ev_timer_start(e->loop, &v->timer);
    }
}

void inflight_took(vu *v)
{
    engine *e = v->eng;
    int64_t waited = clock_mono_us() - v->slot_since_us;

    if (waited < 0)
        waited = 0;
    e->held++;
    e->held_us += (uint64_t)waited;
    if ((uint64_t)waited > e->held_max_us)
        e->held_max_us = (uint64_t)waited;
    if (v->xfer_timed && v->pend.step >= 0) {
        /* intended earlier by the wait: counted by the response time, not
         * by the service time (the transfer starts after it) */
        v->pend.lag_us += waited;
        v->pend.start_us += waited;
    }
}
