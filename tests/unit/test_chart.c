/* Unit tests for reports/chart: a series holding values that are not finite
 * numbers (+Inf, -Inf, NaN) is drawn with gaps there, and no "inf" or "nan"
 * reaches the SVG (a path holding one is not drawn at all by browsers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/chart.h"

/* The SVG of c, NUL-terminated; the caller frees it. */
static char *svg_of(const chart *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    chart_svg(f, c);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_not_finite(void **state)
{
    static const enum chart_kind kinds[] = {CHART_LINES, CHART_AREA, CHART_STACKED};
    double y[8] = {1, 2, INFINITY, 3, 4, -INFINITY, NAN, 5};

    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        chart_series s[1] = {{"cpu", CHART_COLOR(0), y, 8, 0}};
        chart c = {.title = "t",
                   .unit = "u",
                   .npts = 8,
                   .width_s = 1,
                   .kind = kinds[k],
                   .series = s,
                   .nseries = 1};
        char *svg = svg_of(&c);
        if (strcasestr(svg, "inf") != NULL || strcasestr(svg, "nan") != NULL)
            fail_msg("kind %zu: a value not finite reached the SVG:\n%s", k, svg);
        assert_null(strstr(svg, "no data"));
        if (kinds[k] == CHART_STACKED) {
            /* a bar per finite point, besides the legend's square */
            assert_int_equal(count(svg, "<rect x=") - count(svg, "height=\"9\""), 5);
        } else {
            /* [1, 2] and [3, 4] as lines, 5 alone as a dot */
            assert_int_equal(count(svg, "stroke-width=\"1.8\""), 2);
            assert_int_equal(count(svg, "<circle "), 1);
        }
        free(svg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
