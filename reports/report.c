#include "reports/report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/hist.h"
#include "common/mem.h"
#include "reports/abandon.h"
#include "reports/html.h"
#include "common/version.h"

/* A final point shorter than this fraction of its width is folded into the
 * one before it. */
#define FOLD_FRACTION 0.5

void report_usage(FILE *out)
{
    fputs("usage: quern report [RUN] [--db FILE] [-o FILE]\n"
          "\n"
          "Writes one self-contained HTML file (it opens offline: no script, no external\n"
          "style or font) for run RUN of the results database, by default the latest run:\n"
          "summary, charts of throughput, response-time percentiles (p50/p95/p99), errors\n"
          "(technical and functional) and active VUs over time, the same per step, then\n"
          "the step, agent, error and scenario tables and the run's settings (requested\n"
          "VUs, duration, ramp-up, runs per VU, the command line with secrets redacted).\n"
          "Its verdict heads the page (passed, or failed and why), with each threshold's:\n"
          "expression, where it was declared, measured value, limit, PASS or FAIL. A run\n"
          "left running by a console that is gone is shown abandoned and incomplete.\n"
          "\n"
          "options:\n"
          "  --db FILE      results database (default ./quern-results.db, or $QUERN_DB)\n"
          "  -o FILE        output file (default quern-report-RUN.html)\n"
          "\n"
          "exit status: 0 written; 2 usage error or unknown run; 3 the database cannot\n"
          "be read or the file cannot be written.\n",
          out);
}

/* ------------------------------------------------------------------ loading */

static sqlite3_stmt *prep(sqlite3 *sq, const char *sql, int64_t id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, id);
    return st;
}

/* Ends a row loop: 0 when the statement ran to its end. Finalises st. */
static int prep_done(sqlite3 *sq, sqlite3_stmt *st, int rc, char *err, size_t errlen)
{
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

/* Column i as an owned string ("" for NULL). */
static char *col_str(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);

    return xstrdup(s != NULL ? s : "");
}

/* Column i as an owned string, NULL for NULL. */
static char *col_opt_str(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : col_str(st, i);
}

/* Column i, -1 for NULL. */
static int64_t col_opt_i64(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
    int64_t v = sqlite3_column_int64(st, i);

    return v > 0 ? (uint64_t)v : 0;
}

/* Merges a histogram BLOB column into h; a malformed one is skipped (its
 * counters still count). */
static void col_hist(sqlite3_stmt *st, int i, hist *h)
{
    const void *blob = sqlite3_column_blob(st, i);
    int n = sqlite3_column_bytes(st, i);

    if (blob != NULL && n > 0)
        hist_merge_encoded(h, blob, (size_t)n);
}

static double *nan_array(size_t n)
{
    double *a = xmalloc((n > 0 ? n : 1) * sizeof(*a));

    for (size_t i = 0; i < n; i++)
        a[i] = NAN;
    return a;
}

static void series_init(report_series *s, size_t n)
{
    s->rps = nan_array(n);
    s->ok_ps = nan_array(n);
    s->tech_ps = nan_array(n);
    s->func_ps = nan_array(n);
    s->p50_ms = nan_array(n);
    s->p95_ms = nan_array(n);
    s->p99_ms = nan_array(n);
}

static void series_free(report_series *s)
{
    xfree(s->rps);
    xfree(s->ok_ps);
    xfree(s->tech_ps);
    xfree(s->func_ps);
    xfree(s->p50_ms);
    xfree(s->p95_ms);
    xfree(s->p99_ms);
}

/* Sets the percentile fields of s from h. */
static void step_from_hist(report_step *s, const hist *h)
{
    s->mean_us = hist_mean(h);
    s->min_us = hist_min(h);
    s->p50_us = hist_percentile(h, 50);
    s->p90_us = hist_percentile(h, 90);
    s->p95_us = hist_percentile(h, 95);
    s->p99_us = hist_percentile(h, 99);
    s->max_us = hist_max(h);
}

int report_run_seconds(db *d, int64_t id, uint64_t *seconds, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = prep(sq,
                            "SELECT max(s) FROM (SELECT max(second) AS s FROM intervals "
                            "WHERE run_id = ?1 UNION ALL SELECT max(second) FROM "
                            "step_intervals WHERE run_id = ?1)",
                            id, err, errlen);
    int64_t last;

    if (st == NULL)
        return -1;
    if (sqlite3_step(st) != SQLITE_ROW)
        return prep_done(sq, st, SQLITE_ERROR, err, errlen);
    if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
        *seconds = 0;
    } else {
        last = sqlite3_column_int64(st, 0);
        if (last < 0)
            last = -1;
        if (last >= (int64_t)REPORT_SECONDS_MAX)
            last = REPORT_SECONDS_MAX - 1;
        *seconds = (uint64_t)(last + 1);
    }
    sqlite3_finalize(st);
    return 0;
}

static int load_run_row(sqlite3 *sq, report_run *r, int *missing, char *err, size_t errlen)
{
    sqlite3_stmt *st = prep(sq,
                            "SELECT name, tags, script, script_hash, properties, quern_version, "
                            "vus, started_at, started_us, ended_at, ended_us, duration_us, status, "
                            "req_duration_us, req_ramp_up_us, req_runs, command_line, "
                            "console_host, console_pid, status_reason, verdict, verdict_reason "
                            "FROM runs WHERE id = ?",
                            r->id, err, errlen);
    int rc;

    if (st == NULL)
        return -1;
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        snprintf(err, errlen, "no run %lld in the database", (long long)r->id);
        *missing = 1;
        sqlite3_finalize(st);
        return -1;
    }
    if (rc != SQLITE_ROW)
        return prep_done(sq, st, rc, err, errlen);
    r->name = col_str(st, 0);
    r->tags = col_str(st, 1);
    r->script = col_str(st, 2);
    r->script_hash = col_str(st, 3);
    r->properties = col_str(st, 4);
    r->quern_version = col_str(st, 5);
    r->vus = sqlite3_column_int64(st, 6);
    r->started_at = col_str(st, 7);
    r->started_us = sqlite3_column_int64(st, 8);
    r->ended_at = sqlite3_column_type(st, 9) == SQLITE_NULL ? NULL : col_str(st, 9);
    r->ended_us = sqlite3_column_type(st, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 10);
    r->duration_us = sqlite3_column_type(st, 11) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 11);
    r->status = col_str(st, 12);
    r->req_duration_us = col_opt_i64(st, 13);
    r->req_ramp_up_us = col_opt_i64(st, 14);
    r->req_runs = col_opt_i64(st, 15);
    r->command_line = col_opt_str(st, 16);
    r->console_host = col_opt_str(st, 17);
    r->console_pid = sqlite3_column_int64(st, 18);
    r->status_reason = col_opt_str(st, 19);
    r->run_verdict = col_opt_str(st, 20);
    r->run_verdict_reason = col_opt_str(st, 21);
    sqlite3_finalize(st);
    return 0;
}

/* The steps: as many as the largest index any table uses (capped). */
static int load_steps(sqlite3 *sq, report_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *st = prep(sq,
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
        return prep_done(sq, st, SQLITE_ERROR, err, errlen);
    if (sqlite3_column_type(st, 0) != SQLITE_NULL)
        last = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (last >= REPORT_STEPS_MAX)
        last = REPORT_STEPS_MAX - 1;
    r->nsteps = last >= 0 ? (size_t)last + 1 : 0;
    r->steps = xcalloc(r->nsteps > 0 ? r->nsteps : 1, sizeof(*r->steps));

    st = prep(sq,
              "SELECT step_index, test_id, label, scenario FROM steps WHERE run_id = ? "
              "ORDER BY step_index",
              r->id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        report_step *s;
        if (i < 0 || (uint64_t)i >= r->nsteps)
            continue;
        s = &r->steps[i];
        xfree(s->test_id);
        xfree(s->label);
        xfree(s->scenario);
        s->test_id = col_str(st, 1);
        s->label = col_str(st, 2);
        s->scenario = col_str(st, 3);
        s->declared = 1;
    }
    if (prep_done(sq, st, rc, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < r->nsteps; i++) {
        report_step *s = &r->steps[i];
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

/* Per-point lengths and active VUs from the intervals; chooses npts. */
static int load_intervals(sqlite3 *sq, report_run *r, uint64_t nsec, int64_t **len_us, char *err,
                          size_t errlen)
{
    sqlite3_stmt *st;
    int64_t *len;
    int rc;

    r->npts = (size_t)((nsec + r->width_s - 1) / r->width_s);
    len = xcalloc(r->npts > 0 ? r->npts : 1, sizeof(*len));
    *len_us = len;
    r->vus_ts = nan_array(r->npts);
    st = prep(sq, "SELECT second, length_us, active_vus FROM intervals WHERE run_id = ?", r->id,
              err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t sec = sqlite3_column_int64(st, 0);
        int64_t l = sqlite3_column_int64(st, 1);
        double vus = (double)sqlite3_column_int64(st, 2);
        size_t p;
        if (sec < 0 || (uint64_t)sec >= nsec || l < 0)
            continue;
        p = (size_t)((uint64_t)sec / r->width_s);
        len[p] += l;
        r->elapsed_us += l;
        if (isnan(r->vus_ts[p]) || vus > r->vus_ts[p])
            r->vus_ts[p] = vus;
    }
    if (prep_done(sq, st, rc, err, errlen) != 0)
        return -1;
    /* Fold a short final point into the one before. */
    if (r->npts > 1 && (double)len[r->npts - 1] < FOLD_FRACTION * r->width_s * 1e6) {
        size_t last = r->npts - 1;
        len[last - 1] += len[last];
        if (!isnan(r->vus_ts[last]) &&
            (isnan(r->vus_ts[last - 1]) || r->vus_ts[last] > r->vus_ts[last - 1]))
            r->vus_ts[last - 1] = r->vus_ts[last];
        r->npts--;
    }
    return 0;
}

/* Per-point counters of one step (or of all), before they become rates. */
typedef struct acc {
    hist *h; /**< owned: the current point's merged histogram */
    int touched;
} acc;

/* Sets the percentiles of point p from a->h and empties it. */
static void acc_flush(acc *a, report_series *s, size_t p)
{
    if (!a->touched)
        return;
    if (hist_count(a->h) > 0) {
        s->p50_ms[p] = (double)hist_percentile(a->h, 50) / 1000.0;
        s->p95_ms[p] = (double)hist_percentile(a->h, 95) / 1000.0;
        s->p99_ms[p] = (double)hist_percentile(a->h, 99) / 1000.0;
    }
    hist_reset(a->h);
    a->touched = 0;
}

/* Turns the counts of s (held in its rate arrays) into rates per second. */
static void to_rates(report_series *s, size_t npts, const int64_t *len_us, unsigned width_s)
{
    for (size_t p = 0; p < npts; p++) {
        double secs = len_us[p] > 0 ? (double)len_us[p] / 1e6 : (double)width_s;
        double *arr[4] = {s->rps, s->ok_ps, s->tech_ps, s->func_ps};
        for (int k = 0; k < 4; k++)
            arr[k][p] = isnan(arr[k][p]) ? 0.0 : arr[k][p] / secs;
    }
}

static void add_count(double *a, size_t p, double v)
{
    a[p] = isnan(a[p]) ? v : a[p] + v;
}

/* The per-second rows: counts summed and histograms merged per point, for
 * each step and for all steps. */
static int load_series(sqlite3 *sq, report_run *r, uint64_t nsec, const int64_t *len_us, char *err,
                       size_t errlen)
{
    acc *accs = xcalloc(r->nsteps + 1, sizeof(*accs));
    sqlite3_stmt *st = NULL;
    size_t cur = 0;
    int rc = -1, step;

    series_init(&r->all.ts, r->npts);
    for (size_t i = 0; i < r->nsteps; i++)
        series_init(&r->steps[i].ts, r->npts);
    for (size_t i = 0; i <= r->nsteps; i++)
        accs[i].h = hist_new();
    st = prep(sq,
              "SELECT second, step_index, count, err_tech, err_func, histogram "
              "FROM step_intervals WHERE run_id = ? ORDER BY second, step_index",
              r->id, err, errlen);
    if (st == NULL)
        goto out;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t sec = sqlite3_column_int64(st, 0), si = sqlite3_column_int64(st, 1);
        double n = (double)col_u64(st, 2), et = (double)col_u64(st, 3), ef = (double)col_u64(st, 4);
        double ok = n - et - ef > 0 ? n - et - ef : 0;
        size_t p;
        report_series *ss[2];
        acc *as[2];
        if (sec < 0 || (uint64_t)sec >= nsec || si < 0 || (uint64_t)si >= r->nsteps || r->npts == 0)
            continue;
        p = (size_t)((uint64_t)sec / r->width_s);
        if (p >= r->npts)
            p = r->npts - 1; /* the folded last point */
        if (p != cur) {
            for (size_t i = 0; i < r->nsteps; i++)
                acc_flush(&accs[i], &r->steps[i].ts, cur);
            acc_flush(&accs[r->nsteps], &r->all.ts, cur);
            cur = p;
        }
        ss[0] = &r->steps[si].ts;
        ss[1] = &r->all.ts;
        as[0] = &accs[si];
        as[1] = &accs[r->nsteps];
        for (int k = 0; k < 2; k++) {
            add_count(ss[k]->rps, p, n);
            add_count(ss[k]->ok_ps, p, ok);
            add_count(ss[k]->tech_ps, p, et);
            add_count(ss[k]->func_ps, p, ef);
            col_hist(st, 5, as[k]->h);
            as[k]->touched = 1;
        }
    }
    if (step != SQLITE_DONE) {
        snprintf(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        goto out;
    }
    if (r->npts > 0) {
        for (size_t i = 0; i < r->nsteps; i++)
            acc_flush(&accs[i], &r->steps[i].ts, cur);
        acc_flush(&accs[r->nsteps], &r->all.ts, cur);
    }
    for (size_t i = 0; i < r->nsteps; i++)
        to_rates(&r->steps[i].ts, r->npts, len_us, r->width_s);
    to_rates(&r->all.ts, r->npts, len_us, r->width_s);
    rc = 0;
out:
    sqlite3_finalize(st);
    for (size_t i = 0; i <= r->nsteps; i++)
        hist_free(accs[i].h);
    xfree(accs);
    return rc;
}

/* Whole-run figures per step: step_totals, or the intervals summed for the
 * steps without totals (a run that did not end). Then all steps merged. */
static int load_totals(sqlite3 *sq, report_run *r, char *err, size_t errlen)
{
    hist *hall = hist_new(), *h = hist_new();
    sqlite3_stmt *st;
    int rc = -1, step, missing = 0;
    int64_t cur = -1;
    int64_t dur = r->duration_us > 0 ? r->duration_us : r->elapsed_us;

    st = prep(sq,
              "SELECT step_index, count, err_tech, err_func, bytes_in, bytes_out, tps, mean_us, "
              "min_us, p50_us, p90_us, p95_us, p99_us, max_us, histogram FROM step_totals "
              "WHERE run_id = ?",
              r->id, err, errlen);
    if (st == NULL)
        goto out;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(st, 0);
        report_step *s;
        if (i < 0 || (uint64_t)i >= r->nsteps)
            continue;
        s = &r->steps[i];
        s->has_totals = 1;
        s->count = col_u64(st, 1);
        s->err_tech = col_u64(st, 2);
        s->err_func = col_u64(st, 3);
        s->bytes_in = col_u64(st, 4);
        s->bytes_out = col_u64(st, 5);
        s->tps = sqlite3_column_double(st, 6);
        s->mean_us = sqlite3_column_double(st, 7);
        s->min_us = col_u64(st, 8);
        s->p50_us = col_u64(st, 9);
        s->p90_us = col_u64(st, 10);
        s->p95_us = col_u64(st, 11);
        s->p99_us = col_u64(st, 12);
        s->max_us = col_u64(st, 13);
        col_hist(st, 14, hall);
    }
    if (prep_done(sq, st, step, err, errlen) != 0) {
        st = NULL;
        goto out;
    }
    st = NULL;
    for (size_t i = 0; i < r->nsteps; i++)
        missing += !r->steps[i].has_totals;
    if (missing > 0) {
        st = prep(sq,
                  "SELECT step_index, count, err_tech, err_func, bytes_in, bytes_out, histogram "
                  "FROM step_intervals WHERE run_id = ? ORDER BY step_index",
                  r->id, err, errlen);
        if (st == NULL)
            goto out;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t i = sqlite3_column_int64(st, 0);
            report_step *s;
            if (i < 0 || (uint64_t)i >= r->nsteps || r->steps[i].has_totals)
                continue;
            if (i != cur) {
                if (cur >= 0)
                    step_from_hist(&r->steps[cur], h);
                hist_reset(h);
                cur = i;
            }
            s = &r->steps[i];
            s->count += col_u64(st, 1);
            s->err_tech += col_u64(st, 2);
            s->err_func += col_u64(st, 3);
            s->bytes_in += col_u64(st, 4);
            s->bytes_out += col_u64(st, 5);
            col_hist(st, 6, h);
            col_hist(st, 6, hall);
        }
        if (prep_done(sq, st, step, err, errlen) != 0) {
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
        const report_step *s = &r->steps[i];
        r->all.count += s->count;
        r->all.err_tech += s->err_tech;
        r->all.err_func += s->err_func;
        r->all.bytes_in += s->bytes_in;
        r->all.bytes_out += s->bytes_out;
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

static int load_tables(sqlite3 *sq, report_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc;

    st = prep(sq,
              "SELECT name, host, workers, vus, lost, status, requests, errors FROM agents "
              "WHERE run_id = ? ORDER BY agent_index",
              r->id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        report_agent *a;
        r->agents = xrealloc(r->agents, (r->nagents + 1) * sizeof(*r->agents));
        a = &r->agents[r->nagents++];
        a->name = col_str(st, 0);
        a->host = col_str(st, 1);
        a->workers = sqlite3_column_int64(st, 2);
        a->vus = sqlite3_column_int64(st, 3);
        a->lost = sqlite3_column_int64(st, 4);
        a->status = col_str(st, 5);
        a->requests = sqlite3_column_int64(st, 6);
        a->errors = sqlite3_column_int64(st, 7);
    }
    if (prep_done(sq, st, rc, err, errlen) != 0)
        return -1;

    st = prep(sq,
              "SELECT step_index, kind, sample, count, first_second, last_second FROM errors "
              "WHERE run_id = ? ORDER BY count DESC, step_index, kind",
              r->id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        report_error *e;
        r->errors = xrealloc(r->errors, (r->nerrors + 1) * sizeof(*r->errors));
        e = &r->errors[r->nerrors++];
        e->step = sqlite3_column_int64(st, 0);
        e->kind = col_str(st, 1);
        e->sample = col_str(st, 2);
        e->count = sqlite3_column_int64(st, 3);
        e->first_second = sqlite3_column_int64(st, 4);
        e->last_second = sqlite3_column_int64(st, 5);
    }
    if (prep_done(sq, st, rc, err, errlen) != 0)
        return -1;

    st = prep(sq,
              "SELECT name, runs, missed_pacing FROM scenario_totals WHERE run_id = ? "
              "ORDER BY scen_index",
              r->id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        report_scen *s;
        r->scens = xrealloc(r->scens, (r->nscens + 1) * sizeof(*r->scens));
        s = &r->scens[r->nscens++];
        s->name = col_str(st, 0);
        s->runs = sqlite3_column_int64(st, 1);
        s->missed = sqlite3_column_int64(st, 2);
    }
    if (prep_done(sq, st, rc, err, errlen) != 0)
        return -1;

    st = prep(sq,
              "SELECT expr, source, passed, measured, \"limit\", unit, description FROM "
              "thresholds WHERE run_id = ? ORDER BY position",
              r->id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        report_threshold *t;
        r->thresholds = xrealloc(r->thresholds, (r->nthresholds + 1) * sizeof(*r->thresholds));
        t = &r->thresholds[r->nthresholds++];
        t->expr = col_str(st, 0);
        t->source = col_str(st, 1);
        t->passed = sqlite3_column_int(st, 2) != 0;
        t->measurable = sqlite3_column_type(st, 3) != SQLITE_NULL;
        t->measured = sqlite3_column_double(st, 3);
        t->limit = sqlite3_column_double(st, 4);
        t->unit = col_str(st, 5);
        t->description = col_str(st, 6);
    }
    return prep_done(sq, st, rc, err, errlen);
}

/* A running row whose console is gone is abandoned (reports/abandon.h). */
static int judge_abandoned(db *d, report_run *r, char *err, size_t errlen)
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
        snprintf(err, errlen, "%s", why);
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
static void decide(report_run *r)
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

int report_run_incomplete(const report_run *r)
{
    return r->abandoned || strcmp(r->status, "running") == 0;
}

report_run *report_run_load(db *d, int64_t id, unsigned width_s, int *missing, char *err,
                            size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    report_run *r = xcalloc(1, sizeof(*r));
    int64_t *len_us = NULL;
    uint64_t nsec;
    int miss = 0;

    r->id = id;
    if (load_run_row(sq, r, &miss, err, errlen) != 0 || judge_abandoned(d, r, err, errlen) != 0 ||
        load_steps(sq, r, err, errlen) != 0 || report_run_seconds(d, id, &nsec, err, errlen) != 0)
        goto fail;
    if (width_s == 0)
        width_s = (unsigned)((nsec + HTML_CHART_POINTS_MAX - 1) / HTML_CHART_POINTS_MAX);
    r->width_s = width_s > 0 ? width_s : 1;
    if (load_intervals(sq, r, nsec, &len_us, err, errlen) != 0 ||
        load_series(sq, r, nsec, len_us, err, errlen) != 0 ||
        load_totals(sq, r, err, errlen) != 0 || load_tables(sq, r, err, errlen) != 0)
        goto fail;
    if (r->duration_us < 0)
        r->duration_us = r->elapsed_us;
    decide(r);
    xfree(len_us);
    if (missing != NULL)
        *missing = 0;
    return r;
fail:
    xfree(len_us);
    report_run_free(r);
    if (missing != NULL)
        *missing = miss;
    return NULL;
}

int report_step_shown(const report_step *s)
{
    return s->declared || s->count > 0;
}

static void step_free(report_step *s)
{
    xfree(s->test_id);
    xfree(s->label);
    xfree(s->scenario);
    series_free(&s->ts);
}

void report_run_free(report_run *r)
{
    if (r == NULL)
        return;
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
    }
    xfree(r->errors);
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
    xfree(r->console_host);
    xfree(r->status_reason);
    xfree(r->run_verdict);
    xfree(r->run_verdict_reason);
    xfree(r);
}

int report_run_find(db *d, const char *name, int64_t before, int64_t *id, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(sq,
                           "SELECT id FROM runs WHERE (?1 IS NULL OR name = ?1) "
                           "AND (?2 = 0 OR id < ?2) ORDER BY id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return -1;
    }
    if (name != NULL)
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, before);
    *id = 0;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        rc = SQLITE_DONE;
    }
    return prep_done(sq, st, rc, err, errlen);
}

int report_run_complete(db *d, int64_t id, int *complete, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = prep(sq, "SELECT status FROM runs WHERE id = ?", id, err, errlen);
    int rc;

    if (st == NULL)
        return -1;
    *complete = 0;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        *complete = s != NULL && strcmp(s, "running") != 0 && strcmp(s, "abandoned") != 0;
        rc = SQLITE_DONE;
    }
    return prep_done(sq, st, rc, err, errlen);
}

int64_t report_parse_id(const char *s)
{
    char *end;
    long long v;

    if (s == NULL || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v <= 0)
        return 0;
    return (int64_t)v;
}

int report_write_file(const char *path, void (*emit)(FILE *out, const void *arg), const void *arg,
                      char *err, size_t errlen)
{
    size_t n = strlen(path) + 32;
    char *tmp = xmalloc(n);
    FILE *f;
    int rc = -1;

    snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
    f = fopen(tmp, "w");
    if (f == NULL) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    emit(f, arg);
    if (ferror(f)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        fclose(f);
        unlink(tmp);
        goto out;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    rc = 0;
out:
    xfree(tmp);
    return rc;
}

/* --------------------------------------------------------------------- HTML */

/* "12.5 %" of part in whole, or "-" when whole is 0. */
static const char *pct(uint64_t part, uint64_t whole, char *buf, size_t len)
{
    if (whole == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2f %%", 100.0 * (double)part / (double)whole);
    return buf;
}

/* A JSON object of strings as a definition list; other text as it is. */
static void json_kv(FILE *out, const char *text)
{
    json_error_t je;
    json_t *o = json_loads(text != NULL ? text : "", 0, &je);
    const char *k;
    json_t *v;

    if (o == NULL || !json_is_object(o)) {
        fputs("<code>", out);
        html_esc(out, text);
        fputs("</code>", out);
        json_decref(o);
        return;
    }
    if (json_object_size(o) == 0) {
        fputs("<span class=\"same\">none</span>", out);
        json_decref(o);
        return;
    }
    fputs("<dl class=\"kv\">", out);
    json_object_foreach(o, k, v)
    {
        fputs("<dt><code>", out);
        html_esc(out, k);
        fputs("</code></dt><dd><code>", out);
        if (json_is_string(v)) {
            html_esc(out, json_string_value(v));
        } else {
            char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            html_esc(out, s);
            free(s);
        }
        fputs("</code></dd>", out);
    }
    fputs("</dl>", out);
    json_decref(o);
}

static void status_badge(FILE *out, const char *status)
{
    fputs("<span class=\"badge st-", out);
    html_esc(out, status);
    fputs("\">", out);
    html_esc(out, status);
    fputs("</span>", out);
}

static const char *const runverdict_class[] = {"v-passed", "v-failed", "v-pending"};
static const char *const runverdict_word[] = {"passed", "failed", "running"};

/* The verdict badge: "passed" (green), "failed" (red), "running". */
static void runverdict_badge(FILE *out, const report_run *r)
{
    fprintf(out, "<span class=\"badge %s\" data-verdict=\"%s\" title=\"",
            runverdict_class[r->verdict.kind], runverdict_word[r->verdict.kind]);
    html_esc(out, r->verdict.text);
    fprintf(out, "\">%s</span>", runverdict_word[r->verdict.kind]);
}

/* "612.3 ms", "0.52 %", "12 /s", "340": a threshold's figure. */
static const char *thr_value(double v, const char *unit, char *buf, size_t len)
{
    char n[64];

    snprintf(n, sizeof(n), "%.4g", v);
    if (unit == NULL || unit[0] == '\0')
        snprintf(buf, len, "%s", n);
    else
        snprintf(buf, len, "%s %s", n, unit);
    return buf;
}

/* Why the figures are not a whole run, or how the run ended badly. */
static void run_notice(FILE *out, const report_run *r)
{
    char b[64];

    if (r->abandoned) {
        fputs("<p class=\"warn\" id=\"incomplete\"><strong>Abandoned: this run is incomplete."
              "</strong> It never ended: ",
              out);
        html_esc(out, r->status_reason != NULL ? r->status_reason : "its console is gone");
        fprintf(out,
                ". The figures below cover only the %s it recorded; they are not those of "
                "a complete run.</p>\n",
                html_duration(r->elapsed_us, b, sizeof(b)));
    } else if (strcmp(r->status, "running") == 0) {
        fprintf(out,
                "<p class=\"warn\" id=\"incomplete\"><strong>Still running.</strong> The "
                "figures below cover the %s recorded so far.</p>\n",
                html_duration(r->elapsed_us, b, sizeof(b)));
    } else if (r->status_reason != NULL) {
        fputs("<p class=\"warn\" id=\"status-reason\">Ended ", out);
        html_esc(out, r->status);
        fputs(": ", out);
        html_esc(out, r->status_reason);
        fputs("</p>\n", out);
    }
}

/* The verdict and each threshold's. */
static void runverdict_section(FILE *out, const report_run *r)
{
    char m[96], l[96];

    fputs("<section id=\"verdict\">\n<h2>Verdict: ", out);
    runverdict_badge(out, r);
    fputs("</h2>\n<p id=\"verdict-text\">", out);
    html_esc(out, r->verdict.text);
    fputs("</p>\n", out);
    if (r->run_verdict != NULL) {
        fputs("<p class=\"note\">The console's verdict: ", out);
        html_esc(out, r->run_verdict);
        if (r->run_verdict_reason != NULL) {
            fputs(" (", out);
            html_esc(out, r->run_verdict_reason);
            fputs(")", out);
        }
        fputs(".</p>\n", out);
    }
    if (r->nthresholds == 0) {
        fputs("<p class=\"same\">No threshold was declared for this run.</p>\n</section>\n", out);
        return;
    }
    fputs("<h3>Thresholds</h3>\n<table class=\"thresholds\">\n<thead><tr><th>Threshold</th>"
          "<th>Declared in</th><th class=\"n\">Measured</th><th class=\"n\">Limit</th>"
          "<th>Result</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->nthresholds; i++) {
        const report_threshold *t = &r->thresholds[i];
        fprintf(out, "<tr class=\"threshold\" data-passed=\"%d\"><td><code>", t->passed);
        html_esc(out, t->expr);
        fputs("</code><br><span class=\"lbl\">", out);
        html_esc(out, t->description);
        fputs("</span></td><td>", out);
        if (strcmp(t->source, "cli") == 0)
            fputs("command line", out);
        else {
            fputs("<code>", out);
            html_esc(out, t->source);
            fputs("</code>", out);
        }
        fputs("</td><td class=\"n\">", out);
        if (t->measurable)
            html_esc(out, thr_value(t->measured, t->unit, m, sizeof(m)));
        else
            fputs("not measurable", out);
        fputs("</td><td class=\"n\">", out);
        html_esc(out, thr_value(t->limit, t->unit, l, sizeof(l)));
        fprintf(out, "</td><td class=\"%s\">%s</td></tr>\n", t->passed ? "better" : "worse",
                t->passed ? "PASS" : "FAIL");
    }
    fputs("</tbody>\n</table>\n</section>\n", out);
}

static void card(FILE *out, const char *key, const char *value, const char *small)
{
    fprintf(out, "<div class=\"card\"><div class=\"k\">%s</div><div class=\"v\">%s", key, value);
    if (small != NULL)
        fprintf(out, " <small>%s</small>", small);
    fputs("</div></div>\n", out);
}

/* The legend name of a step: its label, else its id. */
static const char *step_name(const report_step *s)
{
    return s->label != NULL && s->label[0] != '\0' ? s->label : s->test_id;
}

static void summary_cards(FILE *out, const report_run *r)
{
    char a[64], b[64];
    double vmax = 0;

    for (size_t p = 0; p < r->npts; p++)
        if (!isnan(r->vus_ts[p]) && r->vus_ts[p] > vmax)
            vmax = r->vus_ts[p];
    fputs("<div class=\"cards\" id=\"overview\">\n", out);
    card(out, "Requests", html_count(r->all.count, a, sizeof(a)), NULL);
    card(out, "Errors", html_count(r->all.err_tech + r->all.err_func, a, sizeof(a)),
         pct(r->all.err_tech + r->all.err_func, r->all.count, b, sizeof(b)));
    card(out, "Throughput", html_num(r->all.tps, a, sizeof(a)), "req/s");
    card(out, "Mean", html_ms(r->all.mean_us, a, sizeof(a)), "ms");
    card(out, "p95", html_ms((double)r->all.p95_us, a, sizeof(a)), "ms");
    card(out, "p99", html_ms((double)r->all.p99_us, a, sizeof(a)), "ms");
    snprintf(b, sizeof(b), "of %lld", (long long)r->vus);
    card(out, "Peak VUs", html_count((uint64_t)vmax, a, sizeof(a)), b);
    card(out, "Duration", html_duration(r->duration_us, a, sizeof(a)), NULL);
    fputs("</div>\n", out);
}

static void run_charts(FILE *out, const report_run *r)
{
    size_t ns = r->nsteps + 1;
    html_series *s = xcalloc(ns, sizeof(*s));
    html_chart c = {.npts = r->npts, .width_s = r->width_s};
    size_t shown = 1;

    fputs("<section id=\"charts\">\n<h2>Over time</h2>\n", out);
    s[0] = (html_series){"all steps", "#1d2330", r->all.ts.rps, r->npts, 0};
    for (size_t i = 0; i < r->nsteps; i++)
        if (report_step_shown(&r->steps[i]))
            s[shown++] = (html_series){step_name(&r->steps[i]), HTML_COLOR(i), r->steps[i].ts.rps,
                                       r->npts, 0};
    /* One step: its line is the total. More steps than colours: each has
     * its own chart below, this one keeps the total only. */
    c.nseries = shown > 2 && shown <= 1 + HTML_PALETTE_SIZE ? shown : 1;
    c.title = c.nseries > 1 ? "Throughput: requests per second, all steps and each step"
                            : "Throughput: requests per second";
    c.unit = "req/s";
    c.kind = HTML_AREA;
    c.series = s;
    html_chart_svg(out, &c);

    {
        html_series pc[3] = {{"p50", "#16a34a", r->all.ts.p50_ms, r->npts, 0},
                             {"p95", "#d97706", r->all.ts.p95_ms, r->npts, 0},
                             {"p99", "#e5533d", r->all.ts.p99_ms, r->npts, 0}};
        html_series es[2] = {{"technical", "#b42318", r->all.ts.tech_ps, r->npts, 0},
                             {"functional", "#f59e0b", r->all.ts.func_ps, r->npts, 0}};
        html_series vs[1] = {{"active VUs", "#2563eb", r->vus_ts, r->npts, 0}};
        c.title = "Response time percentiles (all steps, per second, from merged histograms)";
        c.unit = "ms";
        c.kind = HTML_LINES;
        c.nseries = 3;
        c.series = pc;
        html_chart_svg(out, &c);
        fputs("<div class=\"grid2\">\n", out);
        c.small = 1;
        c.title = "Errors per second: technical and functional";
        c.unit = "errors/s";
        c.kind = HTML_STACKED;
        c.series = es;
        c.nseries = 2;
        html_chart_svg(out, &c);
        c.title = "Active virtual users";
        c.unit = "VUs";
        c.kind = HTML_AREA;
        c.series = vs;
        c.nseries = 1;
        html_chart_svg(out, &c);
        fputs("</div>\n", out);
    }
    fputs("<p class=\"note\">Technical errors: transport, timeout, status not accepted. "
          "Functional errors: failed checks, script errors.",
          out);
    if (r->width_s > 1)
        fprintf(out, " Each point covers %u seconds.", r->width_s);
    fputs("</p>\n</section>\n", out);
    xfree(s);
}

static void step_row(FILE *out, const report_step *s, int total)
{
    char b[64];
    uint64_t errs = s->err_tech + s->err_func;

    if (total)
        fputs("<tr class=\"total\">", out);
    else
        fputs("<tr class=\"step\">", out);
    fputs("<td>", out);
    if (!total) {
        fputs("<code>", out);
        html_esc(out, s->test_id);
        fputs("</code><br><span class=\"lbl\">", out);
        html_esc(out, s->label);
        fputs("</span>", out);
    } else {
        fputs("All steps", out);
    }
    fprintf(out, "</td><td class=\"n\" data-count=\"%llu\">%s</td>", (unsigned long long)s->count,
            html_count(s->count, b, sizeof(b)));
    fprintf(out, "<td class=\"n\" data-errors=\"%llu\">%s", (unsigned long long)errs,
            html_count(errs, b, sizeof(b)));
    fprintf(out, "<br><span class=\"lbl\">%s</span></td>", pct(errs, s->count, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_num(s->tps, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms(s->mean_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms((double)s->p50_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms((double)s->p90_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms((double)s->p95_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms((double)s->p99_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td></tr>\n", html_ms((double)s->max_us, b, sizeof(b)));
}

static void steps_table(FILE *out, const report_run *r)
{
    int partial = 0;

    fputs("<section id=\"steps\">\n<h2>Steps</h2>\n<table class=\"steps\">\n<thead><tr>"
          "<th>Step</th><th class=\"n\">Requests</th><th class=\"n\">Errors</th>"
          "<th class=\"n\">TPS</th><th class=\"n\">Mean ms</th><th class=\"n\">p50 ms</th>"
          "<th class=\"n\">p90 ms</th><th class=\"n\">p95 ms</th><th class=\"n\">p99 ms</th>"
          "<th class=\"n\">Max ms</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->nsteps; i++) {
        if (!report_step_shown(&r->steps[i]))
            continue;
        step_row(out, &r->steps[i], 0);
        partial |= !r->steps[i].has_totals;
    }
    fputs("</tbody>\n<tfoot>\n", out);
    step_row(out, &r->all, 1);
    fputs("</tfoot>\n</table>\n<p class=\"note\">TPS: requests per second of the run's "
          "duration. Percentiles from the merged latency histograms (HDR-style, within "
          "0.4 %).",
          out);
    if (partial)
        fputs(" The run did not end: figures summed from its recorded seconds.", out);
    fputs("</p>\n</section>\n", out);
}

static void step_charts(FILE *out, const report_run *r)
{
    char b[64], c2[64];

    if (r->nsteps == 0)
        return;
    fputs("<section id=\"per-step\">\n<h2>Each step</h2>\n", out);
    for (size_t i = 0; i < r->nsteps; i++) {
        const report_step *s = &r->steps[i];
        html_series rs[3] = {{"OK", "#16a34a", s->ts.ok_ps, r->npts, 0},
                             {"technical errors", "#b42318", s->ts.tech_ps, r->npts, 0},
                             {"functional errors", "#f59e0b", s->ts.func_ps, r->npts, 0}};
        html_series ps[3] = {{"p50", "#16a34a", s->ts.p50_ms, r->npts, 0},
                             {"p95", "#d97706", s->ts.p95_ms, r->npts, 0},
                             {"p99", "#e5533d", s->ts.p99_ms, r->npts, 0}};
        html_chart c = {.npts = r->npts, .width_s = r->width_s, .small = 1};
        if (!report_step_shown(s))
            continue;
        fprintf(out, "<div class=\"stepbox\" id=\"step-%zu\">\n<h3><code>", i);
        html_esc(out, s->test_id);
        fputs("</code> ", out);
        html_esc(out, s->label);
        fputs("</h3>\n<p class=\"meta\">", out);
        fprintf(out, "%s requests · ", html_count(s->count, b, sizeof(b)));
        fprintf(out, "%s errors · ", pct(s->err_tech + s->err_func, s->count, c2, sizeof(c2)));
        fprintf(out, "%s req/s · ", html_num(s->tps, b, sizeof(b)));
        fprintf(out, "p95 %s ms", html_ms((double)s->p95_us, b, sizeof(b)));
        fputs("</p>\n<div class=\"grid2\">\n", out);
        c.title = "Responses per second";
        c.unit = "req/s";
        c.kind = HTML_STACKED;
        c.series = rs;
        c.nseries = 3;
        html_chart_svg(out, &c);
        c.title = "Response time percentiles";
        c.unit = "ms";
        c.kind = HTML_LINES;
        c.series = ps;
        c.nseries = 3;
        html_chart_svg(out, &c);
        fputs("</div>\n</div>\n", out);
    }
    fputs("</section>\n", out);
}

static void errors_table(FILE *out, const report_run *r)
{
    char b[64];

    fputs("<section id=\"errors\">\n<h2>Errors</h2>\n", out);
    if (r->nerrors == 0) {
        fputs("<p class=\"same\">No error was recorded.</p>\n</section>\n", out);
        return;
    }
    fputs("<table class=\"errors\">\n<thead><tr><th>Kind</th><th>Step</th><th>Sample "
          "message</th><th class=\"n\">Count</th><th class=\"n\">First second</th>"
          "<th class=\"n\">Last second</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->nerrors; i++) {
        const report_error *e = &r->errors[i];
        fputs("<tr><td>", out);
        html_esc(out, e->kind);
        fputs("</td><td><code>", out);
        if (e->step >= 0 && (uint64_t)e->step < r->nsteps)
            html_esc(out, r->steps[e->step].test_id);
        else
            fprintf(out, "step %lld", (long long)e->step);
        fputs("</code></td><td><code>", out);
        html_esc(out, e->sample);
        fprintf(out, "</code></td><td class=\"n\">%s</td>",
                html_count(e->count > 0 ? (uint64_t)e->count : 0, b, sizeof(b)));
        fprintf(out, "<td class=\"n\">%llds</td><td class=\"n\">%llds</td></tr>\n",
                (long long)e->first_second, (long long)e->last_second);
    }
    fputs("</tbody>\n</table>\n<p class=\"note\">Seconds are counted from the start of the "
          "load; the sample is the first message seen.</p>\n</section>\n",
          out);
}

static void agents_table(FILE *out, const report_run *r)
{
    char b[64];

    fputs("<section id=\"agents\">\n<h2>Load injectors</h2>\n", out);
    if (r->nagents == 0) {
        fputs("<p class=\"same\">No agent was recorded.</p>\n", out);
    } else {
        fputs("<table class=\"agents\">\n<thead><tr><th>Agent</th><th>Host</th>"
              "<th class=\"n\">Workers</th><th class=\"n\">VUs</th><th>Status</th>"
              "<th class=\"n\">Requests</th><th class=\"n\">Errors</th></tr></thead>\n<tbody>\n",
              out);
        for (size_t i = 0; i < r->nagents; i++) {
            const report_agent *a = &r->agents[i];
            fputs("<tr><td>", out);
            html_esc(out, a->name);
            fputs("</td><td>", out);
            html_esc(out, a->host);
            fprintf(out, "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td><td>",
                    (long long)a->workers, (long long)a->vus);
            html_esc(out, a->status);
            if (a->lost)
                fputs(" <span class=\"badge st-aborted\">lost</span>", out);
            fprintf(out, "</td><td class=\"n\">%s</td>",
                    html_count(a->requests > 0 ? (uint64_t)a->requests : 0, b, sizeof(b)));
            fprintf(out, "<td class=\"n\">%s</td></tr>\n",
                    html_count(a->errors > 0 ? (uint64_t)a->errors : 0, b, sizeof(b)));
        }
        fputs("</tbody>\n</table>\n", out);
    }
    if (r->nscens > 0) {
        fputs("<h3>Scenarios</h3>\n<table class=\"scenarios\">\n<thead><tr><th>Scenario</th>"
              "<th class=\"n\">Runs</th><th class=\"n\">Missed pacing</th></tr></thead>\n"
              "<tbody>\n",
              out);
        for (size_t i = 0; i < r->nscens; i++) {
            fputs("<tr><td>", out);
            html_esc(out, r->scens[i].name);
            fprintf(
                out, "</td><td class=\"n\">%s</td>",
                html_count(r->scens[i].runs > 0 ? (uint64_t)r->scens[i].runs : 0, b, sizeof(b)));
            fprintf(out, "<td class=\"n\">%s</td></tr>\n",
                    html_count(r->scens[i].missed > 0 ? (uint64_t)r->scens[i].missed : 0, b,
                               sizeof(b)));
        }
        fputs("</tbody>\n</table>\n", out);
    }
    fputs("</section>\n", out);
}

static void kv(FILE *out, const char *key, const char *value, int code)
{
    fprintf(out, "<dt>%s</dt><dd>%s", key, code ? "<code>" : "");
    html_esc(out, value);
    fprintf(out, "%s</dd>\n", code ? "</code>" : "");
}

static void settings(FILE *out, const report_run *r)
{
    char b[64], t[64];

    fputs("<section id=\"settings\">\n<h2>Settings</h2>\n<dl class=\"kv\">\n", out);
    snprintf(b, sizeof(b), "%lld", (long long)r->id);
    kv(out, "Run", b, 0);
    kv(out, "Name", r->name, 0);
    fputs("<dt>Status</dt><dd>", out);
    status_badge(out, r->status);
    if (r->status_reason != NULL) {
        fputs(" ", out);
        html_esc(out, r->status_reason);
    }
    fputs("</dd>\n<dt>Verdict</dt><dd>", out);
    html_esc(out, r->verdict.text);
    fputs("</dd>\n<dt>Tags</dt><dd>", out);
    json_kv(out, r->tags);
    fputs("</dd>\n", out);
    kv(out, "Script", r->script, 1);
    kv(out, "Script SHA-256", r->script_hash, 1);
    fputs("<dt>Properties</dt><dd>", out);
    json_kv(out, r->properties);
    fputs("</dd>\n", out);
    snprintf(b, sizeof(b), "%lld", (long long)r->vus);
    kv(out, "VUs (--vus)", b, 0);
    if (r->req_duration_us < 0)
        kv(out, "Requested duration (--duration)", "not recorded", 0);
    else if (r->req_duration_us == 0)
        kv(out, "Requested duration (--duration)", "none", 0);
    else
        kv(out, "Requested duration (--duration)", html_duration(r->req_duration_us, b, sizeof(b)),
           0);
    if (r->req_ramp_up_us < 0)
        kv(out, "Ramp-up (--ramp-up)", "not recorded", 0);
    else if (r->req_ramp_up_us == 0)
        kv(out, "Ramp-up (--ramp-up)", "none", 0);
    else
        kv(out, "Ramp-up (--ramp-up)", html_duration(r->req_ramp_up_us, b, sizeof(b)), 0);
    if (r->req_runs < 0)
        snprintf(b, sizeof(b), "not recorded");
    else if (r->req_runs == 0)
        snprintf(b, sizeof(b), "no limit");
    else
        snprintf(b, sizeof(b), "%lld", (long long)r->req_runs);
    kv(out, "Runs per VU (--runs)", b, 0);
    kv(out, "Command line", r->command_line != NULL ? r->command_line : "not recorded",
       r->command_line != NULL);
    if (r->console_host != NULL) {
        char c[320];
        snprintf(c, sizeof(c), "%s, pid %lld", r->console_host, (long long)r->console_pid);
        kv(out, "Console", c, 0);
    }
    snprintf(b, sizeof(b), "%s (local)", html_time(r->started_us, t, sizeof(t)));
    kv(out, "Start", b, 0);
    kv(out, "Start (UTC)", r->started_at, 1);
    if (r->ended_us >= 0) {
        snprintf(b, sizeof(b), "%s (local)", html_time(r->ended_us, t, sizeof(t)));
        kv(out, "End", b, 0);
        kv(out, "End (UTC)", r->ended_at, 1);
    } else {
        kv(out, "End", "not recorded (the run did not end)", 0);
    }
    kv(out, "Duration of the load", html_duration(r->duration_us, b, sizeof(b)), 0);
    kv(out, "quern version", r->quern_version, 0);
    fputs("</dl>\n</section>\n", out);
}

static void report_write(FILE *out, const void *arg)
{
    const report_run *r = arg;

    report_html(out, r);
}

void report_html(FILE *out, const report_run *r)
{
    char title[256], b[64];

    snprintf(title, sizeof(title), "quern report: %s (run %lld)", r->name, (long long)r->id);
    html_head(out, title);
    fputs("<header>\n<h1>", out);
    html_esc(out, r->name);
    fprintf(out, " <span class=\"same\">· run %lld</span> ", (long long)r->id);
    runverdict_badge(out, r);
    fputs(" ", out);
    if (r->verdict.kind == RUNVERDICT_FAILED && strcmp(r->status, "completed") == 0)
        fputs("<span class=\"badge\">completed</span>", out); /* not green: it failed */
    else
        status_badge(out, r->status);
    fprintf(out, "</h1>\n<div class=\"sub\">started %s", html_time(r->started_us, b, sizeof(b)));
    fprintf(out, " · %s", html_duration(r->duration_us, b, sizeof(b)));
    fprintf(out, " · %lld VUs · ", (long long)r->vus);
    html_esc(out, r->script);
    fputs("</div>\n<nav><a href=\"#overview\">Overview</a><a href=\"#verdict\">Verdict</a>"
          "<a href=\"#charts\">Charts</a>"
          "<a href=\"#steps\">Steps</a><a href=\"#per-step\">Each step</a>"
          "<a href=\"#errors\">Errors</a><a href=\"#agents\">Injectors</a>"
          "<a href=\"#settings\">Settings</a></nav>\n</header>\n<main>\n",
          out);
    run_notice(out, r);
    summary_cards(out, r);
    runverdict_section(out, r);
    run_charts(out, r);
    steps_table(out, r);
    step_charts(out, r);
    errors_table(out, r);
    agents_table(out, r);
    settings(out, r);
    fputs("</main>\n<footer>quern " QUERN_VERSION
          " · from the results database alone · this page needs no network</footer>\n",
          out);
    html_foot(out);
}

/* ---------------------------------------------------------------- command */

static int usage_err(const char *fmt, const char *arg)
{
    fprintf(stderr, "quern report: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see quern help report)\n");
    return 2;
}

int report_main(int argc, char **argv)
{
    const char *path = NULL, *outp = NULL, *runarg = NULL;
    db_opts dbo = {0};
    db *d = NULL;
    int open_rc;
    report_run *r = NULL;
    int64_t id = 0;
    char err[1024], def[64];
    int rc = 3, missing = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            report_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--db") == 0 || strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage_err("%s needs a value", a);
            if (strcmp(a, "--db") == 0)
                path = argv[++i];
            else
                outp = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_err("unknown option %s", a);
        } else if (runarg != NULL) {
            return usage_err("one run only, got a second: %s", a);
        } else {
            runarg = a;
            id = report_parse_id(a);
            if (id <= 0)
                return usage_err("\"%s\" is not a run id (quern runs lists them)", a);
        }
    }
    dbo.path = path;
    path = db_opts_path(&dbo);
    if (path == NULL)
        return usage_err("%s", "--db none: no database to read");
    d = db_open_results("report", path, &open_rc);
    if (d == NULL)
        return open_rc;
    /* Best effort: report_run_load judges the row itself when this cannot write. */
    abandon_sweep(d, clock_wall_us(), err, sizeof(err));
    if (id == 0) {
        if (report_run_find(d, NULL, 0, &id, err, sizeof(err)) != 0) {
            fprintf(stderr, "quern report: %s: %s\n", path, err);
            goto out;
        }
        if (id == 0) {
            fprintf(stderr, "quern report: no run in %s\n", path);
            rc = 2;
            goto out;
        }
    }
    r = report_run_load(d, id, 0, &missing, err, sizeof(err));
    if (r == NULL) {
        fprintf(stderr, "quern report: %s: %s\n", path, err);
        rc = missing ? 2 : 3;
        goto out;
    }
    if (outp == NULL) {
        snprintf(def, sizeof(def), "quern-report-%lld.html", (long long)id);
        outp = def;
    }
    if (report_write_file(outp, report_write, r, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern report: %s\n", err);
        goto out;
    }
    printf("report of run %lld written to %s\n", (long long)id, outp);
    rc = 0;
out:
    report_run_free(r);
    db_close(d);
    return rc;
}
