/* Unit tests for console/rollwin: a windowed threshold holds in every
 * window of its length, exactly (the window's seconds merged), its verdict
 * the worst window's with when it was; a bad stretch that the whole run
 * averages away fails its window; a late part of a second is judged again;
 * a scope merges its steps; a run shorter than the window is one window;
 * no sample at all is no pass at the end. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "console/rollwin.h"

#define MS 1000ULL

static const char *const ids[] = {"SC-A-STEP-1", "SC-A-STEP-2"};
static const char *const names[] = {"SC-A-STEP-1)home", "SC-A-STEP-2)search"};

static thresh *parse(const char *expr)
{
    char err[ERR_MAX];
    thresh *t = thresh_parse(expr, err, sizeof(err));
    assert_non_null(t);
    return t;
}

/* One second: n samples of step k at lat_us, errs of them errors. */
static void second(rollwin *w, uint64_t s, size_t k, int n, uint64_t lat_us, int errs, int late)
{
    interval_sum sum;

    interval_sum_init(&sum, 2, 1);
    for (int i = 0; i < n; i++)
        stats_record(&sum.steps[k], lat_us, lat_us);
    sum.steps[k].count = (uint64_t)n;
    sum.steps[k].err_tech = (uint64_t)errs;
    rollwin_second(w, s, &sum, late);
    interval_sum_free(&sum);
}

/* 20 s at 100 samples a second of 10 ms, but second 12 at 900 ms: the run's
 * p95 passes, every 5 s window holding second 12 fails. */
static void test_freeze_fails_its_window(void **state)
{
    thresh *ts[2] = {parse("p95<300ms"), parse("p95[5s]<300ms")};
    rollwin *w = rollwin_new(ts, 2, ids, names, 2);
    thresh_result r;

    assert_non_null(w);
    for (uint64_t s = 0; s < 20; s++)
        second(w, s, 0, 100, s == 12 ? 900 * MS : 10 * MS, 0, 0);
    rollwin_end(w);
    assert_int_equal(rollwin_judged(w, 0), 0);  /* not windowed */
    assert_int_equal(rollwin_judged(w, 1), 16); /* windows ending at 4 .. 19 */
    /* the windowed one: its worst window, the first that holds second 12 */
    assert_false(rollwin_eval(w, 1, ts[1], NULL, ids, names, 20, &r));
    assert_true(r.measured > 890 && r.measured < 910);
    assert_non_null(strstr(r.desc, "p95[5s] of all steps = "));
    assert_non_null(strstr(r.desc, ", in its worst 5 s window, 8-13 s of the run (16 windows)"));
    assert_int_equal(r.samples, 500);
    rollwin_free(w);
    thresh_free(ts[0]);
    thresh_free(ts[1]);
}

/* Every window is exact: a window's p95 is that of its seconds merged. */
static void test_window_is_exact(void **state)
{
    thresh *ts[1] = {parse("p50[2s]>15ms")};
    rollwin *w = rollwin_new(ts, 1, ids, names, 2);
    thresh_result r;

    /* 10, 20, 30, 40 ms: windows [10,20] p50 10 (nearest rank), [20,30] 20, [30,40] 30 */
    for (uint64_t s = 0; s < 4; s++)
        second(w, s, 0, 10, (s + 1) * 10 * MS, 0, 0);
    assert_false(rollwin_eval(w, 0, ts[0], NULL, ids, names, 4, &r));
    assert_true(r.measured > 9.9 && r.measured < 10.1); /* the lowest: worst for '>' */
    assert_non_null(strstr(r.desc, "0-2 s of the run (3 windows)"));
    rollwin_free(w);
    thresh_free(ts[0]);
}

/* errors[3s] and tps[2s]: counts over each window. */
static void test_errors_and_tps(void **state)
{
    thresh *ts[2] = {parse("errors[3s]<10%"), parse("tps[2s]>=50")};
    rollwin *w = rollwin_new(ts, 2, ids, names, 2);
    thresh_result r;

    for (uint64_t s = 0; s < 6; s++)
        second(w, s, 0, s == 3 ? 10 : 100, 10 * MS, s == 4 ? 30 : 0, 0);
    /* errors: windows holding second 4: (100+10+100) with 30 errors = 14.3 % */
    assert_false(rollwin_eval(w, 0, ts[0], NULL, ids, names, 6, &r));
    assert_true(r.measured > 14.2 && r.measured < 14.3);
    /* tps: windows holding second 3: 110 in 2 s = 55/s: passes, the lowest */
    assert_true(rollwin_eval(w, 1, ts[1], NULL, ids, names, 6, &r));
    assert_true(r.measured > 54.9 && r.measured < 55.1);
    rollwin_free(w);
    thresh_free(ts[0]);
    thresh_free(ts[1]);
}

/* A scope merges its steps only; other steps do not count. */
static void test_scope(void **state)
{
    thresh *ts[1] = {parse("SC-A-STEP-2: max[2s]<100ms")};
    rollwin *w = rollwin_new(ts, 1, ids, names, 2);
    thresh_result r;

    for (uint64_t s = 0; s < 4; s++) {
        second(w, s, 0, 10, 900 * MS, 0, 0); /* step 1: slow, out of scope */
        second(w, s, 1, 10, 20 * MS, 0, 1);  /* step 2, the same seconds (a late part) */
    }
    assert_true(rollwin_eval(w, 0, ts[0], NULL, ids, names, 4, &r));
    assert_non_null(strstr(r.desc, "max[2s] of SC-A-STEP-2 = 20"));
    rollwin_free(w);
    thresh_free(ts[0]);
}

/* A late part of a second already judged: its windows judged again. */
static void test_late_part(void **state)
{
    thresh *ts[1] = {parse("max[2s]<100ms")};
    rollwin *w = rollwin_new(ts, 1, ids, names, 2);
    thresh_result r;

    for (uint64_t s = 0; s < 5; s++)
        second(w, s, 0, 10, 10 * MS, 0, 0);
    assert_true(rollwin_eval(w, 0, ts[0], NULL, ids, names, 5, &r));
    second(w, 3, 0, 1, 500 * MS, 0, 1); /* an agent's part of second 3, late */
    assert_false(rollwin_eval(w, 0, ts[0], NULL, ids, names, 5, &r));
    assert_non_null(strstr(r.desc, "2-4 s of the run"));
    assert_int_equal(rollwin_judged(w, 0), 4); /* judged again, not counted twice */
    /* a part too late (its windows settled) is left out */
    for (uint64_t s = 5; s < 12; s++)
        second(w, s, 0, 10, 10 * MS, 0, 0);
    second(w, 1, 0, 1, 900 * MS, 0, 1);
    assert_false(rollwin_eval(w, 0, ts[0], NULL, ids, names, 12, &r));
    assert_true(r.measured > 499 && r.measured < 501);
    rollwin_free(w);
    thresh_free(ts[0]);
}

/* Shorter than its window: one window of what it had; nothing: no pass. */
static void test_short_and_empty(void **state)
{
    thresh *ts[1] = {parse("p95[10s]<300ms")};
    rollwin *w = rollwin_new(ts, 1, ids, names, 2);
    thresh_result r;

    for (uint64_t s = 0; s < 3; s++)
        second(w, s, 0, 10, 10 * MS, 0, 0);
    assert_true(rollwin_eval(w, 0, ts[0], NULL, ids, names, 3, &r)); /* nothing yet */
    assert_int_equal(rollwin_judged(w, 0), 0);
    rollwin_end(w);
    assert_true(rollwin_eval(w, 0, ts[0], NULL, ids, names, 3, &r));
    assert_non_null(strstr(r.desc, "0-3 s of the run (1 window)"));
    rollwin_free(w);

    w = rollwin_new(ts, 1, ids, names, 2);
    second(w, 0, 0, 0, 0, 0, 0);
    rollwin_end(w);
    assert_false(rollwin_eval(w, 0, ts[0], NULL, ids, names, 1, &r));
    assert_non_null(strstr(r.desc, "no 10 s window with a sample"));
    rollwin_free(w);
    thresh_free(ts[0]);
    /* none windowed: no state */
    ts[0] = parse("p95<1s");
    assert_null(rollwin_new(ts, 1, ids, names, 2));
    thresh_free(ts[0]);
}

/* The window's grammar: whole seconds, with the metrics it fits. */
static void test_parse(void **state)
{
    char err[ERR_MAX];
    thresh *t = parse("service.p99[1m]<=2s");

    assert_int_equal(t->window_s, 60);
    assert_true(t->service);
    thresh_free(t);
    t = parse("SC-*: errors.technical[30s] < 1%");
    assert_int_equal(t->window_s, 30);
    thresh_free(t);
    assert_null(thresh_parse("count[10s]>=1", err, sizeof(err)));
    assert_non_null(strstr(err, "a window [D] goes with a response time"));
    assert_null(thresh_parse("p95[1500ms]<1s", err, sizeof(err)));
    assert_non_null(strstr(err, "whole seconds from 1s to 600s"));
    assert_null(thresh_parse("p95[11m]<1s", err, sizeof(err)));
    assert_null(thresh_parse("p95[10s<1s", err, sizeof(err)));
    assert_non_null(strstr(err, "a window is a duration in brackets"));
    assert_null(thresh_parse("p95[]<1s", err, sizeof(err)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_freeze_fails_its_window),
        cmocka_unit_test(test_window_is_exact),
        cmocka_unit_test(test_errors_and_tps),
        cmocka_unit_test(test_scope),
        cmocka_unit_test(test_late_part),
        cmocka_unit_test(test_short_and_empty),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
