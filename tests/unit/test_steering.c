/* --control's commands carried out on the run's loop (console/steering.c),
 * on a run with no agent and no database, seen as its control hands it
 * (control_steering_view): a pause and its time left out of the run's, a
 * resume, vus N remembered, a rate, a stop handed back, and nothing steered
 * before the run is under way or past its planned end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/clock.h"
#include "console/control.h"
#include "console/run.h"

static void run_at(run *r, int64_t since_go_us)
{
    char *argv[] = {"run", NULL};

    run_init(r, 1, argv);
    r->phase = PHASE_RUN;
    r->go_us = clock_mono_us() - since_go_us;
}

/* Carries out c on r as the loop does. */
static enum steering_next carry_out(run *r, const ctlsrv_cmd *c)
{
    steering_run v;

    control_steering_view(r, &v);
    return steering_carry(&v, c);
}

static void test_pause_resume(void **state)
{
    run r;
    ctlsrv_cmd pause = {QUERN__STEER__KIND__PAUSE, 0, 0};
    ctlsrv_cmd resume = {QUERN__STEER__KIND__RESUME, 0, 0};
    int64_t t0;

    run_at(&r, 1000000);
    assert_int_equal(steering_is_paused(&r.steer), 0);
    assert_int_equal(steering_paused_us(&r.steer, clock_mono_us()), 0);
    carry_out(&r, &pause);
    t0 = r.steer.pause_from_us;
    assert_int_equal(steering_is_paused(&r.steer), 1);
    assert_int_equal(r.steer.seq, 1);
    /* the pause under way counts, up to now */
    assert_int_equal(steering_paused_us(&r.steer, t0 + 250000), 250000);
    carry_out(&r, &resume);
    assert_int_equal(steering_is_paused(&r.steer), 0);
    assert_int_equal(r.steer.seq, 1); /* a resume has no row of its own */
    assert_true(r.steer.paused_us >= 0);
    assert_int_equal(steering_paused_us(&r.steer, clock_mono_us() + 5000000), r.steer.paused_us);
    run_free(&r);
}

static void test_vus_rate(void **state)
{
    run r;
    ctlsrv_cmd vus = {QUERN__STEER__KIND__VUS, 42, 0};
    ctlsrv_cmd rate = {QUERN__STEER__KIND__RATE, 0, 200.0};

    run_at(&r, 1000000);
    assert_int_equal(steering_vus_asked(&r.steer, 10), 10); /* none yet: the planned */
    assert_int_equal(carry_out(&r, &vus), STEERING_GO_ON);
    assert_int_equal(steering_vus_asked(&r.steer, 10), 42);
    assert_int_equal(carry_out(&r, &rate), STEERING_GO_ON);
    assert_int_equal(r.steer.seq, 2);
    run_free(&r);
}

/* A stop is handed back, for the control to stop the run; once the run is
 * stopping, nothing more is steered. */
static void test_stop(void **state)
{
    run r;
    ctlsrv_cmd stop = {CTLSRV_STOP, 0, 0};
    ctlsrv_cmd vus = {QUERN__STEER__KIND__VUS, 42, 0};

    run_at(&r, 1000000);
    assert_int_equal(carry_out(&r, &stop), STEERING_STOP);
    assert_int_equal(r.steer.seq, 1);
    r.stop_us = clock_mono_us(); /* the control's Stop */
    assert_int_equal(carry_out(&r, &vus), STEERING_GO_ON);
    assert_int_equal(steering_vus_asked(&r.steer, 10), 10);
    assert_int_equal(r.steer.seq, 1);
    run_free(&r);
}

static void test_not_now(void **state)
{
    run r;
    ctlsrv_cmd pause = {QUERN__STEER__KIND__PAUSE, 0, 0};
    ctlsrv_cmd vus = {QUERN__STEER__KIND__VUS, 42, 0};

    run_at(&r, 1000000);
    r.phase = PHASE_START; /* not under way: nothing */
    carry_out(&r, &pause);
    assert_int_equal(steering_is_paused(&r.steer), 0);
    assert_int_equal(r.steer.seq, 0);
    r.phase = PHASE_RUN;
    r.o.duration_us = 500000; /* 1 s after Go, past its planned end: nothing */
    carry_out(&r, &vus);
    assert_int_equal(steering_vus_asked(&r.steer, 10), 10);
    assert_int_equal(r.steer.seq, 0);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pause_resume),
        cmocka_unit_test(test_vus_rate),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_not_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
