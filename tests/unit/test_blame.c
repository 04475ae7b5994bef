/* Unit tests for console/blame: a failed response-time threshold is the
 * injector's only when the same threshold on the service times passes and
 * quern's own start lag explains the gap; the wait for VUs (their init, a
 * full pool) and a service time that fails too are the server's; other
 * thresholds are never the injector's. The two runs of the rule's
 * examples (docs/running.md) with their figures. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "console/blame.h"

#define MS 1000ULL

static const char *const ids[] = {"SC-A-STEP-1"};
static const char *const names[] = {"SC-A-STEP-1)hit"};

/* One step and one scenario of the open model: n_slow of n samples had
 * waited wait_us before a service of svc_us (the others svc_us on time);
 * quern's own start lag of every arrival own_us; the arrivals that waited
 * for a VU: init of them for a new VU's init, late for a full pool. */
static void build(agg *a, int n, int n_slow, uint64_t svc_us, uint64_t wait_us, uint64_t own_us,
                  uint64_t init, uint64_t late)
{
    step_stats st;
    uint64_t runs[1] = {(uint64_t)n}, missed[1] = {0};
    rate_counts arr = {
        .scheduled = (uint64_t)n, .started = (uint64_t)n, .late = late, .init_waits = init};
    hist *lag[1] = {hist_new()};

    agg_init(a, 1, 1);
    stats_init(&st);
    for (int i = 0; i < n; i++) {
        stats_record(&st, (i < n_slow ? wait_us : 0) + svc_us, svc_us);
        hist_record(lag[0], own_us);
    }
    st.count = (uint64_t)n;
    agg_add(a, &st, runs, missed, 10000000, 10);
    agg_add_arrivals(a, &arr);
    agg_add_lag(a, lag);
    stats_free(&st);
    hist_free(lag[0]);
}

static thresh *parse(const char *expr)
{
    char err[ERR_MAX];
    thresh *t = thresh_parse(expr, err, sizeof(err));
    assert_non_null(t);
    return t;
}

/* The server is blamed for quern's own queue, fixed: nginx answered in
 * 0.1 ms, every arrival had a VU, and quern's own start lag p95 was 34.9 ms:
 * the whole p95 of 33.7 ms was quern's. */
static void test_quern_own_queue(void **state)
{
    thresh *t = parse("p95<20ms");
    blame b;
    agg a;

    build(&a, 1000, 100, 100, 34 * MS, 34900, 0, 0);
    blame_threshold(t, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_INJECTOR);
    assert_true(b.service_passed);
    assert_true(b.response_ms > 20 && b.service_ms < 1);
    assert_true(b.own_lag_ms > 34 && b.own_lag_ms < 36);
    assert_non_null(strstr(b.why, "p95 34."));
    assert_non_null(strstr(b.why, "of service times (passes); quern's own start lag p95 34."));
    assert_non_null(strstr(b.why, "the delay was quern's own"));
    assert_string_equal(blame_name(b.who), "injector");
    agg_free(&a);
    thresh_free(t);
}

/* The injector is blamed for the server's slow init, fixed: arrivals that
 * waited 400 ms for a new VU's login fail p95<300ms, quern's own start lag
 * is 0.2 ms: the wait for VUs, the server's time. */
static void test_slow_init(void **state)
{
    thresh *t = parse("p95<300ms");
    blame b;
    agg a;

    build(&a, 200, 20, 100 * MS, 400 * MS, 200, 20, 0);
    blame_threshold(t, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_POOL);
    assert_true(b.service_passed);
    assert_non_null(strstr(b.why, "20 of 200 arrivals waited (20 for a new VU's init, 0 for a "
                                  "VU of the full pool)"));
    assert_string_equal(blame_name(b.who), "pool");
    agg_free(&a);
    thresh_free(t);
}

/* A server slow on its own: its service times fail too. */
static void test_server_slow(void **state)
{
    thresh *t = parse("p95<20ms");
    blame b;
    agg a;

    build(&a, 1000, 0, 50 * MS, 0, 40 * MS, 0, 0); /* quern late too: the server fails alone */
    blame_threshold(t, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_SERVER);
    assert_false(b.service_passed);
    assert_non_null(strstr(b.why, "(fails too)"));
    agg_free(&a);
    thresh_free(t);
}

/* Half the gap is the line: own lag at 40 % of it is not quern's. */
static void test_half_the_gap(void **state)
{
    thresh *t = parse("p99<20ms");
    blame b;
    agg a;

    build(&a, 1000, 100, 1 * MS, 50 * MS, 20 * MS, 0, 100);
    blame_threshold(t, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_POOL);
    agg_free(&a);
    build(&a, 1000, 100, 1 * MS, 50 * MS, 30 * MS, 0, 100);
    blame_threshold(t, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_INJECTOR);
    agg_free(&a);
    thresh_free(t);
}

/* mean and max compare quern's own mean and largest start lag. */
static void test_mean_and_max(void **state)
{
    thresh *mean = parse("mean<10ms"), *max = parse("max<30ms");
    blame b;
    agg a;

    build(&a, 100, 100, 1 * MS, 40 * MS, 40 * MS, 0, 0);
    blame_threshold(mean, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_INJECTOR);
    assert_non_null(strstr(b.why, "mean "));
    blame_threshold(max, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_INJECTOR);
    assert_non_null(strstr(b.why, "max "));
    agg_free(&a);
    thresh_free(mean);
    thresh_free(max);
}

/* Errors, tps, counts, service.* and windowed thresholds are the server's,
 * with no evidence written; so is a threshold that passed. */
static void test_other_thresholds(void **state)
{
    const char *exprs[] = {"errors<1%", "tps>1000", "count>=1", "service.p95<1ms", "p95[5s]<1ms"};
    thresh *t;
    blame b;
    agg a;

    build(&a, 100, 100, 1 * MS, 40 * MS, 40 * MS, 0, 0);
    for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
        t = parse(exprs[i]);
        blame_threshold(t, &a, ids, names, 10, &b);
        assert_int_equal(b.who, BLAME_SERVER);
        assert_string_equal(b.why, "");
        thresh_free(t);
    }
    t = parse("p95<1s");
    blame_threshold(t, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_SERVER);
    thresh_free(t);
    agg_free(&a);
}

/* The closed model: no start lag; the gap is the pacing overrun. */
static void test_closed_model(void **state)
{
    thresh *t = parse("p95<20ms");
    step_stats st;
    uint64_t runs[1] = {100}, missed[1] = {30};
    blame b;
    agg a;

    agg_init(&a, 1, 1);
    stats_init(&st);
    for (int i = 0; i < 100; i++)
        stats_record(&st, i < 30 ? 80 * MS : 5 * MS, 5 * MS);
    st.count = 100;
    agg_add(&a, &st, runs, missed, 10000000, 10);
    stats_free(&st);
    blame_threshold(t, &a, ids, names, 10, &b);
    assert_int_equal(b.who, BLAME_POOL);
    assert_non_null(strstr(b.why, "overrunning their pacing (30 missed their slot)"));
    agg_free(&a);
    thresh_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quern_own_queue), cmocka_unit_test(test_slow_init),
        cmocka_unit_test(test_server_slow),     cmocka_unit_test(test_half_the_gap),
        cmocka_unit_test(test_mean_and_max),    cmocka_unit_test(test_other_thresholds),
        cmocka_unit_test(test_closed_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
