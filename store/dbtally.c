#include "store/dbtally.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

static int write_checks(sqlite3 *sq, int64_t run_id, const tally *t, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (sqlite3_prepare_v2(sq,
                           "INSERT OR REPLACE INTO checks (run_id, name, passes, fails) "
                           "VALUES (?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        goto out;
    for (size_t i = 0; i < t->nchecks; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, t->checks[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)t->checks[i].passes);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)t->checks[i].fails);
        if (sqlite3_step(st) != SQLITE_DONE)
            goto out;
        sqlite3_reset(st);
    }
    rc = 0;
out:
    if (rc != 0)
        err_set(err, errlen, "cannot record the checks: %s", sqlite3_errmsg(sq));
    sqlite3_finalize(st);
    return rc;
}

/* Binds m's columns 4.. (total, rate, value, count, mean, min, p50, p90,
 * p95, p99, max, histogram); buf is cap bytes of scratch for the histogram. */
static void bind_metric(sqlite3_stmt *st, const tally_metric *m, double elapsed_s, uint8_t *buf,
                        size_t cap)
{
    static const double pcts[] = {50, 90, 95, 99};
    size_t n;

    for (int i = 4; i <= 15; i++)
        sqlite3_bind_null(st, i);
    switch (m->kind) {
    case TALLY_COUNTER:
        sqlite3_bind_double(st, 4, m->sum);
        sqlite3_bind_double(st, 5, elapsed_s > 0 ? m->sum / elapsed_s : 0.0);
        break;
    case TALLY_GAUGE:
        if (!m->has_value)
            break;
        sqlite3_bind_double(st, 6, m->value);
        sqlite3_bind_double(st, 9, m->min);
        sqlite3_bind_double(st, 14, m->max);
        break;
    case TALLY_TREND:
        sqlite3_bind_int64(st, 7, (sqlite3_int64)hist_count(m->h));
        sqlite3_bind_double(st, 8, tally_trend_stat(m, "mean", 0));
        sqlite3_bind_double(st, 9, tally_trend_stat(m, "min", 0));
        for (int i = 0; i < 4; i++)
            sqlite3_bind_double(st, 10 + i, tally_trend_stat(m, NULL, pcts[i]));
        sqlite3_bind_double(st, 14, tally_trend_stat(m, "max", 0));
        n = hist_encode(m->h, buf, cap);
        if (n > 0)
            sqlite3_bind_blob(st, 15, buf, (int)n, SQLITE_TRANSIENT);
        break;
    }
}

static int write_metrics(sqlite3 *sq, int64_t run_id, const tally *t, double elapsed_s, char *err,
                         size_t errlen)
{
    sqlite3_stmt *st = NULL;
    size_t cap = hist_encoded_size_max();
    uint8_t *buf = NULL;
    int rc = -1;

    if (sqlite3_prepare_v2(
            sq,
            "INSERT OR REPLACE INTO metrics (run_id, name, kind, total, rate, value, "
            "count, mean, min, p50, p90, p95, p99, max, histogram) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            -1, &st, NULL) != SQLITE_OK)
        goto out;
    buf = xmalloc(cap);
    for (size_t i = 0; i < t->nmetrics; i++) {
        const tally_metric *m = &t->metrics[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, tally_kind_name(m->kind), -1, SQLITE_STATIC);
        bind_metric(st, m, elapsed_s, buf, cap);
        if (sqlite3_step(st) != SQLITE_DONE)
            goto out;
        sqlite3_reset(st);
    }
    rc = 0;
out:
    if (rc != 0)
        err_set(err, errlen, "cannot record the metrics: %s", sqlite3_errmsg(sq));
    sqlite3_finalize(st);
    xfree(buf);
    return rc;
}

int dbtally_write(sqlite3 *sq, int64_t run_id, const tally *t, double elapsed_s, char *err,
                  size_t errlen)
{
    if (write_checks(sq, run_id, t, err, errlen) != 0)
        return -1;
    return write_metrics(sq, run_id, t, elapsed_s, err, errlen);
}

static int read_checks(sqlite3 *sq, int64_t run_id, dbtally *out)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(sq,
                           "SELECT name, passes, fails FROM checks WHERE run_id = ? ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && out->nchecks < TALLY_CHECKS_MAX) {
        tally_check *c;
        out->checks = xreallocarray(out->checks, out->nchecks + 1, sizeof(*out->checks));
        c = &out->checks[out->nchecks++];
        snprintf(c->name, sizeof(c->name), "%s", (const char *)sqlite3_column_text(st, 0));
        c->passes = (uint64_t)sqlite3_column_int64(st, 1);
        c->fails = (uint64_t)sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static int read_metrics(sqlite3 *sq, int64_t run_id, dbtally *out)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(sq,
                           "SELECT name, kind, total, rate, value, count, mean, min, p50, p90, "
                           "p95, p99, max FROM metrics WHERE run_id = ? ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && out->nmetrics < TALLY_METRICS_MAX) {
        dbtally_metric *m;
        out->metrics = xreallocarray(out->metrics, out->nmetrics + 1, sizeof(*out->metrics));
        m = &out->metrics[out->nmetrics++];
        memset(m, 0, sizeof(*m));
        snprintf(m->name, sizeof(m->name), "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(m->kind, sizeof(m->kind), "%s", (const char *)sqlite3_column_text(st, 1));
        m->total = sqlite3_column_double(st, 2);
        m->rate = sqlite3_column_double(st, 3);
        m->has_value = sqlite3_column_type(st, 4) != SQLITE_NULL;
        m->value = sqlite3_column_double(st, 4);
        m->count = (uint64_t)sqlite3_column_int64(st, 5);
        m->mean = sqlite3_column_double(st, 6);
        m->min = sqlite3_column_double(st, 7);
        m->p50 = sqlite3_column_double(st, 8);
        m->p90 = sqlite3_column_double(st, 9);
        m->p95 = sqlite3_column_double(st, 10);
        m->p99 = sqlite3_column_double(st, 11);
        m->max = sqlite3_column_double(st, 12);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int dbtally_read(sqlite3 *sq, int64_t run_id, dbtally *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    if (read_checks(sq, run_id, out) == 0 && read_metrics(sq, run_id, out) == 0)
        return 0;
    err_set(err, errlen, "cannot read the checks and metrics: %s", sqlite3_errmsg(sq));
    dbtally_free(out);
    return -1;
}

void dbtally_free(dbtally *out)
{
    xfree(out->checks);
    xfree(out->metrics);
    memset(out, 0, sizeof(*out));
}
