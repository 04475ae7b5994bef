#include "store/catalog.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "store/query.h"

int catalog_find(db *d, const char *name, int64_t before, int64_t *id, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(sq,
                           "SELECT id FROM runs WHERE (?1 IS NULL OR name = ?1) "
                           "AND (?2 = 0 OR id < ?2) ORDER BY id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
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
    return query_stmt_done(sq, st, rc, err, errlen);
}

int catalog_complete(db *d, int64_t id, int *complete, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = query_stmt(sq, "SELECT status FROM runs WHERE id = ?", id, err, errlen);
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
    return query_stmt_done(sq, st, rc, err, errlen);
}

int64_t catalog_parse_id(const char *s)
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

int catalog_name(db *d, int64_t id, char **name, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int rc;

    *name = NULL;
    if (sqlite3_prepare_v2(sq, "SELECT name FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        *name = xstrdup(s != NULL ? s : "");
        rc = SQLITE_DONE;
    }
    return query_stmt_done(sq, st, rc, err, errlen);
}

/* What a run did over all its steps. */
typedef struct runs_sum {
    uint64_t count, errors;
    hist *h; /**< owned */
} runs_sum;

/* Adds the rows of st (count, errors, histogram BLOB) for run id into s. */
static int sum_rows(sqlite3_stmt *st, int64_t id, runs_sum *s)
{
    int rc;

    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const void *blob = sqlite3_column_blob(st, 2);
        s->count += (uint64_t)sqlite3_column_int64(st, 0);
        s->errors += (uint64_t)sqlite3_column_int64(st, 1);
        if (blob != NULL)
            hist_merge_encoded(s->h, blob, (size_t)sqlite3_column_bytes(st, 2));
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int catalog_list(db *d, const char *name, long limit, catalog_row **rows, size_t *n, char *err,
                 size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *list = NULL, *totals = NULL, *partial = NULL, *elapsed = NULL;
    runs_sum sum = {0, 0, NULL};
    catalog_row *out = NULL;
    size_t nout = 0;
    int rc = -1, step;

    if (sqlite3_prepare_v2(
            sq,
            "SELECT id, name, started_us, duration_us, vus, status, vus_peak, vu_pool FROM runs "
            "WHERE ?1 IS NULL OR name = ?1 ORDER BY id DESC LIMIT ?2",
            -1, &list, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq,
                           "SELECT count, err_tech + err_func, histogram FROM step_totals "
                           "WHERE run_id = ?",
                           -1, &totals, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq,
                           "SELECT count, err_tech + err_func, histogram FROM step_intervals "
                           "WHERE run_id = ?",
                           -1, &partial, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq,
                           "SELECT coalesce(sum(length_us), 0) FROM intervals "
                           "WHERE run_id = ?",
                           -1, &elapsed, NULL) != SQLITE_OK)
        goto sqlerr;
    if (name != NULL)
        sqlite3_bind_text(list, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(list, 2, limit > 0 ? limit : -1);
    sum.h = hist_new();
    while ((step = sqlite3_step(list)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(list, 0), dur;
        const char *status = (const char *)sqlite3_column_text(list, 5);
        catalog_row *r;

        sum.count = sum.errors = 0;
        hist_reset(sum.h);
        if (sum_rows(totals, id, &sum) != 0)
            goto sqlerr;
        if (sum.count == 0 && sum_rows(partial, id, &sum) != 0) /* not ended */
            goto sqlerr;
        if (sqlite3_column_type(list, 3) != SQLITE_NULL) {
            dur = sqlite3_column_int64(list, 3);
        } else {
            sqlite3_bind_int64(elapsed, 1, id);
            if (sqlite3_step(elapsed) != SQLITE_ROW)
                goto sqlerr;
            dur = sqlite3_column_int64(elapsed, 0);
            sqlite3_reset(elapsed);
        }
        out = xreallocarray(out, (nout + 1), sizeof(*out));
        r = &out[nout++];
        r->id = id;
        r->name = query_col_str(list, 1);
        r->status = xstrdup(status != NULL ? status : "?");
        r->started_us = sqlite3_column_int64(list, 2);
        r->vus = sqlite3_column_int64(list, 4);
        r->vus_peak =
            sqlite3_column_type(list, 6) != SQLITE_NULL ? sqlite3_column_int64(list, 6) : -1;
        r->vu_pool = sqlite3_column_int64(list, 7);
        r->duration_us = dur;
        r->count = sum.count;
        r->errors = sum.errors;
        r->p95_us = sum.count > 0 ? hist_percentile(sum.h, 95) : 0;
    }
    if (step != SQLITE_DONE)
        goto sqlerr;
    *rows = out;
    *n = nout;
    out = NULL;
    nout = 0;
    rc = 0;
    goto out;
sqlerr:
    err_set(err, errlen, "%s", sqlite3_errmsg(sq));
out:
    catalog_free(out, nout);
    hist_free(sum.h);
    sqlite3_finalize(list);
    sqlite3_finalize(totals);
    sqlite3_finalize(partial);
    sqlite3_finalize(elapsed);
    return rc;
}

void catalog_free(catalog_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        xfree(rows[i].name);
        xfree(rows[i].status);
    }
    xfree(rows);
}

int catalog_passed(db *d, const char *name, int64_t before, size_t max, int64_t *ids, size_t *n,
                   char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int rc;

    *n = 0;
    if (sqlite3_prepare_v2(sq,
                           "SELECT id FROM runs WHERE name = ?1 AND (?2 = 0 OR id < ?2) "
                           "AND status NOT IN ('running', 'abandoned') AND verdict = 'passed' "
                           "AND regressed IS NULL ORDER BY id DESC LIMIT ?3",
                           -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, before);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)max);
    for (;;) {
        rc = sqlite3_step(st);
        if (rc != SQLITE_ROW || *n >= max)
            break;
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    }
    return query_stmt_done(sq, st, rc == SQLITE_ROW ? SQLITE_DONE : rc, err, errlen);
}

int catalog_tagged(db *d, const char *key, const char *value, int64_t before, int64_t *out,
                   char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int rc;

    *out = 0;
    if (sqlite3_prepare_v2(sq,
                           "SELECT id FROM runs WHERE (?3 = 0 OR id < ?3) "
                           "AND status NOT IN ('running', 'abandoned') AND EXISTS (SELECT 1 FROM "
                           "json_each(runs.tags) WHERE key = ?1 AND (?2 IS NULL OR value = ?2)) "
                           "ORDER BY id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "cannot read the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (value != NULL)
        sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, before);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_DONE;
    }
    return query_stmt_done(sq, st, rc, err, errlen);
}

int catalog_mark_regressed(db *d, int64_t id, const char *why, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(sq, "UPDATE runs SET regressed = ?1 WHERE id = ?2", -1, &st, NULL) !=
        SQLITE_OK) {
        err_set(err, errlen, "cannot write the database: %s", sqlite3_errmsg(sq));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_text(st, 1, why, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, id);
    rc = sqlite3_step(st);
    return query_stmt_done(sq, st, rc, err, errlen);
}
