/* Unit tests for store/db: creating and migrating the database, run,
 * interval, totals, threshold and verdict rows, a full disk. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "common/stats.h"
#include <sys/wait.h>

#include "common/clock.h"
#include "store/db.h"
#include "store/schema.h"

#include "tests/unit/dbfix.h"
#include "tests/unit/runfix.h"
#include "tests/unit/sqlone.h"

/* Runs migration n of the compiled schema on sq. */
static void exec_migration(sqlite3 *sq, unsigned n)
{
    char *sql = schema_migration(n);

    assert_non_null(sql);
    assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
    xfree(sql);
}

static void test_create(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], mode[16];
    db *d = db_open(f->path, err, sizeof(err));
    sqlite3 *sq;

    assert_non_null(d);
    sq = db_sqlite(d);
    assert_int_equal(sqlone_int(sq, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    sqlone_text(sq, "PRAGMA journal_mode", mode, sizeof(mode));
    assert_string_equal(mode, "wal");
    assert_int_equal(sqlone_int(sq, "PRAGMA foreign_keys"), 1);
    assert_int_equal(sqlone_int(sq,
                                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name "
                                "IN ('runs', 'agents', 'steps', 'intervals', 'step_intervals', "
                                "'step_totals', 'errors', 'scenario_totals')"),
                     8);
    db_close(d);
    /* Opening again changes nothing. */
    d = db_open(f->path, err, sizeof(err));
    assert_non_null(d);
    assert_int_equal(sqlone_int(db_sqlite(d), "PRAGMA user_version"), DB_SCHEMA_VERSION);
    db_close(d);
}

/* A version-0 database (made by something else, or empty) is upgraded and
 * keeps what it had. */
static void test_migrate_from_v0(void **state)
{
    fx *f = *state;
    sqlite3 *sq;
    char err[ERR_MAX];
    db *d;

    assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(sq, "CREATE TABLE notes (x); INSERT INTO notes VALUES (7)", NULL, NULL, NULL),
        SQLITE_OK);
    assert_int_equal(sqlone_int(sq, "PRAGMA user_version"), 0);
    sqlite3_close(sq);
    d = db_open(f->path, err, sizeof(err));
    assert_non_null(d);
    assert_int_equal(sqlone_int(db_sqlite(d), "PRAGMA user_version"), DB_SCHEMA_VERSION);
    assert_int_equal(sqlone_int(db_sqlite(d), "SELECT x FROM notes"), 7);
    assert_int_equal(sqlone_int(db_sqlite(d), "SELECT count(*) FROM runs"), 0);
    db_close(d);
}

/* A version-1 database (quern before thresholds were stored) keeps its runs
 * and gains the thresholds table. */
static void test_migrate_from_v1(void **state)
{
    fx *f = *state;
    sqlite3 *sq;
    char err[ERR_MAX];
    db *d;

    assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
    exec_migration(sq, 1);
    assert_int_equal(sqlite3_exec(sq,
                                  "PRAGMA user_version = 1; INSERT INTO runs (name, script, "
                                  "script_hash, quern_version, vus, started_at, started_us, "
                                  "status) VALUES ('old', 'a.lua', 'h', '0.1', 2, 'x', 1, "
                                  "'completed')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(sq);
    d = db_open(f->path, err, sizeof(err));
    assert_non_null(d);
    sq = db_sqlite(d);
    assert_int_equal(sqlone_int(sq, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM runs WHERE name = 'old'"), 1);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM thresholds"), 0);
    db_close(d);
}

/* A version-2 database (quern before the settings, the console and the
 * verdict were kept) is upgraded in place: the runs table is rebuilt, and
 * neither its rows nor the rows that refer to them are lost. */
static void test_migrate_from_v2(void **state)
{
    fx *f = *state;
    sqlite3 *sq;
    char err[ERR_MAX], buf[128];
    db *d;

    assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
    exec_migration(sq, 1);
    exec_migration(sq, 2);
    assert_int_equal(
        sqlite3_exec(
            sq,
            "PRAGMA user_version = 2; INSERT INTO runs (id, name, script, script_hash, "
            "quern_version, vus, started_at, started_us, status) VALUES (4, 'old', "
            "'a.lua', 'h', '0.1', 2, 'x', 1, 'running'); INSERT INTO steps VALUES (4, 0, "
            "'SC-S-STEP-1', 'a', 'S'); INSERT INTO intervals VALUES (4, 0, 1, 1000000, 2); "
            "INSERT INTO thresholds VALUES (4, 0, 'p95<1s', 'cli', 0, 2000, 1000, 'ms', "
            "'d')",
            NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(sq);
    d = db_open(f->path, err, sizeof(err));
    assert_non_null(d);
    sq = db_sqlite(d);
    assert_int_equal(sqlone_int(sq, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    assert_int_equal(sqlone_int(sq, "PRAGMA foreign_keys"), 1);
    sqlone_text(sq, "SELECT name || ' ' || vus || ' ' || status FROM runs WHERE id = 4", buf,
                sizeof(buf));
    assert_string_equal(buf, "old 2 running");
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM steps WHERE run_id = 4"), 1);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM intervals WHERE run_id = 4"), 1);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM thresholds WHERE run_id = 4"), 1);
    assert_int_equal(sqlone_int(sq,
                                "SELECT req_duration_us IS NULL AND command_line IS NULL AND "
                                "console_pid IS NULL AND verdict IS NULL FROM runs WHERE id = 4"),
                     1);
    assert_int_equal(
        sqlone_int(sq, "SELECT count(*) FROM sqlite_master WHERE name = 'runs_by_name'"), 1);
    /* The new status is allowed, and deleting a run still cascades. */
    assert_int_equal(
        sqlite3_exec(sq, "UPDATE runs SET status = 'abandoned' WHERE id = 4", NULL, NULL, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq, "DELETE FROM runs WHERE id = 4", NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM steps"), 0);
    db_close(d);
}

static void test_refuse_newer(void **state)
{
    fx *f = *state;
    sqlite3 *sq;
    char err[ERR_MAX] = "";
    db *d;

    assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sq, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(sq);
    d = db_open(f->path, err, sizeof(err));
    assert_null(d);
    assert_non_null(strstr(err, "schema version 99 is newer"));
    assert_non_null(strstr(err, f->path));
    /* The file was left as it was. */
    assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
    assert_int_equal(sqlone_int(sq, "PRAGMA user_version"), 99);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM sqlite_master"), 0);
    sqlite3_close(sq);
}

static void test_not_a_database(void **state)
{
    fx *f = *state;
    char err[ERR_MAX] = "";

    /* The script file is not a database. */
    assert_null(db_open(f->script, err, sizeof(err)));
    assert_true(err[0] != '\0');
}

static void test_run_rows(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], buf[256];
    db *d = db_open(f->path, err, sizeof(err));
    props *tags = props_new();
    db_agent_info ai = {"local", "h1", 2, 30, 0, NULL, 0, 0, 3};
    sqlite3 *sq;
    int64_t id;

    assert_non_null(d);
    sq = db_sqlite(d);
    props_set(tags, "env", "ci");
    id = runfix_begin(d, f->script, tags);
    assert_int_equal(db_agent(d, id, 0, &ai, err, sizeof(err)), 0);
    sqlone_text(sq, "SELECT status FROM runs", buf, sizeof(buf));
    assert_string_equal(buf, "running");
    sqlone_text(sq, "SELECT script_hash FROM runs", buf, sizeof(buf));
    assert_string_equal(buf, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sqlone_text(sq, "SELECT tags FROM runs", buf, sizeof(buf));
    assert_string_equal(buf, "{\"env\":\"ci\"}");
    sqlone_text(sq, "SELECT started_at FROM runs", buf, sizeof(buf));
    assert_string_equal(buf, "2023-11-14T22:13:20.123Z");
    sqlone_text(sq, "SELECT group_concat(test_id || '/' || scenario, ',') FROM steps", buf,
                sizeof(buf));
    assert_string_equal(buf, "SC-S-STEP-1/S,SC-S-STEP-2/S");
    sqlone_text(sq, "SELECT vus || ' slots, ' || vus_peak || ' peak' FROM agents", buf,
                sizeof(buf));
    assert_string_equal(buf, "30 slots, 3 peak"); /* a steered ceiling, the VUs that ran */
    sqlone_text(sq, "SELECT name || '@' || host || ':' || workers FROM agents", buf, sizeof(buf));
    assert_string_equal(buf, "local@h1:2");
    props_free(tags);
    db_close(d);
}

static void test_intervals_and_totals(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], buf[256];
    db *d = db_open(f->path, err, sizeof(err));
    step_stats s[2], tot[2];
    uint64_t runs = 4, missed = 1;
    db_iv iv = {0};
    db_run_end_info ei = {0};
    sqlite3 *sq;
    sqlite3_stmt *st;
    hist *h = hist_new();
    int64_t id;

    assert_non_null(d);
    sq = db_sqlite(d);
    id = runfix_begin(d, f->script, NULL);
    for (int i = 0; i < 2; i++) {
        stats_init(&s[i]);
        stats_init(&tot[i]);
    }
    /* Second 0: step 0 has 3 samples (one technical error), step 1 none. */
    s[0].count = 3;
    s[0].err_tech = 1;
    s[0].bytes_in = 300;
    stats_note_error(&s[0], 1, "connection refused: http://u:pw@h/login");
    hist_record(s[0].hist, 1000);
    hist_record(s[0].hist, 2000);
    hist_record(s[0].hist, 50000);
    iv.second = 0;
    iv.start_us = 1700000000123456;
    iv.length_us = 1000000;
    iv.active_vus = 3;
    iv.steps = s;
    iv.nsteps = 2;
    iv.runs = &runs;
    iv.missed = &missed;
    iv.nscens = 1;
    assert_int_equal(db_interval(d, id, &iv, err, sizeof(err)), 0);
    for (int i = 0; i < 2; i++)
        stats_merge(&tot[i], &s[i]);
    /* Second 1: both steps. */
    for (int i = 0; i < 2; i++)
        stats_reset(&s[i]);
    s[0].count = 1;
    hist_record(s[0].hist, 1500);
    s[1].count = 2;
    s[1].err_func = 2;
    stats_note_error(&s[1], 0, "check failed");
    hist_record(s[1].hist, 700);
    hist_record(s[1].hist, 900);
    iv.second = 1;
    iv.start_us += 1000000;
    assert_int_equal(db_interval(d, id, &iv, err, sizeof(err)), 0);
    for (int i = 0; i < 2; i++)
        stats_merge(&tot[i], &s[i]);
    /* Late data for second 0 (an agent that came late): a further row. */
    for (int i = 0; i < 2; i++)
        stats_reset(&s[i]);
    s[0].count = 1;
    s[0].err_tech = 1;
    stats_note_error(&s[0], 1, "timeout");
    hist_record(s[0].hist, 3000);
    iv.second = 0;
    iv.active_vus = 99;
    assert_int_equal(db_interval(d, id, &iv, err, sizeof(err)), 0);
    for (int i = 0; i < 2; i++)
        stats_merge(&tot[i], &s[i]);

    /* Second 2: step 1 only exchanged WebSocket messages (no sample
     * ended): a row of count 0 holds them. */
    for (int i = 0; i < 2; i++)
        stats_reset(&s[i]);
    s[1].ws_sent = 3;
    s[1].ws_recv = 5;
    s[1].ws_bytes_sent = 30;
    s[1].ws_bytes_recv = 500;
    iv.second = 2;
    iv.active_vus = 3;
    assert_int_equal(db_interval(d, id, &iv, err, sizeof(err)), 0);
    for (int i = 0; i < 2; i++)
        stats_merge(&tot[i], &s[i]);
    sqlone_text(
        sq,
        "SELECT count || '/' || ws_sent || '/' || ws_recv || '/' || ws_bytes_sent || '/' || "
        "ws_bytes_recv FROM step_intervals WHERE second = 2 AND step_index = 1",
        buf, sizeof(buf));
    assert_string_equal(buf, "0/3/5/30/500");
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM step_intervals WHERE second = 2"), 1);

    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM intervals"), 3);
    assert_int_equal(sqlone_int(sq, "SELECT active_vus FROM intervals WHERE second = 0"), 3);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM step_intervals WHERE second < 2"), 4);
    assert_int_equal(sqlone_int(sq, "SELECT sum(count) FROM step_intervals"), 7);
    assert_int_equal(sqlone_int(sq, "SELECT sum(count) FROM step_intervals WHERE step_index = 0"),
                     5);
    assert_int_equal(sqlone_int(sq, "SELECT bytes_in FROM step_intervals WHERE second = 0 AND "
                                    "step_index = 0 AND count = 3"),
                     300);
    assert_int_equal(sqlone_int(sq, "SELECT count FROM errors WHERE step_index = 0"), 2);
    assert_int_equal(sqlone_int(sq, "SELECT first_second FROM errors WHERE step_index = 0"), 0);
    assert_int_equal(sqlone_int(sq, "SELECT last_second FROM errors WHERE step_index = 0"), 0);
    sqlone_text(sq, "SELECT sample FROM errors WHERE step_index = 0", buf, sizeof(buf));
    assert_string_equal(buf, "connection refused: http://u:***@h/login"); /* redacted */
    sqlone_text(sq,
                "SELECT sample || '/' || count || '/' || first_second FROM errors WHERE "
                "step_index = 1 AND kind = 'functional'",
                buf, sizeof(buf));
    assert_string_equal(buf, "check failed/2/1");
    assert_int_equal(sqlone_int(sq, "SELECT runs FROM scenario_totals"),
                     16); /* 4 a second, 4 seconds written */
    assert_int_equal(sqlone_int(sq, "SELECT missed_pacing FROM scenario_totals"), 4);

    /* Each interval's histogram decodes to what was recorded. */
    assert_int_equal(
        sqlite3_prepare_v2(sq, "SELECT histogram, count FROM step_intervals", -1, &st, NULL),
        SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_int_equal(
            hist_decode(h, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0)), 0);
        assert_int_equal(hist_count(h), sqlite3_column_int64(st, 1));
    }
    sqlite3_finalize(st);

    ei.status = "stopped";
    ei.ended_us = 1700000002123456;
    ei.duration_us = 2000000;
    ei.totals = tot;
    ei.nsteps = 2;
    assert_int_equal(db_run_end(d, id, &ei, err, sizeof(err)), 0);
    sqlone_text(sq, "SELECT status || ' ' || ended_at || ' ' || duration_us FROM runs", buf,
                sizeof(buf));
    assert_string_equal(buf, "stopped 2023-11-14T22:13:22.123Z 2000000");
    assert_int_equal(sqlone_int(sq, "SELECT count FROM step_totals WHERE step_index = 0"), 5);
    assert_int_equal(sqlone_int(sq, "SELECT err_tech FROM step_totals WHERE step_index = 0"), 2);
    assert_int_equal(sqlone_int(sq, "SELECT err_func FROM step_totals WHERE step_index = 1"), 2);
    assert_int_equal(sqlone_int(sq, "SELECT p95_us FROM step_totals WHERE step_index = 0"),
                     hist_percentile(tot[0].hist, 95));
    assert_int_equal(sqlone_int(sq, "SELECT p50_us FROM step_totals WHERE step_index = 0"),
                     hist_percentile(tot[0].hist, 50));
    assert_int_equal(sqlone_int(sq, "SELECT max_us FROM step_totals WHERE step_index = 0"), 50000);
    assert_int_equal(sqlone_int(sq, "SELECT min_us FROM step_totals WHERE step_index = 1"), 700);
    sqlone_text(sq,
                "SELECT ws_sent || '/' || ws_recv || '/' || ws_bytes_sent || '/' || ws_bytes_recv "
                "FROM step_totals WHERE step_index = 1",
                buf, sizeof(buf));
    assert_string_equal(buf, "3/5/30/500");
    assert_int_equal(
        sqlone_int(sq, "SELECT ws_sent + ws_recv FROM step_totals WHERE step_index = 0"), 0);
    assert_int_equal(sqlone_int(sq, "SELECT CAST(tps * 10 AS INTEGER) FROM step_totals WHERE "
                                    "step_index = 0"),
                     25);
    /* The merged histogram round-trips. */
    assert_int_equal(sqlite3_prepare_v2(sq,
                                        "SELECT histogram FROM step_totals WHERE step_index = 0",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(
        hist_decode(h, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0)), 0);
    sqlite3_finalize(st);
    assert_int_equal(hist_count(h), 5);
    assert_int_equal(hist_min(h), 1000);
    assert_int_equal(hist_max(h), 50000);
    assert_int_equal(hist_sum(h), 1000 + 2000 + 50000 + 1500 + 3000);
    for (double p = 0; p <= 100; p += 5)
        assert_int_equal(hist_percentile(h, p), hist_percentile(tot[0].hist, p));

    for (int i = 0; i < 2; i++) {
        stats_free(&s[i]);
        stats_free(&tot[i]);
    }
    hist_free(h);
    db_close(d);
}

/* Each interval is committed: another connection sees it at once. */
static void test_interval_committed(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    db *d = db_open(f->path, err, sizeof(err));
    step_stats s[2];
    db_iv iv = {0};
    uint64_t zero = 0;
    sqlite3 *other;
    int64_t id;

    assert_non_null(d);
    id = runfix_begin(d, f->script, NULL);
    stats_init(&s[0]);
    stats_init(&s[1]);
    s[1].count = 1;
    hist_record(s[1].hist, 10);
    iv.length_us = 1000000;
    iv.steps = s;
    iv.nsteps = 2;
    iv.runs = &zero;
    iv.missed = &zero;
    iv.nscens = 1;
    assert_int_equal(db_interval(d, id, &iv, err, sizeof(err)), 0);
    assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
    assert_int_equal(sqlone_int(other, "SELECT count(*) FROM step_intervals"), 1);
    assert_int_equal(sqlone_int(other, "SELECT step_index FROM step_intervals"), 1);
    sqlite3_close(other);
    stats_free(&s[0]);
    stats_free(&s[1]);
    db_close(d);
}

static void test_thresholds(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], buf[256];
    db *d = db_open(f->path, err, sizeof(err));
    db_threshold ts[2] = {
        {"p95<500ms", "cli", 0, 1, 612.5, 500, "ms", "p95 of all steps = 612.5 ms, limit < 500 ms"},
        {"SC-S-STEP-2: errors<1%", "plan.lua:4", 0, 0, 0, 1, "%", "no samples"},
    };
    sqlite3 *sq;
    int64_t id;

    assert_non_null(d);
    sq = db_sqlite(d);
    id = runfix_begin(d, f->script, NULL);
    assert_int_equal(db_thresholds(d, id, ts, 2, err, sizeof(err)), 0);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM thresholds"), 2);
    sqlone_text(
        sq,
        "SELECT expr || '|' || source || '|' || passed || '|' || measured || '|' || \"limit\" "
        "|| '|' || unit FROM thresholds WHERE position = 0",
        buf, sizeof(buf));
    assert_string_equal(buf, "p95<500ms|cli|0|612.5|500.0|ms");
    assert_int_equal(sqlone_int(sq, "SELECT measured IS NULL FROM thresholds WHERE position = 1"),
                     1);
    sqlone_text(sq, "SELECT source FROM thresholds WHERE position = 1", buf, sizeof(buf));
    assert_string_equal(buf, "plan.lua:4");
    ts[0].passed = 1;
    assert_int_equal(db_thresholds(d, id, ts, 1, err, sizeof(err)), 0);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) || passed FROM thresholds"), 11);
    db_close(d);
}

/* What the run was asked to do is kept, with the console's host and pid;
 * secrets on the command line and in the properties are not. */
static void test_run_settings(void **state)
{
    static const char *const argv[] = {
        "run",    "plan.lua",         "--vus", "50",
        "-p",     "password=hunter2", "-p",    "base_url=http://bob:s3cret@h:8080/",
        "--name", "nightly build"};
    fx *f = *state;
    char err[ERR_MAX], buf[512], host[256];
    db *d = db_open(f->path, err, sizeof(err));
    props *p = props_new();
    db_run_info ri = {0};
    sqlite3 *sq;
    int64_t id;

    assert_non_null(d);
    sq = db_sqlite(d);
    props_set(p, "password", "hunter2");
    props_set(p, "base_url", "http://bob:s3cret@h:8080/");
    props_set(p, "user", "alice");
    ri.name = "plan";
    ri.script = f->script;
    ri.props = p;
    ri.vus = 50;
    ri.started_us = 1700000000123456;
    ri.req_duration_us = 300000000;
    ri.req_ramp_up_us = 60000000;
    ri.req_runs = 0;
    ri.argc = 10;
    ri.argv = argv;
    id = db_run_begin(d, &ri, err, sizeof(err));
    assert_true(id > 0);
    snprintf(buf, sizeof(buf),
             "SELECT req_duration_us || ' ' || req_ramp_up_us || ' ' || req_runs FROM runs "
             "WHERE id = %lld",
             (long long)id);
    sqlone_text(sq, buf, buf, sizeof(buf));
    assert_string_equal(buf, "300000000 60000000 0");
    sqlone_text(sq, "SELECT command_line FROM runs", buf, sizeof(buf));
    assert_string_equal(buf, "quern run plan.lua --vus 50 -p 'password=***' -p "
                             "'base_url=http://bob:***@h:8080/' --name 'nightly build'");
    sqlone_text(sq, "SELECT properties FROM runs", buf, sizeof(buf));
    assert_string_equal(
        buf, "{\"password\":\"***\",\"base_url\":\"http://bob:***@h:8080/\",\"user\":\"alice\"}");
    assert_int_equal(sqlone_int(sq,
                                "SELECT count(*) FROM runs WHERE command_line LIKE '%hunter2%' OR "
                                "properties LIKE '%hunter2%' OR command_line LIKE '%s3cret%' OR "
                                "properties LIKE '%s3cret%'"),
                     0);
    assert_int_equal(gethostname(host, sizeof(host)), 0);
    sqlone_text(sq, "SELECT console_host FROM runs", buf, sizeof(buf));
    assert_string_equal(buf, host);
    assert_int_equal(sqlone_int(sq, "SELECT console_pid FROM runs"), getpid());
    assert_true(sqlone_int(sq, "SELECT updated_us FROM runs") > 0);
    props_free(p);
    db_close(d);
}

/* A full disk: the interval write says so with the file's name, and the
 * end of the run is still recorded (the run does not stay "running"). */
static void test_disk_full(void **state)
{
    fx *f = *state;
    char err[ERR_MAX] = "", sql[128], buf[256];
    db *d = db_open(f->path, err, sizeof(err));
    step_stats s[2];
    uint64_t zero = 0;
    db_iv iv = {0};
    db_run_end_info ei = {0};
    sqlite3 *sq;
    int64_t id;
    int rc = 0, n;

    assert_non_null(d);
    sq = db_sqlite(d);
    id = runfix_begin(d, f->script, NULL);
    assert_int_equal(db_failure_kind(d), DB_FAIL_NONE);
    snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %lld",
             (long long)sqlone_int(sq, "PRAGMA page_count") + 2);
    assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
    stats_init(&s[0]);
    stats_init(&s[1]);
    iv.length_us = 1000000;
    iv.steps = s;
    iv.nsteps = 2;
    iv.runs = &zero;
    iv.missed = &zero;
    iv.nscens = 1;
    for (n = 0; n < 100000 && rc == 0; n++) {
        s[0].count = 1;
        s[1].count = 1;
        stats_note_error(&s[1], 0,
                         "a long enough message to fill pages quickly, a long enough "
                         "message to fill pages quickly");
        s[1].err_func = 1;
        hist_record(s[0].hist, 1000 + (uint64_t)n * 7919);
        hist_record(s[1].hist, 3000 + (uint64_t)n * 104729);
        iv.second = (uint64_t)n;
        rc = db_interval(d, id, &iv, err, sizeof(err));
    }
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, f->path));
    assert_non_null(strstr(err, "disk full"));
    assert_int_equal(db_failure_kind(d), DB_FAIL_FULL);
    /* Nothing of the failed second, and no transaction left open. */
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM intervals WHERE second = %d", n - 1);
    assert_int_equal(sqlone_int(sq, sql), 0);
    assert_int_equal(sqlite3_get_autocommit(sq), 1);
    ei.status = "degraded";
    ei.ended_us = 1700000009000000;
    ei.duration_us = 9000000;
    ei.totals = s;
    ei.nsteps = 2;
    rc = db_run_end_reason(d, id, &ei, "results database: disk full", err, sizeof(err));
    assert_true(rc == 0 || rc == 1);
    sqlone_text(sq, "SELECT status || ' | ' || status_reason || ' | ' || ended_us FROM runs", buf,
                sizeof(buf));
    assert_string_equal(buf, "degraded | results database: disk full | 1700000009000000");
    stats_free(&s[0]);
    stats_free(&s[1]);
    db_close(d);
}

/* When the totals cannot be written, db_run_end still writes the status and
 * says what was lost; when nothing can be written, it says so. */
static void test_run_end_fallback(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], buf[256];
    db *d = db_open(f->path, err, sizeof(err));
    step_stats s[2];
    db_run_end_info ei = {0};
    sqlite3 *sq;
    int64_t id;

    assert_non_null(d);
    sq = db_sqlite(d);
    id = runfix_begin(d, f->script, NULL);
    stats_init(&s[0]);
    stats_init(&s[1]);
    s[0].count = 1;
    hist_record(s[0].hist, 1000);
    assert_int_equal(sqlite3_exec(sq,
                                  "CREATE TEMP TRIGGER no_totals BEFORE INSERT ON main.step_totals "
                                  "BEGIN SELECT RAISE(FAIL, 'no room for the totals'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    ei.status = "completed";
    ei.ended_us = 1700000005000000;
    ei.duration_us = 5000000;
    ei.totals = s;
    ei.nsteps = 2;
    assert_int_equal(db_run_end(d, id, &ei, err, sizeof(err)), 1);
    assert_non_null(strstr(err, "no room for the totals"));
    assert_non_null(strstr(err, "the status of the run was written, not its totals"));
    sqlone_text(sq, "SELECT status || ' ' || ended_us || ' ' || duration_us FROM runs", buf,
                sizeof(buf));
    assert_string_equal(buf, "completed 1700000005000000 5000000");
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM step_totals"), 0);
    assert_int_equal(sqlone_int(sq, "SELECT count(*) FROM agents WHERE status = 'running'"), 0);
    assert_int_equal(sqlite3_exec(sq,
                                  "CREATE TEMP TRIGGER no_end BEFORE UPDATE ON main.runs "
                                  "BEGIN SELECT RAISE(FAIL, 'read-only now'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(db_run_end(d, id, &ei, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "the status of the run could not be written either"));
    assert_int_equal(sqlite3_get_autocommit(sq), 1);
    stats_free(&s[0]);
    stats_free(&s[1]);
    db_close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_v0, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_v1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_v2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_settings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disk_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_end_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thresholds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuse_newer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_intervals_and_totals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interval_committed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
