#include "store/series.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"

/* A final point shorter than this fraction of its width is folded into the
 * one before it. */
#define FOLD_FRACTION 0.5

static double *nan_array(size_t n)
{
    double *a = xmalloc((n > 0 ? n : 1) * sizeof(*a));

    for (size_t i = 0; i < n; i++)
        a[i] = NAN;
    return a;
}

void series_init(query_series *s, size_t n)
{
    s->rps = nan_array(n);
    s->ok_ps = nan_array(n);
    s->tech_ps = nan_array(n);
    s->func_ps = nan_array(n);
    s->mean_ms = nan_array(n);
    s->p50_ms = nan_array(n);
    s->p95_ms = nan_array(n);
    s->p99_ms = nan_array(n);
    s->svc_p50_ms = nan_array(n);
    s->svc_p95_ms = nan_array(n);
    s->svc_p99_ms = nan_array(n);
    s->msg_sent_ps = nan_array(n);
    s->msg_recv_ps = nan_array(n);
}

void series_free(query_series *s)
{
    xfree(s->rps);
    xfree(s->ok_ps);
    xfree(s->tech_ps);
    xfree(s->func_ps);
    xfree(s->mean_ms);
    xfree(s->p50_ms);
    xfree(s->p95_ms);
    xfree(s->p99_ms);
    xfree(s->svc_p50_ms);
    xfree(s->svc_p95_ms);
    xfree(s->svc_p99_ms);
    xfree(s->msg_sent_ps);
    xfree(s->msg_recv_ps);
}

/* a + b (both >= 0), INT64_MAX past it: a database written by hand or
 * damaged may hold any length_us, and a sum of them must not overflow. */
static int64_t add_len(int64_t a, int64_t b)
{
    int64_t sum;

    return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

/* Per-point lengths and active VUs from the intervals; chooses npts. */
static int load_intervals(sqlite3 *sq, query_run *r, uint64_t nsec, int64_t **len_us, char *err,
                          size_t errlen)
{
    sqlite3_stmt *st;
    int64_t *len;
    int rc;

    r->npts = (size_t)((nsec + r->width_s - 1) / r->width_s);
    len = xcalloc(r->npts > 0 ? r->npts : 1, sizeof(*len));
    *len_us = len;
    r->vus_ts = nan_array(r->npts);
    st = query_stmt(sq, "SELECT second, length_us, active_vus FROM intervals WHERE run_id = ?",
                    r->id, err, errlen);
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
        len[p] = add_len(len[p], l);
        r->elapsed_us = add_len(r->elapsed_us, l);
        if (isnan(r->vus_ts[p]) || vus > r->vus_ts[p])
            r->vus_ts[p] = vus;
    }
    if (query_stmt_done(sq, st, rc, err, errlen) != 0)
        return -1;
    /* Fold a short final point into the one before. */
    if (r->npts > 1 && (double)len[r->npts - 1] < FOLD_FRACTION * r->width_s * 1e6) {
        size_t last = r->npts - 1;
        len[last - 1] = add_len(len[last - 1], len[last]);
        if (!isnan(r->vus_ts[last]) &&
            (isnan(r->vus_ts[last - 1]) || r->vus_ts[last] > r->vus_ts[last - 1]))
            r->vus_ts[last - 1] = r->vus_ts[last];
        r->npts--;
    }
    return 0;
}

/* Per-point counters of one step (or of all), before they become rates. */
typedef struct acc {
    hist *h;   /**< owned: the current point's merged histogram */
    hist *svc; /**< owned: the same of the service times */
    int touched;
} acc;

/* Sets the percentiles of point p from a->h and empties it. */
static void acc_flush(acc *a, query_series *s, size_t p)
{
    if (!a->touched)
        return;
    if (hist_count(a->h) > 0) {
        s->mean_ms[p] = hist_mean(a->h) / 1000.0;
        s->p50_ms[p] = (double)hist_percentile(a->h, 50) / 1000.0;
        s->p95_ms[p] = (double)hist_percentile(a->h, 95) / 1000.0;
        s->p99_ms[p] = (double)hist_percentile(a->h, 99) / 1000.0;
        s->svc_p50_ms[p] = (double)hist_percentile(a->svc, 50) / 1000.0;
        s->svc_p95_ms[p] = (double)hist_percentile(a->svc, 95) / 1000.0;
        s->svc_p99_ms[p] = (double)hist_percentile(a->svc, 99) / 1000.0;
    }
    hist_reset(a->h);
    hist_reset(a->svc);
    a->touched = 0;
}

/* Turns the counts of s (held in its rate arrays) into rates per second. */
static void to_rates(query_series *s, size_t npts, const int64_t *len_us, unsigned width_s)
{
    for (size_t p = 0; p < npts; p++) {
        double secs = len_us[p] > 0 ? (double)len_us[p] / 1e6 : (double)width_s;
        double *arr[6] = {s->rps, s->ok_ps, s->tech_ps, s->func_ps, s->msg_sent_ps, s->msg_recv_ps};
        for (int k = 0; k < 6; k++)
            arr[k][p] = isnan(arr[k][p]) ? 0.0 : arr[k][p] / secs;
    }
}

static void add_count(double *a, size_t p, double v)
{
    a[p] = isnan(a[p]) ? v : a[p] + v;
}

/* The per-second rows: counts summed and histograms merged per point, for
 * each step and for all steps. */
static int load_series(sqlite3 *sq, query_run *r, uint64_t nsec, const int64_t *len_us, char *err,
                       size_t errlen)
{
    acc *accs = xcalloc(r->nsteps + 1, sizeof(*accs));
    sqlite3_stmt *st = NULL;
    size_t cur = 0;
    int rc = -1, step;

    series_init(&r->all.ts, r->npts);
    for (size_t i = 0; i < r->nsteps; i++)
        series_init(&r->steps[i].ts, r->npts);
    for (size_t i = 0; i <= r->nsteps; i++) {
        accs[i].h = hist_new();
        accs[i].svc = hist_new();
    }
    st = query_stmt(sq,
                    "SELECT second, step_index, count, err_tech, err_func, histogram, "
                    "service_histogram, ws_sent, ws_recv FROM step_intervals WHERE run_id = ? "
                    "ORDER BY second, step_index",
                    r->id, err, errlen);
    if (st == NULL)
        goto out;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t sec = sqlite3_column_int64(st, 0), si = sqlite3_column_int64(st, 1);
        double n = (double)query_col_u64(st, 2), et = (double)query_col_u64(st, 3),
               ef = (double)query_col_u64(st, 4);
        double ok = n - et - ef > 0 ? n - et - ef : 0;
        size_t p;
        query_series *ss[2];
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
            add_count(ss[k]->msg_sent_ps, p, (double)query_col_u64(st, 7));
            add_count(ss[k]->msg_recv_ps, p, (double)query_col_u64(st, 8));
            query_col_hist(st, 5, as[k]->h);
            /* NULL: the service times are the response times. */
            query_col_hist(st, sqlite3_column_type(st, 6) == SQLITE_NULL ? 5 : 6, as[k]->svc);
            as[k]->touched = 1;
        }
    }
    if (step != SQLITE_DONE) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
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
    for (size_t i = 0; i <= r->nsteps; i++) {
        hist_free(accs[i].h);
        hist_free(accs[i].svc);
    }
    xfree(accs);
    return rc;
}

/* Whole-run figures per step: step_totals, or the intervals summed for the
 * steps without totals (a run that did not end). Then all steps merged. */
int series_load(struct sqlite3 *sq, query_run *r, uint64_t nsec, char *err, size_t errlen)
{
    int64_t *len_us = NULL;
    int rc;

    rc = load_intervals(sq, r, nsec, &len_us, err, errlen) != 0 ||
                 load_series(sq, r, nsec, len_us, err, errlen) != 0
             ? -1
             : 0;
    xfree(len_us);
    return rc;
}
