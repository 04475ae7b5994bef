/* Unit tests for store/catalog: listing runs with their sums, finding the
 * newest, a run's name, a comparison's default baseline, run id arguments. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "common/stats.h"
#include "store/catalog.h"
#include "store/db.h"

#include "tests/unit/dbfix.h"

/* A run named name with one step and one second of n samples (errs of them
 * errors); ended with status (totals included) unless status is NULL. */
static int64_t add_run(fx *f, const char *name, uint64_t n, uint64_t errs, const char *status)
{
    static const db_step steps[1] = {{"SC-S-STEP-1", "Home", "S"}};
    db_run_info ri = {0};
    step_stats s;
    db_iv iv = {0};
    char err[ERR_MAX];
    int64_t id;

    ri.name = name;
    ri.script = f->script;
    ri.vus = 1;
    ri.started_us = 1700000000000000;
    ri.steps = steps;
    ri.nsteps = 1;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    stats_init(&s);
    s.count = n;
    s.err_func = errs;
    for (uint64_t i = 0; i < n; i++)
        hist_record(s.hist, 2000);
    iv.length_us = 2000000;
    iv.steps = &s;
    iv.nsteps = 1;
    assert_int_equal(db_interval(f->d, id, &iv, err, sizeof(err)), 0);
    if (status != NULL) {
        db_run_end_info ei = {status, ri.started_us + 2000000, 2000000, &s, 1, NULL};
        assert_int_equal(db_run_end(f->d, id, &ei, err, sizeof(err)), 0);
    }
    stats_free(&s);
    return id;
}

static void test_list(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    catalog_row *rows = NULL;
    size_t n = 0;
    int64_t a = add_run(f, "plan", 10, 1, "completed");
    int64_t b = add_run(f, "other", 4, 0, NULL);

    assert_int_equal(catalog_list(f->d, NULL, 0, &rows, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].id, b); /* newest first */
    assert_string_equal(rows[0].status, "running");
    assert_int_equal(rows[0].count, 4); /* not ended: from its intervals */
    assert_int_equal(rows[0].duration_us, 2000000);
    assert_int_equal(rows[1].id, a);
    assert_string_equal(rows[1].name, "plan");
    assert_int_equal(rows[1].count, 10);
    assert_int_equal(rows[1].errors, 1);
    assert_true(rows[1].p95_us >= 1900 && rows[1].p95_us <= 2100);
    catalog_free(rows, n);

    assert_int_equal(catalog_list(f->d, "plan", 0, &rows, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].id, a);
    catalog_free(rows, n);
    assert_int_equal(catalog_list(f->d, NULL, 1, &rows, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    catalog_free(rows, n);
    catalog_free(NULL, 0);
}

static void test_find_and_baseline(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], *name = NULL;
    int64_t id = -1, base = -1;
    int complete = -1;
    int64_t a = add_run(f, "plan", 5, 0, "completed");
    int64_t b = add_run(f, "plan", 5, 0, NULL); /* still running */
    int64_t c = add_run(f, "plan", 5, 0, "completed");
    int64_t o = add_run(f, "other", 5, 0, "completed");

    assert_int_equal(catalog_find(f->d, NULL, 0, &id, err, sizeof(err)), 0);
    assert_int_equal(id, o);
    assert_int_equal(catalog_find(f->d, "plan", 0, &id, err, sizeof(err)), 0);
    assert_int_equal(id, c);
    assert_int_equal(catalog_find(f->d, "plan", a, &id, err, sizeof(err)), 0);
    assert_int_equal(id, 0);
    assert_int_equal(catalog_complete(f->d, b, &complete, err, sizeof(err)), 0);
    assert_int_equal(complete, 0);
    assert_int_equal(catalog_complete(f->d, c, &complete, err, sizeof(err)), 0);
    assert_int_equal(complete, 1);
    /* The baselines of a run: the passed ones before it, newest first,
     * never one still running, failed or regressed. */
    {
        int64_t e = add_run(f, "plan", 5, 0, "completed"), g, ids[4];
        size_t n = 9;
        sqlite3 *sq = db_sqlite(f->d);
        assert_int_equal(sqlite3_exec(sq, "UPDATE runs SET verdict = 'passed'", NULL, NULL, NULL),
                         SQLITE_OK);
        g = add_run(f, "plan", 5, 0, "completed");
        assert_int_equal(
            sqlite3_exec(sq, "UPDATE runs SET verdict = 'passed' WHERE id = 6", NULL, NULL, NULL),
            SQLITE_OK);
        assert_int_equal(g, 6);
        assert_int_equal(catalog_passed(f->d, "plan", g, 4, ids, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 3); /* e, c, a: b never ended */
        assert_int_equal(ids[0], e);
        assert_int_equal(ids[1], c);
        assert_int_equal(ids[2], a);
        assert_int_equal(catalog_passed(f->d, "plan", g, 1, ids, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 1);
        assert_int_equal(
            catalog_mark_regressed(f->d, e, "SC-S-STEP-1 (p95 +70.0%)", err, sizeof(err)), 0);
        assert_int_equal(
            sqlite3_exec(sq, "UPDATE runs SET verdict = 'failed' WHERE id = 3", NULL, NULL, NULL),
            SQLITE_OK);
        assert_int_equal(catalog_passed(f->d, "plan", g, 4, ids, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 1); /* e regressed, c failed */
        assert_int_equal(ids[0], a);
        assert_int_equal(catalog_passed(f->d, "plan", a, 4, ids, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 0);
        /* tag:KEY[=VALUE]: the newest complete run before so tagged */
        assert_int_equal(sqlite3_exec(sq,
                                      "UPDATE runs SET tags = '{\"release\":\"1.2\"}' "
                                      "WHERE id IN (1, 2)",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
        assert_int_equal(catalog_tagged(f->d, "release", "1.2", g, &base, err, sizeof(err)), 0);
        assert_int_equal(base, a); /* b is tagged too, but never ended */
        assert_int_equal(catalog_tagged(f->d, "release", NULL, 0, &base, err, sizeof(err)), 0);
        assert_int_equal(base, a);
        assert_int_equal(catalog_tagged(f->d, "release", "1.3", 0, &base, err, sizeof(err)), 0);
        assert_int_equal(base, 0);
    }
    assert_int_equal(catalog_name(f->d, o, &name, err, sizeof(err)), 0);
    assert_string_equal(name, "other");
    xfree(name);
    assert_int_equal(catalog_name(f->d, 99, &name, err, sizeof(err)), 0);
    assert_null(name);
}

static void test_parse_id(void **state)
{
    assert_int_equal(catalog_parse_id("12"), 12);
    assert_int_equal(catalog_parse_id("0"), 0);
    assert_int_equal(catalog_parse_id("-3"), 0);
    assert_int_equal(catalog_parse_id("+3"), 0);
    assert_int_equal(catalog_parse_id("3x"), 0);
    assert_int_equal(catalog_parse_id(""), 0);
    assert_int_equal(catalog_parse_id(NULL), 0);
    assert_int_equal(catalog_parse_id("99999999999999999999"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_list, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_find_and_baseline, setup_open, teardown),
        cmocka_unit_test(test_parse_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
