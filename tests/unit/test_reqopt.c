/* Unit tests for worker/reqopt: the single-value parsers, the CA bundle the
 * environment names, the Accept-Encoding offered. Reading option tables and
 * which level wins: test_lreqopt.c. No Lua state. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/wire/reqopt.h"

static void test_tls_version(void **state)
{
    long v = 0;

    assert_int_equal(reqopt_tls_version("1.2", &v), 0);
    assert_int_equal(v, CURL_SSLVERSION_TLSv1_2);
    assert_int_equal(reqopt_tls_version("1.3", &v), 0);
    assert_int_equal(v, CURL_SSLVERSION_TLSv1_3);
    assert_int_equal(reqopt_tls_version("1.4", &v), -1);
    assert_int_equal(reqopt_tls_version("", &v), -1);
    assert_int_equal(reqopt_tls_version(NULL, &v), -1);
}

static void test_auth_type_and_keys(void **state)
{
    assert_int_equal(reqopt_auth_type("basic"), REQOPT_AUTH_BASIC);
    assert_int_equal(reqopt_auth_type("digest"), REQOPT_AUTH_DIGEST);
    assert_int_equal(reqopt_auth_type("bearer"), REQOPT_AUTH_BEARER);
    assert_int_equal(reqopt_auth_type("Basic"), -1);
    assert_int_equal(reqopt_auth_type(NULL), -1);
    assert_true(reqopt_is_key("tls"));
    assert_true(reqopt_is_key("connect_timeout"));
    assert_false(reqopt_is_key("timeout")); /* the request's own, in lhttp */
    assert_false(reqopt_is_key("headers"));
}

static void test_path(void **state)
{
    char out[64];

    reqopt_path("/s", "ca.pem", out, sizeof(out));
    assert_string_equal(out, "/s/ca.pem");
    reqopt_path("/s", "/etc/ca.pem", out, sizeof(out));
    assert_string_equal(out, "/etc/ca.pem");
    reqopt_path("", "ca.pem", out, sizeof(out));
    assert_string_equal(out, "ca.pem");
    assert_true(reqopt_path("/s", "a-name-longer-than-the-buffer-by-far-and-more", out, 16) >= 16);
    assert_int_equal(strlen(out), 15);
}

static void test_env_ca(void **state)
{
    char *ca;

    setenv("CURL_CA_BUNDLE", "/x/bundle.pem", 1);
    setenv("SSL_CERT_FILE", "/y/cert.pem", 1);
    ca = reqopt_env_ca();
    assert_string_equal(ca, "/x/bundle.pem");
    xfree(ca);
    unsetenv("CURL_CA_BUNDLE");
    ca = reqopt_env_ca();
    assert_string_equal(ca, "/y/cert.pem");
    xfree(ca);
    unsetenv("SSL_CERT_FILE");
    ca = reqopt_env_ca(); /* libcurl's own, when it has one */
    xfree(ca);
}

/* The line quern sends in place of libcurl's own: what this libcurl
 * decodes, in its order; compressed unless a level says otherwise. */
static void test_accept_encoding(void **state)
{
    const curl_version_info_data *vi = curl_version_info(CURLVERSION_NOW);
    const char *line = reqopt_accept_encoding();
    reqopt off = {.serial = 1, .set = REQOPT_COMPRESSED, .compressed = 0};
    reqopt on = {.serial = 2, .set = REQOPT_COMPRESSED, .compressed = 1};

    (void)state;
    assert_int_equal(strncmp(line, "Accept-Encoding: ", 17), 0);
    assert_int_equal(strstr(line, "deflate, gzip") != NULL,
                     (vi->features & CURL_VERSION_LIBZ) != 0);
    assert_int_equal(strstr(line, "br") != NULL, (vi->features & CURL_VERSION_BROTLI) != 0);
    assert_int_equal(strstr(line, "zstd") != NULL, (vi->features & CURL_VERSION_ZSTD) != 0);
    if ((vi->features & (CURL_VERSION_LIBZ | CURL_VERSION_BROTLI | CURL_VERSION_ZSTD)) == 0)
        assert_string_equal(line, "Accept-Encoding: identity");
    assert_int_equal(reqopt_compressed(NULL, NULL, NULL), 1);
    assert_int_equal(reqopt_compressed(NULL, &off, NULL), 0);
    assert_int_equal(reqopt_compressed(&on, &off, NULL), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tls_version),
        cmocka_unit_test(test_auth_type_and_keys),
        cmocka_unit_test(test_path),
        cmocka_unit_test(test_env_ca),
        cmocka_unit_test(test_accept_encoding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
