/* Unit tests for common/ratelog: a few lines per period, and the count of
 * those held back given with the next line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/ratelog.h"

static void test_burst_then_quiet(void **state)
{
    ratelog rl = {0};
    unsigned more = 99;
    int let = 0;

    for (int i = 0; i < 1000; i++)
        let += ratelog_ok(&rl, 1000000 + i, 10000000, 5, &more);
    assert_int_equal(let, 5);
    /* The next window: one line, saying how many were held back. */
    assert_int_equal(ratelog_ok(&rl, 1000000 + 10000000, 10000000, 5, &more), 1);
    assert_int_equal(more, 995);
    assert_int_equal(ratelog_ok(&rl, 1000000 + 10000001, 10000000, 5, &more), 1);
    assert_int_equal(more, 0);
}

static void test_time_zero(void **state)
{
    ratelog rl = {0};

    assert_int_equal(ratelog_ok(&rl, 0, 100, 1, NULL), 1);
    assert_int_equal(ratelog_ok(&rl, 50, 100, 1, NULL), 0);
    assert_int_equal(ratelog_ok(&rl, 200, 100, 1, NULL), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_quiet),
        cmocka_unit_test(test_time_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
