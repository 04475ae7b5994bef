/* Unit tests for reports/slowhtml: the report's slowest samples, one table
 * per step in the order the rows come (by step, then rank), each row's
 * latency, start from the run's start, VU and trace id (escaped; "-" when
 * none), a step index the run does not know named as such, and a run that
 * kept none said so. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "reports/slowhtml.h"

#include "tests/unit/sectext.h"

#define T0 1700000000000000LL

static void test_tables(void **state)
{
    query_step steps[2] = {{.test_id = "SC-S-STEP-1"}, {.test_id = "SC-S-STEP-<2>"}};
    query_slow slow[4] = {
        {.step = 0,
         .rank = 1,
         .latency_us = 250000,
         .start_us = T0 + 1500000,
         .vu = 3,
         .trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"},
        {.step = 0, .rank = 2, .latency_us = 120000, .start_us = T0 + 2250000, .vu = 1},
        {.step = 1, .rank = 1, .latency_us = 90000, .start_us = T0, .vu = 2, .trace_id = "<x>"},
        {.step = 7, .rank = 1, .latency_us = 1000, .start_us = T0, .vu = 1},
    };
    query_run r = {.started_us = T0, .steps = steps, .nsteps = 2, .slow = slow, .nslow = 4};
    char *s = sectext_of(slowhtml_section, &r), *t1, *t2, *t7;

    assert_non_null(strstr(s, "<section id=\"slowest\">"));
    assert_int_equal(sectext_count(s, "<table class=\"slowest\">"), 3); /* one a step */
    assert_int_equal(sectext_count(s, "<tr><td class=\"n\">"), 4);      /* one row a sample */
    t1 = strstr(s, "<h3><code>SC-S-STEP-1</code></h3>");
    t2 = strstr(s, "<h3><code>SC-S-STEP-&lt;2&gt;</code></h3>");
    t7 = strstr(s, "<h3><code>step 7</code></h3>");
    assert_non_null(t1);
    assert_non_null(t2);
    assert_non_null(t7);
    assert_true(t1 < t2 && t2 < t7);
    assert_non_null(strstr(s, "<td class=\"n\">1.500 s</td><td class=\"n\">3</td>"
                              "<td><code>4bf92f3577b34da6a3ce929d0e0e4736</code>"));
    assert_non_null(strstr(s, "<td class=\"n\">2.250 s</td><td class=\"n\">1</td>"
                              "<td><code>-</code>"));
    assert_non_null(strstr(s, "<code>&lt;x&gt;</code>"));
    assert_null(strstr(s, "<x>"));
    assert_null(strstr(s, "No slowest sample"));
    xfree(s);
}

static void test_none(void **state)
{
    query_run r = {.started_us = T0};
    char *s = sectext_of(slowhtml_section, &r);

    assert_non_null(strstr(s, "No slowest sample was kept"));
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
