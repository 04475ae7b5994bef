/* Thresholds on the script's checks and custom metrics
 * (console/threshtally.c), parsed by thresh_parse and judged on a run's
 * tally: every check merged or one by name, exactly at the limit; a check
 * that never ran fails; a counter's total and rate, a gauge's value, min
 * and max, a trend's percentile, mean and count; a metric without a value
 * fails; before the run, a metric the script does not declare or a field
 * its kind has not is refused, and a limit that is not a finite number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "common/err.h"
#include "console/agg.h"
#include "console/thresh.h"
#include "console/threshtally.h"

/* t judged on a after elapsed_s (the threshold freed). */
static thresh_result judge(const char *expr, const agg *a, double elapsed_s)
{
    char err[ERR_MAX];
    thresh *t = thresh_parse(expr, err, sizeof(err));
    thresh_result r;

    if (t == NULL)
        fail_msg("%s: %s", expr, err);
    memset(&r, 0, sizeof(r));
    threshtally_eval(t, a, elapsed_s, &r);
    thresh_free(t);
    return r;
}

static void test_checks(void **state)
{
    agg a;
    int ok, body;
    thresh_result r;

    agg_init(&a, 1, 1);
    r = judge("checks>=99%", &a, 1);
    assert_false(r.passed);
    assert_int_equal(r.samples, 0);
    assert_non_null(strstr(r.desc, "no check ran"));

    ok = tally_check_id(&a.tally, "status is 200");
    body = tally_check_id(&a.tally, "body");
    a.tally.checks[ok].passes = 999;
    a.tally.checks[ok].fails = 1;
    r = judge("checks{status is 200}>=99.9%", &a, 1); /* exactly at the limit */
    assert_true(r.passed);
    assert_int_equal(r.samples, 1000);
    assert_true(fabs(r.measured - 99.9) < 1e-9);
    assert_true(fabs(r.limit - 99.9) < 1e-9);
    assert_non_null(strstr(r.desc, "checks{status is 200} = 99.9 % (999 of 1000 passed)"));
    r = judge("checks{status is 200}>99.9%", &a, 1);
    assert_false(r.passed);
    /* every check merged: 999 + 0 of 1000 + 1000 */
    a.tally.checks[body].fails = 1000;
    r = judge("checks>=50%", &a, 1);
    assert_false(r.passed);
    assert_int_equal(r.samples, 2000);
    r = judge("checks<50%", &a, 1);
    assert_true(r.passed);
    r = judge("checks{missing}>=1%", &a, 1);
    assert_false(r.passed);
    assert_non_null(strstr(r.desc, "checks{missing}: no such check ran"));
    agg_free(&a);
}

static void test_metrics(void **state)
{
    agg a;
    char err[ERR_MAX];
    int c, g, t;
    thresh_result r;

    agg_init(&a, 1, 1);
    c = tally_metric_def(&a.tally, "items", TALLY_COUNTER, err, sizeof(err));
    g = tally_metric_def(&a.tally, "queue", TALLY_GAUGE, err, sizeof(err));
    t = tally_metric_def(&a.tally, "size", TALLY_TREND, err, sizeof(err));
    assert_true(c >= 0 && g >= 0 && t >= 0);
    r = judge("metric{items}<10", &a, 2);
    assert_false(r.passed); /* nothing recorded yet */
    assert_non_null(strstr(r.desc, "metric{items}: no value recorded"));

    tally_counter_add(&a.tally.metrics[c], 6);
    tally_counter_add(&a.tally.metrics[c], 2);
    r = judge("metric{items}<10", &a, 2);
    assert_true(r.passed);
    assert_true(r.measured == 8.0);
    assert_non_null(strstr(r.desc, "metric{items}.total = 8, limit < 10"));
    r = judge("metric{items}.rate>=4", &a, 2); /* 8 over 2 s */
    assert_true(r.passed);
    assert_true(r.measured == 4.0);
    r = judge("metric{items}.rate>4", &a, 2);
    assert_false(r.passed);

    r = judge("metric{queue}<=5", &a, 2); /* declared, never set */
    assert_false(r.passed);
    assert_non_null(strstr(r.desc, "metric{queue}: no value recorded"));
    tally_gauge_set(&a.tally.metrics[g], 7, 1000);
    tally_gauge_set(&a.tally.metrics[g], 3, 2000);
    tally_gauge_set(&a.tally.metrics[g], 5, 3000);
    r = judge("metric{queue}<=5", &a, 2);
    assert_true(r.passed);
    assert_true(r.measured == 5.0); /* the value last set */
    assert_true(judge("metric{queue}.min>=3", &a, 2).passed);
    assert_false(judge("metric{queue}.min>3", &a, 2).passed);
    assert_true(judge("metric{queue}.max<=7", &a, 2).passed);
    assert_false(judge("metric{queue}.max<7", &a, 2).passed);

    for (int i = 1; i <= 100; i++)
        tally_trend_add(&a.tally.metrics[t], i);
    r = judge("metric{size}.p95<=96", &a, 2);
    assert_true(r.passed);
    assert_int_equal(r.samples, 100);
    assert_true(fabs(r.measured - 95.0) <= 1.0);
    assert_false(judge("metric{size}:p95<90", &a, 2).passed); /* ':' for '.' */
    assert_true(fabs(judge("metric{size}.mean>0", &a, 2).measured - 50.5) < 0.5);
    assert_true(judge("metric{size}.count>=100", &a, 2).passed);
    assert_false(judge("metric{size}.count>100", &a, 2).passed);
    r = judge("metric{size}<1", &a, 2); /* a trend has no default field */
    assert_false(r.passed);
    assert_non_null(strstr(r.desc, "metric{size} is a trend: it has no default field"));
    agg_free(&a);
}

/* Before the run: against the metrics the script declares. */
static void test_check(void **state)
{
    tally decl;
    char err[ERR_MAX];
    thresh *t;

    tally_init(&decl);
    assert_true(tally_metric_def(&decl, "items", TALLY_COUNTER, err, sizeof(err)) >= 0);
    assert_true(tally_metric_def(&decl, "size", TALLY_TREND, err, sizeof(err)) >= 0);

    t = thresh_parse("metric{items}.rate>1", err, sizeof(err));
    assert_int_equal(threshtally_check(t, &decl, err, sizeof(err)), 0);
    thresh_free(t);
    t = thresh_parse("metric{size}.p99<100", err, sizeof(err));
    assert_int_equal(threshtally_check(t, &decl, err, sizeof(err)), 0);
    thresh_free(t);
    t = thresh_parse("p95<100ms", err, sizeof(err)); /* not about metrics */
    assert_int_equal(threshtally_check(t, &decl, err, sizeof(err)), 0);
    thresh_free(t);

    t = thresh_parse("metric{nope}>1", err, sizeof(err));
    assert_int_equal(threshtally_check(t, &decl, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "'metric{nope}>1': the script declares no metric nope"));
    thresh_free(t);
    t = thresh_parse("metric{items}.p95>1", err, sizeof(err));
    assert_int_equal(threshtally_check(t, &decl, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "items is a counter, which has no p95"));
    thresh_free(t);
    t = thresh_parse("metric{size}>1", err, sizeof(err));
    assert_int_equal(threshtally_check(t, &decl, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "size is a trend, which has no default field"));
    thresh_free(t);

    /* a limit that is not a finite number */
    assert_null(thresh_parse("metric{items}<lots", err, sizeof(err)));
    assert_non_null(strstr(err, "\"lots\" is not a number"));
    assert_null(thresh_parse("metric{items}<inf", err, sizeof(err)));
    assert_null(thresh_parse("metric{items}<5x", err, sizeof(err)));
    tally_free(&decl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
