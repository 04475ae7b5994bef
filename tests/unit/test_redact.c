/* Unit tests for common/redact: URL passwords, secret property keys, and
 * command lines joined with shell quoting. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/redact.h"

static void test_url(void **state)
{
    char out[256];

    assert_int_equal(redact_url("http://u:secret@host:8080/x?y=1", out, sizeof(out)),
                     strlen("http://u:***@host:8080/x?y=1"));
    assert_string_equal(out, "http://u:***@host:8080/x?y=1");
    redact_url("https://bob:p%40ss:w@db.example.com", out, sizeof(out));
    assert_string_equal(out, "https://bob:***@db.example.com");
    /* The last '@' of the authority ends the user-info. */
    redact_url("http://a:b@c@host/p@q", out, sizeof(out));
    assert_string_equal(out, "http://a:***@host/p@q");
    /* No password, no user-info, not a URL: unchanged. */
    redact_url("http://user@host/a:b@c", out, sizeof(out));
    assert_string_equal(out, "http://user@host/a:b@c");
    redact_url("http://host:80/", out, sizeof(out));
    assert_string_equal(out, "http://host:80/");
    redact_url("user:pw@host and ://x:y@z", out, sizeof(out));
    assert_string_equal(out, "user:pw@host and ://x:y@z");
    /* Several URLs in a message. */
    redact_url("GET http://a:1@h1/ failed, then \"ftp://b:2@h2\"", out, sizeof(out));
    assert_string_equal(out, "GET http://a:***@h1/ failed, then \"ftp://b:***@h2\"");
    redact_url(NULL, out, sizeof(out));
    assert_string_equal(out, "");
}

static void test_url_truncated(void **state)
{
    char out[12];
    const char *in = "http://u:secretsecret@host/";
    size_t n = redact_url(in, out, sizeof(out));

    assert_int_equal(n, strlen("http://u:***@host/"));
    assert_true(n >= sizeof(out));
    assert_string_equal(out, "http://u:**");
    /* The secret never leaks, even cut short. */
    for (size_t cap = 0; cap < 30; cap++) {
        char small[30];
        memset(small, 'Z', sizeof(small));
        redact_url(in, small, cap);
        if (cap > 0)
            assert_null(strstr(small, "secret"));
        for (size_t i = cap; i < sizeof(small); i++)
            assert_int_equal(small[i], 'Z');
    }
}

static void test_keys(void **state)
{
    const char *const secret[] = {"password",      "DB_PASSWORD", "passwd",
                                  "client_secret", "Token",       "apiKey",
                                  "auth",          "AUTH_HEADER", "credentials"};
    const char *const plain[] = {"base_url", "user", "pacing", "users_csv", ""};

    for (size_t i = 0; i < sizeof(secret) / sizeof(secret[0]); i++)
        assert_true(redact_key_is_secret(secret[i]));
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        assert_false(redact_key_is_secret(plain[i]));
    assert_false(redact_key_is_secret(NULL));
}

static void test_property(void **state)
{
    char out[128];

    redact_property("password=hunter2", out, sizeof(out));
    assert_string_equal(out, "password=***");
    redact_property("base_url=http://u:pw@h:8080", out, sizeof(out));
    assert_string_equal(out, "base_url=http://u:***@h:8080");
    redact_property("user=alice", out, sizeof(out));
    assert_string_equal(out, "user=alice");
    redact_property("token=", out, sizeof(out));
    assert_string_equal(out, "token=");
    redact_property("novalue", out, sizeof(out));
    assert_string_equal(out, "novalue");
}

static void test_argv(void **state)
{
    const char *const argv[] = {"quern",
                                "run",
                                "plan.lua",
                                "--vus",
                                "50",
                                "-p",
                                "password=hunter2",
                                "--property",
                                "API_TOKEN=abc",
                                "--property=secret=x'y",
                                "-p",
                                "base_url=http://u:pw@host:8080/",
                                "--threshold",
                                "p95<500ms",
                                "--name",
                                "it's",
                                "",
                                "--tag",
                                "env=ci"};
    char out[512];
    size_t n = redact_argv((int)(sizeof(argv) / sizeof(argv[0])), argv, out, sizeof(out));

    assert_string_equal(out, "quern run plan.lua --vus 50 -p 'password=***' --property "
                             "'API_TOKEN=***' --property='secret=***' -p "
                             "'base_url=http://u:***@host:8080/' --threshold 'p95<500ms' "
                             "--name 'it'\\''s' '' --tag env=ci");
    assert_int_equal(n, strlen(out));
    assert_null(strstr(out, "hunter2"));
    assert_null(strstr(out, "abc"));
    assert_null(strstr(out, ":pw@"));
}

static void test_argv_headers(void **state)
{
    const char *const argv[] = {"quern",
                                "run",
                                "--out-header",
                                "Authorization: Bearer s3cr3t",
                                "--out-header=X-Api-Key: k3y",
                                "--out-header",
                                "X-Scope-OrgID: team",
                                "--out",
                                "influxdb=http://h/write?db=q&p=pw"};
    char out[512];

    redact_argv((int)(sizeof(argv) / sizeof(argv[0])), argv, out, sizeof(out));
    assert_string_equal(out, "quern run --out-header 'Authorization: ***' "
                             "--out-header='X-Api-Key: ***' --out-header 'X-Scope-OrgID: team' "
                             "--out 'influxdb=http://h/write?db=q&p=***'");
}

static void test_argv_truncated(void **state)
{
    const char *const argv[] = {"quern", "run", "-p", "password=hunter2"};
    char out[16];
    size_t n = redact_argv(4, argv, out, sizeof(out));

    assert_int_equal(n, strlen("quern run -p 'password=***'"));
    assert_int_equal(strlen(out), sizeof(out) - 1);
    assert_null(strstr(out, "hunter"));
    assert_int_equal(redact_argv(0, argv, out, sizeof(out)), 0);
    assert_string_equal(out, "");
}

/* More shapes: the authority's last '@', colons in the password, a message
 * with several URLs, URLs that hold no password. */
static void check_shape(const char *in, const char *want)
{
    char out[256];

    memset(out, 'x', sizeof(out));
    assert_int_equal(redact_url(in, out, sizeof(out)), strlen(want));
    assert_string_equal(out, want);
}

static void test_url_shapes(void **state)
{
    check_shape("https://user:p%40ss@example.test:8443/a/b?q=1#f",
                "https://user:***@example.test:8443/a/b?q=1#f");
    check_shape("http://u:secret@h?x=1", "http://u:***@h?x=1");
    check_shape("http://u:se@cret@host/p", "http://u:***@host/p");
    check_shape("http://u:a:b@host/", "http://u:***@host/");
    check_shape("http://host:8080/a@b", "http://host:8080/a@b");
    check_shape("http://host/?mail=a:b@c", "http://host/?mail=a:b@c");
    check_shape("http://h/write?db=x&u=me&p=pw&api_token=t#f",
                "http://h/write?db=x&u=me&p=***&api_token=***#f");
    check_shape("see https://h/x?access_key=K1&page=2 and http://u:p@i/?p=",
                "see https://h/x?access_key=***&page=2 and http://u:***@i/?p=");
    check_shape("http://h/a&p=1?q=1", "http://h/a&p=1?q=1");
    check_shape("http://user@host/", "http://user@host/");
    check_shape("no URL here: a:b@c", "no URL here: a:b@c");
    check_shape("ftp:/x", "ftp:/x");
    check_shape("GET http://u:secret@h/x failed; then https://v:two@k:1 too",
                "GET http://u:***@h/x failed; then https://v:***@k:1 too");
    check_shape("\"http://u:pw@h\" refused", "\"http://u:***@h\" refused");
    check_shape("http://", "http://");
    check_shape("http://:pw@h/", "http://:***@h/");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url),
        cmocka_unit_test(test_url_truncated),
        cmocka_unit_test(test_url_shapes),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_argv_truncated),
        cmocka_unit_test(test_argv_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
