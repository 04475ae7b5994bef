/* little — Little's law per second of a run; see little.h. */
#include "store/little.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

/* Seconds of one run read at most (a month of seconds). */
#define LITTLE_ROWS_MAX (31u * 24 * 3600)

int little_write(db *d, int64_t run_id, const little_row *row, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int ok;

    /* prepared once and kept by SQLite's cache of this connection's text */
    ok = sqlite3_prepare_v3(sq,
                            "INSERT INTO little (run_id, second, length_us, vu_us, runs, run_us, "
                            "wait_us) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, second) "
                            "DO UPDATE SET vu_us = vu_us + excluded.vu_us, runs = runs + "
                            "excluded.runs, run_us = run_us + excluded.run_us, wait_us = wait_us "
                            "+ excluded.wait_us",
                            -1, 0, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)row->second);
        sqlite3_bind_int64(st, 3, row->length_us);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)row->vu_us);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)row->runs);
        sqlite3_bind_int64(st, 6, (sqlite3_int64)row->run_us);
        sqlite3_bind_int64(st, 7, (sqlite3_int64)row->wait_us);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    if (!ok)
        err_set(err, errlen, "Little's law of second %llu: %s", (unsigned long long)row->second,
                sqlite3_errmsg(sq));
    sqlite3_finalize(st);
    return ok ? 0 : -1;
}

int little_load(sqlite3 *sq, int64_t run_id, little_row **rows, size_t *n, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    int rc;

    *rows = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(sq,
                           "SELECT second, length_us, vu_us, runs, run_us, wait_us FROM little "
                           "WHERE run_id = ? ORDER BY second LIMIT ?",
                           -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "Little's law: %s", sqlite3_errmsg(sq));
        return -1;
    }
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, LITTLE_ROWS_MAX);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        little_row *r;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *rows = xreallocarray(*rows, cap, sizeof(**rows));
        }
        r = &(*rows)[(*n)++];
        r->second = (uint64_t)sqlite3_column_int64(st, 0);
        r->length_us = sqlite3_column_int64(st, 1);
        r->vu_us = (uint64_t)sqlite3_column_int64(st, 2);
        r->runs = (uint64_t)sqlite3_column_int64(st, 3);
        r->run_us = (uint64_t)sqlite3_column_int64(st, 4);
        r->wait_us = (uint64_t)sqlite3_column_int64(st, 5);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        err_set(err, errlen, "Little's law: %s", sqlite3_errmsg(sq));
        xfree(*rows);
        *rows = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

void little_judge(const little_row *row, little_point *out)
{
    double len_s = row->length_us > 0 ? (double)row->length_us / 1e6 : 1.0;

    memset(out, 0, sizeof(*out));
    out->n = (double)row->vu_us / 1e6 / len_s;
    out->x = (double)row->runs / len_s;
    if (row->runs > 0) {
        out->r_s = (double)row->run_us / 1e6 / (double)row->runs;
        out->z_s = (double)row->wait_us / 1e6 / (double)row->runs;
    }
    out->xrz = out->x * (out->r_s + out->z_s);
    if (out->n < 0.5 && row->runs == 0) {
        out->holds = -1;
        return;
    }
    out->holds = fabs(out->n - out->xrz) <= fmax(LITTLE_TOL * out->n, LITTLE_ABS_VUS);
}
