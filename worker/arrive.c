/* arrive — the open model in one worker; see arrive.h. */
#include "worker/arrive.h"

#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "worker/engine_int.h"

/* The arrival timer's callback, below. */
static void on_arrival(struct ev_loop *loop, ev_timer *w, int revents);

int arrive_init(arrive *a, struct engine *e, char *err, size_t errlen)
{
    const engine_cfg *cfg = &e->cfg;
    uint32_t stripes = cfg->arrival_stripes ? cfg->arrival_stripes : 1;
    int found = 0;

    memset(a, 0, sizeof(*a));
    if (rate_stages_check(cfg->rate_stages, cfg->nrate_stages, err, errlen) != 0)
        return -1;
    if (cfg->staged_vus > 0 || cfg->nstages > 0 || cfg->runs > 0) {
        snprintf(err, errlen, "an arrival rate cannot be combined with stages or --runs");
        return -1;
    }
    /* One scenario plays the arrivals: the one with a weight. */
    for (size_t i = 0; i < e->scens.nscens; i++) {
        const scen *sc = e->scens.scens[i];
        if (sc->weight > 0 && sc->nstages == 0) {
            if (found) {
                snprintf(err, errlen,
                         "%s: an arrival rate plays one scenario; %s and %s both have a weight "
                         "(give the others weight 0)",
                         cfg->script, e->scens.scens[a->scen]->name, sc->name);
                return -1;
            }
            found = 1;
            a->scen = (uint16_t)i;
        } else if (sc->nstages > 0) {
            snprintf(err, errlen, "%s: scenario %s has stages of its own: not with an arrival rate",
                     cfg->script, sc->name);
            return -1;
        }
    }
    if (!found) {
        snprintf(err, errlen, "%s: every scenario has weight 0", cfg->script);
        return -1;
    }
    a->nst = cfg->nrate_stages;
    a->st = xcalloc(a->nst, sizeof(*a->st));
    memcpy(a->st, cfg->rate_stages, a->nst * sizeof(*a->st));
    a->max_lag_us = cfg->max_lag_us;
    a->open_vus = cfg->open_vus;
    rate_cursor_init(&a->cur, a->st, a->nst, (cfg->vu_first - 1) % stripes, stripes);
    if (rate_cursor_next(&a->cur, &a->next_us) != 0)
        a->next_us = -1;
    a->idle = xcalloc(cfg->vu_count ? cfg->vu_count : 1, sizeof(*a->idle));
    ev_init(&a->timer, on_arrival);
    a->timer.data = e;
    return 0;
}

/* A new VU in the next free slot of the pool: its init runs at once, then
 * it comes to arrive_vu_free. 0, or -1 when the pool is full. */
static int grow(arrive *a, struct engine *e)
{
    uint32_t slot = e->nvus, gid = e->cfg.vu_first + slot * e->cfg.vu_stride;
    vu *v;

    if (slot >= e->cfg.vu_count)
        return -1;
    v = &e->vus[slot];
    if (vu_init(v, e, gid, a->scen) != 0) {
        log_msg(LOG_ERROR, "cannot create VU %u (libcurl)", gid);
        return -1;
    }
    e->nvus++;
    a->starting++;
    vu_schedule_start(v, 0);
    return 0;
}

/* Starts a run on v for the arrival due at due (from the run's start); late:
 * it waited for a VU of a full pool. */
static void play(struct engine *e, vu *v, int64_t due, int late)
{
    rate_counts *c = &e->acount[v->scen];

    c->started++;
    if (late)
        c->late++;
    v->run_due_us = e->t0_us + due; /* its response times count from there */
    vu_start_run(v);
}

/* Drops the waiting arrivals whose wait reached the lag. */
static void drop_stale(arrive *a, struct engine *e, int64_t now)
{
    while (a->qlen > 0 && now - a->q[a->qhead].due_us >= a->max_lag_us) {
        e->acount[a->scen].dropped++;
        a->qhead = (a->qhead + 1) % a->qcap;
        a->qlen--;
    }
}

static void enqueue(arrive *a, int64_t due, int late)
{
    if (a->qlen == a->qcap) {
        size_t cap = a->qcap ? a->qcap * 2 : 256;
        arrive_wait *q = xcalloc(cap, sizeof(*q));
        for (size_t i = 0; i < a->qlen; i++)
            q[i] = a->q[(a->qhead + i) % a->qcap];
        xfree(a->q);
        a->q = q;
        a->qcap = cap;
        a->qhead = 0;
    }
    a->q[(a->qhead + a->qlen) % a->qcap].due_us = due;
    a->q[(a->qhead + a->qlen) % a->qcap].late = (uint8_t)late;
    a->qlen++;
}

/* One arrival is due: an idle VU plays it, or it waits (for a VU being
 * created for it, or for the next one free). */
static void arrival(arrive *a, struct engine *e, int64_t due)
{
    e->acount[a->scen].scheduled++;
    if (a->qlen == 0 && a->nidle > 0) {
        play(e, &e->vus[a->idle[--a->nidle]], due, 0);
        return;
    }
    /* VUs already being created are for the arrivals already waiting. */
    if (a->starting <= a->qlen && grow(a, e) == 0) {
        enqueue(a, due, 0);
        return;
    }
    enqueue(a, due, a->starting <= a->qlen);
}

static void on_arrival(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct engine *e = w->data;
    arrive *a = e->arr;
    int64_t now = clock_mono_us() - e->t0_us;

    if (a->stopped)
        return;
    drop_stale(a, e, now);
    while (a->next_us >= 0 && a->next_us <= now && !a->stopped) {
        arrival(a, e, a->next_us);
        if (rate_cursor_next(&a->cur, &a->next_us) != 0)
            a->next_us = -1;
    }
    if (a->next_us >= 0 && !a->stopped) {
        ev_timer_set(w, engine_after(e, a->next_us - (clock_mono_us() - e->t0_us)), 0.);
        ev_timer_start(loop, w);
    }
}

void arrive_start(arrive *a, struct engine *e)
{
    /* --vus: created before the first arrival, their init started now. */
    while (e->nvus < e->cfg.vu_count && e->cfg.vu_first + e->nvus * e->cfg.vu_stride <= a->open_vus)
        if (grow(a, e) != 0)
            break;
    if (a->next_us >= 0) {
        ev_timer_set(&a->timer, engine_after(e, a->next_us), 0.);
        ev_timer_start(e->loop, &a->timer);
    }
}

void arrive_vu_free(arrive *a, struct engine *e, vu *v)
{
    int64_t now = clock_mono_us() - e->t0_us;

    if (!v->counted_ready) {
        v->counted_ready = 1;
        if (a->starting > 0)
            a->starting--;
    }
    drop_stale(a, e, now);
    if (a->qlen > 0 && !a->stopped) {
        int late = a->q[a->qhead].late;
        int64_t due = a->q[a->qhead].due_us;
        a->qhead = (a->qhead + 1) % a->qcap;
        a->qlen--;
        play(e, v, due, late);
        return;
    }
    a->idle[a->nidle++] = (uint32_t)(v - e->vus);
}

void arrive_stop(arrive *a, struct engine *e)
{
    int64_t now = clock_mono_us() - e->t0_us;

    /* Arrivals due already whose timer has not run yet (the stop came first
     * in this loop iteration): due, never started. */
    while (!a->stopped && a->next_us >= 0 && a->next_us <= now) {
        e->acount[a->scen].scheduled++;
        e->acount[a->scen].dropped++;
        if (rate_cursor_next(&a->cur, &a->next_us) != 0)
            a->next_us = -1;
    }
    a->stopped = 1;
    ev_timer_stop(e->loop, &a->timer);
    e->acount[a->scen].dropped += a->qlen;
    a->qlen = 0;
    a->nidle = 0;
}

void arrive_free(arrive *a)
{
    xfree(a->st);
    xfree(a->q);
    xfree(a->idle);
    memset(a, 0, sizeof(*a));
}
