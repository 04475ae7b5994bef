/* Unit tests for common/shade: the injector's saturated seconds merge into
 * bands (touching seconds one band, a gap a new one, past SHADE_BANDS_MAX
 * the last one widened), each with its worst figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "common/shade.h"

static shade_sat fig(double cpu, double lag, const char *who)
{
    shade_sat f = {.saturated = 1, .workers = 2, .cpu_pct = cpu, .lag_ms = lag};

    snprintf(f.who, sizeof(f.who), "%s", who);
    return f;
}

static void test_merge(void **state)
{
    shade sh;
    shade_sat a = fig(95, 80, "worker 0"), b = fig(100, 280, "worker 1"), c = fig(50, 600, "");

    shade_init(&sh, "injector saturated", SHADE_SAT_COLOR);
    shade_add(&sh, 12, 13, &a);
    shade_add(&sh, 13, 14, &b); /* touches: the same band */
    shade_add(&sh, 13, 15, &a); /* overlaps: the same band */
    shade_add(&sh, 20, 20, &c); /* empty: ignored */
    shade_add(&sh, 20, 22, &c); /* a gap: a new band */
    assert_int_equal(sh.n, 2);
    assert_int_equal(sh.bands[0].from_s, 12);
    assert_int_equal(sh.bands[0].to_s, 15);
    assert_true(sh.bands[0].worst.cpu_pct == 100);
    assert_true(sh.bands[0].worst.lag_ms == 280);
    assert_string_equal(sh.bands[0].worst.who, "worker 1"); /* the worst lag's */
    assert_int_equal(sh.bands[0].merged, 0);
    assert_int_equal(sh.bands[1].from_s, 20);
    assert_int_equal(sh.bands[1].to_s, 22);
    shade_free(&sh);
    assert_int_equal(sh.n, 0);

    for (uint64_t i = 0; i < SHADE_BANDS_MAX + 5; i++)
        shade_add(&sh, 2 * i, 2 * i + 1, &a);
    assert_int_equal(sh.n, SHADE_BANDS_MAX);
    assert_int_equal(sh.bands[SHADE_BANDS_MAX - 1].to_s, 2 * (SHADE_BANDS_MAX + 4) + 1);
    assert_int_equal(sh.bands[SHADE_BANDS_MAX - 1].merged, 1);
    assert_int_equal(sh.bands[SHADE_BANDS_MAX - 2].merged, 0);
    shade_free(&sh);
    shade_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
