/* record — the run in the results database; see rundb.h. */
#include "console/rundb.h"

#include <string.h>

#include "common/err.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/redact.h"
#include "common/mem.h"
#include "console/monitor_host.h"
#include "console/run.h"
#include "store/capacity_db.h"
#include "store/injector.h"
#include "store/little.h"

void rundb_failed(run *r, const char *err)
{
    if (r->db_failed)
        return;
    log_msg(LOG_ERROR,
            "results database: %s; the rest of this run is not recorded and it ends "
            "degraded",
            err);
    r->db_failed = 1;
    r->degraded = 1;
    err_set(r->degraded_why, sizeof(r->degraded_why), "results database: %s", err);
}

/* The database to write the run's progress to: NULL when not recording or
 * after a failed write. */
db *rundb_db(const run *r)
{
    return r->db_failed ? NULL : r->db;
}

/* The err[1024] of this file, not ERR_MAX: the database's path (--db) and
 * SQLite's message (tests/lint/errrule.allow). */

/* Writes (or updates) a row per agent of the run. */
void rundb_agents(run *r)
{
    char err[1024];

    for (size_t i = 0; rundb_db(r) != NULL && i < r->nconns; i++) {
        const aconn *c = r->conns[i];
        db_agent_info ai = {c->name,   c->host,     c->workers, c->vus,           c->lost,
                            c->status, c->requests, c->errors,  agents_vus_ran(c)};
        if (c->in_run && db_agent(r->db, r->db_run, c->index, &ai, err, sizeof(err)) != 0)
            rundb_failed(r, err);
    }
}

/* Records the run's start (at Go: the steps are known by then). */
void rundb_begin(run *r)
{
    db_step *steps;
    db_run_info ri;
    char name[256], err[1024], stages[4096];

    if (rundb_db(r) == NULL)
        return;
    steps = xcalloc(r->nsteps + 1, sizeof(*steps));
    for (size_t i = 0; i < r->nsteps; i++) {
        steps[i].id = r->ids[i];
        steps[i].label = r->labels[i];
        steps[i].scenario = "";
        /* "SC-<scenario>-STEP-<n>" names its scenario. */
        for (size_t j = 0; j < r->nscens; j++) {
            size_t n = strlen(r->scen_names[j]);
            if (strncmp(r->ids[i], "SC-", 3) == 0 &&
                strncmp(r->ids[i] + 3, r->scen_names[j], n) == 0 &&
                strncmp(r->ids[i] + 3 + n, "-STEP-", 6) == 0)
                steps[i].scenario = r->scen_names[j];
        }
    }
    memset(&ri, 0, sizeof(ri));
    ri.name = db_opts_name(&r->o.db, r->o.script, name, sizeof(name));
    ri.tags = r->o.db.tags;
    ri.script = r->o.script;
    ri.props = r->p;
    ri.vus = r->o.vus;
    ri.started_us = r->db_start_us = clock_wall_us();
    ri.steps = steps;
    ri.nsteps = r->nsteps;
    ri.scen_names = (const char *const *)r->scen_names;
    ri.nscens = r->nscens;
    ri.req_duration_us = r->o.duration_us;
    ri.req_ramp_up_us = r->o.ramp_us;
    ri.req_runs = r->o.runs;
    ri.req_stages =
        r->o.nstages > 0 ? stages_format(r->o.stages, r->o.nstages, stages, sizeof(stages)) : NULL;
    if (r->o.cap != NULL && r->o.cap->open) /* a capacity search keeps its staircase of rates too */
        ri.req_stages =
            rate_stages_format(r->o.rate_stages, r->o.nrate_stages, stages, sizeof(stages));
    ri.argc = r->o.argc;
    ri.argv = (const char *const *)r->o.argv;
    r->db_run = db_run_begin(r->db, &ri, err, sizeof(err));
    xfree(steps);
    if (r->db_run < 0)
        rundb_failed(r, err);
    else
        rundb_agents(r);
}

/* Records the verdicts rs of the thresholds with the run. */
void rundb_thresholds(run *r, const thresh_result *rs)
{
    db_threshold *ts;
    char err[1024];

    if (rundb_db(r) == NULL || r->db_run <= 0 || r->o.nth == 0)
        return;
    ts = xcalloc(r->o.nth, sizeof(*ts));
    for (size_t i = 0; i < r->o.nth; i++) {
        const thresh *t = r->o.th[i];
        ts[i].expr = t->expr;
        ts[i].source = r->th_src != NULL && r->th_src[i] != NULL ? r->th_src[i] : "cli";
        ts[i].passed = rs[i].passed;
        ts[i].measurable = thresh_measured(t, &rs[i]);
        ts[i].measured = rs[i].measured;
        ts[i].limit = rs[i].limit;
        ts[i].unit = thresh_unit(t);
        ts[i].description = rs[i].desc;
    }
    if (db_thresholds(r->db, r->db_run, ts, r->o.nth, err, sizeof(err)) != 0)
        rundb_failed(r, err);
    xfree(ts);
}

void rundb_second(run *r, uint64_t second, const interval_sum *sum)
{
    db_iv div = {second,
                 r->db_start_us + (int64_t)second * 1000000,
                 1000000,
                 sum->active_vus,
                 sum->steps,
                 r->nsteps,
                 sum->runs,
                 sum->missed,
                 r->nscens,
                 sum->arrivals,
                 (int64_t)sum->paused_us};
    char err[1024];

    if (rundb_db(r) != NULL && db_interval(r->db, r->db_run, &div, err, sizeof(err)) != 0)
        rundb_failed(r, err);
}

void rundb_steer(run *r, unsigned seq, int64_t at_us, const char *kind, double value, int has_value)
{
    char err[1024];

    if (rundb_db(r) != NULL &&
        db_steer(r->db, r->db_run, seq, at_us, kind, value, has_value, err, sizeof(err)) != 0)
        rundb_failed(r, err);
}

void rundb_steer_end(run *r, unsigned seq, int64_t end_us)
{
    char err[1024];

    if (rundb_db(r) != NULL && db_steer_end(r->db, r->db_run, seq, end_us, err, sizeof(err)) != 0)
        rundb_failed(r, err);
}

int rundb_open(run *r, char *err, size_t errlen)
{
    /* not ERR_MAX: db_open's reason, under the caller's 2,048 bytes with its prefix
     * (tests/lint/errrule.allow) */
    char dberr[1900];

    if (db_opts_path(&r->o.db) == NULL)
        return 0;
    r->db = db_open(db_opts_path(&r->o.db), dberr, sizeof(dberr));
    if (r->db == NULL) {
        err_set(err, errlen, "results database: %s", dberr);
        return -1;
    }
    return 0;
}

void rundb_end(run *r, const char **status)
{
    db_run_end_info ei;
    char err[1024];
    int failed_before = r->db_failed, rc;

    if (r->db == NULL || r->db_run <= 0)
        return;
    ei = (db_run_end_info){*status,      clock_wall_us(), r->agg.elapsed_us,
                           r->agg.total, r->nsteps,       &r->agg.tally};
    rundb_agents(r);
    /* 1: the status, end and reason were written, not the totals */
    rc = db_run_end_reason(r->db, r->db_run, &ei, r->db_failed ? r->degraded_why : NULL, err,
                           sizeof(err));
    if (rc != 0) {
        if (failed_before && rc < 0)
            log_msg(LOG_ERROR,
                    "results database: cannot end the run's row either (%s): "
                    "quern runs will show it abandoned",
                    err);
        else if (!failed_before)
            rundb_failed(r, err);
    }
    if (r->db_failed && strcmp(*status, "aborted") != 0)
        *status = "degraded";
}

void rundb_verdict(run *r, int passed, const char *why)
{
    char err[1024];

    if (rundb_db(r) != NULL && r->db_run > 0 &&
        db_run_verdict(r->db, r->db_run, passed, why, err, sizeof(err)) != 0)
        log_msg(LOG_ERROR, "results database: %s", err);
}

void rundb_vus(run *r, uint32_t vus_peak, uint32_t vu_pool)
{
    char err[1024];

    if (rundb_db(r) != NULL && r->db_run > 0 &&
        db_run_vus(r->db, r->db_run, vus_peak, vu_pool, err, sizeof(err)) != 0)
        log_msg(LOG_ERROR, "results database: %s", err);
}

void rundb_monitor_hosts(run *r)
{
    char err[1024], host[256], url[MONITOR_URL_MAX + 16];

    if (rundb_db(r) == NULL || r->db_run <= 0 || r->o.nmonitor == 0)
        return;
    r->monitor_db = monitor_db_new(r->db, err, sizeof(err));
    if (r->monitor_db == NULL) {
        rundb_failed(r, err);
        return;
    }
    for (size_t i = 0; i < r->o.nmonitor; i++) {
        redact_url(r->o.monitor[i], url, sizeof(url));
        if (monitor_db_host(r->monitor_db, r->db_run, (unsigned)i,
                            monitor_host_of(r->o.monitor[i], host, sizeof(host)), url, err,
                            sizeof(err)) != 0) {
            rundb_failed(r, err);
            return;
        }
    }
}

void rundb_monitor_item(run *r, const monitor_item *it)
{
    const char *names[MONITOR_HOST_FIXED + MONITOR_HOST_SELS_MAX];
    char err[1024], url[MONITOR_URL_MAX + 16];
    int64_t second;

    if (it->problem != NULL) {
        redact_url(r->o.monitor[it->host], url, sizeof(url));
        log_msg(LOG_WARN,
                "--monitor %s: %s; its figures are missing while it fails, the run goes on", url,
                it->problem);
        if (rundb_db(r) != NULL && r->monitor_db != NULL &&
            monitor_db_problem(r->monitor_db, r->db_run, (unsigned)it->host, it->problem, err,
                               sizeof(err)) != 0)
            rundb_failed(r, err);
        return;
    }
    if (rundb_db(r) == NULL || r->monitor_db == NULL || it->wall_us < r->db_start_us)
        return;
    second = (it->wall_us - r->db_start_us) / 1000000;
    for (size_t i = 0; i < it->nv; i++)
        names[i] = i < MONITOR_HOST_FIXED ? monitor_host_name((enum monitor_host_metric)i)
                                          : r->o.msel_text[i - MONITOR_HOST_FIXED];
    if (monitor_db_samples(r->monitor_db, r->db_run, (unsigned)it->host, second, names, it->v,
                           it->nv, err, sizeof(err)) != 0)
        rundb_failed(r, err);
}

/* The injector's own load in one merged second, every worker together
 * (store/injector.h). */
void rundb_injector(run *r, uint64_t second, const interval_sum *sum)
{
    injector_row row = {second, 0, 0, 0, 0};
    char err[1024];

    if (sum->nload == 0 || rundb_db(r) == NULL || r->db_run <= 0)
        return;
    for (size_t i = 0; i < sum->nload; i++) {
        const interval_sum_load *l = &sum->load[i];
        row.workers++;
        row.saturated += l->saturated != 0;
        if (l->cpu_permille > row.cpu_max_permille)
            row.cpu_max_permille = l->cpu_permille;
        if (l->loop_lag_max_us > row.lag_max_us)
            row.lag_max_us = l->loop_lag_max_us;
    }
    if (injector_write(r->db, r->db_run, &row, err, sizeof(err)) != 0)
        rundb_failed(r, err);
}

/* Little's law of one merged second (store/little.h). */
void rundb_little(run *r, uint64_t second, const interval_sum *sum)
{
    little_row row = {second, 1000000, sum->vu_us, 0, sum->run_us, sum->wait_us};
    char err[1024];

    if (rundb_db(r) == NULL || r->db_run <= 0)
        return;
    for (size_t i = 0; i < sum->nscens; i++)
        row.runs += sum->runs[i];
    if (little_write(r->db, r->db_run, &row, err, sizeof(err)) != 0)
        rundb_failed(r, err);
}

void rundb_capacity(run *r)
{
    capacity_db_run c;
    capacity_db_step *st;
    size_t k, n;
    char err[1024];

    if (rundb_db(r) == NULL || r->db_run <= 0 || r->cap == NULL)
        return;
    n = capacity_search_judged(r->cap);
    st = xcalloc(n + 1, sizeof(*st));
    memset(&c, 0, sizeof(c));
    c.found = capacity_search_found(r->cap, &k);
    c.value = c.found ? r->cap->steps[k].load : 0;
    snprintf(c.unit, sizeof(c.unit), "%s", capacity_unit(&r->cap->plan));
    c.settle_us = r->cap->settle_us;
    snprintf(c.limited_by, sizeof(c.limited_by), "%s",
             capacity_search_limited_by(r->cap) != NULL ? capacity_search_limited_by(r->cap) : "");
    for (size_t i = 0; i < n; i++) {
        const capacity_search_step *s = &r->cap->steps[i];
        st[i] = (capacity_db_step){s->load,
                                   s->t0_us,
                                   s->t1_us,
                                   s->from_us,
                                   s->seconds,
                                   s->count,
                                   s->tps,
                                   s->p50_ms,
                                   s->p95_ms,
                                   s->p99_ms,
                                   s->errors_pct,
                                   s->judged && s->passed,
                                   "",
                                   0,
                                   "",
                                   -1,
                                   -1,
                                   -1};
        snprintf(st[i].failed, sizeof(st[i].failed), "%s", s->failed);
        st[i].injector_saturated = s->injector_saturated;
        snprintf(st[i].injector, sizeof(st[i].injector), "%s", s->injector);
        st[i].runs_s = s->seconds > 0 ? (double)s->runs / (double)s->seconds : 0;
        if (r->cap->plan.open) {
            st[i].inits = (int64_t)s->arr_inits;
            st[i].init_waits = (int64_t)s->arr_init_waits;
        }
    }
    c.steps = st;
    c.nsteps = n;
    if (capacity_db_write(r->db, r->db_run, &c, err, sizeof(err)) != 0)
        rundb_failed(r, err);
    xfree(st);
}
