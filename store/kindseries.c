/* kindseries — a run's errors by kind from the database; see kindseries.h. */
#include "store/kindseries.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "store/query.h"

static void row_kind(sqlite3_stmt *st, kindseries *ks)
{
    kindseries_row *k;

    ks->rows = xreallocarray(ks->rows, (ks->n + 1), sizeof(*ks->rows));
    k = &ks->rows[ks->n++];
    k->step = sqlite3_column_int64(st, 0);
    k->cls = query_col_str(st, 1);
    k->code = sqlite3_column_int64(st, 2);
    k->message = query_col_str(st, 3);
    k->count = query_col_u64(st, 4);
    k->first_ms = sqlite3_column_int64(st, 5);
    k->last_ms = sqlite3_column_int64(st, 6);
    k->url = query_col_str(st, 7);
    k->status = sqlite3_column_int64(st, 8);
    k->body = query_col_str(st, 9);
    k->trace_id = sqlite3_column_type(st, 10) != SQLITE_NULL ? query_col_str(st, 10) : NULL;
    k->ps = xcalloc(ks->npts ? ks->npts : 1, sizeof(*k->ps));
}

/* The row of this key, NULL when the totals have none (a kind a second
 * had that the run's bounded totals counted as other). */
static kindseries_row *find(kindseries *ks, int64_t step, const char *cls, int64_t code,
                            const char *msg)
{
    for (size_t i = 0; i < ks->n; i++) {
        kindseries_row *k = &ks->rows[i];
        if (k->step == step && k->code == code && strcmp(k->cls, cls) == 0 &&
            strcmp(k->message, msg) == 0)
            return k;
    }
    return NULL;
}

/* A run whose end was not written (the console died) has no totals: its
 * kinds are summed from its seconds, times to the second, no example. */
static int from_seconds(sqlite3 *sq, int64_t id, int64_t started_us, kindseries *ks, char *err,
                        size_t errlen)
{
    char sql[512];
    sqlite3_stmt *st;
    int rc;

    snprintf(sql, sizeof(sql),
             "SELECT step_index, class, code, message, sum(count), "
             "%lld + 1000 * min(second), %lld + 1000 * max(second), '', 0, '', NULL "
             "FROM error_kind_seconds WHERE run_id = ? GROUP BY step_index, class, code, message "
             "ORDER BY step_index, sum(count) DESC, min(second)",
             (long long)(started_us / 1000), (long long)(started_us / 1000));
    st = query_stmt(sq, sql, id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        row_kind(st, ks);
    return query_stmt_done(sq, st, rc, err, errlen);
}

int kindseries_load(sqlite3 *sq, int64_t id, size_t npts, unsigned width_s, int64_t started_us,
                    kindseries *ks, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc;

    memset(ks, 0, sizeof(*ks));
    ks->npts = npts;
    st = query_stmt(sq,
                    "SELECT step_index, class, code, message, count, first_ms, last_ms, url, "
                    "status, body, trace_id FROM error_kinds WHERE run_id = ? "
                    "ORDER BY step_index, count DESC, first_ms",
                    id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        row_kind(st, ks);
    if (query_stmt_done(sq, st, rc, err, errlen) != 0)
        return -1;
    if (ks->n == 0 && from_seconds(sq, id, started_us, ks, err, errlen) != 0)
        return -1;
    if (ks->n == 0 || npts == 0)
        return 0;
    st = query_stmt(sq,
                    "SELECT step_index, class, code, message, second, count "
                    "FROM error_kind_seconds WHERE run_id = ?",
                    id, err, errlen);
    if (st == NULL)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *cls = (const char *)sqlite3_column_text(st, 1);
        const char *msg = (const char *)sqlite3_column_text(st, 3);
        int64_t sec = sqlite3_column_int64(st, 4);
        kindseries_row *k;
        size_t p;
        if (cls == NULL || msg == NULL || sec < 0)
            continue;
        k = find(ks, sqlite3_column_int64(st, 0), cls, sqlite3_column_int64(st, 2), msg);
        if (k == NULL)
            continue;
        p = (size_t)((uint64_t)sec / (width_s ? width_s : 1));
        if (p >= npts)
            p = npts - 1;
        k->ps[p] += (double)query_col_u64(st, 5) / (double)(width_s ? width_s : 1);
    }
    return query_stmt_done(sq, st, rc, err, errlen);
}

void kindseries_free(kindseries *ks)
{
    for (size_t i = 0; i < ks->n; i++) {
        kindseries_row *k = &ks->rows[i];
        xfree(k->cls);
        xfree(k->message);
        xfree(k->url);
        xfree(k->body);
        xfree(k->trace_id);
        xfree(k->ps);
    }
    xfree(ks->rows);
    memset(ks, 0, sizeof(*ks));
}
