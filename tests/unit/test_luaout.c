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

#include "common/dbuf.h"
#include "common/mem.h"
#include "record/luaout.h"

/* Runs call with out a buffer, its text then in got (glen bytes, xfreed by
 * the caller). */
#define CAPTURE(call)                                                                              \
    do {                                                                                           \
        dbuf into;                                                                                 \
        dbuf *out = &into;                                                                         \
        dbuf_init(&into, 1u << 16);                                                                \
        call;                                                                                      \
        assert_false(into.refused);                                                                \
        got = dbuf_take(&into, &glen);                                                             \
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
    xfree(got);
    /* well-formed visible UTF-8 as it is; invalid bytes, C1 controls and
     * reordering marks escaped byte by byte */
    CAPTURE(luaout_str(out, "caf\xc3\xa9 \xff \xc2\x9b \xe2\x80\xae \xe2\x80\xa8"));
    assert_string_equal(got, "\"caf\xc3\xa9 \\255 \\194\\155 \\226\\128\\174 \\226\\128\\168\"");
    xfree(got);
    CAPTURE(luaout_str_n(out, "a\0b", 3));
    assert_string_equal(got, "a\\000b");
    xfree(got);
}

/* A full buffer keeps its refusal: the writer learns of it at the end. */
static void test_full(void **state)
{
    dbuf small;

    (void)state;
    dbuf_init(&small, 8);
    luaout_str(&small, "\x01\x02");
    assert_true(small.refused); /* "\001\002" and its quotes: 10 bytes */
    dbuf_reset(&small);
    luaout_comment(&small, "-- ", "%s", "longer than eight");
    assert_true(small.refused);
    dbuf_reset(&small);
    luaout_key(&small, "k");
    assert_false(small.refused);
    assert_string_equal(small.p, "k = ");
    dbuf_free(&small);
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
    xfree(got);
    CAPTURE(luaout_comment(out, "  -- ", "%s", "Basket \xc3\xa9t\xc3\xa9"));
    assert_string_equal(got, "  -- Basket \xc3\xa9t\xc3\xa9\n");
    xfree(got);
    /* bounded: cut at a character's boundary, said with "..." */
    memset(long_text, 'x', 2000);
    long_text[2000] = '\0';
    long_text[1020] = '\xc3';
    long_text[1021] = '\xa9';
    CAPTURE(luaout_comment(out, "-- ", "%s", long_text));
    assert_int_equal(strlen(got), 3 + 1020 + 3 + 1);
    assert_string_equal(got + 3 + 1020, "...\n");
    assert_null(strchr(got, '\r'));
    xfree(got);
    free(long_text);
}

static void test_key_name_plain(void **state)
{
    char *got = NULL, name[16];
    size_t glen = 0;

    (void)state;
    CAPTURE(luaout_key(out, "user_1"));
    assert_string_equal(got, "user_1 = ");
    xfree(got);
    CAPTURE(luaout_key(out, "end"));
    assert_string_equal(got, "[\"end\"] = ");
    xfree(got);
    CAPTURE(luaout_key(out, "a\n\"b"));
    assert_string_equal(got, "[\"a\\n\\\"b\"] = ");
    xfree(got);
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
        cmocka_unit_test(test_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
