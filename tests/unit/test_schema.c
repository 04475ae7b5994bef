/* Unit tests for store/schema: the compiled schema is store/schema.sql,
 * its migrations are found in order, and running them makes the tables the
 * readers expect. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "store/db.h"
#include "store/schema.h"

#include "tests/unit/sqlone.h"

/* The compiled schema is store/schema.sql, byte for byte. */
static void test_file_matches(void **state)
{
    FILE *f = fopen("store/schema.sql", "rb");
    char *file;
    long n;

    if (f == NULL) /* run from the repository root (tests/run.sh does) */
        skip();
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    file = xcalloc((size_t)n + 1, 1);
    assert_int_equal(fread(file, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    assert_int_equal(schema_sql_len, (size_t)n);
    assert_int_equal(strlen(schema_sql), schema_sql_len);
    assert_memory_equal(schema_sql, file, (size_t)n);
    xfree(file);
}

/* One block per schema version, each opening with its mark; together with
 * the header comment before the first they are the whole file. */
static void test_migrations(void **state)
{
    size_t total = 0;
    const char *first;

    assert_int_equal(schema_migrations(), DB_SCHEMA_VERSION);
    assert_null(schema_migration(0));
    assert_null(schema_migration(DB_SCHEMA_VERSION + 1));
    for (unsigned i = 1; i <= DB_SCHEMA_VERSION; i++) {
        char mark[32];
        char *sql = schema_migration(i);

        assert_non_null(sql);
        snprintf(mark, sizeof(mark), "-- @migration %u\n", i);
        assert_memory_equal(sql, mark, strlen(mark));
        /* No later mark inside the block. */
        snprintf(mark, sizeof(mark), "-- @migration %u\n", i + 1);
        assert_null(strstr(sql, mark));
        total += strlen(sql);
        xfree(sql);
    }
    first = strstr(schema_sql, "\n-- @migration 1\n");
    assert_non_null(first);
    assert_int_equal((size_t)(first + 1 - schema_sql) + total, schema_sql_len);
}

static int has_table(sqlite3 *sq, const char *name)
{
    sqlite3_stmt *st;
    int n;

    assert_int_equal(sqlite3_prepare_v2(sq,
                                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                        "AND name = ?",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* A fresh database made from the migrations has every table. */
static void test_fresh_tables(void **state)
{
    static const char *const tables[] = {
        "runs",        "agents", "steps",           "intervals",  "step_intervals",
        "step_totals", "errors", "scenario_totals", "thresholds", "slowest",
    };
    sqlite3 *sq;

    assert_int_equal(sqlite3_open(":memory:", &sq), SQLITE_OK);
    for (unsigned i = 1; i <= DB_SCHEMA_VERSION; i++) {
        char *sql = schema_migration(i);
        assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
        xfree(sql);
    }
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        assert_int_equal(has_table(sq, tables[i]), 1);
    assert_int_equal(has_table(sq, "runs_v3"), 0);
    sqlite3_close(sq);
}

static void exec_ok(sqlite3 *sq, const char *sql)
{
    assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
}

/* The migration adding the WebSocket message counters keeps an older
 * database's rows, with 0 messages, and then stores the four counters of
 * each second and of the totals. */
static void test_ws_messages(void **state)
{
    sqlite3 *sq;
    unsigned ws = 0;

    for (unsigned i = 1; i <= DB_SCHEMA_VERSION && ws == 0; i++) {
        char *sql = schema_migration(i);
        if (strstr(sql, "ADD COLUMN ws_sent") != NULL)
            ws = i;
        xfree(sql);
    }
    assert_true(ws > 1);
    assert_int_equal(sqlite3_open(":memory:", &sq), SQLITE_OK);
    for (unsigned i = 1; i <= DB_SCHEMA_VERSION; i++) {
        char *sql = schema_migration(i);
        if (i == ws) {
            exec_ok(sq, "INSERT INTO step_intervals (run_id, second, step_index, count, err_tech, "
                        "err_func, bytes_in, bytes_out, sum_dns, sum_connect, sum_tls, sum_ttfb, "
                        "new_conns, histogram) VALUES (1, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, '')");
            exec_ok(sq, "INSERT INTO step_totals (run_id, step_index, count, err_tech, err_func, "
                        "bytes_in, bytes_out, sum_dns, sum_connect, sum_tls, sum_ttfb, new_conns, "
                        "tps, mean_us, min_us, p50_us, p90_us, p95_us, p99_us, max_us, histogram) "
                        "VALUES (1, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, '')");
        }
        exec_ok(sq, sql);
        xfree(sql);
    }
    assert_int_equal(sqlone_int(sq, "SELECT count + ws_sent + ws_recv + ws_bytes_sent + "
                                    "ws_bytes_recv FROM step_intervals"),
                     5);
    assert_int_equal(sqlone_int(sq, "SELECT count + ws_sent + ws_recv + ws_bytes_sent + "
                                    "ws_bytes_recv FROM step_totals"),
                     5);
    exec_ok(sq, "INSERT INTO step_intervals (run_id, second, step_index, count, err_tech, "
                "err_func, bytes_in, bytes_out, sum_dns, sum_connect, sum_tls, sum_ttfb, "
                "new_conns, histogram, ws_sent, ws_recv, ws_bytes_sent, ws_bytes_recv) "
                "VALUES (1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '', 3, 4, 30, 400)");
    assert_int_equal(sqlone_int(sq, "SELECT sum(ws_sent) * 1000000 + sum(ws_recv) * 10000 + "
                                    "sum(ws_bytes_sent) * 1000 + sum(ws_bytes_recv) FROM "
                                    "step_intervals"),
                     3000000 + 40000 + 30000 + 400);
    sqlite3_close(sq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_matches),
        cmocka_unit_test(test_migrations),
        cmocka_unit_test(test_fresh_tables),
        cmocka_unit_test(test_ws_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
