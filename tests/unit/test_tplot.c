/* Unit tests for console/tplot: a column is as high as its value (any load
 * above 0 shows), the top line says the largest value, the axis its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/tplot.h"

static char *draw(const double *y, size_t n, unsigned rows, int64_t total_us, const char *unit)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    tplot_draw(f, y, n, rows, total_us, unit);
    fclose(f);
    return buf;
}

static void test_ramp(void **state)
{
    const double y[] = {0, 1, 2, 4, 4, 0};
    char *got = draw(y, 6, 4, 20000000, "VUs");

    (void)state;
    assert_string_equal(got, "  4 VUs |   ## \n"
                             "        |   ## \n"
                             "        |  ### \n"
                             "        | #### \n"
                             "      0 +------\n"
                             "         0s 20s\n");
    free(got);
}

static void test_rate_and_fraction(void **state)
{
    const double y[] = {0.5, 2.5};
    char *got = draw(y, 2, 2, 1500000, "/s");

    (void)state;
    /* 0.5 of 2.5 is a fifth: one row still */
    assert_string_equal(got, "  2.5/s | #\n"
                             "        |##\n"
                             "      0 +--\n"
                             "         0s1.5s\n");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ramp),
        cmocka_unit_test(test_rate_and_fraction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
