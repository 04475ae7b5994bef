/* injector — the injector's own load per second of a run; see injector.h. */
#include "store/injector.h"

#include <sqlite3.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

/* Seconds of one run read at most (a month of seconds). */
#define INJECTOR_ROWS_MAX (31u * 24 * 3600)

int injector_write(db *d, int64_t run_id, const injector_row *row, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int ok;

    ok = sqlite3_prepare_v3(sq,
                            "INSERT INTO injector_seconds (run_id, second, workers, saturated, "
                            "cpu_max_permille, lag_max_us) VALUES (?, ?, ?, ?, ?, ?) "
                            "ON CONFLICT (run_id, second) DO UPDATE SET "
                            "workers = workers + excluded.workers, "
                            "saturated = saturated + excluded.saturated, "
                            "cpu_max_permille = max(cpu_max_permille, excluded.cpu_max_permille), "
                            "lag_max_us = max(lag_max_us, excluded.lag_max_us)",
                            -1, 0, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)row->second);
        sqlite3_bind_int64(st, 3, row->workers);
        sqlite3_bind_int64(st, 4, row->saturated);
        sqlite3_bind_int64(st, 5, row->cpu_max_permille);
        sqlite3_bind_int64(st, 6, row->lag_max_us);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    if (!ok)
        err_set(err, errlen, "the injector's load of second %llu: %s",
                (unsigned long long)row->second, sqlite3_errmsg(sq));
    sqlite3_finalize(st);
    return ok ? 0 : -1;
}

int injector_load(sqlite3 *sq, int64_t run_id, injector_row **rows, size_t *n, char *err,
                  size_t errlen)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    int rc;

    *rows = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(sq,
                           "SELECT second, workers, saturated, cpu_max_permille, lag_max_us "
                           "FROM injector_seconds WHERE run_id = ? ORDER BY second LIMIT ?",
                           -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "the injector's load: %s", sqlite3_errmsg(sq));
        return -1;
    }
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, INJECTOR_ROWS_MAX);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        injector_row *r;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *rows = xreallocarray(*rows, cap, sizeof(**rows));
        }
        r = &(*rows)[(*n)++];
        r->second = (uint64_t)sqlite3_column_int64(st, 0);
        r->workers = (uint32_t)sqlite3_column_int64(st, 1);
        r->saturated = (uint32_t)sqlite3_column_int64(st, 2);
        r->cpu_max_permille = (uint32_t)sqlite3_column_int64(st, 3);
        r->lag_max_us = (uint32_t)sqlite3_column_int64(st, 4);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        err_set(err, errlen, "the injector's load: %s", sqlite3_errmsg(sq));
        xfree(*rows);
        *rows = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

void injector_shade(const injector_row *rows, size_t n, shade *sh)
{
    for (size_t i = 0; i < n; i++) {
        shade_sat f = {.saturated = rows[i].saturated,
                       .workers = rows[i].workers,
                       .cpu_pct = rows[i].cpu_max_permille / 10.0,
                       .lag_ms = rows[i].lag_max_us / 1000.0};
        if (rows[i].saturated > 0)
            shade_add(sh, rows[i].second, rows[i].second + 1, &f);
    }
}
