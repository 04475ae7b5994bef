/* Unit tests for worker/intend: a run's lag behind its intended start, taken
 * by its first sample only, and the response time built from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "worker/wire/intend.h"

static void test_lag(void **state)
{
    /* an arrival due at 1.000 s that started at 3.250 s (the server froze) */
    assert_int_equal(intend_lag(1000000, 3250000), 2250000);
    /* on time, early (a timer never fires early, but the clocks may round) */
    assert_int_equal(intend_lag(1000000, 1000000), 0);
    assert_int_equal(intend_lag(1000000, 999990), 0);
    /* no due time: a closed run without pacing, the first run of a VU */
    assert_int_equal(intend_lag(0, 3250000), 0);
    assert_int_equal(intend_lag(-5, 3250000), 0);
}

static void test_first_sample_takes_it(void **state)
{
    int64_t run_lag = intend_lag(500000, 2500000);

    assert_int_equal(intend_take(&run_lag), 2000000); /* step 1 */
    assert_int_equal(run_lag, 0);
    assert_int_equal(intend_take(&run_lag), 0); /* step 2: intended when asked */
}

static void test_response(void **state)
{
    /* a paced run (slot every 1 s) whose previous run overran by 1.8 s: its
     * first step served in 20 ms was intended 1.8 s before it started */
    int64_t slot = 1000000, start = 2800000;
    int64_t lag = intend_lag(slot, start);

    assert_int_equal(intend_response(20000, lag), 1820000);
    assert_int_equal(intend_response(20000, 0), 20000); /* on time: the two are equal */
    assert_int_equal(intend_response(-3, 0), 0);
    assert_int_equal(intend_response(-3, 40), 40);
    assert_int_equal(intend_response(10, -40), 10);
    assert_true(intend_response(INT64_MAX, INT64_MAX) == (uint64_t)INT64_MAX * 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lag),
        cmocka_unit_test(test_first_sample_takes_it),
        cmocka_unit_test(test_response),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
