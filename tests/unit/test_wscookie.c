/* Unit tests for worker/wscookie: which cookies of the jar a WebSocket's
 * upgrade request carries, and the jar line a 101's Set-Cookie makes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "worker/wire/wscookie.h"

#define NOW 1700000000

/* Domain, host-only, path, secure and expiry rules. */
static void test_header(void **state)
{
    static const char *const jar[] = {
        "127.0.0.1\tFALSE\t/\tFALSE\t0\tA\tone",
        ".example.com\tTRUE\t/\tFALSE\t0\tD\tdom",
        "example.com\tFALSE\t/api\tFALSE\t0\tP\tpath",
        "#HttpOnly_example.com\tFALSE\t/\tTRUE\t0\tS\tsecure",
        "example.com\tFALSE\t/\tFALSE\t1600000000\tOLD\tgone",
        "example.com\tFALSE\t/\tFALSE\t1800000000\tNEW\tkept",
        "other.com\tFALSE\t/\tFALSE\t0\tO\tother",
        "malformed line",
    };
    size_t n = sizeof(jar) / sizeof(jar[0]);
    char out[512];

    assert_int_equal(wscookie_header(out, sizeof(out), jar, n, "127.0.0.1", "/ws", 0, NOW),
                     strlen("Cookie: A=one\r\n"));
    assert_string_equal(out, "Cookie: A=one\r\n");
    wscookie_header(out, sizeof(out), jar, n, "example.com", "/api/ws", 0, NOW);
    assert_string_equal(out, "Cookie: D=dom; P=path; NEW=kept\r\n");
    wscookie_header(out, sizeof(out), jar, n, "example.com", "/apix", 1, NOW);
    assert_string_equal(out, "Cookie: D=dom; S=secure; NEW=kept\r\n");
    wscookie_header(out, sizeof(out), jar, n, "ws.example.com", "/", 1, NOW);
    assert_string_equal(out, "Cookie: D=dom\r\n");
    assert_int_equal(wscookie_header(out, sizeof(out), jar, n, "nowhere.org", "/", 1, NOW), 0);
    assert_string_equal(out, "");
    /* too long for out: nothing rather than a cut header */
    assert_int_equal(wscookie_header(out, 12, jar, n, "127.0.0.1", "/", 0, NOW), 0);
    assert_string_equal(out, "");
}

static void test_line(void **state)
{
    char out[512];

    assert_int_equal(
        wscookie_line("WSC=from-101; Path=/", "127.0.0.1", "/cookie", NOW, out, sizeof(out)), 0);
    assert_string_equal(out, "127.0.0.1\tFALSE\t/\tFALSE\t0\tWSC\tfrom-101");
    /* the default path is the request's directory */
    wscookie_line(" a = b ", "h.example.com", "/chat/room", NOW, out, sizeof(out));
    assert_string_equal(out, "h.example.com\tFALSE\t/chat\tFALSE\t0\ta\tb");
    wscookie_line("a=b; Domain=.example.com; Secure; HttpOnly; Max-Age=60", "h.example.com", "/",
                  NOW, out, sizeof(out));
    assert_string_equal(out, "#HttpOnly_.example.com\tTRUE\t/\tTRUE\t1700000060\ta\tb");
    /* Max-Age=0 deletes; Max-Age wins over Expires */
    wscookie_line("a=; Max-Age=0; Expires=Wed, 01 Jan 2099 00:00:00 GMT", "h", "/", NOW, out,
                  sizeof(out));
    assert_string_equal(out, "h\tFALSE\t/\tFALSE\t1\ta\t");
    wscookie_line("a=b; Expires=Wed, 01 Jan 2099 00:00:00 GMT", "h", "/", NOW, out, sizeof(out));
    assert_string_equal(out, "h\tFALSE\t/\tFALSE\t4070908800\ta\tb");
    /* refused: no name, a domain the host is not in, a tab */
    assert_int_equal(wscookie_line("=b", "h", "/", NOW, out, sizeof(out)), -1);
    assert_int_equal(wscookie_line("novalue", "h", "/", NOW, out, sizeof(out)), -1);
    assert_int_equal(
        wscookie_line("a=b; Domain=other.com", "h.example.com", "/", NOW, out, sizeof(out)), -1);
    assert_int_equal(wscookie_line("a=b\tc", "h", "/", NOW, out, sizeof(out)), -1);
    assert_int_equal(wscookie_line("a=b", "h", "/", NOW, out, 8), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
