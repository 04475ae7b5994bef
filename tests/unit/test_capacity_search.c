/* Unit tests for console/capacity_search: each step judged on its own seconds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "console/capacity_search.h"

#include <jansson.h>
#include <string.h>

#include "common/hist.h"
#include "common/mem.h"
#include "common/saturation.h"

static const char *const ids[] = {"SC-CAP-STEP-1"};
static const char *const names[] = {"SC-CAP-STEP-1)Hit"};

/* One second of n samples of lat_us, errs of them technical errors. */
static int feed(capacity_search *cs, uint64_t second, uint64_t n, uint64_t errs, uint64_t lat_us,
                int late, thresh **ths, size_t nth)
{
    interval_sum s;
    int rc;

    interval_sum_init(&s, 1, 1);
    s.steps[0].count = n;
    s.steps[0].err_tech = errs;
    for (uint64_t i = 0; i < n; i++)
        hist_record(s.steps[0].hist, lat_us);
    s.runs[0] = n;
    rc = capacity_search_second(cs, second, &s, late, (const thresh *const *)ths, nth, ids, names);
    interval_sum_free(&s);
    return rc;
}

static capacity_search *search(const char *spec)
{
    capacity_plan p;
    char err[ERR_MAX];

    assert_int_equal(capacity_parse(spec, &p, err, sizeof(err)), 0);
    return capacity_search_new(&p, CAPACITY_SETTLE_US, 1, 1);
}

static void test_stops_at_first_failing_step(void **state)
{
    char err[ERR_MAX], why[512];
    thresh *th[2];
    capacity_search *cs = search("10/s:10/s:3s:50/s");
    size_t k;
    verdict v = {.passed = 1, .why = "passed"};
    json_t *j;

    (void)state;
    th[0] = thresh_parse("errors<1%", err, sizeof(err));
    th[1] = thresh_parse("p95<100ms", err, sizeof(err));
    /* step 0 (10/s): seconds 0-2; its settling second is slow and failing */
    assert_int_equal(feed(cs, 0, 10, 10, 500000, 0, th, 2), 0);
    assert_int_equal(feed(cs, 1, 10, 0, 1000, 0, th, 2), 0);
    assert_int_equal(feed(cs, 2, 10, 0, 1000, 0, th, 2), 0); /* judged: passed */
    assert_int_equal(cs->steps[0].judged, 1);
    assert_int_equal(cs->steps[0].passed, 1);
    assert_int_equal(cs->steps[0].seconds, 2);
    assert_int_equal(cs->steps[0].count, 20);
    assert_true(cs->steps[0].tps == 10.0);
    /* step 1 (20/s): fine once settled */
    assert_int_equal(feed(cs, 3, 20, 20, 900000, 0, th, 2), 0);
    assert_int_equal(feed(cs, 4, 20, 0, 2000, 0, th, 2), 0);
    assert_int_equal(feed(cs, 5, 20, 0, 2000, 0, th, 2), 0);
    assert_int_equal(cs->steps[1].passed, 1);
    assert_in_range((long)(cs->steps[1].p95_ms * 10), 19, 21);
    /* step 2 (30/s): p95 over the limit in its judged seconds, no error */
    assert_int_equal(feed(cs, 6, 30, 0, 1000, 0, th, 2), 0);
    assert_int_equal(feed(cs, 7, 30, 0, 150000, 0, th, 2), 0);
    assert_int_equal(feed(cs, 8, 30, 0, 150000, 0, th, 2), 1); /* failed: stop */
    assert_int_equal(cs->steps[2].passed, 0);
    assert_non_null(strstr(cs->steps[2].failed, "p95<100ms: "));
    /* nothing after the failure is judged */
    assert_int_equal(feed(cs, 9, 40, 40, 1000, 0, th, 2), 0);
    assert_int_equal(feed(cs, 10, 40, 40, 1000, 0, th, 2), 0);
    assert_int_equal(feed(cs, 11, 40, 40, 1000, 0, th, 2), 0);
    capacity_search_end(cs, (const thresh *const *)th, 2, ids, names);
    assert_int_equal(cs->steps[3].judged, 0);
    assert_int_equal(capacity_search_judged(cs), 3);
    assert_int_equal(capacity_search_found(cs, &k), 1);
    assert_int_equal(k, 1);
    assert_non_null(
        strstr(capacity_search_why(cs, why, sizeof(why)), "capacity 20/s (the step at 30/s"));
    capacity_search_verdict(cs, &v);
    assert_int_equal(v.passed, 1);
    assert_int_equal(v.rc, 0);
    /* the thresholds' verdicts are those of the capacity's step */
    {
        thresh_result r;
        assert_int_equal(capacity_search_result(cs, 1, &r), 1);
        assert_int_equal(r.passed, 1);
        assert_non_null(strstr(r.desc, "step at 20/s: p95 of all steps = "));
        assert_int_equal(capacity_search_result(cs, 2, &r), 0);
    }
    j = capacity_search_json(cs);
    assert_true(json_is_true(json_object_get(j, "found")));
    assert_true(json_real_value(json_object_get(j, "value")) == 20.0);
    assert_string_equal(json_string_value(json_object_get(j, "unit")), "/s");
    assert_int_equal(json_array_size(json_object_get(j, "steps")), 3);
    assert_true(
        json_is_false(json_object_get(json_array_get(json_object_get(j, "steps"), 2), "passed")));
    json_decref(j);
    capacity_search_free(cs);
    thresh_free(th[0]);
    thresh_free(th[1]);
}

static void test_start_fails(void **state)
{
    char err[ERR_MAX];
    thresh *th = thresh_parse("errors<1%", err, sizeof(err));
    capacity_search *cs = search("5:5:2s");
    size_t k;
    verdict v = {.passed = 1, .why = "passed"};

    (void)state;
    assert_int_equal(feed(cs, 0, 10, 0, 1000, 0, &th, 1), 0);
    assert_int_equal(feed(cs, 1, 10, 1, 1000, 0, &th, 1), 1);
    assert_int_equal(capacity_search_found(cs, &k), 0);
    capacity_search_verdict(cs, &v);
    assert_int_equal(v.passed, 0);
    assert_int_equal(v.rc, 1);
    {
        thresh_result r;
        assert_int_equal(capacity_search_result(cs, 0, &r), 1); /* START's verdict */
        assert_int_equal(r.passed, 0);
    }
    assert_non_null(strstr(v.why, "no capacity: the first step, 5, failed: errors<1%"));
    capacity_search_free(cs);
    thresh_free(th);
}

static void test_last_step_at_end_with_late_parts(void **state)
{
    char err[ERR_MAX];
    thresh *th = thresh_parse("count>=15", err, sizeof(err));
    capacity_search *cs = search("1/s:1/s:2s:2/s");
    size_t k;
    verdict v = {.rc = 3, .why = "failed: aborted"};

    (void)state;
    assert_int_equal(feed(cs, 1, 20, 0, 1000, 0, &th, 1), 0); /* step 0 judged at once */
    assert_int_equal(cs->steps[0].passed, 1);
    /* the last step's second comes in two parts, and a second past the end */
    assert_int_equal(feed(cs, 3, 10, 0, 1000, 0, &th, 1), 0);
    assert_int_equal(feed(cs, 4, 1, 0, 1000, 0, &th, 1), 0);
    assert_int_equal(cs->steps[1].judged, 0);
    assert_int_equal(feed(cs, 3, 10, 0, 1000, 1, &th, 1), 0);
    capacity_search_end(cs, (const thresh *const *)&th, 1, ids, names);
    assert_int_equal(cs->steps[1].count, 20);
    assert_int_equal(cs->steps[1].seconds, 1);
    assert_int_equal(cs->steps[1].passed, 1);
    assert_int_equal(capacity_search_found(cs, &k), 1);
    assert_int_equal(k, 1);
    /* an aborted run keeps its own verdict */
    capacity_search_verdict(cs, &v);
    assert_int_equal(v.rc, 3);
    capacity_search_free(cs);
    thresh_free(th);
}

/* The rule of an injector-limited step, in one place. */
static void test_step_injector(void **state)
{
    (void)state;
    /* waits for a VU (dropped past 2 %, or late and init waits past 10 %)
     * are the server's time through the pool, never the injector's */
    assert_int_equal(capacity_search_step_waited(1000, 0, 20), 0);
    assert_int_equal(capacity_search_step_waited(1000, 0, 21), 1);
    assert_int_equal(capacity_search_step_waited(1000, 100, 0), 0);
    assert_int_equal(capacity_search_step_waited(1000, 101, 0), 1);
    assert_int_equal(capacity_search_step_waited(0, 0, 0), 0);
    /* the injector saturated in more than 5 % of the step's seconds and in
     * two of them at least: one marginal second never decides */
    assert_int_equal(capacity_search_step_injector(20, 1, 0), 0);
    assert_int_equal(capacity_search_step_injector(4, 1, 0), 0);
    assert_int_equal(capacity_search_step_injector(4, 2, 0), 1);
    assert_int_equal(capacity_search_step_injector(40, 2, 0), 0); /* 5 % of 40: not past */
    /* one clear second (a stall, a loop twice too late) decides alone */
    assert_int_equal(capacity_search_step_injector(4, 1, 1), 1);
    assert_int_equal(capacity_search_step_injector(0, 0, 0), 0);
}

/* One second of n samples at lat_us whose arrivals were sched, late of them
 * late, dropped dropped, each started lag_us after its time. */
static int feed_open(capacity_search *cs, uint64_t second, uint64_t n, uint64_t lat_us,
                     uint64_t sched, uint64_t late, uint64_t dropped, uint64_t lag_us, thresh **ths,
                     size_t nth)
{
    interval_sum s;
    int rc;

    interval_sum_init(&s, 1, 1);
    s.steps[0].count = n;
    for (uint64_t i = 0; i < n; i++)
        hist_record(s.steps[0].hist, lat_us);
    s.runs[0] = n;
    s.arrivals[0] = (rate_counts){sched, sched - dropped, late, dropped, 0, 0};
    s.lag[0] = hist_new();
    for (uint64_t i = 0; i < sched - dropped; i++)
        hist_record(s.lag[0], lag_us);
    if (lag_us >= SATURATION_START_US) {
        /* as the worker judges its second (common/saturation.h) */
        s.load = xcalloc(1, sizeof(*s.load));
        s.nload = s.capload = 1;
        s.load[0].saturated = 1;
        s.load[0].why = SATURATION_START;
        s.load[0].start_lag_p99_us = (uint32_t)lag_us;
    }
    rc = capacity_search_second(cs, second, &s, 0, (const thresh *const *)ths, nth, ids, names);
    interval_sum_free(&s);
    return rc;
}

/* Second 3 of a search: 20000 arrivals on time, their samples at 300 ms,
 * the worker saturated by its CPU (cpu permille, its loop lag_us late). */
static int feed_cpu_saturated(capacity_search *cs, uint64_t second, uint32_t cpu, uint32_t lag_us,
                              thresh *th)
{
    interval_sum s;
    int rc;

    interval_sum_init(&s, 1, 1);
    s.steps[0].count = 20000;
    for (int i = 0; i < 100; i++)
        hist_record(s.steps[0].hist, 300000);
    s.arrivals[0] = (rate_counts){20000, 20000, 0, 0, 0, 0};
    s.load = xcalloc(1, sizeof(*s.load));
    s.nload = s.capload = 1;
    s.load[0].saturated = 1;
    s.load[0].why = SATURATION_CPU;
    s.load[0].cpu_permille = cpu;
    s.load[0].loop_lag_max_us = lag_us;
    rc = capacity_search_second(cs, second, &s, 0, (const thresh *const *)&th, 1, ids, names);
    interval_sum_free(&s);
    return rc;
}

/* The step that failed could not be sent: the capacity is a lower bound,
 * the search inconclusive, limited by the injector; one that failed while
 * sent in full is the server's. */
static void test_limited_by(void **state)
{
    char err[ERR_MAX];
    thresh *th = thresh_parse("p95<100ms", err, sizeof(err));
    capacity_search *cs = search("10000/s:10000/s:2s:30000/s");
    verdict v = {.passed = 1, .why = "passed"};
    json_t *j, *st;

    (void)state;
    assert_int_equal(feed_open(cs, 1, 10000, 2000, 10000, 0, 0, 100, &th, 1), 0);
    assert_int_equal(cs->steps[0].injector_saturated, 0);
    assert_int_equal(feed_open(cs, 3, 12000, 300000, 20000, 9000, 7000, 290000, &th, 1), 1);
    assert_int_equal(cs->steps[1].injector_saturated, 1);
    assert_non_null(strstr(cs->steps[1].injector, "20000 arrivals due: 13000 started (9000 late, "
                                                  "0 after a new VU's init), 7000 dropped; "));
    assert_string_equal(capacity_search_limited_by(cs), "injector");
    capacity_search_verdict(cs, &v);
    assert_int_equal(v.passed, 0);
    assert_int_equal(v.inconclusive, 1);
    assert_int_equal(v.rc, 1);
    assert_non_null(strstr(v.why, "inconclusive: capacity at least 10000/s"));
    assert_non_null(strstr(v.why, "limited by the injector"));
    j = capacity_search_json(cs);
    assert_string_equal(json_string_value(json_object_get(j, "limited_by")), "injector");
    st = json_object_get(j, "steps");
    assert_true(json_is_false(json_object_get(json_array_get(st, 0), "injector_saturated")));
    assert_true(json_is_true(json_object_get(json_array_get(st, 1), "injector_saturated")));
    json_decref(j);
    capacity_search_free(cs);

    /* the same failure with every arrival sent on time: the server's */
    cs = search("10000/s:10000/s:2s:30000/s");
    v = (verdict){.passed = 1, .why = "passed"};
    assert_int_equal(feed_open(cs, 1, 10000, 2000, 10000, 0, 0, 100, &th, 1), 0);
    assert_int_equal(feed_open(cs, 3, 20000, 300000, 20000, 0, 0, 100, &th, 1), 1);
    assert_string_equal(capacity_search_limited_by(cs), "server");
    capacity_search_verdict(cs, &v);
    assert_int_equal(v.passed, 1);
    assert_int_equal(v.rc, 0);
    capacity_search_free(cs);

    /* every arrival on time, but a worker did not keep up in the step's
     * seconds (its CPU, its loop): the injector's */
    cs = search("10000/s:10000/s:2s:30000/s");
    assert_int_equal(feed_open(cs, 1, 10000, 2000, 10000, 0, 0, 100, &th, 1), 0);
    /* clearly: the loop late twice the bound and more */
    assert_int_equal(feed_cpu_saturated(cs, 3, 1000, 280000, th), 1);
    assert_int_equal(cs->steps[1].saturated_seconds, 1);
    assert_int_equal(cs->steps[1].clear_seconds, 1);
    assert_int_equal(cs->steps[1].injector_saturated, 1);
    assert_non_null(strstr(cs->steps[1].injector, "injector saturated in 1 of 1 s"));
    assert_string_equal(capacity_search_limited_by(cs), "injector");
    capacity_search_free(cs);

    /* the same with a marginal second (the loop 60 ms late once): no
     * evidence alone, and the service times fail too: the server's */
    cs = search("10000/s:10000/s:2s:30000/s");
    assert_int_equal(feed_open(cs, 1, 10000, 2000, 10000, 0, 0, 100, &th, 1), 0);
    assert_int_equal(feed_cpu_saturated(cs, 3, 950, 60000, th), 1);
    assert_int_equal(cs->steps[1].saturated_seconds, 1);
    assert_int_equal(cs->steps[1].clear_seconds, 0);
    assert_int_equal(cs->steps[1].injector_saturated, 0);
    assert_int_equal(cs->steps[1].blame, BLAME_SERVER);
    assert_string_equal(capacity_search_limited_by(cs), "server");
    capacity_search_free(cs);

    /* arrivals dropped with every VU of a pool of 50 busy (the server took
     * 250 ms a run: 20000/s x 0.25 s = 5000 VUs needed), the injector
     * keeping up: the server's limit, not the injector's */
    cs = search("10000/s:10000/s:2s:30000/s");
    cs->pool = 50;
    v = (verdict){.passed = 1, .why = "passed"};
    assert_int_equal(feed_open(cs, 1, 10000, 2000, 10000, 0, 0, 100, &th, 1), 0);
    {
        interval_sum s;
        interval_sum_init(&s, 1, 1);
        s.steps[0].count = 200;
        for (int i = 0; i < 200; i++)
            hist_record(s.steps[0].hist, 250000);
        s.runs[0] = 200;
        s.run_us = 200 * 250000;
        s.active_vus = 50;
        s.arrivals[0] = (rate_counts){20000, 200, 200, 19800, 0, 0};
        assert_int_equal(
            capacity_search_second(cs, 3, &s, 0, (const thresh *const *)&th, 1, ids, names), 1);
        interval_sum_free(&s);
    }
    assert_int_equal(cs->steps[1].injector_saturated, 0);
    assert_int_equal(cs->steps[1].pool_limited, 1);
    assert_non_null(strstr(cs->steps[1].pool,
                           "pool too small for the server's response time: "
                           "20000/s x 0.250 s = 5000 VUs busy, the pool has 50"));
    assert_string_equal(capacity_search_limited_by(cs), "server");
    capacity_search_verdict(cs, &v);
    assert_int_equal(v.passed, 1);
    assert_non_null(strstr(v.why, "the server's limit: pool too small for the server's"));
    j = capacity_search_json(cs);
    st = json_object_get(j, "steps");
    assert_true(json_is_true(json_object_get(json_array_get(st, 1), "pool_limited")));
    json_decref(j);
    capacity_search_free(cs);

    /* the last step passed, but at a load the injector did not send (it was
     * saturated): no capacity there, the injector limited the search */
    cs = search("10000/s:10000/s:2s:20000/s");
    v = (verdict){.passed = 1, .why = "passed"};
    assert_int_equal(feed_open(cs, 1, 10000, 2000, 10000, 0, 0, 100, &th, 1), 0);
    {
        interval_sum s;
        interval_sum_init(&s, 1, 1);
        s.steps[0].count = 9000;
        for (int i = 0; i < 100; i++)
            hist_record(s.steps[0].hist, 2000);
        s.arrivals[0] = (rate_counts){20000, 9000, 0, 11000, 0, 0};
        s.load = xcalloc(1, sizeof(*s.load));
        s.nload = s.capload = 1;
        s.load[0].saturated = 1;
        s.load[0].why = SATURATION_BEHIND;
        assert_int_equal(
            capacity_search_second(cs, 3, &s, 0, (const thresh *const *)&th, 1, ids, names), 0);
        interval_sum_free(&s);
    }
    capacity_search_end(cs, (const thresh *const *)&th, 1, ids, names);
    /* its thresholds passed, its load was not sent: failed, the injector's */
    assert_int_equal(cs->steps[1].passed, 0);
    assert_non_null(strstr(cs->steps[1].failed, "load not sent: 11000 of 20000 arrivals dropped"));
    assert_int_equal(cs->steps[1].injector_saturated, 1);
    assert_string_equal(capacity_search_limited_by(cs), "injector");
    capacity_search_verdict(cs, &v);
    assert_int_equal(v.inconclusive, 1);
    assert_non_null(strstr(v.why, "capacity at least 10000/s: the step at 20000/s was limited by "
                                  "the injector (injector saturated in 1 of 1 s; 20000 arrivals "
                                  "due: 9000 started"));
    assert_non_null(strstr(v.why, "its failure (load not sent: 11000 of 20000 arrivals dropped) "
                                  "was quern's own queue"));
    capacity_search_free(cs);

    /* --allow-saturation: the same search judged as usual, with the warning */
    cs = search("10000/s:10000/s:2s:30000/s");
    cs->allow_saturation = 1;
    v = (verdict){.passed = 1, .why = "passed"};
    assert_int_equal(feed_open(cs, 1, 10000, 2000, 10000, 0, 0, 100, &th, 1), 0);
    assert_int_equal(feed_open(cs, 3, 12000, 300000, 20000, 9000, 7000, 290000, &th, 1), 1);
    assert_int_equal(cs->steps[1].injector_saturated, 1);
    capacity_search_verdict(cs, &v);
    assert_int_equal(v.passed, 1);
    assert_int_equal(v.inconclusive, 0);
    assert_int_equal(v.allowed, 1);
    assert_int_equal(v.rc, 0);
    assert_non_null(strstr(v.why, "passed: capacity 10000/s (the step at 20000/s failed"));
    assert_non_null(strstr(v.why, "judged as usual by --allow-saturation"));
    /* what it rests on: the capacity's step and the failing one */
    assert_non_null(strstr(v.why, " [judged: 10000/s on 1 s and 10000 samples, 20000/s on 1 s "
                                  "and 12000 samples]"));
    capacity_search_free(cs);

    /* every step passed: MAX */
    cs = search("10000/s:10000/s:2s:20000/s");
    assert_int_equal(feed_open(cs, 1, 10000, 2000, 10000, 0, 0, 100, &th, 1), 0);
    assert_int_equal(feed_open(cs, 3, 20000, 2000, 20000, 0, 0, 100, &th, 1), 0);
    capacity_search_end(cs, (const thresh *const *)&th, 1, ids, names);
    assert_string_equal(capacity_search_limited_by(cs), "max");
    capacity_search_free(cs);
    thresh_free(th);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stops_at_first_failing_step),
        cmocka_unit_test(test_start_fails),
        cmocka_unit_test(test_last_step_at_end_with_late_parts),
        cmocka_unit_test(test_step_injector),
        cmocka_unit_test(test_limited_by),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
