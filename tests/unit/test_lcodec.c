/* Unit tests for worker/lcodec: base64 both ways (RFC 4648's vectors,
 * missing padding, bad input), and percent-encoding both ways, from Lua. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "worker/lua/lcodec.h"

#include "tests/unit/luastate.h"

static void test_b64_vectors(void **state)
{
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const enc[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                      "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    char out[32];
    unsigned char dec[32];

    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        size_t n = strlen(plain[i]);
        assert_int_equal(lcodec_b64(out, (const unsigned char *)plain[i], n), strlen(enc[i]));
        assert_int_equal(lcodec_b64_len(n), strlen(enc[i]));
        assert_string_equal(out, enc[i]);
        assert_int_equal(lcodec_unb64(dec, enc[i], strlen(enc[i])), (long)n);
        assert_memory_equal(dec, plain[i], n);
    }
    assert_int_equal(lcodec_unb64(dec, "Zm9vYg", 6), 4); /* no padding */
    assert_memory_equal(dec, "foob", 4);
    assert_int_equal(lcodec_unb64(dec, " Zm8=\r\n", 7), 2);
    assert_int_equal(lcodec_unb64(dec, "Zm9v!", 5), -1);
    assert_int_equal(lcodec_unb64(dec, "Z", 1), -1);
    assert_int_equal(lcodec_unb64(dec, "Zm=9", 4), -1);
    assert_int_equal(lcodec_unb64(dec, "Zg=", 3), -1);
}

static void test_from_lua(void **state)
{
    static const char script[] =
        "assert(quern.base64('alice:s3cret') == 'YWxpY2U6czNjcmV0')\n"
        "assert(quern.base64_decode('YWxpY2U6czNjcmV0') == 'alice:s3cret')\n"
        "local bin = '\\0\\1\\255\\254 x'\n"
        "assert(quern.base64_decode(quern.base64(bin)) == bin)\n"
        "assert(quern.url_encode('a b&c=d/é~._-') == 'a%20b%26c%3Dd%2F%C3%A9~._-')\n"
        "assert(quern.url_decode('a%20b%26c%3dd%2F%C3%A9+%zz%') == 'a b&c=d/é+%zz%')\n"
        "local ok, err = pcall(quern.base64_decode, 'not base64!')\n"
        "assert(not ok and err:find('not base64'))\n";

    luastate_run(lcodec_register, script);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b64_vectors),
        cmocka_unit_test(test_from_lua),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
