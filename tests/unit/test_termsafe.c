/* Unit tests for common/termsafe: every byte a terminal acts on (ESC and the
 * other C0 controls, DEL, C1 controls, the bidi controls, invalid UTF-8) is
 * shown as an escape, everything else is kept, and a cut never splits a
 * character or an escape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/termsafe.h"

static void shows(const char *in, const char *want)
{
    char buf[TERMSAFE_MAX];

    assert_string_equal(termsafe(in, buf, sizeof(buf)), want);
}

static void test_kept(void **state)
{
    shows("checkout-v2 #3 (200 VUs)", "checkout-v2 #3 (200 VUs)");
    shows("Consultation du profil \xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80",
          "Consultation du profil \xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80");
    shows("a\\x1b", "a\\x1b"); /* a backslash is text */
    shows(NULL, "");
    shows("", "");
}

static void test_controls(void **state)
{
    shows("\x1b]0;pwned\a\x1b[2J", "\\x1b]0;pwned\\x07\\x1b[2J");
    shows("a\tb\nc\rd\x7f"
          "e\x01",
          "a\\x09b\\x0ac\\x0dd\\x7fe\\x01");
    shows("\xc2\x9b"
          "31m",
          "\\u009b31m"); /* C1 CSI, as UTF-8 */
    shows("\xc2\x85", "\\u0085");
    shows("\xc2\xa0", "\xc2\xa0"); /* U+00A0, the first after C1, is shown */
}

static void test_bidi(void **state)
{
    /* U+202A..U+202E, U+2066..U+2069 escaped; their neighbours kept */
    shows("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae",
          "\\u202a\\u202b\\u202c\\u202d\\u202e");
    shows("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", "\\u2066\\u2067\\u2068\\u2069");
    shows("\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa",
          "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
    shows("exe.\xe2\x80\xaetxt", "exe.\\u202etxt");
}

static void test_invalid(void **state)
{
    shows("a\xff"
          "b",
          "a\\xffb");
    shows("\xc3", "\\xc3");                   /* truncated */
    shows("\xc0\xaf", "\\xc0\\xaf");          /* overlong */
    shows("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
    shows("\x80x", "\\x80x");                 /* a stray continuation byte */
}

static void test_cut(void **state)
{
    char buf[8];

    /* "ab" + "\x1b" is 6 bytes + NUL: fits; the next escape does not */
    assert_string_equal(termsafe("ab\x1b\x1b", buf, sizeof(buf)), "ab\\x1b");
    /* a 3-byte character that does not fit whole is left out */
    assert_string_equal(termsafe("abcde\xe6\x97\xa5", buf, sizeof(buf)), "abcde");
    assert_string_equal(termsafe("abcdefghij", buf, sizeof(buf)), "abcdefg");
    assert_string_equal(termsafe("x", buf, 1), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept), cmocka_unit_test(test_controls),
        cmocka_unit_test(test_bidi), cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
