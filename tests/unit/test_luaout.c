/* Unit tests for record/luaout.c: what a recording's text becomes in a
 * string literal, a comment, a table key and a name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/luaout.h"

/* Runs call with out open on got (glen bytes, freed by the caller). */
#define CAPTURE(call)                                                                              \
    do {                                                                                           \
        FILE *out = open_memstream(&got, &glen);                                                   \
        assert_non_null(out);                                                                      \
        call;                                                                                      \
        fclose(out);                                                                               \
    } while (0)

static void test_str(void **state)
{
    char *got = NULL;
    size_t glen = 0;

    (void)state;
    /* quotes, backslashes, line ends, controls, DEL; then a digit after an escape */
    CAPTURE(luaout_str(out, "a\"b\\c\nd\re\tf\001"
                            "9\x7f"));
    assert_string_equal(got, "\"a\\\"b\\\\c\\nd\\re\\tf\\0019\\127\"");
    free(got);
    /* well-formed visible UTF-8 as it is; invalid bytes, C1 controls and
     * reordering marks escaped byte by byte */
    CAPTURE(luaout_str(out, "caf\xc3\xa9 \xff \xc2\x9b \xe2\x80\xae \xe2\x80\xa8"));
    assert_string_equal(got, "\"caf\xc3\xa9 \\255 \\194\\155 \\226\\128\\174 \\226\\128\\168\"");
    free(got);
    CAPTURE(luaout_str_n(out, "a\0b", 3));
    assert_string_equal(got, "a\\000b");
    free(got);
}

static void test_comment(void **state)
{
    char *got = NULL, *long_text = malloc(2001);
    size_t glen = 0;

    (void)state;
    CAPTURE(luaout_comment(out, "-- ", "from %s",
                           "a\nos.exit(1)\rb\x1b[31m\xe2\x80\xae"
                           "c\xff"));
    assert_string_equal(got, "-- from a?os.exit(1)?b?[31m???c?\n");
    free(got);
    CAPTURE(luaout_comment(out, "  -- ", "%s", "Basket \xc3\xa9t\xc3\xa9"));
    assert_string_equal(got, "  -- Basket \xc3\xa9t\xc3\xa9\n");
    free(got);
    /* bounded: cut at a character's boundary, said with "..." */
    memset(long_text, 'x', 2000);
    long_text[2000] = '\0';
    long_text[1020] = '\xc3';
    long_text[1021] = '\xa9';
    CAPTURE(luaout_comment(out, "-- ", "%s", long_text));
    assert_int_equal(strlen(got), 3 + 1020 + 3 + 1);
    assert_string_equal(got + 3 + 1020, "...\n");
    assert_null(strchr(got, '\r'));
    free(got);
    free(long_text);
}

static void test_key_name_plain(void **state)
{
    char *got = NULL, name[16];
    size_t glen = 0;

    (void)state;
    CAPTURE(luaout_key(out, "user_1"));
    assert_string_equal(got, "user_1 = ");
    free(got);
    CAPTURE(luaout_key(out, "end"));
    assert_string_equal(got, "[\"end\"] = ");
    free(got);
    CAPTURE(luaout_key(out, "a\n\"b"));
    assert_string_equal(got, "[\"a\\n\\\"b\"] = ");
    free(got);
    assert_int_equal(luaout_name("user[password]\n", name, sizeof(name)), 15);
    assert_string_equal(name, "user_password__");
    luaout_name("a-very-long-name-indeed", name, sizeof(name));
    assert_string_equal(name, "a_very_long_nam");
    assert_true(luaout_plain("data[1].id:x-y", 48));
    assert_false(luaout_plain("a'b", 48));
    assert_false(luaout_plain("a\nb", 48));
    assert_false(luaout_plain("", 48));
    assert_false(luaout_plain("abcd", 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_str),
        cmocka_unit_test(test_comment),
        cmocka_unit_test(test_key_name_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
