/* Unit tests for reports/noise: the Hodges-Lehmann shift of one run's
 * seconds over another's and its 95 % interval: an unchanged system's
 * seconds give an interval holding 0, a 30 % slower one an interval past
 * 0 on its side; seconds without a value are skipped, too few seconds is
 * no verdict, and sides too large are thinned, not refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "reports/noise.h"

/* n values around mid: a fixed pseudo-random spread of +-spread. */
static void fill(double *v, size_t n, double mid, double spread, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = mid + spread * (((double)(seed >> 8 & 0xffff) / 65535.0) * 2.0 - 1.0);
    }
}

static void test_unchanged_holds_zero(void **state)
{
    double a[60], b[60];
    noise_ci ci;

    fill(a, 60, 20.0, 2.0, 1);
    fill(b, 60, 20.0, 2.0, 2);
    assert_int_equal(noise_shift(a, 60, b, 60, &ci), 0);
    assert_true(ci.lo < 0 && ci.hi > 0);
    assert_true(fabs(ci.est) < 0.5);
    assert_int_equal(ci.na, 60);
    assert_int_equal(ci.nb, 60);
}

static void test_slower_is_beyond(void **state)
{
    double a[30], b[30], est, lo, hi;
    noise_ci ci;

    fill(a, 30, 26.0, 2.0, 3); /* 30 % slower */
    fill(b, 30, 20.0, 2.0, 4);
    assert_int_equal(noise_shift(a, 30, b, 30, &ci), 0);
    assert_true(ci.lo > 0);
    assert_true(ci.est > 5.0 && ci.est < 7.0);
    assert_int_equal(noise_relative(&ci, &est, &lo, &hi), 0);
    assert_true(est > 25 && est < 35 && lo > 0 && hi > lo);
    /* the other way: below 0 */
    assert_int_equal(noise_shift(b, 30, a, 30, &ci), 0);
    assert_true(ci.hi < 0);
}

/* An exact case: a = b + 1 for every second. */
static void test_exact_shift(void **state)
{
    double a[] = {2, 3, 4, 5, 6, 7}, b[] = {1, 2, 3, 4, 5, 6};
    noise_ci ci;

    assert_int_equal(noise_shift(a, 6, b, 6, &ci), 0);
    assert_true(ci.est == 1.0);
    assert_true(ci.b_median == 3.5);
    assert_true(ci.lo <= 1.0 && ci.hi >= 1.0);
}

static void test_too_few_and_nan(void **state)
{
    double a[] = {1, NAN, 2, NAN, 3, 4}, b[] = {1, 2, 3, 4, 5};
    noise_ci ci;

    assert_int_equal(noise_shift(a, 6, b, 5, &ci), -1); /* 4 finite values */
    assert_int_equal(ci.na, 4);
    assert_int_equal(ci.nb, 5);
    a[1] = 5;
    assert_int_equal(noise_shift(a, 6, b, 5, &ci), 0);
    assert_int_equal(ci.na, 5);
}

static void test_thinned(void **state)
{
    static double a[3000], b[3000];
    noise_ci ci;

    fill(a, 3000, 10.0, 1.0, 5);
    fill(b, 3000, 10.0, 1.0, 6);
    assert_int_equal(noise_shift(a, 3000, b, 3000, &ci), 0);
    assert_true(ci.na * ci.nb <= NOISE_PAIRS_MAX);
    assert_true(ci.na >= 1000 && ci.nb >= 1000);
    assert_true(ci.lo < 0 && ci.hi > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unchanged_holds_zero),
        cmocka_unit_test(test_slower_is_beyond),
        cmocka_unit_test(test_exact_shift),
        cmocka_unit_test(test_too_few_and_nan),
        cmocka_unit_test(test_thinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
