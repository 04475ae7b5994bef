/* Unit tests for worker/wire/heartbeat: its bounds, when a beat is due as
 * sends move the last activity, and a beat taken by the socket in parts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "worker/wire/heartbeat.h"

static void test_bounds(void **state)
{
    heartbeat h;
    char big[HEARTBEAT_MAX + 1];

    (void)state;
    memset(big, 'x', sizeof(big));
    assert_int_equal(heartbeat_set(&h, 1., "\xc0\x00", 2, 0.), 0);
    assert_int_equal(heartbeat_set(&h, 1., big, HEARTBEAT_MAX, 0.), 0);
    assert_int_equal(heartbeat_set(&h, 1., big, HEARTBEAT_MAX + 1, 0.), -1);
    assert_int_equal(heartbeat_set(&h, 1., "", 0, 0.), -1);
    assert_int_equal(heartbeat_set(&h, 0., "x", 1, 0.), -1);
    assert_int_equal(heartbeat_set(&h, 0.001, "x", 1, 0.), -1);
    assert_int_equal(heartbeat_set(&h, -1., "x", 1, 0.), -1);
    assert_int_equal(heartbeat_set(&h, NAN, "x", 1, 0.), -1);
    assert_int_equal(heartbeat_set(&h, HEARTBEAT_MAX_S + 1., "x", 1, 0.), -1);
    assert_int_equal(heartbeat_set(&h, HEARTBEAT_MIN_S, "x", 1, 0.), 0);
}

/* The last-activity pattern: the timer asks, a send moves last, the next
 * ask waits the rest. */
static void test_due(void **state)
{
    heartbeat h;
    double after = -1.;
    size_t len;

    (void)state;
    assert_int_equal(heartbeat_set(&h, 2., "\xc0\x00", 2, 10.), 0);
    heartbeat_rest(&h, &len);
    assert_int_equal(len, 0); /* none begun */
    assert_int_equal(heartbeat_due(&h, 10.5, &after), 0);
    assert_true(fabs(after - 1.5) < 1e-9);
    h.last = 11.; /* a send at 11 */
    assert_int_equal(heartbeat_due(&h, 12., &after), 0);
    assert_true(fabs(after - 1.) < 1e-9);
    assert_int_equal(heartbeat_due(&h, 13., &after), 1);
    assert_int_equal(heartbeat_due(&h, 20., &after), 1);
    /* the beat itself is activity */
    heartbeat_begin(&h);
    heartbeat_wrote(&h, 2, 20.);
    assert_int_equal(heartbeat_due(&h, 21., &after), 0);
    assert_true(fabs(after - 1.) < 1e-9);
}

static void test_parts(void **state)
{
    heartbeat h;
    size_t len;
    const char *rest;

    (void)state;
    assert_int_equal(heartbeat_set(&h, 1., "PING\r\n", 6, 0.), 0);
    heartbeat_begin(&h);
    rest = heartbeat_rest(&h, &len);
    assert_int_equal(len, 6);
    assert_memory_equal(rest, "PING\r\n", 6);
    heartbeat_wrote(&h, 4, 1.);
    rest = heartbeat_rest(&h, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(rest, "\r\n", 2);
    heartbeat_wrote(&h, 9, 1.5); /* more than is left: clamped */
    heartbeat_rest(&h, &len);
    assert_int_equal(len, 0);
    assert_true(h.last == 1.5);
    heartbeat_begin(&h); /* the next beat: the same bytes */
    rest = heartbeat_rest(&h, &len);
    assert_int_equal(len, 6);
    assert_memory_equal(rest, "PING\r\n", 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_due),
        cmocka_unit_test(test_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
