/* control — the run's course: barrier, Go, Stop, merging, tick, signals;
 * see control.h. */
#include "console/control.h"

#include <ev.h>
#include <signal.h>
#include <string.h>

#include "common/clock.h"
#include "common/dur.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/props.h"
#include "common/rate.h"
#include "console/rundb.h"
#include "console/run.h"

static void on_second(void *ud, uint64_t second, const interval_sum *sum, int late);

static void clear_live(void *ud)
{
    live_clear(ud);
}

void control_steps_def(run *r, aconn *c, const Quern__StepsDef *sd)
{
    if (r->ids == NULL) {
        r->nsteps = sd->n_steps;
        r->ids = xcalloc(sd->n_steps + 1, sizeof(char *));
        r->labels = xcalloc(sd->n_steps + 1, sizeof(char *));
        r->names = xcalloc(sd->n_steps + 1, sizeof(char *));
        r->scen_names = xcalloc(sd->n_steps + 1, sizeof(char *));
        for (size_t i = 0; i < sd->n_steps; i++) {
            const Quern__StepDef *s = sd->steps[i];
            size_t j, len = strlen(s->id) + strlen(s->label) + 2;
            r->ids[i] = xstrdup(s->id);
            r->labels[i] = xstrdup(s->label);
            r->names[i] = xmalloc(len);
            snprintf(r->names[i], len, "%s)%s", s->id, s->label);
            for (j = 0; j < r->nscens; j++)
                if (strcmp(r->scen_names[j], s->scenario) == 0)
                    break;
            if (j == r->nscens)
                r->scen_names[r->nscens++] = xstrdup(s->scenario);
        }
        agg_init(&r->agg, r->nsteps, r->nscens);
        agg_add_tally(&r->agg, &r->decl); /* the metrics declared, before any value */
        interval_window_init(&r->win, r->nsteps, r->nscens, CONTROL_MERGE_GRACE_US, on_second, r);
        r->have_agg = 1;
        if (r->o.cap != NULL) {
            r->cap = capacity_search_new(r->o.cap, r->o.cap_settle_us, r->nsteps, r->nscens);
            r->cap->pool = r->o.cap->open ? r->o.max_vus : 0;
            r->cap->allow_saturation = r->o.allow_saturation;
        }
        r->roll = rollwin_new(r->o.th, r->o.nth, (const char *const *)r->ids,
                              (const char *const *)r->names, r->nsteps);
        for (size_t i = 0; i < r->o.nth && !r->start_error; i++) {
            char err[ERR_MAX];
            if (thresh_check_scope(r->o.th[i], (const char *const *)r->ids,
                                   (const char *const *)r->names, r->nsteps, err,
                                   sizeof(err)) != 0) {
                r->start_error = 2; /* a usage error: nothing was sent yet */
                err_set(r->start_msg, sizeof(r->start_msg), "--threshold %s", err);
            }
        }
        r->live = live_new(stderr, r->o.quiet ? LIVE_QUIET : LIVE_AUTO,
                           (const char *const *)r->names, r->nsteps, r->o.duration_us);
        log_set_before(clear_live, r->live);
    } else {
        int same = sd->n_steps == r->nsteps;
        for (size_t i = 0; same && i < sd->n_steps; i++)
            same = strcmp(sd->steps[i]->id, r->ids[i]) == 0;
        if (!same && !r->start_error) {
            r->start_error = 3;
            err_set(r->start_msg, sizeof(r->start_msg),
                    "agent %s loaded different steps than the others", c->name);
        }
    }
    c->steps_ok = 1;
}

/* --abort-on-fail: the first threshold that can no longer pass stops the run
 * gracefully (VUs finish their request in flight). */
static void check_abort(run *r)
{
    double el = (double)r->agg.elapsed_us / 1e6;

    for (size_t i = 0; i < r->nth_user; i++) { /* the defaults judge at the end only */
        thresh_result res;
        if (rollwin_eval(r->roll, i, r->o.th[i], &r->agg, (const char *const *)r->ids,
                         (const char *const *)r->names, el, &res) ||
            (r->o.th[i]->window_s == 0 && thresh_can_still_pass(r->o.th[i], &res, el)))
            continue; /* a window that failed stays failed */
        log_msg(LOG_WARN, "threshold '%s' failed: %s; stopping the run (--abort-on-fail)",
                r->o.th[i]->expr, res.desc);
        r->threshold_stop = 1;
        r->interrupted = 1;
        control_stop(r, "threshold failed", 0);
        return;
    }
}

/* A merged second goes to the database, the totals and the live line. */
static void on_second(void *ud, uint64_t second, const interval_sum *sum, int late)
{
    run *r = ud;
    webfeed_run wv;
    out_run ov;

    rundb_second(r, second, sum);
    rundb_little(r, second, sum);
    rundb_injector(r, second, sum);
    /* A late second adds to the totals without adding time; a paused one
     * adds only the time it was not paused (quern ctl pause). */
    agg_add(&r->agg, sum->steps, sum->runs, sum->missed,
            late || sum->paused_us >= 1000000 ? 0 : 1000000 - (int64_t)sum->paused_us,
            sum->active_vus);
    r->agg.paused_us += (int64_t)sum->paused_us;
    agg_add_arrivals(&r->agg, sum->arrivals);
    agg_add_lag(&r->agg, sum->lag);
    agg_add_tally(&r->agg, &sum->tally);
    agg_add_held(&r->agg, sum->held, sum->held_us, sum->held_max_us);
    agg_add_delivery(&r->agg, sum->vus_planned, sum->vus_started, sum->pace_asked_us,
                     sum->pace_lost_us);
    injtot_add(&r->agg.inj, second, sum->load, sum->nload, late);
    gather_second(r->gather, second, sum->active_vus, late); /* the JTL's thread counts */
    metrics_steered(r->metrics, steering_vus_asked(&r->steer, r->o.vus),
                    steering_is_paused(&r->steer));
    metrics_update(r->metrics, &r->agg, (const char *const *)r->ids, (const char *const *)r->names,
                   r->o.th, r->o.nth);
    control_web_view(r, &wv);
    webfeed_second(&wv, sum->steps, late);
    control_out_view(r, &ov);
    out_second(r->outs, &ov, second, sum, late);
    rollwin_second(r->roll, second, sum, late);
    /* a capacity step judged on its own seconds; the first that fails ends the search */
    if (r->cap != NULL &&
        capacity_search_second(r->cap, second, sum, late, (const thresh *const *)r->o.th,
                               r->nth_user, (const char *const *)r->ids,
                               (const char *const *)r->names) &&
        r->stop_us == 0) {
        log_msg(LOG_INFO, "capacity step %zu failed: stopping the run", r->cap->failed_step + 1);
        control_stop(r, "capacity step failed", 0);
    }
    if (late)
        return;
    live_update(r->live, &r->agg, sum->steps, agents_alive(r),
                r->o.embedded ? 0 : agents_in_run(r));
    if (r->o.abort_on_fail && !r->interrupted && !r->threshold_stop)
        check_abort(r);
}

void control_flush(run *r, int force)
{
    interval_window_flush(&r->win, agents_running(r), force);
}

const agents_up control_up = {control_steps_def, control_interval, control_flush};

void control_out_view(const run *r, out_run *v)
{
    *v = (out_run){.run_id = r->run_id,
                   .nsteps = r->nsteps,
                   .ids = (const char *const *)r->ids,
                   .names = (const char *const *)r->names,
                   .nscens = r->nscens,
                   .scen_names = (const char *const *)r->scen_names,
                   .tags = r->o.db.tags,
                   .a = r->have_agg ? &r->agg : NULL};
}

void control_web_view(const run *r, webfeed_run *v)
{
    *v = (webfeed_run){.web = r->web,
                       .a = r->have_agg ? &r->agg : NULL,
                       .ids = (const char *const *)r->ids,
                       .names = (const char *const *)r->names,
                       .th = (const thresh *const *)r->o.th,
                       .nth = r->o.nth,
                       .roll = r->roll,
                       .conns = (const aconn *const *)r->conns,
                       .nconns = r->nconns,
                       .vus_max = steering_vus_asked(&r->steer, r->o.vus),
                       .paused = steering_is_paused(&r->steer),
                       .planned_us = r->o.duration_us};
}

void control_interval(run *r, aconn *c, const Quern__Interval *m)
{
    char err[ERR_MAX];

    if (!r->have_agg || m->run_id != r->run_id)
        return;
    if (interval_window_add(&r->win, m, (const char *const *)r->scen_names, agents_running(r), err,
                            sizeof(err)) != 0) {
        log_msg(LOG_ERROR, "agent %s sent a bad interval (%s): dropping it", c->name, err);
        peer_fail(&c->link, "bad interval");
        return;
    }
    c->active = m->active_vus;
    if (m->active_vus > c->active_peak)
        c->active_peak = m->active_vus;
    c->started += m->vus_started;
    for (size_t i = 0; i < m->n_steps; i++) {
        c->requests += m->steps[i]->count;
        c->errors += m->steps[i]->errors_technical + m->steps[i]->errors_functional;
    }
}

void control_steering_view(run *r, steering_run *v)
{
    *v = (steering_run){.s = &r->steer,
                        .ctl = r->ctl,
                        .r = r,
                        .run_id = r->run_id,
                        .go_us = r->go_us,
                        .planned_us = r->o.duration_us,
                        .under_way = r->phase == PHASE_RUN,
                        .stopping = r->stop_us != 0};
}

/* --control takes commands from Go to the end of the load (steering.h). */
static void mark_running(run *r, int on)
{
    steering_run v;

    control_steering_view(r, &v);
    steering_running(&v, on);
}

void control_stop(run *r, const char *reason, int immediate)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Stop st = QUERN__STOP__INIT;

    st.run_id = r->run_id;
    st.reason = (char *)reason;
    st.immediate = immediate ? 1 : 0;
    env.body_case = QUERN__ENVELOPE__BODY_STOP;
    env.stop = &st;
    agents_send_all(r, &env);
    mark_running(r, 0); /* the load ends: nothing more to steer */
    if (r->stop_us == 0)
        r->stop_us = clock_mono_us();
}

/* The run's schedule into sch, for W worker processes in all, its stages
 * into stv and stp (r->o.nstages) and its rates into rtv and rtp
 * (r->o.nrate_stages): every worker computes its own VUs' and arrivals'
 * times from the same lists (common/stages.h, common/rate.h). Returns the
 * VU ids the run hands out. */
static unsigned fill_schedule(run *r, unsigned W, Quern__Schedule *sch, Quern__RampStage *stv,
                              Quern__RampStage **stp, Quern__RateStage *rtv, Quern__RateStage **rtp)
{
    unsigned ids = r->o.vu_ids;

    sch->duration_us = (uint64_t)r->o.duration_us;
    sch->ramp_up_us = (uint64_t)r->o.ramp_us;
    sch->runs = r->o.runs;
    sch->grace_us = (uint64_t)r->o.grace_us;
    for (size_t i = 0; i < r->o.nstages; i++) {
        quern__ramp_stage__init(&stv[i]);
        stv[i].duration_us = (uint64_t)r->o.stages[i].dur_us;
        stv[i].target_vus = r->o.stages[i].target;
        stp[i] = &stv[i];
    }
    sch->stages = stp;
    sch->n_stages = r->o.nstages;
    sch->staged_vus = r->o.staged_ids;
    /* --control: a closed load of --vus that `vus N` may raise to the
     * ceiling; the ids beyond --vus wait, dormant, on their workers. With
     * stages, the ceiling's ids come after the stages' own: the stages may
     * have let every one of theirs go by the time of a vus N. */
    if (r->ctl_vus_max > 0 && r->o.nstages > 0) {
        sch->active_vus = r->o.vu_ids;
        ids = r->o.vu_ids + r->ctl_vus_max;
    } else if (r->ctl_vus_max > r->o.vus) {
        sch->active_vus = r->o.vus;
        ids = r->ctl_vus_max;
    }
    /* The open model: each worker's arrivals are the k of its stripe; the
     * pool has a VU a worker at least, so that every worker has a stripe. */
    for (size_t i = 0; i < r->o.nrate_stages; i++) {
        quern__rate_stage__init(&rtv[i]);
        rtv[i].duration_us = (uint64_t)r->o.rate_stages[i].dur_us;
        rtv[i].per_second = r->o.rate_stages[i].per_s;
        rtp[i] = &rtv[i];
    }
    sch->rate_stages = rtp;
    sch->n_rate_stages = r->o.nrate_stages;
    if (r->o.nrate_stages > 0) {
        r->pool_workers = W;
        if (r->o.max_vus < W)
            log_msg(LOG_WARN,
                    "--max-vus %u is below the run's %u worker processes: each has a VU of "
                    "the pool at least, so the pool is %u VUs",
                    r->o.max_vus, W, W);
        if (ids < W)
            ids = W;
        sch->arrival_stripes = W;
        sch->open_vus = r->o.closed_vus > 0 ? 0 : r->o.vus;
        sch->closed_vus = r->o.closed_vus;
        sch->max_lag_us = (uint64_t)r->o.max_lag_us;
        sch->runs = 0;
    }
    return ids;
}

/* Sends agent c the StartRun of env with its share of the ids VU ids, W
 * workers in all, c's first at off. Interleaved: in each block of W
 * consecutive global indices, c owns the contiguous run [off + 1, off +
 * c->workers]. With stages, the indices are every id the stages use, the
 * new ones of a later climb too. */
static void send_share(run *r, aconn *c, Quern__Envelope *env, unsigned W, unsigned off,
                       unsigned ids)
{
    Quern__StartRun *sr = env->start_run;
    size_t nblocks = (ids + W - 1) / W, n = 0;
    Quern__VuRange *rs = xcalloc(nblocks + 1, sizeof(*rs));
    Quern__VuRange **rp = xcalloc(nblocks + 1, sizeof(*rp));
    uint32_t vus = 0;

    for (size_t b = 0; b < nblocks; b++) {
        uint64_t first = (uint64_t)b * W + off + 1, last = first + c->workers - 1;
        if (first > ids)
            break;
        if (last > ids)
            last = ids;
        quern__vu_range__init(&rs[n]);
        rs[n].first = (uint32_t)first;
        rs[n].count = (uint32_t)(last - first + 1);
        vus += rs[n].count;
        rp[n] = &rs[n];
        n++;
    }
    char *pnames[OPTS_PROFILE_MAX]; /* owned: the targets this agent profiles */
    profile_share(r->profile, c->name, off == 0, sr, pnames);
    sr->vu_ranges = rp;
    sr->n_vu_ranges = n;
    sr->workers = c->workers;
    c->in_run = 1;
    r->running_known = 0;
    c->vus = vus;
    c->active = c->active_peak = c->started = 0;
    snprintf(c->status, sizeof(c->status), "running");
    if (peer_send(&c->link, env) != 0)
        agents_lost(r, c, "cannot send the run");
    profile_share_done(sr);
    xfree(rs);
    xfree(rp);
}

/* The run's first lines: on how many agents and workers (np, W), the load
 * of its ids VU ids, the bundle. Nothing with --quiet. */
static void say_starting(const run *r, unsigned np, unsigned W, unsigned ids)
{
    char what[256];

    if (r->o.quiet)
        return;
    if (r->o.nrate_stages > 0) {
        char rb[256];
        fprintf(stderr,
                "quern: starting %s on %u agent(s), %u worker(s), arrivals %s (%llu in all), a "
                "pool of %u VUs (%u created first)\n",
                r->o.script, np, W,
                rate_stages_format(r->o.rate_stages, r->o.nrate_stages, rb, sizeof(rb)),
                (unsigned long long)rate_total(r->o.rate_stages, r->o.nrate_stages), ids, r->o.vus);
    } else if (r->o.nstages > 0)
        fprintf(stderr,
                "quern: starting %s on %u agent(s), %u worker(s), %zu stages up to %u VUs (%u VU "
                "ids)\n",
                r->o.script, np, W, r->o.nstages, r->o.vus, ids);
    else
        fprintf(stderr, "quern: starting %s on %u agent(s), %u worker(s), %u VUs\n", r->o.script,
                np, W, r->o.vus);
    fprintf(stderr, "quern: bundle: %s%s\n", bundle_describe(&r->bundle, what, sizeof(what)),
            r->o.embedded ? ", linked by the local agent" : "");
}

static void start_run(run *r)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__StartRun sr = QUERN__START_RUN__INIT;
    Quern__Schedule sch = QUERN__SCHEDULE__INIT;
    Quern__Property *pv = xcalloc(props_count(r->p) + 1, sizeof(*pv));
    Quern__Property **pp = xcalloc(props_count(r->p) + 1, sizeof(*pp));
    aconn **part = xcalloc(r->o.agents, sizeof(*part));
    Quern__RampStage *stv = xcalloc(r->o.nstages + 1, sizeof(*stv));
    Quern__RampStage **stp = xcalloc(r->o.nstages + 1, sizeof(*stp));
    Quern__RateStage *rtv = xcalloc(r->o.nrate_stages + 1, sizeof(*rtv));
    Quern__RateStage **rtp = xcalloc(r->o.nrate_stages + 1, sizeof(*rtp));
    unsigned np = 0, W = 0, off = 0, ids;
    char run_name[64];

    for (size_t i = 0; i < r->nconns && np < r->o.agents; i++)
        if (r->conns[i]->state == AC_AGENT)
            part[np++] = r->conns[i];
    for (unsigned i = 0; i < np; i++)
        W += part[i]->workers;
    for (size_t i = 0; i < props_count(r->p); i++) {
        quern__property__init(&pv[i]);
        pv[i].key = (char *)props_key(r->p, i);
        pv[i].value = (char *)props_value(r->p, i);
        pp[i] = &pv[i];
    }
    r->run_id = ((uint64_t)clock_wall_us() << 8) | 1;
    snprintf(run_name, sizeof(run_name), "%s", r->bundle.script_name);
    ids = fill_schedule(r, W, &sch, stv, stp, rtv, rtp);
    sr.run_id = r->run_id;
    sr.script_name = r->bundle.script_name;
    sr.script_display = (char *)r->o.script;
    sr.source_addrs = r->o.src;
    sr.n_source_addrs = r->o.nsrc;
    sr.resolve = r->o.resolve;
    sr.n_resolve = r->o.nresolve;
    sr.max_in_flight = r->o.max_in_flight;
    sr.worker_memory = r->o.worker_memory;
    sr.files = r->bundle.files;
    sr.n_files = r->bundle.nfiles;
    if (r->o.embedded)
        sr.local_folder = r->bundle.folder;
    sr.props = pp;
    sr.n_props = props_count(r->p);
    sr.vus_total = ids;
    sr.schedule = &sch;
    sr.run_name = run_name;
    sr.jtl = r->o.jtl != NULL;
    sr.grinder_logs = r->o.grinder_dir != NULL;
    sr.trace = r->o.trace;
    sr.traceparent = r->o.traceparent;
    sr.slowest = r->o.slowest;
    sr.setup_data.data = (uint8_t *)r->setup_data;
    sr.setup_data.len = r->setup_len;
    env.body_case = QUERN__ENVELOPE__BODY_START_RUN;
    env.start_run = &sr;
    for (unsigned a = 0; a < np; a++) {
        send_share(r, part[a], &env, W, off, ids);
        off += part[a]->workers;
    }
    say_starting(r, np, W, ids);
    {
        const char **names = xcalloc(np + 1, sizeof(*names));
        for (unsigned a = 0; a < np; a++)
            names[a] = part[a]->name;
        profile_check_agents(r->profile, names, np);
        xfree(names);
    }
    r->phase = PHASE_START;
    r->phase_us = clock_mono_us();
    xfree(part);
    xfree(pv);
    xfree(pp);
    xfree(stv);
    xfree(stp);
    xfree(rtv);
    xfree(rtp);
}

/* --monitor: scrapes from Go to the end, their figures taken at each tick. */
static void on_monitor_item(void *ud, const monitor_item *it)
{
    rundb_monitor_item(ud, it);
}

static void take_monitor(run *r)
{
    size_t dropped = monitor_drain(r->monitor, on_monitor_item, r);

    if (dropped > 0)
        log_msg(LOG_WARN, "--monitor: %zu scrape(s) dropped (the loop fell behind)", dropped);
}

static void start_monitor(run *r)
{
    char err[ERR_MAX];

    if (r->o.nmonitor == 0)
        return;
    rundb_monitor_hosts(r);
    r->monitor =
        monitor_start(r->o.monitor, r->o.nmonitor, r->o.msel, r->o.nmsel, err, sizeof(err));
    if (r->monitor == NULL)
        log_msg(LOG_ERROR, "%s: the run goes on without it", err);
}

static void send_go(run *r)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Go go = QUERN__GO__INIT;

    go.run_id = r->run_id;
    env.body_case = QUERN__ENVELOPE__BODY_GO;
    env.go = &go;
    agents_send_all(r, &env);
    r->phase = PHASE_RUN;
    r->go_us = r->phase_us = clock_mono_us();
    r->go_wall_us = clock_wall_us();
    rundb_begin(r);
    start_monitor(r);
    if (r->have_agg)
        selfload_start(&r->self, r->loop, &r->agg.console);
    mark_running(r, 1);
    if (r->interrupted)
        control_stop(r, "interrupted", 0);
}

static void end_phase(run *r)
{
    mark_running(r, 0);
    take_monitor(r);
    monitor_stop(r->monitor);
    r->monitor = NULL;
    selfload_stop(&r->self);
    r->phase = PHASE_END;
    r->end_us = clock_mono_us();
    ev_break(r->loop, EVBREAK_ALL);
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
    run *r = w->data;
    int64_t now = clock_mono_us();
    agents_counts n;

    agents_tick(r, now, &n);
    switch (r->phase) {
    case PHASE_WAIT: {
        int code;
        if (r->interrupted) {
            r->start_error = 3;
            err_set(r->start_msg, sizeof(r->start_msg), "interrupted while waiting for agents");
            end_phase(r);
        } else if (n.registered >= r->o.agents) {
            start_run(r);
        } else if (local_agent_exited(&r->la, &code)) {
            /* its own message is above */
            r->start_error = 3;
            err_set(r->start_msg, sizeof(r->start_msg),
                    "the local agent exited (status %d) before it connected", code);
            end_phase(r);
        } else if (now - r->phase_us > r->o.wait_us) {
            char buf[DUR_FORMAT_MAX];
            r->start_error = 3;
            err_set(r->start_msg, sizeof(r->start_msg),
                    "only %u of %u agent(s) connected within %s", n.registered, r->o.agents,
                    dur_format(r->o.wait_us, buf, sizeof(buf)));
            end_phase(r);
        }
        break;
    }
    case PHASE_START:
        if (r->start_error == 0 && now - r->phase_us > CONTROL_READY_US) {
            r->start_error = 3;
            err_set(r->start_msg, sizeof(r->start_msg), "the agents were not ready within 60 s");
        }
        if (r->start_error != 0) {
            control_stop(r, "start aborted", 1);
            end_phase(r);
        } else if (n.ready == n.in_run) {
            send_go(r);
        }
        break;
    case PHASE_RUN: {
        int64_t planned = r->o.duration_us > 0 ? r->o.duration_us + r->o.grace_us : 0;
        control_flush(r, 0);
        take_monitor(r);
        if (n.done == n.in_run) {
            control_flush(r, 1);
            end_phase(r);
        } else if (r->stop_us != 0 && now - r->stop_us > r->o.grace_us + CONTROL_STOP_WAIT_US) {
            log_msg(LOG_ERROR, "agents did not finish within %d s of the stop's grace: giving up",
                    (int)(CONTROL_STOP_WAIT_US / 1000000));
            r->degraded = 1;
            control_flush(r, 1);
            end_phase(r);
        } else if (planned > 0 && r->stop_us == 0 &&
                   now - r->go_us - steering_paused_us(&r->steer, now) >
                       planned + CONTROL_FINISH_MARGIN_US) {
            log_msg(LOG_ERROR, "the run overran its schedule: stopping it");
            control_stop(r, "schedule overrun", 1);
        }
        break;
    }
    case PHASE_END:
        break;
    }
}

void control_interrupt(run *r, int signum)
{
    if (r->interrupted) {
        log_msg(LOG_WARN, "second interrupt: aborting now");
        r->aborted = 1;
        control_stop(r, "aborted", 1);
        /* wait 2 s at most */
        r->stop_us = clock_mono_us() - r->o.grace_us - CONTROL_STOP_WAIT_US + 2000000;
        return;
    }
    r->interrupted = 1;
    if (r->phase == PHASE_START || r->phase == PHASE_RUN) {
        int64_t now = clock_mono_us();
        int64_t at = r->phase == PHASE_RUN ? now - r->go_us : 0;
        /* the planned end came later by the pauses */
        if (r->o.duration_us == 0 || at - steering_paused_us(&r->steer, now) < r->o.duration_us) {
            r->stop_signal = signum;
            r->stop_signal_us = at;
        }
    }
    if (r->phase == PHASE_RUN) {
        if (signum != CONTROL_STOP_CTL)
            log_msg(LOG_INFO, "interrupted: stopping the agents (VUs finish their request in "
                              "flight; interrupt again to abort)");
        control_stop(r, "interrupted", 0);
    }
}

static void on_sig(struct ev_loop *loop, ev_signal *w, int revents)
{
    control_interrupt(w->data, w->signum);
}

/* The loop carries out one --control command (ctlsrv_carry_fn); a stop
 * stops the run as SIGTERM does. */
static void carry_out(void *arg, const ctlsrv_cmd *c)
{
    run *r = arg;
    steering_run v;

    control_steering_view(r, &v);
    if (steering_carry(&v, c) == STEERING_STOP)
        control_interrupt(r, CONTROL_STOP_CTL);
}

void control_attach(run *r)
{
    ctlsrv_attach(r->ctl, r->loop, carry_out, r);
}

void control_start(run *r)
{
    ev_timer_init(&r->tick, on_tick, 0.1, 0.1);
    ev_signal_init(&r->sigint, on_sig, SIGINT);
    ev_signal_init(&r->sigterm, on_sig, SIGTERM);
    r->tick.data = r->sigint.data = r->sigterm.data = r;
    ev_timer_start(r->loop, &r->tick);
    ev_signal_start(r->loop, &r->sigint);
    ev_signal_start(r->loop, &r->sigterm);
    r->phase = PHASE_WAIT;
    r->phase_us = clock_mono_us();
}

void control_end(run *r)
{
    if (r->loop == NULL)
        return;
    ev_timer_stop(r->loop, &r->tick);
    selfload_stop(&r->self);
    ev_signal_stop(r->loop, &r->sigint);
    ev_signal_stop(r->loop, &r->sigterm);
}
