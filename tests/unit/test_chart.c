/* Unit tests for reports/chart: a series holding values that are not finite
 * numbers (+Inf, -Inf, NaN) is drawn with gaps there, and no "inf" or "nan"
 * reaches the SVG (a path holding one is not drawn at all by browsers);
 * the injector's saturated seconds (common/shade.h) are drawn clipped to
 * the x axis behind the curves with one legend entry, and none of it when
 * there is no saturated second. */
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

static shade_sat fig(double cpu, double lag, const char *who)
{
    shade_sat f = {.saturated = 1, .workers = 2, .cpu_pct = cpu, .lag_ms = lag};

    snprintf(f.who, sizeof(f.who), "%s", who);
    return f;
}

static void test_shade_drawn(void **state)
{
    double y[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    chart_series s[1] = {{"p95", CHART_COLOR(0), y, 10, 0}};
    shade sh;
    shade_sat a = fig(100, 280, "worker 0");
    chart c = {.title = "t",
               .unit = "ms",
               .npts = 10,
               .width_s = 2, /* 20 s on the axis */
               .series = s,
               .nseries = 1,
               .shades = &sh,
               .nshades = 1};
    char *svg;

    shade_init(&sh, "injector saturated", SHADE_SAT_COLOR);
    /* no saturated second: no band, no legend entry */
    svg = svg_of(&c);
    assert_int_equal(count(svg, "class=\"sat"), 0);
    assert_null(strstr(svg, "injector saturated"));
    free(svg);

    shade_add(&sh, 12, 18, &a);
    shade_add(&sh, 19, 25, &a); /* passes the axis' end: clipped to 20 */
    shade_add(&sh, 30, 31, &a); /* beyond the axis: not drawn */
    svg = svg_of(&c);
    assert_int_equal(count(svg, "<rect class=\"sat\""), 2);
    assert_int_equal(count(svg, "class=\"sat-key\""), 1);
    assert_non_null(strstr(svg, "<rect class=\"sat\" data-from=\"12\" data-to=\"18\""));
    assert_non_null(strstr(svg, "<rect class=\"sat\" data-from=\"19\" data-to=\"20\""));
    assert_non_null(strstr(svg, "<title>injector saturated 12\xe2\x80\x93"
                                "17 s: worker 0 CPU "
                                "100 %, lag 280 ms (1 of 2 workers)</title>"));
    /* behind the curve */
    assert_true(strstr(svg, "<rect class=\"sat\"") < strstr(svg, "<path fill=\"none\""));
    /* the hover zone of the point 12-14 s says so, that of 0-2 s does not */
    assert_non_null(strstr(svg, "<title>12s to 14s\np95: 7.00 ms\ninjector saturated 12"));
    assert_non_null(strstr(svg, "<title>0s to 2s\np95: 1.00 ms</title>"));
    free(svg);

    /* a band wholly past the axis: no legend entry either */
    shade_free(&sh);
    shade_add(&sh, 40, 41, &a);
    svg = svg_of(&c);
    assert_int_equal(count(svg, "class=\"sat"), 0);
    free(svg);
    shade_free(&sh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_finite),
        cmocka_unit_test(test_shade_drawn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
