/* Over 700 lines: every write shares struct db's prepared statements, transactions and error path.
 */
#include "store/db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "common/redact.h"
#include "common/version.h"
#include "store/run_row.h"
#include "store/dbtally.h"
#include "store/schema.h"

#define DB_BUSY_TIMEOUT_MS 5000

/* Statements prepared once at open and reused. */
enum db_stmt {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_INTERVAL,
    ST_STEP_INTERVAL,
    ST_ERROR,
    ST_SCEN,
    ST_AGENT,
    ST_TOTAL,
    ST_END,
    ST_AGENTS_END,
    ST_TOUCH,
    ST_SLOW,
    ST_KIND,
    ST_KIND_SECOND,
    ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_INTERVAL] = "INSERT INTO intervals (run_id, second, start_us, length_us, active_vus, "
                    "paused_us) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, second) DO NOTHING",
    [ST_STEP_INTERVAL] = "INSERT INTO step_intervals (run_id, second, step_index, count, "
                         "err_tech, err_func, bytes_in, bytes_out, sum_dns, sum_connect, "
                         "sum_tls, sum_ttfb, new_conns, histogram, service_histogram, requests, "
                         "ws_sent, ws_recv, ws_bytes_sent, ws_bytes_recv) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_ERROR] = "INSERT INTO errors (run_id, step_index, kind, sample, count, first_second, "
                 "last_second, trace_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (run_id, step_index, kind) DO UPDATE SET "
                 "count = count + excluded.count, "
                 "first_second = min(first_second, excluded.first_second), "
                 "last_second = max(last_second, excluded.last_second), "
                 "trace_id = CASE WHEN sample = '' THEN excluded.trace_id ELSE trace_id END, "
                 "sample = CASE WHEN sample = '' THEN excluded.sample ELSE sample END",
    [ST_SLOW] = "INSERT OR REPLACE INTO slowest (run_id, step_index, rank, latency_us, start_us, "
                "vu, trace_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
    [ST_SCEN] = "UPDATE scenario_totals SET runs = runs + ?, missed_pacing = missed_pacing + ?, "
                "arr_scheduled = arr_scheduled + ?, arr_started = arr_started + ?, "
                "arr_late = arr_late + ?, arr_dropped = arr_dropped + ?, "
                "arr_init_waits = arr_init_waits + ?, arr_inits = arr_inits + ? "
                "WHERE run_id = ? AND scen_index = ?",
    [ST_AGENT] = "INSERT OR REPLACE INTO agents (run_id, agent_index, name, host, workers, vus, "
                 "lost, status, requests, errors, vus_peak) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                 "?)",
    [ST_TOTAL] = "INSERT OR REPLACE INTO step_totals (run_id, step_index, count, err_tech, "
                 "err_func, bytes_in, bytes_out, sum_dns, sum_connect, sum_tls, sum_ttfb, "
                 "new_conns, tps, mean_us, min_us, p50_us, p90_us, p95_us, p99_us, max_us, "
                 "histogram, service_histogram, requests, ws_sent, ws_recv, ws_bytes_sent, "
                 "ws_bytes_recv) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                 "?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_END] = "UPDATE runs SET status = ?1, ended_at = ?2, ended_us = ?3, duration_us = ?4, "
               "status_reason = ?5, updated_us = ?6 WHERE id = ?7",
    /* A live console writing: a row wrongly marked abandoned runs again. */
    [ST_TOUCH] = "UPDATE runs SET updated_us = ?1, "
                 "status_reason = CASE status WHEN 'abandoned' THEN NULL ELSE status_reason END, "
                 "status = CASE status WHEN 'abandoned' THEN 'running' ELSE status END "
                 "WHERE id = ?2",
    [ST_AGENTS_END] = "UPDATE agents SET status = ? WHERE run_id = ? AND status = 'running'",
    [ST_KIND] = "INSERT OR REPLACE INTO error_kinds (run_id, step_index, class, code, message, "
                "count, first_ms, last_ms, url, status, body, trace_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_KIND_SECOND] = "INSERT INTO error_kind_seconds (run_id, second, step_index, class, code, "
                       "message, count) VALUES (?, ?, ?, ?, ?, ?, ?) "
                       "ON CONFLICT (run_id, step_index, second, class, code, message) "
                       "DO UPDATE SET count = count + excluded.count",
};

struct db {
    sqlite3 *sq;                /**< owned */
    char *path;                 /**< owned */
    sqlite3_stmt *st[ST_COUNT]; /**< owned */
    uint8_t *buf;               /**< owned: hist_encoded_size_max() bytes */
    uint8_t *svcbuf;            /**< owned: the same, for service times bound beside buf */
    size_t bufcap;
    int fail_rc; /**< extended SQLite code of the last failure set_err saw */
};

/* "FILE: what: cause", the cause in plain words first for the failures a
 * user must act on (a full disk, an I/O error), with SQLite's own words. */
static void set_err(db *d, char *err, size_t errlen, const char *what)
{
    int rc = sqlite3_extended_errcode(d->sq);

    d->fail_rc = rc;
    if ((rc & 0xff) == SQLITE_FULL)
        err_set(err, errlen, "%s: %s: disk full (%s)", d->path, what, sqlite3_errmsg(d->sq));
    else if ((rc & 0xff) == SQLITE_IOERR)
        err_set(err, errlen, "%s: %s: I/O error (%s, SQLite code %d)", d->path, what,
                sqlite3_errmsg(d->sq), rc);
    else
        err_set(err, errlen, "%s: %s: %s", d->path, what, sqlite3_errmsg(d->sq));
}

enum db_failure db_failure_kind(const db *d)
{
    switch (d->fail_rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return DB_FAIL_NONE;
    case SQLITE_FULL:
        return DB_FAIL_FULL;
    case SQLITE_IOERR:
        return DB_FAIL_IO;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return DB_FAIL_BUSY;
    default:
        return DB_FAIL_OTHER;
    }
}

static int exec_sql(db *d, const char *sql, const char *what, char *err, size_t errlen)
{
    char *msg = NULL;

    if (sqlite3_exec(d->sq, sql, NULL, NULL, &msg) != SQLITE_OK) {
        err_set(err, errlen, "%s: %s: %s", d->path, what, msg != NULL ? msg : "error");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Runs a statement that returns one integer. */
static int db_pragma_int(db *d, const char *sql, int64_t *out, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (sqlite3_prepare_v2(d->sq, sql, -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        set_err(d, err, errlen, sql);
        goto out;
    }
    *out = sqlite3_column_int64(st, 0);
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

/* The file's schema version into *v; -1 with err when it cannot be read or
 * is newer than this quern understands (path names the file). */
static int db_schema_version(db *d, const char *path, int64_t *v, char *err, size_t errlen)
{
    if (db_pragma_int(d, "PRAGMA user_version", v, err, errlen) != 0)
        return -1;
    if (*v > DB_SCHEMA_VERSION) {
        err_set(err, errlen,
                "%s: schema version %lld is newer than this quern (%s) understands (%d): use a "
                "newer quern",
                path, (long long)*v, QUERN_VERSION, DB_SCHEMA_VERSION);
        return -1;
    }
    return 0;
}

/* 0 when no row breaks a foreign key (PRAGMA foreign_key_check is empty). */
static int foreign_keys_ok(db *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(d->sq, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK) {
        set_err(d, err, errlen, "cannot check the foreign keys");
        return -1;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        err_set(err, errlen, "%s: schema migration: a row of table %s refers to nothing", d->path,
                (const char *)sqlite3_column_text(st, 0));
    else if (rc != SQLITE_DONE)
        set_err(d, err, errlen, "cannot check the foreign keys");
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Brings the schema to DB_SCHEMA_VERSION in one transaction. Foreign keys
 * are off meanwhile (a migration may rebuild a table others refer to, as
 * SQLite's documented procedure does: dropping the old table must not
 * cascade), and checked before the commit. */
static int migrate(db *d, char *err, size_t errlen)
{
    int64_t v;
    char sql[64];

    if (exec_sql(d, "PRAGMA foreign_keys = OFF", "cannot configure", err, errlen) != 0)
        return -1;
    if (exec_sql(d, "BEGIN IMMEDIATE", "cannot lock the database", err, errlen) != 0)
        goto fail;
    /* Read again under the lock: another process may have migrated. */
    if (db_schema_version(d, d->path, &v, err, errlen) != 0)
        goto fail;
    for (; v < DB_SCHEMA_VERSION; v++) {
        char *mig = schema_migration((unsigned)v + 1);
        int rc;

        snprintf(sql, sizeof(sql), "schema migration %lld", (long long)v + 1);
        if (mig == NULL) {
            err_set(err, errlen, "%s: %s: not in this quern's schema", d->path, sql);
            goto fail;
        }
        rc = exec_sql(d, mig, sql, err, errlen);
        xfree(mig);
        if (rc != 0)
            goto fail;
    }
    if (foreign_keys_ok(d, err, errlen) != 0)
        goto fail;
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
    if (exec_sql(d, sql, "cannot set the schema version", err, errlen) != 0 ||
        exec_sql(d, "COMMIT", "cannot commit the schema", err, errlen) != 0)
        goto fail;
    return exec_sql(d, "PRAGMA foreign_keys = ON", "cannot configure", err, errlen);
fail:
    if (!sqlite3_get_autocommit(d->sq))
        sqlite3_exec(d->sq, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(d->sq, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    return -1;
}

db *db_open(const char *path, char *err, size_t errlen)
{
    db *d = xcalloc(1, sizeof(*d));
    int64_t v;
    sqlite3_stmt *st = NULL;
    const char *mode;

    d->path = xstrdup(path);
    if (sqlite3_open_v2(path, &d->sq, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        if (d->sq == NULL)
            err_set(err, errlen, "%s: cannot open: out of memory", path);
        else
            set_err(d, err, errlen, "cannot open");
        goto fail;
    }
    sqlite3_busy_timeout(d->sq, DB_BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(d->sq, 1);
    /* Refuse a newer schema before changing anything in the file. */
    if (db_schema_version(d, path, &v, err, errlen) != 0)
        goto fail;
    if (sqlite3_prepare_v2(d->sq, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        set_err(d, err, errlen, "cannot set WAL mode");
        sqlite3_finalize(st);
        goto fail;
    }
    mode = (const char *)sqlite3_column_text(st, 0);
    if (mode == NULL || strcmp(mode, "wal") != 0) {
        err_set(err, errlen, "%s: cannot use WAL mode (journal mode is %s)", path,
                mode != NULL ? mode : "unknown");
        sqlite3_finalize(st);
        goto fail;
    }
    sqlite3_finalize(st);
    /* WAL + NORMAL: a commit survives a crash of the process (not
     * necessarily of the machine) without an fsync per second. */
    if (exec_sql(d, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", "cannot configure",
                 err, errlen) != 0)
        goto fail;
    if (v < DB_SCHEMA_VERSION && migrate(d, err, errlen) != 0)
        goto fail;
    for (int i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(d->sq, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &d->st[i],
                               NULL) != SQLITE_OK) {
            set_err(d, err, errlen, "cannot prepare a statement (is this a quern database?)");
            goto fail;
        }
    }
    d->bufcap = hist_encoded_size_max();
    d->buf = xmalloc(d->bufcap);
    d->svcbuf = xmalloc(d->bufcap);
    return d;
fail:
    db_close(d);
    return NULL;
}

void db_close(db *d)
{
    if (d == NULL)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(d->st[i]);
    sqlite3_close(d->sq);
    xfree(d->buf);
    xfree(d->svcbuf);
    xfree(d->path);
    xfree(d);
}

struct sqlite3 *db_sqlite(db *d)
{
    return d->sq;
}

/* ---------------------------------------------------------------- helpers */

/* Steps a reset statement that returns no row; resets it again after. */
static int step_done(db *d, sqlite3_stmt *st, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);

    if (rc != SQLITE_DONE) {
        set_err(d, err, errlen, what);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        return -1;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return 0;
}

static int tx_begin(db *d, char *err, size_t errlen)
{
    return step_done(d, d->st[ST_BEGIN], "cannot begin a transaction", err, errlen);
}

static void tx_rollback(db *d)
{
    char ignored[8];

    if (!sqlite3_get_autocommit(d->sq))
        step_done(d, d->st[ST_ROLLBACK], "rollback", ignored, sizeof(ignored));
}

static int tx_commit(db *d, char *err, size_t errlen)
{
    if (step_done(d, d->st[ST_COMMIT], "cannot commit", err, errlen) == 0)
        return 0;
    tx_rollback(d);
    return -1;
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
    sqlite3_bind_int64(st, i, v > (uint64_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)v);
}

/* Encodes h into d->buf and binds it as a blob without a copy: the
 * statement must be stepped before d->buf is used again. On failure err
 * says so and st is reset, its bindings cleared. */
static int bind_hist(db *d, sqlite3_stmt *st, int i, const hist *h, char *err, size_t errlen)
{
    size_t n = hist_encode(h, d->buf, d->bufcap);

    if (n > 0 && sqlite3_bind_blob(st, i, d->buf, (int)n, SQLITE_STATIC) == SQLITE_OK)
        return 0;
    err_set(err, errlen, "%s: cannot encode a histogram", d->path);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return -1;
}

/* Binds s's service times at parameter i from d->svcbuf (d->buf holds the
 * response times), as bind_hist; NULL when they are its response times. */
static int bind_service(db *d, sqlite3_stmt *st, int i, const step_stats *s, char *err,
                        size_t errlen)
{
    size_t n;
    int rc;

    if (!s->svc_on)
        return sqlite3_bind_null(st, i) == SQLITE_OK ? 0 : -1;
    n = hist_encode(s->svc, d->svcbuf, d->bufcap);
    rc = n > 0 && sqlite3_bind_blob(st, i, d->svcbuf, (int)n, SQLITE_STATIC) == SQLITE_OK ? 0 : -1;
    if (rc != 0) {
        err_set(err, errlen, "%s: cannot encode a histogram", d->path);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    return rc;
}

/* Binds the counters of s at parameters first .. first + 9. */
static void bind_counters(sqlite3_stmt *st, int first, const step_stats *s)
{
    bind_u64(st, first, s->count);
    bind_u64(st, first + 1, s->err_tech);
    bind_u64(st, first + 2, s->err_func);
    bind_u64(st, first + 3, s->bytes_in);
    bind_u64(st, first + 4, s->bytes_out);
    bind_u64(st, first + 5, s->sum_dns);
    bind_u64(st, first + 6, s->sum_connect);
    bind_u64(st, first + 7, s->sum_tls);
    bind_u64(st, first + 8, s->sum_ttfb);
    bind_u64(st, first + 9, s->new_conns);
}

/* Binds the WebSocket message counters of s at parameters first .. first + 3. */
static void bind_ws(sqlite3_stmt *st, int first, const step_stats *s)
{
    bind_u64(st, first, s->ws_sent);
    bind_u64(st, first + 1, s->ws_recv);
    bind_u64(st, first + 2, s->ws_bytes_sent);
    bind_u64(st, first + 3, s->ws_bytes_recv);
}

/* Inserts n rows with sql: ?1 the run id, ?2 the row's index, the rest
 * bound by bind(st, ri, i). */
static int insert_each(db *d, int64_t id, const char *sql, size_t n,
                       void (*bind)(sqlite3_stmt *st, const db_run_info *ri, size_t i),
                       const db_run_info *ri, const char *what, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (sqlite3_prepare_v2(d->sq, sql, -1, &st, NULL) != SQLITE_OK) {
        set_err(d, err, errlen, what);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        bind(st, ri, i);
        if (step_done(d, st, what, err, errlen) != 0)
            goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

static void bind_step(sqlite3_stmt *st, const db_run_info *ri, size_t i)
{
    sqlite3_bind_text(st, 3, ri->steps[i].id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, ri->steps[i].label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, ri->steps[i].scenario, -1, SQLITE_STATIC);
}

static void bind_scen(sqlite3_stmt *st, const db_run_info *ri, size_t i)
{
    sqlite3_bind_text(st, 3, ri->scen_names[i], -1, SQLITE_STATIC);
}

/* ---------------------------------------------------------------- writing */

int64_t db_run_begin(db *d, const db_run_info *ri, char *err, size_t errlen)
{
    char hex[65], at[40], host[256];
    char *tags = NULL, *propj = NULL, *cmdline = NULL;
    sqlite3_stmt *st = NULL;
    int64_t id = -1;

    if (run_row_hash_file(ri->script, hex, err, errlen) != 0)
        return -1;
    tags = run_row_props_json(ri->tags, 0);
    propj = run_row_props_json(ri->props, 1);
    cmdline = run_row_command_line(ri->argc, ri->argv);
    if (gethostname(host, sizeof(host)) != 0)
        host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
    run_row_iso_utc(ri->started_us, at, sizeof(at));
    if (tx_begin(d, err, errlen) != 0)
        goto out;
    if (sqlite3_prepare_v2(d->sq,
                           "INSERT INTO runs (name, tags, script, script_hash, properties, "
                           "quern_version, vus, started_at, started_us, status, "
                           "req_duration_us, req_ramp_up_us, req_runs, command_line, "
                           "console_host, console_pid, updated_us, req_stages) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK) {
        set_err(d, err, errlen, "cannot record the run");
        goto fail;
    }
    sqlite3_bind_text(st, 1, ri->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, tags, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, ri->script, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, hex, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, propj, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, QUERN_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, ri->vus);
    sqlite3_bind_text(st, 8, at, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, ri->started_us);
    sqlite3_bind_int64(st, 10, ri->req_duration_us > 0 ? ri->req_duration_us : 0);
    sqlite3_bind_int64(st, 11, ri->req_ramp_up_us > 0 ? ri->req_ramp_up_us : 0);
    sqlite3_bind_int64(st, 12, ri->req_runs);
    if (cmdline != NULL)
        sqlite3_bind_text(st, 13, cmdline, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 13);
    if (host[0] != '\0')
        sqlite3_bind_text(st, 14, host, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 14);
    sqlite3_bind_int64(st, 15, (sqlite3_int64)getpid());
    sqlite3_bind_int64(st, 16, clock_wall_us());
    if (ri->req_stages != NULL)
        sqlite3_bind_text(st, 17, ri->req_stages, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 17);
    if (step_done(d, st, "cannot record the run", err, errlen) != 0)
        goto fail;
    sqlite3_finalize(st);
    st = NULL;
    id = sqlite3_last_insert_rowid(d->sq);

    if (insert_each(d, id,
                    "INSERT INTO steps (run_id, step_index, test_id, label, scenario) "
                    "VALUES (?, ?, ?, ?, ?)",
                    ri->nsteps, bind_step, ri, "cannot record the steps", err, errlen) != 0 ||
        insert_each(d, id,
                    "INSERT INTO scenario_totals (run_id, scen_index, name) VALUES (?, ?, ?)",
                    ri->nscens, bind_scen, ri, "cannot record the scenarios", err, errlen) != 0)
        goto fail;
    if (tx_commit(d, err, errlen) != 0) {
        id = -1;
        goto out;
    }
    goto out;
fail:
    id = -1;
    sqlite3_finalize(st);
    tx_rollback(d);
out:
    free(tags);
    free(propj);
    xfree(cmdline);
    return id;
}

int db_agent(db *d, int64_t run_id, unsigned index, const db_agent_info *a, char *err,
             size_t errlen)
{
    sqlite3_stmt *st = d->st[ST_AGENT];

    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, index);
    sqlite3_bind_text(st, 3, a->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, a->host, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, a->workers);
    sqlite3_bind_int64(st, 6, a->vus);
    sqlite3_bind_int(st, 7, a->lost ? 1 : 0);
    sqlite3_bind_text(st, 8, a->status != NULL ? a->status : "running", -1, SQLITE_STATIC);
    bind_u64(st, 9, a->requests);
    bind_u64(st, 10, a->errors);
    sqlite3_bind_int64(st, 11, a->vus_peak);
    return step_done(d, st, "cannot record an agent", err, errlen);
}

/* Adds n errors of one kind seen in second to the errors table; URL
 * passwords in the sample message are not stored. */
static int add_errors(db *d, int64_t run_id, size_t step, const char *kind, uint64_t n,
                      const char *sample, const char *trace, uint64_t second, char *err,
                      size_t errlen)
{
    sqlite3_stmt *st = d->st[ST_ERROR];
    char safe[STATS_SAMPLE_MAX + 64]; /* a mask may be longer than a short password */

    redact_url(sample, safe, sizeof(safe));
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)step);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, safe, -1, SQLITE_TRANSIENT);
    bind_u64(st, 5, n);
    bind_u64(st, 6, second);
    bind_u64(st, 7, second);
    if (trace != NULL && trace[0] != '\0')
        sqlite3_bind_text(st, 8, trace, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 8);
    return step_done(d, st, "cannot record errors", err, errlen);
}

/* The rows of t in table order (the order a reader merging them meets). */
static size_t kind_rows(const errkinds *t, const errkind *rows[ERRKIND_ROWS])
{
    size_t n = 0;

    for (size_t i = 0; t != NULL && i < t->n; i++)
        rows[n++] = &t->k[i];
    for (int c = 1; t != NULL && c >= 0; c--)
        if (t->other[c].count > 0)
            rows[n++] = &t->other[c];
    return n;
}

/* The step's errors by kind of one second. */
static int add_kind_seconds(db *d, int64_t run_id, size_t step, const errkinds *t, uint64_t second,
                            char *err, size_t errlen)
{
    const errkind *rows[ERRKIND_ROWS];
    size_t n = kind_rows(t, rows);

    for (size_t i = 0; i < n; i++) {
        sqlite3_stmt *st = d->st[ST_KIND_SECOND];
        sqlite3_bind_int64(st, 1, run_id);
        bind_u64(st, 2, second);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)step);
        sqlite3_bind_text(st, 4, errkinds_class(rows[i]), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, rows[i]->code);
        sqlite3_bind_text(st, 6, rows[i]->msg, -1, SQLITE_STATIC);
        bind_u64(st, 7, rows[i]->count);
        if (step_done(d, st, "cannot record errors by kind", err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The step's errors by kind over the run, with their examples. */
static int add_kinds(db *d, int64_t run_id, size_t step, const errkinds *t, char *err,
                     size_t errlen)
{
    const errkind *rows[ERRKIND_ROWS];
    size_t n = kind_rows(t, rows);

    for (size_t i = 0; i < n; i++) {
        const errkind *k = rows[i];
        sqlite3_stmt *st = d->st[ST_KIND];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)step);
        sqlite3_bind_text(st, 3, errkinds_class(k), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, k->code);
        sqlite3_bind_text(st, 5, k->msg, -1, SQLITE_STATIC);
        bind_u64(st, 6, k->count);
        sqlite3_bind_int64(st, 7, k->first_ms);
        sqlite3_bind_int64(st, 8, k->last_ms);
        sqlite3_bind_text(st, 9, k->ex.url, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 10, k->ex.status);
        sqlite3_bind_text(st, 11, k->ex.body, -1, SQLITE_STATIC);
        if (k->ex.trace[0] != '\0')
            sqlite3_bind_text(st, 12, k->ex.trace, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 12);
        if (step_done(d, st, "cannot record errors by kind", err, errlen) != 0)
            return -1;
    }
    return 0;
}

int db_interval(db *d, int64_t run_id, const db_iv *iv, char *err, size_t errlen)
{
    sqlite3_stmt *st;

    if (tx_begin(d, err, errlen) != 0)
        return -1;
    st = d->st[ST_INTERVAL];
    sqlite3_bind_int64(st, 1, run_id);
    bind_u64(st, 2, iv->second);
    sqlite3_bind_int64(st, 3, iv->start_us);
    sqlite3_bind_int64(st, 4, iv->length_us);
    sqlite3_bind_int64(st, 5, iv->active_vus);
    sqlite3_bind_int64(st, 6, iv->paused_us);
    if (step_done(d, st, "cannot record an interval", err, errlen) != 0)
        goto fail;
    for (size_t i = 0; i < iv->nsteps; i++) {
        const step_stats *s = &iv->steps[i];
        /* errors are samples too; a WebSocket's messages count in a
         * second without one */
        if (s->count == 0 && s->ws_sent == 0 && s->ws_recv == 0)
            continue;
        st = d->st[ST_STEP_INTERVAL];
        sqlite3_bind_int64(st, 1, run_id);
        bind_u64(st, 2, iv->second);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
        bind_counters(st, 4, s);
        if (bind_hist(d, st, 14, s->hist, err, errlen) != 0 ||
            bind_service(d, st, 15, s, err, errlen) != 0)
            goto fail;
        bind_u64(st, 16, s->requests);
        bind_ws(st, 17, s);
        if (step_done(d, st, "cannot record a step's interval", err, errlen) != 0)
            goto fail;
        if (s->err_tech > 0 && add_errors(d, run_id, i, "technical", s->err_tech, s->sample_tech,
                                          s->trace_tech, iv->second, err, errlen) != 0)
            goto fail;
        if (s->err_func > 0 && add_errors(d, run_id, i, "functional", s->err_func, s->sample_func,
                                          s->trace_func, iv->second, err, errlen) != 0)
            goto fail;
        if (add_kind_seconds(d, run_id, i, s->kinds, iv->second, err, errlen) != 0)
            goto fail;
    }
    for (size_t i = 0; i < iv->nscens; i++) {
        static const rate_counts none;
        const rate_counts *a = iv->arrivals != NULL ? &iv->arrivals[i] : &none;
        if (iv->runs[i] == 0 && iv->missed[i] == 0 && a->scheduled == 0 && a->started == 0 &&
            a->dropped == 0 && a->inits == 0)
            continue;
        st = d->st[ST_SCEN];
        bind_u64(st, 1, iv->runs[i]);
        bind_u64(st, 2, iv->missed[i]);
        bind_u64(st, 3, a->scheduled);
        bind_u64(st, 4, a->started);
        bind_u64(st, 5, a->late);
        bind_u64(st, 6, a->dropped);
        bind_u64(st, 7, a->init_waits);
        bind_u64(st, 8, a->inits);
        sqlite3_bind_int64(st, 9, run_id);
        sqlite3_bind_int64(st, 10, (sqlite3_int64)i);
        if (step_done(d, st, "cannot record scenario counts", err, errlen) != 0)
            goto fail;
    }
    st = d->st[ST_TOUCH];
    sqlite3_bind_int64(st, 1, clock_wall_us());
    sqlite3_bind_int64(st, 2, run_id);
    if (step_done(d, st, "cannot record an interval", err, errlen) != 0)
        goto fail;
    return tx_commit(d, err, errlen);
fail:
    tx_rollback(d);
    return -1;
}

/* Writes the status, its reason and the end time (ST_END), then marks the
 * agents still running with the run's status. */
static int end_status(db *d, int64_t run_id, const db_run_end_info *ei, const char *reason,
                      char *err, size_t errlen)
{
    sqlite3_stmt *st = d->st[ST_END];
    char at[40];

    run_row_iso_utc(ei->ended_us, at, sizeof(at));
    sqlite3_bind_text(st, 1, ei->status, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, at, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, ei->ended_us);
    sqlite3_bind_int64(st, 4, ei->duration_us);
    if (reason != NULL)
        sqlite3_bind_text(st, 5, reason, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 5);
    sqlite3_bind_int64(st, 6, clock_wall_us());
    sqlite3_bind_int64(st, 7, run_id);
    if (step_done(d, st, "cannot record the end of the run", err, errlen) != 0)
        return -1;
    st = d->st[ST_AGENTS_END];
    sqlite3_bind_text(st, 1, ei->status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, run_id);
    return step_done(d, st, "cannot record the end of the run", err, errlen);
}

int db_run_end(db *d, int64_t run_id, const db_run_end_info *ei, char *err, size_t errlen)
{
    return db_run_end_reason(d, run_id, ei, NULL, err, errlen);
}

/* The step's slowest samples, rank 1 the slowest (common/slowest.h). */
static int add_slowest(db *d, int64_t run_id, size_t step, const slowest *h, char *err,
                       size_t errlen)
{
    slowest_entry *e;
    size_t n;
    int rc = 0;

    if (h == NULL || h->n == 0)
        return 0;
    e = xcalloc(h->n, sizeof(*e));
    n = slowest_sorted(h, e);
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_stmt *st = d->st[ST_SLOW];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)step);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)i + 1);
        bind_u64(st, 4, e[i].latency_us);
        sqlite3_bind_int64(st, 5, e[i].start_us);
        sqlite3_bind_int64(st, 6, e[i].vu);
        if (e[i].trace[0] != '\0')
            sqlite3_bind_text(st, 7, e[i].trace, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, 7);
        rc = step_done(d, st, "cannot record the slowest samples", err, errlen);
    }
    xfree(e);
    return rc;
}

int db_run_end_reason(db *d, int64_t run_id, const db_run_end_info *ei, const char *reason,
                      char *err, size_t errlen)
{
    sqlite3_stmt *st;
    char err2[512];

    err[0] = '\0';
    if (tx_begin(d, err, errlen) != 0)
        goto fallback;
    for (size_t i = 0; i < ei->nsteps; i++) {
        const step_stats *s = &ei->totals[i];
        const hist *h = s->hist;
        st = d->st[ST_TOTAL];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        bind_counters(st, 3, s);
        sqlite3_bind_double(
            st, 13, ei->duration_us > 0 ? (double)s->count * 1e6 / (double)ei->duration_us : 0.0);
        sqlite3_bind_double(st, 14, hist_mean(h));
        bind_u64(st, 15, hist_min(h));
        bind_u64(st, 16, hist_percentile(h, 50));
        bind_u64(st, 17, hist_percentile(h, 90));
        bind_u64(st, 18, hist_percentile(h, 95));
        bind_u64(st, 19, hist_percentile(h, 99));
        bind_u64(st, 20, hist_max(h));
        if (bind_hist(d, st, 21, h, err, errlen) != 0 ||
            bind_service(d, st, 22, s, err, errlen) != 0)
            goto fail;
        bind_u64(st, 23, s->requests);
        bind_ws(st, 24, s);
        if (step_done(d, st, "cannot record the totals", err, errlen) != 0 ||
            add_slowest(d, run_id, i, s->slow, err, errlen) != 0 ||
            add_kinds(d, run_id, i, s->kinds, err, errlen) != 0)
            goto fail;
    }
    if (ei->tally != NULL &&
        dbtally_write(d->sq, run_id, ei->tally, (double)ei->duration_us / 1e6, err, errlen) != 0)
        goto fail;
    if (end_status(d, run_id, ei, reason, err, errlen) != 0)
        goto fail;
    if (tx_commit(d, err, errlen) == 0)
        return 0;
    goto fallback;
fail:
    tx_rollback(d);
fallback:
    /* The status alone, in a transaction of its own. */
    if (tx_begin(d, err2, sizeof(err2)) != 0 ||
        end_status(d, run_id, ei, reason, err2, sizeof(err2)) != 0) {
        tx_rollback(d);
        err_append(err, errlen, "; the status of the run could not be written either");
        return -1;
    }
    if (tx_commit(d, err2, sizeof(err2)) != 0) {
        err_append(err, errlen, "; the status of the run could not be written either");
        return -1;
    }
    err_append(err, errlen, "; the status of the run was written, not its totals");
    return 1;
}

int db_run_verdict(db *d, int64_t run_id, int passed, const char *reason, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(d->sq,
                           "UPDATE runs SET verdict = ?, verdict_reason = ?, updated_us = ? "
                           "WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        set_err(d, err, errlen, "cannot record the verdict");
        return -1;
    }
    sqlite3_bind_text(st, 1, passed ? "passed" : "failed", -1, SQLITE_STATIC);
    if (reason != NULL)
        sqlite3_bind_text(st, 2, reason, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, clock_wall_us());
    sqlite3_bind_int64(st, 4, run_id);
    rc = step_done(d, st, "cannot record the verdict", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

int db_run_vus(db *d, int64_t run_id, int64_t vus_peak, int64_t vu_pool, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(d->sq, "UPDATE runs SET vus_peak = ?, vu_pool = ? WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK) {
        set_err(d, err, errlen, "cannot record the run's VUs");
        return -1;
    }
    sqlite3_bind_int64(st, 1, vus_peak);
    if (vu_pool > 0)
        sqlite3_bind_int64(st, 2, vu_pool);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, run_id);
    rc = step_done(d, st, "cannot record the run's VUs", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

int db_steer(db *d, int64_t run_id, unsigned seq, int64_t at_us, const char *kind, double value,
             int has_value, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(d->sq,
                           "INSERT OR REPLACE INTO steers (run_id, seq, at_us, kind, value) "
                           "VALUES (?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK) {
        set_err(d, err, errlen, "cannot record a steer");
        return -1;
    }
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, seq);
    sqlite3_bind_int64(st, 3, at_us);
    sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
    if (has_value)
        sqlite3_bind_double(st, 5, value);
    else
        sqlite3_bind_null(st, 5);
    rc = step_done(d, st, "cannot record a steer", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

int db_steer_end(db *d, int64_t run_id, unsigned seq, int64_t end_us, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(d->sq, "UPDATE steers SET end_us = ? WHERE run_id = ? AND seq = ?", -1,
                           &st, NULL) != SQLITE_OK) {
        set_err(d, err, errlen, "cannot record a pause's end");
        return -1;
    }
    sqlite3_bind_int64(st, 1, end_us);
    sqlite3_bind_int64(st, 2, run_id);
    sqlite3_bind_int64(st, 3, seq);
    rc = step_done(d, st, "cannot record a pause's end", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

int db_thresholds(db *d, int64_t run_id, const db_threshold *ts, size_t n, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;

    if (tx_begin(d, err, errlen) != 0)
        return -1;
    if (sqlite3_prepare_v2(d->sq, "DELETE FROM thresholds WHERE run_id = ?", -1, &st, NULL) !=
        SQLITE_OK) {
        set_err(d, err, errlen, "cannot record the thresholds");
        goto fail;
    }
    sqlite3_bind_int64(st, 1, run_id);
    if (step_done(d, st, "cannot record the thresholds", err, errlen) != 0)
        goto fail;
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(d->sq,
                           "INSERT INTO thresholds (run_id, position, expr, source, passed, "
                           "measured, \"limit\", unit, description) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK) {
        set_err(d, err, errlen, "cannot record the thresholds");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        const db_threshold *t = &ts[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_text(st, 3, t->expr, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, t->source != NULL ? t->source : "cli", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 5, t->passed ? 1 : 0);
        if (t->measurable)
            sqlite3_bind_double(st, 6, t->measured);
        else
            sqlite3_bind_null(st, 6);
        sqlite3_bind_double(st, 7, t->limit);
        sqlite3_bind_text(st, 8, t->unit != NULL ? t->unit : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 9, t->description != NULL ? t->description : "", -1, SQLITE_STATIC);
        if (step_done(d, st, "cannot record the thresholds", err, errlen) != 0)
            goto fail;
    }
    sqlite3_finalize(st);
    return tx_commit(d, err, errlen);
fail:
    sqlite3_finalize(st);
    tx_rollback(d);
    return -1;
}
