/* Unit tests for agent/stall: a worker past its due time is killed only when
 * it has been silent for the bound, or at the ceiling while still sending. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "agent/stall.h"

#define S 1000000LL

static void test_not_due(void **state)
{
    int64_t silent = -1;

    /* No due time yet (no duration, no stop): never judged, however silent. */
    assert_int_equal(stall_judge(100 * S, 0, 0, &silent), STALL_WAIT);
    assert_int_equal(silent, 100 * S);
    /* Silent for long, but not due yet: a sleeping run sends its seconds. */
    assert_int_equal(stall_judge(9 * S, 10 * S, 0, NULL), STALL_WAIT);
}

static void test_held(void **state)
{
    int64_t silent = 0;

    /* Due, silent since before the due time for the bound: held. */
    assert_int_equal(stall_judge(10 * S, 10 * S, 5 * S, &silent), STALL_HELD);
    assert_int_equal(silent, 5 * S);
    /* Just under the bound: waited for. */
    assert_int_equal(stall_judge(10 * S, 10 * S, 5 * S + 1, NULL), STALL_WAIT);
    /* Sent at the due time, then nothing: held the bound later. */
    assert_int_equal(stall_judge(15 * S - 1, 10 * S, 10 * S, NULL), STALL_WAIT);
    assert_int_equal(stall_judge(15 * S, 10 * S, 10 * S, NULL), STALL_HELD);
}

static void test_busy(void **state)
{
    /* Still sending: waited for, long past the due time... */
    assert_int_equal(stall_judge(40 * S, 10 * S, 40 * S - S, NULL), STALL_WAIT);
    assert_int_equal(stall_judge(70 * S - 1, 10 * S, 70 * S - 2, NULL), STALL_WAIT);
    /* ...up to the ceiling. */
    assert_int_equal(stall_judge(70 * S, 10 * S, 70 * S - S, NULL), STALL_BUSY);
    /* Silent at the ceiling too: the evidence says held. */
    assert_int_equal(stall_judge(70 * S, 10 * S, 60 * S, NULL), STALL_HELD);
}

static void test_clock_order(void **state)
{
    int64_t silent = -1;

    /* A frame stamped after now (read between two clock reads): not silent. */
    assert_int_equal(stall_judge(20 * S, 10 * S, 20 * S + 5, &silent), STALL_WAIT);
    assert_int_equal(silent, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_due),
        cmocka_unit_test(test_held),
        cmocka_unit_test(test_busy),
        cmocka_unit_test(test_clock_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
