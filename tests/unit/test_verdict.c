/* Unit tests for console/verdict: the default thresholds and which rule
 * decides a run's exit status. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/err.h"
#include "console/run.h"
#include "console/verdict.h"

static thresh *parse(const char *expr)
{
    char err[ERR_MAX];
    thresh *t = thresh_parse(expr, err, sizeof(err));
    assert_non_null(t);
    return t;
}

static void test_defaults(void **state)
{
    const char *d[2];
    thresh *t[2] = {parse("p95<500ms"), parse("SC-X-STEP-1: errors.technical<1%")};

    /* nothing about errors: any error fails; steps: a sample is needed */
    assert_int_equal(verdict_defaults((const thresh *const *)t, 1, 0, 3, d), 2);
    assert_string_equal(d[0], "errors<=0%");
    assert_string_equal(d[1], "count>=1");
    /* --allow-errors, or a threshold about errors (even scoped): no errors default */
    assert_int_equal(verdict_defaults((const thresh *const *)t, 1, 1, 3, d), 1);
    assert_string_equal(d[0], "count>=1");
    assert_int_equal(verdict_defaults((const thresh *const *)t, 2, 0, 3, d), 1);
    assert_string_equal(d[0], "count>=1");
    /* a script without steps: no count default */
    assert_int_equal(verdict_defaults(NULL, 0, 0, 0, d), 1);
    assert_string_equal(d[0], "errors<=0%");
    thresh_free(t[0]);
    thresh_free(t[1]);
}

static void test_decide(void **state)
{
    thresh *t[2] = {parse("p95<500ms"), parse("errors<=0%")};
    thresh_result r[2];
    const char *src[2] = {NULL, VERDICT_DEFAULT};
    verdict_in in;
    verdict v;

    memset(r, 0, sizeof(r));
    r[0].passed = r[1].passed = 1;
    memset(&in, 0, sizeof(in));
    in.ts = (const thresh *const *)t;
    in.rs = r;
    in.sources = src;
    in.nt = 2;
    in.samples = 10;
    in.runs = 10;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_OK);
    assert_true(v.passed);
    assert_string_equal(v.why, "passed: every threshold passed");

    /* the default errors rule decides, and says so */
    r[1].passed = 0;
    snprintf(r[1].desc, sizeof(r[1].desc), "errors of all steps = 50 %% (5 of 10), limit <= 0 %%");
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    assert_false(v.passed);
    assert_non_null(strstr(v.why, "failed: threshold errors<=0%: errors of all steps = 50 %"));
    assert_non_null(strstr(v.why, "default rule"));
    assert_non_null(strstr(v.why, "--allow-errors"));

    /* a user threshold that failed first is named, with no default note */
    r[0].passed = 0;
    snprintf(r[0].desc, sizeof(r[0].desc), "p95 = 600 ms, limit < 500 ms");
    verdict_decide(&in, &v);
    assert_non_null(strstr(v.why, "failed: threshold p95<500ms: p95 = 600 ms"));
    assert_null(strstr(v.why, "default rule"));
    assert_non_null(strstr(v.why, "more thresholds failed"));
    r[0].passed = r[1].passed = 1;

    /* a lost agent: failed, unless --allow-agent-loss */
    in.degraded = in.loss_only = 1;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    in.allow_loss = 1;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_OK);
    assert_non_null(strstr(v.why, "tolerated by --allow-agent-loss"));
    /* results not recorded: --allow-agent-loss does not excuse it */
    in.loss_only = 0;
    in.why_degraded = "results database: disk full";
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    assert_non_null(strstr(v.why, "degraded: results database: disk full"));
    in.degraded = in.allow_loss = 0;

    /* nothing completed, even with no threshold at all */
    in.nt = 0;
    in.samples = in.runs = 0;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    assert_non_null(strstr(v.why, "nothing completed"));
    in.runs = 3; /* runs without steps completed */
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_OK);

    /* aborted: exit 3; stopped by --abort-on-fail: exit 1 */
    in.aborted = 1;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_START);
    in.aborted = 0;
    in.threshold_stop = 1;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    thresh_free(t[0]);
    thresh_free(t[1]);
}

/* The injector's own limits: saturation and load not sent make a run
 * inconclusive (exit 1), in that order, after every failing rule. */
static void test_inconclusive(void **state)
{
    thresh *t[1] = {parse("p95<500ms")};
    thresh_result r[1];
    verdict_in in;
    verdict v;

    memset(r, 0, sizeof(r));
    r[0].passed = 1;
    memset(&in, 0, sizeof(in));
    in.ts = (const thresh *const *)t;
    in.rs = r;
    in.nt = 1;
    in.samples = in.runs = 10;

    /* at the bounds: still a pass */
    in.measured_s = 40;
    in.saturated_s = 2; /* 5 % */
    in.undelivered_share = VERDICT_UNDELIVERED_MAX;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_OK);
    assert_false(v.inconclusive);
    assert_false(v.allowed);
    /* one marginal second never decides, even of a short run ... */
    in.measured_s = 4;
    in.saturated_s = 1;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_OK);
    /* ... one clear second does */
    in.clear_s = 1;
    verdict_decide(&in, &v);
    assert_true(v.inconclusive);
    in.clear_s = 0;

    /* saturated: inconclusive, naming where and on what, with the advice */
    in.measured_s = 10;
    in.saturated_s = 5;
    in.why_saturated = "agent local, worker 0: CPU 100 %, loop lag 280 ms";
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    assert_false(v.passed);
    assert_true(v.inconclusive);
    assert_non_null(strstr(v.why, "inconclusive: the injector saturated in 50 % of the measured "
                                  "seconds (5 of 10 s: agent local, worker 0: CPU 100 %, loop lag "
                                  "280 ms)"));
    assert_non_null(strstr(v.why, "--workers"));
    /* --allow-saturation: a warning on the pass, and allowed */
    in.allow_saturation = 1;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_OK);
    assert_true(v.allowed);
    assert_non_null(strstr(v.why, "tolerated by --allow-saturation"));
    in.allow_saturation = 0;

    /* a failed threshold while saturated says both */
    r[0].passed = 0;
    snprintf(r[0].desc, sizeof(r[0].desc), "p95 = 600 ms, limit < 500 ms");
    verdict_decide(&in, &v);
    assert_false(v.inconclusive);
    assert_non_null(strstr(v.why, "failed: threshold p95<500ms: p95 = 600 ms"));
    assert_non_null(strstr(v.why, "the injector saturated in 50 %"));
    r[0].passed = 1;

    /* the threshold failed on quern's own delay (console/blame.h):
     * inconclusive, with the evidence; --allow-saturation fails it as usual */
    in.saturated_s = 0;
    r[0].passed = 0;
    in.blame_injector = 1;
    in.why_blame = "p95 33.7 ms of response times, 0.1 ms of service times (passes)";
    verdict_decide(&in, &v);
    assert_true(v.inconclusive);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    assert_non_null(strstr(v.why, "inconclusive: threshold p95<500ms failed on quern's own delay"));
    assert_non_null(strstr(v.why, "0.1 ms of service times"));
    in.allow_saturation = 1;
    verdict_decide(&in, &v);
    assert_false(v.inconclusive);
    assert_true(v.allowed);
    assert_non_null(strstr(v.why, "failed: threshold p95<500ms"));
    assert_non_null(strstr(v.why, "judged as usual by --allow-saturation"));
    in.allow_saturation = 0;
    /* the same evidence of a wait for VUs (not quern's): failed, the server's */
    in.blame_injector = 0;
    in.why_blame = "the delay was the wait for a VU";
    verdict_decide(&in, &v);
    assert_false(v.inconclusive);
    assert_non_null(strstr(v.why, "failed: threshold p95<500ms: p95 = 600 ms"));
    assert_non_null(strstr(v.why, "the delay was the wait for a VU"));
    in.why_blame = NULL;
    r[0].passed = 1;

    /* load not sent */
    in.saturated_s = 0;
    in.undelivered_share = 0.8;
    in.why_undelivered = "96 of 120 arrivals dropped: the pool of 3 VUs was too small";
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    assert_true(v.inconclusive);
    assert_non_null(strstr(v.why, "inconclusive: 80 % of the load asked was not sent (96 of 120"));

    /* nothing completed is a failure before it is inconclusive */
    in.samples = in.runs = 0;
    verdict_decide(&in, &v);
    assert_false(v.inconclusive);
    assert_non_null(strstr(v.why, "nothing completed"));
    thresh_free(t[0]);
}

/* A signal before the planned end: "stopped", exit 1, whatever the figures
 * say (a cancelled CI job is never green); --stopped-ok judges the rest. */
static void test_stopped(void **state)
{
    thresh *t[1] = {parse("p95<500ms")};
    thresh_result r[1];
    verdict_in in;
    verdict v;

    memset(r, 0, sizeof(r));
    r[0].passed = 1;
    memset(&in, 0, sizeof(in));
    in.ts = (const thresh *const *)t;
    in.rs = r;
    in.nt = 1;
    in.samples = in.runs = 42;
    in.stopped = 1;
    in.why_stopped = "SIGTERM at 3s of 20s";
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_FAILED);
    assert_false(v.passed);
    assert_false(v.inconclusive);
    assert_non_null(strstr(v.why, "stopped: SIGTERM at 3s of 20s, before the run's planned end"));
    assert_non_null(strstr(v.why, "42 samples"));
    assert_non_null(strstr(v.why, "--stopped-ok"));
    assert_null(strstr(v.why, "threshold failed too"));
    /* a failed threshold is said too */
    r[0].passed = 0;
    verdict_decide(&in, &v);
    assert_int_equal(strncmp(v.why, "stopped: ", 9), 0);
    assert_non_null(strstr(v.why, "a threshold failed too"));
    /* --stopped-ok: judged on what it did */
    in.stopped_ok = 1;
    verdict_decide(&in, &v);
    assert_int_equal(strncmp(v.why, "failed: threshold p95<500ms", 27), 0);
    r[0].passed = 1;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_OK);
    assert_true(v.passed);
    /* an abort still decides first */
    in.stopped_ok = 0;
    in.aborted = 1;
    verdict_decide(&in, &v);
    assert_int_equal(v.rc, RUN_EXIT_START);
    assert_string_equal(v.why, "aborted");
    thresh_free(t[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_inconclusive),
        cmocka_unit_test(test_stopped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
