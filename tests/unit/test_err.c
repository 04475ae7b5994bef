/* Unit tests for common/err: err_set, err_vset and err_append do nothing
 * without a buffer, and truncate exactly as snprintf does, piece after piece. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"

#include <stdio.h>
#include <string.h>

static void test_null_safe(void **state)
{
    char b[8] = "keep";

    err_set(NULL, 64, "x %d", 1);
    err_append(NULL, 64, "x %d", 1);
    err_set(b, 0, "x");
    err_append(b, 0, "x");
    assert_string_equal(b, "keep");
}

static void test_set_truncates(void **state)
{
    char b[8], want[8];

    err_set(b, sizeof(b), "%s: %d", "abc", 12345);
    snprintf(want, sizeof(want), "%s: %d", "abc", 12345);
    assert_string_equal(b, want);
    assert_string_equal(b, "abc: 12");
}

__attribute__((format(printf, 3, 4))) static void vset(char *b, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(b, len, fmt, ap);
    va_end(ap);
}

/* err_vset is err_set for a function of its own that takes fmt, ... */
static void test_vset(void **state)
{
    char b[8] = "keep";

    vset(NULL, 64, "x %d", 1);
    vset(b, 0, "x");
    assert_string_equal(b, "keep");
    vset(b, sizeof(b), "%s: %d", "abc", 12345);
    assert_string_equal(b, "abc: 12");
}

/* What the pieces make is what one snprintf of them all would have made. */
static void test_append_is_one_message(void **state)
{
    char b[ERR_MAX], small[10];

    err_set(b, sizeof(b), "too big: its largest files");
    err_append(b, sizeof(b), "%s %s", "", "a.csv");
    err_append(b, sizeof(b), "%s %s", ",", "b.csv");
    err_append(b, sizeof(b), "; add them to %s", ".quernignore");
    assert_string_equal(b, "too big: its largest files a.csv, b.csv; add them to .quernignore");

    err_set(small, sizeof(small), "12345");
    err_append(small, sizeof(small), "6789abc");
    assert_string_equal(small, "123456789");
    err_append(small, sizeof(small), "more"); /* full: nothing more */
    assert_string_equal(small, "123456789");
    err_set(small, sizeof(small), "123456789xyz");
    err_append(small, sizeof(small), "more");
    assert_string_equal(small, "123456789");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_safe),
        cmocka_unit_test(test_set_truncates),
        cmocka_unit_test(test_vset),
        cmocka_unit_test(test_append_is_one_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
