/* Unit tests for common/err: err_set writes a caller's buffer as snprintf
 * would (cut to its size, always terminated), and does nothing for a caller
 * that wants no reason (NULL or a size of 0). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/err.h"

static void test_set(void **state)
{
    char err[64];

    err_set(err, sizeof(err), "--vus: \"%s\" is not a number from %u to %u", "x", 1u, 10u);
    assert_string_equal(err, "--vus: \"x\" is not a number from 1 to 10");
}

static void test_cut(void **state)
{
    char err[8];

    memset(err, 'z', sizeof(err));
    err_set(err, 6, "%s", "abcdefgh");
    assert_string_equal(err, "abcde"); /* 5 bytes and the NUL */
    assert_int_equal(err[6], 'z');     /* nothing past the size given */
}

static void test_no_buffer(void **state)
{
    char err[4] = "old";

    err_set(NULL, 64, "%s", "ignored");
    err_set(err, 0, "%s", "ignored");
    assert_string_equal(err, "old");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_no_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
