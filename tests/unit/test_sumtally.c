/* Unit tests for console/sumtally: the script's soft checks and custom
 * metrics in the end summary (the checks' table with its "All checks" line,
 * each metric's figures by kind, a counter's rate over the run's time, a
 * gauge never set said so, names made safe for a terminal) and in the JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "console/agg.h"
#include "console/sumtally.h"

/* An agg of 10 s holding two checks (95/5 and one that raises an escape
 * sequence in its name), a counter, a gauge set, one never set, a trend. */
static agg *fixture(void)
{
    agg *a = xcalloc(1, sizeof(*a));
    char err[ERR_MAX];
    int c;

    tally_init(&a->tally);
    a->elapsed_us = 10000000;
    c = tally_check_id(&a->tally, "status is 200");
    assert_true(c >= 0);
    a->tally.checks[c].passes = 95;
    a->tally.checks[c].fails = 5;
    c = tally_check_id(&a->tally, "bad\x1b[2Jname");
    assert_true(c >= 0);
    a->tally.checks[c].fails = 1;
    assert_true(tally_metric_def(&a->tally, "carts", TALLY_COUNTER, err, sizeof(err)) >= 0);
    assert_true(tally_metric_def(&a->tally, "queue", TALLY_GAUGE, err, sizeof(err)) >= 0);
    assert_true(tally_metric_def(&a->tally, "idle", TALLY_GAUGE, err, sizeof(err)) >= 0);
    assert_true(tally_metric_def(&a->tally, "basket", TALLY_TREND, err, sizeof(err)) >= 0);
    tally_counter_add(&a->tally.metrics[tally_metric_find(&a->tally, "carts")], 25);
    tally_gauge_set(&a->tally.metrics[tally_metric_find(&a->tally, "queue")], 9, 1);
    tally_gauge_set(&a->tally.metrics[tally_metric_find(&a->tally, "queue")], 3, 2);
    for (int i = 1; i <= 4; i++)
        tally_trend_add(&a->tally.metrics[tally_metric_find(&a->tally, "basket")], 10.0 * i);
    return a;
}

static void fixture_free(agg *a)
{
    tally_free(&a->tally);
    xfree(a);
}

static void test_pass_pct(void **state)
{
    assert_true(fabs(sumtally_pass_pct(95, 5) - 95.0) < 1e-9);
    assert_true(fabs(sumtally_pass_pct(0, 0) - 100.0) < 1e-9); /* never ran: not failed */
    assert_true(fabs(sumtally_pass_pct(0, 3)) < 1e-9);
}

static void test_print(void **state)
{
    agg *a = fixture();
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    sumtally_print(out, a);
    fclose(out);
    assert_non_null(strstr(buf, "status is 200        95         5  95.00 %\n"));
    assert_non_null(strstr(buf, "All checks           95         6  94.06 %\n"));
    assert_null(strchr(buf, '\x1b')); /* never an escape sequence on the terminal */
    assert_non_null(strstr(buf, "carts         counter  total 25, 2.50/s\n"));
    assert_non_null(strstr(buf, "queue         gauge    value 3, min 3, max 9\n"));
    assert_non_null(strstr(buf, "idle          gauge    never set\n"));
    assert_non_null(strstr(buf, "basket        trend    count 4, mean "));
    free(buf); /* open_memstream's: malloc'd by libc */
    fixture_free(a);
}

static void test_print_none(void **state)
{
    agg *a = xcalloc(1, sizeof(*a));
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    tally_init(&a->tally);
    sumtally_print(out, a);
    fclose(out);
    assert_string_equal(buf, "");
    free(buf); /* open_memstream's: malloc'd by libc */
    fixture_free(a);
}

static void test_json(void **state)
{
    agg *a = fixture();
    json_t *root = json_object(), *checks, *metrics, *m;

    sumtally_json(root, a);
    checks = json_object_get(root, "checks");
    metrics = json_object_get(root, "metrics");
    assert_int_equal(json_array_size(checks), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(checks, 0), "name")),
                        "status is 200");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(checks, 0), "fails")), 5);
    assert_true(fabs(json_real_value(json_object_get(json_array_get(checks, 0), "pass_pct")) -
                     95.0) < 1e-9);
    assert_int_equal(json_array_size(metrics), 4);
    m = json_array_get(metrics, 0);
    assert_string_equal(json_string_value(json_object_get(m, "kind")), "counter");
    assert_true(fabs(json_real_value(json_object_get(m, "rate")) - 2.5) < 1e-9);
    m = json_array_get(metrics, 2);
    assert_string_equal(json_string_value(json_object_get(m, "name")), "idle");
    assert_true(json_is_null(json_object_get(m, "value"))); /* never set: null, not 0 */
    m = json_array_get(metrics, 3);
    assert_int_equal(json_integer_value(json_object_get(m, "count")), 4);
    assert_true(fabs(json_real_value(json_object_get(m, "max")) - 40.0) < 0.5);
    json_decref(root);
    fixture_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass_pct),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_print_none),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
