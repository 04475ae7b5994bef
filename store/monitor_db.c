/* monitor_db — the monitored hosts' figures in the results database; see monitor_db.h. */
#include "store/monitor_db.h"

#include <math.h>
#include <sqlite3.h>

#include "common/err.h"
#include "common/mem.h"

enum { ST_HOST, ST_PROBLEM, ST_SAMPLE, ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_N };

static const char *const sql[ST_N] = {
    [ST_HOST] = "INSERT OR REPLACE INTO monitor_hosts (run_id, host_index, host, url) "
                "VALUES (?, ?, ?, ?)",
    [ST_PROBLEM] = "UPDATE monitor_hosts SET problem = ? WHERE run_id = ? AND host_index = ? "
                   "AND problem IS NULL",
    [ST_SAMPLE] = "INSERT OR REPLACE INTO monitor_samples (run_id, host_index, metric, second, "
                  "value) VALUES (?, ?, ?, ?, ?)",
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
};

struct monitor_db {
    sqlite3 *sq;            /* borrowed from the db */
    sqlite3_stmt *st[ST_N]; /* owned */
};

monitor_db *monitor_db_new(db *d, char *err, size_t errlen)
{
    monitor_db *m = xcalloc(1, sizeof(*m));

    m->sq = db_sqlite(d);
    for (int i = 0; i < ST_N; i++)
        if (sqlite3_prepare_v2(m->sq, sql[i], -1, &m->st[i], NULL) != SQLITE_OK) {
            err_set(err, errlen, "monitor tables: %s", sqlite3_errmsg(m->sq));
            monitor_db_free(m);
            return NULL;
        }
    return m;
}

/* Runs a prepared statement once; 0, or -1 with err naming what. */
static int step(monitor_db *m, int i, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_step(m->st[i]);

    sqlite3_reset(m->st[i]);
    sqlite3_clear_bindings(m->st[i]);
    if (rc != SQLITE_DONE) {
        err_set(err, errlen, "cannot write %s: %s", what, sqlite3_errmsg(m->sq));
        return -1;
    }
    return 0;
}

int monitor_db_host(monitor_db *m, int64_t run_id, unsigned index, const char *host,
                    const char *url, char *err, size_t errlen)
{
    sqlite3_stmt *s = m->st[ST_HOST];

    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, index);
    sqlite3_bind_text(s, 3, host, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, url, -1, SQLITE_STATIC);
    return step(m, ST_HOST, "a monitored host", err, errlen);
}

int monitor_db_problem(monitor_db *m, int64_t run_id, unsigned index, const char *problem,
                       char *err, size_t errlen)
{
    sqlite3_stmt *s = m->st[ST_PROBLEM];

    sqlite3_bind_text(s, 1, problem, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, run_id);
    sqlite3_bind_int64(s, 3, index);
    return step(m, ST_PROBLEM, "a monitored host's problem", err, errlen);
}

int monitor_db_samples(monitor_db *m, int64_t run_id, unsigned index, int64_t second,
                       const char *const *names, const double *values, size_t n, char *err,
                       size_t errlen)
{
    sqlite3_stmt *s = m->st[ST_SAMPLE];

    if (step(m, ST_BEGIN, "a monitored host's figures", err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (isnan(values[i]))
            continue;
        sqlite3_bind_int64(s, 1, run_id);
        sqlite3_bind_int64(s, 2, index);
        sqlite3_bind_text(s, 3, names[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 4, second);
        sqlite3_bind_double(s, 5, values[i]);
        if (step(m, ST_SAMPLE, "a monitored host's figures", err, errlen) != 0) {
            step(m, ST_ROLLBACK, "a rollback", NULL, 0);
            return -1;
        }
    }
    return step(m, ST_COMMIT, "a monitored host's figures", err, errlen);
}

void monitor_db_free(monitor_db *m)
{
    if (m == NULL)
        return;
    for (int i = 0; i < ST_N; i++)
        sqlite3_finalize(m->st[i]);
    xfree(m);
}
