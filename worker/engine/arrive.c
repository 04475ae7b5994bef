/* arrive — the open model in one worker; see arrive.h. */
#include "worker/engine/arrive.h"

#include <errno.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "worker/engine/engine_int.h"
#include "worker/wire/intend.h"

/* Most arrivals started in one wake: past it the rest are taken in the
 * loop's next iteration (the timer armed in the past fires at once), so
 * that a worker behind its schedule still serves its transfers between
 * batches. Each keeps its own due time either way. */
#define ARRIVE_BATCH_MAX 256
/* VUs kept ready ahead of need, idle or with their init under way: the
 * arrivals expected over this horizon, plus one, up to ARRIVE_SPARE_MAX;
 * the rate looked up again this often. */
#define ARRIVE_AHEAD_US 2000
#define ARRIVE_SPARE_MAX 256
#define ARRIVE_SPARE_EVERY_US 100000

/* The arrival timer's callback, below. */
static void on_arrival(struct ev_loop *loop, duetimer *d);

/* One scenario's arrivals: share of the rate (stages scaled by it), cap
 * VUs of the pool, pre of them made before the start. 0, or -1 when its
 * timerfd cannot be made (errno). */
static int arrive_one(arrive *a, struct engine *e, uint16_t sidx, double share, uint32_t cap,
                      uint32_t pre)
{
    const engine_cfg *cfg = &e->cfg;
    uint32_t stripes = cfg->arrival_stripes ? cfg->arrival_stripes : 1;

    memset(a, 0, sizeof(*a));
    a->eng = e;
    a->scen = sidx;
    a->nst = cfg->nrate_stages;
    a->st = xcalloc(a->nst ? a->nst : 1, sizeof(*a->st));
    for (size_t i = 0; i < a->nst; i++) {
        a->st[i] = cfg->rate_stages[i];
        a->st[i].per_s *= share;
    }
    a->max_lag_us = cfg->max_lag_us;
    a->share = share;
    a->stripes = stripes;
    a->open_vus = cfg->open_vus;
    a->cap = cap;
    a->pre = pre;
    rate_cursor_init(&a->cur, a->st, a->nst, (cfg->vu_first - 1) % stripes, stripes);
    if (rate_cursor_next(&a->cur, &a->next_us) != 0)
        a->next_us = -1;
    a->idle = xcalloc(cap ? cap : 1, sizeof(*a->idle));
    return duetimer_init(&a->due, on_arrival, a);
}

void arrive_split(const double *weights, size_t n, uint32_t total, uint32_t *out)
{
    double sum = 0, *rem = xcalloc(n ? n : 1, sizeof(*rem));
    uint32_t given = 0;

    for (size_t i = 0; i < n; i++)
        sum += weights[i];
    for (size_t i = 0; i < n; i++) {
        double exact = sum > 0 ? (double)total * weights[i] / sum : 0;
        out[i] = (uint32_t)exact;
        rem[i] = exact - out[i];
        given += out[i];
    }
    while (given < total && n > 0) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (rem[i] > rem[best])
                best = i;
        out[best]++;
        rem[best] = -1;
        given++;
    }
    /* A scenario with no VU at all would drop every arrival it has. */
    for (size_t i = 0; total >= n && i < n; i++) {
        if (out[i] > 0)
            continue;
        size_t most = 0;
        for (size_t j = 1; j < n; j++)
            if (out[j] > out[most])
                most = j;
        out[most]--;
        out[i]++;
    }
    xfree(rem);
}

int arrive_set_init(struct engine *e, char *err, size_t errlen)
{
    const engine_cfg *cfg = &e->cfg;
    size_t n = 0;
    double *w = xcalloc(e->scens.nscens ? e->scens.nscens : 1, sizeof(*w)), sum = 0;
    uint16_t *idx = xcalloc(e->scens.nscens ? e->scens.nscens : 1, sizeof(*idx));
    uint32_t *cap = NULL, *pre = NULL, npre = 0;
    int rc = -1;

    if (rate_stages_check(cfg->rate_stages, cfg->nrate_stages, err, errlen) != 0)
        goto out;
    if (cfg->staged_vus > 0 || cfg->nstages > 0 || cfg->runs > 0) {
        err_set(err, errlen, "an arrival rate cannot be combined with stages or --runs");
        goto out;
    }
    /* The scenarios with a weight share the arrivals by it; in a mixed run
     * only the one with a rate of its own plays them, beside the closed
     * VUs already made (e->nvus of the slots). */
    for (size_t i = 0; i < e->scens.nscens; i++) {
        const scen *sc = e->scens.scens[i];
        if (cfg->closed_vus > 0 && sc->nrate_stages == 0)
            continue;
        if (sc->nstages > 0) {
            err_set(err, errlen, "%s: scenario %s has stages of its own: not with an arrival rate",
                    cfg->script, sc->name);
            goto out;
        }
        if (sc->weight > 0) {
            w[n] = sc->weight;
            idx[n++] = (uint16_t)i;
            sum += sc->weight;
        }
    }
    if (n == 0) {
        err_set(err, errlen, "%s: every scenario has weight 0", cfg->script);
        goto out;
    }
    cap = xcalloc(n, sizeof(*cap));
    pre = xcalloc(n, sizeof(*pre));
    arrive_split(w, n, cfg->vu_count - e->nvus, cap);
    /* --vus: this worker's slots whose global index is within it. */
    while (npre < cfg->vu_count && cfg->vu_first + npre * cfg->vu_stride <= cfg->open_vus)
        npre++;
    arrive_split(w, n, npre, pre);
    e->arr = xcalloc(n, sizeof(*e->arr));
    e->narr = n;
    for (size_t i = 0; i < n; i++)
        duetimer_clear(&e->arr[i].due); /* arrive_free of those not made yet closes nothing */
    e->alag = xcalloc(e->scens.nscens, sizeof(*e->alag));
    for (size_t i = 0; i < n; i++)
        e->alag[idx[i]] = hist_new();
    for (size_t i = 0; i < n; i++)
        if (arrive_one(&e->arr[i], e, idx[i], w[i] / sum, cap[i],
                       pre[i] < cap[i] ? pre[i] : cap[i]) != 0) {
            err_set(err, errlen, "cannot make the arrival timer (timerfd): %s", strerror(errno));
            goto out;
        }
    rc = 0;
out:
    xfree(w);
    xfree(idx);
    xfree(cap);
    xfree(pre);
    return rc;
}

arrive *arrive_of(struct engine *e, uint16_t sidx)
{
    for (size_t i = 0; i < e->narr; i++)
        if (e->arr[i].scen == sidx)
            return &e->arr[i];
    return NULL;
}

/* A new VU in the next free slot of the pool: its init runs at once, then
 * it comes to arrive_vu_free. 0, or -1 when the pool is full. */
static int grow(arrive *a, struct engine *e)
{
    uint32_t slot = e->nvus, gid = e->cfg.vu_first + slot * e->cfg.vu_stride;
    vu *v;

    if (slot >= e->cfg.vu_count || a->made >= a->cap)
        return -1;
    v = &e->vus[slot];
    if (vu_init(v, e, gid, a->scen) != 0) {
        log_msg(LOG_ERROR, "cannot create VU %u (libcurl)", gid);
        return -1;
    }
    e->nvus++;
    a->made++;
    a->starting++;
    if (e->prefilling) {
        v->prefill = 1; /* engine_prefill waits for its init */
        e->prefill_left++;
    } else {
        e->acount[a->scen].inits++; /* an init during the load: the server's work too */
    }
    vu_schedule_start(v, 0);
    return 0;
}

/* Starts a run on v for the arrival due at due (from the run's start).
 * w: what it waited for (enum arrive_wait_for), own_us how late the timer
 * took it; ARRIVE_WAIT_NONE: it found v ready, its start lag quern's own whole. */
static void play(struct engine *e, vu *v, int64_t due, int w, int64_t own_us)
{
    rate_counts *c = &e->acount[v->scen];

    c->started++;
    if (w == ARRIVE_WAIT_FREE)
        c->late++;
    else if (w == ARRIVE_WAIT_INIT)
        c->init_waits++;
    v->run_due_us = e->load_t0_us + due; /* its response times count from there */
    /* the start lag is quern's own delay: the wait for a VU (the server's
     * init, or its runs filling the pool) is not quern's, and is counted apart */
    if (w == ARRIVE_WAIT_NONE)
        own_us = intend_lag(v->run_due_us, clock_mono_us());
    hist_record(e->alag[v->scen], (uint64_t)(own_us > 0 ? own_us : 0));
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

static void enqueue(arrive *a, int64_t due, int64_t now, int w)
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
    a->q[(a->qhead + a->qlen) % a->qcap].own_us = now - due;
    a->q[(a->qhead + a->qlen) % a->qcap].wait = (uint8_t)w;
    a->qlen++;
}

/* One arrival is due: an idle VU plays it, or it waits (for a VU being
 * created for it, or for the next one free). */
static void arrival(arrive *a, struct engine *e, int64_t due)
{
    /* Taken already past --max-lag (the worker fell behind its schedule):
     * as one that waited so long for a VU, dropped, and the worker catches
     * up instead of starting runs seconds late. */
    int64_t now = clock_mono_us() - e->load_t0_us;

    if (now - due >= a->max_lag_us) {
        e->acount[a->scen].dropped++;
        return;
    }
    if (a->qlen == 0 && a->nidle > 0) {
        play(e, &e->vus[a->idle[--a->nidle]], due, ARRIVE_WAIT_NONE, 0);
        return;
    }
    /* VUs already being created are for the arrivals already waiting. */
    if (a->starting <= a->qlen && grow(a, e) == 0) {
        enqueue(a, due, now, ARRIVE_WAIT_INIT);
        return;
    }
    enqueue(a, due, now, a->starting <= a->qlen ? ARRIVE_WAIT_FREE : ARRIVE_WAIT_INIT);
}

size_t arrive_take(arrive *a, int64_t now_us, size_t max, arrive_start_fn start, void *ctx)
{
    size_t n = 0;

    while (n < max && a->next_us >= 0 && a->next_us <= now_us && !a->stopped) {
        int64_t due = a->next_us;
        if (rate_cursor_next(&a->cur, &a->next_us) != 0)
            a->next_us = -1;
        n++;
        a->taken++;
        start(ctx, due);
    }
    return n;
}

uint64_t arrive_due_by(const arrive *a, int64_t t_us)
{
    uint64_t total = a->cur.total, all;
    double l;

    if (total == 0 || t_us < 0)
        return 0;
    l = rate_expected(a->st, a->nst, t_us);
    all = l >= (double)total ? total : (uint64_t)l + 1; /* arrival 0 is due at 0 */
    if (all > total)
        all = total;
    return all > a->cur.k % a->stripes ? (all - a->cur.k % a->stripes + a->stripes - 1) / a->stripes
                                       : 0;
}

void arrive_count_due(arrive *a, struct engine *e, int64_t t_us)
{
    uint64_t due;

    /* Those the timer has not taken by --max-lag after their time will be
     * dropped when it does (arrival): dropped in this second, not later. */
    while (!a->stopped && a->next_us >= 0 && t_us - a->next_us >= a->max_lag_us) {
        e->acount[a->scen].dropped++;
        a->taken++;
        if (rate_cursor_next(&a->cur, &a->next_us) != 0)
            a->next_us = -1;
    }
    a->behind_us = !a->stopped && a->next_us >= 0 && t_us > a->next_us ? t_us - a->next_us : 0;
    due = a->stopped ? a->taken : arrive_due_by(a, t_us);

    if (due < a->taken)
        due = a->taken;
    if (due > a->counted) {
        e->acount[a->scen].scheduled += due - a->counted;
        a->counted = due;
    }
}

uint32_t arrive_spare(double per_s)
{
    double n = per_s > 0 ? per_s * ARRIVE_AHEAD_US / 1e6 : 0;

    return n >= ARRIVE_SPARE_MAX - 1 ? ARRIVE_SPARE_MAX : (uint32_t)n + 1;
}

/* Grows the pool ahead of need, so that an arrival finds a VU ready (its
 * thread, its vu table, its init done) instead of waiting for one to be
 * made: up to the spare for this worker's rate, within the pool's cap. */
static void grow_ahead(arrive *a, struct engine *e, int64_t now)
{
    if (now >= a->spare_at_us) {
        a->spare = arrive_spare(rate_at(a->st, a->nst, now) / a->stripes);
        a->spare_at_us = now + ARRIVE_SPARE_EVERY_US;
    }
    while (a->nidle + a->starting < a->qlen + a->spare)
        if (grow(a, e) != 0)
            break;
}

/* arrive_take's start in the loop: ctx is the arrive. */
static void take_one(void *ctx, int64_t due)
{
    arrive *a = ctx;

    arrival(a, a->eng, due);
}

/* Arms the timer at the next arrival's due time, from the run's start. */
static void arm(arrive *a, struct engine *e)
{
    if (duetimer_arm(&a->due, e->loop, e->load_t0_us + a->next_us) != 0)
        log_msg(LOG_ERROR, "cannot arm the arrival timer (timerfd): %s", strerror(errno));
}

static void on_arrival(struct ev_loop *loop, duetimer *d)
{
    arrive *a = d->data;
    struct engine *e = ev_userdata(loop);
    int64_t now = clock_mono_us() - e->load_t0_us;
    size_t n;

    if (a->stopped)
        return;
    drop_stale(a, e, now);
    /* Every arrival due by now in this one wake, then those that fell due
     * while the batch ran (the clock read again), then the timer once. */
    n = arrive_take(a, now, ARRIVE_BATCH_MAX, take_one, a);
    if (n < ARRIVE_BATCH_MAX && a->next_us >= 0) {
        now = clock_mono_us() - e->load_t0_us;
        arrive_take(a, now, ARRIVE_BATCH_MAX - n, take_one, a);
    }
    if (a->stopped)
        return;
    grow_ahead(a, e, now);
    if (a->next_us >= 0)
        arm(a, e);
}

void arrive_prefill(arrive *a, struct engine *e)
{
    while (a->made < a->pre)
        if (grow(a, e) != 0)
            break;
}

void arrive_start(arrive *a, struct engine *e)
{
    /* Its share of --vus, when engine_prefill did not make them: their
     * init started now. */
    while (a->made < a->pre)
        if (grow(a, e) != 0)
            break;
    grow_ahead(a, e, 0);
    if (a->next_us >= 0)
        arm(a, e);
}

void arrive_vu_free(struct engine *e, vu *v)
{
    arrive *a = arrive_of(e, v->scen);
    int64_t now = clock_mono_us() - e->load_t0_us;

    if (a == NULL)
        return;
    if (!v->counted_ready) {
        v->counted_ready = 1;
        if (a->starting > 0)
            a->starting--;
    }
    drop_stale(a, e, now);
    if (a->qlen > 0 && !a->stopped) {
        arrive_wait w = a->q[a->qhead];
        a->qhead = (a->qhead + 1) % a->qcap;
        a->qlen--;
        play(e, v, w.due_us, w.wait, w.own_us);
        return;
    }
    a->idle[a->nidle++] = (uint32_t)(v - e->vus);
}

void arrive_stop(arrive *a, struct engine *e)
{
    int64_t now = clock_mono_us() - e->load_t0_us;

    /* Arrivals due already whose timer has not run yet (the stop came first
     * in this loop iteration): due, never started. */
    while (!a->stopped && a->next_us >= 0 && a->next_us <= now) {
        e->acount[a->scen].dropped++;
        a->taken++;
        if (rate_cursor_next(&a->cur, &a->next_us) != 0)
            a->next_us = -1;
    }
    /* Those already counted as scheduled (arrive_count_due) are due too. */
    while (!a->stopped && a->next_us >= 0 && a->taken < a->counted) {
        e->acount[a->scen].dropped++;
        a->taken++;
        if (rate_cursor_next(&a->cur, &a->next_us) != 0)
            a->next_us = -1;
    }
    a->stopped = 1;
    duetimer_stop(&a->due, e->loop);
    e->acount[a->scen].dropped += a->qlen;
    a->qlen = 0;
    a->nidle = 0;
}

void arrive_pause(arrive *a, struct engine *e, int paused)
{
    if (paused)
        duetimer_stop(&a->due, e->loop);
    else if (!a->stopped && a->next_us >= 0)
        arm(a, e);
}

int arrive_restage(arrive *a, uint32_t stripe, int64_t at_us, double per_s)
{
    int64_t end = rate_total_us(a->st, a->nst), t = 0;
    rate_stage *st = xcalloc(a->nst + 3, sizeof(*st));
    uint32_t stripes = a->stripes ? a->stripes : 1;
    /* The next arrival not taken: the one next_us holds (the cursor is a
     * stripe past it), or, once the list ran out, the cursor's. */
    uint64_t pend = a->next_us >= 0 ? a->cur.k - stripes : a->cur.k;
    size_t n = 0;

    if (at_us < 0)
        at_us = 0;
    if (a->stopped || at_us >= end) {
        xfree(st);
        return -1;
    }
    /* The stages up to at_us as they were (a cut one ends at the rate it
     * had then), a jump to the new rate, held to the planned end: L(t) is
     * the same up to at_us, so arrival k is the same k everywhere. */
    for (size_t i = 0; i < a->nst && t < at_us; i++) {
        st[n] = a->st[i];
        if (t + a->st[i].dur_us > at_us) {
            st[n].dur_us = at_us - t;
            st[n].per_s = rate_at(a->st, a->nst, at_us);
        }
        t += st[n].dur_us;
        n++;
    }
    st[n].dur_us = 0;
    st[n++].per_s = per_s * a->share;
    st[n].dur_us = end - at_us;
    st[n++].per_s = per_s * a->share;
    xfree(a->st);
    a->st = st;
    a->nst = n;
    /* The arrivals already taken stay taken: the walk resumes at the next. */
    rate_cursor_init(&a->cur, a->st, a->nst, stripe % stripes, stripes);
    for (;;) {
        if (rate_cursor_next(&a->cur, &a->next_us) != 0) {
            a->next_us = -1;
            break;
        }
        if (a->cur.k - stripes >= pend)
            break;
    }
    a->spare_at_us = 0;
    return 0;
}

int arrive_set_rate(arrive *a, struct engine *e, int64_t at_us, double per_s)
{
    uint32_t stripes = a->stripes ? a->stripes : 1;

    if (arrive_restage(a, (e->cfg.vu_first - 1) % stripes, at_us, per_s) != 0)
        return -1;
    duetimer_stop(&a->due, e->loop);
    if (a->next_us >= 0 && !e->paused)
        arm(a, e);
    return 0;
}

void arrive_halt(arrive *a, struct engine *e)
{
    duetimer_stop(&a->due, e->loop);
}

void arrive_free(arrive *a)
{
    duetimer_free(&a->due);
    xfree(a->st);
    xfree(a->q);
    xfree(a->idle);
    memset(a, 0, sizeof(*a));
}
