/* Unit tests for worker/duetimer: a wake-up at an absolute monotonic time,
 * never before it, once per arming, none once stopped, its fd closed. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/clock.h"
#include "worker/wire/duetimer.h"

static int fired;
static int64_t fired_at;

static void on_due(struct ev_loop *loop, duetimer *d)
{
    (void)loop;
    (void)d;
    fired++;
    fired_at = clock_mono_us();
}

static void on_guard(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

/* Runs loop for secs (a guard timer), or until the callback has run. */
static void run_for(struct ev_loop *loop, double secs)
{
    ev_timer guard;

    ev_timer_init(&guard, on_guard, secs, 0.);
    ev_now_update(loop);
    ev_timer_start(loop, &guard);
    while (ev_is_active(&guard) && fired == 0)
        ev_run(loop, EVRUN_ONCE);
    ev_timer_stop(loop, &guard);
}

static void test_fires_at_its_time(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    duetimer d;
    int64_t at;

    (void)state;
    fired = 0;
    assert_int_equal(duetimer_init(&d, on_due, &fired), 0);
    assert_ptr_equal(d.data, &fired);
    at = clock_mono_us() + 3000;
    assert_int_equal(duetimer_arm(&d, loop, at), 0);
    run_for(loop, 5.0);
    assert_int_equal(fired, 1);
    assert_true(fired_at >= at);          /* never before its time */
    assert_true(fired_at - at < 2000000); /* a loaded machine: generous */
    duetimer_stop(&d, loop);
    duetimer_free(&d);
    ev_loop_destroy(loop);
}

static void test_past_time_fires_at_once(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    duetimer d;

    (void)state;
    assert_int_equal(duetimer_init(&d, on_due, NULL), 0);
    for (int k = 0; k < 2; k++) {
        fired = 0;
        /* 0 would disarm a timerfd: it is the earliest time instead. */
        assert_int_equal(duetimer_arm(&d, loop, k == 0 ? 0 : clock_mono_us() - 1000), 0);
        run_for(loop, 5.0);
        assert_int_equal(fired, 1);
    }
    duetimer_stop(&d, loop);
    duetimer_free(&d);
    ev_loop_destroy(loop);
}

static void test_rearm_replaces(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    duetimer d;
    int64_t t0 = clock_mono_us();

    (void)state;
    fired = 0;
    assert_int_equal(duetimer_init(&d, on_due, NULL), 0);
    assert_int_equal(duetimer_arm(&d, loop, t0 + 30000000), 0);
    assert_int_equal(duetimer_arm(&d, loop, t0 + 2000), 0);
    run_for(loop, 10.0);
    assert_int_equal(fired, 1);
    assert_true(fired_at - t0 < 9000000); /* the second time, not the first */
    /* One shot: nothing more without an arming. */
    fired = 0;
    run_for(loop, 0.05);
    assert_int_equal(fired, 0);
    duetimer_stop(&d, loop);
    duetimer_free(&d);
    ev_loop_destroy(loop);
}

static void test_stopped_never_fires(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    duetimer d;

    (void)state;
    fired = 0;
    assert_int_equal(duetimer_init(&d, on_due, NULL), 0);
    assert_int_equal(duetimer_arm(&d, loop, clock_mono_us() + 1000), 0);
    duetimer_stop(&d, loop);
    run_for(loop, 0.05);
    assert_int_equal(fired, 0);
    duetimer_free(&d);
    ev_loop_destroy(loop);
}

static void test_free_closes(void **state)
{
    duetimer d, none;
    int fd, stdin_open = fcntl(0, F_GETFD) >= 0;

    (void)state;
    assert_int_equal(duetimer_init(&d, on_due, NULL), 0);
    fd = d.fd;
    assert_true(fd >= 0);
    assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    duetimer_free(&d);
    assert_int_equal(d.fd, -1);
    errno = 0;
    assert_int_equal(fcntl(fd, F_GETFD), -1);
    assert_int_equal(errno, EBADF);
    duetimer_free(&d); /* twice: nothing to close */
    duetimer_clear(&none);
    duetimer_free(&none); /* never made: closes nothing, not fd 0 */
    assert_int_equal(fcntl(0, F_GETFD) >= 0, stdin_open);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fires_at_its_time), cmocka_unit_test(test_past_time_fires_at_once),
        cmocka_unit_test(test_rearm_replaces),    cmocka_unit_test(test_stopped_never_fires),
        cmocka_unit_test(test_free_closes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
