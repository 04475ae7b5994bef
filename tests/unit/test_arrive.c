/* Unit tests for worker/arrive: the split of the pool (and of --vus) among
 * the scenarios that share an arrival rate by weight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "worker/arrive.h"

static uint32_t sum(const uint32_t *a, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

static void test_split_by_weight(void **state)
{
    double w[3] = {3, 1, 0.5};
    uint32_t out[3];

    arrive_split(w, 2, 40, out); /* 3:1 of 40 */
    assert_int_equal(out[0], 30);
    assert_int_equal(out[1], 10);
    arrive_split(w, 2, 1000, out);
    assert_int_equal(out[0], 750);
    assert_int_equal(out[1], 250);
    arrive_split(w, 3, 10, out); /* 6.67, 2.22, 1.11: largest remainder */
    assert_int_equal(sum(out, 3), 10);
    assert_int_equal(out[0], 7);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 1);
}

static void test_split_at_least_one(void **state)
{
    double w[3] = {100, 1, 1};
    uint32_t out[3];

    /* 2.94, 0.03, 0.03: each still gets a VU, or its arrivals all drop */
    arrive_split(w, 3, 3, out);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 1);
    arrive_split(w, 3, 5, out);
    assert_int_equal(sum(out, 3), 5);
    assert_true(out[1] >= 1 && out[2] >= 1);
    /* fewer slots than scenarios: no more than there is */
    arrive_split(w, 3, 2, out);
    assert_int_equal(sum(out, 3), 2);
    arrive_split(w, 3, 0, out);
    assert_int_equal(sum(out, 3), 0);
}

static void test_split_one(void **state)
{
    double w[1] = {1};
    uint32_t out[1];

    arrive_split(w, 1, 17, out);
    assert_int_equal(out[0], 17);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_by_weight),
        cmocka_unit_test(test_split_at_least_one),
        cmocka_unit_test(test_split_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
