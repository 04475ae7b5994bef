/* Unit tests for worker/inflight: each worker's share of --max-in-flight. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "worker/engine/inflight.h"

static void test_share(void **state)
{
    assert_int_equal(inflight_share(0, 10, 20), 0);     /* no bound */
    assert_int_equal(inflight_share(4, 10, 20), 2);     /* by the worker's VUs */
    assert_int_equal(inflight_share(5, 10, 20), 3);     /* rounded up: never below the bound */
    assert_int_equal(inflight_share(1, 1, 1000), 1);    /* at least one */
    assert_int_equal(inflight_share(100, 20, 20), 100); /* one worker: the whole bound */
    assert_int_equal(inflight_share(100, 30, 20), 100); /* never more than the bound */
    assert_int_equal(inflight_share(16000, 12500, 100000), 2000);
    /* no overflow at the largest values */
    assert_int_equal(inflight_share(1000000, 999999, 1000000), 999999);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
