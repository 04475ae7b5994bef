/* Unit tests for console/delivery: the share of the load asked that was not
 * sent, and the line saying why. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "console/delivery.h"

static delivery_in open_run(uint64_t sched, uint64_t started, uint64_t late, uint64_t dropped,
                            unsigned pool, uint32_t peak)
{
    delivery_in in;

    memset(&in, 0, sizeof(in));
    in.open = 1;
    in.arrivals = (rate_counts){sched, started, late, dropped};
    in.pool = pool;
    in.pool_peak = peak;
    in.runs = started;
    return in;
}

/* 96 of 120 dropped with the pool of 3 full: 80 %, the pool named. */
static void test_pool_too_small(void **state)
{
    delivery_in in = open_run(120, 24, 20, 96, 3, 3);
    delivery d;

    (void)state;
    delivery_compute(&in, &d);
    assert_true(d.share > 0.799 && d.share < 0.801);
    assert_int_equal(d.asked, 120);
    assert_int_equal(d.sent, 24);
    assert_int_equal(d.dropped, 96);
    assert_int_equal(d.late, 20);
    assert_string_equal(d.why,
                        "96 of 120 arrivals dropped: every VU of the pool of 3 was busy; raise "
                        "--max-vus");
}

/* Drops with room left in the pool: --max-lag; with the injector saturated: it. */
static void test_other_causes(void **state)
{
    delivery_in in = open_run(1000, 900, 300, 100, 50, 20);
    delivery d;

    (void)state;
    delivery_compute(&in, &d);
    assert_true(d.share > 0.099 && d.share < 0.101);
    assert_non_null(strstr(d.why, "100 of 1000 arrivals dropped: arrivals waited past --max-lag"));
    in.saturated = 1;
    delivery_compute(&in, &d);
    assert_non_null(strstr(d.why, "the injector was saturated"));
}

/* Late arrivals were sent: a healthy or merely late run has nothing unsent. */
static void test_late_is_sent(void **state)
{
    delivery_in in = open_run(300, 300, 40, 0, 10, 10);
    delivery d;

    (void)state;
    delivery_compute(&in, &d);
    assert_true(d.share == 0);
    assert_string_equal(d.why, "");
}

/* The closed model: runs behind their pacing slot are load not sent; none
 * missed, nothing. */
static void test_pacing(void **state)
{
    delivery_in in;
    delivery d;

    (void)state;
    memset(&in, 0, sizeof(in));
    in.runs = 10;
    in.missed_pacing = 8;
    delivery_compute(&in, &d);
    assert_true(d.share > 0.799 && d.share < 0.801);
    assert_int_equal(d.asked, 10);
    assert_int_equal(d.sent, 2);
    assert_string_equal(d.why, "8 of 10 runs missed their pacing slot: a run took longer than "
                               "its pacing");
    in.missed_pacing = 0;
    delivery_compute(&in, &d);
    assert_true(d.share == 0);
    memset(&in, 0, sizeof(in));
    delivery_compute(&in, &d); /* nothing ran */
    assert_true(d.share == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_too_small),
        cmocka_unit_test(test_other_causes),
        cmocka_unit_test(test_late_is_sent),
        cmocka_unit_test(test_pacing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
