/* Unit tests for reports/bottleneck: the bottleneck rules, each and their order. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "reports/bottleneck.h"

#include <math.h>
#include <string.h>

static bottleneck_window win(double load, double tps, double err, double cpu, double disk)
{
    bottleneck_window w = {load, tps, err, cpu, "h:9100", disk, !isnan(cpu)};
    return w;
}

static enum bottleneck_kind judge(const bottleneck_window *p, const bottleneck_window *w,
                                  const char *want)
{
    char why[320];
    enum bottleneck_kind k = bottleneck_judge(p, w, why, sizeof(why));

    if (want != NULL && strstr(why, want) == NULL)
        fail_msg("'%s' lacks '%s'", why, want);
    return k;
}

static void test_rules(void **state)
{
    bottleneck_window p = win(10, 100, 0, 40, 5), w;

    /* 1: errors first, before anything else */
    w = win(20, 100, 1.5, 99, 5);
    assert_int_equal(judge(&p, &w, "1.5 % of the samples failed"), BOTTLENECK_ERRORS);
    assert_int_equal(judge(NULL, &w, NULL), BOTTLENECK_ERRORS);
    w = win(20, 150, 1.0, 40, 5); /* at the threshold: not above it */
    assert_int_equal(judge(&p, &w, NULL), BOTTLENECK_SCALES);
    /* 2: the first window, a load that did not rise */
    assert_int_equal(judge(NULL, &p, "the first window"), BOTTLENECK_NOT_JUDGED);
    w = win(10.5, 60, 0, 99, 5);
    assert_int_equal(judge(&p, &w, "did not rise"), BOTTLENECK_NOT_JUDGED);
    w = win(5, 50, 0, 99, 5);
    assert_int_equal(judge(&p, &w, NULL), BOTTLENECK_NOT_JUDGED);
    /* 3: scales: +100 % load, +25 % throughput is just enough */
    w = win(20, 125, 0, 99, 5);
    assert_int_equal(judge(&p, &w, "+100 %, throughput +25 %"), BOTTLENECK_SCALES);
    /* 4: flat and a saturated CPU */
    w = win(20, 110, 0, 90, 5);
    assert_int_equal(judge(&p, &w, "h:9100's CPU is 90 % busy"), BOTTLENECK_CPU_BOUND);
    /* 5: flat while everything has room */
    w = win(20, 102, 0, 30, 10);
    assert_int_equal(judge(&p, &w, "every host has room"), BOTTLENECK_CONTENTION);
    w = win(20, 102, 0, 30, NAN); /* no disk figures: CPU alone */
    assert_int_equal(judge(&p, &w, NULL), BOTTLENECK_CONTENTION);
    /* 6: flat, between the thresholds, or nothing monitored */
    w = win(20, 102, 0, 80, 10);
    assert_int_equal(judge(&p, &w, "no rule applies"), BOTTLENECK_FLAT);
    w = win(20, 102, 0, 30, 85); /* a busy disk is no room */
    assert_int_equal(judge(&p, &w, NULL), BOTTLENECK_FLAT);
    w = win(20, 102, 0, NAN, NAN);
    assert_int_equal(judge(&p, &w, "no monitored host"), BOTTLENECK_FLAT);
    assert_string_equal(bottleneck_name(BOTTLENECK_CPU_BOUND), "CPU-bound");
    assert_string_equal(bottleneck_name(BOTTLENECK_CONTENTION), "contention");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
