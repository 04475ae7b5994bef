/* Unit tests for store/monitor_series (and the rows store/monitor_db writes): a
 * run's monitored hosts written, then read back into chart points. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "store/monitor_db.h"
#include "store/monitor_series.h"

#include "tests/unit/dbfix.h"

static int64_t begin(fx *f)
{
    db_run_info ri = {0};
    char err[ERR_MAX];
    int64_t id;

    ri.name = "plan";
    ri.script = f->script;
    ri.vus = 1;
    ri.started_us = 1700000000000000;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    return id;
}

static void test_round_trip(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    int64_t id = begin(f);
    monitor_db *m = monitor_db_new(f->d, err, sizeof(err));
    const char *names[3] = {"cpu_busy", "load1", "app_pool{p=\"a\"}"};
    monitor_series ms;

    assert_non_null(m);
    assert_int_equal(monitor_db_host(m, id, 0, "h:9100", "http://h:9100/metrics", err, sizeof(err)),
                     0);
    assert_int_equal(monitor_db_host(m, id, 1, "g:1", "http://u:***@g:1/", err, sizeof(err)), 0);
    for (int s = 0; s < 6; s++) {
        double v[3] = {0.1 * s, s, s == 2 ? NAN : 7};
        assert_int_equal(monitor_db_samples(m, id, 0, s, names, v, 3, err, sizeof(err)), 0);
    }
    {
        double again[1] = {0.9}; /* a second written twice keeps the later value */
        assert_int_equal(monitor_db_samples(m, id, 0, 5, names, again, 1, err, sizeof(err)), 0);
    }
    assert_int_equal(monitor_db_problem(m, id, 1, "cannot scrape it: refused", err, sizeof(err)),
                     0);
    assert_int_equal(monitor_db_problem(m, id, 1, "a later one", err, sizeof(err)), 0);
    monitor_db_free(m);

    /* 3 points of 2 s: means of the seconds with a sample; cpu in percent */
    assert_int_equal(monitor_series_load(db_sqlite(f->d), id, 3, 2, &ms, err, sizeof(err)), 0);
    assert_int_equal(ms.nhosts, 2);
    assert_string_equal(ms.hosts[0].host, "h:9100");
    assert_null(ms.hosts[0].problem);
    assert_string_equal(ms.hosts[1].problem, "cannot scrape it: refused");
    assert_string_equal(ms.hosts[1].url, "http://u:***@g:1/");
    {
        const double *c = monitor_series_get(&ms, 0, "cpu_busy");
        const double *l = monitor_series_get(&ms, 0, "load1");
        const double *a = monitor_series_get(&ms, 0, "app_pool{p=\"a\"}");
        assert_non_null(c);
        assert_true(fabs(c[0] - 5) < 1e-9); /* (0 + 0.1) / 2, in % */
        assert_true(fabs(c[2] - (40 + 90) / 2.0) < 1e-9);
        assert_true(fabs(l[1] - 2.5) < 1e-9); /* a count, not scaled */
        assert_true(fabs(a[1] - 7) < 1e-9);   /* second 2 had none: second 3 alone */
        assert_null(monitor_series_get(&ms, 0, "disk_busy"));
        assert_null(monitor_series_get(&ms, 1, "cpu_busy"));
        assert_null(monitor_series_get(&ms, 5, "cpu_busy"));
        assert_true(fabs(monitor_series_mean(c, 0, 3) - (5 + 25 + 65) / 3.0) < 1e-9);
        assert_true(isnan(monitor_series_mean(NULL, 0, 3)));
    }
    monitor_series_free(&ms);
    /* fewer points than seconds: the later seconds are left out */
    assert_int_equal(monitor_series_load(db_sqlite(f->d), id, 1, 1, &ms, err, sizeof(err)), 0);
    assert_true(fabs(monitor_series_get(&ms, 0, "load1")[0] - 0) < 1e-9);
    monitor_series_free(&ms);
    /* a run without monitored hosts */
    assert_int_equal(monitor_series_load(db_sqlite(f->d), begin(f), 3, 1, &ms, err, sizeof(err)),
                     0);
    assert_int_equal(ms.nhosts, 0);
    monitor_series_free(&ms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
