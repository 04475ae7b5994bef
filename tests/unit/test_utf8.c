/* Unit tests for common/utf8.c: what counts as a well-formed character. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/utf8.h"

static size_t dec(const char *s, uint32_t *c)
{
    return utf8_decode((const unsigned char *)s, strlen(s), c);
}

static void test_valid(void **state)
{
    uint32_t c = 0;

    (void)state;
    assert_int_equal(dec("A", &c), 1);
    assert_int_equal(c, 'A');
    assert_int_equal(dec("\t", &c), 1);
    assert_int_equal(c, '\t');
    assert_int_equal(dec("\xc3\xa9", &c), 2); /* é */
    assert_int_equal(c, 0xe9);
    assert_int_equal(dec("\xc2\x85", &c), 2); /* a C1 control is well-formed */
    assert_int_equal(c, 0x85);
    assert_int_equal(dec("\xe2\x80\xa6", &c), 3); /* … */
    assert_int_equal(c, 0x2026);
    assert_int_equal(dec("\xef\xbf\xbe", &c), 3); /* U+FFFE: well-formed, XML refuses it */
    assert_int_equal(c, 0xfffe);
    assert_int_equal(dec("\xf0\x9f\x98\x80", &c), 4); /* U+1F600 */
    assert_int_equal(c, 0x1f600);
    assert_int_equal(dec("\xf4\x8f\xbf\xbf", &c), 4); /* U+10FFFF */
    assert_int_equal(c, 0x10ffff);
}

static void test_invalid(void **state)
{
    uint32_t c = 7;

    (void)state;
    assert_int_equal(dec("\x80", &c), 0);             /* stray continuation */
    assert_int_equal(dec("\xc0\x80", &c), 0);         /* overlong NUL */
    assert_int_equal(dec("\xc1\xbf", &c), 0);         /* overlong */
    assert_int_equal(dec("\xe0\x80\xaf", &c), 0);     /* overlong '/' */
    assert_int_equal(dec("\xf0\x80\x80\xaf", &c), 0); /* overlong '/' */
    assert_int_equal(dec("\xed\xa0\x80", &c), 0);     /* surrogate U+D800 */
    assert_int_equal(dec("\xf4\x90\x80\x80", &c), 0); /* U+110000 */
    assert_int_equal(dec("\xf5\x80\x80\x80", &c), 0);
    assert_int_equal(dec("\xc3", &c), 0);     /* truncated */
    assert_int_equal(dec("\xe2\x80", &c), 0); /* truncated */
    assert_int_equal(dec("\xc3(", &c), 0);    /* not a continuation */
    assert_int_equal(utf8_decode((const unsigned char *)"A", 0, &c), 0);
    assert_int_equal(c, 7); /* untouched on failure */
}

static void test_cut(void **state)
{
    const char *s = "ab\xc3\xa9\xe2\x80\xa6z"; /* a b é … z: bytes 0 1 2-3 4-6 7 */

    (void)state;
    assert_int_equal(utf8_cut(s, 8, 20), 8);
    assert_int_equal(utf8_cut(s, 8, 8), 8);
    assert_int_equal(utf8_cut(s, 8, 7), 7);
    assert_int_equal(utf8_cut(s, 8, 6), 4); /* inside … */
    assert_int_equal(utf8_cut(s, 8, 5), 4);
    assert_int_equal(utf8_cut(s, 8, 4), 4);
    assert_int_equal(utf8_cut(s, 8, 3), 2); /* inside é */
    assert_int_equal(utf8_cut(s, 8, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
