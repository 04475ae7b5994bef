/* Unit tests for worker/selfmon: the CPU ratio's arithmetic, and a loop held
 * by a callback (a sleep: no CPU, so the figure does not depend on the
 * machine's speed) shows as loop lag at least as long as the hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <time.h>

#include "common/selfmon.h"

static void test_permille(void **state)
{
    (void)state;
    assert_int_equal(selfmon_permille(500000, 1000000), 500);
    assert_int_equal(selfmon_permille(1000000, 1000000), 1000);
    assert_int_equal(selfmon_permille(2000000, 1000000), 2000); /* two threads busy */
    assert_int_equal(selfmon_permille(1, 0), 0);
    assert_int_equal(selfmon_permille(UINT64_MAX, 1), UINT32_MAX);
    assert_true(selfmon_cpu_us() > 0);
}

static void hold(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct timespec ts = {0, 300 * 1000000L};

    (void)w;
    (void)revents;
    nanosleep(&ts, NULL); /* the loop is held 300 ms */
    ev_break(loop, EVBREAK_ALL);
}

static void test_lag(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    ev_timer t, stop;
    selfmon m;
    selfmon_second s;

    (void)state;
    selfmon_start(&m, loop);
    /* the hold starts just before the probe is due: the probe fires late */
    ev_timer_init(&t, hold, 0.09, 0.);
    ev_timer_start(loop, &t);
    ev_run(loop, 0);
    /* let the late probe fire */
    ev_timer_init(&stop, hold, 0.0, 0.);
    ev_run(loop, EVRUN_ONCE);
    selfmon_take(&m, &s);
    assert_true(s.loop_lag_max_us >= 200000);
    assert_true(s.loop_lag_max_us < 5000000);
    assert_true(hist_count(s.lag) >= 1);
    assert_true(hist_max(s.lag) >= 200000);
    selfmon_next(&m);
    assert_int_equal(hist_count(m.lag), 0);
    assert_int_equal(m.lag_max_us, 0);
    selfmon_stop(&m);
    selfmon_stop(&m); /* twice is fine */
    ev_loop_destroy(loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permille),
        cmocka_unit_test(test_lag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
