/* Unit tests for reports/capacity_compare: two runs' capacities compared. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "reports/capacity_compare.h"

#include <stdio.h>
#include <string.h>

static capacity_db_run cap(int found, double value, const char *unit)
{
    capacity_db_run c;

    memset(&c, 0, sizeof(c));
    c.found = found;
    c.value = value;
    snprintf(c.unit, sizeof(c.unit), "%s", unit);
    return c;
}

static void test_judge(void **state)
{
    char line[256];
    capacity_db_run a300 = cap(1, 300, "/s"), a200 = cap(1, 200, "/s"), a290 = cap(1, 290, "/s");
    capacity_db_run none = cap(0, 0, "/s"), vus = cap(1, 40, "vus");

    (void)state;
    assert_int_equal(capacity_compare_judge(&a200, &a300, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_WORSE);
    assert_non_null(strstr(line, "capacity fell from 300/s to 200/s"));
    assert_int_equal(capacity_compare_judge(&a300, &a200, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_BETTER);
    assert_non_null(strstr(line, "capacity rose from 200/s to 300/s"));
    assert_int_equal(capacity_compare_judge(&a290, &a300, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_SAME);
    assert_int_equal(capacity_compare_judge(&none, &a300, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_WORSE);
    assert_string_equal(line, "capacity fell from 300/s to none");
    assert_int_equal(capacity_compare_judge(&a300, &none, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_BETTER);
    assert_int_equal(capacity_compare_judge(&none, &none, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_SAME);
    assert_int_equal(capacity_compare_judge(&vus, &a300, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_NA);
    assert_non_null(strstr(line, "40 VUs"));
    assert_int_equal(capacity_compare_judge(&a300, NULL, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_NA);
    assert_int_equal(capacity_compare_judge(NULL, NULL, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_NA);
    assert_string_equal(line, "");
}

/* A lower capacity that its injector limited is a lower bound: not a
 * regression; a server-decided fall below such a baseline still is. */
static void test_injector(void **state)
{
    char line[256];
    capacity_db_run a200 = cap(1, 200, "/s"), b300 = cap(1, 300, "/s"), none = cap(0, 0, "/s");
    capacity_db_run a400 = cap(1, 400, "/s");

    (void)state;
    snprintf(a200.limited_by, sizeof(a200.limited_by), "injector");
    snprintf(b300.limited_by, sizeof(b300.limited_by), "server");
    assert_int_equal(capacity_compare_judge(&a200, &b300, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_NA);
    assert_non_null(strstr(line, "at least 200/s"));
    assert_non_null(strstr(line, "injector was its limit"));
    snprintf(none.limited_by, sizeof(none.limited_by), "injector");
    assert_int_equal(capacity_compare_judge(&none, &b300, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_NA);
    assert_non_null(strstr(line, "injector"));
    /* a rise past an injector-limited baseline is a rise */
    snprintf(b300.limited_by, sizeof(b300.limited_by), "injector");
    assert_int_equal(capacity_compare_judge(&a400, &b300, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_BETTER);
    /* A decided by its server, below B's lower bound: a fall */
    snprintf(a200.limited_by, sizeof(a200.limited_by), "server");
    assert_int_equal(capacity_compare_judge(&a200, &b300, 10, line, sizeof(line)),
                     CAPACITY_COMPARE_WORSE);
    assert_non_null(strstr(line, "at least 300/s"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_injector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
