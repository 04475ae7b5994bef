/* Unit tests for console/verdict: the default thresholds and which rule
 * decides a run's exit status. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "console/run.h"
#include "console/verdict.h"

static thresh *parse(const char *expr)
{
    char err[256];
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_decide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
