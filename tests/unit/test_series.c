/* Unit tests for store/series: a run's seconds grouped into chart points,
 * read back through query_run_load, including a database whose interval
 * lengths are huge (written by hand or damaged): their sums saturate
 * instead of overflowing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "common/stats.h"
#include "store/db.h"
#include "store/query.h"
#include "store/series.h"

#include "tests/unit/dbfix.h"

/* Writes a run of one step over nsec seconds, 4 samples of 2 ms a second,
 * each interval 1 s long. */
static int64_t write_run(fx *f, uint64_t nsec)
{
    static const db_step steps[1] = {{"SC-S-STEP-1", "Login", "S"}};
    static const char *const scens[1] = {"S"};
    db_run_info ri = {0};
    step_stats s;
    uint64_t runs = 1, missed = 0;
    rate_counts arr = {0, 0, 0, 0, 0, 0};
    db_iv iv = {0};
    char err[ERR_MAX];
    int64_t id;

    ri.name = "plan";
    ri.script = f->script;
    ri.vus = 3;
    ri.started_us = 1700000000000000;
    ri.steps = steps;
    ri.nsteps = 1;
    ri.scen_names = scens;
    ri.nscens = 1;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    stats_init(&s);
    iv.length_us = 1000000;
    iv.active_vus = 3;
    iv.steps = &s;
    iv.nsteps = 1;
    iv.runs = &runs;
    iv.missed = &missed;
    iv.nscens = 1;
    iv.arrivals = &arr;
    for (uint64_t sec = 0; sec < nsec; sec++) {
        stats_reset(&s);
        s.count = 4;
        for (int i = 0; i < 4; i++)
            hist_record(s.hist, 2000);
        iv.second = sec;
        iv.start_us = ri.started_us + (int64_t)sec * 1000000;
        assert_int_equal(db_interval(f->d, id, &iv, err, sizeof(err)), 0);
    }
    stats_free(&s);
    return id;
}

static void exec_sql(fx *f, const char *sql)
{
    char *msg = NULL;

    if (sqlite3_exec(db_sqlite(f->d), sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
}

/* One point a second: the counts as rates, the percentiles from the
 * histograms, the VUs, the summed length. */
static void test_points(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    int64_t id = write_run(f, 3);
    query_run *r = query_run_load(f->d, id, 0, NULL, err, sizeof(err));

    assert_non_null(r);
    assert_int_equal(r->width_s, 1);
    assert_int_equal(r->npts, 3);
    assert_int_equal(r->elapsed_us, 3000000);
    for (size_t p = 0; p < 3; p++) {
        assert_true(fabs(r->all.ts.rps[p] - 4.0) < 1e-9);
        assert_true(fabs(r->vus_ts[p] - 3.0) < 1e-9);
        assert_true(fabs(r->all.ts.p50_ms[p] - 2.0) < 0.05);
    }
    query_run_free(r);
}

/* Two seconds whose length_us is the largest int64: their sum (and the
 * sum of their point's lengths) stays INT64_MAX, with no signed overflow
 * (UBSan stops the test at one), and the rates of those points are finite
 * and not negative. */
static void test_huge_lengths(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], sql[256];
    int64_t id = write_run(f, 4);
    query_run *r;

    snprintf(sql, sizeof(sql),
             "UPDATE intervals SET length_us = 9223372036854775807 WHERE run_id = %lld "
             "AND second IN (1, 2)",
             (long long)id);
    exec_sql(f, sql);
    r = query_run_load(f->d, id, 2, NULL, err, sizeof(err));
    assert_non_null(r);
    assert_int_equal(r->elapsed_us, INT64_MAX);
    assert_int_equal(r->npts, 2);
    for (size_t p = 0; p < r->npts; p++) {
        assert_true(isfinite(r->all.ts.rps[p]));
        assert_true(r->all.ts.rps[p] >= 0.0);
    }
    query_run_free(r);
}

/* A negative length_us counts for nothing; the others still add up. */
static void test_negative_length(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], sql[256];
    int64_t id = write_run(f, 3);
    query_run *r;

    snprintf(sql, sizeof(sql),
             "UPDATE intervals SET length_us = -9223372036854775807 WHERE run_id = %lld "
             "AND second = 1",
             (long long)id);
    exec_sql(f, sql);
    r = query_run_load(f->d, id, 0, NULL, err, sizeof(err));
    assert_non_null(r);
    assert_int_equal(r->elapsed_us, 2000000);
    query_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_points, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_huge_lengths, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_negative_length, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
