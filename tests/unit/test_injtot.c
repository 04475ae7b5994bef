/* Unit tests for console/injtot: two workers' entries over seconds give each
 * its own figures (seconds, saturated seconds, CPU at worst, loop lag p99
 * merged exactly), a per-second flag when any worker was saturated, a late
 * entry counted once, the worst worker described, and the latest second's
 * worst worker (a saturated one first, then the worst lag) and its name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "console/injtot.h"

/* An entry for (agent, worker) with n lag samples of lag_us each. */
static interval_sum_load entry(const char *agent, uint32_t worker, uint32_t cpu, uint64_t lag_us,
                               unsigned n, int sat)
{
    interval_sum_load l;
    hist *h = hist_new();

    memset(&l, 0, sizeof(l));
    snprintf(l.agent, sizeof(l.agent), "%s", agent);
    l.worker = worker;
    l.cpu_permille = cpu;
    l.loop_lag_max_us = (uint32_t)lag_us;
    l.saturated = sat;
    l.why = sat ? 1 : 0;
    hist_record_n(h, lag_us, n);
    interval_sum_load_set_lag(&l, h);
    hist_free(h);
    return l;
}

static void test_two_workers(void **state)
{
    injtot t;
    interval_sum_load l[2];
    char d[128];
    const injtot_worker *w;

    (void)state;
    injtot_init(&t);
    /* second 0: both keep up; 1: worker 1 saturated; 2: both keep up */
    for (uint64_t s = 0; s < 3; s++) {
        l[0] = entry("a", 0, 300, 1000, 10, 0);
        l[1] = entry("a", 1, s == 1 ? 1000 : 500, s == 1 ? 280000 : 2000, 10, s == 1);
        injtot_add(&t, s, l, 2, 0);
        interval_sum_load_clear(&l[0]);
        interval_sum_load_clear(&l[1]);
        assert_int_equal(t.last_saturated, s == 1);
    }
    assert_int_equal(t.n, 2);
    assert_int_equal(t.measured_s, 3);
    assert_int_equal(t.saturated_s, 1);
    assert_int_equal(t.clear_s, 1); /* CPU and the loop 280 ms late: clearly */
    assert_false(injtot_second_saturated(&t, 0));
    assert_true(injtot_second_saturated(&t, 1));
    assert_false(injtot_second_saturated(&t, 2));
    assert_false(injtot_second_saturated(&t, 99));
    assert_true(injtot_share(&t) > 0.333 && injtot_share(&t) < 0.334);
    assert_int_equal(t.w[0].seconds, 3);
    assert_int_equal(t.w[0].saturated_s, 0);
    assert_int_equal(t.w[0].cpu_max_permille, 300);
    assert_int_equal(t.w[1].saturated_s, 1);
    assert_int_equal(t.w[1].cpu_max_permille, 1000);
    assert_int_equal(t.w[1].lag_max_us, 280000);
    assert_int_equal(t.w[1].last_second, 2);
    assert_int_equal(t.w[1].last_cpu_permille, 500);
    /* 10 of 30 samples at 280 ms: p99 of worker 1 is 280 ms, of all 60 too */
    assert_true(injtot_worker_lag_p99_us(&t.w[1]) > 279000);
    assert_true(injtot_worker_lag_p99_us(&t.w[0]) < 1100);
    assert_true(injtot_lag_p99_us(&t) > 279000);
    assert_int_equal(injtot_cpu_max(&t), 1000);
    w = injtot_worst(&t);
    assert_non_null(w);
    assert_int_equal(w->worker, 1);
    injtot_describe(w, d, sizeof(d));
    assert_string_equal(d, "agent a, worker 1: CPU 100 %, loop lag p99 280 ms");
    injtot_free(&t);
}

static void test_late_and_agents(void **state)
{
    injtot t;
    interval_sum_load l;

    (void)state;
    injtot_init(&t);
    l = entry("a", 0, 100, 10, 1, 0);
    injtot_add(&t, 5, &l, 1, 0);
    interval_sum_load_clear(&l);
    /* the same worker number on another agent is another worker; it came late
     * and saturated: the second is measured once, saturated once */
    l = entry("b", 0, 990, 90000, 1, 1);
    injtot_add(&t, 5, &l, 1, 1);
    injtot_add(&t, 5, &l, 1, 1);
    interval_sum_load_clear(&l);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.measured_s, 1);
    assert_int_equal(t.saturated_s, 1);
    assert_int_equal(t.clear_s, 0); /* the loop 90 ms late: marginal */
    assert_true(injtot_second_saturated(&t, 5));
    assert_string_equal(injtot_worst(&t)->agent, "b");
    /* nothing reported: no share, no worst */
    injtot_add(&t, 6, NULL, 0, 0);
    assert_int_equal(t.measured_s, 1);
    /* a histogram that does not decode is counted, not merged */
    l = entry("a", 0, 100, 10, 1, 0);
    l.lag[0] ^= 0xff;
    injtot_add(&t, 7, &l, 1, 0);
    interval_sum_load_clear(&l);
    assert_int_equal(t.bad, 1);
    injtot_free(&t);
    injtot_init(&t);
    assert_null(injtot_worst(&t));
    assert_true(injtot_share(&t) == 0.);
    injtot_free(&t);
}

static void test_last_worst(void **state)
{
    injtot t;
    interval_sum_load l[3];
    uint32_t nsat = 9, n = 9;
    char name[96];
    const injtot_worker *w;

    injtot_init(&t);
    assert_null(injtot_last_worst(&t, &nsat, &n));
    assert_int_equal(n, 0);
    l[0] = entry("a1", 0, 300, 90000, 1, 0); /* the worst lag, but it kept up */
    l[1] = entry("a1", 1, 990, 60000, 1, 1);
    injtot_add(&t, 0, l, 2, 0);
    w = injtot_last_worst(&t, &nsat, &n);
    assert_non_null(w);
    assert_int_equal(w->worker, 1);
    assert_int_equal(nsat, 1);
    assert_int_equal(n, 2);
    injtot_name(&t, w, name, sizeof(name));
    assert_string_equal(name, "worker 1");
    for (size_t i = 0; i < 2; i++)
        interval_sum_load_clear(&l[i]);

    /* the next second: only a worker of another agent reported it */
    l[2] = entry("a2", 0, 100, 1000, 1, 0);
    injtot_add(&t, 1, &l[2], 1, 0);
    w = injtot_last_worst(&t, NULL, &n);
    assert_int_equal(n, 1);
    injtot_name(&t, w, name, sizeof(name));
    assert_string_equal(name, "worker a2/0");
    interval_sum_load_clear(&l[2]);
    injtot_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_workers),
        cmocka_unit_test(test_late_and_agents),
        cmocka_unit_test(test_last_worst),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
