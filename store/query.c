#include "store/query.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "store/abandon.h"
#include "store/capacity_db.h"
#include "store/injector.h"
#include "store/little.h"
#include "store/series.h"

db *query_open(const char *cmd, const char *path, int *exit_rc)
{
    char err[ERR_MAX];
    db *d;

    if (access(path, F_OK) != 0) {
        fprintf(stderr, "quern %s: no results database at %s (quern run writes one)\n", cmd, path);
        *exit_rc = 2;
        return NULL;
    }
    d = db_open(path, err, sizeof(err));
    if (d == NULL) {
        fprintf(stderr, "quern %s: %s\n", cmd, err);
        *exit_rc = 3;
    }
    return d;
}

/* ------------------------------------------------------------------ loading */

sqlite3_stmt *query_stmt(sqlite3 *sq, const char *sql, int64_t id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, id);
    return st;
}

int query_stmt_done(sqlite3 *sq, sqlite3_stmt *st, int rc, char *err, size_t errlen)
{
    if (rc != SQLITE_DONE) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

char *query_col_str(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);

    return xstrdup(s != NULL ? s : "");
}

/* Column i as an owned string, NULL for NULL. */
static char *col_opt_str(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : query_col_str(st, i);
}

/* Column i, -1 for NULL. */
static int64_t col_opt_i64(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

uint64_t query_col_u64(sqlite3_stmt *st, int i)
{
    int64_t v = sqlite3_column_int64(st, i);

    return v > 0 ? (uint64_t)v : 0;
}

void query_col_hist(sqlite3_stmt *st, int i, hist *h)
{
    const void *blob = sqlite3_column_blob(st, i);
    int n = sqlite3_column_bytes(st, i);

    if (blob != NULL && n > 0)
        hist_merge_encoded(h, blob, (size_t)n);
}

/* Sets the percentile fields of s from h. */
static void step_from_hist(query_step *s, const hist *h)
{
    s->mean_us = hist_mean(h);
    s->min_us = hist_min(h);
    s->p50_us = hist_percentile(h, 50);
    s->p90_us = hist_percentile(h, 90);
    s->p95_us = hist_percentile(h, 95);
    s->p99_us = hist_percentile(h, 99);
    s->max_us = hist_max(h);
}

int query_run_seconds(db *d, int64_t id, uint64_t *seconds, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = query_stmt(sq,
                                  "SELECT max(s) FROM (SELECT max(second) AS s FROM intervals "
                                  "WHERE run_id = ?1 UNION ALL SELECT max(second) FROM "
                                  "step_intervals WHERE run_id = ?1)",
                                  id, err, errlen);
    int64_t last;

    if (st == NULL)
        return -1;
    if (sqlite3_step(st) != SQLITE_ROW)
        return query_stmt_done(sq, st, SQLITE_ERROR, err, errlen);
    if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
        *seconds = 0;
    } else {
        last = sqlite3_column_int64(st, 0);
        if (last < 0)
            last = -1;
        if (last >= (int64_t)QUERY_SECONDS_MAX)
            last = QUERY_SECONDS_MAX - 1;
        *seconds = (uint64_t)(last + 1);
    }
    sqlite3_finalize(st);
    return 0;
}

static int load_run_row(sqlite3 *sq, query_run *r, int *missing, char *err, size_t errlen)
{
    sqlite3_stmt *st =
        query_stmt(sq,
                   "SELECT name, tags, script, script_hash, properties, quern_version, "
                   "vus, started_at, started_us, ended_at, ended_us, duration_us, status, "
                   "req_duration_us, req_ramp_up_us, req_runs, command_line, "
                   "console_host, console_pid, status_reason, verdict, verdict_reason, "
                   "req_stages, vus_peak, vu_pool FROM runs WHERE id = ?",
                   r->id, err, errlen);
    int rc;

    if (st == NULL)
        return -1;
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        err_set(err, errlen, "no run %lld in the database", (long long)r->id);
        *missing = 1;
        sqlite3_finalize(st);
        return -1;
    }
    if (rc != SQLITE_ROW)
        return query_stmt_done(sq, st, rc, err, errlen);
    r->name = query_col_str(st, 0);
    r->tags = query_col_str(st, 1);
    r->script = query_col_str(st, 2);
    r->script_hash = query_col_str(st, 3);
    r->properties = query_col_str(st, 4);
    r->quern_version = query_col_str(st, 5);
    r->vus = sqlite3_column_int64(st, 6);
    r->vus_peak = sqlite3_column_type(st, 23) != SQLITE_NULL ? sqlite3_column_int64(st, 23) : -1;
    r->vu_pool = sqlite3_column_int64(st, 24);
    r->started_at = query_col_str(st, 7);
    r->started_us = sqlite3_column_int64(st, 8);
    r->ended_at = sqlite3_column_type(st, 9) == SQLITE_NULL ? NULL : query_col_str(st, 9);
    r->ended_us = sqlite3_column_type(st, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 10);
    r->duration_us = sqlite3_column_type(st, 11) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 11);
    r->status = query_col_str(st, 12);
    r->req_duration_us = col_opt_i64(st, 13);
    r->req_ramp_up_us = col_opt_i64(st, 14);
    r->req_runs = col_opt_i64(st, 15);
    r->command_line = col_opt_str(st, 16);
    r->console_host = col_opt_str(st, 17);
    r->console_pid = sqlite3_column_int64(st, 18);
    r->status_reason = col_opt_str(st, 19);
    r->run_verdict = col_opt_str(st, 20);
    r->run_verdict_reason = col_opt_str(st, 21);
    r->req_stages = col_opt_str(st, 22);
    sqlite3_finalize(st);
    return 0;
}

/* The steps: as many as the largest index any table uses (capped). */
static int load_steps(sqlite3 *sq, query_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *st =
        query_stmt(sq,
                   "SELECT max(i) FROM (SELECT max(step_index) AS i FROM steps "
                   "WHERE run_id = ?1 UNION ALL SELECT max(step_index) FROM step_totals "
                   "WHERE run_id = ?1 UNION ALL SELECT max(step_index) FROM "
                   "step_intervals WHERE run_id = ?1)",
                   r->id, err, errlen);
    int64_t last = -1;
    int rc;

    if (st == NULL)
        return -1;
    if (sqlite3_step(st) != SQLITE_ROW)
        return query_stmt_done(sq, st, SQLITE_ERROR, err, errlen);
    if (sqlite3_column_type(st, 0) != SQLITE_NULL)
        last = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (last >= QUERY_STEPS_MAX)
        last = QUERY_STEPS_MAX - 1;
    r->nsteps = last >= 0 ? (size_t)last + 1 : 0;
    r->steps = xcalloc(r->nsteps > 0 ? r->nsteps : 1, sizeof(*r->steps));

    st = query_stmt(sq,
                    "SELECT step_index, test_id, label, scenario FROM steps WHERE run_id = ? "
                    "ORDER BY step_index",
                    r->id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        query_step *s;
        if (i < 0 || (uint64_t)i >= r->nsteps)
            continue;
        s = &r->steps[i];
        xfree(s->test_id);
        xfree(s->label);
        xfree(s->scenario);
        s->test_id = query_col_str(st, 1);
        s->label = query_col_str(st, 2);
        s->scenario = query_col_str(st, 3);
        s->declared = 1;
    }
    if (query_stmt_done(sq, st, rc, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < r->nsteps; i++) {
        query_step *s = &r->steps[i];
        char buf[32];
        if (s->test_id != NULL)
            continue;
        snprintf(buf, sizeof(buf), "step %zu", i);
        s->test_id = xstrdup(buf);
        s->label = xstrdup("");
        s->scenario = xstrdup("");
    }
    r->all.test_id = xstrdup("all");
    r->all.label = xstrdup("All steps");
    r->all.scenario = xstrdup("");
    return 0;
}

static int load_totals(sqlite3 *sq, query_run *r, char *err, size_t errlen)
{
    hist *hall = hist_new(), *h = hist_new();
    sqlite3_stmt *st;
    int rc = -1, step, missing = 0;
    int64_t cur = -1;
    int64_t dur = r->duration_us > 0 ? r->duration_us : r->elapsed_us;

    st = query_stmt(
        sq,
        "SELECT step_index, count, err_tech, err_func, bytes_in, bytes_out, tps, mean_us, "
        "min_us, p50_us, p90_us, p95_us, p99_us, max_us, histogram, requests, ws_sent, "
        "ws_recv, ws_bytes_sent, ws_bytes_recv FROM step_totals WHERE run_id = ?",
        r->id, err, errlen);
    if (st == NULL)
        goto out;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        query_step *s;
        if (i < 0 || (uint64_t)i >= r->nsteps)
            continue;
        s = &r->steps[i];
        s->has_totals = 1;
        s->count = query_col_u64(st, 1);
        s->err_tech = query_col_u64(st, 2);
        s->err_func = query_col_u64(st, 3);
        s->bytes_in = query_col_u64(st, 4);
        s->bytes_out = query_col_u64(st, 5);
        s->tps = sqlite3_column_double(st, 6);
        s->mean_us = sqlite3_column_double(st, 7);
        s->min_us = query_col_u64(st, 8);
        s->p50_us = query_col_u64(st, 9);
        s->p90_us = query_col_u64(st, 10);
        s->p95_us = query_col_u64(st, 11);
        s->p99_us = query_col_u64(st, 12);
        s->max_us = query_col_u64(st, 13);
        query_col_hist(st, 14, hall);
        s->requests = query_col_u64(st, 15);
        s->ws_sent = query_col_u64(st, 16);
        s->ws_recv = query_col_u64(st, 17);
        s->ws_bytes_sent = query_col_u64(st, 18);
        s->ws_bytes_recv = query_col_u64(st, 19);
    }
    if (query_stmt_done(sq, st, step, err, errlen) != 0) {
        st = NULL;
        goto out;
    }
    st = NULL;
    for (size_t i = 0; i < r->nsteps; i++)
        missing += !r->steps[i].has_totals;
    if (missing > 0) {
        st = query_stmt(
            sq,
            "SELECT step_index, count, err_tech, err_func, bytes_in, bytes_out, histogram, "
            "requests, ws_sent, ws_recv, ws_bytes_sent, ws_bytes_recv FROM step_intervals "
            "WHERE run_id = ? ORDER BY step_index",
            r->id, err, errlen);
        if (st == NULL)
            goto out;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t i = sqlite3_column_int64(st, 0);
            query_step *s;
            if (i < 0 || (uint64_t)i >= r->nsteps || r->steps[i].has_totals)
                continue;
            if (i != cur) {
                if (cur >= 0)
                    step_from_hist(&r->steps[cur], h);
                hist_reset(h);
                cur = i;
            }
            s = &r->steps[i];
            s->count += query_col_u64(st, 1);
            s->err_tech += query_col_u64(st, 2);
            s->err_func += query_col_u64(st, 3);
            s->bytes_in += query_col_u64(st, 4);
            s->bytes_out += query_col_u64(st, 5);
            s->requests += query_col_u64(st, 7);
            s->ws_sent += query_col_u64(st, 8);
            s->ws_recv += query_col_u64(st, 9);
            s->ws_bytes_sent += query_col_u64(st, 10);
            s->ws_bytes_recv += query_col_u64(st, 11);
            query_col_hist(st, 6, h);
            query_col_hist(st, 6, hall);
        }
        if (query_stmt_done(sq, st, step, err, errlen) != 0) {
            st = NULL;
            goto out;
        }
        st = NULL;
        if (cur >= 0)
            step_from_hist(&r->steps[cur], h);
        for (size_t i = 0; i < r->nsteps; i++)
            if (!r->steps[i].has_totals)
                r->steps[i].tps = dur > 0 ? (double)r->steps[i].count * 1e6 / (double)dur : 0.0;
    }
    for (size_t i = 0; i < r->nsteps; i++) {
        const query_step *s = &r->steps[i];
        r->all.count += s->count;
        r->all.err_tech += s->err_tech;
        r->all.err_func += s->err_func;
        r->all.bytes_in += s->bytes_in;
        r->all.bytes_out += s->bytes_out;
        r->all.requests += s->requests;
        r->all.ws_sent += s->ws_sent;
        r->all.ws_recv += s->ws_recv;
        r->all.ws_bytes_sent += s->ws_bytes_sent;
        r->all.ws_bytes_recv += s->ws_bytes_recv;
    }
    r->all.has_totals = missing == 0;
    r->all.tps = dur > 0 ? (double)r->all.count * 1e6 / (double)dur : 0.0;
    step_from_hist(&r->all, hall);
    rc = 0;
out:
    sqlite3_finalize(st);
    hist_free(h);
    hist_free(hall);
    return rc;
}

/* Runs sql on run r->id, calling row(st, r) for each row. 0, or -1 with
 * err set. */
static int load_rows(sqlite3 *sq, query_run *r, const char *sql,
                     void (*row)(sqlite3_stmt *st, query_run *r), char *err, size_t errlen)
{
    sqlite3_stmt *st = query_stmt(sq, sql, r->id, err, errlen);
    int rc;

    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        row(st, r);
    return query_stmt_done(sq, st, rc, err, errlen);
}

static void row_agent(sqlite3_stmt *st, query_run *r)
{
    query_agent *a;
    r->agents = xreallocarray(r->agents, (r->nagents + 1), sizeof(*r->agents));
    a = &r->agents[r->nagents++];
    a->name = query_col_str(st, 0);
    a->host = query_col_str(st, 1);
    a->workers = sqlite3_column_int64(st, 2);
    a->vus = sqlite3_column_int64(st, 3);
    a->lost = sqlite3_column_int64(st, 4);
    a->status = query_col_str(st, 5);
    a->requests = sqlite3_column_int64(st, 6);
    a->errors = sqlite3_column_int64(st, 7);
    a->vus_peak = sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 8);
}

static void row_error(sqlite3_stmt *st, query_run *r)
{
    query_error *e;
    r->errors = xreallocarray(r->errors, (r->nerrors + 1), sizeof(*r->errors));
    e = &r->errors[r->nerrors++];
    e->step = sqlite3_column_int64(st, 0);
    e->kind = query_col_str(st, 1);
    e->sample = query_col_str(st, 2);
    e->count = sqlite3_column_int64(st, 3);
    e->first_second = sqlite3_column_int64(st, 4);
    e->last_second = sqlite3_column_int64(st, 5);
    e->trace_id = sqlite3_column_type(st, 6) != SQLITE_NULL ? query_col_str(st, 6) : NULL;
}

static void row_slow(sqlite3_stmt *st, query_run *r)
{
    query_slow *q;
    r->slow = xreallocarray(r->slow, (r->nslow + 1), sizeof(*r->slow));
    q = &r->slow[r->nslow++];
    q->step = sqlite3_column_int64(st, 0);
    q->rank = sqlite3_column_int64(st, 1);
    q->latency_us = sqlite3_column_int64(st, 2);
    q->start_us = sqlite3_column_int64(st, 3);
    q->vu = sqlite3_column_int64(st, 4);
    q->trace_id = sqlite3_column_type(st, 5) != SQLITE_NULL ? query_col_str(st, 5) : NULL;
}

static void row_steer(sqlite3_stmt *st, query_run *r)
{
    query_steer *q;
    r->steers = xreallocarray(r->steers, r->nsteers + 1, sizeof(*r->steers));
    q = &r->steers[r->nsteers++];
    q->at_us = sqlite3_column_int64(st, 0);
    q->kind = query_col_str(st, 1);
    q->value = sqlite3_column_type(st, 2) != SQLITE_NULL ? sqlite3_column_double(st, 2) : NAN;
    q->end_us = sqlite3_column_type(st, 3) != SQLITE_NULL ? sqlite3_column_int64(st, 3) : -1;
}

static void row_scen(sqlite3_stmt *st, query_run *r)
{
    query_scen *s;
    r->scens = xreallocarray(r->scens, (r->nscens + 1), sizeof(*r->scens));
    s = &r->scens[r->nscens++];
    s->name = query_col_str(st, 0);
    s->runs = sqlite3_column_int64(st, 1);
    s->missed = sqlite3_column_int64(st, 2);
    s->arr_scheduled = sqlite3_column_int64(st, 3);
    s->arr_started = sqlite3_column_int64(st, 4);
    s->arr_late = sqlite3_column_int64(st, 5);
    s->arr_dropped = sqlite3_column_int64(st, 6);
    s->arr_init_waits = sqlite3_column_int64(st, 7);
    s->arr_inits = sqlite3_column_int64(st, 8);
}

static void row_threshold(sqlite3_stmt *st, query_run *r)
{
    query_threshold *t;
    r->thresholds = xreallocarray(r->thresholds, (r->nthresholds + 1), sizeof(*r->thresholds));
    t = &r->thresholds[r->nthresholds++];
    t->expr = query_col_str(st, 0);
    t->source = query_col_str(st, 1);
    t->passed = sqlite3_column_int(st, 2) != 0;
    t->measurable = sqlite3_column_type(st, 3) != SQLITE_NULL;
    t->measured = sqlite3_column_double(st, 3);
    t->limit = sqlite3_column_double(st, 4);
    t->unit = query_col_str(st, 5);
    t->description = query_col_str(st, 6);
}

static int load_tables(sqlite3 *sq, query_run *r, char *err, size_t errlen)
{
    if (load_rows(sq, r,
                  "SELECT name, host, workers, vus, lost, status, requests, errors, vus_peak "
                  "FROM agents "
                  "WHERE run_id = ? ORDER BY agent_index",
                  row_agent, err, errlen) != 0 ||
        load_rows(sq, r,
                  "SELECT step_index, kind, sample, count, first_second, last_second, trace_id "
                  "FROM errors WHERE run_id = ? ORDER BY count DESC, step_index, kind",
                  row_error, err, errlen) != 0 ||
        load_rows(sq, r,
                  "SELECT step_index, rank, latency_us, start_us, vu, trace_id FROM slowest "
                  "WHERE run_id = ? ORDER BY step_index, rank",
                  row_slow, err, errlen) != 0 ||
        load_rows(sq, r,
                  "SELECT at_us, kind, value, end_us FROM steers WHERE run_id = ? ORDER BY seq",
                  row_steer, err, errlen) != 0 ||
        load_rows(sq, r,
                  "SELECT name, runs, missed_pacing, arr_scheduled, arr_started, arr_late, "
                  "arr_dropped, arr_init_waits, arr_inits FROM scenario_totals WHERE run_id = ? "
                  "ORDER BY scen_index",
                  row_scen, err, errlen) != 0 ||
        load_rows(sq, r,
                  "SELECT expr, source, passed, measured, \"limit\", unit, description FROM "
                  "thresholds WHERE run_id = ? ORDER BY position",
                  row_threshold, err, errlen) != 0)
        return -1;
    return 0;
}

/* A running row whose console is gone is abandoned (store/abandon.h). */
static int judge_abandoned(db *d, query_run *r, char *err, size_t errlen)
{
    char why[256];
    int rc;

    if (strcmp(r->status, "abandoned") == 0) {
        r->abandoned = 1;
        return 0;
    }
    if (strcmp(r->status, "running") != 0)
        return 0;
    rc = abandon_run(d, r->id, clock_wall_us(), why, sizeof(why));
    if (rc < 0) {
        err_set(err, errlen, "%s", why);
        return -1;
    }
    if (rc == 1) {
        r->abandoned = 1;
        xfree(r->status);
        r->status = xstrdup("abandoned");
        if (r->status_reason == NULL)
            r->status_reason = xstrdup(why);
    }
    return 0;
}

/* The run's verdict from what was loaded. */
static void decide(query_run *r)
{
    const char *failed[RUNVERDICT_FAILED_MAX];
    runverdict_in in = {0};

    in.status = r->status;
    in.verdict = r->run_verdict;
    in.verdict_reason = r->run_verdict_reason;
    in.nthresholds = r->nthresholds;
    in.failed = failed;
    for (size_t i = 0; i < r->nthresholds; i++) {
        if (r->thresholds[i].passed)
            continue;
        if (in.nfailed < RUNVERDICT_FAILED_MAX)
            failed[in.nfailed] = r->thresholds[i].expr;
        in.nfailed++;
    }
    in.count = r->all.count;
    in.errors = r->all.err_tech + r->all.err_func;
    runverdict_decide(&in, 0, &r->verdict);
}

int query_run_incomplete(const query_run *r)
{
    return r->abandoned || strcmp(r->status, "running") == 0;
}

/* The run's capacity search, when it had one (store/capacity_db.h), and its
 * Little's law seconds (store/little.h) and the injector's own load
 * (store/injector.h). */
static int load_capacity(sqlite3 *sq, query_run *r, char *err, size_t errlen)
{
    capacity_db_run c;
    int h = capacity_db_read(sq, r->id, &c, err, errlen);

    if (h == 1) {
        r->capacity = xmalloc(sizeof(*r->capacity));
        *r->capacity = c;
    }
    if (h < 0)
        return -1;
    if (little_load(sq, r->id, &r->little, &r->nlittle, err, errlen) != 0)
        return -1;
    if (injector_load(sq, r->id, &r->inj, &r->ninj, err, errlen) != 0)
        return -1;
    shade_init(&r->sat, "injector saturated", SHADE_SAT_COLOR);
    injector_shade(r->inj, r->ninj, &r->sat);
    shade_init(&r->paused, "paused (quern ctl)", SHADE_PAUSE_COLOR);
    r->paused.plain = 1;
    for (size_t i = 0; i < r->nsteers; i++) {
        const query_steer *q = &r->steers[i];
        shade_sat none;
        uint64_t from = (uint64_t)(q->at_us > 0 ? q->at_us : 0) / 1000000;
        memset(&none, 0, sizeof(none));
        if (strcmp(q->kind, "pause") == 0)
            shade_add(&r->paused, from,
                      q->end_us > q->at_us ? (uint64_t)(q->end_us + 999999) / 1000000 : from + 1,
                      &none);
    }
    return 0;
}

query_run *query_run_load(db *d, int64_t id, unsigned width_s, int *missing, char *err,
                          size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    query_run *r = xcalloc(1, sizeof(*r));
    uint64_t nsec;
    int miss = 0;

    r->id = id;
    if (load_run_row(sq, r, &miss, err, errlen) != 0 || judge_abandoned(d, r, err, errlen) != 0 ||
        load_steps(sq, r, err, errlen) != 0 || query_run_seconds(d, id, &nsec, err, errlen) != 0)
        goto fail;
    if (width_s == 0)
        width_s = (unsigned)((nsec + QUERY_POINTS_MAX - 1) / QUERY_POINTS_MAX);
    r->width_s = width_s > 0 ? width_s : 1;
    if (series_load(sq, r, nsec, err, errlen) != 0 || load_totals(sq, r, err, errlen) != 0 ||
        load_tables(sq, r, err, errlen) != 0 ||
        monitor_series_load(sq, id, r->npts, r->width_s, &r->mon, err, errlen) != 0 ||
        kindseries_load(sq, id, r->npts, r->width_s, r->started_us, &r->kinds, err, errlen) != 0 ||
        load_capacity(sq, r, err, errlen) != 0 || dbtally_read(sq, id, &r->tally, err, errlen) != 0)
        goto fail;
    if (r->duration_us < 0)
        r->duration_us = r->elapsed_us;
    decide(r);
    if (missing != NULL)
        *missing = 0;
    return r;
fail:
    query_run_free(r);
    if (missing != NULL)
        *missing = miss;
    return NULL;
}

int query_step_shown(const query_step *s)
{
    return s->declared || s->count > 0;
}

static void step_free(query_step *s)
{
    xfree(s->test_id);
    xfree(s->label);
    xfree(s->scenario);
    series_free(&s->ts);
}

void query_run_free(query_run *r)
{
    if (r == NULL)
        return;
    if (r->capacity != NULL)
        capacity_db_free(r->capacity);
    xfree(r->capacity);
    xfree(r->little);
    xfree(r->inj);
    shade_free(&r->sat);
    shade_free(&r->paused);
    xfree(r->name);
    xfree(r->tags);
    xfree(r->script);
    xfree(r->script_hash);
    xfree(r->properties);
    xfree(r->quern_version);
    xfree(r->status);
    xfree(r->started_at);
    xfree(r->ended_at);
    for (size_t i = 0; i < r->nsteps; i++)
        step_free(&r->steps[i]);
    xfree(r->steps);
    step_free(&r->all);
    xfree(r->vus_ts);
    for (size_t i = 0; i < r->nagents; i++) {
        xfree(r->agents[i].name);
        xfree(r->agents[i].host);
        xfree(r->agents[i].status);
    }
    xfree(r->agents);
    for (size_t i = 0; i < r->nerrors; i++) {
        xfree(r->errors[i].kind);
        xfree(r->errors[i].sample);
        xfree(r->errors[i].trace_id);
    }
    xfree(r->errors);
    for (size_t i = 0; i < r->nslow; i++)
        xfree(r->slow[i].trace_id);
    xfree(r->slow);
    kindseries_free(&r->kinds);
    for (size_t i = 0; i < r->nsteers; i++)
        xfree(r->steers[i].kind);
    xfree(r->steers);
    for (size_t i = 0; i < r->nscens; i++)
        xfree(r->scens[i].name);
    xfree(r->scens);
    for (size_t i = 0; i < r->nthresholds; i++) {
        xfree(r->thresholds[i].expr);
        xfree(r->thresholds[i].source);
        xfree(r->thresholds[i].unit);
        xfree(r->thresholds[i].description);
    }
    xfree(r->thresholds);
    xfree(r->command_line);
    xfree(r->req_stages);
    xfree(r->console_host);
    xfree(r->status_reason);
    xfree(r->run_verdict);
    xfree(r->run_verdict_reason);
    monitor_series_free(&r->mon);
    dbtally_free(&r->tally);
    xfree(r);
}
