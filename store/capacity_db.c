/* capacity_db — a run's capacity search in the results database; see capacity_db.h. */
#include "store/capacity_db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

static int fail_sql(sqlite3 *sq, const char *what, char *err, size_t errlen)
{
    err_set(err, errlen, "%s: %s", what, sqlite3_errmsg(sq));
    return -1;
}

/* Binds v to column i (an integer when integral), NULL when it is not
 * known (below 0). */
static void bind_known(sqlite3_stmt *st, int i, double v, int integral)
{
    if (v < 0)
        sqlite3_bind_null(st, i);
    else if (integral)
        sqlite3_bind_int64(st, i, (sqlite3_int64)v);
    else
        sqlite3_bind_double(st, i, v);
}

static int write_steps(sqlite3 *sq, int64_t run_id, const capacity_db_run *c, char *err,
                       size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (sqlite3_prepare_v2(
            sq,
            "INSERT INTO capacity_steps (run_id, step, load, t0_us, t1_us, "
            "from_us, seconds, count, tps, p50_ms, p95_ms, p99_ms, errors_pct, "
            "passed, failed, injector_saturated, injector, runs_s, inits, init_waits) VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            -1, &st, NULL) != SQLITE_OK)
        return fail_sql(sq, "capacity steps", err, errlen);
    for (size_t i = 0; i < c->nsteps; i++) {
        const capacity_db_step *s = &c->steps[i];
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_double(st, 3, s->load);
        sqlite3_bind_int64(st, 4, s->t0_us);
        sqlite3_bind_int64(st, 5, s->t1_us);
        sqlite3_bind_int64(st, 6, s->from_us);
        sqlite3_bind_int64(st, 7, s->seconds);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)s->count);
        sqlite3_bind_double(st, 9, s->tps);
        sqlite3_bind_double(st, 10, s->p50_ms);
        sqlite3_bind_double(st, 11, s->p95_ms);
        sqlite3_bind_double(st, 12, s->p99_ms);
        sqlite3_bind_double(st, 13, s->errors_pct);
        sqlite3_bind_int(st, 14, s->passed ? 1 : 0);
        if (s->failed[0] != '\0')
            sqlite3_bind_text(st, 15, s->failed, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 15);
        sqlite3_bind_int(st, 16, s->injector_saturated ? 1 : 0);
        if (s->injector[0] != '\0')
            sqlite3_bind_text(st, 17, s->injector, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 17);
        bind_known(st, 18, s->runs_s, 0);
        bind_known(st, 19, (double)s->inits, 1);
        bind_known(st, 20, (double)s->init_waits, 1);
        if (sqlite3_step(st) != SQLITE_DONE) {
            fail_sql(sq, "capacity steps", err, errlen);
            goto out;
        }
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

int capacity_db_write(db *d, int64_t run_id, const capacity_db_run *c, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int ok;

    if (sqlite3_exec(sq, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail_sql(sq, "capacity", err, errlen);
    ok = sqlite3_prepare_v2(sq,
                            "INSERT OR REPLACE INTO capacity (run_id, found, value, unit, "
                            "settle_us, limited_by) VALUES (?, ?, ?, ?, ?, ?)",
                            -1, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int(st, 2, c->found ? 1 : 0);
        if (c->found)
            sqlite3_bind_double(st, 3, c->value);
        else
            sqlite3_bind_null(st, 3);
        sqlite3_bind_text(st, 4, c->unit, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, c->settle_us);
        if (c->limited_by[0] != '\0')
            sqlite3_bind_text(st, 6, c->limited_by, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 6);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    if (!ok)
        fail_sql(sq, "capacity", err, errlen);
    sqlite3_finalize(st);
    if (ok)
        ok = write_steps(sq, run_id, c, err, errlen) == 0;
    if (ok && sqlite3_exec(sq, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        ok = fail_sql(sq, "capacity", err, errlen) == 0;
    if (!ok) {
        sqlite3_exec(sq, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

int capacity_db_read(sqlite3 *sq, int64_t run_id, capacity_db_run *out, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (sqlite3_prepare_v2(sq,
                           "SELECT found, value, unit, settle_us, limited_by FROM capacity WHERE "
                           "run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return fail_sql(sq, "capacity", err, errlen);
    sqlite3_bind_int64(st, 1, run_id);
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? 0 : fail_sql(sq, "capacity", err, errlen);
    }
    out->found = sqlite3_column_int(st, 0);
    out->value = sqlite3_column_double(st, 1);
    snprintf(out->unit, sizeof(out->unit), "%s", (const char *)sqlite3_column_text(st, 2));
    out->settle_us = sqlite3_column_int64(st, 3);
    if (sqlite3_column_type(st, 4) == SQLITE_TEXT)
        snprintf(out->limited_by, sizeof(out->limited_by), "%s",
                 (const char *)sqlite3_column_text(st, 4));
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(sq,
                           "SELECT load, t0_us, t1_us, from_us, seconds, count, tps, p50_ms, "
                           "p95_ms, p99_ms, errors_pct, passed, failed, injector_saturated, "
                           "injector, runs_s, inits, init_waits FROM capacity_steps "
                           "WHERE run_id = ? ORDER BY step LIMIT ?",
                           -1, &st, NULL) != SQLITE_OK)
        return fail_sql(sq, "capacity steps", err, errlen);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, CAPACITY_DB_STEPS_MAX);
    out->steps = xcalloc(CAPACITY_DB_STEPS_MAX, sizeof(*out->steps));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        capacity_db_step *s = &out->steps[out->nsteps++];
        const unsigned char *f = sqlite3_column_text(st, 12);
        s->load = sqlite3_column_double(st, 0);
        s->t0_us = sqlite3_column_int64(st, 1);
        s->t1_us = sqlite3_column_int64(st, 2);
        s->from_us = sqlite3_column_int64(st, 3);
        s->seconds = (unsigned)sqlite3_column_int64(st, 4);
        s->count = (uint64_t)sqlite3_column_int64(st, 5);
        s->tps = sqlite3_column_double(st, 6);
        s->p50_ms = sqlite3_column_double(st, 7);
        s->p95_ms = sqlite3_column_double(st, 8);
        s->p99_ms = sqlite3_column_double(st, 9);
        s->errors_pct = sqlite3_column_double(st, 10);
        s->passed = sqlite3_column_int(st, 11);
        snprintf(s->failed, sizeof(s->failed), "%s", f != NULL ? (const char *)f : "");
        s->injector_saturated = sqlite3_column_int(st, 13);
        f = sqlite3_column_text(st, 14);
        snprintf(s->injector, sizeof(s->injector), "%s", f != NULL ? (const char *)f : "");
        s->runs_s = sqlite3_column_type(st, 15) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 15);
        s->inits = sqlite3_column_type(st, 16) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 16);
        s->init_waits =
            sqlite3_column_type(st, 17) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 17);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        capacity_db_free(out);
        return fail_sql(sq, "capacity steps", err, errlen);
    }
    return 1;
}

void capacity_db_free(capacity_db_run *c)
{
    xfree(c->steps);
    c->steps = NULL;
    c->nsteps = 0;
}

int capacity_db_windows(sqlite3 *sq, int64_t run_id, capacity_db_window *out, size_t max, size_t *n,
                        char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = SQLITE_DONE;

    *n = 0;
    if (sqlite3_prepare_v2(sq,
                           "SELECT step, load, t0_us, t1_us, from_us, passed FROM capacity_steps "
                           "WHERE run_id = ? ORDER BY step",
                           -1, &st, NULL) != SQLITE_OK)
        return fail_sql(sq, "capacity steps", err, errlen);
    sqlite3_bind_int64(st, 1, run_id);
    while (*n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        capacity_db_window *w = &out[(*n)++];
        w->step = (unsigned)sqlite3_column_int64(st, 0);
        w->load = sqlite3_column_double(st, 1);
        w->t0_us = sqlite3_column_int64(st, 2);
        w->t1_us = sqlite3_column_int64(st, 3);
        w->from_us = sqlite3_column_int64(st, 4);
        w->passed = sqlite3_column_int(st, 5);
    }
    if (*n < max && rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        return fail_sql(sq, "capacity steps", err, errlen);
    }
    sqlite3_finalize(st);
    return 0;
}
