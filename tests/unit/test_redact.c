/* Unit tests for common/redact: the password of a URL's user-info hidden. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/redact.h"

static void check(const char *in, const char *want)
{
    char out[256];

    memset(out, 'x', sizeof(out));
    assert_int_equal(redact_url(in, out, sizeof(out)), 0);
    assert_string_equal(out, want);
}

static void test_password_hidden(void **state)
{
    check("http://u:secret@host/", "http://u:***@host/");
    check("https://user:p%40ss@example.test:8443/a/b?q=1#f",
          "https://user:***@example.test:8443/a/b?q=1#f");
    check("http://u:secret@127.0.0.1:8080", "http://u:***@127.0.0.1:8080");
    check("http://u:secret@h?x=1", "http://u:***@h?x=1");
    /* The user-info ends at the last '@' of the authority. */
    check("http://u:se@cret@host/p", "http://u:***@host/p");
    /* A colon in the password. */
    check("http://u:a:b@host/", "http://u:***@host/");
}

static void test_unchanged(void **state)
{
    check("http://host/", "http://host/");
    check("http://host:8080/a@b", "http://host:8080/a@b"); /* '@' in the path */
    check("http://host/?mail=a:b@c", "http://host/?mail=a:b@c");
    check("http://user@host/", "http://user@host/");   /* no password */
    check("http://user:@host/", "http://user:@host/"); /* an empty one */
    check("", "");
    check("no URL here: a:b@c", "no URL here: a:b@c");
    check("ftp:/x", "ftp:/x");
}

/* Messages: every URL in them. */
static void test_in_messages(void **state)
{
    check("GET http://u:secret@h/x failed; then https://v:two@k:1 too",
          "GET http://u:***@h/x failed; then https://v:***@k:1 too");
    check("\"http://u:pw@h\" refused", "\"http://u:***@h\" refused");
    check("http://", "http://");
    check("http://:pw@h/", "http://:***@h/");
}

/* Cut to outlen, always terminated, never past the buffer. */
static void test_truncated(void **state)
{
    char out[12];
    const char *in = "http://u:secret@host/path";

    for (size_t n = 1; n <= sizeof(out); n++) {
        memset(out, 'x', sizeof(out));
        assert_int_equal(redact_url(in, out, n), 0);
        assert_int_equal(strlen(out), n - 1);
        assert_int_equal(memcmp(out, "http://u:***@host/path", n - 1), 0);
        if (n < sizeof(out))
            assert_int_equal(out[n], 'x');
    }
    assert_int_equal(redact_url(in, out, 0), 0);
    assert_int_equal(out[0], 'h'); /* untouched */
    memset(out, 'x', sizeof(out));
    assert_int_equal(redact_url(in, out, sizeof(out)), 0);
    assert_string_equal(out, "http://u:**");
    assert_null(strstr(out, "secret"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_password_hidden),
        cmocka_unit_test(test_unchanged),
        cmocka_unit_test(test_in_messages),
        cmocka_unit_test(test_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
