/* Unit tests for common/usl: the law's coefficients found back from its
 * own points, with noise, at its bounds, and the refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "common/usl.h"

static void points(double lambda, double sigma, double kappa, const double *n, double *x, size_t k)
{
    for (size_t i = 0; i < k; i++)
        x[i] = lambda * n[i] / (1 + sigma * (n[i] - 1) + kappa * n[i] * (n[i] - 1));
}

static void test_exact(void **state)
{
    const double n[] = {1, 2, 4, 8, 16, 32, 64};
    double x[7];
    usl_fit f;

    (void)state;
    points(100, 0.05, 0.001, n, x, 7);
    assert_int_equal(usl_fit_points(n, x, 7, &f), 0);
    assert_null(f.why);
    assert_true(fabs(f.lambda - 100) < 1e-6);
    assert_true(fabs(f.sigma - 0.05) < 1e-9);
    assert_true(fabs(f.kappa - 0.001) < 1e-12);
    assert_true(f.r2 > 0.999999);
    /* N* = sqrt(0.95 / 0.001) = 30.82 */
    assert_true(fabs(f.peak_n - sqrt(0.95 / 0.001)) < 1e-6);
    assert_true(fabs(f.peak_x - usl_throughput(&f, f.peak_n)) < 1e-9);
    assert_true(f.peak_x >= usl_throughput(&f, f.peak_n - 1));
    assert_true(f.peak_x >= usl_throughput(&f, f.peak_n + 1));
}

/* 2 % of noise, alternating: the coefficients stay near, the fit holds. */
static void test_noisy(void **state)
{
    const double n[] = {2, 5, 10, 20, 40, 80};
    double x[6];
    usl_fit f;

    (void)state;
    points(50, 0.1, 0.0005, n, x, 6);
    for (size_t i = 0; i < 6; i++)
        x[i] *= i % 2 ? 1.02 : 0.98;
    assert_int_equal(usl_fit_points(n, x, 6, &f), 0);
    assert_true(fabs(f.sigma - 0.1) < 0.03);
    assert_true(f.kappa > 0 && f.kappa < 0.002);
    assert_true(f.r2 > 0.95);
}

/* No coherency: throughput tends to λ/σ and never peaks; no contention
 * either: it scales linearly, and both bounds are infinite. */
static void test_bounds(void **state)
{
    const double n[] = {1, 3, 9, 27};
    double x[4];
    usl_fit f;

    (void)state;
    points(10, 0.2, 0, n, x, 4);
    assert_int_equal(usl_fit_points(n, x, 4, &f), 0);
    assert_true(fabs(f.kappa) < 1e-12);
    assert_true(isinf(f.peak_n));
    assert_true(fabs(f.peak_x - 10 / 0.2) < 1e-6);
    points(10, 0, 0, n, x, 4);
    assert_int_equal(usl_fit_points(n, x, 4, &f), 0);
    assert_true(isinf(f.peak_n) && isinf(f.peak_x));
}

static void test_refused(void **state)
{
    const double n[] = {1, 2, 4, 8, 16};
    const double same[] = {4, 4, 4, 4};
    double x[5] = {10, 20 / 1.1, 0, 80 / 1.7, 160 / 2.5}; /* λ 10, σ 0.1 at 1, 2, 8, 16 */
    const double idle_n[] = {0.2, 0.5, 1, 2}, idle_x[] = {20, 50, 100, 200};
    const double super[] = {10, 25, 70, 200, 600}; /* faster than linear */
    const double zigzag[] = {10, 80, 15, 90, 12};
    usl_fit f;

    (void)state;
    /* points without a throughput are skipped: 4 are left, then 3, too few */
    assert_int_equal(usl_fit_points(n, x, 5, &f), 0);
    assert_true(fabs(f.sigma - 0.1) < 1e-9);
    assert_int_equal(usl_fit_points(n, x, 4, &f), -1);
    assert_non_null(f.why);
    /* under one in flight: the law does not apply */
    assert_int_equal(usl_fit_points(idle_n, idle_x, 4, &f), -1);
    assert_non_null(f.why);
    assert_int_equal(usl_fit_points(same, super, 4, &f), -1); /* one concurrency */
    assert_non_null(f.why);
    assert_int_equal(usl_fit_points(n, super, 5, &f), -1);
    assert_non_null(f.why);
    assert_int_equal(usl_fit_points(n, zigzag, 5, &f), -1);
    assert_non_null(f.why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_noisy),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
