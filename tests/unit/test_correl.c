/* Unit tests for record/correl.c: which sent values are found in earlier
 * responses, and the expression that extracts each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/correl.h"

/* Entries: GET /a answers resp (of MIME mime, Location loc), then POST /b
 * sends body (form-encoded) and GET url. */
static void find(const char *mime, const char *resp, const char *loc, const char *body,
                 const char *url, correl *c, har *h)
{
    char text[8192], err[256];
    unsigned char keep[3] = {1, 1, 1};

    snprintf(
        text, sizeof(text),
        "{\"log\": {\"entries\": ["
        "{\"startedDateTime\": \"2026-01-01T00:00:00Z\", \"request\": {\"method\": \"POST\", "
        "\"url\": \"http://h/a\", \"postData\": {\"mimeType\": "
        "\"application/x-www-form-urlencoded\", \"text\": \"user=alice42\"}}, "
        "\"response\": {\"status\": %d, \"headers\": [{\"name\": \"Location\", \"value\": "
        "\"%s\"}], \"content\": {\"mimeType\": \"%s\", \"text\": %s}}},"
        "{\"startedDateTime\": \"2026-01-01T00:00:01Z\", \"request\": {\"method\": \"POST\", "
        "\"url\": \"http://h/b\", \"postData\": {\"mimeType\": "
        "\"application/x-www-form-urlencoded\", \"text\": \"%s\"}}, \"response\": {\"status\": "
        "200}},"
        "{\"startedDateTime\": \"2026-01-01T00:00:02Z\", \"request\": {\"method\": \"GET\", "
        "\"url\": \"%s\"}, \"response\": {\"status\": 200}}]}}",
        loc[0] ? 302 : 200, loc, mime, resp, body, url);
    assert_int_equal(har_parse(text, strlen(text), h, err, sizeof(err)), 0);
    correl_find(h, keep, c);
}

static void test_hidden_input(void **state)
{
    correl c;
    har h;

    (void)state;
    find("text/html",
         "\"<form><input type=hidden name='authenticity_token' value='a&amp;b9Zq'></form>\"", "",
         "authenticity_token=a%26b9Zq&qty=2", "http://h/c", &c, &h);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.r[0].var, "authenticity_token");
    assert_string_equal(c.r[0].value, "a&b9Zq");
    assert_string_equal(c.r[0].expr, "r:xpath(\"//input[@name='authenticity_token']/@value\")");
    assert_string_equal(c.r[0].why, "the hidden input \"authenticity_token\" of the page POST /a");
    assert_int_equal(c.r[0].src, 0);
    assert_null(correl_lookup(&c, "a&b9Zq", 0)); /* not before its source */
    assert_non_null(correl_lookup(&c, "a&b9Zq", 1));
    correl_free(&c);
    har_free(&h);
}

/* JSON ids at depth, in a later URL's path and query. */
static void test_json_ids(void **state)
{
    correl c;
    har h;

    (void)state;
    find("application/json",
         "\"{\\\"data\\\": [{\\\"id\\\": 4711, \\\"ref\\\": \\\"r-9x8y\\\"}]}\"", "", "x=1",
         "http://h/items/4711?ref=r-9x8y", &c, &h);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.r[0].var, "id");
    assert_string_equal(c.r[0].expr, "r:json()[\"data\"][1][\"id\"]");
    assert_string_equal(c.r[1].var, "ref");
    assert_string_equal(c.r[1].expr, "r:json()[\"data\"][1][\"ref\"]");
    correl_free(&c);
    har_free(&h);
}

/* An id in a Location header, as a path segment. */
static void test_location(void **state)
{
    correl c;
    har h;

    (void)state;
    find("text/html", "\"\"", "/carts/c-77.a/items", "", "http://h/carts/c-77.a", &c, &h);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.r[0].var, "carts_id");
    assert_string_equal(c.r[0].expr, "r:header(\"location\"):match(\"/carts/([^/?&#]+)\")");
    correl_free(&c);
    har_free(&h);
}

/* What the tester typed, echoed back, stays literal; short or common values too. */
static void test_not_correlated(void **state)
{
    correl c;
    har h;

    (void)state;
    find("application/json",
         "\"{\\\"user\\\": \\\"alice42\\\", \\\"n\\\": 7, \\\"ok\\\": \\\"true\\\", \\\"w\\\": "
         "\\\"items\\\"}\"",
         "", "user=alice42&n=7&ok=true", "http://h/items", &c, &h);
    assert_int_equal(c.n, 0);
    correl_free(&c);
    har_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hidden_input),
        cmocka_unit_test(test_json_ids),
        cmocka_unit_test(test_location),
        cmocka_unit_test(test_not_correlated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
