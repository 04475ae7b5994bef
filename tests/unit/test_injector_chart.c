/* Unit tests for reports/injector_chart: the report's section on the
 * injector's own load counts and lists the saturated seconds, and draws
 * both charts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "reports/injector_chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The section counts and lists the saturated seconds, and draws both charts. */
static void test_section(void **state)
{
    injector_row rows[6] = {{0, 1, 0, 400, 2000}, {1, 1, 1, 990, 300000}, {2, 1, 1, 1000, 450000},
                            {3, 1, 0, 500, 3000}, {5, 1, 1, 950, 90000},  {6, 1, 0, 200, 1000}};
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    (void)state;
    injector_chart_section(out, rows, 6, NULL);
    injector_chart_section(out, rows, 0, NULL); /* nothing */
    fclose(out);
    assert_non_null(strstr(buf, "The injector saturated: <b>3 of 6 s</b>"));
    assert_non_null(strstr(buf, ": 1-2 s, 5 s."));
    assert_non_null(strstr(buf, "Injector CPU (busiest worker"));
    assert_non_null(strstr(buf, "Injector event-loop lag"));
    assert_null(strstr(buf, "nan"));
    assert_null(strstr(buf, "inf"));
    free(buf);

    buf = NULL;
    out = open_memstream(&buf, &len);
    injector_chart_section(out, rows, 1, NULL);
    fclose(out);
    assert_non_null(strstr(buf, "The injector kept up: <b>0 of 1 s</b>"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
