/* Unit tests for console/selfload: the console's seconds judged by the
 * workers' rule (a stall alone, CPU with lag; neither CPU alone nor a short
 * lag), kept as the one entry "console" with its CPU at worst and its loop
 * lags merged; and, on a real loop, a callback that holds the loop 700 ms
 * makes its second saturated while the next one is not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <unistd.h>

#include "common/saturation.h"
#include "console/selfload.h"

/* Adds one second of cpu permille and a worst lag of lag_us (also its one sample). */
static unsigned second(injtot *t, uint64_t s, uint32_t cpu, uint32_t lag_us)
{
    hist *h = hist_new();
    selfmon_second m = {.cpu_permille = cpu, .loop_lag_max_us = lag_us, .lag = h};
    unsigned why;

    hist_record(h, lag_us);
    why = selfload_add(t, s, &m);
    hist_free(h);
    return why;
}

static void test_judged_as_a_worker(void **state)
{
    injtot t;

    (void)state;
    injtot_init(&t);
    assert_int_equal(second(&t, 1, 50, 2000), 0);                  /* quiet */
    assert_int_equal(second(&t, 2, 0, 1500000), SATURATION_STALL); /* stopped 1.5 s */
    assert_int_equal(second(&t, 3, 950, 60000), SATURATION_CPU);   /* busy and late */
    assert_int_equal(second(&t, 4, 990, 10000), 0);                /* busy, on time */
    assert_int_equal(second(&t, 5, 300, 400000), 0);               /* a short stall */
    assert_int_equal(t.measured_s, 5);
    assert_int_equal(t.saturated_s, 2);
    assert_false(injtot_second_saturated(&t, 1));
    assert_true(injtot_second_saturated(&t, 2));
    assert_true(injtot_second_saturated(&t, 3));
    assert_int_equal(t.n, 1);
    assert_string_equal(t.w[0].agent, SELFLOAD_AGENT);
    assert_int_equal(injtot_cpu_max(&t), 990);
    assert_int_equal(t.w[0].lag_max_us, 1500000);
    /* p99 of five samples is the largest: the stall, within a bucket */
    assert_true(injtot_lag_p99_us(&t) >= 1400000 && injtot_lag_p99_us(&t) <= 1600000);
    assert_false(t.last_saturated);
    injtot_free(&t);
}

static void hold_loop(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
    usleep(700000); /* a blocking callback: what the monitor is there to see */
}

static void end_loop(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

static void test_held_loop(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    ev_timer hold, end;
    selfload s;
    injtot t;

    (void)state;
    injtot_init(&t);
    selfload_start(&s, loop, &t);
    ev_timer_init(&hold, hold_loop, 0.3, 0.);
    ev_timer_init(&end, end_loop, 2.5, 0.);
    ev_timer_start(loop, &hold);
    ev_timer_start(loop, &end);
    ev_run(loop, 0);
    selfload_stop(&s);
    ev_loop_destroy(loop);
    assert_int_equal(t.measured_s, 2); /* the partial third second is dropped */
    assert_true(injtot_second_saturated(&t, 1));
    assert_false(injtot_second_saturated(&t, 2));
    assert_true(t.w[0].lag_max_us >= SATURATION_STALL_US);
    assert_true(t.w[0].why & SATURATION_STALL);
    injtot_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judged_as_a_worker),
        cmocka_unit_test(test_held_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
