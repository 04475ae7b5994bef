#include "worker/engine/engine.h"

#include <lauxlib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/redact.h"
#include "common/saturation.h"
#include "worker/engine/engine_int.h"
#include "worker/lua/lgrpc.h"
#include "common/version.h"
#include "worker/engine/lifecycle.h"
#include "worker/plugs/plug.h"
#include "worker/engine/lscript.h"
#include "worker/wire/reqopt.h"
#include "worker/engine/inflight.h"
#include "worker/plugs/trace.h"
#include "worker/engine/steer.h"

#define SCRIPT_ERRORS_LOGGED 10
#define ENGINE_VU_CONNS 32  /* idle connections a VU keeps */
#define STOP_BATCH_US 20000 /* a stop's share of one loop iteration (stop_some) */

/* --- libcurl multi_socket on libev ---------------------------------------- */

static void check_done(engine *e)
{
    CURLMsg *m;
    int left;

    while ((m = curl_multi_info_read(e->multi, &left)) != NULL) {
        CURL *easy;
        CURLcode rc;
        vu *v = NULL;
        if (m->msg != CURLMSG_DONE)
            continue;
        easy = m->easy_handle;
        rc = m->data.result;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&v);
        /* m is invalid after the removal: everything was copied out. The VU
         * is resumed here, on the loop, outside any libcurl callback. */
        if (!plugs_xfer_done(v, easy, rc)) {
            /* every handle is a plug's (the VU's own: vureq.h) */
            curl_multi_remove_handle(e->multi, easy);
            log_msg(LOG_WARN, "a transfer no protocol owns ended: dropped");
        }
    }
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents);

/* A watcher lives as long as its socket, not as long as libcurl's interest
 * in it: between two requests on a kept-alive connection libcurl forgets the
 * socket (CURL_POLL_REMOVE) and asks for it again, and stopping and starting
 * the watcher would cost an epoll_ctl per request. A connection's watcher is
 * parked instead: still armed, and stopped only if it fires while parked
 * (the server closed the idle connection; libcurl finds that out itself when
 * it next checks the connection). */

static sockw *fd_watcher(engine *e, curl_socket_t s)
{
    return s >= 0 && s < e->nfdw ? e->fdw[s] : NULL;
}

static void watcher_drop(engine *e, curl_socket_t s)
{
    sockw *w = fd_watcher(e, s);

    if (w == NULL)
        return;
    ev_io_stop(e->loop, &w->io);
    e->fdw[s] = NULL;
    w->next = e->free_socks;
    e->free_socks = w;
}

static sockw *watcher_new(engine *e, curl_socket_t s, int conn)
{
    sockw *w = e->free_socks;

    if (s >= e->nfdw) {
        int n = e->nfdw ? e->nfdw : 64;
        while (n <= s)
            n *= 2;
        e->fdw = xreallocarray(e->fdw, (size_t)n, sizeof(*e->fdw));
        memset(e->fdw + e->nfdw, 0, (size_t)(n - e->nfdw) * sizeof(*e->fdw));
        e->nfdw = n;
    }
    if (w != NULL)
        e->free_socks = w->next;
    else
        w = xmalloc(sizeof(*w));
    memset(w, 0, sizeof(*w));
    ev_io_init(&w->io, on_io, s, 0);
    w->conn = conn;
    e->fdw[s] = w;
    return w;
}

static curl_socket_t open_cb(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
    engine *e = ud;
    curl_socket_t s = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);

    if (s != CURL_SOCKET_BAD) {
        watcher_drop(e, s); /* a descriptor closed without close_cb: stale */
        watcher_new(e, s, 1);
    }
    return s;
}

static int close_cb(void *ud, curl_socket_t s)
{
    watcher_drop(ud, s);
    return close(s);
}

void engine_watch_sockets(engine *e, CURL *easy)
{
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_cb);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, e);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, close_cb);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, e);
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
    engine *e = ev_userdata(loop);
    sockw *sw = (sockw *)w;
    int action =
        (revents & EV_READ ? CURL_CSELECT_IN : 0) | (revents & EV_WRITE ? CURL_CSELECT_OUT : 0);
    int running;

    if (sw->want == 0) {
        ev_io_stop(loop, w); /* parked: armed again when libcurl asks */
        return;
    }
    /* w may be dropped by the call (close_cb): not touched after. */
    curl_multi_socket_action(e->multi, w->fd, action, &running);
    check_done(e);
}

static void on_curl_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    engine *e = ev_userdata(loop);
    int running;

    curl_multi_socket_action(e->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(e);
}

/* New transfers start together, once per loop iteration, just before the
 * loop waits: their requests leave in one burst, and the server, woken by
 * the first, finds the others waiting. Started one by one between the
 * responses (libcurl runs a new handle at its next call), each request woke
 * the server's process again, and the wake-up, paid in this process's system
 * time, cost a fifth of the worker's CPU at 50 VUs. A transfer's time is
 * libcurl's, from the moment it starts, so the queue is not counted in it. */

#define START_ROUNDS 4 /* transfers that fail at once may queue others */

void engine_start_xfer(engine *e, vu *v)
{
    if (steer_hold_xfer(v))
        return; /* paused: queued at the resume */
    v->start_next = NULL;
    v->queued = 1;
    *e->startq_tail = v;
    e->startq_tail = &v->start_next;
}

static void start_queued(engine *e)
{
    vu *v = e->startq, *next;
    int64_t now = clock_mono_us();
    int running;

    e->startq = NULL;
    e->startq_tail = &e->startq;
    /* next is read first: a VU whose transfer fails here runs on and may
     * queue its next one, which relinks it into the new queue. */
    for (; v != NULL; v = next) {
        next = v->start_next;
        if (!v->queued)
            continue; /* killed while queued */
        v->queued = 0;
        v->x.start_us = now;
        if (curl_multi_add_handle(e->multi, v->xh->easy) != CURLM_OK) {
            plugs_xfer_done(v, v->xh->easy, CURLE_FAILED_INIT); /* vureq.h */
            continue;
        }
    }
    curl_multi_socket_action(e->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(e);
}

static void on_starter(struct ev_loop *loop, ev_prepare *w, int revents)
{
    engine *e = ev_userdata(loop);

    for (int i = 0; i < START_ROUNDS && e->startq != NULL; i++)
        start_queued(e);
    if (e->startq != NULL && !ev_is_active(&e->kick)) {
        ev_timer_set(&e->kick, 0., 0.);
        ev_timer_start(loop, &e->kick);
    }
}

static void on_kick(struct ev_loop *loop, ev_timer *w, int revents)
{
    /* Nothing: the loop went round without waiting; on_starter does the work. */
}

static int multi_socket_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
    engine *e = userp;
    sockw *w = fd_watcher(e, s);
    int events;

    if (what == CURL_POLL_REMOVE) {
        if (w == NULL)
            return 0;
        w->want = 0;
        if (!w->conn)
            watcher_drop(e, s); /* not a connection (a resolver's pipe) */
        else if (w->armed & EV_WRITE)
            ev_io_stop(e->loop, &w->io); /* would fire at once */
        return 0;
    }
    events = (what & CURL_POLL_IN ? EV_READ : 0) | (what & CURL_POLL_OUT ? EV_WRITE : 0);
    if (w == NULL)
        w = watcher_new(e, s, 0);
    if (w->armed != events || !ev_is_active(&w->io)) {
        /* Re-armed only when the interest changed. */
        ev_io_stop(e->loop, &w->io);
        ev_io_set(&w->io, s, events);
        w->armed = events;
        ev_io_start(e->loop, &w->io);
    }
    w->want = events;
    return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    engine *e = userp;

    ev_timer_stop(e->loop, &e->curl_timer);
    if (timeout_ms >= 0) {
        /* 0 means "as soon as possible": never call libcurl from here. */
        ev_timer_set(&e->curl_timer, (double)timeout_ms / 1000.0, 0.);
        ev_timer_start(e->loop, &e->curl_timer);
    }
    return 0;
}

/* The variables libcurl reads to find a proxy: when none is set, which the
 * environment will not change during the run, the handles say so once. */
static int no_proxy_in_env(void)
{
    static const char *const names[] = {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                        "ALL_PROXY",  "no_proxy",    "NO_PROXY"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (getenv(names[i]) != NULL)
            return 0;
    return 1;
}

/* libev counts a timer from the time it read when the loop iteration began:
 * a VU that asks for a sleep late in a busy iteration would sleep for less
 * than it asked (300 ms of Lua work then a 500 ms sleep put 500 ms between
 * its requests, not 800), and all the VUs that asked in one iteration would
 * wake at the same instant. The loop's time is brought up to date first; it
 * is libev's monotonic time, so a step of the wall clock changes nothing. */
double engine_after(engine *e, int64_t us)
{
    ev_now_update(e->loop);
    return us > 0 ? (double)us / 1e6 : 0.;
}

/* --- intervals ------------------------------------------------------------ */

void engine_active(engine *e, int delta, int64_t now)
{
    if (now > e->active_mark_us) {
        e->vu_us += (uint64_t)(e->active - e->pool_idle) * (uint64_t)(now - e->active_mark_us);
        e->active_mark_us = now;
    }
    e->active = (uint32_t)((int64_t)e->active + delta);
}

void engine_pool_idle(engine *e, int delta, int64_t now)
{
    engine_active(e, 0, now);
    e->pool_idle = (uint32_t)((int64_t)e->pool_idle + delta);
}

/* The worker's own figures for the interval in iv, and whether it kept up. */
static void judge_second(engine *e, engine_interval *iv)
{
    selfmon_second ms;
    saturation_in in;

    memset(&ms, 0, sizeof(ms));
    if (e->mon.running)
        selfmon_take(&e->mon, &ms);
    memset(&in, 0, sizeof(in));
    for (size_t i = 0; i < e->scens.nscens; i++) {
        uint64_t p;
        if (e->alag == NULL || e->alag[i] == NULL || hist_count(e->alag[i]) == 0)
            continue;
        p = hist_percentile(e->alag[i], 99.0);
        if (p > in.start_lag_p99_us)
            in.start_lag_p99_us = p;
    }
    for (size_t i = 0; i < e->narr; i++)
        if ((uint64_t)e->arr[i].behind_us > in.behind_us)
            in.behind_us = (uint64_t)e->arr[i].behind_us;
    in.cpu_permille = ms.cpu_permille;
    in.loop_lag_max_us = ms.loop_lag_max_us;
    iv->cpu_permille = ms.cpu_permille;
    iv->loop_lag_max_us = ms.loop_lag_max_us;
    iv->loop_lag = ms.lag;
    iv->start_lag_p99_us = in.start_lag_p99_us;
    iv->saturated = saturation_judge(&in);
}

static void emit(engine *e, int64_t now)
{
    engine_interval iv;

    iv.second = e->second;
    iv.start_wall_us = e->t0_wall_us + (e->iv_start_us - e->t0_us);
    iv.length_us = now - e->iv_start_us;
    engine_active(e, 0, now);
    iv.active_vus = e->active;
    iv.vu_us = e->vu_us;
    iv.run_us = e->run_us;
    iv.wait_us = e->wait_us;
    iv.held = e->held;
    iv.held_us = e->held_us;
    iv.held_max_us = e->held_max_us;
    vustart_take(&e->vstart, now - e->load_t0_us, &iv.vus_planned, &iv.vus_started);
    iv.paused_us = steer_paused_in(e, e->iv_start_us, now);
    iv.pace_asked_us = e->pace_asked_us;
    iv.pace_lost_us = e->pace_lost_us;
    iv.steps = e->cur;
    iv.nsteps = e->scens.nsteps;
    iv.scens = e->scount;
    iv.arrivals = e->acount;
    iv.start_lag = e->alag;
    iv.nscens = e->scens.nscens;
    for (size_t i = 0; i < e->narr; i++)
        arrive_count_due(&e->arr[i], e, now - e->load_t0_us);
    iv.tally = &e->tally;
    judge_second(e, &iv);
    if (e->cfg.sink != NULL)
        e->cfg.sink(e->cfg.sink_ud, &iv);
    tally_next(&e->tally);
    selfmon_next(&e->mon);
    for (size_t i = 0; i < e->scens.nsteps; i++)
        stats_reset(&e->cur[i]);
    memset(e->scount, 0, e->scens.nscens * sizeof(*e->scount));
    memset(e->acount, 0, e->scens.nscens * sizeof(*e->acount));
    e->vu_us = e->run_us = e->wait_us = 0;
    e->held = e->held_us = e->held_max_us = 0;
    e->pace_asked_us = e->pace_lost_us = 0;
    for (size_t i = 0; e->alag != NULL && i < e->scens.nscens; i++)
        if (e->alag[i] != NULL)
            hist_reset(e->alag[i]);
    e->second++;
    e->iv_start_us = now;
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
    engine *e = ev_userdata(loop);
    int64_t now = e->t0_us + (int64_t)(e->second + 1) * 1000000;

    emit(e, now);
    xh_trim(e);
    /* Schedule against the run's start so intervals do not drift. */
    ev_timer_set(w, engine_after(e, now + 1000000 - clock_mono_us()), 0.);
    ev_timer_start(loop, w);
}

/* --- a staged load's descents -------------------------------------------- */

/* Each VU whose time has come leaves (vu_leave: after its current run); the
 * timer is armed again for the next one. */
static void on_leave(struct ev_loop *loop, ev_timer *w, int revents)
{
    engine *e = ev_userdata(loop);
    int64_t now = clock_mono_us() - e->load_t0_us;

    while (e->leave_next < e->nleave && e->leave[e->leave_next].at_us <= now)
        vu_leave(&e->vus[e->leave[e->leave_next++].vu]);
    if (e->leave_next < e->nleave && !e->stopping) {
        ev_timer_set(w, engine_after(e, e->leave[e->leave_next].at_us - now), 0.);
        ev_timer_start(loop, w);
    }
}

static int leave_cmp(const void *a, const void *b)
{
    const engine_leave *x = a, *y = b;

    if (x->at_us != y->at_us)
        return x->at_us < y->at_us ? -1 : 1;
    return x->vu < y->vu ? 1 : x->vu > y->vu ? -1 : 0; /* the higher index first */
}

/* Starts every VU at its time: its global index's place on the ramp, or
 * in the stages (the run's, or its scenario's own), where it may also have
 * a time to leave. */
static void schedule_vus(engine *e)
{
    uint32_t shared = e->cfg.vus_total - e->cfg.staged_vus; /* ramp_us spreads these */

    if (e->steer_vus)
        shared = e->vus_target; /* the ids beyond wait, dormant */
    e->nleave = e->leave_next = 0;
    if (e->cfg.nstages > 0 || e->cfg.staged_vus > 0)
        e->leave = xcalloc(e->cfg.vu_count ? e->cfg.vu_count : 1, sizeof(*e->leave));
    for (uint32_t i = 0; i < e->nclosed; i++) {
        vu *v = &e->vus[i];
        const scen *sc = e->scens.scens[v->scen];
        int64_t start = 0, leave = -1;
        if (steer_dormant_at_start(v))
            continue;
        if (sc->nstages > 0)
            stages_id_times(sc->stages, sc->nstages, v->gid - sc->id_base, &start, &leave);
        else if (e->cfg.nstages > 0)
            stages_id_times(e->cfg.stages, e->cfg.nstages, v->gid, &start, &leave);
        else if (shared > 0)
            start = (int64_t)((double)(v->gid - 1) * (double)e->cfg.ramp_us / (double)shared);
        if (leave >= 0 && leave <= start) {
            vu_leave(v); /* in and out at the same instant: never starts */
            continue;
        }
        vu_schedule_start(v, start);
        vustart_add(&e->vstart, start);
        if (leave >= 0) {
            e->leave[e->nleave].at_us = leave;
            e->leave[e->nleave++].vu = i;
        }
    }
    vustart_sorted(&e->vstart);
    if (e->nleave == 0)
        return;
    qsort(e->leave, e->nleave, sizeof(*e->leave), leave_cmp);
    ev_timer_set(&e->leave_timer, engine_after(e, e->leave[0].at_us), 0.);
    ev_timer_start(e->loop, &e->leave_timer);
}

/* --- stopping ------------------------------------------------------------- */

static void on_end_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    engine *e = ev_userdata(loop);

    if (!e->stopping) {
        engine_stop(e, ENGINE_COMPLETED);
        return;
    }
    /* The grace is over. */
    if (e->done < e->nvus)
        log_msg(LOG_WARN, "grace period over: %u VU(s) cut short", e->nvus - e->done);
    e->killing = 1;
    for (uint32_t i = 0; i < e->nvus; i++)
        vu_kill(&e->vus[i]);
}

/* Tells the VUs to end, STOP_BATCH_US of work at a time. A VU told starts
 * its finish (or ends) at once, in Lua: with thousands of VUs, one pass over
 * them all would hold the loop for seconds, no second reported and no
 * response read, and a busy worker would look held to its agent
 * (agent/stall.h). The grace counts from the moment the last VU was told.
 * VUs not told yet that wake meanwhile see e->stopping and end on their own. */
static void stop_some(engine *e)
{
    int64_t until = clock_mono_us() + STOP_BATCH_US;

    while (e->stop_next < e->nvus && !e->killing) {
        vu_stop(&e->vus[e->stop_next++]);
        if (clock_mono_us() >= until)
            break;
    }
    if (e->killing)
        return;
    if (e->stop_next < e->nvus) {
        ev_timer_set(&e->stop_timer, 0., 0.); /* the loop turns, then the next batch */
        ev_timer_start(e->loop, &e->stop_timer);
        return;
    }
    ev_timer_set(&e->end_timer, (double)e->cfg.grace_us / 1e6, 0.);
    ev_timer_start(e->loop, &e->end_timer);
}

static void on_stop_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    stop_some(ev_userdata(loop));
}

void engine_stop(engine *e, enum engine_status why)
{
    if (e->stopping) {
        if (why == ENGINE_ABORTED) {
            e->status = ENGINE_ABORTED;
            ev_timer_stop(e->loop, &e->stop_timer);
            on_end_timer(e->loop, &e->end_timer, 0);
        }
        return;
    }
    steer_resume(e); /* a VU held cannot end */
    e->stopping = 1;
    e->status = why;
    vustart_stop(&e->vstart, clock_mono_us() - e->load_t0_us);
    ev_timer_stop(e->loop, &e->leave_timer);
    ev_timer_stop(e->loop, &e->end_timer);
    for (size_t i = 0; i < e->narr; i++)
        arrive_stop(&e->arr[i], e);
    e->stop_next = 0;
    stop_some(e);
    if (e->arr != NULL && e->done == e->nvus)
        ev_break(e->loop, EVBREAK_ONE); /* the open model with no VU left */
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    engine *e = ev_userdata(loop);

    if (e->stopping && e->status == ENGINE_STOPPED) {
        log_msg(LOG_WARN, "second interrupt: aborting now");
        engine_stop(e, ENGINE_ABORTED);
        return;
    }
    if (e->stopping) {
        engine_stop(e, ENGINE_ABORTED);
        return;
    }
    log_msg(LOG_INFO, "interrupted: stopping (VUs finish their request in flight; interrupt "
                      "again to abort)");
    engine_stop(e, ENGINE_STOPPED);
}

void engine_check_dormant(engine *e)
{
    /* --runs: the planned end, as when the last VU did its runs; through
     * the end timer, not from inside a VU's call. (With a duration, the
     * end timer ends the run, and a dormant VU may yet be asked for.) */
    if (e->cfg.duration_us == 0 && e->ndormant > 0 && e->done + e->ndormant == e->nvus &&
        !e->stopping) {
        ev_timer_stop(e->loop, &e->end_timer);
        ev_timer_set(&e->end_timer, 0., 0.);
        ev_timer_start(e->loop, &e->end_timer);
    }
}

void engine_vu_done(engine *e)
{
    e->done++;
    engine_check_dormant(e);
    if (e->done == e->nvus && (e->arr == NULL || e->stopping)) {
        if (!e->stopping)
            e->stopping = 1; /* every VU did its runs */
        ev_break(e->loop, EVBREAK_ONE);
    }
}

int64_t engine_rand_range(engine *e, int64_t lo, int64_t hi)
{
    uint64_t x = e->rng;

    if (hi <= lo)
        return lo;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    e->rng = x;
    return lo + (int64_t)(x % (uint64_t)(hi - lo + 1));
}

void engine_log_script_error(engine *e, vu *v, const char *msg)
{
    if (e->cfg.life != ENGINE_LIFE_LOAD) {
        lifecycle_failed(v, msg); /* one error, reported by the caller */
        return;
    }
    if (e->errors_logged >= SCRIPT_ERRORS_LOGGED)
        return;
    e->errors_logged++;
    luaL_traceback(v->co, v->co, msg, 0);
    log_msg(LOG_ERROR, "VU %u, run %u: %s%s", v->gid, v->run, lua_tostring(v->co, -1),
            e->errors_logged == SCRIPT_ERRORS_LOGGED ? "\n(further script errors are counted, "
                                                       "not logged)"
                                                     : "");
    lua_pop(v->co, 1);
}

/* --- life cycle ----------------------------------------------------------- */

/* Each VU keeps a connection open: say so when the descriptor limit cannot
 * hold them all, rather than let connections fail mid-run. */
static void warn_fd_limit(uint32_t vus)
{
    struct rlimit rl;

    if (vus > 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (uint64_t)vus + 64 > (uint64_t)rl.rlim_cur)
        log_msg(LOG_WARN,
                "%u VUs need about %u open files, the limit is %llu: some connections will fail "
                "(raise ulimit -n, or use more workers or agents)",
                vus, vus + 64, (unsigned long long)rl.rlim_cur);
}

static int make_closed(engine *e, char *err, size_t errlen);

/* The caller's configuration kept: its addresses and stages copied (they
 * may not outlive engine_new). 0, or -1 with err (bad stages). */
static int keep_cfg(engine *e, const engine_cfg *cfg, char *err, size_t errlen)
{
    e->cfg = *cfg;
    if (cfg->nsource_addrs > 0) {
        e->src = xcalloc(cfg->nsource_addrs, sizeof(*e->src));
        for (size_t i = 0; i < cfg->nsource_addrs; i++)
            e->src[i] = xstrdup(cfg->source_addrs[i]);
        e->cfg.source_addrs = (const char *const *)e->src;
    }
    if (e->cfg.vu_stride == 0)
        e->cfg.vu_stride = 1;
    e->cfg.stages = NULL;
    if (cfg->nstages == 0)
        return 0;
    e->stages = xcalloc(cfg->nstages, sizeof(*e->stages));
    memcpy(e->stages, cfg->stages, cfg->nstages * sizeof(*e->stages));
    e->cfg.stages = e->stages;
    return stages_check(e->stages, cfg->nstages, err, errlen);
}

/* What every request of the run shares, made once: parsed URLs, --trace,
 * the User-Agent lists, the CA bundle, --resolve. 0, or -1 with err. */
static int make_request_settings(engine *e, const engine_cfg *cfg, char *err, size_t errlen)
{
    e->no_env_proxy = no_proxy_in_env();
    e->urls = urlc_new(0);
    e->trace = trace_new(cfg->trace, cfg->vu_count);
    e->ua = curl_slist_append(NULL, "User-Agent: " QUERN_USER_AGENT);
    e->ua_ae = curl_slist_append(NULL, reqopt_accept_encoding());
    if (e->ua == NULL || e->ua_ae == NULL ||
        curl_slist_append(e->ua_ae, "User-Agent: " QUERN_USER_AGENT) == NULL) {
        err_set(err, errlen, "out of memory for the request headers");
        return -1;
    }
    e->env_ca = reqopt_env_ca();
    if (cfg->nresolve > 0) {
        e->run_ro = xcalloc(1, sizeof(*e->run_ro));
        for (size_t i = 0; i < cfg->nresolve; i++)
            if (reqopt_add_resolve(e->run_ro, cfg->resolve[i], err, errlen) != 0)
                return -1;
    }
    e->cfg.resolve = NULL; /* the entries live in run_ro */
    e->cfg.nresolve = 0;
    return 0;
}

/* The loop, the multi handle on it, and the engine's watchers. 0, or -1
 * with err. */
static int make_loop(engine *e, char *err, size_t errlen)
{
    e->loop = ev_loop_new(EVFLAG_AUTO);
    e->multi = curl_multi_init();
    if (e->loop == NULL || e->multi == NULL) {
        err_set(err, errlen, "cannot create the event loop");
        return -1;
    }
    ev_set_userdata(e->loop, e);
    curl_multi_setopt(e->multi, CURLMOPT_SOCKETFUNCTION, multi_socket_cb);
    curl_multi_setopt(e->multi, CURLMOPT_SOCKETDATA, e);
    curl_multi_setopt(e->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
    curl_multi_setopt(e->multi, CURLMOPT_TIMERDATA, e);
    /* The limit of each connection cache (a group's share, vshare.h):
     * libcurl's own, four per handle in the multi, would close a VU's
     * connection to one server when it talks to five while few transfers
     * run. */
    curl_multi_setopt(e->multi, CURLMOPT_MAXCONNECTS, (long)ENGINE_VU_CONNS * VSHARE_GROUP);
    ev_init(&e->curl_timer, on_curl_timer);
    ev_prepare_init(&e->starter, on_starter);
    ev_init(&e->kick, on_kick);
    e->startq_tail = &e->startq;
    e->slotq_tail = &e->slotq;
    e->max_xfers = inflight_share(e->cfg.max_in_flight, e->cfg.vu_count, e->cfg.vus_total);
    ev_init(&e->tick, on_tick);
    ev_init(&e->end_timer, on_end_timer);
    ev_init(&e->stop_timer, on_stop_timer);
    ev_init(&e->leave_timer, on_leave);
    return 0;
}

/* The interval's counters, one a step or a scenario, once the script
 * declared them. */
static void make_counters(engine *e)
{
    e->cur = xcalloc(e->scens.nsteps ? e->scens.nsteps : 1, sizeof(*e->cur));
    for (size_t i = 0; i < e->scens.nsteps; i++)
        stats_init(&e->cur[i]);
    if (e->cfg.slowest > 0) {
        e->slow = xcalloc(e->scens.nsteps ? e->scens.nsteps : 1, sizeof(*e->slow));
        for (size_t i = 0; i < e->scens.nsteps; i++)
            e->slow[i] = slowest_new(e->cfg.slowest);
    }
    traceid_init(&e->tid);
    e->scount = xcalloc(e->scens.nscens, sizeof(*e->scount));
    e->acount = xcalloc(e->scens.nscens ? e->scens.nscens : 1, sizeof(*e->acount));
}

/* The closed model's layout, checked against the console's: which scenario
 * each global index plays (the shared indexes by weight; after them, each
 * scenario with stages of its own has a block of its ids), the steered
 * ones, into assign (vus_total entries). 0, or -1 with err. */
static int layout_closed(engine *e, uint16_t *assign, char *err, size_t errlen)
{
    const engine_cfg *cfg = &e->cfg;
    uint32_t shared;
    uint64_t staged;

    if (cfg->staged_vus > cfg->vus_total) {
        err_set(err, errlen, "%u staged VU ids of %u", cfg->staged_vus, cfg->vus_total);
        return -1;
    }
    shared = cfg->vus_total - cfg->staged_vus;
    staged = scen_layout(&e->scens, shared);
    if ((cfg->vu_count > 0 || cfg->staged_vus > 0) && staged != cfg->staged_vus) {
        err_set(err, errlen,
                "the scenarios' stages use %llu VU ids here, %u for the console (not the same "
                "script?)",
                (unsigned long long)staged, cfg->staged_vus);
        return -1;
    }
    /* steered: the ids beyond active_vus (with stages: the stages' own)
     * wait for a vus N */
    if (cfg->active_vus > 0 && cfg->active_vus <= cfg->vus_total && cfg->staged_vus == 0) {
        e->steer_vus = 1;
        e->vus_target = cfg->active_vus;
    }
    if (e->stages != NULL &&
        stages_ids(e->stages, cfg->nstages) != (e->steer_vus ? e->vus_target : shared)) {
        err_set(err, errlen, "the stages use %llu VU indexes, the run has %u",
                (unsigned long long)stages_ids(e->stages, cfg->nstages),
                e->steer_vus ? e->vus_target : shared);
        return -1;
    }
    if (shared > 0 && scen_has_shared(&e->scens)) {
        if (scen_assign(&e->scens, shared, assign) != 0) {
            err_set(err, errlen, "%s: every scenario has weight 0", cfg->script);
            return -1;
        }
    } else if (shared > 0 && cfg->vu_count > 0) {
        err_set(err, errlen, "%s: every scenario has weight 0 or stages of its own", cfg->script);
        return -1;
    }
    for (uint32_t g = shared + 1; g <= cfg->vus_total && g > shared; g++) {
        const scen *sc = scen_of_id(&e->scens, g);
        assign[g - 1] = sc != NULL ? (uint16_t)sc->index : 0;
    }
    return 0;
}

/* The closed model's VUs, every one of this engine's made now. 0, or -1
 * with err. */
static int make_closed_model(engine *e, char *err, size_t errlen)
{
    const engine_cfg *cfg = &e->cfg;
    uint16_t *assign = xcalloc(cfg->vus_total ? cfg->vus_total : 1, sizeof(*assign));
    int rc = -1;

    if (layout_closed(e, assign, err, errlen) != 0)
        goto out;
    warn_fd_limit(cfg->vu_count);
    e->vus = xcalloc(cfg->vu_count ? cfg->vu_count : 1, sizeof(*e->vus));
    for (uint32_t i = 0; i < cfg->vu_count; i++) {
        uint32_t gid = cfg->vu_first + i * cfg->vu_stride;
        if (gid < 1 || gid > cfg->vus_total) {
            err_set(err, errlen, "VU index %u outside 1..%u", gid, cfg->vus_total);
            goto out;
        }
        if (vu_init(&e->vus[i], e, gid, assign[gid - 1]) != 0) {
            err_set(err, errlen, "cannot create VU %u (libcurl)", gid);
            goto out;
        }
        e->vus[i].rank = gid;
        e->nvus = i + 1;
    }
    rc = 0;
out:
    xfree(assign);
    return rc;
}

/* This engine's VUs: setup's or teardown's, the open model's first ones
 * (the pool grows as arrivals need it), or the closed model's. 0, or -1
 * with err. */
static int make_vus(engine *e, char *err, size_t errlen)
{
    const engine_cfg *cfg = &e->cfg;

    if (cfg->life != ENGINE_LIFE_LOAD) {
        if (lifecycle_make_vus(e, err, errlen) != 0)
            return -1;
    } else if (cfg->nrate_stages > 0) {
        warn_fd_limit(cfg->vu_count);
        e->vus = xcalloc(cfg->vu_count ? cfg->vu_count : 1, sizeof(*e->vus));
        if (cfg->closed_vus > 0 && make_closed(e, err, errlen) != 0)
            return -1;
    } else if (make_closed_model(e, err, errlen) != 0) {
        return -1;
    }
    e->nclosed = e->nvus;
    if (cfg->life == ENGINE_LIFE_LOAD && cfg->nrate_stages > 0)
        return arrive_set_init(e, err, errlen); /* the open model's arrivals */
    return 0;
}

engine *engine_new(const engine_cfg *cfg, char *err, size_t errlen)
{
    engine *e = xcalloc(1, sizeof(*e));

    vustart_init(&e->vstart);
    e->status = ENGINE_COMPLETED;
    e->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)cfg->vu_first << 32);
    scen_set_init(&e->scens);
    if (keep_cfg(e, cfg, err, errlen) != 0 || make_request_settings(e, cfg, err, errlen) != 0 ||
        lscript_load(e, err, errlen) != 0 || lifecycle_load_data(e, err, errlen) != 0 ||
        make_loop(e, err, errlen) != 0)
        goto fail;
    make_counters(e);
    if (make_vus(e, err, errlen) != 0)
        goto fail;
    return e;
fail:
    engine_free(e);
    if (err != NULL && memchr(err, '\0', errlen) != NULL && strstr(err, "://") != NULL) {
        /* A load error may quote a URL: its password is not shown. */
        char *raw = xstrdup(err);
        redact_url(raw, err, errlen);
        xfree(raw);
    }
    return NULL;
}

/* A mixed run: the VUs of global index 1..closed_vus play the scenarios
 * without a rate of their own, by weight, as --vus does; created now, in
 * the first slots (the pool's come after them). */
static int make_closed(engine *e, char *err, size_t errlen)
{
    const engine_cfg *cfg = &e->cfg;
    uint16_t *assign = xcalloc(cfg->closed_vus, sizeof(*assign));
    double *saved = xcalloc(e->scens.nscens ? e->scens.nscens : 1, sizeof(*saved));
    int rc = -1, ok;

    /* The open scenario plays arrivals, not these VUs: out of the split. */
    for (size_t i = 0; i < e->scens.nscens; i++) {
        saved[i] = e->scens.scens[i]->weight;
        if (e->scens.scens[i]->nrate_stages > 0)
            e->scens.scens[i]->weight = 0;
    }
    ok = scen_assign(&e->scens, cfg->closed_vus, assign) == 0;
    for (size_t i = 0; i < e->scens.nscens; i++)
        e->scens.scens[i]->weight = saved[i];
    if (!ok) {
        err_set(err, errlen, "%s: no scenario without a rate has a weight", cfg->script);
        goto out;
    }
    for (uint32_t i = 0; i < cfg->vu_count; i++) {
        uint32_t gid = cfg->vu_first + i * cfg->vu_stride;
        if (gid > cfg->closed_vus)
            break;
        if (vu_init(&e->vus[i], e, gid, assign[gid - 1]) != 0) {
            err_set(err, errlen, "cannot create VU %u (libcurl)", gid);
            goto out;
        }
        e->nvus = i + 1;
    }
    rc = 0;
out:
    xfree(assign);
    xfree(saved);
    return rc;
}

int engine_made_file(engine *e, size_t i, const char **path, const void **data, size_t *len)
{
    return lgrpc_made(e->L, i, path, data, len);
}

const tally *engine_tally(const engine *e)
{
    return &e->tally;
}

void engine_take_loadinfo(engine *e, loadinfo *out)
{
    *out = e->info;
    memset(&e->info, 0, sizeof(e->info));
}

const scen_set *engine_scens(const engine *e)
{
    return &e->scens;
}

void engine_prefill_done(engine *e)
{
    if (e->prefill_left > 0 && --e->prefill_left == 0 && e->prefilling)
        ev_break(e->loop, EVBREAK_ONE);
}

static void on_prefill_limit(struct ev_loop *loop, ev_timer *w, int revents)
{
    ev_break(loop, EVBREAK_ONE);
}

uint32_t engine_prefill(engine *e, int64_t max_us)
{
    ev_timer limit;
    char err[ERR_MAX];

    e->prefilling = 1;
    for (size_t i = 0; i < e->narr; i++)
        arrive_prefill(&e->arr[i], e);
    if (e->prefill_left > 0) {
        if (lwatch_timer_start(&e->watch, err, sizeof(err)) != 0)
            log_msg(LOG_WARN, "VUs that hold the loop cannot be cut (%s)", err);
        ev_timer_init(&limit, on_prefill_limit, (double)max_us / 1e6, 0.);
        ev_timer_start(e->loop, &limit);
        ev_prepare_start(e->loop, &e->starter);
        ev_run(e->loop, 0);
        ev_prepare_stop(e->loop, &e->starter);
        ev_timer_stop(e->loop, &e->kick);
        ev_timer_stop(e->loop, &limit);
        lwatch_timer_stop(&e->watch);
    }
    e->prefilling = 0;
    return e->prefill_left;
}

static void on_ctl(struct ev_loop *loop, ev_io *w, int revents)
{
    engine *e = ev_userdata(loop);

    if (e->cfg.ctl(e->cfg.sink_ud) != 0)
        ev_io_stop(loop, w);
}

enum engine_status engine_run(engine *e)
{
    char err[ERR_MAX];

    if (lwatch_timer_start(&e->watch, err, sizeof(err)) != 0)
        log_msg(LOG_WARN, "VUs that hold the loop cannot be cut (%s)", err);
    if (e->cfg.handle_signals) {
        ev_signal_init(&e->sig_int, on_signal, SIGINT);
        ev_signal_init(&e->sig_term, on_signal, SIGTERM);
        ev_signal_start(e->loop, &e->sig_int);
        ev_signal_start(e->loop, &e->sig_term);
    }
    e->t0_us = clock_mono_us();
    e->load_t0_us = e->t0_us;
    e->t0_wall_us = clock_wall_us();
    e->iv_start_us = e->t0_us;
    e->active_mark_us = e->t0_us;
    e->vu_us = 0; /* the pool's inits before the start (engine_prefill) are not the load's */
    ev_now_update(e->loop);
    ev_timer_set(&e->tick, 1.0, 0.);
    ev_timer_start(e->loop, &e->tick);
    selfmon_start(&e->mon, e->loop);
    if (e->cfg.duration_us > 0) {
        ev_timer_set(&e->end_timer, (double)e->cfg.duration_us / 1e6, 0.);
        ev_timer_start(e->loop, &e->end_timer);
    }
    if (e->arr == NULL || e->nclosed > 0)
        schedule_vus(e);     /* the closed model's VUs, and a mixed run's closed ones */
    engine_check_dormant(e); /* --runs and none of this worker's VUs asked */
    for (size_t i = 0; i < e->narr; i++)
        arrive_start(&e->arr[i], e);
    ev_prepare_start(e->loop, &e->starter);
    if (e->cfg.ctl != NULL) {
        ev_io_init(&e->ctl_io, on_ctl, e->cfg.ctl_fd, EV_READ);
        ev_io_start(e->loop, &e->ctl_io);
    }
    if (e->cfg.vu_count > 0)
        ev_run(e->loop, 0);
    if (e->cfg.ctl != NULL)
        ev_io_stop(e->loop, &e->ctl_io);
    ev_prepare_stop(e->loop, &e->starter);
    ev_timer_stop(e->loop, &e->kick);
    /* The last, partial interval. */
    emit(e, clock_mono_us());
    selfmon_stop(&e->mon);
    ev_timer_stop(e->loop, &e->tick);
    ev_timer_stop(e->loop, &e->end_timer);
    ev_timer_stop(e->loop, &e->stop_timer);
    ev_timer_stop(e->loop, &e->leave_timer);
    ev_timer_stop(e->loop, &e->curl_timer);
    for (size_t i = 0; i < e->narr; i++)
        arrive_halt(&e->arr[i], e);
    if (e->cfg.handle_signals) {
        ev_signal_stop(e->loop, &e->sig_int);
        ev_signal_stop(e->loop, &e->sig_term);
    }
    lwatch_timer_stop(&e->watch);
    return e->status;
}

void engine_free(engine *e)
{
    if (e == NULL)
        return;
    tally_free(&e->tally);
    plugs_engine_end(e); /* their handles are in the multi */
    /* Easy handles first: each is attached to a group's share. */
    for (uint32_t i = 0; e->vus != NULL && i < e->nvus; i++) {
        if (e->vus[i].xh != NULL) {
            if (e->multi != NULL)
                curl_multi_remove_handle(e->multi, e->vus[i].xh->easy);
            xh_free(e->vus[i].xh);
            e->vus[i].xh = NULL;
        }
    }
    while (e->free_xh != NULL) {
        xh *x = e->free_xh;
        e->free_xh = x->next;
        e->nfree_xh--;
        xh_free(x);
    }
    if (e->vus != NULL) {
        for (uint32_t i = 0; i < e->nvus; i++)
            vu_free(&e->vus[i]);
        xfree(e->vus);
    }
    vshare_free(&e->vshares);
    if (e->multi != NULL)
        curl_multi_cleanup(e->multi);
    for (int fd = 0; fd < e->nfdw; fd++)
        watcher_drop(e, fd);
    xfree(e->fdw);
    urlc_free(e->urls); /* after every handle that used them */
    trace_free(e->trace);
    curl_slist_free_all(e->ua);
    curl_slist_free_all(e->ua_ae);
    reqopt_clear(e->run_ro);
    xfree(e->run_ro);
    xfree(e->env_ca);
    while (e->free_socks != NULL) {
        sockw *w = e->free_socks;
        e->free_socks = w->next;
        xfree(w);
    }
    if (e->cur != NULL) {
        for (size_t i = 0; i < e->scens.nsteps; i++)
            stats_free(&e->cur[i]);
        xfree(e->cur);
    }
    for (size_t i = 0; e->slow != NULL && i < e->scens.nsteps; i++)
        slowest_free(e->slow[i]);
    xfree(e->slow);
    xfree(e->scount);
    xfree(e->acount);
    for (size_t i = 0; e->alag != NULL && i < e->scens.nscens; i++)
        hist_free(e->alag[i]);
    xfree(e->alag);
    for (size_t i = 0; i < e->narr; i++)
        arrive_free(&e->arr[i]);
    xfree(e->arr);
    for (size_t i = 0; e->src != NULL && i < e->cfg.nsource_addrs; i++)
        xfree(e->src[i]);
    xfree(e->src);
    xfree(e->stages);
    xfree(e->leave);
    xfree(e->life_err);
    vustart_free(&e->vstart);
    if (e->L != NULL)
        lua_close(e->L);
    scen_set_free(&e->scens);
    loadinfo_free(&e->info);
    if (e->loop != NULL)
        ev_loop_destroy(e->loop);
    xfree(e);
}

/* --- the door (engine.h) ---------------------------------------------------- */

struct ev_loop *engine_loop(const engine *e)
{
    return e->loop;
}

CURLM *engine_multi(const engine *e)
{
    return e->multi;
}

int engine_no_env_proxy(const engine *e)
{
    return e->no_env_proxy;
}

scen_set *engine_declared(engine *e)
{
    return &e->scens;
}

const engine_cfg *engine_config(const engine *e)
{
    return &e->cfg;
}

step_stats *engine_step_stats(engine *e, int i)
{
    return &e->cur[i];
}

uint32_t engine_nvus(const engine *e)
{
    return e->vus != NULL ? e->nvus : 0;
}

vu *engine_vu(engine *e, uint32_t i)
{
    return &e->vus[i];
}

uint32_t engine_vu_slot(const engine *e, const vu *v)
{
    return (uint32_t)(v - e->vus);
}

const reqopt *engine_run_reqopt(const engine *e)
{
    return e->run_ro;
}

struct trace *engine_trace(const engine *e)
{
    return e->trace;
}

const char *engine_env_ca(const engine *e)
{
    return e->env_ca;
}

traceid_gen *engine_traceid(engine *e)
{
    return &e->tid;
}

struct curl_slist *engine_user_agent(const engine *e, int compressed)
{
    return compressed ? e->ua_ae : e->ua;
}

urlc *engine_urls(engine *e)
{
    return e->urls;
}

uint32_t engine_next_seq(engine *e)
{
    return ++e->seq; /* from 1: 0 is no sample */
}

int engine_loaded(const engine *e)
{
    return e->loaded;
}

tally *engine_script_tally(engine *e)
{
    return &e->tally;
}

loadinfo *engine_loadinfo(engine *e)
{
    return &e->info;
}

lcheck_state *engine_checks(engine *e)
{
    return &e->checks;
}

struct websocket **engine_ws_closing(engine *e)
{
    return &e->ws_closing;
}

uint64_t engine_second(const engine *e)
{
    return e->second;
}

int64_t engine_t0_us(const engine *e)
{
    return e->t0_us;
}

int64_t engine_t0_wall_us(const engine *e)
{
    return e->t0_wall_us;
}

uint32_t engine_active_vus(const engine *e)
{
    return e->active;
}
