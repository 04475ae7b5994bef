/* Unit tests for worker/cookiejar: a VU's cookies as text, in and out of a
 * handle's cookie engine, and merged when two handles changed them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "worker/wire/cookiejar.h"

#define A1 "127.0.0.1\tFALSE\t/\tFALSE\t0\ta\t1\n"
#define A2 "127.0.0.1\tFALSE\t/\tFALSE\t0\ta\t2\n"
#define B1 "127.0.0.1\tFALSE\t/\tFALSE\t0\tb\t1\n"
#define C1 "#HttpOnly_127.0.0.1\tFALSE\t/x\tFALSE\t0\tc\t1\n"
#define C2 "127.0.0.1\tFALSE\t/x\tFALSE\t0\tc\t2\n"

static CURL *jar_handle(void)
{
    CURL *h = curl_easy_init();
    assert_non_null(h);
    curl_easy_setopt(h, CURLOPT_COOKIEFILE, "");
    return h;
}

/* What goes in comes out, and a second put replaces, not adds. */
static void test_put_take_round_trip(void **state)
{
    CURL *h = jar_handle();
    char *t;

    assert_null(cookiejar_take(h));
    cookiejar_put(h, A1 C1);
    t = cookiejar_take(h);
    assert_non_null(t);
    assert_non_null(strstr(t, "\ta\t1\n"));
    assert_non_null(strstr(t, "#HttpOnly_127.0.0.1\tFALSE\t/x\tFALSE\t0\tc\t1\n"));
    free(t);
    cookiejar_put(h, B1);
    t = cookiejar_take(h);
    assert_string_equal(t, B1);
    free(t);
    cookiejar_put(h, NULL);
    assert_null(cookiejar_take(h));
    curl_easy_cleanup(h);
}

/* One handle's change goes onto what another one saved meanwhile. */
static void test_merge_keeps_both_changes(void **state)
{
    /* base A1; the other handle added B1; mine changed a to 2 */
    char *m = cookiejar_merge(A1 B1, A1, A2);
    assert_string_equal(m, B1 A2);
    free(m);
    /* mine added C1; the other changed a */
    m = cookiejar_merge(A2, A1, A1 C1);
    assert_string_equal(m, A2 C1);
    free(m);
}

/* A cookie mine removed is removed; one it never had stays. */
static void test_merge_removal(void **state)
{
    char *m = cookiejar_merge(A1 B1, A1, NULL);
    assert_string_equal(m, B1);
    free(m);
    assert_null(cookiejar_merge(A1, A1, NULL));
    /* the HttpOnly prefix is not part of the cookie's identity */
    m = cookiejar_merge(A1 C1, A1 C1, A1 C2);
    assert_string_equal(m, A1 C2);
    free(m);
    /* nothing changed by mine: now as it is */
    m = cookiejar_merge(B1, A1, A1);
    assert_string_equal(m, B1);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_take_round_trip),
        cmocka_unit_test(test_merge_keeps_both_changes),
        cmocka_unit_test(test_merge_removal),
    };
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
