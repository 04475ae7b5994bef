/* Unit tests for store/little: Little's law per second, stored and judged. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "store/little.h"

#include <math.h>
#include <string.h>

#include "dbfix.h"

static void test_judge(void **state)
{
    /* 10 VUs paced at 200 ms, runs of 2 ms: 50 runs a second */
    little_row ok = {3, 1000000, 10000000, 50, 50 * 2000, 50 * 198000};
    /* the same VUs, runs piling up: 30 VUs in the system, still 50 runs ended */
    little_row piled = {4, 1000000, 30000000, 50, 50 * 2000, 50 * 198000};
    little_row idle = {5, 1000000, 0, 0, 0, 0};
    little_row small = {6, 1000000, 1500000, 1, 400000, 200000}; /* 1.5 VUs, 0.6 predicted */
    little_point p;

    (void)state;
    little_judge(&ok, &p);
    assert_true(fabs(p.n - 10) < 1e-9);
    assert_true(fabs(p.x - 50) < 1e-9);
    assert_true(fabs(p.r_s - 0.002) < 1e-9);
    assert_true(fabs(p.z_s - 0.198) < 1e-9);
    assert_true(fabs(p.xrz - 10) < 1e-9);
    assert_int_equal(p.holds, 1);
    little_judge(&piled, &p);
    assert_int_equal(p.holds, 0);
    little_judge(&idle, &p);
    assert_int_equal(p.holds, -1);
    little_judge(&small, &p); /* within LITTLE_ABS_VUS */
    assert_int_equal(p.holds, 1);
}

static void test_store(void **state)
{
    fx *f = *state;
    db_run_info ri;
    char err[ERR_MAX] = "";
    little_row a = {0, 1000000, 5000000, 10, 100000, 400000};
    little_row late = {0, 1000000, 1000000, 2, 20000, 80000};
    little_row c = {1, 1000000, 6000000, 12, 120000, 480000};
    little_row *rows;
    size_t n;
    int64_t id;

    memset(&ri, 0, sizeof(ri));
    ri.name = "l";
    ri.script = f->script;
    ri.vus = 5;
    ri.started_us = 1700000000000000;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    assert_int_equal(little_write(f->d, id, &a, err, sizeof(err)), 0);
    assert_int_equal(little_write(f->d, id, &c, err, sizeof(err)), 0);
    assert_int_equal(little_write(f->d, id, &late, err, sizeof(err)), 0); /* adds to second 0 */
    assert_int_equal(little_load(db_sqlite(f->d), id, &rows, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].second, 0);
    assert_int_equal(rows[0].vu_us, 6000000);
    assert_int_equal(rows[0].runs, 12);
    assert_int_equal(rows[0].run_us, 120000);
    assert_int_equal(rows[0].wait_us, 480000);
    assert_int_equal(rows[1].second, 1);
    xfree(rows);
    assert_int_equal(little_load(db_sqlite(f->d), id + 1, &rows, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 0);
    assert_null(rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judge),
        cmocka_unit_test_setup_teardown(test_store, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
