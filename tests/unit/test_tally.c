/* Unit tests for common/tally: names are bounded and checked, and the merge
 * of several workers' seconds is exact and the same in any order (counts and
 * counters add, trends bucket by bucket, a gauge's latest value wins). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "common/tally.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void test_names(void **state)
{
    tally t;
    char err[ERR_MAX], name[TALLY_NAME_MAX + 1];

    tally_init(&t);
    assert_int_equal(tally_check_id(&t, "status is 200"), 0);
    assert_int_equal(tally_check_id(&t, "body"), 1);
    assert_int_equal(tally_check_id(&t, "status is 200"), 0);
    assert_int_equal(tally_check_id(&t, ""), -1);
    for (int i = 2; i < TALLY_CHECKS_MAX; i++) {
        snprintf(name, sizeof(name), "c%d", i);
        assert_int_equal(tally_check_id(&t, name), i);
    }
    assert_int_equal(tally_check_id(&t, "one too many"), -1);
    assert_int_equal(tally_check_id(&t, "body"), 1);

    assert_int_equal(tally_metric_def(&t, "orders", TALLY_COUNTER, err, sizeof(err)), 0);
    assert_int_equal(tally_metric_def(&t, "orders", TALLY_COUNTER, err, sizeof(err)), 0);
    assert_int_equal(tally_metric_def(&t, "orders", TALLY_TREND, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "orders is a counter already, not a trend"));
    assert_int_equal(tally_metric_def(&t, "9lives", TALLY_GAUGE, err, sizeof(err)), -1);
    assert_int_equal(tally_metric_def(&t, "a-b", TALLY_GAUGE, err, sizeof(err)), -1);
    memset(name, 'x', TALLY_NAME_MAX);
    name[TALLY_NAME_MAX] = '\0';
    assert_int_equal(tally_metric_def(&t, name, TALLY_GAUGE, err, sizeof(err)), -1);
    for (int i = 1; i < TALLY_METRICS_MAX; i++) {
        snprintf(name, sizeof(name), "m_%d", i);
        assert_int_equal(tally_metric_def(&t, name, TALLY_TREND, err, sizeof(err)), i);
    }
    assert_int_equal(tally_metric_def(&t, "last", TALLY_GAUGE, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "more than 64 metrics"));
    tally_free(&t);
}

/* One worker's second: its checks, a counter, a gauge set at set_us, a trend. */
static void worker_second(tally *w, uint64_t pass, uint64_t fail, double add, double gauge,
                          int64_t set_us, const double *vals, size_t nvals)
{
    char err[ERR_MAX];
    int c = tally_check_id(w, "status is 200");
    int k = tally_metric_def(w, "orders", TALLY_COUNTER, err, sizeof(err));
    int g = tally_metric_def(w, "queue", TALLY_GAUGE, err, sizeof(err));
    int tr = tally_metric_def(w, "basket_ms", TALLY_TREND, err, sizeof(err));

    w->checks[c].passes += pass;
    w->checks[c].fails += fail;
    tally_counter_add(&w->metrics[k], add);
    tally_gauge_set(&w->metrics[g], gauge, set_us);
    for (size_t i = 0; i < nvals; i++)
        tally_trend_add(&w->metrics[tr], vals[i]);
}

static void test_merge_exact(void **state)
{
    tally a, b, ab, ba, run;
    double va[] = {1.5, 2.25, 300}, vb[] = {0.001, 7, 7, 2.25};
    char err[ERR_MAX];
    uint64_t p, f;
    int k, g, tr;

    tally_init(&a);
    tally_init(&b);
    tally_init(&ab);
    tally_init(&ba);
    tally_init(&run);
    worker_second(&a, 9, 1, 3, 4, 2000, va, 3);
    tally_gauge_set(&a.metrics[1], 12, 1000); /* an older set: the latest stays */
    a.metrics[1].value = 4;
    a.metrics[1].set_us = 2000;
    worker_second(&b, 18, 2, 0.5, 7, 1500, vb, 4);

    assert_int_equal(tally_merge(&ab, &a, err, sizeof(err)), 0);
    assert_int_equal(tally_merge(&ab, &b, err, sizeof(err)), 0);
    assert_int_equal(tally_merge(&ba, &b, err, sizeof(err)), 0);
    assert_int_equal(tally_merge(&ba, &a, err, sizeof(err)), 0);
    for (tally *t = &ab; t != NULL; t = t == &ab ? &ba : NULL) {
        k = tally_metric_find(t, "orders");
        g = tally_metric_find(t, "queue");
        tr = tally_metric_find(t, "basket_ms");
        assert_true(k >= 0 && g >= 0 && tr >= 0);
        assert_int_equal(t->checks[tally_check_find(t, "status is 200")].passes, 27);
        assert_int_equal(t->checks[tally_check_find(t, "status is 200")].fails, 3);
        assert_true(t->metrics[k].sum == 3.5);
        assert_true(t->metrics[g].value == 4); /* set last, at 2000 */
        assert_true(t->metrics[g].min == 4 && t->metrics[g].max == 12);
        assert_int_equal(hist_count(t->metrics[tr].h), 7);
        assert_true(tally_trend_stat(&t->metrics[tr], "max", 0) == 300);
        assert_true(tally_trend_stat(&t->metrics[tr], "min", 0) == 0.001);
        /* a percentile is its bucket's midpoint: within 1/256 */
        assert_true(fabs(tally_trend_stat(&t->metrics[tr], NULL, 50) - 2.25) <= 2.25 / 256);
    }
    /* a second worker's metric order differs: merged by name all the same */
    assert_int_equal(hist_sum(ab.metrics[tally_metric_find(&ab, "basket_ms")].h),
                     hist_sum(ba.metrics[tally_metric_find(&ba, "basket_ms")].h));

    /* the run adds seconds; a worker's next second keeps its gauge only */
    assert_int_equal(tally_merge(&run, &ab, err, sizeof(err)), 0);
    tally_next(&a);
    assert_int_equal(a.checks[0].passes, 0);
    assert_true(a.metrics[1].has_value && a.metrics[1].value == 4);
    assert_int_equal(hist_count(a.metrics[2].h), 0);
    worker_second(&a, 1, 0, 1, 9, 3000, va, 1);
    assert_int_equal(tally_merge(&run, &a, err, sizeof(err)), 0);
    tally_checks_all(&run, &p, &f);
    assert_int_equal(p, 28);
    assert_int_equal(f, 3);
    assert_true(run.metrics[tally_metric_find(&run, "orders")].sum == 4.5);
    assert_true(run.metrics[tally_metric_find(&run, "queue")].value == 9);
    assert_true(run.metrics[tally_metric_find(&run, "queue")].max == 12);
    assert_int_equal(hist_count(run.metrics[tally_metric_find(&run, "basket_ms")].h), 8);

    /* a reset sum forgets the gauge */
    tally_reset(&ab);
    assert_false(ab.metrics[tally_metric_find(&ab, "queue")].has_value);
    tally_free(&a);
    tally_free(&b);
    tally_free(&ab);
    tally_free(&ba);
    tally_free(&run);
}

/* A trend of whole numbers has whole percentiles, as its values were,
 * merged from any worker; one fraction anywhere keeps the buckets' figure. */
static void test_trend_whole(void **state)
{
    tally a, b, run;
    char err[ERR_MAX];
    int ia, ib, ir;

    (void)state;
    tally_init(&a);
    tally_init(&b);
    tally_init(&run);
    ia = tally_metric_def(&a, "items", TALLY_TREND, err, sizeof(err));
    ib = tally_metric_def(&b, "items", TALLY_TREND, err, sizeof(err));
    for (int i = 0; i < 99; i++)
        tally_trend_add(&a.metrics[ia], 1 + i % 3); /* the buckets said 1.002, 2.004 */
    assert_true(tally_trend_stat(&a.metrics[ia], NULL, 50) == 2);
    assert_true(tally_trend_stat(&a.metrics[ia], "min", 0) == 1);
    assert_true(tally_trend_stat(&a.metrics[ia], "max", 0) == 3);
    tally_trend_add(&b.metrics[ib], 5000); /* its bucket wider than 1: a whole number still */
    assert_int_equal(tally_merge(&run, &a, err, sizeof(err)), 0);
    assert_int_equal(tally_merge(&run, &b, err, sizeof(err)), 0);
    ir = tally_metric_find(&run, "items");
    assert_true(tally_trend_stat(&run.metrics[ir], NULL, 50) == 2);
    assert_true(tally_trend_stat(&run.metrics[ir], "max", 0) ==
                floor(tally_trend_stat(&run.metrics[ir], "max", 0)));
    assert_false(run.metrics[ir].fraction);
    tally_next(&b);
    tally_trend_add(&b.metrics[ib], 1004.5);
    assert_int_equal(tally_merge(&run, &b, err, sizeof(err)), 0);
    assert_true(run.metrics[ir].fraction);
    tally_free(&a);
    tally_free(&b);
    tally_free(&run);
}

static void test_merge_kind_clash(void **state)
{
    tally a, b;
    char err[ERR_MAX];

    tally_init(&a);
    tally_init(&b);
    assert_int_equal(tally_metric_def(&a, "x", TALLY_COUNTER, err, sizeof(err)), 0);
    assert_int_equal(tally_metric_def(&b, "x", TALLY_TREND, err, sizeof(err)), 0);
    assert_int_equal(tally_merge(&a, &b, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "counter"));
    tally_free(&a);
    tally_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_merge_exact),
        cmocka_unit_test(test_merge_kind_clash),
        cmocka_unit_test(test_trend_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
