/* Unit tests for worker/vustart: the closed model's VUs asked to start by
 * the schedule against the first runs begun. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "worker/wire/vustart.h"

/* Starts added out of order are counted by the interval their time falls
 * in; the first runs since the last take come with them. */
static void test_take(void **state)
{
    vustart s;
    uint32_t planned, started;

    (void)state;
    vustart_init(&s);
    vustart_add(&s, 2500000);
    vustart_add(&s, 0);
    vustart_add(&s, 1000000); /* exactly at the first second's end: in it */
    vustart_add(&s, 1500000);
    vustart_sorted(&s);
    vustart_ran(&s);
    vustart_take(&s, 1000000, &planned, &started);
    assert_int_equal(planned, 2);
    assert_int_equal(started, 1);
    vustart_take(&s, 2000000, &planned, &started);
    assert_int_equal(planned, 1);
    assert_int_equal(started, 0);
    vustart_take(&s, 3000000, &planned, &started);
    assert_int_equal(planned, 1);
    vustart_take(&s, 4000000, &planned, &started);
    assert_int_equal(planned, 0);
    vustart_free(&s);
}

/* Starts after the stop are not asked, even at a later interval's end. */
static void test_stop(void **state)
{
    vustart s;
    uint32_t planned, started;

    (void)state;
    vustart_init(&s);
    for (int i = 0; i < 10; i++)
        vustart_add(&s, i * 1000000ll);
    vustart_sorted(&s);
    vustart_stop(&s, 3200000);
    vustart_stop(&s, 9000000); /* only the first counts */
    vustart_take(&s, 5000000, &planned, &started);
    assert_int_equal(planned, 4);
    vustart_take(&s, 10000000, &planned, &started);
    assert_int_equal(planned, 0);
    assert_int_equal(started, 0);
    vustart_free(&s);
    vustart_free(&s); /* empty again: fine */
}

/* A cut (vus N in a staged run) drops the starts after it, not those
 * counted or due before it; a start added after it counts. */
static void test_cut(void **state)
{
    vustart s;
    uint32_t planned, started;

    (void)state;
    vustart_init(&s);
    vustart_add(&s, 0);
    vustart_add(&s, 1500000);
    vustart_add(&s, 2500000);
    vustart_add(&s, 4000000);
    vustart_sorted(&s);
    vustart_take(&s, 1000000, &planned, &started);
    assert_int_equal(planned, 1);
    vustart_cut(&s, 2000000);
    vustart_add(&s, 2000000);
    vustart_sorted(&s);
    vustart_take(&s, 5000000, &planned, &started);
    assert_int_equal(planned, 2); /* 1.5 s and the one added at the cut */
    vustart_cut(&s, 0);           /* all counted: nothing to drop */
    vustart_take(&s, 6000000, &planned, &started);
    assert_int_equal(planned, 0);
    vustart_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
