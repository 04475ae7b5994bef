/* Unit tests for console/jcases.c: a run's JUnit test cases from its
 * totals and its thresholds' verdicts (reports/junit.c, which writes them,
 * has its own tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/stats.h"
#include "console/agg.h"
#include "console/jcases.h"
#include "console/thresh.h"

static size_t nfailed(const jcases *j)
{
    size_t n = 0;

    for (size_t i = 0; i < j->n; i++)
        n += j->cases[i].failed != 0;
    return n;
}

static const char *const ids[] = {"SC-A-STEP-1", "SC-A-STEP-2", "SC-B-STEP-1"};
static const char *const names[] = {"SC-A-STEP-1)home <&\">", "SC-A-STEP-2)search",
                                    "SC-B-STEP-1)login"};

static void build(agg *a)
{
    step_stats steps[3];
    uint64_t runs[1] = {3}, missed[1] = {0};

    agg_init(a, 3, 1);
    for (size_t i = 0; i < 3; i++) {
        stats_init(&steps[i]);
        /* step i: 100 samples of (i + 1) * 200 ms */
        hist_record_n(steps[i].hist, (uint64_t)(i + 1) * 200000, 100);
        steps[i].count = 100;
    }
    steps[1].err_tech = 3;
    steps[1].err_func = 1;
    stats_note_error(&steps[1], 1, "HTTP 503 <Service Unavailable> & co");
    for (int k = 0; k < 3; k++)
        stats_note_kind(&steps[1], 1, 503, "HTTP status 503", 10 + k, NULL);
    stats_note_kind(&steps[1], 0, 0, "expected status 200, got 302", 20, NULL);
    agg_add(a, steps, runs, missed, 10000000, 5);
    for (size_t i = 0; i < 3; i++)
        stats_free(&steps[i]);
}

static void test_run_cases(void **state)
{
    const char *exprs[] = {"SC-A-*: p95<500ms", "errors<1%", "SC-B-STEP-1: count>=100", "tps>=30"};
    enum { NT = sizeof(exprs) / sizeof(exprs[0]) };
    thresh *ts[NT];
    thresh_result rs[NT];
    jcases j;
    char err[ERR_MAX] = "", buf[2048];
    const junit_case *c;
    agg a;

    build(&a);
    for (size_t i = 0; i < NT; i++) {
        ts[i] = thresh_parse(exprs[i], err, sizeof(err));
        assert_non_null(ts[i]);
        thresh_eval(ts[i], &a, ids, names, 10, &rs[i]);
    }
    /* p95 of SC-A-*: 100 samples of 200 ms, 100 of 400 ms */
    assert_true(rs[0].passed);
    assert_false(rs[1].passed); /* 4 of 300 = 1.333 % */
    assert_true(rs[2].passed);
    assert_true(rs[3].passed); /* 300 in 10 s */

    /* make the scoped one fail: a tighter limit on the same steps */
    thresh_free(ts[0]);
    ts[0] = thresh_parse("SC-A-*: p95<300ms", err, sizeof(err));
    assert_non_null(ts[0]);
    assert_false(thresh_eval(ts[0], &a, ids, names, 10, &rs[0]));

    jcases_build(&j, "demo", &a, ids, names, 10, (const thresh *const *)ts, rs, NT);
    assert_int_equal(j.n, 3 + NT);

    assert_int_equal(j.n, 7);
    /* the two SC-A steps (covered by the failed scoped threshold; the
     * failed errors<1% adds SC-A-STEP-2's errors), and the two failed
     * thresholds; SC-B-STEP-1 had no error */
    assert_int_equal(nfailed(&j), 4);
    assert_int_equal(j.n, 7);

    c = &j.cases[0];
    assert_string_equal(c->classname, "quern.demo");
    assert_string_equal(c->name, "SC-A-STEP-1)home <&\">");
    assert_float_equal(c->time_s, 0.200, 1e-9);
    assert_string_equal(c->failure_message,
                        "threshold 'SC-A-*: p95<300ms' failed: p95 of SC-A-* (2 steps) = 400 ms, "
                        "limit < 300 ms");

    c = &j.cases[1];
    assert_string_equal(c->name, "SC-A-STEP-2)search");
    /* its errors first (a failed errors threshold covers it), then the rest */
    assert_string_equal(c->failure_message,
                        "4 error(s) in 100 sample(s): 3 technical (first: HTTP 503 <Service "
                        "Unavailable> & co), 1 functional; by kind: 3 technical 503 HTTP status "
                        "503, 1 functional 0 expected status 200, got 302 (and 1 more)");
    snprintf(buf, sizeof(buf), "%s", c->system_out);
    assert_non_null(strstr(buf, "count 100, errors 4 (technical 3, functional 1), error rate 4 %"));
    assert_non_null(strstr(buf, "technical error, e.g. HTTP 503 <Service Unavailable> & co"));

    /* a step without error and without a failed scoped threshold passes */
    c = &j.cases[2];
    assert_string_equal(c->name, "SC-B-STEP-1)login");
    assert_false(c->failed);
    snprintf(buf, sizeof(buf), "%s", c->system_out);
    assert_non_null(strstr(buf, "tps 10/s, mean 600 ms, p50 600 ms"));

    c = &j.cases[3];
    assert_string_equal(c->name, "threshold SC-A-*: p95<300ms");
    assert_string_equal(c->failure_message, "p95 of SC-A-* (2 steps) = 400 ms, limit < 300 ms");
    assert_string_equal(c->failure_type, "threshold");
    assert_string_equal(c->failure_text,
                        "threshold 'SC-A-*: p95<300ms' failed: p95 of SC-A-* (2 steps) = 400 ms, "
                        "limit < 300 ms\n200 samples in 2 step(s)\n");
    assert_null(c->system_out);

    c = &j.cases[4];
    assert_string_equal(c->name, "threshold errors<1%");
    assert_string_equal(c->failure_message,
                        "errors of all steps = 1.333 % (4 of 300), limit < 1 %");

    c = &j.cases[5];
    assert_string_equal(c->name, "threshold SC-B-STEP-1: count>=100");
    assert_false(c->failed);
    assert_string_equal(c->system_out, "passed: count of SC-B-STEP-1 = 100, limit >= 100\n");

    c = &j.cases[6];
    assert_string_equal(c->name, "threshold tps>=30");
    assert_false(c->failed);
    jcases_free(&j);
    jcases_free(&j); /* twice is fine */

    for (size_t i = 0; i < NT; i++)
        thresh_free(ts[i]);
    agg_free(&a);
}

/* A failed errors threshold without a scope fails the case of each step
 * that had errors (not the others); a passing one fails none. */
static void test_run_cases_errors(void **state)
{
    thresh *t;
    thresh_result r;
    jcases j;
    char err[ERR_MAX] = "", buf[2048];
    const junit_case *c;
    agg a;

    build(&a);
    t = thresh_parse("errors<=0%", err, sizeof(err));
    assert_non_null(t);
    assert_false(thresh_eval(t, &a, ids, names, 10, &r));
    jcases_build(&j, "demo", &a, ids, names, 10, (const thresh *const *)&t, &r, 1);
    assert_int_equal(nfailed(&j), 2); /* SC-A-STEP-2 and the threshold's own case */
    assert_false((&j.cases[0])->failed);
    c = &j.cases[1];
    assert_string_equal(c->failure_message,
                        "4 error(s) in 100 sample(s): 3 technical (first: HTTP 503 <Service "
                        "Unavailable> & co), 1 functional; by kind: 3 technical 503 HTTP status "
                        "503, 1 functional 0 expected status 200, got 302");
    snprintf(buf, sizeof(buf), "%s", c->failure_text);
    assert_string_equal(buf, "4 error(s) in 100 sample(s): 3 technical (first: HTTP 503 <Service "
                             "Unavailable> & co), 1 functional; by kind: 3 technical 503 HTTP "
                             "status 503, 1 functional 0 expected status 200, got 302");
    assert_false((&j.cases[2])->failed);
    jcases_free(&j);
    thresh_free(t);

    /* errors<5% passes (1.333 %): the errors are tolerated, no step fails */
    t = thresh_parse("errors<5%", err, sizeof(err));
    assert_true(thresh_eval(t, &a, ids, names, 10, &r));
    jcases_build(&j, "demo", &a, ids, names, 10, (const thresh *const *)&t, &r, 1);
    for (size_t i = 0; i < j.n; i++)
        assert_false(j.cases[i].failed);
    jcases_free(&j);
    thresh_free(t);
    agg_free(&a);
}

static void test_run_cases_no_thresholds(void **state)
{
    jcases j;
    agg a;

    build(&a);
    jcases_build(&j, NULL, &a, ids, NULL, 10, NULL, NULL, 0);
    assert_int_equal(j.n, 3);
    assert_string_equal(j.cases[0].classname, "quern.run");
    assert_string_equal(j.cases[0].name, "SC-A-STEP-1");
    assert_int_equal(nfailed(&j), 0);
    jcases_free(&j);
    agg_free(&a);
}

/* A run stopped before its end: one more case, failed, with the verdict */
static void test_stopped_case(void **state)
{
    jcases j;
    agg a;

    build(&a);
    jcases_build(&j, NULL, &a, ids, NULL, 10, NULL, NULL, 0);
    jcases_add_stopped(&j, "stopped: SIGTERM at 3s of 20s");
    assert_int_equal(j.n, 4);
    assert_string_equal(j.cases[3].classname, "quern.run");
    assert_string_equal(j.cases[3].name, "stopped");
    assert_true(j.cases[3].failed);
    assert_string_equal(j.cases[3].failure_type, "stopped");
    assert_string_equal(j.cases[3].failure_message, "stopped: SIGTERM at 3s of 20s");
    assert_int_equal(nfailed(&j), 1);
    jcases_free(&j);
    agg_free(&a);
}

/* A capacity search: its case carries the verdict and the profile's
 * diagnosis, failed when the search failed. */
static void test_capacity_case(void **state)
{
    jcases j;
    agg a;
    const char *why = "passed: capacity 5 VUs; the profile: the server's threads spent 41 % of "
                      "their time waiting on a lock in seq_next";

    (void)state;
    build(&a);
    jcases_build(&j, NULL, &a, ids, NULL, 10, NULL, NULL, 0);
    jcases_add_capacity(&j, 1, why);
    assert_int_equal(j.n, 4);
    assert_string_equal(j.cases[3].name, "capacity");
    assert_false(j.cases[3].failed);
    assert_non_null(strstr(j.cases[3].system_out, "waiting on a lock in seq_next"));
    jcases_add_capacity(&j, 0, "failed: no step passed");
    assert_true(j.cases[4].failed);
    assert_string_equal(j.cases[4].failure_type, "capacity");
    assert_string_equal(j.cases[4].failure_message, "failed: no step passed");
    assert_int_equal(nfailed(&j), 1);
    jcases_free(&j);
    agg_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_cases),
        cmocka_unit_test(test_run_cases_errors),
        cmocka_unit_test(test_run_cases_no_thresholds),
        cmocka_unit_test(test_stopped_case),
        cmocka_unit_test(test_capacity_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
