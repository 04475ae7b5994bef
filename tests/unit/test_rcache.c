/* Unit tests for worker/rcache: the cache rules of a VU's resources
 * (Cache-Control, Expires, ETag, Last-Modified, 304s) and its bound. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "worker/wire/rcache.h"

#define S 1000000LL /* a second, in microseconds */

static void update(rcache *c, const char *url, int status, const char *hdr, int64_t now)
{
    rcache_update(c, url, status, hdr, strlen(hdr), now);
}

static void test_parse(void **state)
{
    static const char hdr[] = "HTTP/1.1 200 OK\r\n"
                              "Cache-Control: public, max-age=\"60\", no-cache=\"set-cookie\"\r\n"
                              "ETag: \"abc\"\r\nLast-Modified: Tue, 01 Dec 2026 10:00:00 GMT\r\n"
                              "Date: Tue, 01 Dec 2026 10:00:00 GMT\r\n"
                              "Expires: Tue, 01 Dec 2026 10:05:00 GMT\r\n\r\n";
    rcache_hdrs h;

    rcache_parse(hdr, sizeof(hdr) - 1, 0, &h);
    assert_int_equal(h.max_age_s, 60);
    assert_int_equal(h.no_cache, 1);
    assert_int_equal(h.no_store, 0);
    assert_string_equal(h.etag, "\"abc\"");
    assert_string_equal(h.last_modified, "Tue, 01 Dec 2026 10:00:00 GMT");
    assert_int_equal(h.expires_in, 300);
    rcache_parse("Expires: 0\r\nCache-Control: no-store\r\n", 37, 0, &h);
    assert_int_equal(h.expires_in, 0);
    assert_int_equal(h.no_store, 1);
    assert_int_equal(h.max_age_s, -1);
}

static void test_fresh_then_revalidate(void **state)
{
    rcache *c = rcache_new();
    const char *etag, *lm;

    assert_int_equal(rcache_plan(c, "http://h/a.css", 0, &etag, &lm), RCACHE_MISS);
    update(c, "http://h/a.css", 200, "Cache-Control: max-age=10\r\nETag: \"v1\"\r\n", 1 * S);
    assert_int_equal(rcache_plan(c, "http://h/a.css", 5 * S, &etag, &lm), RCACHE_FRESH);
    assert_int_equal(rcache_plan(c, "http://h/a.css", 12 * S, &etag, &lm), RCACHE_COND);
    assert_string_equal(etag, "\"v1\"");
    assert_null(lm);
    /* a 304 takes the new freshness and keeps the validator */
    update(c, "http://h/a.css", 304, "Cache-Control: max-age=100\r\n", 12 * S);
    assert_int_equal(rcache_plan(c, "http://h/a.css", 50 * S, &etag, &lm), RCACHE_FRESH);
    assert_int_equal(rcache_plan(c, "http://h/a.css", 113 * S, &etag, &lm), RCACHE_COND);
    assert_string_equal(etag, "\"v1\"");
    /* what a stylesheet names stays with it through 304s, not a new 200 */
    rcache_set_deps(c, "http://h/a.css", "http://h/x.png\nhttp://h/y.png\n", 30);
    update(c, "http://h/a.css", 304, "", 114 * S);
    assert_string_equal(rcache_deps(c, "http://h/a.css"), "http://h/x.png\nhttp://h/y.png\n");
    update(c, "http://h/a.css", 200, "ETag: \"v2\"\r\n", 115 * S);
    assert_null(rcache_deps(c, "http://h/a.css"));
    assert_null(rcache_deps(c, "http://h/none"));
    rcache_free(c);
}

static void test_no_cache_and_no_store(void **state)
{
    rcache *c = rcache_new();
    const char *etag, *lm;

    update(
        c, "http://h/n", 200,
        "Cache-Control: no-cache, max-age=600\r\nLast-Modified: Mon, 30 Nov 2026 08:00:00 GMT\r\n",
        0);
    assert_int_equal(rcache_plan(c, "http://h/n", 1, &etag, &lm), RCACHE_COND);
    assert_null(etag);
    assert_string_equal(lm, "Mon, 30 Nov 2026 08:00:00 GMT");
    update(c, "http://h/n", 200, "Cache-Control: no-store\r\nETag: \"x\"\r\n", 2);
    assert_int_equal(rcache_plan(c, "http://h/n", 3, &etag, &lm), RCACHE_MISS);
    assert_int_equal(rcache_count(c), 0);
    /* no freshness and no validator: not kept */
    update(c, "http://h/plain", 200, "Content-Type: text/css\r\n", 0);
    assert_int_equal(rcache_count(c), 0);
    /* max-age=0 with a validator: revalidated every time */
    update(c, "http://h/z", 200, "Cache-Control: max-age=0\r\nETag: W/\"z\"\r\n", 0);
    assert_int_equal(rcache_plan(c, "http://h/z", 0, &etag, &lm), RCACHE_COND);
    assert_string_equal(etag, "W/\"z\"");
    /* an error removes the entry */
    update(c, "http://h/z", 404, "", 1);
    assert_int_equal(rcache_plan(c, "http://h/z", 2, &etag, &lm), RCACHE_MISS);
    /* a 304 for an unknown URL keeps nothing */
    update(c, "http://h/unknown", 304, "ETag: \"q\"\r\n", 1);
    assert_int_equal(rcache_count(c), 0);
    rcache_free(c);
}

static void test_fresh_without_validator(void **state)
{
    rcache *c = rcache_new();
    const char *etag, *lm;

    update(c, "http://h/f", 200, "Cache-Control: max-age=5\r\n", 0);
    assert_int_equal(rcache_plan(c, "http://h/f", 4 * S, &etag, &lm), RCACHE_FRESH);
    assert_int_equal(rcache_plan(c, "http://h/f", 6 * S, &etag, &lm), RCACHE_MISS);
    rcache_free(c);
}

static void test_bound(void **state)
{
    rcache *c = rcache_new();
    const char *etag, *lm;
    char url[64];

    for (unsigned i = 0; i < RCACHE_MAX + 10; i++) {
        snprintf(url, sizeof(url), "http://h/r%u", i);
        update(c, url, 200, "ETag: \"e\"\r\n", (int64_t)i + 1);
    }
    assert_int_equal(rcache_count(c), RCACHE_MAX);
    /* the least recently used went first */
    assert_int_equal(rcache_plan(c, "http://h/r0", 0, &etag, &lm), RCACHE_MISS);
    snprintf(url, sizeof(url), "http://h/r%u", RCACHE_MAX + 9);
    assert_int_equal(rcache_plan(c, url, 0, &etag, &lm), RCACHE_COND);
    rcache_free(c);
    rcache_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_fresh_then_revalidate),
        cmocka_unit_test(test_no_cache_and_no_store),
        cmocka_unit_test(test_fresh_without_validator),
        cmocka_unit_test(test_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
