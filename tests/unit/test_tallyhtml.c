/* Unit tests for reports/tallyhtml: the report's section of the script's soft
 * checks and custom metrics: each check's passes, fails and rate, the sum of
 * them all, each metric's figures by its kind (a gauge never set said so),
 * names escaped; no section for a run without either. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "reports/tallyhtml.h"

#include "tests/unit/sectext.h"

static void test_section(void **state)
{
    tally_check checks[2] = {{"status is 200", 95, 5}, {"<b>never</b>", 0, 0}};
    dbtally_metric m[4] = {
        {.name = "carts", .kind = "counter", .total = 120, .rate = 2},
        {.name = "queue", .kind = "gauge", .has_value = 1, .value = 3, .min = 1, .max = 9},
        {.name = "idle", .kind = "gauge"},
        {.name = "basket_eur",
         .kind = "trend",
         .count = 4,
         .mean = 12.5,
         .min = 5,
         .p50 = 10,
         .p90 = 20,
         .p95 = 20,
         .p99 = 20,
         .max = 20},
    };
    query_run r = {0};
    char *s;

    r.tally.checks = checks;
    r.tally.nchecks = 2;
    r.tally.metrics = m;
    r.tally.nmetrics = 4;
    s = sectext_of(tallyhtml_section, &r);
    assert_non_null(strstr(s, "<section id=\"checks\">"));
    assert_non_null(strstr(s, "<tr><td>status is 200</td><td class=\"n\">95</td>"
                              "<td class=\"n\">5</td><td class=\"n\">95.00 %</td></tr>"));
    /* a check that never ran does not fail: 100 % */
    assert_non_null(strstr(s, "<tr><td>&lt;b&gt;never&lt;/b&gt;</td><td class=\"n\">0</td>"
                              "<td class=\"n\">0</td><td class=\"n\">100.00 %</td></tr>"));
    assert_null(strstr(s, "<b>never"));
    assert_non_null(strstr(s, "<tr><td><b>All checks</b></td><td class=\"n\">95</td>"
                              "<td class=\"n\">5</td><td class=\"n\">95.00 %</td></tr>"));
    assert_non_null(strstr(s, "<code>carts</code></td><td>counter</td><td>total 120, 2.00/s"));
    assert_non_null(strstr(s, "<code>queue</code></td><td>gauge</td><td>value 3, min 1, max 9"));
    assert_non_null(strstr(s, "<code>idle</code></td><td>gauge</td><td>never set"));
    assert_non_null(strstr(s, "<td>count 4, mean 12.500, min 5, p50 10, p90 20, p95 20, p99 20,"
                              " max 20</td>"));
    xfree(s);
    /* metrics only: no checks table */
    r.tally.nchecks = 0;
    s = sectext_of(tallyhtml_section, &r);
    assert_null(strstr(s, "<table class=\"checks\">"));
    assert_non_null(strstr(s, "<table class=\"metrics\">"));
    xfree(s);
}

static void test_none(void **state)
{
    query_run r = {0};
    char *s = sectext_of(tallyhtml_section, &r);

    assert_string_equal(s, "");
    xfree(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section),
        cmocka_unit_test(test_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
