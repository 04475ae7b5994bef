/* Unit tests for worker/urlc: each distinct URL parsed once. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "worker/wire/urlc.h"

static CURLU *get(urlc *c, const char *url)
{
    urlc_ent *e = urlc_get(c, url, strlen(url));
    return e != NULL ? e->u : NULL;
}

static void test_same_url_same_handle(void **state)
{
    urlc *c = urlc_new(0);
    CURLU *a = get(c, "http://127.0.0.1:8080/small");
    CURLU *b = get(c, "http://127.0.0.1:8080/small");
    CURLU *d = get(c, "http://127.0.0.1:8080/small?x=1");

    assert_non_null(a);
    assert_ptr_equal(a, b);
    assert_non_null(d);
    assert_ptr_not_equal(a, d);
    assert_int_equal(urlc_count(c), 2);
    urlc_free(c);
}

/* The parsed form is what libcurl would have made of the string. */
static void test_parsed_parts(void **state)
{
    urlc *c = urlc_new(0);
    CURLU *u = get(c, "http://example.test:81/a/b?q=1#frag");
    char *s = NULL;

    assert_non_null(u);
    assert_int_equal(curl_url_get(u, CURLUPART_HOST, &s, 0), CURLUE_OK);
    assert_string_equal(s, "example.test");
    curl_free(s);
    assert_int_equal(curl_url_get(u, CURLUPART_PORT, &s, 0), CURLUE_OK);
    assert_string_equal(s, "81");
    curl_free(s);
    assert_int_equal(curl_url_get(u, CURLUPART_PATH, &s, 0), CURLUE_OK);
    assert_string_equal(s, "/a/b");
    curl_free(s);
    assert_int_equal(curl_url_get(u, CURLUPART_QUERY, &s, 0), CURLUE_OK);
    assert_string_equal(s, "q=1");
    curl_free(s);
    /* No scheme: guessed, as libcurl does for CURLOPT_URL. */
    u = get(c, "127.0.0.1/x");
    assert_non_null(u);
    assert_int_equal(curl_url_get(u, CURLUPART_SCHEME, &s, 0), CURLUE_OK);
    assert_string_equal(s, "http");
    curl_free(s);
    urlc_free(c);
}

/* A URL libcurl rejects is not kept: the transfer reports it. */
static void test_bad_url_not_kept(void **state)
{
    urlc *c = urlc_new(0);

    assert_null(get(c, "http://exa mple.test/"));
    assert_null(get(c, ""));
    assert_int_equal(urlc_count(c), 0);
    urlc_free(c);
}

/* Bounded: once full, new URLs are refused and old ones still served. */
static void test_bounded(void **state)
{
    urlc *c = urlc_new(8);
    char url[64];
    CURLU *first = get(c, "http://h/0");

    for (int i = 1; i < 8; i++) {
        snprintf(url, sizeof(url), "http://h/%d", i);
        assert_non_null(get(c, url));
    }
    assert_int_equal(urlc_count(c), 8);
    assert_null(get(c, "http://h/8"));
    assert_ptr_equal(get(c, "http://h/0"), first);
    assert_int_equal(urlc_count(c), 8);
    urlc_free(c);
}

/* The receive buffer follows the URL's last response: 8 KB before any,
 * then the next power of two above it and a quarter, from 1 KB to 16 KB. */
static void test_recv_buf(void **state)
{
    urlc *c = urlc_new(0);
    urlc_ent *e = urlc_get(c, "http://h/small", strlen("http://h/small"));
    urlc_ent *f = urlc_get(c, "http://h/big", strlen("http://h/big"));

    assert_non_null(e);
    assert_int_equal(e->recv_buf, URLC_RECV_FIRST);
    urlc_seen(e, 250);
    assert_int_equal(e->recv_buf, 1024);
    urlc_seen(e, 900); /* 1,125 with the margin */
    assert_int_equal(e->recv_buf, 2048);
    urlc_seen(e, 3000);
    assert_int_equal(e->recv_buf, 4096);
    urlc_seen(e, 0);
    assert_int_equal(e->recv_buf, 1024);
    urlc_seen(f, 65536);
    assert_int_equal(f->recv_buf, URLC_RECV_MAX);
    urlc_seen(f, UINT64_MAX / 2);
    assert_int_equal(f->recv_buf, URLC_RECV_MAX);
    /* Each URL keeps its own. */
    assert_int_equal(e->recv_buf, 1024);
    assert_ptr_equal(urlc_get(c, "http://h/small", strlen("http://h/small")), e);
    urlc_free(c);
}

/* The form written of a URL: its password redacted once, when it is kept. */
static void test_shown(void **state)
{
    urlc *c = urlc_new(0);
    const char *plain = "http://127.0.0.1:8080/a";
    const char *cred = "http://u:secret@127.0.0.1:8080/a?q=1";
    urlc_ent *p = urlc_get(c, plain, strlen(plain));
    urlc_ent *e = urlc_get(c, cred, strlen(cred));
    char buf[64];

    assert_non_null(p);
    assert_null(p->shown); /* nothing to hide: written as libcurl reports it */
    assert_ptr_equal(urlc_shown(p, plain, 0, buf, sizeof(buf)), plain);
    assert_non_null(e);
    assert_string_equal(e->shown, "http://u:***@127.0.0.1:8080/a?q=1");
    assert_ptr_equal(urlc_shown(e, cred, 0, buf, sizeof(buf)), e->shown);
    /* After a redirect, or without an entry, the effective URL is redacted. */
    assert_string_equal(urlc_shown(e, "http://v:pw@h/b", 1, buf, sizeof(buf)), "http://v:***@h/b");
    assert_string_equal(urlc_shown(NULL, cred, 0, buf, sizeof(buf)),
                        "http://u:***@127.0.0.1:8080/a?q=1");
    assert_string_equal(urlc_shown(NULL, NULL, 0, buf, sizeof(buf)), "");
    urlc_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_url_same_handle),
        cmocka_unit_test(test_parsed_parts),
        cmocka_unit_test(test_bad_url_not_kept),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_recv_buf),
        cmocka_unit_test(test_shown),
    };
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
