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
    in.arrivals = (rate_counts){sched, started, late, dropped, 0, 0};
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

/* The closed model with pacing: the slot time lost over the time the runs
 * took. Pacing 1 s, runs of 1.5 s: each slot missed by 0.5 s, a third of
 * the load not sent; runs a tenth of a second late lose that, not a run
 * each; none missed, nothing. */
static void test_pacing(void **state)
{
    delivery_in in;
    delivery d;

    (void)state;
    memset(&in, 0, sizeof(in));
    in.runs = 10;
    in.missed_pacing = 9;
    in.pace_asked_us = 9 * 1000000ull;
    in.pace_lost_us = 9 * 500000ull;
    delivery_compute(&in, &d);
    assert_true(d.share > 0.333 && d.share < 0.334);
    assert_int_equal(d.asked, 10);
    assert_int_equal(d.sent, 1);
    assert_int_equal(d.pace_lost_us, 4500000);
    assert_string_equal(d.why, "9 of 10 runs missed their pacing slot, 4.5 s of slot time lost of "
                               "13.5 s: a run took longer than its pacing");
    in.pace_lost_us = 9 * 100000ull; /* each 0.1 s late: 0.9 of 9.9 s */
    delivery_compute(&in, &d);
    assert_true(d.share > 0.0908 && d.share < 0.0910);
    in.missed_pacing = 0;
    in.pace_lost_us = 0;
    delivery_compute(&in, &d);
    assert_true(d.share == 0);
    assert_string_equal(d.why, "");
    memset(&in, 0, sizeof(in));
    delivery_compute(&in, &d); /* nothing ran */
    assert_true(d.share == 0);
}

/* VUs the schedule started whose first run never came: their share, in
 * the why with thousands marked; with pacing lost by the others too, both;
 * every VU started (or none asked, the open model): nothing. */
static void test_vus_never_started(void **state)
{
    delivery_in in;
    delivery d;

    (void)state;
    memset(&in, 0, sizeof(in));
    in.runs = 5000;
    in.vus_planned = 10000;
    in.vus_started = 8800;
    delivery_compute(&in, &d);
    assert_true(d.share > 0.119 && d.share < 0.121);
    assert_int_equal(d.vus_never, 1200);
    assert_int_equal(d.vus_planned, 10000);
    assert_non_null(strstr(d.why, "1,200 of 10,000 VUs never started: "));
    in.missed_pacing = 10;
    in.pace_asked_us = 3000000;
    in.pace_lost_us = 1000000; /* a quarter of the rest */
    delivery_compute(&in, &d);
    assert_true(d.share > 0.339 && d.share < 0.341); /* 0.12 + 0.88 x 0.25 */
    assert_non_null(strstr(d.why, "VUs never started: "));
    assert_non_null(strstr(d.why, "; 10 of 5000 runs missed their pacing slot"));
    in.vus_started = 10000;
    in.missed_pacing = in.pace_lost_us = 0;
    delivery_compute(&in, &d);
    assert_true(d.share == 0);
    assert_int_equal(d.vus_never, 0);
    assert_string_equal(d.why, "");
    in.vus_planned = 0; /* the open model's pool is not planned */
    delivery_compute(&in, &d);
    assert_true(d.share == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_too_small),    cmocka_unit_test(test_other_causes),
        cmocka_unit_test(test_late_is_sent),      cmocka_unit_test(test_pacing),
        cmocka_unit_test(test_vus_never_started),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
