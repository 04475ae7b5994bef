/* Unit tests for reports/kindshtml: the report's errors by kind, one table
 * (and chart, when the run has points) per step in the order the rows come,
 * each kind's count, class, code, folded message, first and last time from
 * the run's start and its example (URL, status, trace id, body), all text
 * escaped; a run without kinds said so. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "reports/kindshtml.h"

#include "tests/unit/sectext.h"

#define T0_US 1700000000000000LL
#define T0_MS (T0_US / 1000)

static void test_tables(void **state)
{
    double ps0[3] = {0, 2, 1}, ps1[3] = {1, 0, 0}, ps2[3] = {0, 0, 1};
    query_step steps[2] = {{.test_id = "SC-S-STEP-1"}, {.test_id = "SC-S-STEP-2"}};
    kindseries_row rows[3] = {
        {.step = 0,
         .cls = "technical",
         .code = 503,
         .message = "HTTP status 503",
         .count = 3,
         .first_ms = T0_MS + 1500,
         .last_ms = T0_MS + 2500,
         .url = "http://shop.test/cart?a=1&b=2",
         .body = "<h1>busy</h1>",
         .status = 503,
         .trace_id = "4bf92f3577b34da6a3ce929d0e0e4736",
         .ps = ps0},
        {.step = 0,
         .cls = "functional",
         .code = 0,
         .message = "expected <ok>",
         .count = 1,
         .first_ms = T0_MS,
         .last_ms = T0_MS,
         .url = "",
         .body = "",
         .ps = ps1},
        {.step = 1,
         .cls = "technical",
         .code = 7,
         .message = "Failed to connect",
         .count = 1,
         .first_ms = T0_MS + 2000,
         .last_ms = T0_MS + 2000,
         .url = "",
         .body = "",
         .ps = ps2},
    };
    query_run r = {.started_us = T0_US, .steps = steps, .nsteps = 2, .npts = 3, .width_s = 1};
    char *s, *t1, *t2;

    r.kinds.rows = rows;
    r.kinds.n = 3;
    r.kinds.npts = 3;
    s = sectext_of(kindshtml_section, &r);
    assert_non_null(strstr(s, "<section id=\"kinds\">"));
    assert_int_equal(sectext_count(s, "<table class=\"errors\">"), 2); /* one a step */
    assert_int_equal(sectext_count(s, "<svg"), 2);                     /* and its chart */
    t1 = strstr(s, "<h3><code>SC-S-STEP-1</code></h3>");
    t2 = strstr(s, "<h3><code>SC-S-STEP-2</code></h3>");
    assert_non_null(t1);
    assert_non_null(t2);
    assert_true(t1 < t2);
    assert_true(strstr(s, "Failed to connect") > t2); /* under its own step */
    assert_non_null(strstr(s, "<tr><td class=\"n\">3</td><td>technical</td><td class=\"n\">503"
                              "</td><td><code>HTTP status 503</code></td><td class=\"n\">1.5 s"
                              "</td><td class=\"n\">2.5 s</td>"));
    assert_non_null(strstr(s, "<code>http://shop.test/cart?a=1&amp;b=2</code> · status 503"));
    assert_non_null(strstr(s, "trace <code>4bf92f3577b34da6a3ce929d0e0e4736</code>"));
    assert_non_null(strstr(s, "<code class=\"lbl\">&lt;h1&gt;busy&lt;/h1&gt;</code>"));
    assert_non_null(strstr(s, "<code>expected &lt;ok&gt;</code>"));
    assert_null(strstr(s, "<h1>"));
    assert_null(strstr(s, "No error by kind"));
    xfree(s);
    /* no points (an older run): the tables without their charts */
    r.npts = 0;
    s = sectext_of(kindshtml_section, &r);
    assert_int_equal(sectext_count(s, "<table class=\"errors\">"), 2);
    assert_int_equal(sectext_count(s, "<svg"), 0);
    xfree(s);
}

static void test_none(void **state)
{
    query_run r = {.started_us = T0_US};
    char *s = sectext_of(kindshtml_section, &r);

    assert_non_null(strstr(s, "No error by kind was recorded"));
    assert_null(strstr(s, "<table"));
    xfree(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
