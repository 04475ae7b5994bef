/* Unit tests for common/saturation: each clause of the rule at and below its
 * bounds, the clauses that must not count alone, and the reasons in words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/saturation.h"

static unsigned judge(uint32_t cpu, uint32_t lag, uint64_t start_p99)
{
    saturation_in in = {.cpu_permille = cpu, .loop_lag_max_us = lag, .start_lag_p99_us = start_p99};
    return saturation_judge(&in);
}

static void test_cpu_and_lag(void **state)
{
    (void)state;
    assert_int_equal(judge(900, 50000, 0), SATURATION_CPU);
    assert_int_equal(judge(1000, 280000, 0), SATURATION_CPU);
    assert_int_equal(judge(899, 280000, 0), 0); /* on time enough, not busy */
    assert_int_equal(judge(1000, 49999, 0), 0); /* busy but on time */
    assert_int_equal(judge(2000, 0, 0), 0);     /* two threads' worth, on time */
}

static void test_start_lag(void **state)
{
    (void)state;
    /* the start lag is quern's own (the waits for a VU are not in it, the
     * worker leaves them out): at 50 ms at p99 it is the worker's, CPU or not */
    assert_int_equal(judge(100, 0, 50000), SATURATION_START);
    assert_int_equal(judge(100, 0, 49999), 0); /* late by less */
}

static void test_stall(void **state)
{
    (void)state;
    assert_int_equal(judge(0, 500000, 0), SATURATION_STALL);
    assert_int_equal(judge(0, 499999, 0), 0);
    assert_int_equal(judge(1000, 600000, 60000),
                     SATURATION_CPU | SATURATION_START | SATURATION_STALL);
}

/* The open model's timer behind its schedule: arrivals not taken 200 ms
 * after their time are the worker's own lag, a full pool or not. */
static void test_behind(void **state)
{
    saturation_in in;

    (void)state;
    memset(&in, 0, sizeof(in));
    in.behind_us = 200000;
    assert_int_equal(saturation_judge(&in), SATURATION_BEHIND);
    in.behind_us = 199999;
    assert_int_equal(saturation_judge(&in), 0);
}

/* A saturated second is clear past twice the CPU rule's lag or the start
 * lag's bound, or on a stall or the timer behind; marginal otherwise. */
static void test_clear(void **state)
{
    (void)state;
    assert_false(saturation_clear(SATURATION_CPU, 2 * SATURATION_LAG_US - 1, 0));
    assert_true(saturation_clear(SATURATION_CPU, 2 * SATURATION_LAG_US, 0));
    assert_false(saturation_clear(SATURATION_START, 0, 2 * SATURATION_START_US - 1));
    assert_true(saturation_clear(SATURATION_START, 0, 2 * SATURATION_START_US));
    assert_true(saturation_clear(SATURATION_STALL, SATURATION_STALL_US, 0));
    assert_true(saturation_clear(SATURATION_BEHIND, 0, 0));
    assert_false(saturation_clear(0, 900000, 900000)); /* not saturated at all */
}

static void test_words(void **state)
{
    char b[64], tiny[6];

    (void)state;
    saturation_why(0, b, sizeof(b));
    assert_string_equal(b, "");
    saturation_why(SATURATION_CPU | SATURATION_STALL, b, sizeof(b));
    assert_string_equal(b, "CPU and loop lag, loop stall");
    saturation_why(SATURATION_START, b, sizeof(b));
    assert_string_equal(b, "start lag");
    saturation_why(SATURATION_BEHIND, b, sizeof(b));
    assert_string_equal(b, "behind schedule");
    saturation_why(SATURATION_CPU, tiny, sizeof(tiny)); /* cut, still a string */
    assert_true(strlen(tiny) < sizeof(tiny));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_and_lag), cmocka_unit_test(test_start_lag),
        cmocka_unit_test(test_stall),       cmocka_unit_test(test_behind),
        cmocka_unit_test(test_words),       cmocka_unit_test(test_clear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
